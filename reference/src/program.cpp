#include "program.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace scangen::ref {

using dsl::BinaryOp;
using dsl::Expr;
using dsl::ExprKind;
using dsl::MathFn;
using dsl::ScalarKind;
using dsl::UnaryOp;

namespace {

// ---- scalar semantics --------------------------------------------------------
// Integers wrap at their width (signed too); shift counts are taken modulo
// the width; x / 0 == 0 and x % 0 == 0; MIN / -1 == MIN and MIN % -1 == 0.
// Float operations are computed in double and rounded to the kind, which is
// the correctly rounded result for + - * / sqrt of f32 and f16 operands.

inline uint64_t norm(const Instr& in, uint64_t v) {
  unsigned sh = 64u - in.bits;
  if (in.is_signed) return static_cast<uint64_t>(static_cast<int64_t>(v << sh) >> sh);
  return sh == 64 ? 0 : (v << sh) >> sh;
}

inline double round_kind(ScalarKind k, double v) {
  switch (k) {
    case ScalarKind::F32:
      return static_cast<float>(v);
    case ScalarKind::F16:
      return dsl::round_to_float_kind(ScalarKind::F16, v);
    default:
      return v;
  }
}

inline bool int_less(const Instr& in, Slot a, Slot b) { return in.is_signed ? a.i < b.i : a.u < b.u; }

void op_mov(Slot* r, const Instr& in) { r[in.d] = r[in.a]; }
void op_sel(Slot* r, const Instr& in) { r[in.d] = r[in.c].u ? r[in.a] : r[in.b]; }

// Integer operations.
void op_iadd(Slot* r, const Instr& in) { r[in.d].u = norm(in, r[in.a].u + r[in.b].u); }
void op_isub(Slot* r, const Instr& in) { r[in.d].u = norm(in, r[in.a].u - r[in.b].u); }
void op_imul(Slot* r, const Instr& in) { r[in.d].u = norm(in, r[in.a].u * r[in.b].u); }
void op_idiv(Slot* r, const Instr& in) {
  Slot a = r[in.a], b = r[in.b];
  uint64_t q;
  if (b.u == 0)
    q = 0;
  else if (in.is_signed)
    q = (b.i == -1) ? 0 - a.u : static_cast<uint64_t>(a.i / b.i);
  else
    q = a.u / b.u;
  r[in.d].u = norm(in, q);
}
void op_irem(Slot* r, const Instr& in) {
  Slot a = r[in.a], b = r[in.b];
  uint64_t m;
  if (b.u == 0)
    m = 0;
  else if (in.is_signed)
    m = (b.i == -1) ? 0 : static_cast<uint64_t>(a.i % b.i);
  else
    m = a.u % b.u;
  r[in.d].u = norm(in, m);
}
void op_iand(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u & r[in.b].u; }
void op_ior(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u | r[in.b].u; }
void op_ixor(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u ^ r[in.b].u; }
// The count's kind may differ from the value's; `c` holds the value width - 1.
void op_shl(Slot* r, const Instr& in) { r[in.d].u = norm(in, r[in.a].u << (r[in.b].u & in.c)); }
void op_shr(Slot* r, const Instr& in) {
  unsigned s = static_cast<unsigned>(r[in.b].u & in.c);
  r[in.d].u = in.is_signed ? static_cast<uint64_t>(r[in.a].i >> s) : r[in.a].u >> s;
}
void op_ineg(Slot* r, const Instr& in) { r[in.d].u = norm(in, 0 - r[in.a].u); }
void op_inot(Slot* r, const Instr& in) { r[in.d].u = norm(in, ~r[in.a].u); }
void op_imin(Slot* r, const Instr& in) { r[in.d] = int_less(in, r[in.b], r[in.a]) ? r[in.b] : r[in.a]; }
void op_imax(Slot* r, const Instr& in) { r[in.d] = int_less(in, r[in.a], r[in.b]) ? r[in.b] : r[in.a]; }
void op_iabs(Slot* r, const Instr& in) {
  Slot a = r[in.a];
  r[in.d].u = (in.is_signed && a.i < 0) ? norm(in, 0 - a.u) : a.u;
}
void op_iclamp(Slot* r, const Instr& in) {
  Slot v = r[in.a];
  if (int_less(in, v, r[in.b])) v = r[in.b];
  if (int_less(in, r[in.c], v)) v = r[in.c];
  r[in.d] = v;
}
void op_ilt(Slot* r, const Instr& in) { r[in.d].u = int_less(in, r[in.a], r[in.b]); }
void op_ile(Slot* r, const Instr& in) { r[in.d].u = !int_less(in, r[in.b], r[in.a]); }
void op_igt(Slot* r, const Instr& in) { r[in.d].u = int_less(in, r[in.b], r[in.a]); }
void op_ige(Slot* r, const Instr& in) { r[in.d].u = !int_less(in, r[in.a], r[in.b]); }
void op_ieq(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u == r[in.b].u; }
void op_ine(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u != r[in.b].u; }

// Bool operations.
void op_land(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u & r[in.b].u; }
void op_lor(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u | r[in.b].u; }
void op_lnot(Slot* r, const Instr& in) { r[in.d].u = r[in.a].u ^ 1u; }

// Float operations.
void op_fadd(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, r[in.a].f + r[in.b].f); }
void op_fsub(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, r[in.a].f - r[in.b].f); }
void op_fmul(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, r[in.a].f * r[in.b].f); }
void op_fdiv(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, r[in.a].f / r[in.b].f); }
void op_fneg(Slot* r, const Instr& in) { r[in.d].f = -r[in.a].f; }
// min and max propagate a NaN (the first of two); of equal operands, +0 and -0
// too, they give the first. fmin and fmax ignore a NaN (C's).
double nan_min(double a, double b) { return std::isnan(a) || (!(b < a) && !std::isnan(b)) ? a : b; }
double nan_max(double a, double b) { return std::isnan(a) || (!(a < b) && !std::isnan(b)) ? a : b; }
void op_fmin(Slot* r, const Instr& in) { r[in.d].f = nan_min(r[in.a].f, r[in.b].f); }
void op_fmax(Slot* r, const Instr& in) { r[in.d].f = nan_max(r[in.a].f, r[in.b].f); }
void op_ffmin(Slot* r, const Instr& in) { r[in.d].f = std::fmin(r[in.a].f, r[in.b].f); }
void op_ffmax(Slot* r, const Instr& in) { r[in.d].f = std::fmax(r[in.a].f, r[in.b].f); }
void op_fabs(Slot* r, const Instr& in) { r[in.d].f = std::fabs(r[in.a].f); }
void op_fclamp(Slot* r, const Instr& in) { r[in.d].f = nan_min(nan_max(r[in.a].f, r[in.b].f), r[in.c].f); }
void op_ffma(Slot* r, const Instr& in) {
  if (in.kind == ScalarKind::F64) {
    r[in.d].f = std::fma(r[in.a].f, r[in.b].f, r[in.c].f);
  } else if (in.kind == ScalarKind::F32) {
    r[in.d].f = std::fmaf(static_cast<float>(r[in.a].f), static_cast<float>(r[in.b].f), static_cast<float>(r[in.c].f));
  } else {
    // f16: one fma in double, then a rounding to half. Rounding twice can differ
    // from rounding once only when the addend is tiny next to the product's
    // last bits (beyond double's 53), which half operands rarely produce.
    r[in.d].f = round_kind(in.kind, std::fma(r[in.a].f, r[in.b].f, r[in.c].f));
  }
}
void op_fsqrt(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, std::sqrt(r[in.a].f)); }
void op_fexp(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, std::exp(r[in.a].f)); }
void op_flog(Slot* r, const Instr& in) { r[in.d].f = round_kind(in.kind, std::log(r[in.a].f)); }
void op_ffloor(Slot* r, const Instr& in) { r[in.d].f = std::floor(r[in.a].f); }
void op_fceil(Slot* r, const Instr& in) { r[in.d].f = std::ceil(r[in.a].f); }
void op_flt(Slot* r, const Instr& in) { r[in.d].u = r[in.a].f < r[in.b].f; }
void op_fle(Slot* r, const Instr& in) { r[in.d].u = r[in.a].f <= r[in.b].f; }
void op_fgt(Slot* r, const Instr& in) { r[in.d].u = r[in.a].f > r[in.b].f; }
void op_fge(Slot* r, const Instr& in) { r[in.d].u = r[in.a].f >= r[in.b].f; }
void op_feq(Slot* r, const Instr& in) { r[in.d].u = r[in.a].f == r[in.b].f; }
void op_fne(Slot* r, const Instr& in) { r[in.d].u = r[in.a].f != r[in.b].f; }

