#include "scangen/dsl/checker.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

namespace scangen::dsl {

namespace {

// 128-bit integers hold every literal of every integer type, with its sign.
__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

constexpr int kMaxThreads = 1024;
constexpr int kMaxItems = 128;
constexpr int kMaxWarp = 32;
constexpr size_t kMaxTypeNesting = 64;  // structs inside structs; bounds recursion

// ---- small helpers ---------------------------------------------------------

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// "; did you mean 'x'?" when one candidate is close, else "".
// Only a clear winner is suggested: close enough for the name's length, not
// a rewrite of every letter, and no other candidate equally close.
std::string suggest(std::string_view name, const std::vector<std::string>& candidates) {
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return out;
  };
  // The names a user of C, CUDA, NumPy or PyTorch would write for ours,
  // suggested where they are among the candidates.
  static const std::pair<const char*, const char*> kSynonyms[] = {
      {"sum", "add"},        {"plus", "add"},       {"prod", "mul"},        {"product", "mul"},
      {"multiply", "mul"},   {"times", "mul"},      {"minimum", "min"},     {"maximum", "max"},
      {"bitand", "and"},     {"bitor", "or"},       {"bitxor", "xor"},      {"int", "i32"},
      {"int32", "i32"},      {"int32_t", "i32"},    {"unsigned", "u32"},    {"uint", "u32"},
      {"uint32", "u32"},     {"uint32_t", "u32"},   {"long", "i64"},        {"int64", "i64"},
      {"int64_t", "i64"},    {"uint64", "u64"},     {"uint64_t", "u64"},    {"size_t", "u64"},
      {"short", "i16"},      {"int16", "i16"},      {"int16_t", "i16"},     {"uint16", "u16"},
      {"uint16_t", "u16"},   {"char", "i8"},        {"int8", "i8"},         {"int8_t", "i8"},
      {"uint8", "u8"},       {"uint8_t", "u8"},     {"uchar", "u8"},        {"byte", "u8"},
      {"float", "f32"},      {"float32", "f32"},    {"double", "f64"},      {"float64", "f64"},
      {"half", "f16"},       {"float16", "f16"},    {"__half", "f16"},      {"long long", "i64"}};
  const std::string lowered = lower(name);
  for (const auto& [from, to] : kSynonyms) {
    if (lowered == from && std::find(candidates.begin(), candidates.end(), to) != candidates.end())
      return std::string("; did you mean '") + to + "'?";
  }
  size_t limit = name.size() <= 2 ? 1 : name.size() <= 5 ? 2 : 3;
  std::string best;
  size_t best_d = limit + 1;
  bool tie = false;
  for (const std::string& c : candidates) {
    size_t d = lower(name) == lower(c) ? 0 : edit_distance(name, c);
    if (d >= name.size() && d > 0) continue;
    if (d < best_d) {
      best_d = d;
      best = c;
      tie = false;
    } else if (d == best_d && c != best) {
      tie = true;
    }
  }
  return best.empty() || tie ? "" : "; did you mean '" + best + "'?";
}

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::vector<std::string> scalar_type_names() {
  std::vector<std::string> out;
#define X(e, name, bytes, f, s) \
  if (ScalarKind::e != ScalarKind::Bool) out.push_back(name);
  SCANGEN_SCALAR_KINDS(X)
#undef X
  return out;
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The range of an integer kind as (min, max) in 128-bit arithmetic.
void integer_range(ScalarKind k, i128& lo, i128& hi) {
  int bits = integer_bits(k);
  if (is_signed(k)) {
    hi = (static_cast<i128>(1) << (bits - 1)) - 1;
    lo = -hi - 1;
  } else {
    lo = 0;
    hi = (static_cast<i128>(1) << bits) - 1;
  }
}

std::string int128_to_string(i128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  u128 u = neg ? static_cast<u128>(-(v + 1)) + 1 : static_cast<u128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

ExprPtr make_literal(const Type& t, Literal lit, SourceLoc loc) {
  // One NaN, so that printing and re-reading a spec gives an equal spec.
  if (t.is_float() && std::isnan(lit.value)) lit.value = std::numeric_limits<double>::quiet_NaN();
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Literal;
  e->type = t;
  e->lit = lit;
  e->loc = loc;
  return e;
}

Literal integer_literal(ScalarKind k, i128 v) {
  Literal lit;
  lit.bits = static_cast<uint64_t>(v);
  (void)k;
  return lit;
}

Literal float_literal(double v) {
  Literal lit;
  lit.value = v;
  return lit;
}

// The identity of a built-in operator on a scalar kind (OpenCL C's table).
Literal builtin_identity(BuiltinOp op, ScalarKind k) {
  i128 lo = 0, hi = 0;
  if (is_integer(k)) integer_range(k, lo, hi);
  bool fl = is_float(k);
  switch (op) {
    case BuiltinOp::Add:
    case BuiltinOp::Or:
    case BuiltinOp::Xor: return fl ? float_literal(0.0) : integer_literal(k, 0);
    case BuiltinOp::Mul: return fl ? float_literal(1.0) : integer_literal(k, 1);
    case BuiltinOp::Min:
      return fl ? float_literal(std::numeric_limits<double>::infinity()) : integer_literal(k, hi);
    case BuiltinOp::Max:
      return fl ? float_literal(-std::numeric_limits<double>::infinity()) : integer_literal(k, lo);
    case BuiltinOp::And: return integer_literal(k, is_signed(k) ? -1 : hi);
  }
  return {};
}

// ---- the checker -----------------------------------------------------------

struct Binding {
  std::string name;
  Type type;
  ExprKind kind;  // Param or Local
  int index;
  SourceLoc loc;
};

class Checker {
 public:
  explicit Checker(Diagnostics& diags) : diags_(diags) {}

  std::vector<Spec> run(const ast::File& file) {
    declare_types(file);
    std::vector<Spec> specs;
    std::map<std::string, SourceLoc> scan_names;
    for (const ast::ScanDecl& scan : file.scans) {
      auto [it, inserted] = scan_names.emplace(scan.name, scan.loc);
      if (!inserted) {
        error(scan.loc, "duplicate scan name '" + scan.name + "'; every scan in a file needs its own name");
        note(it->second, "'" + scan.name + "' was first declared here");
        continue;
      }
      int errors_before = diags_.error_count();
      Spec spec = check_scan(scan);
      // Checks that depend on something already reported (a broken type, say)
      // are skipped quietly, so "no new errors" alone does not mean complete.
      bool complete = spec.type.valid() && spec.input.valid() && spec.combine.body && spec.identity &&
                      spec.init && (spec.input == spec.type || spec.convert);
      if (diags_.error_count() == errors_before && !scan.had_syntax_errors && complete)
        specs.push_back(std::move(spec));
    }
    return specs;
  }

 private:
  void error(SourceLoc loc, std::string msg) { diags_.error(loc, std::move(msg)); }
  void note(SourceLoc loc, std::string msg) { diags_.note(loc, std::move(msg)); }

  // ---- types ---------------------------------------------------------------

  // The names the generated code gives, after the scan's prefix, to its own
  // functions and types (a struct type S is P_S too): a struct may not take one.
  static bool reserved_type_name(const std::string& n) {
    static const char* const names[] = {
        "temp", "inclusive", "exclusive", "inclusive_exclusive", "reduce", "broadcast", "inclusive_update",
        "exclusive_update", "inclusive_exclusive_update", "scan_kernel", "reduce_kernel", "spine_kernel",
        "workspace_bytes", "forget_workspace", "build", "release", "api_kernel"};
    for (const char* r : names)
      if (n == r) return true;
    return n.rfind("sg_", 0) == 0;
  }

  void declare_types(const ast::File& file) {
    for (const ast::TypeDecl& t : file.types) {
      if (scalar_kind_from_name(t.name)) {
        error(t.loc, "'" + t.name + "' is a built-in scalar type and cannot be redefined; choose another name");
        continue;
      }
      if (reserved_type_name(t.name)) {
        error(t.loc, "type name '" + t.name + "' is reserved: the generated code of a scan P names a function or type P_" +
                         t.name + " already; choose another name");
        continue;
      }
      auto [it, inserted] = type_decls_.emplace(t.name, &t);
      if (!inserted) {
        error(t.loc, "duplicate type name '" + t.name + "'; rename one of them");
        note(it->second->loc, "'" + t.name + "' was first declared here");
      }
    }
    for (const ast::TypeDecl& t : file.types)
      if (type_decls_.count(t.name) && type_decls_.at(t.name) == &t) resolve_struct(t.name, t.loc);
  }

  // Resolves a declared struct (and, first, the structs it contains).
  Type resolve_struct(const std::string& name, SourceLoc use_loc) {
    if (auto it = structs_.find(name); it != structs_.end()) return it->second;
    auto decl_it = type_decls_.find(name);
    if (decl_it == type_decls_.end()) return {};
    const ast::TypeDecl& decl = *decl_it->second;
    if (resolving_.count(name)) {
      error(use_loc, "type '" + name + "' contains itself; a struct cannot hold a field of its own type");
      return {};
    }
    if (failed_types_.count(name)) return {};
    if (resolving_.size() >= kMaxTypeNesting) {
      // Deeper than the limit allows (checked again below, whatever the declaration order).
      error(use_loc, "types nested more than " + std::to_string(kMaxTypeNesting) + " deep");
      failed_types_.insert(name);
      return {};
    }
    resolving_.insert(name);
    auto st = std::make_shared<StructType>();
    st->name = name;
    bool ok = true;
    if (decl.fields.empty()) {
      error(decl.loc, "type '" + name + "' has no fields; give it at least one, e.g. 'value: f32'");
      ok = false;
    }
    std::map<std::string, SourceLoc> seen;
    for (const ast::FieldDecl& f : decl.fields) {
      auto [it, inserted] = seen.emplace(f.name, f.loc);
      if (!inserted) {
        error(f.loc, "duplicate field '" + f.name + "' in type '" + name + "'");
        note(it->second, "'" + f.name + "' was first declared here");
        ok = false;
        continue;
      }
      Type ft = resolve_type_name(f.type, /*allow_bool=*/false);
      if (!ft.valid()) {
        ok = false;
        continue;
      }
      st->fields.push_back({f.name, ft, 0});
    }
    resolving_.erase(name);
    if (!ok) {
      failed_types_.insert(name);
      return {};
    }
    st->compute_layout();
    int depth = 1;
    for (const Field& f : st->fields)
      if (f.type.is_struct()) depth = std::max(depth, 1 + nesting_.at(f.type.name()));
    if (depth > static_cast<int>(kMaxTypeNesting)) {
      error(decl.loc, "type '" + name + "' nests structs " + std::to_string(depth) + " deep; the limit is " +
                          std::to_string(kMaxTypeNesting));
      failed_types_.insert(name);
      return {};
    }
    nesting_[name] = depth;
    Type t = Type::structure(st);
    structs_.emplace(name, t);
    return t;
  }

  std::vector<std::string> known_type_names() const {
    std::vector<std::string> names = scalar_type_names();
    for (const auto& kv : type_decls_) names.push_back(kv.first);
    return names;
  }

  Type resolve_type_name(const ast::TypeName& tn, bool allow_bool) {
    if (auto k = scalar_kind_from_name(tn.name)) {
      if (*k == ScalarKind::Bool && !allow_bool) {
        error(tn.loc, "'bool' cannot be stored in memory by a scan; use u8 or i32 for flags");
        return {};
      }
      return Type::scalar(*k);
    }
    if (type_decls_.count(tn.name)) return resolve_struct(tn.name, tn.loc);
    error(tn.loc, "unknown type '" + tn.name + "'" + suggest(tn.name, known_type_names()) +
                      " (scalar types: " + join(scalar_type_names()) + ")");
    return {};
  }

  // A setting whose value names a type: `type = Affine;`
  Type resolve_type_value(const ast::Expr& e, const char* setting) {
    if (e.kind != ast::ExprKind::Name) {
      error(e.loc, std::string("'") + setting + "' takes a type name such as i32 or a declared struct");
      return {};
    }
    return resolve_type_name({e.text, e.loc}, false);
  }

  // ---- expressions ---------------------------------------------------------

  static bool is_untyped_literal(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Int || e.kind == ast::ExprKind::Float) return true;
    if (e.kind == ast::ExprKind::Unary && e.text == "-") return is_untyped_literal(*e.kids[0]);
    return false;
  }
  bool is_untyped_constant_name(const ast::Expr& e) const {
    return e.kind == ast::ExprKind::Name && (e.text == "inf" || e.text == "nan") && !lookup(e.text);
  }
  // An expression built only from literals with arithmetic, bitwise and shift
  // operators, e.g. (1 + 2) or -inf: it has no type of its own and takes the
  // type its context needs, whichever side of an operator it stands on.
  bool is_untyped(const ast::Expr& e) const {
    switch (e.kind) {
      case ast::ExprKind::Int:
      case ast::ExprKind::Float: return true;
      case ast::ExprKind::Name: return is_untyped_constant_name(e);
      case ast::ExprKind::Unary: return e.text != "!" && is_untyped(*e.kids[0]);
      case ast::ExprKind::Binary: {
        static const char* const kArith[] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"};
        bool arith = std::any_of(std::begin(kArith), std::end(kArith), [&](const char* op) { return e.text == op; });
        return arith && is_untyped(*e.kids[0]) && is_untyped(*e.kids[1]);
      }
      default: return false;
    }
  }

  static bool contains_float_literal(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Float || e.kind == ast::ExprKind::Name) return true;
    for (const ast::ExprPtr& k : e.kids)
      if (contains_float_literal(*k)) return true;
    return false;
  }

  const Binding* lookup(const std::string& name) const {
    for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
      if (it->name == name) return &*it;
    return nullptr;
  }

  // Parses the digits of an integer literal; false (with an error) on overflow.
  bool parse_integer(const ast::Expr& e, u128& out) {
    std::string digits;
    for (char c : e.text)
      if (c != '_') digits += c;
    int base = 10;
    size_t i = 0;
    if (digits.size() >= 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      i = 2;
    }
    if (i == digits.size()) {
      error(e.loc, "'" + e.text + "' has no hexadecimal digits; write e.g. 0xFF");
      return false;
    }
    u128 v = 0;
    for (; i < digits.size(); ++i) {
      char c = digits[i];
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
      v = v * base + d;
      if (v > (static_cast<u128>(1) << 64)) {
        error(e.loc, "integer literal '" + e.text + "' is too large; the widest types are 64-bit");
        return false;
      }
    }
    out = v;
    return true;
  }

  // An integer or float literal (possibly negated) of type `t`.
  ExprPtr literal(const ast::Expr& outer, bool negate, const Type* hint) {
    // Errors point at the whole literal, minus sign included.
    const ast::Expr* inner = &outer;
    while (inner->kind == ast::ExprKind::Unary) {
      negate = !negate;
      inner = inner->kids[0].get();
    }
    const ast::Expr& e = *inner;
    const SourceLoc at = outer.begin.valid() ? outer.begin : outer.loc;
    bool is_float_lit = e.kind == ast::ExprKind::Float || e.kind == ast::ExprKind::Name;
    ScalarKind k = is_float_lit ? ScalarKind::F64 : ScalarKind::I32;
    if (hint && hint->is_scalar() && is_numeric(hint->scalar_kind())) {
      k = hint->scalar_kind();
    } else if (hint && hint->valid()) {
      error(at, std::string(is_float_lit ? "a floating-point" : "an integer") + " literal where " + hint->name() +
                       " is expected" +
                       (hint->is_bool() ? "; write a comparison such as 'x != 0', or true/false" : ""));
      return nullptr;
    }
    std::string shown = (negate ? "-" : "") + e.text;
    if (is_float_lit && is_integer(k)) {
      error(at, "floating-point literal '" + shown + "' where " + std::string(to_string(k)) +
                       " is expected; write an integer, or convert with " + to_string(k) + "(...)");
      return nullptr;
    }
    Type t = Type::scalar(k);
    if (is_integer(k)) {
      u128 mag = 0;
      if (!parse_integer(e, mag)) return nullptr;
      i128 v = negate ? -static_cast<i128>(mag) : static_cast<i128>(mag);
      i128 lo, hi;
      integer_range(k, lo, hi);
      if (v < lo || v > hi) {
        error(at, "literal '" + shown + "' is out of range for " + to_string(k) + " (" +
                         int128_to_string(lo) + " to " + int128_to_string(hi) + ")");
        return nullptr;
      }
      return make_literal(t, integer_literal(k, v), at);
    }
    double v;
    if (e.kind == ast::ExprKind::Name) {
      v = e.text == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    } else if (e.kind == ast::ExprKind::Int) {
      u128 mag = 0;
      if (!parse_integer(e, mag)) return nullptr;
      v = static_cast<double>(mag);
    } else {
      std::string digits;
      for (char c : e.text)
        if (c != '_') digits += c;
      v = std::strtod(digits.c_str(), nullptr);
      if (std::isinf(v)) {
        error(at, "literal '" + shown + "' is out of range for every float type");
        return nullptr;
      }
    }
    if (negate) v = -v;
    double r = round_to_float_kind(k, v);
    if (std::isinf(r) && !std::isinf(v)) {
      error(at, "literal '" + shown + "' is out of range for " + to_string(k) + " (largest finite value " +
                       literal_to_string(Type::scalar(ScalarKind::F64), float_literal(float_kind_max(k))) + ")");
      return nullptr;
    }
    return make_literal(t, float_literal(r), at);
  }

  ExprPtr make(ExprKind kind, const Type& t, SourceLoc loc, std::vector<ExprPtr> args = {}) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->type = t;
    e->loc = loc;
    e->args = std::move(args);
    return e;
  }

