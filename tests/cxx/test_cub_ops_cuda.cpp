// The CUB-style functors of cub_ops.h end to end on a CUDA GPU: the specs
// cub_ops.scan imports, frozen at build time (freeze_specs, as the C++
// front end resolved them: the GPU machine has no Clang), compiled by the
// runtime and run on random inputs of awkward sizes into poisoned outputs,
// checked against the CPU reference. Exits 4 (skipped), saying so, where
// there is no CUDA driver or GPU; scripts/gpu-check runs it on one.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <vector>

#include "cub_ops_frozen.h"
#include "cub_ops_sweep.h"
#include "cuda_support.h"
#include "runtime_test_support.h"

namespace {

using namespace scangen::test::cub;
using scangen::test::cuda::driver;

struct DeviceBuffer {
  CUdeviceptr p = 0;
  explicit DeviceBuffer(size_t bytes) { CU_CHECK(driver().cuMemAlloc(&p, bytes)); }
  ~DeviceBuffer() { driver().cuMemFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return reinterpret_cast<void*>(p); }
};

void run_and_check(const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  const std::vector<uint8_t> in = inputs(s, n, rng);
  std::vector<uint8_t> out(n * s.type.size() + kGuard);
  DeviceBuffer d_in(in.size()), d_out(out.size());
  CU_CHECK(driver().cuMemcpyHtoD(d_in.p, in.data(), in.size()));
  CU_CHECK(driver().cuMemsetD8(d_out.p, kPoison, out.size()));
  scangen::Scan::CudaArgs a;
  a.in = d_in.get();
  (s.has_inclusive() ? a.inclusive : a.exclusive) = d_out.get();
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  CU_CHECK(driver().cuMemcpyDtoH(out.data(), d_out.p, out.size()));
  check(s, in, n, out);
}

}  // namespace

TEST_CASE("CUB-style functors imported from C++ run on a CUDA GPU against the reference", "[gpu][cxx]") {
  INFO("GPU: " << driver().name);
  scangen::test::runtime::TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  REQUIRE(rt.backend() == scangen::Backend::Cuda);
  const uint64_t s0 = scangen::test::runtime::seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const char* text : scangen::test::cxx::kFrozenSpecs) {
    const scangen::Scan scan = rt.compile(text);
    INFO("scan '" << scan.spec().name << "'");
    for (uint64_t n : sizes(scan, (1ull << 22) + 3)) run_and_check(scan, n, rng);
  }
}