// Conversions: `from` -> `kind`. Integer -> integer wraps; float -> integer
// truncates toward zero and saturates, NaN -> 0; to float rounds to nearest.
void op_cvt(Slot* r, const Instr& in) {
  Slot a = r[in.a];
  Slot out{};
  bool from_float = dsl::is_float(in.from);
  bool to_float = dsl::is_float(in.kind);
  if (!from_float && !to_float) {
    out.u = norm(in, a.u);
  } else if (!from_float) {
    bool src_signed = dsl::is_signed(in.from);
    if (in.kind == ScalarKind::F32)
      out.f = src_signed ? static_cast<float>(a.i) : static_cast<float>(a.u);
    else
      out.f = round_kind(in.kind, src_signed ? static_cast<double>(a.i) : static_cast<double>(a.u));
  } else if (to_float) {
    out.f = round_kind(in.kind, a.f);
  } else {
    double v = std::trunc(a.f);
    if (std::isnan(v)) {
      out.u = 0;
    } else if (in.is_signed) {
      double limit = std::ldexp(1.0, in.bits - 1);  // 2^(bits-1)
      if (v <= -limit)
        out.u = norm(in, uint64_t{1} << (in.bits - 1));  // MIN
      else if (v >= limit)
        out.u = norm(in, (uint64_t{1} << (in.bits - 1)) - 1);  // MAX
      else
        out.i = static_cast<int64_t>(v);
    } else {
      double hi = std::ldexp(1.0, in.bits);  // exclusive
      if (v <= 0)
        out.u = 0;
      else if (v >= hi)
        out.u = in.bits == 64 ? UINT64_MAX : (uint64_t{1} << in.bits) - 1;
      else
        out.u = static_cast<uint64_t>(v);
    }
  }
  r[in.d] = out;
}

