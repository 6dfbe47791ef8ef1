#include "expression.h"

#include <algorithm>
#include <stdexcept>

#include "c_names.h"

namespace scangen::generator::detail {

using dsl::Expr;
using dsl::ExprKind;
using dsl::MathFn;

namespace {

class Translator {
 public:
  Translator(const std::string& prefix, ScalarLibrary& lib) : prefix_(prefix), lib_(lib) {}

  // A unique C name for a parameter or let-bound DSL name.
  std::string claim(const std::string& dsl_name) {
    std::string n = c_identifier(dsl_name, prefix_);
    while (std::find(taken_.begin(), taken_.end(), n) != taken_.end()) n += '_';
    taken_.push_back(n);
    return n;
  }

  void add_param(const std::string& dsl_name) { params_.push_back(claim(dsl_name)); }

  // The register form of `e`; the lets it needs go to `out` first.
  std::string value(const Expr& e, std::vector<Statement>& out) {
    switch (e.kind) {
      case ExprKind::Literal:
        return lib_.literal(e.type.scalar_kind(), e.lit);
      case ExprKind::Param:
        return load(e.type, params_.at(static_cast<size_t>(e.index)));
      case ExprKind::Local:
        return locals_.at(static_cast<size_t>(e.index));
      case ExprKind::Let: {
        std::string v = value(*e.args[0], out);
        std::string name = claim(e.name);
        out.push_back({e.loc.valid() ? e.loc : e.args[0]->loc,
                       "const " + c_type(e.args[0]->type, prefix_, Form::Register) + " " + name + " = " + v + ";"});
        const size_t slot = static_cast<size_t>(e.index);
        if (locals_.size() <= slot) locals_.resize(slot + 1);
        locals_[slot] = name;
        return value(*e.args[1], out);
      }
      case ExprKind::Field: {
        std::string base = value(*e.args[0], out);
        const dsl::StructType& st = e.args[0]->type.struct_type();
        return load(e.type, base + "." + field_names(st, prefix_).at(static_cast<size_t>(e.index)));
      }
      case ExprKind::Construct: {
        // The struct's make function takes its fields in storage form.
        std::string s = struct_name(prefix_, e.type.struct_type()) + "_make(";
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + store(*e.args[i], value(*e.args[i], out));
        return s + ")";
      }
      case ExprKind::Unary:
        return lib_.unary(e.unary_op, e.args[0]->type.scalar_kind(), value(*e.args[0], out));
      case ExprKind::Binary: {
        std::string a = value(*e.args[0], out);
        std::string b = value(*e.args[1], out);
        if (unsigned_zero_comparison(e))
          return lib_.opaque_comparison(e.binary_op, e.args[0]->type.scalar_kind(), a, b);
        return lib_.binary(e.binary_op, e.args[0]->type.scalar_kind(), e.args[1]->type.scalar_kind(), a, b);
      }
      case ExprKind::Cond: {
        std::string c = value(*e.args[0], out);
        std::string a = value(*e.args[1], out);
        std::string b = value(*e.args[2], out);
        return "(" + c + " ? " + a + " : " + b + ")";
      }
      case ExprKind::Call: {
        std::vector<std::string> args;
        for (const dsl::ExprPtr& a : e.args) args.push_back(value(*a, out));
        if (e.math_fn == MathFn::Select) return "(" + args[2] + " ? " + args[1] + " : " + args[0] + ")";
        return lib_.call(e.math_fn, e.args[0]->type.scalar_kind(), args);
      }
      case ExprKind::Convert:
        return lib_.convert(e.args[0]->type.scalar_kind(), e.type.scalar_kind(), value(*e.args[0], out));
    }
    throw std::logic_error("scangen: unknown expression kind");
  }

  // u >= 0 and u < 0 (or 0 <= u, 0 > u) for unsigned u: legal DSL with a
  // defined (constant) value, but NVRTC warns (#186) about it in C, and
  // spelling the constant instead makes clang warn about `&& 1`.
  static bool unsigned_zero_comparison(const Expr& e) {
    const Expr& a = *e.args[0];
    const Expr& b = *e.args[1];
    if (!a.type.is_integer() || dsl::is_signed(a.type.scalar_kind())) return false;
    auto zero = [](const Expr& x) { return x.kind == ExprKind::Literal && x.lit.bits == 0; };
    switch (e.binary_op) {
      case dsl::BinaryOp::Lt:
      case dsl::BinaryOp::Ge:
        return zero(b);
      case dsl::BinaryOp::Gt:
      case dsl::BinaryOp::Le:
        return zero(a);
      default:
        return false;
    }
  }

  FunctionBody body(const Expr& e) {
    FunctionBody f;
    std::string v = value(e, f.statements);
    // The position of the returned expression: the innermost let's body.
    const Expr* result = &e;
    while (result->kind == ExprKind::Let) result = result->args[1].get();
    f.statements.push_back({result->loc, "return " + store(e, v) + ";"});
    f.params = params_;
    return f;
  }

 private:
  std::string load(const dsl::Type& t, const std::string& storage) {
    return t.is_scalar() ? lib_.load(t.scalar_kind(), storage) : storage;
  }
  // The storage form of `e`, whose register form is `v`.
  std::string store(const Expr& e, const std::string& v) {
    if (!e.type.is_scalar()) return v;
    // An f16 constant by its bits, rather than converted at run time.
    if (e.kind == ExprKind::Literal && e.type.scalar_kind() == dsl::ScalarKind::F16)
      return "((scangen_f16)" + std::to_string(dsl::float_to_half_bits(static_cast<float>(e.lit.value))) + "U)";
    return lib_.store(e.type.scalar_kind(), v);
  }

  const std::string& prefix_;
  ScalarLibrary& lib_;
  std::vector<std::string> taken_;
  std::vector<std::string> params_;
  std::vector<std::string> locals_;  // by let slot
};

}  // namespace

FunctionBody translate_function(const dsl::Function& f, const std::string& prefix, ScalarLibrary& lib) {
  Translator t(prefix, lib);
  for (const std::string& p : f.params) t.add_param(p);
  FunctionBody body = t.body(*f.body);
  // Where the body has no position of its own (a built-in op), the function's.
  for (Statement& s : body.statements)
    if (!s.loc.valid()) s.loc = f.loc;
  return body;
}

FunctionBody translate_constant(const dsl::Expr& e, const std::string& prefix, ScalarLibrary& lib) {
  Translator t(prefix, lib);
  return t.body(e);
}

}  // namespace scangen::generator::detail