  // Checks `e`; `hint` is the type the context expects (literals adopt it).
  // Returns null after reporting an error.
  ExprPtr expr(const ast::Expr& e, const Type* hint) {
    switch (e.kind) {
      case ast::ExprKind::Int:
      case ast::ExprKind::Float: return literal(e, false, hint);
      case ast::ExprKind::Bool: {
        Literal lit;
        lit.bits = e.text == "true";
        return make_literal(Type::scalar(ScalarKind::Bool), lit, e.loc);
      }
      case ast::ExprKind::Name: return name(e, hint);
      case ast::ExprKind::Member: return member(e);
      case ast::ExprKind::Unary: return unary(e, hint);
      case ast::ExprKind::Binary: return binary(e, hint);
      case ast::ExprKind::Ternary: return ternary(e, hint);
      case ast::ExprKind::Call: return call(e, hint);
      case ast::ExprKind::Construct: return construct(e);
    }
    return nullptr;
  }

  ExprPtr name(const ast::Expr& e, const Type* hint) {
    if (const Binding* b = lookup(e.text)) {
      if (!b->type.valid()) return nullptr;  // its definition failed and was reported
      auto x = make(b->kind, b->type, e.loc);
      std::const_pointer_cast<Expr>(x)->index = b->index;
      std::const_pointer_cast<Expr>(x)->name = b->name;
      return x;
    }
    if (e.text == "inf" || e.text == "nan") {
      if (hint && hint->is_integer()) {
        error(e.loc, "'" + e.text + "' is a floating-point constant and " + hint->name() +
                         " has none; use " + hint->name() + ".min or " + hint->name() + ".max");
        return nullptr;
      }
      return literal(e, false, hint);
    }
    if (scalar_kind_from_name(e.text) || type_decls_.count(e.text)) {
      std::string how = type_decls_.count(e.text) ? "; write " + e.text + " { ... } to build one"
                        : e.text == "bool"        ? "; write true, false or a comparison"
                                                  : "; write " + e.text + "(...) to convert to it";
      error(e.loc, "'" + e.text + "' is a type, not a value" + how);
      return nullptr;
    }
    std::vector<std::string> names;
    for (const Binding& b : scope_) names.push_back(b.name);
    std::string in_scope = names.empty() ? "nothing is in scope here" : "in scope: " + join(names);
    if (scope_.empty() && !names_allowed_)
      error(e.loc, "unknown name '" + e.text + "': " + context_ + " must be a constant, " + in_scope);
    else
      error(e.loc, "unknown name '" + e.text + "'" + suggest(e.text, names) + " (" + in_scope + ")");
    return nullptr;
  }