size_t flat_count(const dsl::Type& t) {
  if (t.is_scalar()) return 1;
  size_t n = 0;
  for (const dsl::Field& f : t.struct_type().fields) n += flat_count(f.type);
  return n;
}

}  // namespace

class ProgramBuilder {
 public:
  explicit ProgramBuilder(bool widen) : widen_(widen) {}

  Program p;

  uint32_t alloc(uint32_t n) {
    uint32_t base = static_cast<uint32_t>(p.constants_.size());
    p.constants_.resize(base + n, Slot{0});
    return base;
  }

  SlotRange param(const dsl::Type& t) {
    uint32_t n = static_cast<uint32_t>(flat_count(t));
    SlotRange r{alloc(n), n};
    p.params_.push_back(r);
    return r;
  }

  ScalarKind eff(ScalarKind k) const { return widen_ && dsl::is_float(k) ? ScalarKind::F64 : k; }

  Instr instr(OpFn fn, uint32_t d, ScalarKind k, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    Instr in{};
    in.fn = fn;
    in.d = d;
    in.a = a;
    in.b = b;
    in.c = c;
    in.kind = eff(k);
    in.from = k;
    in.bits = static_cast<uint8_t>(dsl::is_integer(k) ? dsl::integer_bits(k) : 64);
    in.is_signed = dsl::is_integer(k) && dsl::is_signed(k);
    return in;
  }

