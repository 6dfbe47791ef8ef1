// Fused inputs on an OpenCL device (PoCL in CI): the specs of fused_sweep.h
// through Runtime::compile and Scan::run, every output against the CPU
// reference. Without an OpenCL platform the tests fail, unless
// SCANGEN_ALLOW_NO_OPENCL=1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "fused_sweep.h"
#include "opencl_test_support.h"
#include "runtime_test_support.h"
#include "scangen/generator/plan.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::runtime;
namespace fused = scangen::test::fused;

// A buffer holding `host` (null for an empty one: an output the spec lacks).
cl_mem to_device(scangen::Runtime& rt, const std::vector<uint8_t>& host) {
  if (host.empty()) return nullptr;
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size(),
                            const_cast<uint8_t*>(host.data()), &err);
  REQUIRE(err == CL_SUCCESS);
  return m;
}

void to_host(scangen::Runtime& rt, cl_mem m, std::vector<uint8_t>& host) {
  if (!m) return;
  REQUIRE(clEnqueueReadBuffer(rt.opencl_queue(), m, CL_TRUE, 0, host.size(), host.data(), 0, nullptr, nullptr) ==
          CL_SUCCESS);
  REQUIRE(clReleaseMemObject(m) == CL_SUCCESS);
}

void run_one(scangen::Runtime& rt, const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = fused::random_input(s, n, rng);
  fused::Outputs got = fused::poisoned(s, n);
  scangen::Scan::OpenCLArgs a;
  a.in = to_device(rt, in);
  a.inclusive = to_device(rt, got.inclusive);
  a.exclusive = to_device(rt, got.exclusive);
  a.aggregate = to_device(rt, got.aggregate);
  a.n = n;
  scan.run(a);
  REQUIRE(clReleaseMemObject(a.in) == CL_SUCCESS);
  to_host(rt, a.inclusive, got.inclusive);
  to_host(rt, a.exclusive, got.exclusive);
  to_host(rt, a.aggregate, got.aggregate);
  fused::check(s, in, n, got);
}

}  // namespace

TEST_CASE("index-aware convert: device scans on OpenCL match the reference", "[opencl][runtime][fused]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const std::string& text : scangen::test::sample_texts(fused::index_specs(), "index-aware convert (OpenCL)")) {
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : fused::sizes(scan.plan().tile)) run_one(rt, scan, n, rng);
  }
}
