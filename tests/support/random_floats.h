// Random f32 inputs as bytes, for the tests that compare the bits of float
// results from call to call: values uniform in [lo, hi), whose sums round,
// so that the order of the combines shows in the bits.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace scangen::test {

inline std::vector<uint8_t> random_f32_bytes(std::mt19937_64& rng, uint64_t n, float lo = -1.0f, float hi = 1.0f) {
  std::vector<uint8_t> bytes(n * 4);
  std::uniform_real_distribution<float> value(lo, hi);
  for (uint64_t i = 0; i < n; ++i) {
    const float f = value(rng);
    std::memcpy(bytes.data() + i * 4, &f, 4);
  }
  return bytes;
}

}  // namespace scangen::test