  uint32_t emit(OpFn fn, ScalarKind k, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0) {
    uint32_t d = alloc(1);
    p.code_.push_back(instr(fn, d, k, a, b, c));
    return d;
  }

  SlotRange compile(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Literal: {
        uint32_t reg = alloc(1);
        if (e.type.is_float())
          p.constants_[reg].f = e.lit.value;
        else
          p.constants_[reg].u = e.lit.bits;
        return {reg, 1};
      }
      case ExprKind::Param:
        return p.params_.at(static_cast<size_t>(e.index));
      case ExprKind::Local:
        return locals_.at(static_cast<size_t>(e.index));
      case ExprKind::Let: {
        SlotRange v = compile(*e.args[0]);
        if (locals_.size() <= static_cast<size_t>(e.index)) locals_.resize(static_cast<size_t>(e.index) + 1);
        locals_[static_cast<size_t>(e.index)] = v;
        return compile(*e.args[1]);
      }
      case ExprKind::Field: {
        SlotRange base = compile(*e.args[0]);
        const dsl::StructType& st = e.args[0]->type.struct_type();
        uint32_t off = 0;
        for (int i = 0; i < e.index; ++i)
          off += static_cast<uint32_t>(flat_count(st.fields[static_cast<size_t>(i)].type));
        return {base.base + off, static_cast<uint32_t>(flat_count(e.type))};
      }
      case ExprKind::Construct: {
        std::vector<SlotRange> parts;
        for (const dsl::ExprPtr& a : e.args) parts.push_back(compile(*a));
        uint32_t n = static_cast<uint32_t>(flat_count(e.type));
        uint32_t base = alloc(n);
        uint32_t at = base;
        for (const SlotRange& part : parts)
          for (uint32_t i = 0; i < part.count; ++i)
            p.code_.push_back(instr(op_mov, at++, ScalarKind::U64, part.base + i));
        return {base, n};
      }
      case ExprKind::Cond: {
        SlotRange c = compile(*e.args[0]);
        SlotRange a = compile(*e.args[1]);
        SlotRange b = compile(*e.args[2]);
        return select(c.base, a, b);
      }
      case ExprKind::Unary:
        return {unary(e), 1};
      case ExprKind::Binary:
        return {binary(e), 1};
      case ExprKind::Call: {
        if (e.math_fn == MathFn::Select) {  // select(a, b, c) = c ? b : a
          SlotRange a = compile(*e.args[0]);
          SlotRange b = compile(*e.args[1]);
          SlotRange c = compile(*e.args[2]);
          return select(c.base, b, a);
        }
        return {call(e), 1};
      }
      case ExprKind::Convert: {
        SlotRange a = compile(*e.args[0]);
        ScalarKind from = e.args[0]->type.scalar_kind();
        Instr in = instr(op_cvt, alloc(1), e.type.scalar_kind(), a.base);
        in.from = eff(from);
        p.code_.push_back(in);
        return {in.d, 1};
      }
    }
    throw std::logic_error("reference: unknown expression kind");
  }

  SlotRange select(uint32_t cond, SlotRange then_r, SlotRange else_r) {
    uint32_t base = alloc(then_r.count);
    for (uint32_t i = 0; i < then_r.count; ++i)
      p.code_.push_back(instr(op_sel, base + i, ScalarKind::U64, then_r.base + i, else_r.base + i, cond));
    return {base, then_r.count};
  }

  uint32_t unary(const Expr& e) {
    uint32_t a = compile(*e.args[0]).base;
    ScalarKind k = e.args[0]->type.scalar_kind();
    bool fl = dsl::is_float(k);
    switch (e.unary_op) {
      case UnaryOp::Neg:
        return emit(fl ? op_fneg : op_ineg, k, a);
      case UnaryOp::Not:
        return emit(op_lnot, k, a);
      case UnaryOp::BitNot:
        return emit(op_inot, k, a);
    }
    throw std::logic_error("reference: unknown unary operator");
  }

  uint32_t binary(const Expr& e) {
    uint32_t a = compile(*e.args[0]).base;
    uint32_t b = compile(*e.args[1]).base;
    ScalarKind k = e.args[0]->type.scalar_kind();
    bool fl = dsl::is_float(k);
    if (k == ScalarKind::Bool) {
      switch (e.binary_op) {
        case BinaryOp::And:
          return emit(op_land, k, a, b);
        case BinaryOp::Or:
          return emit(op_lor, k, a, b);
        case BinaryOp::Eq:
          return emit(op_ieq, k, a, b);
        case BinaryOp::Ne:
          return emit(op_ine, k, a, b);
        default:
          throw std::logic_error("reference: bad bool operator");
      }
    }
    switch (e.binary_op) {
      case BinaryOp::Add:
        return emit(fl ? op_fadd : op_iadd, k, a, b);
      case BinaryOp::Sub:
        return emit(fl ? op_fsub : op_isub, k, a, b);
      case BinaryOp::Mul:
        return emit(fl ? op_fmul : op_imul, k, a, b);
      case BinaryOp::Div:
        return emit(fl ? op_fdiv : op_idiv, k, a, b);
      case BinaryOp::Rem:
        return emit(op_irem, k, a, b);
      case BinaryOp::BitAnd:
        return emit(op_iand, k, a, b);
      case BinaryOp::BitOr:
        return emit(op_ior, k, a, b);
      case BinaryOp::BitXor:
        return emit(op_ixor, k, a, b);
      case BinaryOp::Shl:
        return emit(op_shl, k, a, b, static_cast<uint32_t>(dsl::integer_bits(k) - 1));
      case BinaryOp::Shr:
        return emit(op_shr, k, a, b, static_cast<uint32_t>(dsl::integer_bits(k) - 1));
      case BinaryOp::Lt:
        return emit(fl ? op_flt : op_ilt, k, a, b);
      case BinaryOp::Le:
        return emit(fl ? op_fle : op_ile, k, a, b);
      case BinaryOp::Gt:
        return emit(fl ? op_fgt : op_igt, k, a, b);
      case BinaryOp::Ge:
        return emit(fl ? op_fge : op_ige, k, a, b);
      case BinaryOp::Eq:
        return emit(fl ? op_feq : op_ieq, k, a, b);
      case BinaryOp::Ne:
        return emit(fl ? op_fne : op_ine, k, a, b);
      case BinaryOp::And:
      case BinaryOp::Or:
        break;
    }
    throw std::logic_error("reference: bad binary operator");
  }

  uint32_t call(const Expr& e) {
    std::vector<uint32_t> args;
    for (const dsl::ExprPtr& a : e.args) args.push_back(compile(*a).base);
    ScalarKind k = e.args[0]->type.scalar_kind();
    bool fl = dsl::is_float(k);
    auto arg = [&](size_t i) { return i < args.size() ? args[i] : 0u; };
    switch (e.math_fn) {
      case MathFn::Min:
        return emit(fl ? op_fmin : op_imin, k, arg(0), arg(1));
      case MathFn::Max:
        return emit(fl ? op_fmax : op_imax, k, arg(0), arg(1));
      case MathFn::Fmin:
        return emit(op_ffmin, k, arg(0), arg(1));
      case MathFn::Fmax:
        return emit(op_ffmax, k, arg(0), arg(1));
      case MathFn::Abs:
        return emit(fl ? op_fabs : op_iabs, k, arg(0));
      case MathFn::Clamp:
        return emit(fl ? op_fclamp : op_iclamp, k, arg(0), arg(1), arg(2));
      case MathFn::Fma:
        return emit(op_ffma, k, arg(0), arg(1), arg(2));
      case MathFn::Sqrt:
        return emit(op_fsqrt, k, arg(0));
      case MathFn::Exp:
        return emit(op_fexp, k, arg(0));
      case MathFn::Log:
        return emit(op_flog, k, arg(0));
      case MathFn::Floor:
        return emit(op_ffloor, k, arg(0));
      case MathFn::Ceil:
        return emit(op_fceil, k, arg(0));
      case MathFn::Select:
        break;
    }
    throw std::logic_error("reference: bad call");
  }

 private:
  bool widen_;
  std::vector<SlotRange> locals_;
};

