// What the OpenCL tests share: checked calls, RAII handles, the device.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>  // CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform

#include <catch2/catch.hpp>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace scangen::test::cl {

#define CL_CHECK(call)                                                         \
  do {                                                                         \
    cl_int e_ = (call);                                                        \
    if (e_ != CL_SUCCESS) FAIL(#call << " failed with OpenCL error " << e_);    \
  } while (0)

// An OpenCL object released when it goes out of scope.
template <typename T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  ~Handle() {
    if (h_) Release(h_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(h_, o.h_);
    return *this;
  }
  T get() const { return h_; }

 private:
  T h_ = nullptr;
};
using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Buffer = Handle<cl_mem, clReleaseMemObject>;

struct Device {
  cl_device_id id = nullptr;
  std::string name;
  bool fp64 = false;
  bool exact_divide_sqrt = false;
};

// The first device of the first platform that has one; null id when there is none.
inline Device find_device() {
  Device d;
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &count);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || count == 0) return d;
  CL_CHECK(err);
  std::vector<cl_platform_id> platforms(count);
  CL_CHECK(clGetPlatformIDs(count, platforms.data(), nullptr));
  cl_platform_id platform = nullptr;
  for (cl_platform_id p : platforms) {
    cl_uint n = 0;
    err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d.id, &n);
    if (err == CL_SUCCESS && n > 0) {
      platform = p;
      break;
    }
    d.id = nullptr;
  }
  if (!d.id) return d;
  char name[256] = {}, platform_name[256] = {};
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_NAME, sizeof name - 1, name, nullptr));
  CL_CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, nullptr));
  d.name = name;
  // Once per program: which device the tests ran on (PoCL or a GPU's OpenCL).
  static bool said = false;
  if (!said) std::cerr << "OpenCL device: " << name << " (platform: " << platform_name << ")\n";
  said = true;
  cl_device_fp_config fp = 0;
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  d.fp64 = fp != 0;
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  d.exact_divide_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  return d;
}


}  // namespace scangen::test::cl
