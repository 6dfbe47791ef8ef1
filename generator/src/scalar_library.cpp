#include "scalar_library.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "c_names.h"

namespace scangen::generator::detail {

using dsl::BinaryOp;
using dsl::MathFn;
using dsl::ScalarKind;
using dsl::UnaryOp;

namespace {

bool cuda(Backend b) { return b == Backend::Cuda; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The unsigned type integer arithmetic of kind `k` is done in: the same width,
// but at least 32 bits, so that C's promotion of narrow types to (signed) int
// cannot overflow (65535 * 65535 does in int).
std::string wide_unsigned(ScalarKind k) { return dsl::integer_bits(k) == 64 ? "scangen_u64" : "scangen_u32"; }

// `v` (a value of float kind `k`, finite and normal) as an exact hexadecimal
// literal: every digit of the value is written, so the compiler reads back
// exactly this value. (to_chars, unlike printf's %a, ignores the locale.)
std::string hex_float(double v, ScalarKind k) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::hex).ptr;
  std::string s = "0x" + std::string(buf, end) + (k == ScalarKind::F64 ? "" : "f");
  return std::signbit(v) ? "(-" + s + ")" : s;
}

// Integer literal text of an integer kind's two's complement bits: decimal,
// with the suffix that gives it a type wide enough, MIN spelled as
// (-MAX - 1) since -9223372036854775808 would overflow before the minus.
std::string integer_literal(ScalarKind k, uint64_t bits, Backend backend) {
  const int width = dsl::integer_bits(k);
  const bool is64 = width == 64;
  const char* long_suffix = cuda(backend) ? "LL" : "L";  // OpenCL C's long is 64-bit; it has no long long
  std::string text;
  if (dsl::is_signed(k)) {
    int64_t v = static_cast<int64_t>(bits);
    std::string suffix = is64 ? long_suffix : "";
    if (width >= 32 && v == (width == 64 ? INT64_MIN : INT32_MIN))
      text = "(-" + std::to_string(-(v + 1)) + suffix + " - 1)";
    else
      text = std::to_string(v) + suffix;
  } else {
    text = std::to_string(bits) + "U" + (is64 ? long_suffix : "");
  }
  return "((" + storage_type(k) + ")" + text + ")";
}

}  // namespace

const char* ScalarLibrary::function_qualifiers() const {
  // __attribute__((unused)): NVRTC warns (#177) about a static function that
  // the translation unit never calls; a template may not need init or convert.
  return cuda(backend_) ? "static __device__ __forceinline__ __attribute__((unused))" : "static inline";
}

std::string ScalarLibrary::literal(ScalarKind k, const dsl::Literal& lit) const {
  if (k == ScalarKind::Bool) return lit.bits ? "true" : "false";
  if (dsl::is_integer(k)) return integer_literal(k, lit.bits, backend_);
  double v = lit.value;
  if (k == ScalarKind::F64) {
    if (std::isfinite(v) && (v == 0 || std::fabs(v) >= 0x1p-1022)) return hex_float(v, k);
    // inf, nan and subnormals by their bits: no spelling of them is portable
    // or free of compiler warnings.
    uint64_t b;
    std::memcpy(&b, &v, 8);
    if (std::isnan(v)) b = 0x7ff8000000000000ull;
    char buf[64];
    if (cuda(backend_))
      std::snprintf(buf, sizeof buf, "__longlong_as_double((long long)0x%016llxULL)",
                    static_cast<unsigned long long>(b));
    else
      std::snprintf(buf, sizeof buf, "as_double(0x%016llxUL)", static_cast<unsigned long long>(b));
    return buf;
  }
  // f32, and f16 (computed in float; its values are normal floats).
  float f = static_cast<float>(v);
  if (std::isfinite(f) && (f == 0 || std::fabs(f) >= 0x1p-126f)) return hex_float(f, ScalarKind::F32);
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (std::isnan(f)) b = 0x7fc00000u;
  char buf[64];
  std::snprintf(buf, sizeof buf, cuda(backend_) ? "__uint_as_float(0x%08xU)" : "as_float(0x%08xU)", b);
  return buf;
}

std::string ScalarLibrary::helper(const std::string& name, const std::string& text) {
  if (defined_.insert(name).second) helpers_.emplace_back(name, replace_all(text, "$N", name));
  return name;
}

// ---- integers ------------------------------------------------------------------

