// The checker's expressions: names, fields, operators, calls and struct
// values, each checked and typed (literals: checker_literals.cpp).
#include <memory>
#include <utility>

#include "checker_internal.h"

namespace scangen::dsl::checking {

namespace {

// What `op` needs of operands of type `t` ("numbers", "integers", ...) and a
// piece of advice; an empty first when `t` will do.
std::pair<std::string, std::string> operand_problem(BinaryOp op, const Type& t) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
      if (!t.is_scalar() || !is_numeric(t.scalar_kind())) return {"numbers", ""};
      break;
    case BinaryOp::Rem:
      if (!t.is_integer()) return {"integers", t.is_float() ? "; there is no floating-point remainder" : ""};
      break;
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      if (!t.is_integer()) return {"integers", t.is_bool() ? "; for bools use && and ||" : ""};
      break;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
      if (!t.is_scalar()) return {"scalars", "; compare structs field by field"};
      break;
    case BinaryOp::And:
    case BinaryOp::Or:
      if (!t.is_bool()) return {"bools", "; write a comparison such as 'x != 0'"};
      break;
    default:
      break;
  }
  return {};
}

std::vector<std::string> field_names(const StructType& st) {
  std::vector<std::string> fields;
  for (const Field& f : st.fields) fields.push_back(f.name);
  return fields;
}

}  // namespace

ExprPtr Checker::make(ExprKind kind, const Type& t, SourceLoc loc, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = t;
  e->loc = loc;
  e->args = std::move(args);
  return e;
}

const Binding* Checker::lookup(const std::string& name) const {
  for (auto it = scope_.rbegin(); it != scope_.rend(); ++it)
    if (it->name == name) return &*it;
  return nullptr;
}

// Checks `e`; `hint` is the type the context expects (literals adopt it).
// Returns null after reporting an error.
ExprPtr Checker::expr(const ast::Expr& e, const Type* hint) {
  switch (e.kind) {
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
      return literal(e, false, hint);
    case ast::ExprKind::Bool: {
      Literal lit;
      lit.bits = e.text == "true";
      return make_literal(Type::scalar(ScalarKind::Bool), lit, e.loc);
    }
    case ast::ExprKind::Name:
      return name(e, hint);
    case ast::ExprKind::Member:
      return member(e);
    case ast::ExprKind::Unary:
      return unary(e, hint);
    case ast::ExprKind::Binary:
      return binary(e, hint);
    case ast::ExprKind::Ternary:
      return ternary(e, hint);
    case ast::ExprKind::Call:
      return call(e, hint);
    case ast::ExprKind::Construct:
      return construct(e);
  }
  return nullptr;
}

