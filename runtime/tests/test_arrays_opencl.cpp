// Input arrays on an OpenCL device (PoCL in CI): the specs of arrays_sweep.h
// through Runtime::compile and Scan::run, every output against the CPU
// reference; Scan::run's checks of the arrays. Without an OpenCL platform the
// tests fail, unless SCANGEN_ALLOW_NO_OPENCL=1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "arrays_sweep.h"
#include "opencl_test_support.h"
#include "runtime_test_support.h"
#include "scangen/generator/plan.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::runtime;
namespace arr = scangen::test::arrays;

// A buffer holding `host` (null for an empty one: an output not asked for).
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
  const std::vector<std::vector<uint8_t>> in = arr::inputs(s, n, rng);
  arr::Outputs got = arr::poisoned(s, n);
  scangen::Scan::OpenCLArgs a;
  // An empty array (n = 0) still gets a buffer: a null one is refused only when n > 0.
  for (const auto& array : in) a.inputs.push_back(array.empty() ? nullptr : to_device(rt, array));
  a.inclusive = to_device(rt, got.inclusive);
  a.exclusive = to_device(rt, got.exclusive);
  a.aggregate = to_device(rt, got.aggregate);
  a.n = n;
  scan.run(a);
  for (cl_mem m : a.inputs)
    if (m) REQUIRE(clReleaseMemObject(m) == CL_SUCCESS);
  to_host(rt, a.inclusive, got.inclusive);
  to_host(rt, a.exclusive, got.exclusive);
  to_host(rt, a.aggregate, got.aggregate);
  arr::check(s, in, n, got);
}

}  // namespace

TEST_CASE("input arrays: struct-of-arrays and index-only scans on OpenCL match the reference",
          "[opencl][runtime][arrays]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const std::string& text : scangen::test::sample_texts(arr::specs(), "input arrays (OpenCL)")) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : arr::sizes(scan.plan().tile)) run_one(rt, scan, n, rng);
  }
}

TEST_CASE("input arrays: Scan::run refuses a missing, extra, short, unwanted or overwritten array",
          "[opencl][runtime][arrays]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const scangen::Scan soa = rt.compile(arr::specs().front());
  const scangen::Scan plain = rt.compile("scan plain { type = u32; op = add; }");
  const uint64_t n = 10;
  cl_mem a = to_device(rt, std::vector<uint8_t>(4 * n)), b = to_device(rt, std::vector<uint8_t>(4 * n)),
         out = to_device(rt, std::vector<uint8_t>(8 * n)), small = to_device(rt, std::vector<uint8_t>(4 * n - 1));
  scangen::Scan::OpenCLArgs args;
  args.inclusive = out;
  args.n = n;
  args.inputs = {a};
  CHECK_THROWS_WITH(soa.run(args), Catch::Contains("the spec reads 2 input arrays (inputs), but 1 input arrays"));
  args.inputs = {a, nullptr};
  CHECK_THROWS_WITH(soa.run(args), Catch::Contains("input array 1 ('b' of convert) is null"));
  args.inputs = {a, small};
  CHECK_THROWS_WITH(soa.run(args), Catch::Contains("the input array 'b' buffer has 39 bytes"));
  args.inputs = {a, b};
  args.inclusive = b;
  CHECK_THROWS_WITH(soa.run(args), Catch::Contains("an output is input array 1"));
  args.inclusive = out;
  args.in = a;
  CHECK_THROWS_WITH(soa.run(args), Catch::Contains("an input 'in' was given, but the spec reads 2 input arrays"));
  scangen::Scan::OpenCLArgs p;
  p.in = a;
  p.inclusive = b;
  p.inputs = {a};
  p.n = n;
  CHECK_THROWS_WITH(plain.run(p), Catch::Contains("the spec reads one array, 'in'"));
  for (cl_mem m : {a, b, out, small}) REQUIRE(clReleaseMemObject(m) == CL_SUCCESS);
}
