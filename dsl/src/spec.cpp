#include "scangen/dsl/spec.h"

#include <functional>
#include <charconv>
#include <cmath>
#include <cstring>

#include "scangen/dsl/hash.h"

namespace scangen::dsl {

// ---- Enumerations ----------------------------------------------------------

namespace {

template <class E, size_t N>
std::optional<E> lookup(const char* const (&names)[N], std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

const char* const kLevelNames[] = {
#define X(e, s, d) s,
    SCANGEN_LEVELS(X)
#undef X
};
const char* const kLevelDescriptions[] = {
#define X(e, s, d) d,
    SCANGEN_LEVELS(X)
#undef X
};
const char* const kAlgorithmNames[] = {
#define X(e, s, l, d) s,
    SCANGEN_ALGORITHMS(X)
#undef X
};
const char* const kAlgorithmDescriptions[] = {
#define X(e, s, l, d) d,
    SCANGEN_ALGORITHMS(X)
#undef X
};
const Level kAlgorithmLevels[] = {
#define X(e, s, l, d) Level::l,
    SCANGEN_ALGORITHMS(X)
#undef X
};
const char* const kModeNames[] = {
#define X(e, s) s,
    SCANGEN_MODES(X)
#undef X
};
const char* const kTargetNames[] = {
#define X(e, s) s,
    SCANGEN_TARGETS(X)
#undef X
};
const char* const kBuiltinOpNames[] = {
#define X(e, s, i) s,
    SCANGEN_BUILTIN_OPS(X)
#undef X
};
const char kBuiltinOpTypes[] = {
#define X(e, s, i) i,
    SCANGEN_BUILTIN_OPS(X)
#undef X
};
const char* const kUnaryNames[] = {
#define X(e, s) s,
    SCANGEN_UNARY_OPS(X)
#undef X
};
const char* const kBinaryNames[] = {
#define X(e, s) s,
    SCANGEN_BINARY_OPS(X)
#undef X
};
const char* const kMathNames[] = {
#define X(e, s, n, f) s,
    SCANGEN_MATH_FNS(X)
#undef X
};
const int kMathArity[] = {
#define X(e, s, n, f) n,
    SCANGEN_MATH_FNS(X)
#undef X
};
const bool kMathFloatsOnly[] = {
#define X(e, s, n, f) f,
    SCANGEN_MATH_FNS(X)
#undef X
};

const char* const kSegmentsNames[] = {
#define X(e, s) s,
    SCANGEN_SEGMENTS(X)
#undef X
};

template <class E, size_t N>
std::vector<E> all_of(const char* const (&)[N]) {
  std::vector<E> out;
  for (size_t i = 0; i < N; ++i) out.push_back(static_cast<E>(i));
  return out;
}

}  // namespace

const char* to_string(Level v) { return kLevelNames[static_cast<int>(v)]; }
const char* to_string(Algorithm v) { return kAlgorithmNames[static_cast<int>(v)]; }
const char* to_string(Mode v) { return kModeNames[static_cast<int>(v)]; }
const char* to_string(Segments v) { return kSegmentsNames[static_cast<int>(v)]; }
const char* to_string(Target v) { return kTargetNames[static_cast<int>(v)]; }
const char* to_string(BuiltinOp v) { return kBuiltinOpNames[static_cast<int>(v)]; }
const char* to_string(UnaryOp v) { return kUnaryNames[static_cast<int>(v)]; }
const char* to_string(BinaryOp v) { return kBinaryNames[static_cast<int>(v)]; }
const char* to_string(MathFn v) { return kMathNames[static_cast<int>(v)]; }
const char* describe(Level v) { return kLevelDescriptions[static_cast<int>(v)]; }
const char* describe(Algorithm v) { return kAlgorithmDescriptions[static_cast<int>(v)]; }
Level level_of(Algorithm a) { return kAlgorithmLevels[static_cast<int>(a)]; }
int math_fn_arity(MathFn f) { return kMathArity[static_cast<int>(f)]; }
bool math_fn_floats_only(MathFn f) { return kMathFloatsOnly[static_cast<int>(f)]; }
bool builtin_op_integer_only(BuiltinOp op) { return kBuiltinOpTypes[static_cast<int>(op)] == 'i'; }
bool builtin_op_floats_only(BuiltinOp op) { return kBuiltinOpTypes[static_cast<int>(op)] == 'f'; }

Algorithm default_algorithm(Level level) {
  switch (level) {
    case Level::Warp:
      return Algorithm::KoggeStone;
    case Level::Block:
      return Algorithm::Raking;
    case Level::Device:
      return Algorithm::DecoupledLookback;
  }
  return Algorithm::DecoupledLookback;
}

std::optional<Level> level_from_name(std::string_view s) { return lookup<Level>(kLevelNames, s); }
std::optional<Algorithm> algorithm_from_name(std::string_view s) { return lookup<Algorithm>(kAlgorithmNames, s); }
std::optional<Mode> mode_from_name(std::string_view s) { return lookup<Mode>(kModeNames, s); }
std::optional<Segments> segments_from_name(std::string_view s) { return lookup<Segments>(kSegmentsNames, s); }
std::optional<Target> target_from_name(std::string_view s) { return lookup<Target>(kTargetNames, s); }
std::optional<BuiltinOp> builtin_op_from_name(std::string_view s) { return lookup<BuiltinOp>(kBuiltinOpNames, s); }
std::optional<MathFn> math_fn_from_name(std::string_view s) { return lookup<MathFn>(kMathNames, s); }
const char* to_string(Shape v) {
  switch (v) {
    case Shape::Flat:
      return "flat";
    case Shape::Rows:
      return "rows";
    case Shape::Strided:
      return "strided";
  }
  return "?";
}

std::optional<Shape> shape_from_name(std::string_view s) {
  for (Shape v : {Shape::Flat, Shape::Rows, Shape::Strided})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

std::vector<Algorithm> all_algorithms() { return all_of<Algorithm>(kAlgorithmNames); }
std::vector<BuiltinOp> all_builtin_ops() { return all_of<BuiltinOp>(kBuiltinOpNames); }
std::vector<MathFn> all_math_fns() { return all_of<MathFn>(kMathNames); }

// ---- Expressions -----------------------------------------------------------

bool operator==(const Expr& a, const Expr& b) {
  // Names count: they are part of the printed form, which hash() is built from.
  if (a.kind != b.kind || a.type != b.type || a.index != b.index || a.name != b.name || a.args.size() != b.args.size())
    return false;
  switch (a.kind) {
    case ExprKind::Literal:
      if (a.type.is_float()) {
        // Compare bit patterns so that NaN == NaN and -0 != +0.
        return std::memcmp(&a.lit.value, &b.lit.value, sizeof(double)) == 0;
      }
      return a.lit.bits == b.lit.bits;
    case ExprKind::Unary:
      if (a.unary_op != b.unary_op) return false;
      break;
    case ExprKind::Binary:
      if (a.binary_op != b.binary_op) return false;
      break;
    case ExprKind::Call:
      if (a.math_fn != b.math_fn) return false;
      break;
    default:
      break;
  }
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!(*a.args[i] == *b.args[i])) return false;
  return true;
}

namespace {

std::string shortest(double v, bool as_float) {
  char buf[64];
  auto res =
      as_float ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v)) : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep it a float literal
  return s;
}

}  // namespace

