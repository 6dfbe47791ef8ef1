// Neighbours and named fused outputs on a CUDA GPU: the run-length encodings
// and the neighbour differences of rle_sweep.h through Runtime::compile and
// Scan::run (CudaArgs::named_scattered), every output against the CPU
// reference and a plain loop. Exits 4 (skipped) where there is no driver or
// no GPU (scripts/gpu-check runs scangen_runtime_cuda_tests). Their CUDA text
// compiles with NVRTC for sm_90 without a warning (label nvrtc, no GPU needed).
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "nvrtc_fused.h"
#include "nvrtc_program.h"
#include "rle_sweep.h"
#include "runtime_test_support.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"

namespace {

using scangen::test::cuda::driver;
using namespace scangen::test::runtime;
namespace rle = scangen::test::rle;

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

void run_one(const scangen::Scan& scan, uint64_t n, rle::Runs r, bool keep_results, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = rle::input(s, n, r, rng);
  rle::Outputs got = rle::poisoned(s, n, keep_results);
  const CUdeviceptr d_in = to_device(in), inc = to_device(got.inclusive), exc = to_device(got.exclusive),
                    agg = to_device(got.aggregate);
  std::vector<CUdeviceptr> fused;
  for (const std::vector<uint8_t>& f : got.fused) fused.push_back(to_device(f));
  scangen::Scan::CudaArgs a;
  a.in = ptr(d_in);
  a.inclusive = ptr(inc);
  a.exclusive = ptr(exc);
  a.aggregate = ptr(agg);
  if (!fused.empty()) a.scattered = ptr(fused[0]);
  for (size_t k = 1; k < fused.size(); ++k) a.named_scattered[k - 1] = ptr(fused[k]);
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  CU_CHECK(driver().cuMemFree(d_in));
  to_host(inc, got.inclusive);
  to_host(exc, got.exclusive);
  to_host(agg, got.aggregate);
  for (size_t k = 0; k < fused.size(); ++k) to_host(fused[k], got.fused[k]);
  rle::check(s, in, n, r, got);
}

}  // namespace

TEST_CASE("neighbours: run-length encoding and neighbour differences on a CUDA GPU match the reference",
          "[gpu][runtime][rle]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  int k = 0;
  for (const std::string& text : rle::specs()) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : rle::sizes(scan.plan().tile))
      for (rle::Runs r : rle::patterns()) run_one(scan, n, r, (k++ % 3) == 0, rng);
  }
}

TEST_CASE("neighbours: run-length encoding and neighbour differences compile with NVRTC for sm_90", "[nvrtc][rle]") {
  int raw_tiles = 0;
  for (const std::string& text : rle::specs()) {
    raw_tiles += scangen::test::runtime::compile_fused_for_sm90("rle.scan", text);
  }
  CHECK(raw_tiles > 0);
}
