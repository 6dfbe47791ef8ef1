// What the PoCL and CUDA runs of cub_ops.scan share (test_cub_ops_opencl.cpp,
// test_cub_ops_cuda.cpp): each scan's inputs (random; the segmented sums'
// flags made sparse, so that segments are long), its sizes (0, 1, 2, its
// tile and one on either side, two tiles and one, 2^k +- 1 and a large n),
// and the check of an output that started poisoned against the CPU
// reference, with the bytes past the end still poisoned.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cub_ops.h"
#include "scangen/generator/plan.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace scangen::test::cub {

constexpr uint8_t kPoison = 0xAB;
constexpr size_t kGuard = 64;  // poisoned bytes after the n outputs

// n random inputs of `s` (one spare byte, so that n = 0 is a buffer).
inline std::vector<uint8_t> inputs(const dsl::Spec& s, uint64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> in(n * s.input.size() + 1);
  ref::fill_random(s.input, in.data(), n, rng);
  if (s.input.name() == "FlaggedValue") {
    REQUIRE(s.input.size() == sizeof(FlaggedValue));
    for (uint64_t i = 0; i < n; ++i) {
      FlaggedValue v;
      std::memcpy(&v, in.data() + i * sizeof v, sizeof v);
      v.flag = rng() % 97 == 0 ? static_cast<uint8_t>(1 + rng() % 255) : 0;
      std::memcpy(in.data() + i * sizeof v, &v, sizeof v);
    }
  }
  return in;
}

inline std::vector<uint64_t> sizes(const Scan& scan, uint64_t large) {
  const generator::Plan& p = scan.plan();
  const uint64_t t = p.tile ? p.tile : p.segment;
  return {0, 1, 2, t - 1, t, t + 1, 2 * t + 1, 4095, 4097, 65537, large};
}

// `got` (n outputs and kGuard bytes after them, all poisoned before the
// scan) is the reference's scan of `in`, and the guard is untouched.
inline void check(const dsl::Spec& s, const std::vector<uint8_t>& in, uint64_t n, const std::vector<uint8_t>& got) {
  const size_t es = s.type.size();
  REQUIRE(got.size() == n * es + kGuard);
  const auto want = ref::Evaluator(s).scan(in.data(), n);
  const std::vector<uint8_t>& w = s.has_inclusive() ? want.inclusive : want.exclusive;
  uint64_t bad = 0, first = n;
  for (uint64_t i = 0; i < n; ++i)
    if (!ref::values_match(s.type, got.data() + i * es, w.data() + i * es, {})) {
      if (!bad) first = i;
      ++bad;
    }
  INFO("scan '" << s.name << "', n = " << n << ": " << bad << " wrong"
                << (bad ? ", the first at " + std::to_string(first) + ": got " +
                              ref::format_value(s.type, got.data() + first * es) + ", want " +
                              ref::format_value(s.type, w.data() + first * es)
                        : std::string()));
  CHECK(bad == 0);
  size_t touched = 0;
  for (size_t i = n * es; i < got.size(); ++i) touched += got[i] != kPoison;
  INFO("scan '" << s.name << "', n = " << n);
  CHECK(touched == 0);
}

}  // namespace scangen::test::cub