std::string literal_to_string(const Type& t, const Literal& lit, bool explicit_type) {
  ScalarKind k = t.scalar_kind();
  std::string text;
  if (k == ScalarKind::Bool) return lit.bits ? "true" : "false";
  if (is_float(k)) {
    if (std::isnan(lit.value))
      text = "nan";
    else if (std::isinf(lit.value))
      text = lit.value < 0 ? "-inf" : "inf";
    else
      text = shortest(lit.value, k != ScalarKind::F64);
    return k == ScalarKind::F64 && !explicit_type ? text : std::string(to_string(k)) + "(" + text + ")";
  }
  text = is_signed(k) ? std::to_string(static_cast<int64_t>(lit.bits)) : std::to_string(lit.bits);
  return k == ScalarKind::I32 && !explicit_type ? text : std::string(to_string(k)) + "(" + text + ")";
}

namespace {

// Printing uses as few parentheses as C precedence allows, so the printed
// form nests no deeper than the source (the parser bounds nesting depth).
constexpr int kPrecCond = 0;
constexpr int kPrecUnary = 11;
constexpr int kPrecPrimary = 12;

int binary_precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Or:
      return 1;
    case BinaryOp::And:
      return 2;
    case BinaryOp::BitOr:
      return 3;
    case BinaryOp::BitXor:
      return 4;
    case BinaryOp::BitAnd:
      return 5;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      return 6;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      return 7;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return 8;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 9;
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      return 10;
  }
  return kPrecPrimary;
}

