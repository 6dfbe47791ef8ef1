// Fused outputs on an OpenCL device (PoCL in CI): the select and partition
// specs of select_sweep.h through Runtime::compile and Scan::run, every
// output against the CPU reference and a plain loop. Without an OpenCL
// platform the tests fail, unless SCANGEN_ALLOW_NO_OPENCL=1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "opencl_test_support.h"
#include "runtime_test_support.h"
#include "scangen/generator/plan.h"
#include "select_sweep.h"

namespace {

using namespace scangen::test::runtime;
namespace sel = scangen::test::select;

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

// The OpenCL side of select_sweep.h's calls.
struct OpenCL {
  scangen::Runtime& rt;
  void run(const scangen::Scan& scan, sel::Call& c) {
    scangen::Scan::OpenCLArgs a;
    a.in = to_device(rt, c.in);
    a.inclusive = to_device(rt, c.inclusive);
    a.exclusive = c.in_place ? a.in : to_device(rt, c.exclusive);
    a.scattered = to_device(rt, c.scattered);
    a.aggregate = to_device(rt, c.aggregate);
    a.running_total = to_device(rt, c.running_total);
    a.n = c.n;
    scan.run(a);
    to_host(rt, a.in, c.in);
    to_host(rt, a.inclusive, c.inclusive);
    if (!c.in_place) to_host(rt, a.exclusive, c.exclusive);
    to_host(rt, a.scattered, c.scattered);
    to_host(rt, a.aggregate, c.aggregate);
    to_host(rt, a.running_total, c.running_total);
  }
};

}  // namespace

// One test's runtime, seed and backend, for one of select_sweep.h's sweeps.
template <class Sweep>
void on_opencl(Sweep&& sweep) {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  OpenCL b{rt};
  sweep(b, rt, rng);
}

TEST_CASE("fused outputs: select and partition on OpenCL match the reference", "[opencl][runtime][select]") {
  on_opencl([](OpenCL& b, scangen::Runtime& rt, std::mt19937_64& rng) { sel::sweep(b, rt, rng); });
}

TEST_CASE("fused outputs: the scan's own results beside them, both modes and in place on OpenCL",
          "[opencl][runtime][select]") {
  on_opencl([](OpenCL& b, scangen::Runtime& rt, std::mt19937_64& rng) { sel::own_results(b, rt, rng); });
}

TEST_CASE("fused outputs of warp and block scans: P_scatter and P_scatter_update on OpenCL",
          "[opencl][runtime][select]") {
  on_opencl([](OpenCL& b, scangen::Runtime& rt, std::mt19937_64& rng) { sel::group_outputs(b, rt, rng); });
}

TEST_CASE("fused outputs: Scan::run refuses a missing, unwanted or aliased scattered buffer",
          "[opencl][runtime][select]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const scangen::Scan sel = rt.compile(sel::spec_text({"u32"}, false, "u32"));
  const scangen::Scan plain = rt.compile("scan plain { type = u32; op = add; }");
  const uint64_t n = 10;
  cl_mem in = to_device(rt, std::vector<uint8_t>(4 * n)), out = to_device(rt, std::vector<uint8_t>(4 * n)),
         count = to_device(rt, std::vector<uint8_t>(4));
  scangen::Scan::OpenCLArgs a;
  a.in = in;
  a.aggregate = count;
  a.n = n;
  CHECK_THROWS_WITH(sel.run(a), Catch::Contains("the scattered output is null"));
  a.scattered = in;
  CHECK_THROWS_WITH(sel.run(a), Catch::Contains("the scattered output is the input"));
  cl_mem small = to_device(rt, std::vector<uint8_t>(4 * n - 1));
  a.scattered = small;
  CHECK_THROWS_WITH(sel.run(a), Catch::Contains("the scattered buffer has 39 bytes"));
  REQUIRE(clReleaseMemObject(small) == CL_SUCCESS);
  scangen::Scan::OpenCLArgs b;
  b.in = in;
  b.inclusive = out;
  b.scattered = out;
  b.n = n;
  CHECK_THROWS_WITH(plain.run(b), Catch::Contains("the spec has no 'scatter(...)'"));
  for (cl_mem m : {in, out, count}) REQUIRE(clReleaseMemObject(m) == CL_SUCCESS);
}