// scangen_<op>_<kind>; `op` is one of add sub mul neg div rem shl shr abs min max clamp.
// In the texts, $T is the kind's type, $W the unsigned type it computes in and
// $M the shift count mask (width - 1).
std::string ScalarLibrary::integer_helper(const char* op, ScalarKind k) {
  const bool sgn = dsl::is_signed(k);
  const std::string o = op;
  std::string body;
  if (o == "add" || o == "sub" || o == "mul") {
    const char* sym = o == "add" ? "+" : o == "sub" ? "-" : "*";
    body = "$T $N($T a, $T b) { return ($T)(($W)a " + std::string(sym) + " ($W)b); }";
  } else if (o == "neg") {
    body = "$T $N($T a) { return ($T)(($W)0 - ($W)a); }";
  } else if (o == "shl") {
    body = "$T $N($T a, scangen_u32 count) { return ($T)(($W)a << (count & $M)); }";
  } else if (o == "shr") {
    // Arithmetic for signed kinds: C leaves >> of a negative value to the
    // implementation; ~(~a >> n) is the same shift in defined terms.
    body = sgn ? "$T $N($T a, scangen_u32 count) { const scangen_u32 n = count & $M; "
                 "return a < 0 ? ($T)~(~a >> n) : ($T)(a >> n); }"
               : "$T $N($T a, scangen_u32 count) { return ($T)(a >> (count & $M)); }";
  } else if (o == "div") {
    // x / 0 == 0; MIN / -1 overflows in C, and is MIN (= -MIN wrapped) here.
    body = sgn ? "$T $N($T a, $T b) { return b == 0 ? ($T)0 : b == -1 ? " + integer_helper("neg", k) +
                     "(a) : ($T)(a / b); }"
               : "$T $N($T a, $T b) { return b == 0 ? ($T)0 : ($T)(a / b); }";
  } else if (o == "rem") {
    body = sgn ? "$T $N($T a, $T b) { return (b == 0 || b == -1) ? ($T)0 : ($T)(a % b); }"
               : "$T $N($T a, $T b) { return b == 0 ? ($T)0 : ($T)(a % b); }";
  } else if (o == "abs") {
    body = "$T $N($T a) { return a < 0 ? " + integer_helper("neg", k) + "(a) : a; }";  // abs(MIN) == MIN
  } else if (o == "min") {
    body = "$T $N($T a, $T b) { return b < a ? b : a; }";
  } else if (o == "max") {
    body = "$T $N($T a, $T b) { return a < b ? b : a; }";
  } else if (o == "clamp") {
    body = "$T $N($T v, $T lo, $T hi) { const $T low = v < lo ? lo : v; return hi < low ? hi : low; }";
  } else {
    throw std::logic_error(std::string("scangen: no integer helper '") + op + "'");
  }
  body = replace_all(body, "$T", storage_type(k));
  body = replace_all(body, "$W", wide_unsigned(k));
  body = replace_all(body, "$M", std::to_string(dsl::integer_bits(k) - 1));
  return helper(std::string("scangen_") + op + "_" + dsl::to_string(k), body);
}

std::string ScalarLibrary::unary(UnaryOp op, ScalarKind k, const std::string& a) {
  switch (op) {
    case UnaryOp::Neg:
      if (dsl::is_float(k)) return "(-" + a + ")";  // exact, also in f16
      return integer_helper("neg", k) + "(" + a + ")";
    case UnaryOp::Not:
      return "(!" + a + ")";
    case UnaryOp::BitNot:
      return "((" + storage_type(k) + ")~" + a + ")";
  }
  throw std::logic_error("scangen: unknown unary operator");
}