  ExprPtr member(const ast::Expr& e) {
    const ast::Expr& base = *e.kids[0];
    // i32.max, f32.min: limits of a scalar type.
    if (base.kind == ast::ExprKind::Name && !lookup(base.text)) {
      if (auto k = scalar_kind_from_name(base.text); k && *k != ScalarKind::Bool) {
        if (e.text != "min" && e.text != "max") {
          error(e.loc, "'" + base.text + "' has the constants 'min' and 'max', not '" + e.text + "'");
          return nullptr;
        }
        Type t = Type::scalar(*k);
        if (is_float(*k)) {
          double m = float_kind_max(*k);
          return make_literal(t, float_literal(e.text == "max" ? m : -m), e.loc);
        }
        i128 lo, hi;
        integer_range(*k, lo, hi);
        return make_literal(t, integer_literal(*k, e.text == "max" ? hi : lo), e.loc);
      }
    }
    ExprPtr b = expr(base, nullptr);
    if (!b) return nullptr;
    if (!b->type.is_struct()) {
      error(e.loc, "'." + e.text + "' on a value of type " + b->type.name() + ", which has no fields");
      return nullptr;
    }
    const StructType& st = b->type.struct_type();
    int idx = st.index_of(e.text);
    if (idx < 0) {
      std::vector<std::string> fields;
      for (const Field& f : st.fields) fields.push_back(f.name);
      error(e.loc, "type '" + st.name + "' has no field '" + e.text + "'" + suggest(e.text, fields) +
                       " (fields: " + join(fields) + ")");
      return nullptr;
    }
    auto x = std::const_pointer_cast<Expr>(make(ExprKind::Field, st.fields[idx].type, e.loc, {b}));
    x->index = idx;
    x->name = e.text;
    return x;
  }

