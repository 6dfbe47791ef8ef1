// The checker's literals: integer and float literals, their ranges, and the
// untyped constant expressions that take the type their context needs.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <memory>

#include "checker_internal.h"

namespace scangen::dsl::checking {

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

Literal integer_literal(i128 v) {
  Literal lit;
  lit.bits = static_cast<uint64_t>(v);
  return lit;
}

Literal float_literal(double v) {
  Literal lit;
  lit.value = v;
  return lit;
}

Literal builtin_identity(BuiltinOp op, ScalarKind k) {
  i128 lo = 0, hi = 0;
  if (is_integer(k)) integer_range(k, lo, hi);
  bool fl = is_float(k);
  switch (op) {
    case BuiltinOp::Add:
      // -0.0: x + -0.0 == x for every float x, -0.0 included (+0.0 would turn a
      // lone -0.0 into +0.0).
      return fl ? float_literal(-0.0) : integer_literal(0);
    case BuiltinOp::Or:
    case BuiltinOp::Xor:
      return integer_literal(0);
    case BuiltinOp::Mul:
      return fl ? float_literal(1.0) : integer_literal(1);
    case BuiltinOp::Fmin:
    case BuiltinOp::Fmax:
      // NaN: fmin(NaN, x) == x for every x, NaN included (+inf is not one:
      // fmin(+inf, NaN) is +inf).
      return float_literal(std::numeric_limits<double>::quiet_NaN());
    case BuiltinOp::Min:
      return fl ? float_literal(std::numeric_limits<double>::infinity()) : integer_literal(hi);
    case BuiltinOp::Max:
      return fl ? float_literal(-std::numeric_limits<double>::infinity()) : integer_literal(lo);
    case BuiltinOp::And:
      return integer_literal(is_signed(k) ? -1 : hi);
  }
  return {};
}

bool Checker::is_untyped_literal(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::Int || e.kind == ast::ExprKind::Float) return true;
  if (e.kind == ast::ExprKind::Unary && e.text == "-") return is_untyped_literal(*e.kids[0]);
  return false;
}

bool Checker::is_untyped_constant_name(const ast::Expr& e) const {
  return e.kind == ast::ExprKind::Name && (e.text == "inf" || e.text == "nan") && !lookup(e.text);
}

// An expression built only from literals with arithmetic, bitwise and shift
// operators, e.g. (1 + 2) or -inf: it has no type of its own and takes the
// type its context needs, whichever side of an operator it stands on.
bool Checker::is_untyped(const ast::Expr& e) const {
  switch (e.kind) {
    case ast::ExprKind::Int:
    case ast::ExprKind::Float:
      return true;
    case ast::ExprKind::Name:
      return is_untyped_constant_name(e);
    case ast::ExprKind::Unary:
      return e.text != "!" && is_untyped(*e.kids[0]);
    case ast::ExprKind::Binary: {
      static const char* const kArith[] = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"};
      bool arith = std::any_of(std::begin(kArith), std::end(kArith), [&](const char* op) { return e.text == op; });
      return arith && is_untyped(*e.kids[0]) && is_untyped(*e.kids[1]);
    }
    default:
      return false;
  }
}

bool Checker::contains_float_literal(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::Float || e.kind == ast::ExprKind::Name) return true;
  for (const ast::ExprPtr& k : e.kids)
    if (contains_float_literal(*k)) return true;
  return false;
}

// Parses the digits of an integer literal; false (with an error) on overflow.
bool Checker::parse_integer(const ast::Expr& e, u128& out) {
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
    int d =
        std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
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
ExprPtr Checker::literal(const ast::Expr& outer, bool negate, const Type* hint) {
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
                  " is expected" + (hint->is_bool() ? "; write a comparison such as 'x != 0', or true/false" : ""));
    return nullptr;
  }
  std::string shown = (negate ? "-" : "") + e.text;
  if (is_float_lit && is_integer(k)) {
    error(at, "floating-point literal '" + shown + "' where " + std::string(to_string(k)) +
                  " is expected; write an integer, or convert with " + to_string(k) + "(...)");
    return nullptr;
  }
  if (!is_integer(k)) return float_value(e, negate, k, at, shown);
  u128 mag = 0;
  if (!parse_integer(e, mag)) return nullptr;
  i128 v = negate ? -static_cast<i128>(mag) : static_cast<i128>(mag);
  i128 lo, hi;
  integer_range(k, lo, hi);
  if (v < lo || v > hi) {
    error(at, "literal '" + shown + "' is out of range for " + to_string(k) + " (" + int128_to_string(lo) + " to " +
                  int128_to_string(hi) + ")");
    return nullptr;
  }
  return make_literal(Type::scalar(k), integer_literal(v), at);
}

// The literal `e` (an integer, a float, inf or nan) as a value of float kind `k`.
ExprPtr Checker::float_value(const ast::Expr& e, bool negate, ScalarKind k, SourceLoc at, const std::string& shown) {
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
    errno = 0;
    v = std::strtod(digits.c_str(), nullptr);
    if (std::isinf(v)) {
      error(at, "literal '" + shown + "' is out of range for every float type");
      return nullptr;
    }
    if (v == 0 && errno == ERANGE) {  // a nonzero literal that rounds to 0 even in f64
      error(at, "literal '" + shown + "' is too small for every float type: it rounds to 0; write 0 if that is meant");
      return nullptr;
    }
  }
  if (negate) v = -v;
  double r = round_to_float_kind(k, v);
  if (r == 0 && v != 0) {
    error(at, "literal '" + shown + "' is too small for " + to_string(k) +
                  ": it rounds to 0 (smallest positive value " +
                  (k == ScalarKind::F16   ? "2^-24"
                   : k == ScalarKind::F32 ? "2^-149"
                                          : "2^-1074") +
                  "); write 0 if that is meant");
    return nullptr;
  }
  if (std::isinf(r) && !std::isinf(v)) {
    error(at, "literal '" + shown + "' is out of range for " + to_string(k) + " (largest finite value " +
                  literal_to_string(Type::scalar(ScalarKind::F64), float_literal(float_kind_max(k))) + ")");
    return nullptr;
  }
  return make_literal(Type::scalar(k), float_literal(r), at);
}

}  // namespace scangen::dsl::checking