Program Program::compile(const dsl::Function& f, bool widen_floats) {
  ProgramBuilder b(widen_floats);
  for (const dsl::Type& t : f.param_types) b.param(t);
  b.p.result_ = b.compile(*f.body);
  return std::move(b.p);
}

Program Program::compile_constant(const dsl::Expr& e, bool widen_floats) {
  ProgramBuilder b(widen_floats);
  b.p.result_ = b.compile(e);
  return std::move(b.p);
}

void Program::load(const std::vector<dsl::ScalarSlot>& layout, const void* src, Slot* dst) {
  const auto* bytes = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < layout.size(); ++i) {
    const uint8_t* p = bytes + layout[i].offset;
    Slot s{};
    switch (layout[i].kind) {
      case ScalarKind::I8:
        s.i = static_cast<int8_t>(*p);
        break;
      case ScalarKind::U8:
        s.u = *p;
        break;
      case ScalarKind::I16: {
        int16_t v;
        std::memcpy(&v, p, 2);
        s.i = v;
        break;
      }
      case ScalarKind::U16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        s.u = v;
        break;
      }
      case ScalarKind::I32: {
        int32_t v;
        std::memcpy(&v, p, 4);
        s.i = v;
        break;
      }
      case ScalarKind::U32: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        s.u = v;
        break;
      }
      case ScalarKind::I64:
      case ScalarKind::U64:
        std::memcpy(&s.u, p, 8);
        break;
      case ScalarKind::F16: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        s.f = dsl::half_bits_to_float(v);
        break;
      }
      case ScalarKind::F32: {
        float v;
        std::memcpy(&v, p, 4);
        s.f = v;
        break;
      }
      case ScalarKind::F64:
        std::memcpy(&s.f, p, 8);
        break;
      case ScalarKind::Bool:
        s.u = *p != 0;
        break;
    }
    dst[i] = s;
  }
}