struct Printed {
  std::string text;
  int prec;
};

Printed print(const Expr& e, bool typed_literal = false);

std::string at_least(const Expr& e, int min_prec, bool typed_literal = false) {
  Printed p = print(e, typed_literal);
  return p.prec < min_prec ? "(" + p.text + ")" : p.text;
}

// `typed_literal`: spell a literal with its type (i32(5), f64(1.5)), where a
// bare one would read back as something else.
Printed print(const Expr& e, bool typed_literal) {
  switch (e.kind) {
    case ExprKind::Literal: {
      std::string t = literal_to_string(e.type, e.lit, typed_literal);
      return {t, t[0] == '-' ? kPrecUnary : kPrecPrimary};
    }
    case ExprKind::Param:
    case ExprKind::Local:
      return {e.name, kPrecPrimary};
    case ExprKind::Field:
      return {at_least(*e.args[0], kPrecPrimary) + "." + e.name, kPrecPrimary};
    case ExprKind::Construct: {
      std::string out = e.type.name() + " { ";
      const StructType& st = e.type.struct_type();
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        out += st.fields[i].name + ": " + print(*e.args[i]).text;
      }
      return {out + " }", kPrecPrimary};
    }
    case ExprKind::Unary:
      // '-' before a bare literal would fold into a negative literal.
      return {std::string(to_string(e.unary_op)) + at_least(*e.args[0], kPrecUnary, e.unary_op == UnaryOp::Neg),
              kPrecUnary};
    case ExprKind::Binary: {
      int p = binary_precedence(e.binary_op);
      bool shift = e.binary_op == BinaryOp::Shl || e.binary_op == BinaryOp::Shr;
      // Left-associative: the right operand needs parentheses at equal precedence.
      // A bare shift count takes the type of the value shifted.
      bool typed_count = shift && e.args[1]->type != e.args[0]->type;
      return {at_least(*e.args[0], p) + " " + to_string(e.binary_op) + " " + at_least(*e.args[1], p + 1, typed_count),
              p};
    }
    case ExprKind::Cond:
      return {at_least(*e.args[0], kPrecCond + 1) + " ? " + print(*e.args[1]).text + " : " + print(*e.args[2]).text,
              kPrecCond};
    case ExprKind::Call: {
      std::string out = std::string(to_string(e.math_fn)) + "(";
      for (size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + print(*e.args[i]).text;
      return {out + ")", kPrecPrimary};
    }
    case ExprKind::Convert: {
      // A bare literal argument takes the target type, except a float literal
      // converted to an integer type, which stays f64.
      const Expr& a = *e.args[0];
      bool bare_ok = a.type == Type::scalar(ScalarKind::F64) && e.type.is_integer();
      return {e.type.name() + "(" + print(a, !bare_ok).text + ")", kPrecPrimary};
    }
    case ExprKind::Let:
      // Lets only stand at the top of a function body; Function printing peels
      // them. Nested, print them in block form anyway so nothing is lost.
      return {"{ let " + e.name + ": " + e.args[0]->type.name() + " = " + print(*e.args[0]).text + "; return " +
                  print(*e.args[1]).text + "; }",
              kPrecPrimary};
  }
  return {"?", kPrecPrimary};
}

}  // namespace

std::string to_string(const Expr& e) { return print(e).text; }

bool is_constant(const Expr& e) {
  if (e.kind == ExprKind::Param) return false;
  for (const ExprPtr& a : e.args)
    if (!is_constant(*a)) return false;
  return true;
}

bool operator==(const Function& a, const Function& b) {
  if (a.params != b.params || a.param_types != b.param_types || a.result != b.result || a.num_locals != b.num_locals ||
      a.neighbours != b.neighbours || a.written_params() != b.written_params())
    return false;
  if (!a.body || !b.body) return a.body == b.body;
  return *a.body == *b.body;
}

