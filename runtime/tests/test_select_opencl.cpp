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

void run_one(scangen::Runtime& rt, const scangen::Scan& scan, uint64_t n, sel::Ratio r, bool keep_exclusive,
             std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = sel::input(s, n, r, rng);
  sel::Outputs got = sel::poisoned(s, n, keep_exclusive);
  scangen::Scan::OpenCLArgs a;
  a.in = to_device(rt, in);
  a.exclusive = to_device(rt, got.exclusive);
  a.scattered = to_device(rt, got.scattered);
  a.aggregate = to_device(rt, got.aggregate);
  a.n = n;
  scan.run(a);
  REQUIRE(clReleaseMemObject(a.in) == CL_SUCCESS);
  to_host(rt, a.exclusive, got.exclusive);
  to_host(rt, a.scattered, got.scattered);
  to_host(rt, a.aggregate, got.aggregate);
  sel::check(s, in, n, r, got);
}

}  // namespace

TEST_CASE("fused outputs: select and partition on OpenCL match the reference", "[opencl][runtime][select]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  int k = 0;
  for (const std::string& text : sel::specs()) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : sel::sizes(scan.plan().tile))
      for (sel::Ratio r : sel::ratios()) run_one(rt, scan, n, r, (k++ % 3) == 0, rng);
  }
}

// The pass that writes the fused outputs writes the scan's own results too:
// both of them (mode = both, a non-commutative operator, the inclusive one
// read at every thread's last item), and in place (the input read before
// its element is overwritten).
TEST_CASE("fused outputs: the scan's own results beside them, both modes and in place on OpenCL",
          "[opencl][runtime][select]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  const scangen::Scan both = rt.compile(sel::dense_text());
  const scangen::Scan select = rt.compile(sel::spec_text({"u32"}, false, "u32"));
  for (uint64_t n : sel::sizes(both.plan().tile)) {
    const scangen::dsl::Spec& s = both.spec();
    const std::vector<uint8_t> in = sel::input(s, n, sel::Ratio::Random, rng);
    sel::Outputs got = sel::poisoned(s, n, false);
    std::vector<uint8_t> inc((n + sel::kPad) * s.type.size(), sel::kPoison), exc = inc;
    scangen::Scan::OpenCLArgs a;
    a.in = to_device(rt, in);
    a.inclusive = to_device(rt, inc);
    a.exclusive = to_device(rt, exc);
    a.scattered = to_device(rt, got.scattered);
    a.aggregate = to_device(rt, got.aggregate);
    a.n = n;
    both.run(a);
    REQUIRE(clReleaseMemObject(a.in) == CL_SUCCESS);
    to_host(rt, a.inclusive, inc);
    to_host(rt, a.exclusive, exc);
    to_host(rt, a.scattered, got.scattered);
    to_host(rt, a.aggregate, got.aggregate);
    sel::check_own(s, in, n, inc, exc);
    sel::check(s, in, n, sel::Ratio::Random, got);
  }
  for (uint64_t n : sel::sizes(select.plan().tile)) {
    const scangen::dsl::Spec& s = select.spec();
    const std::vector<uint8_t> in = sel::input(s, n, sel::Ratio::Random, rng);
    sel::Outputs got = sel::poisoned(s, n, false);
    std::vector<uint8_t> io = in;
    scangen::Scan::OpenCLArgs a;
    a.in = to_device(rt, io);
    a.exclusive = a.in;
    a.scattered = to_device(rt, got.scattered);
    a.aggregate = to_device(rt, got.aggregate);
    a.n = n;
    select.run(a);
    to_host(rt, a.in, io);
    to_host(rt, a.scattered, got.scattered);
    to_host(rt, a.aggregate, got.aggregate);
    io.resize(n * s.type.size());  // the spare element is no result
    sel::check_own(s, in, n, {}, io);
    sel::check(s, in, n, sel::Ratio::Random, got);
  }
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
