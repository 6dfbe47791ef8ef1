// What the runtime's OpenCL tests share: whether there is a platform to run
// on, buffers of the Runtime's context, and a scan checked against the CPU
// reference.
#pragma once

#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

#include "runtime_test_support.h"

namespace scangen::test::runtime {

// True when an OpenCL platform exists. Without one the test fails, unless
// SCANGEN_ALLOW_NO_OPENCL=1, which skips it with a warning.
inline bool have_opencl() {
  cl_uint n = 0;
  if (clGetPlatformIDs(0, nullptr, &n) == CL_SUCCESS && n > 0) return true;
  const char* allow = std::getenv("SCANGEN_ALLOW_NO_OPENCL");
  if (allow && std::string(allow) == "1") {
    WARN("no OpenCL platform: skipped because SCANGEN_ALLOW_NO_OPENCL=1");
    return false;
  }
  FAIL("no OpenCL platform (install PoCL, or set SCANGEN_ALLOW_NO_OPENCL=1 to skip)");
  return false;
}

inline cl_mem buffer(scangen::Runtime& rt, const std::vector<uint8_t>& host) {
  cl_int err = CL_SUCCESS;
  std::vector<uint8_t> init = host.empty() ? std::vector<uint8_t>{0} : host;
  cl_mem m =
      clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.size(), init.data(), &err);
  REQUIRE(err == CL_SUCCESS);
  return m;
}

inline std::vector<uint8_t> read(scangen::Runtime& rt, cl_mem m, size_t bytes, cl_command_queue queue = nullptr) {
  std::vector<uint8_t> out(bytes);
  if (bytes)
    REQUIRE(clEnqueueReadBuffer(queue ? queue : rt.opencl_queue(), m, CL_TRUE, 0, bytes, out.data(), 0, nullptr,
                                nullptr) == CL_SUCCESS);
  return out;
}

// Runs `scan` (inclusive or exclusive, one output) on n random inputs and compares with the reference.
inline void check_scan(scangen::Runtime& rt, const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng,
                       cl_command_queue queue = nullptr, cl_mem workspace = nullptr, uint64_t workspace_size = 0) {
  const scangen::dsl::Spec& s = scan.spec();
  std::vector<uint8_t> in(n * s.input.size());
  scangen::ref::fill_random(s.input, in.data(), n, rng);
  const size_t es = s.type.size();
  std::vector<uint8_t> poison(n * es, 0xAB);
  cl_mem d_in = buffer(rt, in), d_out = buffer(rt, poison);
  scangen::Scan::OpenCLArgs a;
  a.in = d_in;
  (s.has_inclusive() ? a.inclusive : a.exclusive) = d_out;
  a.n = n;
  a.queue = queue;
  a.workspace = workspace;
  a.workspace_size = workspace_size;
  scan.run(a);
  const std::vector<uint8_t> got = read(rt, d_out, n * es, queue);
  clReleaseMemObject(d_in);
  clReleaseMemObject(d_out);
  check_output(s, in, n, got);
}

}  // namespace scangen::test::runtime
