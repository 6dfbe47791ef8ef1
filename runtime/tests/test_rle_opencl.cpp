// Neighbours and named fused outputs on an OpenCL device (PoCL in CI): the
// run-length encodings and the neighbour differences of rle_sweep.h through
// Runtime::compile and Scan::run (OpenCLArgs::named_scattered), every output
// against the CPU reference and a plain loop; the runtime's refusals of a
// missing, unwanted or aliased named output and of an in-place call that
// reads neighbours. Without an OpenCL platform the tests fail, unless
// SCANGEN_ALLOW_NO_OPENCL=1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "opencl_test_support.h"
#include "rle_sweep.h"
#include "runtime_test_support.h"
#include "scangen/generator/plan.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::runtime;
namespace rle = scangen::test::rle;

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

void run_one(scangen::Runtime& rt, const scangen::Scan& scan, uint64_t n, rle::Runs r, bool keep_results,
             std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = rle::input(s, n, r, rng);
  rle::Outputs got = rle::poisoned(s, n, keep_results);
  scangen::Scan::OpenCLArgs a;
  a.in = to_device(rt, in);
  a.inclusive = to_device(rt, got.inclusive);
  a.exclusive = to_device(rt, got.exclusive);
  a.aggregate = to_device(rt, got.aggregate);
  if (!got.fused.empty()) a.scattered = to_device(rt, got.fused[0]);
  for (size_t k = 1; k < got.fused.size(); ++k) a.named_scattered[k - 1] = to_device(rt, got.fused[k]);
  a.n = n;
  scan.run(a);
  REQUIRE(clReleaseMemObject(a.in) == CL_SUCCESS);
  to_host(rt, a.inclusive, got.inclusive);
  to_host(rt, a.exclusive, got.exclusive);
  to_host(rt, a.aggregate, got.aggregate);
  if (!got.fused.empty()) to_host(rt, a.scattered, got.fused[0]);
  for (size_t k = 1; k < got.fused.size(); ++k) to_host(rt, a.named_scattered[k - 1], got.fused[k]);
  rle::check(s, in, n, r, got);
}

}  // namespace

TEST_CASE("neighbours: run-length encoding and neighbour differences on OpenCL match the reference",
          "[opencl][runtime][rle]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  int k = 0;
  for (const std::string& text : scangen::test::sample_texts(rle::specs(), "run-length encoding (OpenCL)")) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : rle::sizes(scan.plan().tile))
      for (rle::Runs r : rle::patterns()) run_one(rt, scan, n, r, (k++ % 3) == 0, rng);
  }
}

TEST_CASE("neighbours: Scan::run refuses a missing, unwanted or aliased named output, and an in-place call",
          "[opencl][runtime][rle]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  scangen::Scan enc = rt.compile(rle::rle_text("i32", "u32"));
  const std::vector<uint8_t> bytes(4096 * 8, 0);
  cl_mem in = to_device(rt, bytes), a1 = to_device(rt, bytes), a2 = to_device(rt, bytes), agg = to_device(rt, bytes),
         small = to_device(rt, std::vector<uint8_t>(39, 0));
  scangen::Scan::OpenCLArgs a;
  a.in = in;
  a.scattered = a1;
  a.aggregate = agg;
  a.n = 100;
  CHECK_THROWS_WITH(enc.run(a), Catch::Contains("named_scattered[0] ('lengths') output is null"));
  a.named_scattered[0] = in;
  CHECK_THROWS_WITH(enc.run(a), Catch::Contains("the lengths output is the input"));
  a.named_scattered[0] = small;
  CHECK_THROWS_WITH(enc.run(a), Catch::Contains("the lengths buffer has 39 bytes"));
  a.named_scattered[0] = a2;
  a.named_scattered[1] = a2;
  CHECK_THROWS_WITH(enc.run(a), Catch::Contains("named_scattered[1] was given, but the spec has 1 named"));
  a.named_scattered[1] = nullptr;
  CHECK_NOTHROW(enc.run(a));
  // prev(v) in convert: another tile's results would overwrite the neighbours it reads.
  scangen::Scan diff = rt.compile("scan diff { type = u32; convert(v) = v - prev(v); op = add; }");
  scangen::Scan::OpenCLArgs b;
  b.in = in;
  b.inclusive = in;
  b.n = 100;
  CHECK_THROWS_WITH(diff.run(b), Catch::Contains("an output is the input, but the spec reads prev(...)"));
  b.inclusive = a1;
  CHECK_NOTHROW(diff.run(b));
  REQUIRE(clFinish(rt.opencl_queue()) == CL_SUCCESS);
  for (cl_mem m : {in, a1, a2, agg, small}) clReleaseMemObject(m);
}