  ExprPtr unary(const ast::Expr& e, const Type* hint) {
    if (e.text == "-" && (is_untyped_literal(e) || is_untyped_constant_name(*e.kids[0]))) {
      const ast::Expr* inner = e.kids[0].get();
      if (inner->kind == ast::ExprKind::Name) {  // -inf
        ExprPtr v = name(*inner, hint);
        if (!v) return nullptr;
        Literal lit = v->lit;
        lit.value = -lit.value;
        return make_literal(v->type, lit, e.loc);
      }
      return literal(e, false, hint);
    }
    ExprPtr a = expr(*e.kids[0], hint);
    if (!a) return nullptr;
    UnaryOp op = e.text == "-" ? UnaryOp::Neg : e.text == "!" ? UnaryOp::Not : UnaryOp::BitNot;
    const Type& t = a->type;
    bool ok = op == UnaryOp::Neg ? t.is_scalar() && is_numeric(t.scalar_kind())
              : op == UnaryOp::Not ? t.is_bool()
                                   : t.is_integer();
    if (!ok) {
      const char* need = op == UnaryOp::Neg ? "a number" : op == UnaryOp::Not ? "a bool" : "an integer";
      error(e.loc, "operator '" + e.text + "' needs " + need + ", not " + t.name());
      return nullptr;
    }
    auto x = std::const_pointer_cast<Expr>(make(ExprKind::Unary, t, e.loc, {a}));
    x->unary_op = op;
    return x;
  }

  // Checks operands that must share a type. The first operand that is not a
  // bare literal fixes the type; the literals then take it.
  std::vector<ExprPtr> unify(const std::vector<const ast::Expr*>& operands, const Type* hint) {
    std::vector<ExprPtr> out(operands.size());
    Type fixed;
    for (size_t i = 0; i < operands.size(); ++i) {
      if (is_untyped(*operands[i])) continue;
      out[i] = expr(*operands[i], fixed.valid() ? &fixed : hint);
      if (!out[i]) return {};
      if (!fixed.valid()) fixed = out[i]->type;
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      if (out[i]) continue;
      out[i] = expr(*operands[i], fixed.valid() ? &fixed : hint);
      if (!out[i]) return {};
      if (!fixed.valid()) fixed = out[i]->type;
    }
    return out;
  }

  ExprPtr binary(const ast::Expr& e, const Type* hint) {
    std::optional<BinaryOp> op;
#define X(en, s) \
  if (e.text == s) op = BinaryOp::en;
    SCANGEN_BINARY_OPS(X)
#undef X
    bool comparison = *op == BinaryOp::Lt || *op == BinaryOp::Le || *op == BinaryOp::Gt || *op == BinaryOp::Ge ||
                      *op == BinaryOp::Eq || *op == BinaryOp::Ne;
    bool logical = *op == BinaryOp::And || *op == BinaryOp::Or;
    bool shift = *op == BinaryOp::Shl || *op == BinaryOp::Shr;
    Type boolean = Type::scalar(ScalarKind::Bool);
    const Type* operand_hint = comparison ? nullptr : logical ? &boolean : hint;
    ExprPtr a, b;
    if (shift) {
      // The shift count may have any integer type; a literal count takes the left operand's.
      a = expr(*e.kids[0], operand_hint);
      if (!a) return nullptr;
      b = expr(*e.kids[1], is_untyped(*e.kids[1]) ? &a->type : nullptr);
      if (!b) return nullptr;
      if (!a->type.is_integer() || !b->type.is_integer()) {
        error(e.loc, "operator '" + e.text + "' needs integer operands, not " + a->type.name() + " and " +
                         b->type.name());
        return nullptr;
      }
    } else {
      auto ops = unify({e.kids[0].get(), e.kids[1].get()}, operand_hint);
      if (ops.empty()) return nullptr;
      a = ops[0];
      b = ops[1];
      if (a->type != b->type) {
        error(e.loc, "operands of '" + e.text + "' have different types, " + a->type.name() + " and " +
                         b->type.name() + "; convert one with " + a->type.name() + "(...) or " + b->type.name() + "(...)");
        return nullptr;
      }
      const Type& t = a->type;
      std::string problem, advice;
      switch (*op) {
        case BinaryOp::Add: case BinaryOp::Sub: case BinaryOp::Mul: case BinaryOp::Div:
        case BinaryOp::Lt: case BinaryOp::Le: case BinaryOp::Gt: case BinaryOp::Ge:
          if (!t.is_scalar() || !is_numeric(t.scalar_kind())) problem = "numbers";
          break;
        case BinaryOp::Rem:
          if (!t.is_integer()) {
            problem = "integers";
            if (t.is_float()) advice = "; there is no floating-point remainder";
          }
          break;
        case BinaryOp::BitAnd: case BinaryOp::BitOr: case BinaryOp::BitXor:
          if (!t.is_integer()) {
            problem = "integers";
            if (t.is_bool()) advice = "; for bools use && and ||";
          }
          break;
        case BinaryOp::Eq: case BinaryOp::Ne:
          if (!t.is_scalar()) {
            problem = "scalars";
            advice = "; compare structs field by field";
          }
          break;
        case BinaryOp::And: case BinaryOp::Or:
          if (!t.is_bool()) {
            problem = "bools";
            advice = "; write a comparison such as 'x != 0'";
          }
          break;
        default: break;
      }
      if (!problem.empty()) {
        error(e.loc, "operator '" + e.text + "' needs " + problem + ", not " + t.name() + advice);
        return nullptr;
      }
    }
    Type result = comparison ? boolean : a->type;
    auto x = std::const_pointer_cast<Expr>(make(ExprKind::Binary, result, e.loc, {a, b}));
    x->binary_op = *op;
    return x;
  }

  ExprPtr ternary(const ast::Expr& e, const Type* hint) {
    Type boolean = Type::scalar(ScalarKind::Bool);
    ExprPtr c = expr(*e.kids[0], &boolean);
    auto arms = unify({e.kids[1].get(), e.kids[2].get()}, hint);
    if (!c || arms.empty()) return nullptr;
    if (!c->type.is_bool()) {
      error(e.kids[0]->begin, "the condition of '?:' must be a bool, not " + c->type.name() +
                                "; write a comparison such as 'x != 0'");
      return nullptr;
    }
    if (arms[0]->type != arms[1]->type) {
      error(e.loc, "the two arms of '?:' have different types, " + arms[0]->type.name() + " and " +
                       arms[1]->type.name());
      return nullptr;
    }
    return make(ExprKind::Cond, arms[0]->type, e.loc, {c, arms[0], arms[1]});
  }