std::string ScalarLibrary::binary(BinaryOp op, ScalarKind k, ScalarKind count, const std::string& a,
                                  const std::string& b) {
  auto infix = [&](const char* sym) { return "(" + a + " " + sym + " " + b + ")"; };
  switch (op) {
    case BinaryOp::Lt:
      return infix("<");
    case BinaryOp::Le:
      return infix("<=");
    case BinaryOp::Gt:
      return infix(">");
    case BinaryOp::Ge:
      return infix(">=");
    case BinaryOp::Eq:
      return infix("==");
    case BinaryOp::Ne:
      return infix("!=");
    case BinaryOp::And:
      return infix("&&");
    case BinaryOp::Or:
      return infix("||");
    case BinaryOp::BitAnd:
      return "((" + storage_type(k) + ")" + infix("&") + ")";
    case BinaryOp::BitOr:
      return "((" + storage_type(k) + ")" + infix("|") + ")";
    case BinaryOp::BitXor:
      return "((" + storage_type(k) + ")" + infix("^") + ")";
    case BinaryOp::Shl:
    case BinaryOp::Shr: {
      // The count in 32 bits: converting keeps its low bits, the only ones the mask keeps.
      std::string n = count == ScalarKind::U32 ? b : "((scangen_u32)" + b + ")";
      return integer_helper(op == BinaryOp::Shl ? "shl" : "shr", k) + "(" + a + ", " + n + ")";
    }
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      break;
  }
  // Add Sub Mul Div Rem, consecutive in SCANGEN_BINARY_OPS.
  const int which = static_cast<int>(op) - static_cast<int>(BinaryOp::Add);
  if (dsl::is_integer(k)) {
    static const char* const kOps[] = {"add", "sub", "mul", "div", "rem"};
    return integer_helper(kOps[which], k) + "(" + a + ", " + b + ")";
  }
  if (op == BinaryOp::Rem) throw std::logic_error("scangen: % on floats");
  std::string r;
  if (cuda(backend_)) {
    // The _rn intrinsics: correctly rounded, and never contracted into an fma.
    static const char* const kF32[] = {"__fadd_rn", "__fsub_rn", "__fmul_rn", "__fdiv_rn"};
    static const char* const kF64[] = {"__dadd_rn", "__dsub_rn", "__dmul_rn", "__ddiv_rn"};
    r = std::string(k == ScalarKind::F64 ? kF64[which] : kF32[which]) + "(" + a + ", " + b + ")";
  } else {
    // The preamble turns FP_CONTRACT off, so these are never fused.
    static const char* const kSym[] = {"+", "-", "*", "/"};
    r = infix(kSym[which]);
  }
  // f16: the float result of two f16 operands, rounded to f16, is the
  // correctly rounded f16 result (float has 2 * 11 + 2 bits, enough for + - *
  // / and sqrt not to round twice), as the reference's is.
  return k == ScalarKind::F16 ? round_f16(r) : r;
}

std::string ScalarLibrary::opaque_comparison(BinaryOp op, ScalarKind k, const std::string& a, const std::string& b) {
  const char* name = op == BinaryOp::Lt ? "lt" : op == BinaryOp::Le ? "le" : op == BinaryOp::Gt ? "gt" : "ge";
  const char* sym = op == BinaryOp::Lt ? "<" : op == BinaryOp::Le ? "<=" : op == BinaryOp::Gt ? ">" : ">=";
  if (op != BinaryOp::Lt && op != BinaryOp::Le && op != BinaryOp::Gt && op != BinaryOp::Ge)
    throw std::logic_error("scangen: opaque_comparison of a non-ordering operator");
  const std::string T = storage_type(k);
  return helper(std::string("scangen_") + name + "_" + dsl::to_string(k),
                "bool $N(" + T + " a, " + T + " b) { return a " + sym + " b; }") +
         "(" + a + ", " + b + ")";
}

// ---- floats --------------------------------------------------------------------

namespace {
// A float built-in: its helper's name, the function it calls (CUDA f32, CUDA
// f64, OpenCL, which overloads), and whether its result is rounded, so that
// f16 needs its own helper that rounds to f16. min, max, abs, clamp, floor
// and ceil of f16 values are f16 values: the f32 helper serves f16.
struct FloatFn {
  MathFn fn;
  const char* name;
  const char* cuda_f32;
  const char* cuda_f64;
  const char* opencl;
  bool rounds;
};
// fmin/fmax ignore a NaN operand, as the reference's std::fmin does; min, max
// and clamp propagate one (nan_min_max below). The _rn intrinsics are correctly
// rounded whatever --prec-sqrt says. The f16 fma has its own helper (fma_f16).
constexpr FloatFn kFloatFns[] = {
    {MathFn::Fmin, "fmin", "fminf", "fmin", "fmin", false},
    {MathFn::Fmax, "fmax", "fmaxf", "fmax", "fmax", false},
    {MathFn::Min, "min", nullptr, nullptr, nullptr, false},
    {MathFn::Max, "max", nullptr, nullptr, nullptr, false},
    {MathFn::Abs, "abs", "fabsf", "fabs", "fabs", false},
    {MathFn::Clamp, "clamp", nullptr, nullptr, nullptr, false},
    {MathFn::Floor, "floor", "floorf", "floor", "floor", false},
    {MathFn::Ceil, "ceil", "ceilf", "ceil", "ceil", false},
    {MathFn::Fma, "fma", "__fmaf_rn", "__fma_rn", "fma", true},
    {MathFn::Sqrt, "sqrt", "__fsqrt_rn", "__dsqrt_rn", "sqrt", true},
    {MathFn::Exp, "exp", "expf", "exp", "exp", true},
    {MathFn::Log, "log", "logf", "log", "log", true},
};
}  // namespace

