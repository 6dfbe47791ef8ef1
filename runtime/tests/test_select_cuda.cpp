// Fused outputs on a CUDA GPU: the select and partition specs of
// select_sweep.h through Runtime::compile and Scan::run, every output against
// the CPU reference and a plain loop. Exits 4 (skipped) where there is no
// driver or no GPU (scripts/gpu-check runs scangen_runtime_cuda_tests). Their
// CUDA text compiles with NVRTC for sm_90 without a warning (label nvrtc, no
// GPU needed).
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "nvrtc_program.h"
#include "runtime_test_support.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "select_sweep.h"

namespace {

using scangen::test::cuda::driver;
using namespace scangen::test::runtime;
namespace sel = scangen::test::select;

// A device copy of `host` (null for an empty one: an output not asked for).
CUdeviceptr to_device(const std::vector<uint8_t>& host) {
  if (host.empty()) return 0;
  CUdeviceptr p = 0;
  CU_CHECK(driver().cuMemAlloc(&p, host.size()));
  CU_CHECK(driver().cuMemcpyHtoD(p, host.data(), host.size()));
  return p;
}

void to_host(CUdeviceptr p, std::vector<uint8_t>& host) {
  if (!p) return;
  CU_CHECK(driver().cuMemcpyDtoH(host.data(), p, host.size()));
  CU_CHECK(driver().cuMemFree(p));
}

void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

void run_one(const scangen::Scan& scan, uint64_t n, sel::Ratio r, bool keep_exclusive, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = sel::input(s, n, r, rng);
  sel::Outputs got = sel::poisoned(s, n, keep_exclusive);
  const CUdeviceptr d_in = to_device(in), exc = to_device(got.exclusive), sc = to_device(got.scattered),
                    agg = to_device(got.aggregate);
  scangen::Scan::CudaArgs a;
  a.in = ptr(d_in);
  a.exclusive = ptr(exc);
  a.scattered = ptr(sc);
  a.aggregate = ptr(agg);
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  CU_CHECK(driver().cuMemFree(d_in));
  to_host(exc, got.exclusive);
  to_host(sc, got.scattered);
  to_host(agg, got.aggregate);
  sel::check(s, in, n, r, got);
}

}  // namespace

TEST_CASE("fused outputs: select and partition on a CUDA GPU match the reference", "[gpu][runtime][select]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  int k = 0;
  for (const std::string& text : sel::specs()) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : sel::sizes(scan.plan().tile))
      for (sel::Ratio r : sel::ratios()) run_one(scan, n, r, (k++ % 3) == 0, rng);
  }
}

// The pass that writes the fused outputs writes the scan's own results too:
// both of them (mode = both, a non-commutative operator, the inclusive one
// read at every thread's last item), and in place (the input read before
// its element is overwritten).
TEST_CASE("fused outputs: the scan's own results beside them, both modes and in place on a CUDA GPU",
          "[gpu][runtime][select]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
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
    const CUdeviceptr d_in = to_device(in), d_inc = to_device(inc), d_exc = to_device(exc),
                      sc = to_device(got.scattered), agg = to_device(got.aggregate);
    scangen::Scan::CudaArgs a;
    a.in = ptr(d_in);
    a.inclusive = ptr(d_inc);
    a.exclusive = ptr(d_exc);
    a.scattered = ptr(sc);
    a.aggregate = ptr(agg);
    a.n = n;
    both.run(a);
    CU_CHECK(driver().cuCtxSynchronize());
    CU_CHECK(driver().cuMemFree(d_in));
    to_host(d_inc, inc);
    to_host(d_exc, exc);
    to_host(sc, got.scattered);
    to_host(agg, got.aggregate);
    sel::check_own(s, in, n, inc, exc);
    sel::check(s, in, n, sel::Ratio::Random, got);
  }
  for (uint64_t n : sel::sizes(select.plan().tile)) {
    const scangen::dsl::Spec& s = select.spec();
    const std::vector<uint8_t> in = sel::input(s, n, sel::Ratio::Random, rng);
    sel::Outputs got = sel::poisoned(s, n, false);
    std::vector<uint8_t> io = in;
    const CUdeviceptr d_io = to_device(io), sc = to_device(got.scattered), agg = to_device(got.aggregate);
    scangen::Scan::CudaArgs a;
    a.in = ptr(d_io);
    a.exclusive = ptr(d_io);
    a.scattered = ptr(sc);
    a.aggregate = ptr(agg);
    a.n = n;
    select.run(a);
    CU_CHECK(driver().cuCtxSynchronize());
    to_host(d_io, io);
    to_host(sc, got.scattered);
    to_host(agg, got.aggregate);
    io.resize(n * s.type.size());  // the spare element is no result
    sel::check_own(s, in, n, {}, io);
    sel::check(s, in, n, sel::Ratio::Random, got);
  }
}

TEST_CASE("fused outputs: select and partition compile with NVRTC for sm_90", "[nvrtc][select]") {
  for (const std::string& text : sel::specs()) {
    scangen::dsl::Document doc = scangen::dsl::load("select.scan", text);
    INFO(doc.diagnostics().render());
    REQUIRE(doc.ok());
    const scangen::dsl::Spec& spec = doc.specs().at(0);
    const scangen::generator::Plan plan = scangen::generator::make_plan(spec, {scangen::Backend::Cuda, 90});
    const std::string source = scangen::generator::emit(plan);
    const scangen::nvrtc_support::Compiled c = scangen::nvrtc_support::compile(source, spec.name + ".cu", "sm_90");
    INFO(spec.name << "\n" << c.log << c.builtins);
    REQUIRE(c.status == NVRTC_SUCCESS);
    CHECK(c.log.find("warning") == std::string::npos);
  }
}