  ExprPtr call(const ast::Expr& e, const Type* hint) {
    // Conversion: i32(x), f32(x)
    if (auto k = scalar_kind_from_name(e.text)) {
      if (*k == ScalarKind::Bool) {
        error(e.loc, "there is no conversion to bool; write a comparison such as 'x != 0'");
        return nullptr;
      }
      if (e.kids.size() != 1) {
        error(e.loc, "conversion " + e.text + "(...) takes one argument, not " + std::to_string(e.kids.size()));
        return nullptr;
      }
      Type target = Type::scalar(*k);
      // A literal argument takes the target type directly (one rounding), unless
      // it is a float literal converted to an integer type: that is a real conversion.
      bool direct = is_untyped(*e.kids[0]) && !(target.is_integer() && contains_float_literal(*e.kids[0]));
      ExprPtr a = expr(*e.kids[0], direct ? &target : nullptr);
      if (!a) return nullptr;
      if (!a->type.is_scalar() || !is_numeric(a->type.scalar_kind())) {
        error(e.kids[0]->begin, "cannot convert " + a->type.name() + " to " + e.text +
                                  (a->type.is_bool() ? "; write 'c ? 1 : 0'" : "; convert fields one by one"));
        return nullptr;
      }
      if (a->type == target) return a;
      return make(ExprKind::Convert, target, e.loc, {a});
    }
    if (type_decls_.count(e.text)) {
      error(e.loc, "build a struct with braces, '" + e.text + " { ... }', not parentheses");
      return nullptr;
    }
    auto fn = math_fn_from_name(e.text);
    if (!fn) {
      std::vector<std::string> names;
      for (MathFn f : all_math_fns()) names.push_back(to_string(f));
      error(e.loc, "unknown function '" + e.text + "'" + suggest(e.text, names) + " (built-ins: " + join(names) +
                       "; conversions: i32(...), f32(...), ...)");
      return nullptr;
    }
    int arity = math_fn_arity(*fn);
    if (static_cast<int>(e.kids.size()) != arity) {
      error(e.loc, "'" + e.text + "' takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") +
                       ", not " + std::to_string(e.kids.size()));
      return nullptr;
    }
    std::vector<ExprPtr> args;
    if (*fn == MathFn::Select) {
      // select(a, b, c) = c ? b : a, as in OpenCL C.
      Type boolean = Type::scalar(ScalarKind::Bool);
      auto ab = unify({e.kids[0].get(), e.kids[1].get()}, hint);
      ExprPtr c = expr(*e.kids[2], &boolean);
      if (ab.empty() || !c) return nullptr;
      if (ab[0]->type != ab[1]->type) {
        error(e.loc, "the first two arguments of 'select' have different types, " + ab[0]->type.name() + " and " +
                         ab[1]->type.name());
        return nullptr;
      }
      if (!c->type.is_bool()) {
        error(e.kids[2]->begin, "the third argument of 'select(a, b, c)' is the condition and must be a bool, not " +
                                  c->type.name());
        return nullptr;
      }
      args = {ab[0], ab[1], c};
    } else {
      std::vector<const ast::Expr*> operands;
      for (const ast::ExprPtr& k : e.kids) operands.push_back(k.get());
      args = unify(operands, hint);
      if (args.empty()) return nullptr;
      for (const ExprPtr& a : args) {
        if (a->type != args[0]->type) {
          error(e.loc, "the arguments of '" + e.text + "' have different types, " + args[0]->type.name() +
                           " and " + a->type.name());
          return nullptr;
        }
      }
      const Type& t = args[0]->type;
      if (math_fn_floats_only(*fn) && !t.is_float()) {
        error(e.loc, "'" + e.text + "' takes floating-point arguments, not " + t.name() +
                         (t.is_integer() ? "; convert with f32(...) or f64(...)" : ""));
        return nullptr;
      }
      if (!t.is_scalar() || !is_numeric(t.scalar_kind())) {
        error(e.loc, "'" + e.text + "' takes numbers, not " + t.name());
        return nullptr;
      }
    }
    auto x = std::const_pointer_cast<Expr>(make(ExprKind::Call, args[0]->type, e.loc, args));
    x->math_fn = *fn;
    return x;
  }

  ExprPtr construct(const ast::Expr& e) {
    if (scalar_kind_from_name(e.text)) {
      error(e.loc, "'" + e.text + "' is a scalar type; write " + e.text + "(...) to convert, not braces");
      return nullptr;
    }
    if (!type_decls_.count(e.text)) {
      std::vector<std::string> names;
      for (const auto& kv : type_decls_) names.push_back(kv.first);
      error(e.loc, "unknown type '" + e.text + "'" + suggest(e.text, names));
      return nullptr;
    }
    Type t = resolve_struct(e.text, e.loc);
    if (!t.valid()) return nullptr;
    const StructType& st = t.struct_type();
    std::vector<ExprPtr> args(st.fields.size());
    std::vector<const ast::Expr*> sources(st.fields.size(), nullptr);
    if (e.field_names.empty()) {
      if (e.kids.size() != st.fields.size()) {
        auto count = [](size_t n, const char* what) {
          return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
        };
        error(e.loc, "'" + st.name + "' has " + count(st.fields.size(), "field") + " but " +
                         count(e.kids.size(), "value") + (e.kids.size() == 1 ? " was" : " were") + " given");
        return nullptr;
      }
      for (size_t i = 0; i < e.kids.size(); ++i) sources[i] = e.kids[i].get();
    } else {
      bool ok = true;
      for (size_t i = 0; i < e.kids.size(); ++i) {
        int idx = st.index_of(e.field_names[i]);
        if (idx < 0) {
          std::vector<std::string> fields;
          for (const Field& f : st.fields) fields.push_back(f.name);
          error(e.field_locs[i], "type '" + st.name + "' has no field '" + e.field_names[i] + "'" +
                                     suggest(e.field_names[i], fields) + " (fields: " + join(fields) + ")");
          ok = false;
        } else if (sources[idx]) {
          error(e.field_locs[i], "field '" + e.field_names[i] + "' is given twice");
          ok = false;
        } else {
          sources[idx] = e.kids[i].get();
        }
      }
      if (!ok) return nullptr;
      for (size_t i = 0; i < st.fields.size(); ++i) {
        if (!sources[i]) {
          error(e.loc, "missing field '" + st.fields[i].name + "' in '" + st.name + " { ... }'; every field needs a value");
          return nullptr;
        }
      }
    }
    bool ok = true;
    for (size_t i = 0; i < st.fields.size(); ++i) {
      args[i] = expr(*sources[i], &st.fields[i].type);
      if (!args[i]) {
        ok = false;
        continue;
      }
      if (args[i]->type != st.fields[i].type) {
        error(sources[i]->begin, "field '" + st.fields[i].name + "' of '" + st.name + "' is " +
                                   st.fields[i].type.name() + " but the value is " + args[i]->type.name());
        ok = false;
      }
    }
    if (!ok) return nullptr;
    return make(ExprKind::Construct, t, e.loc, args);
  }

  // ---- functions -----------------------------------------------------------

  // Checks a function body with `params` in scope; the result must be `result`.
  std::optional<Function> function(const ast::Item& item, const std::vector<Type>& param_types, const Type& result,
                                   const std::string& what) {
    Function f;
    f.loc = item.loc;
    f.result = result;
    f.param_types = param_types;
    scope_.clear();
    std::set<std::string> seen;
    for (size_t i = 0; i < item.params.size(); ++i) {
      const ast::Param& p = item.params[i];
      if (!seen.insert(p.name).second) {
        error(p.loc, "parameter '" + p.name + "' appears twice in " + what + "; name them differently");
        return std::nullopt;
      }
      f.params.push_back(p.name);
      scope_.push_back({p.name, param_types[i], ExprKind::Param, static_cast<int>(i), p.loc});
    }
    struct PendingLet {
      std::string name;
      int slot;
      ExprPtr value;
      SourceLoc loc;
    };
    std::vector<PendingLet> lets;
    bool ok = true;
    for (const ast::Let& let : item.body.lets) {
      Type annotated;
      if (!let.type.name.empty()) {
        annotated = resolve_type_name(let.type, /*allow_bool=*/true);
        if (!annotated.valid()) ok = false;
      }
      ExprPtr v = let.value ? expr(*let.value, annotated.valid() ? &annotated : nullptr) : nullptr;
      if (v && annotated.valid() && v->type != annotated) {
        error(let.value->begin, "'let " + let.name + ": " + annotated.name() + "' is given a value of type " +
                                  v->type.name());
        v = nullptr;
      }
      if (const Binding* prev = lookup(let.name)) {
        error(let.loc, "'" + let.name + "' is already defined in " + what + "; choose another name");
        note(prev->loc, "'" + let.name + "' was first defined here");
        ok = false;
        continue;
      }
      if (!v) {
        ok = false;
        // Bind the name anyway (with no type) so later uses don't cascade.
        scope_.push_back({let.name, Type(), ExprKind::Local, -1, let.loc});
        continue;
      }
      int slot = f.num_locals++;
      scope_.push_back({let.name, v->type, ExprKind::Local, slot, let.loc});
      lets.push_back({let.name, slot, v, let.loc});
    }
    if (!item.body.result) return std::nullopt;
    ExprPtr body = expr(*item.body.result, &result);
    scope_.clear();
    if (!body || !ok) return std::nullopt;
    if (body->type != result) {
      error(item.body.result->begin, what + " returns " + body->type.name() + " but must return " + result.name());
      return std::nullopt;
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
      auto let = std::const_pointer_cast<Expr>(make(ExprKind::Let, body->type, it->loc, {it->value, body}));
      let->index = it->slot;
      let->name = it->name;
      body = let;
    }
    f.body = body;
    return f;
  }

  // A constant expression of type `t` (identity, init).
  ExprPtr constant(const ast::Item& item, const Type& t, const char* what) {
    if (item.is_function) {
      error(item.loc, std::string("'") + what + "' is a value, not a function; write '" + what + " = ...;'");
      return nullptr;
    }
    if (item.values.size() != 1) {
      error(item.loc, std::string("'") + what + "' takes one value");
      return nullptr;
    }
    scope_.clear();
    names_allowed_ = false;
    context_ = std::string("'") + what + "'";
    ExprPtr v = expr(*item.values[0], &t);
    names_allowed_ = true;
    if (!v) return nullptr;
    if (v->type != t) {
      error(item.values[0]->begin, std::string("'") + what + "' has type " + v->type.name() +
                                     " but the scan's type is " + t.name());
      return nullptr;
    }
    return v;
  }

  // ---- scans ---------------------------------------------------------------

  // The one value of a plain setting, or null (with an error).
  const ast::Expr* single_value(const ast::Item& item) {
    if (item.is_function) {
      error(item.loc, "'" + item.key + "' is a setting, not a function; write '" + item.key + " = ...;'");
      return nullptr;
    }
    if (item.values.size() != 1) {
      error(item.values[1]->loc, "'" + item.key + "' takes one value");
      return nullptr;
    }
    return item.values[0].get();
  }

  static constexpr int kAuto = -1;
  // A whole-number setting, or `auto` (returned as kAuto) where allowed.
  std::optional<int> int_setting(const ast::Item& item, bool allow_auto) {
    const ast::Expr* v = single_value(item);
    if (!v) return std::nullopt;
    if (v->kind == ast::ExprKind::Name && v->text == "auto") {
      if (allow_auto) return kAuto;
      error(v->loc, "'" + item.key + " = auto' is only allowed for device-level scans; give a number");
      return std::nullopt;
    }
    if (v->kind != ast::ExprKind::Int) {
      error(v->loc, "'" + item.key + "' takes a whole number" + (allow_auto ? " or 'auto'" : ""));
      return std::nullopt;
    }
    u128 n = 0;
    if (!parse_integer(*v, n)) return std::nullopt;
    if (n > static_cast<u128>(std::numeric_limits<int>::max())) {
      error(v->loc, "'" + item.key + " = " + v->text + "' is far too large");
      return std::nullopt;
    }
    return static_cast<int>(n);
  }

  // A name chosen from a fixed list; `kind` is used in the message.
  const ast::Expr* name_value(const ast::Expr* v, const std::string& key, const std::vector<std::string>& choices) {
    if (!v) return nullptr;
    if (v->kind != ast::ExprKind::Name) {
      error(v->loc, "'" + key + "' takes one of: " + join(choices));
      return nullptr;
    }
    return v;
  }

  Spec check_scan(const ast::ScanDecl& scan) {
    Spec spec;
    spec.name = scan.name;
    spec.file = diags_.file().name();
    spec.loc = scan.loc;

    static const std::vector<std::string> kKeys = {"type",  "input", "op",        "combine", "convert",
                                                   "identity", "level", "algorithm", "threads", "items",
                                                   "mode",  "init",  "outputs",   "targets", "deterministic",
                                                   "assume_associative"};
    std::map<std::string, const ast::Item*> items;
    for (const ast::Item& item : scan.items) {
      if (std::find(kKeys.begin(), kKeys.end(), item.key) == kKeys.end()) {
        error(item.loc, "unknown setting '" + item.key + "'" + suggest(item.key, kKeys) + " (settings: " +
                            join(kKeys) + ")");
        continue;
      }
      auto [it, inserted] = items.emplace(item.key, &item);
      if (!inserted) {
        error(item.loc, "'" + item.key + "' is set twice in scan '" + scan.name + "'; keep one");
        note(it->second->loc, "first set here");
      }
    }
    auto get = [&](const char* key) -> const ast::Item* {
      auto it = items.find(key);
      return it == items.end() ? nullptr : it->second;
    };

    // Element and input types.
    if (const ast::Item* it = get("type")) {
      if (const ast::Expr* v = single_value(*it)) spec.type = resolve_type_value(*v, "type");
    } else if (!scan.had_syntax_errors) {
      error(scan.loc, "scan '" + scan.name + "' has no 'type'; add e.g. 'type = i32;'");
    }
    spec.input = spec.type;
    const ast::Item* input_item = get("input");
    if (input_item) {
      if (const ast::Expr* v = single_value(*input_item)) spec.input = resolve_type_value(*v, "input");
    }
    bool types_ok = spec.type.valid() && spec.input.valid();

    // The operator.
    const ast::Item* op_item = get("op");
    const ast::Item* combine_item = get("combine");
    const ast::Item* identity_item = get("identity");
    if (op_item && combine_item) {
      error(combine_item->loc, "scan '" + scan.name + "' has both 'op' and 'combine'; keep one");
      note(op_item->loc, "'op' is set here");
    } else if (!op_item && !combine_item) {
      if (!scan.had_syntax_errors)
      error(scan.loc, "scan '" + scan.name + "' has no operator; add 'op = add;' (or mul, min, max, and, or, xor) "
                      "or 'combine(x, y) = ...;'");
    } else if (op_item) {
      check_builtin_op(*op_item, identity_item, spec, types_ok);
    } else if (types_ok) {
      check_combine(*combine_item, identity_item, spec);
    }
    if (combine_item && !op_item && !identity_item && !scan.had_syntax_errors)
      error(scan.loc, "scan '" + scan.name + "' has a 'combine' but no 'identity'; add 'identity = ...;' with the "
                      "value e such that combine(e, x) == x == combine(x, e)");

    // Input conversion.
    const ast::Item* convert_item = get("convert");
    if (types_ok) {
      if (convert_item) {
        if (!convert_item->is_function || convert_item->params.size() != 1) {
          error(convert_item->loc, "'convert' is a function of one input element: write 'convert(v) = ...;'");
        } else {
          spec.convert = function(*convert_item, {spec.input}, spec.type, "convert");
        }
      } else if (spec.input != spec.type) {
        if (spec.input.is_scalar() && spec.type.is_scalar()) {
          spec.convert = implicit_convert(spec.input, spec.type, input_item->loc);
        } else {
          error(input_item->loc, "the input type " + spec.input.name() + " differs from the scan's type " +
                                     spec.type.name() + "; add 'convert(v) = ...;' returning " + spec.type.name());
        }
      }
    }

    check_shape(scan, spec, get);

    // Mode, init, outputs, targets, determinism.
    if (const ast::Item* it = get("mode")) {
      std::vector<std::string> modes = {"inclusive", "exclusive", "both"};
      if (const ast::Expr* v = name_value(single_value(*it), "mode", modes)) {
        if (auto m = mode_from_name(v->text)) spec.mode = *m;
        else error(v->loc, "unknown mode '" + v->text + "'" + suggest(v->text, modes) + " (modes: " + join(modes) + ")");
      }
    }
    std::vector<std::string> outputs = {"aggregate", "running_total", "none"};
    const ast::Item* outputs_item = get("outputs");
    if (outputs_item) {
      if (outputs_item->is_function) {
        error(outputs_item->loc, "'outputs' is a list, e.g. 'outputs = aggregate, running_total;'");
      } else {
        std::set<std::string> seen;
        for (const ast::ExprPtr& v : outputs_item->values) {
          if (!name_value(v.get(), "outputs", outputs)) continue;
          if (!seen.insert(v->text).second) error(v->loc, "output '" + v->text + "' is listed twice");
          if (v->text == "aggregate") spec.aggregate = true;
          else if (v->text == "running_total") spec.running_total = true;
          else if (v->text == "none") {
            if (outputs_item->values.size() > 1) error(v->loc, "'none' cannot be combined with other outputs");
          } else
            error(v->loc, "unknown output '" + v->text + "'" + suggest(v->text, outputs) + " (outputs: " +
                              join(outputs) + ")");
        }
      }
    }
    if (const ast::Item* it = get("init")) {
      if (spec.running_total) {
        error(it->loc, "'init' and 'outputs = running_total' both set the value a scan starts from; drop 'init' and "
                       "store the initial value in the running total before the first call");
      } else if (spec.type.valid()) {
        spec.init = constant(*it, spec.type, "init");
      }
    } else {
      spec.init = spec.identity;
    }
    if (spec.running_total && spec.level != Level::Device) {
      bool atomic_op = spec.op && spec.op != BuiltinOp::Mul && spec.type.is_integer() && spec.type.size() >= 4;
      if (!atomic_op)
        error(outputs_item->loc,
              "'running_total' at " + std::string(to_string(spec.level)) +
                  " level adds each group's total to a counter with an atomic, which needs a built-in op "
                  "(add, min, max, and, or, xor) on a 32- or 64-bit integer type; use level = device for other operators");
    }
    if (const ast::Item* it = get("targets")) {
      if (it->is_function) {
        error(it->loc, "'targets' is a list, e.g. 'targets = cuda, opencl;'");
      } else {
        spec.targets.clear();
        std::vector<std::string> targets = {"cuda", "opencl"};
        for (const ast::ExprPtr& v : it->values) {
          if (!name_value(v.get(), "targets", targets)) continue;
          auto t = target_from_name(v->text);
          if (!t) {
            error(v->loc, "unknown target '" + v->text + "'" + suggest(v->text, targets) + " (targets: cuda, opencl)");
          } else if (spec.targets_backend(*t)) {
            error(v->loc, "target '" + v->text + "' is listed twice");
          } else {
            spec.targets.push_back(*t);
          }
        }
      }
    }
    if (spec.algorithm == Algorithm::Coalesced && spec.targets_backend(Target::OpenCL)) {
      const ast::Item* it = get("algorithm");
      error(it ? it->loc : scan.loc, "algorithm 'coalesced' exists only on CUDA (OpenCL has no notion of active "
                                     "lanes); add 'targets = cuda;' or choose kogge_stone");
    }
    if (const ast::Item* it = get("deterministic")) {
      if (const ast::Expr* v = single_value(*it)) {
        if (v->kind != ast::ExprKind::Bool) error(v->loc, "'deterministic' takes true or false");
        else spec.deterministic = v->text == "true";
      }
    }
    if (const ast::Item* it = get("assume_associative")) {
      if (const ast::Expr* v = single_value(*it)) {
        if (v->kind != ast::ExprKind::Bool) error(v->loc, "'assume_associative' takes true or false");
        else spec.assume_associative = v->text == "true";
      }
    }
    bool float_math = (spec.type.valid() && spec.type.contains_float()) ||
                      (spec.combine.body && uses_float(*spec.combine.body));
    if (spec.deterministic && spec.level == Level::Device && float_math) {
      if (const ast::Item* it = get("algorithm")) {
        if (spec.algorithm == Algorithm::DecoupledLookback)
          error(it->loc, "'deterministic = true' with floating-point values needs a fixed order of combination, and "
                         "decoupled_lookback combines predecessor tiles in an order that depends on timing; use "
                         "reduce_then_scan");
      } else {
        spec.algorithm = Algorithm::ReduceThenScan;
      }
    }
    return spec;
  }

  static bool uses_float(const Expr& e) {
    if (e.type.contains_float()) return true;
    for (const ExprPtr& a : e.args)
      if (uses_float(*a)) return true;
    return false;
  }

  std::optional<Function> implicit_convert(const Type& from, const Type& to, SourceLoc loc) {
    Function f;
    f.params = {"v"};
    f.param_types = {from};
    f.result = to;
    f.loc = loc;
    auto param = make(ExprKind::Param, from, loc);
    std::const_pointer_cast<Expr>(param)->name = "v";
    f.body = make(ExprKind::Convert, to, loc, {param});
    return f;
  }

  void check_builtin_op(const ast::Item& item, const ast::Item* identity_item, Spec& spec, bool types_ok) {
    std::vector<std::string> ops;
    for (BuiltinOp o : all_builtin_ops()) ops.push_back(to_string(o));
    const ast::Expr* v = name_value(single_value(item), "op", ops);
    if (!v) return;
    auto op = builtin_op_from_name(v->text);
    if (!op) {
      error(v->loc, "unknown operator '" + v->text + "'" + suggest(v->text, ops) + " (built-in operators: " +
                        join(ops) + "); for anything else write 'combine(x, y) = ...;'");
      return;
    }
    if (identity_item) {
      error(identity_item->loc, "'op = " + v->text + "' has its identity built in; remove 'identity', or write "
                                "'combine(x, y) = ...;' to choose your own");
    }
    if (!types_ok) return;
    if (!spec.type.is_scalar()) {
      error(v->loc, "built-in operator '" + v->text + "' works on scalar types, and " + spec.type.name() +
                        " is a struct; write 'combine(x, y) = ...;' and 'identity = ...;'");
      return;
    }
    if (builtin_op_integer_only(*op) && !spec.type.is_integer()) {
      error(v->loc, "built-in operator '" + v->text + "' works on integer types, not " + spec.type.name());
      return;
    }
    spec.op = op;
    const Type& t = spec.type;
    auto x = std::const_pointer_cast<Expr>(make(ExprKind::Param, t, item.loc));
    x->name = "x";
    auto y = std::const_pointer_cast<Expr>(make(ExprKind::Param, t, item.loc));
    y->name = "y";
    y->index = 1;
    std::shared_ptr<Expr> body;
    switch (*op) {
      case BuiltinOp::Add:
      case BuiltinOp::Mul:
      case BuiltinOp::And:
      case BuiltinOp::Or:
      case BuiltinOp::Xor:
        body = std::const_pointer_cast<Expr>(make(ExprKind::Binary, t, item.loc, {x, y}));
        body->binary_op = *op == BuiltinOp::Add   ? BinaryOp::Add
                          : *op == BuiltinOp::Mul ? BinaryOp::Mul
                          : *op == BuiltinOp::And ? BinaryOp::BitAnd
                          : *op == BuiltinOp::Or  ? BinaryOp::BitOr
                                                  : BinaryOp::BitXor;
        break;
      case BuiltinOp::Min:
      case BuiltinOp::Max:
        body = std::const_pointer_cast<Expr>(make(ExprKind::Call, t, item.loc, {x, y}));
        body->math_fn = *op == BuiltinOp::Min ? MathFn::Min : MathFn::Max;
        break;
    }
    spec.combine.params = {"x", "y"};
    spec.combine.param_types = {t, t};
    spec.combine.result = t;
    spec.combine.body = body;
    spec.combine.loc = item.loc;
    spec.identity = make_literal(t, builtin_identity(*op, t.scalar_kind()), item.loc);
  }

  void check_combine(const ast::Item& item, const ast::Item* identity_item, Spec& spec) {
    if (!item.is_function || item.params.size() != 2) {
      error(item.loc, "'combine' is a function of two elements, the earlier first: write 'combine(x, y) = ...;'");
    } else if (auto f = function(item, {spec.type, spec.type}, spec.type, "combine")) {
      spec.combine = std::move(*f);
    }
    if (identity_item) spec.identity = constant(*identity_item, spec.type, "identity");
  }

  template <class Get>
  void check_shape(const ast::ScanDecl& scan, Spec& spec, Get get) {
    // Level.
    std::vector<std::string> levels = {"warp", "warp(W)", "block", "device"};
    if (const ast::Item* it = get("level")) {
      const ast::Expr* v = single_value(*it);
      if (v && v->kind == ast::ExprKind::Call && v->text == "warp") {
        spec.level = Level::Warp;
        if (v->kids.size() != 1 || v->kids[0]->kind != ast::ExprKind::Int) {
          error(v->loc, "'warp(W)' takes one whole number W = 1, 2, 4, 8, 16 or 32");
        } else {
          u128 w = 0;
          if (parse_integer(*v->kids[0], w)) {
            if (w > kMaxWarp || !is_power_of_two(static_cast<int64_t>(w)))
              error(v->kids[0]->loc, "warp width " + int128_to_string(static_cast<i128>(w)) +
                                         " is not supported; W must be a power of two from 1 to 32");
            else
              spec.warp_width = static_cast<int>(w);
          }
        }
      } else if (v && v->kind == ast::ExprKind::Name) {
        auto l = level_from_name(v->text);
        if (l) spec.level = *l;
        else error(v->loc, "unknown level '" + v->text + "'" + suggest(v->text, levels) + " (levels: " + join(levels) + ")");
      } else if (v) {
        error(v->loc, "'level' takes one of: " + join(levels));
      }
    }
    Level level = spec.level;
    // Algorithm.
    spec.algorithm = default_algorithm(level);
    if (const ast::Item* it = get("algorithm")) {
      std::vector<std::string> all, here;
      for (Algorithm a : all_algorithms()) {
        all.push_back(to_string(a));
        if (level_of(a) == level) here.push_back(to_string(a));
      }
      if (const ast::Expr* v = name_value(single_value(*it), "algorithm", all)) {
        auto a = algorithm_from_name(v->text);
        if (!a) {
          error(v->loc, "unknown algorithm '" + v->text + "'" + suggest(v->text, all) + " (" + to_string(level) +
                            "-level algorithms: " + join(here) + ")");
        } else if (level_of(*a) != level) {
          error(v->loc, "algorithm '" + v->text + "' is a " + to_string(level_of(*a)) + "-level algorithm but "
                        "this scan's level is " + to_string(level) + "; " + to_string(level) +
                        "-level algorithms: " + join(here));
        } else {
          spec.algorithm = *a;
        }
      }
    }
    // Threads and items.
    bool device = level == Level::Device;
    spec.threads = device ? 0 : 256;
    spec.items = device ? 0 : 1;
    if (level == Level::Warp && spec.warp_width > 0) spec.threads = std::max(spec.warp_width, 32);
    if (const ast::Item* it = get("threads")) {
      if (auto n = int_setting(*it, device)) {
        SourceLoc loc = it->values.empty() ? it->loc : it->values[0]->loc;
        int t = *n;
        if (t == kAuto) {
          spec.threads = 0;
        } else if (t < 1) {
          error(loc, "a block needs at least 1 thread; 'threads' must be 1 to " + std::to_string(kMaxThreads));
        } else if (t > kMaxThreads) {
          error(loc, "block too large: " + std::to_string(t) + " threads; a block has 1 to " +
                         std::to_string(kMaxThreads) + " threads on CUDA and common OpenCL devices");
        } else if (level == Level::Warp && t % spec.warp_width != 0) {
          error(loc, std::to_string(t) + " threads do not divide into logical warps of " +
                         std::to_string(spec.warp_width) + "; use a multiple of " + std::to_string(spec.warp_width));
        } else if (device && t % 32 != 0) {
          error(loc, "device-level scans need a multiple of 32 threads per block, not " + std::to_string(t));
        } else if (spec.algorithm == Algorithm::WarpScans && t % 32 != 0) {
          error(loc, "algorithm 'warp_scans' needs a multiple of 32 threads, not " + std::to_string(t) +
                         "; use 'raking' for other counts");
        } else if (spec.algorithm == Algorithm::Blelloch && !is_power_of_two(t)) {
          error(loc, "algorithm 'blelloch' needs a power-of-two thread count, not " + std::to_string(t) +
                         "; use 'raking' or 'hillis_steele' for other counts");
        } else {
          spec.threads = t;
        }
      }
    }
    if (const ast::Item* it = get("items")) {
      if (auto n = int_setting(*it, device)) {
        SourceLoc loc = it->values.empty() ? it->loc : it->values[0]->loc;
        if (*n == kAuto) spec.items = 0;
        else if (*n < 1 || *n > kMaxItems)
          error(loc, "items per thread must be 1 to " + std::to_string(kMaxItems) + ", not " + std::to_string(*n));
        else spec.items = *n;
      }
    }
    (void)scan;
  }

  Diagnostics& diags_;
  std::map<std::string, const ast::TypeDecl*> type_decls_;
  std::map<std::string, Type> structs_;
  std::map<std::string, int> nesting_;  // struct name -> depth of struct nesting (1 = flat)
  std::set<std::string> resolving_;
  std::set<std::string> failed_types_;
  std::vector<Binding> scope_;
  bool names_allowed_ = true;
  std::string context_;
};

}  // namespace

std::vector<Spec> check(const ast::File& file, Diagnostics& diags) { return Checker(diags).run(file); }

}  // namespace scangen::dsl