std::string ScalarLibrary::float_math(MathFn fn, ScalarKind k, const std::vector<std::string>& args) {
  if (fn == MathFn::Fma && k == ScalarKind::F16) return fma_f16(args);
  const FloatFn* f = nullptr;
  for (const FloatFn& c : kFloatFns)
    if (c.fn == fn) f = &c;
  if (!f) throw std::logic_error(std::string("scangen: no float helper for '") + dsl::to_string(fn) + "'");
  const bool f64 = k == ScalarKind::F64;
  const std::string T = f64 ? "double" : "float";
  const char* kind = f64 ? "f64" : (k == ScalarKind::F16 && f->rounds) ? "f16" : "f32";
  auto pick = [&](const FloatFn& c) { return std::string(!cuda(backend_) ? c.opencl : f64 ? c.cuda_f64 : c.cuda_f32); };
  static const char* const kParams[] = {"a", "b", "c"};
  std::string params, result;
  if (fn == MathFn::Min || fn == MathFn::Max) {
    // A NaN operand is the result (the first of two), as NumPy's minimum and
    // maximum; of equal operands (+0 and -0 too) the first: the leftmost
    // extreme of a scan, however it is grouped.
    params = T + " a, " + T + " b";
    result = std::string("(a != a || (!(") + (fn == MathFn::Min ? "b < a" : "a < b") + ") && b == b)) ? a : b";
  } else if (fn == MathFn::Clamp) {
    // Not OpenCL's clamp, which is undefined for lo > hi: min(max(v, lo), hi)
    // as the reference, so NaN propagating.
    params = T + " v, " + T + " lo, " + T + " hi";
    result = float_math(MathFn::Min, k, {float_math(MathFn::Max, k, {"v", "lo"}), "hi"});
  } else {
    result = pick(*f) + "(";
    for (size_t i = 0; i < args.size(); ++i) {
      params += (i ? ", " : "") + T + " " + kParams[i];
      result += (i ? ", " : "") + std::string(kParams[i]);
    }
    result += ")";
    if (k == ScalarKind::F16 && f->rounds) result = round_f16(result);
  }
  std::string name =
      helper(std::string("scangen_") + f->name + "_" + kind, T + " $N(" + params + ") { return " + result + "; }");
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ")";
}

std::string ScalarLibrary::call(MathFn fn, ScalarKind k, const std::vector<std::string>& args) {
  if (dsl::is_float(k)) return float_math(fn, k, args);
  const char* op = nullptr;
  switch (fn) {
    case MathFn::Min:
      op = "min";
      break;
    case MathFn::Max:
      op = "max";
      break;
    case MathFn::Clamp:
      op = "clamp";
      break;
    case MathFn::Abs:
      if (!dsl::is_signed(k)) return args.at(0);
      op = "abs";
      break;
    default:
      throw std::logic_error(std::string("scangen: '") + dsl::to_string(fn) + "' on integers");
  }
  std::string s = integer_helper(op, k) + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ")";
}

// ---- f16 ------------------------------------------------------------------------
// An f16 is stored as its bits and computed in float. Rounding to f16 is one
// rounding to nearest even, from float or from double (the reference rounds
// an f64 to f16 once, and f64 -> f32 -> f16 may round differently).

std::string ScalarLibrary::f16_to_f32() {
  if (cuda(backend_))
    return helper(
        "scangen_f16_to_f32",
        "float $N(scangen_f16 h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }");
  // vload_half reads a half through a pointer: allowed without cl_khr_fp16.
  return helper("scangen_f16_to_f32", "float $N(scangen_f16 h) { return vload_half(0, (const __private half*)&h); }");
}