namespace {

std::string function_to_string(const std::string& name, const Function& f) {
  std::string out = name + "(";
  for (size_t i = 0; i < f.written_params(); ++i) out += (i ? ", " : "") + f.params[i];
  out += ")";
  const Expr* e = f.body.get();
  if (e->kind != ExprKind::Let) return out + " = " + to_string(*e) + ";";
  out += " {\n";
  while (e->kind == ExprKind::Let) {
    out += "    let " + e->name + ": " + e->args[0]->type.name() + " = " + to_string(*e->args[0]) + ";\n";
    e = e->args[1].get();
  }
  return out + "    return " + to_string(*e) + ";\n  }";
}

// The segments of a segmented scan, and the type of its offsets or keys
// (nothing for an unsegmented one: its text is as before).
std::string segments_to_string(const Spec& s) {
  if (s.segments == Segments::None) return "";
  std::string out = std::string("  segments = ") + to_string(s.segments) + ";\n";
  if (s.segments == Segments::Offsets) out += std::string("  offset = ") + to_string(s.offset) + ";\n";
  if (s.segments == Segments::Keys) out += std::string("  key = ") + to_string(s.key) + ";\n";
  if (s.segments == Segments::Keys && s.key_equal) out += "  " + function_to_string("key_equal", *s.key_equal) + "\n";
  return out;
}

bool same_expr(const ExprPtr& a, const ExprPtr& b) {
  if (!a || !b) return a == b;
  return *a == *b;
}

}  // namespace

// ---- Spec ------------------------------------------------------------------

namespace {

bool uses_float(const Expr& e) {
  if (e.type.contains_float()) return true;
  for (const ExprPtr& a : e.args)
    if (uses_float(*a)) return true;
  return false;
}

}  // namespace

bool Spec::combines_floats() const {
  return (type.valid() && type.contains_float()) || (combine.body && uses_float(*combine.body));
}

bool Spec::targets_backend(Target t) const {
  for (Target x : targets)
    if (x == t) return true;
  return false;
}

uint64_t Spec::segment_size() const {
  switch (level) {
    case Level::Warp:
      return static_cast<uint64_t>(warp_width) * items;
    case Level::Block:
      return static_cast<uint64_t>(threads) * items;
    case Level::Device:
      return 0;
  }
  return 0;
}

