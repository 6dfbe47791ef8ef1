// Input arrays on a CUDA GPU: the specs of arrays_sweep.h through
// Runtime::compile and Scan::run, every output against the CPU reference,
// with the arrays misaligned by an element too, all or the last alone (the
// loads' element-by-element path, and arrays one after another). Exits 4 (skipped) where there is no driver or no GPU
// (scripts/gpu-check runs scangen_runtime_cuda_tests). Their CUDA text
// compiles with NVRTC for sm_90 without a warning (label nvrtc, no GPU needed).
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "arrays_sweep.h"
#include "cuda_support.h"
#include "nvrtc_program.h"
#include "runtime_test_support.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"

namespace {

using scangen::test::cuda::driver;
using namespace scangen::test::runtime;
namespace arr = scangen::test::arrays;

// A device copy of `host` at byte `offset` of its allocation (0 for an empty one).
CUdeviceptr to_device(const std::vector<uint8_t>& host, size_t offset = 0) {
  if (host.empty()) return 0;
  CUdeviceptr p = 0;
  CU_CHECK(driver().cuMemAlloc(&p, host.size() + offset));
  CU_CHECK(driver().cuMemcpyHtoD(p + offset, host.data(), host.size()));
  return p + offset;
}

void to_host(CUdeviceptr p, std::vector<uint8_t>& host) {
  if (!p) return;
  CU_CHECK(driver().cuMemcpyDtoH(host.data(), p, host.size()));
  CU_CHECK(driver().cuMemFree(p));
}

void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

// `misalign`: 0 none, 1 each array one element past a 16-byte boundary, 2
// the last array alone (a full tile's arrays then go one after another).
void run_one(const scangen::Scan& scan, uint64_t n, int misalign, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  INFO("misaligned arrays: " << (misalign == 0 ? "none" : misalign == 1 ? "all" : "the last"));
  const std::vector<std::vector<uint8_t>> in = arr::inputs(s, n, rng);
  arr::Outputs got = arr::poisoned(s, n);
  std::vector<CUdeviceptr> arrays;
  std::vector<size_t> offsets;
  scangen::Scan::CudaArgs a;
  for (size_t k = 0; k < in.size(); ++k) {
    const bool off = misalign == 1 || (misalign == 2 && k + 1 == in.size());
    offsets.push_back(off ? (*s.input_arrays)[k].size() : 0);
    arrays.push_back(to_device(in[k], offsets.back()));
    a.inputs.push_back(ptr(arrays.back()));
  }
  const CUdeviceptr inc = to_device(got.inclusive), exc = to_device(got.exclusive), agg = to_device(got.aggregate);
  a.inclusive = ptr(inc);
  a.exclusive = ptr(exc);
  a.aggregate = ptr(agg);
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  for (size_t k = 0; k < arrays.size(); ++k)
    if (arrays[k]) CU_CHECK(driver().cuMemFree(arrays[k] - offsets[k]));
  to_host(inc, got.inclusive);
  to_host(exc, got.exclusive);
  to_host(agg, got.aggregate);
  arr::check(s, in, n, got);
}

}  // namespace

TEST_CASE("input arrays: struct-of-arrays and index-only scans on a CUDA GPU match the reference",
          "[gpu][runtime][arrays]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const std::string& text : arr::specs()) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : arr::sizes(scan.plan().tile))
      for (int misalign : {0, 1, 2}) run_one(scan, n, misalign, rng);
  }
}

TEST_CASE("input arrays: the specs compile with NVRTC for sm_90, their f32 arrays in 16-byte words",
          "[nvrtc][arrays]") {
  for (const std::string& text : arr::specs()) {
    scangen::dsl::Document doc = scangen::dsl::load("arrays.scan", text);
    INFO(doc.diagnostics().render());
    REQUIRE(doc.ok());
    const scangen::dsl::Spec& spec = doc.specs().at(0);
    const scangen::generator::Plan plan = scangen::generator::make_plan(spec, {scangen::Backend::Cuda, 90});
    if (spec.name == "soa_affine")
      for (const auto& array : plan.arrays) CHECK(array.words > 0);
    const std::string source = scangen::generator::emit(plan);
    const scangen::nvrtc_support::Compiled c = scangen::nvrtc_support::compile(source, spec.name + ".cu", "sm_90");
    INFO(spec.name << "\n" << c.log << c.builtins);
    REQUIRE(c.status == NVRTC_SUCCESS);
    CHECK(c.log.find("warning") == std::string::npos);
  }
}
