// The scan sweeps' loops, one for every backend's execution test
// (test_scan_cuda.cpp, test_scan_opencl.cpp): the source of a sweep, every
// case at every size against the reference, and the device scans' rounds on
// one shared workspace. Each backend brings its build and its launch.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "operator_sweep.h"
#include "scan_sweep.h"
#include "scangen/generator/emit.h"
#include "scangen/reference/reference.h"

namespace scangen::test {

// The sweep's source: every plan, and the user's kernel of each case that has one.
inline std::string sweep_source(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans) {
  std::string source = generator::emit(plans);
  for (size_t i = 0; i < cases.size(); ++i)
    if (has_api_kernel(cases[i])) source += api_test_kernel(plans[i]);
  return source;
}

// Every case at the sizes of scan_sizes, and its user's kernel where it has
// one, against the reference; the number of kernel runs.
inline int check_scan_cases(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans,
                            const LaunchKernel& launch) {
  const uint64_t seed = test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  int runs = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("scan:\n" << cases[i].spec.to_string());
    for (uint64_t n : scan_sizes(plans[i], rng)) {
      INFO("n = " << n);
      const std::string report = run_scan_case(cases[i], plans[i], n, rng, launch);
      INFO(report);
      CHECK(report.empty());
      ++runs;
      if (has_api_kernel(cases[i])) {
        const std::string api = run_api_case(cases[i], plans[i], n, rng, launch);
        INFO("user kernel calling the device functions:\n" << api);
        CHECK(api.empty());
        ++runs;
      }
    }
  }
  return runs;
}

// Device scans: every case at every size of device_sizes (up to
// 2^log2_max), in rounds (each scan's next size in turn), all calls on one
// workspace: the scans take turns on it, different layouts and algorithms
// one after another, each finding what the one before left (run_device_case
// zeroes what a look-back call uses, as the host does); running totals
// carried from call to call.
inline void check_device_rounds(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans,
                                const LaunchKernel& launch, int log2_max) {
  const uint64_t seed = test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  DeviceState state;
  std::vector<std::vector<uint8_t>> counters(cases.size());
  std::vector<std::vector<uint64_t>> sizes;
  size_t rounds = 0;
  for (const generator::Plan& p : plans) {
    sizes.push_back(device_sizes(p, log2_max));
    rounds = std::max(rounds, sizes.back().size());
  }
  for (size_t r = 0; r < rounds; ++r)
    for (size_t i = 0; i < cases.size(); ++i) {
      if (r >= sizes[i].size()) continue;
      const uint64_t n = sizes[i][r];
      INFO("scan:\n" << cases[i].spec.to_string());
      INFO("n = " << n << " (call " << state.calls + 1 << " on the shared workspace)");
      const std::string report = run_device_case(cases[i], plans[i], n, rng, launch, state, counters[i]);
      INFO(report);
      CHECK(report.empty());
    }
}

// A logical warp of more than 32 lanes called from a user's kernel whose
// block holds four of them, whatever the scan's own `threads` (here W, the
// default): each thread's rank must be its place in its logical warp, so
// every 64 x 2 elements are scanned on their own (2x2 matrices of signed
// permutations: non-commutative, every product exact; the order of the
// additions may change only the sign of a zero, which == ignores). CUDA and
// OpenCL spellings of the kernel, one check.
inline const char* wide_warp_spec_text() {
  return "type M2 { a: f32, b: f32, c: f32, d: f32 }\n"
         "scan wide { type = M2; combine(x, y) = M2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,\n"
         "  c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = M2 { 1.0, 0.0, 0.0, 1.0 };\n"
         "  level = warp(64); items = 2; mode = both; init = M2 { 0.0, 1.0, -1.0, 0.0 }; }\n";
}

inline std::string wide_warp_kernel(generator::Backend b) {
  const bool cuda = b == generator::Backend::Cuda;
  return std::string(cuda ? "\nextern \"C\" __global__ void wide_user(const wide_T* in, wide_T* inc, wide_T* exc, "
                            "unsigned long long n) {\n  __shared__ wide_temp temp[4];\n"
                            "  const unsigned long long first = ((unsigned long long)blockIdx.x * blockDim.x + "
                            "threadIdx.x) * 2;\n  const int group = threadIdx.x / 64;\n"
                          : "\n__kernel void wide_user(__global const wide_T* in, __global wide_T* inc, "
                            "__global wide_T* exc, ulong n) {\n  __local wide_temp temp[4];\n"
                            "  const ulong first = (ulong)get_global_id(0) * 2;\n"
                            "  const int group = get_local_id(0) / 64;\n") +
         "  wide_T x[2], a[2], b[2];\n"
         "  for (int k = 0; k < 2; ++k) x[k] = first + k < n ? in[first + k] : wide_identity();\n"
         "  wide_inclusive_exclusive(&temp[group], x, a, b);\n"
         "  for (int k = 0; k < 2; ++k)\n"
         "    if (first + k < n) {\n"
         "      inc[first + k] = a[k];\n"
         "      exc[first + k] = b[k];\n"
         "    }\n"
         "}\n";
}

// The checks, with `launch` running wide_warp_kernel from a module of the
// spec's source and that kernel (blocks of 256 threads).
inline void check_wide_warp(const dsl::Spec& spec, const LaunchKernel& launch, std::mt19937_64& rng) {
  const ref::Evaluator ev(spec);
  for (uint64_t n : {uint64_t{1}, uint64_t{127}, uint64_t{512}, uint64_t{1000}}) {
    INFO("n = " << n);
    std::vector<float> m(4 * n);
    for (uint64_t i = 0; i < n; ++i) {
      const float s1 = rng() % 2 ? 1.0f : -1.0f, s2 = rng() % 2 ? 1.0f : -1.0f;
      const bool swap = rng() % 2 != 0;
      const float e[4] = {swap ? 0.0f : s1, swap ? s1 : 0.0f, swap ? s2 : 0.0f, swap ? 0.0f : s2};
      std::copy(e, e + 4, m.begin() + static_cast<std::ptrdiff_t>(4 * i));
    }
    std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(16 * n), std::vector<uint8_t>(16 * n, 0xAB),
                                                 std::vector<uint8_t>(16 * n, 0xAB)};
    std::memcpy(buffers[0].data(), m.data(), 16 * n);
    launch("wide_user", buffers, buffers_then_n(3, n), (n + 511) / 512, 256);
    const auto want = ev.scan(buffers[0].data(), n);
    auto wrong = [n](const std::vector<uint8_t>& got, const std::vector<uint8_t>& ref) {
      std::vector<float> g(4 * n), r(4 * n);
      std::memcpy(g.data(), got.data(), 16 * n);
      std::memcpy(r.data(), ref.data(), 16 * n);
      uint64_t bad = 0;
      for (uint64_t i = 0; i < 4 * n; ++i) bad += g[i] != r[i];
      return bad;
    };
    CHECK(wrong(buffers[1], want.inclusive) == 0);
    CHECK(wrong(buffers[2], want.exclusive) == 0);
  }
}

}  // namespace scangen::test
