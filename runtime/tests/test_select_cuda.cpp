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
