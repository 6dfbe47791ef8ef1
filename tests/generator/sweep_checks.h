// The scan sweeps' loops, one for every backend's execution test
// (test_scan_cuda.cpp, test_scan_opencl.cpp): the source of a sweep, every
// case at every size against the reference, and the device scans' rounds on
// one shared workspace. Each backend brings its build and its launch.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "operator_sweep.h"
#include "scan_sweep.h"
#include "scangen/generator/emit.h"

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

}  // namespace scangen::test