std::string ScalarLibrary::to_f16(ScalarKind from) {
  const bool f64 = from == ScalarKind::F64;
  const std::string name = f64 ? "scangen_f64_to_f16" : "scangen_f32_to_f16";
  const std::string t = f64 ? "double" : "float";
  if (cuda(backend_))
    return helper(name, "scangen_f16 $N(" + t + " f) { scangen_f16 h; asm(\"cvt.rn.f16." + (f64 ? "f64" : "f32") +
                            " %0, %1;\" : \"=h\"(h) : \"" + (f64 ? "d" : "f") + "\"(f)); return h; }");
  return helper(name,
                "scangen_f16 $N(" + t + " f) { scangen_f16 h; vstore_half_rte(f, 0, (__private half*)&h); return h; }");
}

std::string ScalarLibrary::round_f16(const std::string& v, ScalarKind from) {
  const bool f64 = from == ScalarKind::F64;
  const std::string to = to_f16(from);
  const std::string back = f16_to_f32();
  const std::string name = f64 ? "scangen_round_f16_from_f64" : "scangen_round_f16";
  return helper(name,
                "float $N(" + std::string(f64 ? "double" : "float") + " f) { return " + back + "(" + to + "(f)); }") +
         "(" + v + ")";
}

std::string ScalarLibrary::fma_f16(const std::vector<std::string>& args) {
  // The reference's f16 fma is the exact a * b + c rounded once to f16; fmaf
  // and then a rounding to f16 would round twice. a * b is exact in float (11
  // + 11 significant bits); TwoSum gives the sum's rounding error e exactly;
  // nudging an inexact sum to odd makes the rounding to f16 correct (Boldo and
  // Melquiond, "Emulation of FMA and correctly rounded sums", 2008). NaN and
  // inf make e NaN, and leave the sum alone.
  const bool cu = cuda(backend_);
  auto op = [&](const char* rn, const char* sym, const std::string& a, const std::string& b) {
    return cu ? std::string(rn) + "(" + a + ", " + b + ")" : "(" + a + " " + sym + " " + b + ")";
  };
  const std::string body =
      "float $N(float a, float b, float c) { "
      "const float p = " +
      op("__fmul_rn", "*", "a", "b") +
      "; "
      "const float s = " +
      op("__fadd_rn", "+", "p", "c") +
      "; "
      "const float t = " +
      op("__fsub_rn", "-", "s", "p") +
      "; "
      "const float e = " +
      op("__fadd_rn", "+", op("__fsub_rn", "-", "p", op("__fsub_rn", "-", "s", "t")), op("__fsub_rn", "-", "c", "t")) +
      "; "
      "scangen_u32 bits = " +
      (cu ? "__float_as_uint(s)" : "as_uint(s)") +
      "; "
      "if ((e > 0.0f || e < 0.0f) && (bits & 1u) == 0u) bits = (e > 0.0f) == (s > 0.0f) ? bits + 1u : bits - 1u; "
      "return " +
      round_f16(cu ? "__uint_as_float(bits)" : "as_float(bits)") + "; }";
  std::string s = helper("scangen_fma_f16", body) + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ")";
}

std::string ScalarLibrary::load(ScalarKind k, const std::string& storage) {
  return k == ScalarKind::F16 ? f16_to_f32() + "(" + storage + ")" : storage;
}

std::string ScalarLibrary::store(ScalarKind k, const std::string& value) {
  if (k != ScalarKind::F16) return value;
  // A value that was just rounded to f16 is stored by the rounding's first
  // half, not converted to f16, back to float and to f16 again.
  for (auto [round, bits] : {std::pair<const char*, ScalarKind>{"scangen_round_f16(", ScalarKind::F32},
                             std::pair<const char*, ScalarKind>{"scangen_round_f16_from_f64(", ScalarKind::F64}}) {
    const std::string r = round;
    if (value.compare(0, r.size(), r) != 0) continue;
    // Only when the call spans the whole value: "f(a) + f(b)" is not one call.
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t i = r.size() - 1; i < value.size() && close == std::string::npos; ++i) {
      depth += value[i] == '(' ? 1 : value[i] == ')' ? -1 : 0;
      if (depth == 0) close = i;
    }
    if (close == value.size() - 1) return to_f16(bits) + "(" + value.substr(r.size(), close - r.size()) + ")";
  }
  return to_f16(ScalarKind::F32) + "(" + value + ")";
}

// ---- conversions ---------------------------------------------------------------

