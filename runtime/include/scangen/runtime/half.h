// scangen::half: IEEE binary16 values on the host, for the f16 scans, whose
// buffers hold the 16-bit patterns. Conversions round to nearest, ties to
// even, and keep infinities, NaNs (quiet) and subnormals; no compiler
// support for a 16-bit float type is needed.
//
//   std::vector<scangen::half> in(n);
//   in[i] = scangen::half(0.1f);           // float -> half
//   float x = static_cast<float>(out[i]);  // half -> float
#pragma once

#include <cstdint>
#include <cstring>

namespace scangen {

// The binary16 pattern nearest to `f` (ties to even).
inline uint16_t half_bits_from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t a = x & 0x7fffffffu;
  if (a >= 0x47800000u) {  // |f| >= 2^16, inf or NaN: no finite half is nearer than inf
    if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN, quiet
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (a < 0x38800000u) {  // |f| < 2^-14: a subnormal half or zero
    // Adding 0.5 (2^-1) puts the half's subnormal unit (2^-24) at the last
    // place of the float's mantissa, so the float addition does the rounding.
    float t;
    std::memcpy(&t, &a, sizeof t);
    t += 0.5f;
    uint32_t r;
    std::memcpy(&r, &t, sizeof r);
    return static_cast<uint16_t>(sign | (r - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to
  // nearest, ties to even; a carry out of the mantissa bumps the exponent,
  // up to inf for values from 65520 on.
  const uint32_t odd = (a >> 13) & 1u;
  a += 0xc8000000u + 0x0fffu + odd;
  return static_cast<uint16_t>(sign | (a >> 13));
}

// The float a binary16 pattern stands for (exact).
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t x;
  if (exponent == 0) {
    float f = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // mantissa x 2^-24, exact
    std::memcpy(&x, &f, sizeof x);
    x |= sign;
  } else if (exponent == 31) {
    x = sign | 0x7f800000u | (mantissa << 13);
  } else {
    x = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

// A binary16 value as the f16 buffers hold it: 2 bytes, the IEEE pattern.
struct half {
  uint16_t bits = 0;
  half() = default;
  explicit half(float f) : bits(half_bits_from_float(f)) {}
  static half from_bits(uint16_t b) {
    half h;
    h.bits = b;
    return h;
  }
  explicit operator float() const { return half_bits_to_float(bits); }
};
static_assert(sizeof(half) == 2, "scangen::half must be the 2 bytes of an f16 element");

}  // namespace scangen
