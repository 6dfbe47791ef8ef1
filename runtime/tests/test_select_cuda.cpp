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
#include "nvrtc_fused.h"
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

// The CUDA side of select_sweep.h's calls.
struct Cuda {
  void run(const scangen::Scan& scan, sel::Call& c) {
    const CUdeviceptr in = to_device(c.in), inc = to_device(c.inclusive),
                      exc = c.in_place ? in : to_device(c.exclusive), sc = to_device(c.scattered),
                      agg = to_device(c.aggregate), total = to_device(c.running_total);
    scangen::Scan::CudaArgs a;
    a.in = ptr(in);
    a.inclusive = ptr(inc);
    a.exclusive = ptr(exc);
    a.scattered = ptr(sc);
    a.aggregate = ptr(agg);
    a.running_total = ptr(total);
    a.n = c.n;
    scan.run(a);
    CU_CHECK(driver().cuCtxSynchronize());
    to_host(in, c.in);
    to_host(inc, c.inclusive);
    if (!c.in_place) to_host(exc, c.exclusive);
    to_host(sc, c.scattered);
    to_host(agg, c.aggregate);
    to_host(total, c.running_total);
  }
};

}  // namespace

// One test's runtime, seed and backend, for one of select_sweep.h's sweeps.
template <class Sweep>
void on_cuda(Sweep&& sweep) {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  Cuda b;
  sweep(b, rt, rng);
}

TEST_CASE("fused outputs: select and partition on a CUDA GPU match the reference", "[gpu][runtime][select]") {
  on_cuda([](Cuda& b, scangen::Runtime& rt, std::mt19937_64& rng) { sel::sweep(b, rt, rng); });
}

TEST_CASE("fused outputs: the scan's own results beside them, both modes and in place on a CUDA GPU",
          "[gpu][runtime][select]") {
  on_cuda([](Cuda& b, scangen::Runtime& rt, std::mt19937_64& rng) { sel::own_results(b, rt, rng); });
}

TEST_CASE("fused outputs of warp and block scans: P_scatter and P_scatter_update on a CUDA GPU",
          "[gpu][runtime][select]") {
  on_cuda([](Cuda& b, scangen::Runtime& rt, std::mt19937_64& rng) { sel::group_outputs(b, rt, rng); });
}

TEST_CASE("fused outputs: select and partition compile with NVRTC for sm_90", "[nvrtc][select]") {
  std::vector<std::string> texts = sel::specs();
  for (const std::string& t : sel::group_texts()) texts.push_back(t);  // warp and block level: P_scatter
  texts.push_back(sel::group_alloc_text());                            // P_scatter_update
  int raw_tiles = 0;
  for (const std::string& text : texts) {
    raw_tiles += scangen::test::runtime::compile_fused_for_sm90("select.scan", text);
  }
  CHECK(raw_tiles > 0);
}