std::string Spec::to_string() const {
  std::string out;
  std::vector<std::shared_ptr<const StructType>> structs;
  collect_structs(input, structs);
  if (input_arrays) {
    for (const Type& t : *input_arrays) collect_structs(t, structs);
    // Structs the convert builds (a field-array spec builds the input struct it replaced).
    if (convert && convert->body) {
      std::function<void(const Expr&)> visit = [&](const Expr& e) {
        for (const ExprPtr& a : e.args) visit(*a);
        collect_structs(e.type, structs);
      };
      visit(*convert->body);
    }
  }
  collect_structs(type, structs);
  for (const auto& s : structs) {
    out += "type " + s->name + " {";
    for (size_t i = 0; i < s->fields.size(); ++i)
      out += std::string(i ? ", " : " ") + s->fields[i].name + ": " + s->fields[i].type.name();
    out += " }  # size " + std::to_string(s->size) + ", align " + std::to_string(s->align) + ", offsets";
    for (const Field& f : s->fields) out += " " + std::to_string(f.offset);
    out += "\n";
  }
  out += "scan " + name + " {\n";
  out += "  type = " + type.name() + ";\n";
  if (!input_arrays) {
    out += "  input = " + input.name() + ";\n";
  } else if (input_arrays->empty()) {
    out += "  input = none;\n";
  } else {
    out += "  input = ";
    for (size_t i = 0; i < input_arrays->size(); ++i) out += (i ? ", " : "") + (*input_arrays)[i].name();
    out += ";\n";
  }
  // With a built-in op, combine and identity are implied: print them as
  // comments so the text still parses back to the same Spec.
  const char* implied = op ? "# " : "";
  if (op) out += std::string("  op = ") + dsl::to_string(*op) + ";\n";
  out += "  " + std::string(implied) + function_to_string("combine", combine) + "\n";
  if (convert) out += "  " + function_to_string("convert", *convert) + "\n";
  out += "  " + std::string(implied) + "identity = " + dsl::to_string(*identity) + ";\n";
  out += "  level = " + std::string(dsl::to_string(level));
  if (level == Level::Warp) out += "(" + std::to_string(warp_width) + ")";
  out += ";\n";
  out += std::string("  algorithm = ") + dsl::to_string(algorithm) + ";\n";
  out += "  threads = " + (threads ? std::to_string(threads) : std::string("auto")) + ";\n";
  out += "  items = " + (items ? std::to_string(items) : std::string("auto")) + ";\n";
  out += std::string("  mode = ") + dsl::to_string(mode) + ";\n";
  // running_total replaces init as the seed.
  if (!running_total) out += "  init = " + (init ? dsl::to_string(*init) : dsl::to_string(*identity)) + ";\n";
  out += "  outputs = ";
  if (!aggregate && !running_total) out += "none";
  if (aggregate) out += "aggregate";
  if (running_total) out += aggregate ? ", running_total" : "running_total";
  out += ";\n  targets = ";
  for (size_t i = 0; i < targets.size(); ++i) out += (i ? ", " : "") + std::string(dsl::to_string(targets[i]));
  out += std::string(";\n  deterministic = ") + (deterministic ? "true" : "false") + ";\n";
  if (init_exclusive_only) out += "  init_applies_to = exclusive;\n";  // only when set: other specs' text as before
  if (reverse) out += "  reverse = true;\n";  // printed only when set: a forward spec's text (and hash) as before
  out += segments_to_string(*this);
  if (head_flags) out += "  head_flags = true;\n";  // only when set: other specs' text (and hash) as before
  if (shape != Shape::Flat) out += std::string("  shape = ") + dsl::to_string(shape) + ";\n";
  // Fused outputs, only when set: other specs' text (and hash) as before.
  if (scatter_if) out += "  " + function_to_string("scatter_if", *scatter_if) + "\n";
  if (scatter_at) out += "  " + function_to_string("scatter_at", *scatter_at) + "\n";
  if (scatter) out += "  " + function_to_string("scatter", *scatter) + "\n";
  if (scatter) out += "  scatter_type = " + scatter_type.name() + ";\n";
  for (const NamedScatter& o : scatter_named) {
    if (o.when) out += "  " + function_to_string("scatter_if." + o.name, *o.when) + "\n";
    out += "  " + function_to_string("scatter_at." + o.name, o.at) + "\n";
    out += "  " + function_to_string("scatter." + o.name, o.value) + "\n";
    out += "  scatter_type." + o.name + " = " + o.type.name() + ";\n";
  }
  out += "}\n";
  return out;
}

uint64_t Spec::hash() const {
  // FNV-1a over the canonical text: equal specs print equally.
  return fnv1a(to_string());
}

bool operator==(const Spec::NamedScatter& a, const Spec::NamedScatter& b) {
  return a.name == b.name && a.value == b.value && a.at == b.at && a.when == b.when && a.type == b.type;
}

bool operator==(const Spec& a, const Spec& b) {
  return a.name == b.name && a.type == b.type && a.input == b.input && a.input_arrays == b.input_arrays &&
         a.op == b.op && a.combine == b.combine && a.convert == b.convert && same_expr(a.identity, b.identity) &&
         a.level == b.level && a.warp_width == b.warp_width && a.algorithm == b.algorithm && a.threads == b.threads &&
         a.items == b.items && a.mode == b.mode &&
         same_expr(a.init ? a.init : a.identity, b.init ? b.init : b.identity) && a.aggregate == b.aggregate &&
         a.running_total == b.running_total && a.targets == b.targets && a.deterministic == b.deterministic &&
         a.init_exclusive_only == b.init_exclusive_only && a.reverse == b.reverse && a.segments == b.segments &&
         a.head_flags == b.head_flags && (a.segments != Segments::Offsets || a.offset == b.offset) &&
         (a.segments != Segments::Keys || (a.key == b.key && a.key_equal == b.key_equal)) && a.shape == b.shape &&
         a.scatter == b.scatter && a.scatter_at == b.scatter_at && a.scatter_if == b.scatter_if &&
         (!a.scatter || a.scatter_type == b.scatter_type) && a.scatter_named == b.scatter_named;
}

}  // namespace scangen::dsl
