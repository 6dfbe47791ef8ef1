// What the runtime's OpenCL tests share: whether there is a platform to run on.
#pragma once

#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

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

}  // namespace scangen::test::runtime
