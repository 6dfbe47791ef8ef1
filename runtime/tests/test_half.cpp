// scangen::half against the compiler's _Float16 (where it has one) and by
// round trips over every one of the 65,536 patterns.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "scangen/runtime/half.h"

namespace {

bool is_nan_bits(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

float bits_to_float(uint32_t x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("half: every pattern converts to float and back to itself", "[unit][half]") {
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto h = static_cast<uint16_t>(b);
    const float f = scangen::half_bits_to_float(h);
    INFO("pattern 0x" << std::hex << b);
    if (is_nan_bits(h)) {
      CHECK(std::isnan(f));
      CHECK(is_nan_bits(scangen::half_bits_from_float(f)));
    } else {
      CHECK(scangen::half_bits_from_float(f) == h);
    }
  }
  CHECK(scangen::half_bits_to_float(0x3c00) == 1.0f);
  CHECK(scangen::half_bits_to_float(0xc000) == -2.0f);
  CHECK(scangen::half_bits_to_float(0x7bff) == 65504.0f);
  CHECK(scangen::half_bits_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(std::isinf(scangen::half_bits_to_float(0x7c00)));
}

TEST_CASE("half: float to half rounds to nearest, ties to even", "[unit][half]") {
  // Halfway cases: 1 + 2^-11 lies between 1 and 1 + 2^-10, ties to 1 (even).
  CHECK(scangen::half_bits_from_float(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);
  CHECK(scangen::half_bits_from_float(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);
  CHECK(scangen::half_bits_from_float(65519.0f) == 0x7bff);               // below the halfway point to 2^16
  CHECK(scangen::half_bits_from_float(65520.0f) == 0x7c00);               // the halfway point rounds to inf (even)
  CHECK(scangen::half_bits_from_float(std::ldexp(1.0f, -25)) == 0x0000);  // half of the least subnormal: to 0 (even)
  CHECK(scangen::half_bits_from_float(std::ldexp(3.0f, -26)) == 0x0001);
  CHECK(scangen::half_bits_from_float(-0.0f) == 0x8000);
  CHECK(scangen::half_bits_from_float(1e10f) == 0x7c00);
  CHECK(scangen::half_bits_from_float(-INFINITY) == 0xfc00);
  CHECK(is_nan_bits(scangen::half_bits_from_float(NAN)));
  CHECK(static_cast<float>(scangen::half(0.1f)) == scangen::half_bits_to_float(0x2e66));
#if defined(__FLT16_MAX__)
  // Against the compiler's own conversion, over a spread of float patterns.
  std::mt19937 rng(12345);
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t x = i < 1000000 ? static_cast<uint32_t>(i) * 4295u : static_cast<uint32_t>(rng());
    const float f = bits_to_float(x);
    const _Float16 want = static_cast<_Float16>(f);
    uint16_t want_bits;
    std::memcpy(&want_bits, &want, sizeof want_bits);
    const uint16_t got = scangen::half_bits_from_float(f);
    if (std::isnan(f)) {
      REQUIRE(is_nan_bits(got));
    } else if (got != want_bits) {
      FAIL("float 0x" << std::hex << x << ": got 0x" << got << ", _Float16 gives 0x" << want_bits);
    }
  }
#else
  WARN("no _Float16 in this compiler: the comparison with it was not run");
#endif
}
