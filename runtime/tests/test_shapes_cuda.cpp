// shape = rows and shape = strided on CUDA: the sweep of shape_sweep.h
// through the runtime on a GPU (label gpu: scripts/gpu-check; skipped, exit
// 4, where there is no driver or no GPU), and every sweep spec compiled by
// NVRTC for sm_90 without a warning (label nvrtc, no GPU needed).
#include <catch2/catch.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "nvrtc_program.h"
#include "runtime_test_support.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "shape_sweep.h"

namespace {

using scangen::test::cuda::driver;
using namespace scangen::test::runtime;
namespace shapes = scangen::test::shapes;

struct Cuda {
  void* upload(const std::vector<uint8_t>& host) {
    if (host.empty()) return nullptr;
    CUdeviceptr p = 0;
    CU_CHECK(driver().cuMemAlloc(&p, host.size()));
    CU_CHECK(driver().cuMemcpyHtoD(p, host.data(), host.size()));
    return reinterpret_cast<void*>(p);
  }
  std::vector<uint8_t> download(void* p, size_t bytes) {
    CU_CHECK(driver().cuCtxSynchronize());
    std::vector<uint8_t> out(bytes);
    CU_CHECK(driver().cuMemcpyDtoH(out.data(), reinterpret_cast<CUdeviceptr>(p), bytes));
    return out;
  }
  void release(void* p) {
    if (p) driver().cuMemFree(reinterpret_cast<CUdeviceptr>(p));
  }
  void run(const scangen::Scan& scan, void* in, void* inc, void* exc, void* agg, const shapes::Case& c) {
    scangen::Scan::CudaArgs a;
    a.in = in;
    a.inclusive = inc;
    a.exclusive = exc;
    a.aggregate = agg;
    shapes::set_shape(a, c);
    scan.run(a);
  }
};

void cuda_sweep(const std::string& shape, bool reverse = false) {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  Cuda b;
  shapes::sweep(b, rt, shape, rng, reverse);
}

}  // namespace

TEST_CASE("shape = rows with reverse = true scans every row from its last element (CUDA)", "[gpu][shapes]") {
  cuda_sweep("rows", true);
}

TEST_CASE("shape = strided with reverse = true scans every line from its last element (CUDA)", "[gpu][shapes]") {
  cuda_sweep("strided", true);
}

TEST_CASE("shape = rows scans every row on its own (CUDA)", "[gpu][shapes]") { cuda_sweep("rows"); }

TEST_CASE("shape = strided scans every line along the axis on its own (CUDA)", "[gpu][shapes]") {
  cuda_sweep("strided");
}

TEST_CASE("shape = strided: tiles of 32 lines side by side, in long chains and 3-d arrays (CUDA)", "[gpu][shapes]") {
  cuda_sweep("side by side");
  cuda_sweep("side by side", true);
}

TEST_CASE("deterministic float rows and columns give the same bits call after call (CUDA)", "[gpu][shapes]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  Cuda b;
  const int calls = 8;
  const int changed = shapes::same_bits(b, rt, rng, calls);
  std::cout << "shapes, any-order look-back: the bits changed in " << changed << " of " << 2 * (calls - 1)
            << " calls; fixed order: in none\n";
}

TEST_CASE("the shape kernels of every element size compile with NVRTC", "[nvrtc][shapes]") {
  for (const char* shape : {"rows", "strided"})
    for (const bool reverse : {false, true})
      for (const std::string& text : scangen::test::sample_texts(
               shapes::spec_texts(shape, reverse), std::string("NVRTC shape = ") + shape + (reverse ? ", reverse" : ""),
               {"mode", "type"})) {
        scangen::dsl::Document doc = scangen::dsl::load("shape.scan", text);
        INFO(doc.diagnostics().render());
        REQUIRE(doc.ok());
        const scangen::dsl::Spec& spec = doc.specs().at(0);
        const scangen::generator::Plan plan = scangen::generator::make_plan(spec, {scangen::Backend::Cuda, 90});
        const std::string source = scangen::generator::emit(plan);
        const scangen::nvrtc_support::Compiled c = scangen::nvrtc_support::compile(source, spec.name + ".cu", "sm_90");
        INFO(spec.name << " (shape = " << shape << ")\n" << c.log << c.builtins);
        REQUIRE(c.status == NVRTC_SUCCESS);
        CHECK(c.log.find("warning") == std::string::npos);
      }
}
