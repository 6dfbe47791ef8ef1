// Every sweep spec's operator, compiled by NVRTC and run elementwise on a
// CUDA GPU, gives the CPU reference's results, as on OpenCL.
//
// libcuda is opened with dlopen, so the test builds and starts anywhere; with
// no driver or no GPU it exits with code 4, which CTest reports as skipped.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "operator_sweep.h"

namespace {

using scangen::generator::Backend;
using scangen::test::SweepSpec;

using namespace scangen::test::cuda;

// One module of every spec's test kernels, compiled for the GPU's architecture.
std::string sweep_source(const std::vector<SweepSpec>& specs) {
  std::string source;
  for (const SweepSpec& s : specs) source += scangen::test::test_program(s.spec, Backend::Cuda);
  return source;
}

class SweepModule : public Module {
 public:
  explicit SweepModule(const std::vector<SweepSpec>& specs) : Module(sweep_source(specs)) {}

  // A scangen::test::RunKernel.
  std::vector<uint8_t> run(const std::string& kernel, const std::vector<const std::vector<uint8_t>*>& inputs,
                           size_t out_bytes, size_t n, bool pass_n) {
    Driver& d = driver();
    const CUfunction fn = function(kernel);
    std::vector<CUdeviceptr> buffers;
    auto release = [&] {
      for (CUdeviceptr p : buffers) d.cuMemFree(p);
    };
    std::vector<uint8_t> out(out_bytes, 0xAB);
    std::vector<const std::vector<uint8_t>*> all = inputs;
    all.push_back(&out);
    for (const auto* host : all) {
      CUdeviceptr p = 0;
      CU_CHECK(d.cuMemAlloc(&p, host->size() + 1));  // + 1: never zero bytes
      buffers.push_back(p);
      CU_CHECK(d.cuMemcpyHtoD(p, host->data(), host->size()));
    }
    std::vector<void*> args;
    for (CUdeviceptr& p : buffers) args.push_back(&p);
    unsigned int count = static_cast<unsigned int>(n);
    if (pass_n) args.push_back(&count);
    const unsigned int block = 128;
    const unsigned int grid = static_cast<unsigned int>((n + block - 1) / block);
    CU_CHECK(d.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, nullptr, args.data(), nullptr));
    CU_CHECK(d.cuCtxSynchronize());
    CU_CHECK(d.cuMemcpyDtoH(out.data(), buffers.back(), out.size()));
    release();
    return out;
  }
};

void sweep(const std::vector<SweepSpec>& specs) {
  Driver& d = driver();
  INFO("GPU: " << d.name << " (sm_" << d.major << d.minor << ")");
  SweepModule module(specs);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  auto run = [&](const std::string& kernel, const std::vector<const std::vector<uint8_t>*>& inputs, size_t out_bytes,
                 size_t n, bool pass_n) { return module.run(kernel, inputs, out_bytes, n, pass_n); };
  for (const SweepSpec& s : specs) {
    INFO("spec '" << s.spec.name << "' from " << s.spec.file);
    const std::string report = scangen::test::run_and_compare(s, 100003, rng, run);  // 100003: no block multiple
    INFO(report);
    CHECK(report.empty());
  }
}

}  // namespace

TEST_CASE("every example's operator runs on a CUDA GPU as the reference computes it", "[gpu]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  sweep(scangen::test::example_specs());
}

TEST_CASE("every type, operator, built-in and conversion runs on a CUDA GPU as the reference computes it", "[gpu]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  sweep(scangen::test::coverage_specs());
}
