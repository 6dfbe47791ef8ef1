// Every sweep spec's operator, run elementwise on an OpenCL device (PoCL in
// CI), gives the CPU reference's results: integers to the bit, floats exactly
// but for exp and log, which get the spec's stated tolerance.
//
// Without an OpenCL platform the tests fail, unless SCANGEN_ALLOW_NO_OPENCL=1.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "opencl_support.h"
#include "operator_sweep.h"
#include "scangen/generator/preamble.h"

namespace {

using scangen::generator::Backend;
using scangen::test::SweepSpec;

using namespace scangen::test::cl;

// Whether the spec's OpenCL code needs cl_khr_fp64 (the preamble enables it then).
bool uses_f64(const scangen::dsl::Spec& s) {
  return scangen::generator::emit_preamble(s, Backend::OpenCL).find("cl_khr_fp64 : enable") != std::string::npos;
}

class Runner : public Session {
 public:
  explicit Runner(const Device& device) : Session(device) {}

  // Builds one program from every spec's test program (PoCL takes about a
  // second per build, whatever its size).
  void build_specs(const std::vector<SweepSpec>& specs) {
    std::string source;
    for (const SweepSpec& s : specs) source += scangen::test::test_program(s.spec, Backend::OpenCL);
    build(source, scangen::generator::exact_float_options(Backend::OpenCL), "source:\n" + source);
  }

  // A scangen::test::RunKernel.
  std::vector<uint8_t> run(const std::string& name, const std::vector<const std::vector<uint8_t>*>& inputs,
                           size_t out_bytes, size_t n, bool pass_n) {
    cl_int err = CL_SUCCESS;
    const Kernel k = kernel(name);
    std::vector<Buffer> buffers;
    for (const auto* in : inputs) {
      buffers.emplace_back(clCreateBuffer(context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in->size(),
                                          const_cast<uint8_t*>(in->data()), &err));
      CL_CHECK(err);
    }
    std::vector<uint8_t> out(out_bytes, 0xAB);
    buffers.emplace_back(
        clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size(), out.data(), &err));
    CL_CHECK(err);
    cl_uint arg = 0;
    for (const Buffer& b : buffers) {
      cl_mem m = b.get();
      CL_CHECK(clSetKernelArg(k.get(), arg++, sizeof m, &m));
    }
    if (pass_n) {
      const cl_uint count = static_cast<cl_uint>(n);
      CL_CHECK(clSetKernelArg(k.get(), arg++, sizeof count, &count));
    }
    const size_t global = n;
    CL_CHECK(clEnqueueNDRangeKernel(queue(), k.get(), 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
    CL_CHECK(
        clEnqueueReadBuffer(queue(), buffers.back().get(), CL_TRUE, 0, out.size(), out.data(), 0, nullptr, nullptr));
    return out;
  }
};

// Runs the combine, convert and constant kernels of every spec on random
// inputs and compares them with the reference.
void sweep(std::vector<SweepSpec> specs) {
  Device device = device_or_skip(true);  // exact_float_options() needs exact division
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  if (!device.fp64) {
    WARN("the device has no fp64: specs that use f64 are left out");
    specs.erase(std::remove_if(specs.begin(), specs.end(), [](const SweepSpec& s) { return uses_f64(s.spec); }),
                specs.end());
  }
  Runner runner(device);
  runner.build_specs(specs);

  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  auto run = [&](const std::string& kernel, const std::vector<const std::vector<uint8_t>*>& inputs, size_t out_bytes,
                 size_t n, bool pass_n) { return runner.run(kernel, inputs, out_bytes, n, pass_n); };
  for (const SweepSpec& s : specs) {
    INFO("spec '" << s.spec.name << "' from " << s.spec.file);
    const std::string report = scangen::test::run_and_compare(s, 3001, rng, run);  // 3001: no work-group multiple
    INFO(report);
    CHECK(report.empty());
  }
}

}  // namespace

TEST_CASE("every example's operator runs on OpenCL as the reference computes it", "[opencl]") {
  sweep(scangen::test::example_specs());
}

TEST_CASE("every type, operator, built-in and conversion runs on OpenCL as the reference computes it", "[opencl]") {
  sweep(scangen::test::coverage_specs());
}
