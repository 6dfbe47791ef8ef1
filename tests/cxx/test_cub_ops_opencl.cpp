// The CUB-style functors of cub_ops.h end to end on OpenCL (PoCL in CI):
// the specs cub_ops.scan imports through the C++ front end, frozen at build
// time (freeze_specs; test_cub_ops.cpp checks they are the import's), each
// compiled by the runtime and run on random inputs of awkward sizes into
// poisoned outputs, checked against the CPU reference. The front end is not
// loaded here: Clang 14's LLVM and PoCL's own LLVM in one process crash
// PoCL's kernel build. Without an OpenCL platform the test fails, unless
// SCANGEN_ALLOW_NO_OPENCL=1.
#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "cub_ops_frozen.h"
#include "cub_ops_sweep.h"
#include "runtime_test_support.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::cub;
using scangen::test::runtime::seed;

bool have_opencl() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) == CL_SUCCESS && n > 0) return true;
  const char* allow = std::getenv("SCANGEN_ALLOW_NO_OPENCL");
  if (allow && std::string(allow) == "1") {
    WARN("no OpenCL platform: skipped because SCANGEN_ALLOW_NO_OPENCL=1");
    return false;
  }
  FAIL("no OpenCL platform (install PoCL, or set SCANGEN_ALLOW_NO_OPENCL=1 to skip)");
  return false;
}

cl_mem buffer(scangen::Runtime& rt, const std::vector<uint8_t>& host) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size(),
                            const_cast<uint8_t*>(host.data()), &err);
  REQUIRE(err == CL_SUCCESS);
  return m;
}

void run_and_check(scangen::Runtime& rt, const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = inputs(s, n, rng);
  std::vector<uint8_t> out(n * s.type.size() + kGuard, kPoison);
  cl_mem d_in = buffer(rt, in), d_out = buffer(rt, out);
  scangen::Scan::OpenCLArgs a;
  a.in = d_in;
  (s.has_inclusive() ? a.inclusive : a.exclusive) = d_out;
  a.n = n;
  scan.run(a);
  const cl_int err =
      clEnqueueReadBuffer(rt.opencl_queue(), d_out, CL_TRUE, 0, out.size(), out.data(), 0, nullptr, nullptr);
  clReleaseMemObject(d_in);
  clReleaseMemObject(d_out);
  REQUIRE(err == CL_SUCCESS);
  check(s, in, n, out);
}

}  // namespace

TEST_CASE("CUB-style functors imported from C++ run on OpenCL against the reference", "[opencl][cxx]") {
  if (!have_opencl()) return;
  scangen::test::runtime::TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  std::vector<std::string> texts;
  for (const char* text : scangen::test::cxx::kFrozenSpecs) texts.emplace_back(text);
  for (const std::string& text : scangen::test::sample_texts(std::move(texts), "CUB-style functors (OpenCL)")) {
    const scangen::Scan scan = rt.compile(text);
    INFO("scan '" << scan.spec().name << "' on " << rt.device_name());
    for (uint64_t n : sizes(scan, 300007)) run_and_check(rt, scan, n, rng);
  }
}