std::string ScalarLibrary::float_to_int_helper(ScalarKind from, ScalarKind to) {
  // f16 values are computed in float: the f32 helper serves them.
  const ScalarKind src = from == ScalarKind::F64 ? ScalarKind::F64 : ScalarKind::F32;
  const std::string F = src == ScalarKind::F64 ? "double" : "float";
  const std::string T = storage_type(to);
  const int bits = dsl::integer_bits(to);
  auto limit = [&](int exp) {  // 2^exp, exactly, in the source kind
    return "0x1p+" + std::to_string(exp) + (src == ScalarKind::F64 ? "" : "f");
  };
  dsl::Literal lo, hi;
  std::string body;
  // Truncate toward zero and saturate; NaN -> 0. C's conversion is undefined
  // outside the target's range, so the range is checked first.
  if (dsl::is_signed(to)) {
    lo.bits = ~uint64_t{0} << (bits - 1);  // MIN, sign-extended
    hi.bits = (uint64_t{1} << (bits - 1)) - 1;
    body = T + " $N(" + F + " v) { if (v != v) return (" + T + ")0; if (v <= -" + limit(bits - 1) + ") return " +
           literal(to, lo) + "; if (v >= " + limit(bits - 1) + ") return " + literal(to, hi) + "; return (" + T +
           ")v; }";
  } else {
    hi.bits = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    body = T + " $N(" + F + " v) { if (!(v > 0)) return (" + T + ")0; if (v >= " + limit(bits) + ") return " +
           literal(to, hi) + "; return (" + T + ")v; }";
  }
  return helper("scangen_" + std::string(dsl::to_string(src)) + "_to_" + dsl::to_string(to), body);
}

std::string ScalarLibrary::convert(ScalarKind from, ScalarKind to, const std::string& a) {
  if (from == to) return a;
  const bool from_float = dsl::is_float(from);
  if (!from_float && !dsl::is_float(to)) return "((" + storage_type(to) + ")" + a + ")";  // wraps
  if (!from_float) {
    if (to == ScalarKind::F64) return "((double)" + a + ")";
    // To f16 through float: the integers that round to a finite f16 (those
    // below 65520 in magnitude) are exact in float.
    std::string f = "((float)" + a + ")";
    return to == ScalarKind::F16 ? round_f16(f) : f;
  }
  if (!dsl::is_float(to)) return float_to_int_helper(from, to) + "(" + a + ")";
  switch (to) {
    case ScalarKind::F64:
      return "((double)" + a + ")";
    case ScalarKind::F32:
      return from == ScalarKind::F16 ? a : "((float)" + a + ")";
    case ScalarKind::F16:
      return round_f16(a, from == ScalarKind::F64 ? ScalarKind::F64 : ScalarKind::F32);
    default:
      break;
  }
  throw std::logic_error("scangen: bad conversion");
}

// ---- text ------------------------------------------------------------------------

std::string ScalarLibrary::scalar_typedefs(bool with_f64) const {
  std::string s = "#ifndef SCANGEN_SCALAR_TYPES\n#define SCANGEN_SCALAR_TYPES\n";
  if (cuda(backend_)) {
    // No <cstdint> under NVRTC: the fixed widths of the CUDA data model.
    s += "typedef signed char scangen_i8;\ntypedef short scangen_i16;\ntypedef int scangen_i32;\n"
         "typedef long long scangen_i64;\ntypedef unsigned char scangen_u8;\ntypedef unsigned short scangen_u16;\n"
         "typedef unsigned int scangen_u32;\ntypedef unsigned long long scangen_u64;\n";
  } else {
    s += "typedef char scangen_i8;\ntypedef short scangen_i16;\ntypedef int scangen_i32;\ntypedef long scangen_i64;\n"
         "typedef uchar scangen_u8;\ntypedef ushort scangen_u16;\ntypedef uint scangen_u32;\n"
         "typedef ulong scangen_u64;\n";
  }
  s += "typedef float scangen_f32;\n"
       "// f16 is kept as its IEEE binary16 bits and computed in float, rounded to f16 after each operation.\n"
       "typedef unsigned short scangen_f16;\n#endif\n";
  if (with_f64) s += "#ifndef SCANGEN_F64_TYPE\n#define SCANGEN_F64_TYPE\ntypedef double scangen_f64;\n#endif\n";
  return s;
}

std::string ScalarLibrary::definitions() const {
  std::string s;
  for (const auto& [name, text] : helpers_) {
    std::string guard = "SCANGEN_HAVE_" + name;
    s += "#ifndef " + guard + "\n#define " + guard + "\n" + function_qualifiers() + " " + text + "\n#endif\n";
  }
  return s;
}

}  // namespace scangen::generator::detail
