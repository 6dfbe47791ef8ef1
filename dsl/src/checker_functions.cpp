// The checker's functions and constants: the bodies of combine and convert,
// the values of identity and init, and the built-in operators.
#include <memory>
#include <set>

#include "checker_internal.h"

namespace scangen::dsl::checking {

// Checks a function body with `params` in scope; the result must be `result`.
std::optional<Function> Checker::function(const ast::Item& item, const std::vector<Type>& param_types,
                                          const Type& result, const std::string& what) {
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
      error(let.value->begin,
            "'let " + let.name + ": " + annotated.name() + "' is given a value of type " + v->type.name());
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
ExprPtr Checker::constant(const ast::Item& item, const Type& t, const char* what) {
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
    error(item.values[0]->begin,
          std::string("'") + what + "' has type " + v->type.name() + " but the scan's type is " + t.name());
    return nullptr;
  }
  return v;
}

std::optional<Function> Checker::implicit_convert(const Type& from, const Type& to, SourceLoc loc) {
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

void Checker::check_builtin_op(const ast::Item& item, const ast::Item* identity_item, Spec& spec, bool types_ok) {
  std::vector<std::string> ops;
  for (BuiltinOp o : all_builtin_ops()) ops.push_back(to_string(o));
  const ast::Expr* v = name_value(single_value(item), "op", ops);
  if (!v) return;
  auto op = builtin_op_from_name(v->text);
  if (!op) {
    error(v->loc, "unknown operator '" + v->text + "'" + suggest(v->text, ops) + " (built-in operators: " + join(ops) +
                      "); for anything else write 'combine(x, y) = ...;'");
    return;
  }
  if (identity_item) {
    error(identity_item->loc, "'op = " + v->text +
                                  "' has its identity built in; remove 'identity', or write "
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
  if (builtin_op_floats_only(*op) && !spec.type.is_float()) {
    error(v->loc, "built-in operator '" + v->text + "' (which ignores NaN) works on float types, not " +
                      spec.type.name() + "; for integers write 'op = " + (v->text == "fmin" ? "min" : "max") + ";'");
    return;
  }
  spec.op = op;
  spec.combine = builtin_combine(*op, spec.type, item.loc);
  spec.identity = make_literal(spec.type, builtin_identity(*op, spec.type.scalar_kind()), item.loc);
}

// combine(x, y) of a built-in operator on scalar type `t`.
Function Checker::builtin_combine(BuiltinOp op, const Type& t, SourceLoc loc) {
  auto x = std::const_pointer_cast<Expr>(make(ExprKind::Param, t, loc));
  x->name = "x";
  auto y = std::const_pointer_cast<Expr>(make(ExprKind::Param, t, loc));
  y->name = "y";
  y->index = 1;
  std::shared_ptr<Expr> body;
  switch (op) {
    case BuiltinOp::Add:
    case BuiltinOp::Mul:
    case BuiltinOp::And:
    case BuiltinOp::Or:
    case BuiltinOp::Xor:
      body = std::const_pointer_cast<Expr>(make(ExprKind::Binary, t, loc, {x, y}));
      body->binary_op = op == BuiltinOp::Add   ? BinaryOp::Add
                        : op == BuiltinOp::Mul ? BinaryOp::Mul
                        : op == BuiltinOp::And ? BinaryOp::BitAnd
                        : op == BuiltinOp::Or  ? BinaryOp::BitOr
                                               : BinaryOp::BitXor;
      break;
    case BuiltinOp::Min:
    case BuiltinOp::Max:
    case BuiltinOp::Fmin:
    case BuiltinOp::Fmax:
      body = std::const_pointer_cast<Expr>(make(ExprKind::Call, t, loc, {x, y}));
      body->math_fn = op == BuiltinOp::Min    ? MathFn::Min
                      : op == BuiltinOp::Max  ? MathFn::Max
                      : op == BuiltinOp::Fmin ? MathFn::Fmin
                                              : MathFn::Fmax;
      break;
  }
  Function combine;
  combine.params = {"x", "y"};
  combine.param_types = {t, t};
  combine.result = t;
  combine.body = body;
  combine.loc = loc;
  return combine;
}

void Checker::check_combine(const ast::Item& item, const ast::Item* identity_item, Spec& spec) {
  if (!item.is_function || item.params.size() != 2) {
    error(item.loc, "'combine' is a function of two elements, the earlier first: write 'combine(x, y) = ...;'");
  } else if (auto f = function(item, {spec.type, spec.type}, spec.type, "combine")) {
    spec.combine = std::move(*f);
  }
  if (identity_item) spec.identity = constant(*identity_item, spec.type, "identity");
}

}  // namespace scangen::dsl::checking
