#include "scangen/dsl/derivative.h"

#include <map>
#include <memory>
#include <utility>

namespace scangen::dsl {

namespace {

ExprPtr node(ExprKind kind, const Type& type, std::vector<ExprPtr> args) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->type = type;
  e->args = std::move(args);
  return e;
}

ExprPtr float_literal(const Type& t, double v) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Literal;
  e->type = t;
  e->lit.value = v;
  return e;
}

// The zero of a type: 0, false, or a struct of zeros.
ExprPtr zero(const Type& t) {
  if (t.is_struct()) {
    std::vector<ExprPtr> fields;
    for (const Field& f : t.struct_type().fields) fields.push_back(zero(f.type));
    return node(ExprKind::Construct, t, std::move(fields));
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Literal;
  e->type = t;
  return e;  // bits 0, value 0
}

bool is_zero(const ExprPtr& e) {
  if (e->kind == ExprKind::Literal) return e->lit.bits == 0 && e->lit.value == 0;
  if (e->kind == ExprKind::Construct) {
    for (const ExprPtr& a : e->args)
      if (!is_zero(a)) return false;
    return true;
  }
  return false;
}

bool is_one(const ExprPtr& e) { return e->kind == ExprKind::Literal && e->type.is_float() && e->lit.value == 1; }

ExprPtr binary(BinaryOp op, const Type& t, ExprPtr a, ExprPtr b) {
  auto e = std::const_pointer_cast<Expr>(node(ExprKind::Binary, t, {std::move(a), std::move(b)}));
  e->binary_op = op;
  return e;
}

ExprPtr compare(BinaryOp op, ExprPtr a, ExprPtr b) {
  return binary(op, Type::scalar(ScalarKind::Bool), std::move(a), std::move(b));
}

ExprPtr logical_not(ExprPtr a) {
  auto e = std::const_pointer_cast<Expr>(node(ExprKind::Unary, Type::scalar(ScalarKind::Bool), {std::move(a)}));
  e->unary_op = UnaryOp::Not;
  return e;
}

ExprPtr call(MathFn fn, const Type& t, std::vector<ExprPtr> args) {
  auto e = std::const_pointer_cast<Expr>(node(ExprKind::Call, t, std::move(args)));
  e->math_fn = fn;
  return e;
}

// Sums and products of float scalars, with the zeros and ones folded away.
ExprPtr add(ExprPtr a, ExprPtr b) {
  if (is_zero(a)) return b;
  if (is_zero(b)) return a;
  const Type t = a->type;
  return binary(BinaryOp::Add, t, std::move(a), std::move(b));
}

ExprPtr sub(ExprPtr a, ExprPtr b) {
  if (is_zero(b)) return a;
  if (is_zero(a)) {
    const Type t = b->type;
    auto e = std::const_pointer_cast<Expr>(node(ExprKind::Unary, t, {std::move(b)}));
    e->unary_op = UnaryOp::Neg;
    return e;
  }
  const Type t = a->type;
  return binary(BinaryOp::Sub, t, std::move(a), std::move(b));
}

ExprPtr mul(ExprPtr a, ExprPtr b) {
  if (is_zero(a)) return a;
  if (is_zero(b)) return b;
  if (is_one(a)) return b;
  if (is_one(b)) return a;
  const Type t = a->type;
  return binary(BinaryOp::Mul, t, std::move(a), std::move(b));
}

ExprPtr div(ExprPtr a, ExprPtr b) {
  if (is_zero(a)) return a;
  const Type t = a->type;
  return binary(BinaryOp::Div, t, std::move(a), std::move(b));
}

ExprPtr cond(ExprPtr c, ExprPtr a, ExprPtr b) {
  if (is_zero(a) && is_zero(b)) return a;
  const Type t = a->type;
  return node(ExprKind::Cond, t, {std::move(c), std::move(a), std::move(b)});
}

std::string where(const Expr& e) {
  return e.loc.line > 0 ? std::to_string(e.loc.line) + ":" + std::to_string(e.loc.col) + ": " : "";
}

// Forward mode: d(e) for the seed (one scalar of one parameter).
class Deriver {
 public:
  Deriver(size_t param, std::vector<int> path, int first_free_slot)
      : param_(param), path_(std::move(path)), next_slot_(first_free_slot) {}

  int slots_used() const { return next_slot_; }

  ExprPtr d(const ExprPtr& e) {
    const Type& t = e->type;
    if (t.is_scalar() && !t.is_float()) return zero(t);  // integers and bools carry no derivative
    switch (e->kind) {
      case ExprKind::Literal:
        return zero(t);
      case ExprKind::Param:
        return static_cast<size_t>(e->index) == param_ ? seed(t, 0) : zero(t);
      case ExprKind::Local: {
        const auto it = slot_of_.find(e->index);
        if (it == slot_of_.end()) return zero(t);
        auto l = std::make_shared<Expr>(*e);
        l->index = it->second;
        l->name = "d_" + e->name;
        l->args.clear();
        return l;
      }
      case ExprKind::Field: {
        ExprPtr base = d(e->args[0]);
        if (is_zero(base)) return zero(t);
        if (base->kind == ExprKind::Construct) return base->args[static_cast<size_t>(e->index)];
        auto f = std::make_shared<Expr>(*e);
        f->args = {base};
        return f;
      }
      case ExprKind::Construct: {
        std::vector<ExprPtr> fields;
        for (const ExprPtr& a : e->args) fields.push_back(d(a));
        return node(ExprKind::Construct, t, std::move(fields));
      }
      case ExprKind::Unary: {
        ExprPtr a = d(e->args[0]);
        return sub(zero(t), a);
      }
      case ExprKind::Binary:
        return binary_derivative(*e);
      case ExprKind::Cond:
        return cond(e->args[0], d(e->args[1]), d(e->args[2]));
      case ExprKind::Call:
        return call_derivative(*e);
      case ExprKind::Convert: {
        const ExprPtr& a = e->args[0];
        if (!a->type.is_float()) return zero(t);  // an integer converted: a constant here
        ExprPtr da = d(a);
        if (is_zero(da)) return zero(t);
        auto c = std::make_shared<Expr>(*e);
        c->args = {da};
        return c;
      }
      case ExprKind::Let: {
        // let v = a in b: let v = a in let d_v = d(a) in d(b), d(b) reading d_v for v.
        const int slot = next_slot_++;
        ExprPtr da = d(e->args[0]);
        const auto saved = slot_of_.find(e->index) == slot_of_.end() ? -1 : slot_of_[e->index];
        slot_of_[e->index] = slot;
        ExprPtr db = d(e->args[1]);
        if (saved < 0)
          slot_of_.erase(e->index);
        else
          slot_of_[e->index] = saved;
        auto inner = std::const_pointer_cast<Expr>(node(ExprKind::Let, db->type, {da, db}));
        inner->index = slot;
        inner->name = "d_" + e->name;
        auto outer = std::const_pointer_cast<Expr>(node(ExprKind::Let, db->type, {e->args[0], inner}));
        outer->index = e->index;
        outer->name = e->name;
        return outer;
      }
    }
    throw std::logic_error("derivative: unknown expression kind");
  }

 private:
  // The seed's value in a value of type t at depth `depth` of the path: 1 at
  // the path's scalar, 0 elsewhere.
  ExprPtr seed(const Type& t, size_t depth) {
    if (depth == path_.size()) {
      if (!t.is_float()) throw std::logic_error("derivative: the seed is not a float");
      return float_literal(t, 1.0);
    }
    std::vector<ExprPtr> fields;
    const auto& fs = t.struct_type().fields;
    for (size_t i = 0; i < fs.size(); ++i)
      fields.push_back(static_cast<int>(i) == path_[depth] ? seed(fs[i].type, depth + 1) : zero(fs[i].type));
    return node(ExprKind::Construct, t, std::move(fields));
  }

  ExprPtr binary_derivative(const Expr& e) {
    const ExprPtr &a = e.args[0], &b = e.args[1];
    ExprPtr da = d(a), db = d(b);
    switch (e.binary_op) {
      case BinaryOp::Add:
        return add(da, db);
      case BinaryOp::Sub:
        return sub(da, db);
      case BinaryOp::Mul:
        return add(mul(da, b), mul(a, db));
      case BinaryOp::Div: {
        // (a / b)' = a' / b - (a / b) * b' / b
        ExprPtr q = binary(BinaryOp::Div, e.type, a, b);
        return sub(div(da, b), div(mul(q, db), b));
      }
      default:
        throw DerivativeError(where(e) + "'" + to_string(e) + "' has no derivative: '" + dsl::to_string(e.binary_op) +
                              "' on floats is not differentiable");
    }
  }

  // Which operand min / max / fmin / fmax give: a condition that is true
  // where they give their first, as scalar_library.cpp and the reference
  // compute them.
  static ExprPtr picks_first(MathFn fn, const ExprPtr& a, const ExprPtr& b) {
    const bool is_min = fn == MathFn::Min || fn == MathFn::Fmin;
    ExprPtr other_wins = is_min ? compare(BinaryOp::Lt, b, a) : compare(BinaryOp::Lt, a, b);
    ExprPtr a_nan = compare(BinaryOp::Ne, a, a), b_nan = compare(BinaryOp::Ne, b, b);
    const Type bt = Type::scalar(ScalarKind::Bool);
    if (fn == MathFn::Min || fn == MathFn::Max)  // a NaN wins, the first of two
      return binary(BinaryOp::Or, bt, a_nan,
                    binary(BinaryOp::And, bt, logical_not(other_wins), compare(BinaryOp::Eq, b, b)));
    // fmin / fmax: a NaN loses
    return binary(BinaryOp::Or, bt, b_nan,
                  binary(BinaryOp::And, bt, compare(BinaryOp::Eq, a, a), logical_not(other_wins)));
  }

  ExprPtr call_derivative(const Expr& e) {
    const Type& t = e.type;
    const std::vector<ExprPtr>& x = e.args;
    switch (e.math_fn) {
      case MathFn::Min:
      case MathFn::Max:
      case MathFn::Fmin:
      case MathFn::Fmax:
        return cond(picks_first(e.math_fn, x[0], x[1]), d(x[0]), d(x[1]));
      case MathFn::Abs:
        return cond(compare(BinaryOp::Lt, x[0], zero(t)), sub(zero(t), d(x[0])), d(x[0]));
      case MathFn::Clamp: {  // min(max(v, lo), hi)
        ExprPtr low = call(MathFn::Max, t, {x[0], x[1]});
        return d(call(MathFn::Min, t, {low, x[2]}));
      }
      case MathFn::Select:  // select(a, b, c) = c ? b : a
        return cond(x[2], d(x[1]), d(x[0]));
      case MathFn::Fma:  // a * b + c
        return add(add(mul(d(x[0]), x[1]), mul(x[0], d(x[1]))), d(x[2]));
      case MathFn::Sqrt: {
        ExprPtr da = d(x[0]);
        if (is_zero(da)) return da;
        return div(da, mul(float_literal(t, 2.0), call(MathFn::Sqrt, t, {x[0]})));
      }
      case MathFn::Exp:
        return mul(call(MathFn::Exp, t, {x[0]}), d(x[0]));
      case MathFn::Log:
        return div(d(x[0]), x[0]);
      case MathFn::Floor:
      case MathFn::Ceil:
        return zero(t);  // 0 wherever it is defined
    }
    throw std::logic_error("derivative: unknown function");
  }

  size_t param_;
  std::vector<int> path_;
  int next_slot_;
  std::map<int, int> slot_of_;  // a let's slot -> the slot of its derivative
};

void leaves(const Type& t, const std::string& name, std::vector<int>& path, std::vector<Leaf>& out) {
  if (t.is_float()) {
    out.push_back({path, name});
    return;
  }
  if (!t.is_struct()) return;
  const auto& fs = t.struct_type().fields;
  for (size_t i = 0; i < fs.size(); ++i) {
    path.push_back(static_cast<int>(i));
    leaves(fs[i].type, name + "." + fs[i].name, path, out);
    path.pop_back();
  }
}

}  // namespace

std::vector<Leaf> float_leaves(const Type& t, const std::string& name) {
  std::vector<Leaf> out;
  std::vector<int> path;
  leaves(t, name, path, out);
  return out;
}

Function derivative(const Function& f, size_t param, const std::vector<int>& path) {
  if (param >= f.params.size()) throw std::invalid_argument("derivative: no parameter " + std::to_string(param));
  Type t = f.param_types[param];
  std::string name = f.params[param];
  for (int i : path) {
    if (!t.is_struct() || i < 0 || static_cast<size_t>(i) >= t.struct_type().fields.size())
      throw std::invalid_argument("derivative: the path leaves " + name + "'s type");
    name += "." + t.struct_type().fields[static_cast<size_t>(i)].name;
    t = t.struct_type().fields[static_cast<size_t>(i)].type;
  }
  if (!t.is_float())
    throw DerivativeError("'" + name + "' is " + t.name() +
                          ", not a float: a derivative is taken with respect to "
                          "f16, f32 or f64 values only");
  Deriver deriver(param, path, f.num_locals);
  Function out = f;
  out.body = deriver.d(f.body);
  out.num_locals = deriver.slots_used();
  return out;
}

}  // namespace scangen::dsl