ExprPtr Checker::name(const ast::Expr& e, const Type* hint) {
  if (const Binding* b = lookup(e.text)) {
    if (!b->type.valid()) return nullptr;  // its definition failed and was reported
    auto x = make(b->kind, b->type, e.loc);
    std::const_pointer_cast<Expr>(x)->index = b->index;
    std::const_pointer_cast<Expr>(x)->name = b->name;
    return x;
  }
  if (e.text == "inf" || e.text == "nan") {
    if (hint && hint->is_integer()) {
      error(e.loc, "'" + e.text + "' is a floating-point constant and " + hint->name() + " has none; use " +
                       hint->name() + ".min or " + hint->name() + ".max");
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

ExprPtr Checker::member(const ast::Expr& e) {
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
      return make_literal(t, integer_literal(e.text == "max" ? hi : lo), e.loc);
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
    std::vector<std::string> fields = field_names(st);
    error(e.loc, "type '" + st.name + "' has no field '" + e.text + "'" + suggest(e.text, fields) +
                     " (fields: " + join(fields) + ")");
    return nullptr;
  }
  auto x = std::const_pointer_cast<Expr>(make(ExprKind::Field, st.fields[idx].type, e.loc, {b}));
  x->index = idx;
  x->name = e.text;
  return x;
}

ExprPtr Checker::unary(const ast::Expr& e, const Type* hint) {
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
  bool ok = op == UnaryOp::Neg   ? t.is_scalar() && is_numeric(t.scalar_kind())
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
std::vector<ExprPtr> Checker::unify(const std::vector<const ast::Expr*>& operands, const Type* hint) {
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

ExprPtr Checker::binary(const ast::Expr& e, const Type* hint) {
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
      error(e.loc,
            "operator '" + e.text + "' needs integer operands, not " + a->type.name() + " and " + b->type.name());
      return nullptr;
    }
  } else {
    auto ops = unify({e.kids[0].get(), e.kids[1].get()}, operand_hint);
    if (ops.empty()) return nullptr;
    a = ops[0];
    b = ops[1];
    if (a->type != b->type) {
      error(e.loc, "operands of '" + e.text + "' have different types, " + a->type.name() + " and " + b->type.name() +
                       "; convert one with " + a->type.name() + "(...) or " + b->type.name() + "(...)");
      return nullptr;
    }
    auto [problem, advice] = operand_problem(*op, a->type);
    if (!problem.empty()) {
      error(e.loc, "operator '" + e.text + "' needs " + problem + ", not " + a->type.name() + advice);
      return nullptr;
    }
  }
  Type result = comparison ? boolean : a->type;
  auto x = std::const_pointer_cast<Expr>(make(ExprKind::Binary, result, e.loc, {a, b}));
  x->binary_op = *op;
  return x;
}

ExprPtr Checker::ternary(const ast::Expr& e, const Type* hint) {
  Type boolean = Type::scalar(ScalarKind::Bool);
  ExprPtr c = expr(*e.kids[0], &boolean);
  auto arms = unify({e.kids[1].get(), e.kids[2].get()}, hint);
  if (!c || arms.empty()) return nullptr;
  if (!c->type.is_bool()) {
    error(e.kids[0]->begin,
          "the condition of '?:' must be a bool, not " + c->type.name() + "; write a comparison such as 'x != 0'");
    return nullptr;
  }
  if (arms[0]->type != arms[1]->type) {
    error(e.loc, "the two arms of '?:' have different types, " + arms[0]->type.name() + " and " + arms[1]->type.name());
    return nullptr;
  }
  return make(ExprKind::Cond, arms[0]->type, e.loc, {c, arms[0], arms[1]});
}

ExprPtr Checker::call(const ast::Expr& e, const Type* hint) {
  if (auto k = scalar_kind_from_name(e.text)) return conversion(e, *k);
  if (e.text == "prev" || e.text == "next") return neighbour(e);  // checker_fused.cpp
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
    error(e.loc, "'" + e.text + "' takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s") + ", not " +
                     std::to_string(e.kids.size()));
    return nullptr;
  }
  std::vector<ExprPtr> args = *fn == MathFn::Select ? select_arguments(e, hint) : math_arguments(e, *fn, hint);
  if (args.empty()) return nullptr;
  auto x = std::const_pointer_cast<Expr>(make(ExprKind::Call, args[0]->type, e.loc, args));
  x->math_fn = *fn;
  return x;
}