void Program::store(const std::vector<dsl::ScalarSlot>& layout, const Slot* src, void* dst) {
  auto* bytes = static_cast<uint8_t*>(dst);
  for (size_t i = 0; i < layout.size(); ++i) {
    uint8_t* p = bytes + layout[i].offset;
    Slot s = src[i];
    switch (layout[i].kind) {
      case ScalarKind::I8:
      case ScalarKind::U8:
      case ScalarKind::Bool:
        *p = static_cast<uint8_t>(s.u);
        break;
      case ScalarKind::I16:
      case ScalarKind::U16: {
        uint16_t v = static_cast<uint16_t>(s.u);
        std::memcpy(p, &v, 2);
        break;
      }
      case ScalarKind::I32:
      case ScalarKind::U32: {
        uint32_t v = static_cast<uint32_t>(s.u);
        std::memcpy(p, &v, 4);
        break;
      }
      case ScalarKind::I64:
      case ScalarKind::U64:
        std::memcpy(p, &s.u, 8);
        break;
      case ScalarKind::F16: {
        uint16_t v = dsl::float_to_half_bits(static_cast<float>(s.f));
        std::memcpy(p, &v, 2);
        break;
      }
      case ScalarKind::F32: {
        float v = static_cast<float>(s.f);
        std::memcpy(p, &v, 4);
        break;
      }
      case ScalarKind::F64:
        std::memcpy(p, &s.f, 8);
        break;
    }
  }
}

}  // namespace scangen::ref
