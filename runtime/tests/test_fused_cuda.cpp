// Fused inputs on a CUDA GPU: the specs of fused_sweep.h through
// Runtime::compile and Scan::run, every output against the CPU reference.
// Exits 4 (skipped) where there is no driver or no GPU (scripts/gpu-check run
// scangen_runtime_cuda_tests "[fused]").
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "fused_sweep.h"
#include "runtime_test_support.h"
#include "scangen/generator/plan.h"

namespace {

using scangen::test::cuda::driver;
using namespace scangen::test::runtime;
namespace fused = scangen::test::fused;

// A device copy of `host` (null for an empty one: an output the spec lacks).
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

void run_one(const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = fused::random_input(s, n, rng);
  fused::Outputs got = fused::poisoned(s, n);
  const CUdeviceptr d_in = to_device(in), inc = to_device(got.inclusive), exc = to_device(got.exclusive),
                    agg = to_device(got.aggregate);
  scangen::Scan::CudaArgs a;
  a.in = ptr(d_in);
  a.inclusive = ptr(inc);
  a.exclusive = ptr(exc);
  a.aggregate = ptr(agg);
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  CU_CHECK(driver().cuMemFree(d_in));
  to_host(inc, got.inclusive);
  to_host(exc, got.exclusive);
  to_host(agg, got.aggregate);
  fused::check(s, in, n, got);
}

}  // namespace

TEST_CASE("index-aware convert: device scans on a CUDA GPU match the reference", "[gpu][runtime][fused]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const std::string& text : fused::index_specs()) {
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : fused::sizes(scan.plan().tile)) run_one(scan, n, rng);
  }
}