// A conversion to scalar kind `k`: i32(x), f32(x).
ExprPtr Checker::conversion(const ast::Expr& e, ScalarKind k) {
  if (k == ScalarKind::Bool) {
    error(e.loc, "there is no conversion to bool; write a comparison such as 'x != 0'");
    return nullptr;
  }
  if (e.kids.size() != 1) {
    error(e.loc, "conversion " + e.text + "(...) takes one argument, not " + std::to_string(e.kids.size()));
    return nullptr;
  }
  Type target = Type::scalar(k);
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

// select(a, b, c) = c ? b : a, as in OpenCL C; empty after an error.
std::vector<ExprPtr> Checker::select_arguments(const ast::Expr& e, const Type* hint) {
  Type boolean = Type::scalar(ScalarKind::Bool);
  auto ab = unify({e.kids[0].get(), e.kids[1].get()}, hint);
  ExprPtr c = expr(*e.kids[2], &boolean);
  if (ab.empty() || !c) return {};
  if (ab[0]->type != ab[1]->type) {
    error(e.loc, "the first two arguments of 'select' have different types, " + ab[0]->type.name() + " and " +
                     ab[1]->type.name());
    return {};
  }
  if (!c->type.is_bool()) {
    error(e.kids[2]->begin,
          "the third argument of 'select(a, b, c)' is the condition and must be a bool, not " + c->type.name());
    return {};
  }
  return {ab[0], ab[1], c};
}

// The arguments of a math function other than select, of one numeric type;
// empty after an error.
std::vector<ExprPtr> Checker::math_arguments(const ast::Expr& e, MathFn fn, const Type* hint) {
  std::vector<const ast::Expr*> operands;
  for (const ast::ExprPtr& k : e.kids) operands.push_back(k.get());
  std::vector<ExprPtr> args = unify(operands, hint);
  if (args.empty()) return {};
  for (const ExprPtr& a : args) {
    if (a->type != args[0]->type) {
      error(e.loc, "the arguments of '" + e.text + "' have different types, " + args[0]->type.name() + " and " +
                       a->type.name());
      return {};
    }
  }
  const Type& t = args[0]->type;
  if ((fn == MathFn::Fmin || fn == MathFn::Fmax) && !t.is_float()) {
    error(e.loc, "'" + e.text + "' (which ignores NaN) takes floating-point arguments, not " + t.name() +
                     "; for integers write '" + (fn == MathFn::Fmin ? "min" : "max") + "'");
    return {};
  }
  if (math_fn_floats_only(fn) && !t.is_float()) {
    error(e.loc, "'" + e.text + "' takes floating-point arguments, not " + t.name() +
                     (t.is_integer() ? "; convert with f32(...) or f64(...)" : ""));
    return {};
  }
  if (!t.is_scalar() || !is_numeric(t.scalar_kind())) {
    error(e.loc, "'" + e.text + "' takes numbers, not " + t.name());
    return {};
  }
  return args;
}

ExprPtr Checker::construct(const ast::Expr& e) {
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
  std::vector<const ast::Expr*> sources(st.fields.size(), nullptr);
  if (!field_sources(e, st, sources)) return nullptr;
  std::vector<ExprPtr> args(st.fields.size());
  bool ok = true;
  for (size_t i = 0; i < st.fields.size(); ++i) {
    args[i] = expr(*sources[i], &st.fields[i].type);
    if (!args[i]) {
      ok = false;
      continue;
    }
    if (args[i]->type != st.fields[i].type) {
      error(sources[i]->begin, "field '" + st.fields[i].name + "' of '" + st.name + "' is " + st.fields[i].type.name() +
                                   " but the value is " + args[i]->type.name());
      ok = false;
    }
  }
  if (!ok) return nullptr;
  return make(ExprKind::Construct, t, e.loc, args);
}

// The expression that gives each field of `st` in `S { ... }`, by position or
// by name; false after an error.
bool Checker::field_sources(const ast::Expr& e, const StructType& st, std::vector<const ast::Expr*>& sources) {
  if (e.field_names.empty()) {
    if (e.kids.size() != st.fields.size()) {
      auto count = [](size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
      error(e.loc, "'" + st.name + "' has " + count(st.fields.size(), "field") + " but " +
                       count(e.kids.size(), "value") + (e.kids.size() == 1 ? " was" : " were") + " given");
      return false;
    }
    for (size_t i = 0; i < e.kids.size(); ++i) sources[i] = e.kids[i].get();
    return true;
  }
  bool ok = true;
  for (size_t i = 0; i < e.kids.size(); ++i) {
    int idx = st.index_of(e.field_names[i]);
    if (idx < 0) {
      std::vector<std::string> fields = field_names(st);
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
  if (!ok) return false;
  for (size_t i = 0; i < st.fields.size(); ++i) {
    if (!sources[i]) {
      error(e.loc, "missing field '" + st.fields[i].name + "' in '" + st.name + " { ... }'; every field needs a value");
      return false;
    }
  }
  return true;
}

}  // namespace scangen::dsl::checking
