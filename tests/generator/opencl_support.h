// What the OpenCL tests share: checked calls, RAII handles, the device (or
// the skip where there is none), and a context and queue that build a
// program and report its log.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>  // CL_PLATFORM_NOT_FOUND_KHR: the ICD loader found no platform

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "scangen/generator/emit.h"

namespace scangen::test::cl {

#define CL_CHECK(call)                                                       \
  do {                                                                       \
    cl_int e_ = (call);                                                      \
    if (e_ != CL_SUCCESS) FAIL(#call << " failed with OpenCL error " << e_); \
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
  std::string platform;  // CL_PLATFORM_NAME
  bool fp64 = false;
  bool fp16 = false;
  bool exact_divide_sqrt = false;
  size_t max_group = 0;  // CL_DEVICE_MAX_WORK_GROUP_SIZE
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
  d.platform = platform_name;
  // Once per program: which device the tests ran on (PoCL or a GPU's OpenCL).
  static bool said = false;
  if (!said) std::cerr << "OpenCL device: " << name << " (platform: " << platform_name << ")\n";
  said = true;
  cl_device_fp_config fp = 0;
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  d.fp64 = fp != 0;
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  d.exact_divide_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string extensions(size, '\0');
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr));
  d.fp16 = extensions.find("cl_khr_fp16") != std::string::npos;
  CL_CHECK(clGetDeviceInfo(d.id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d.max_group, &d.max_group, nullptr));
  return d;
}

// The device, or a null id when the test should end here: skipped (with a
// warning) under SCANGEN_ALLOW_NO_OPENCL=1, failed otherwise. With
// `exact_divide_sqrt`, the device must round division and square roots
// correctly (what the scans' build options ask for).
inline Device device_or_skip(bool exact_divide_sqrt = false) {
  Device device = find_device();
  if (!device.id) {
    const char* allow = std::getenv("SCANGEN_ALLOW_NO_OPENCL");
    if (allow && std::string(allow) == "1") {
      WARN("no OpenCL device; skipped because SCANGEN_ALLOW_NO_OPENCL=1");
      return device;
    }
    FAIL("no OpenCL platform with a device (install PoCL, or set SCANGEN_ALLOW_NO_OPENCL=1 to skip)");
  }
  if (exact_divide_sqrt) REQUIRE(device.exact_divide_sqrt);
  return device;
}

// A context and a queue on the device, and the program last built in them.
class Session {
 public:
  explicit Session(const Device& device) : device_(device) {
    cl_int err = CL_SUCCESS;
    context_ = Context(clCreateContext(nullptr, 1, &device_.id, nullptr, nullptr, &err));
    CL_CHECK(err);
    queue_ = Queue(clCreateCommandQueue(context_.get(), device_.id, 0, &err));
    CL_CHECK(err);
  }

  // Builds `source` with `options` and, as the runtime does, the options
  // that pick the emitted text's paths for the device (PTX's shuffles and
  // sleep on NVIDIA) and SCANGEN_OPENCL_BUILD_OPTIONS (e.g.
  // -DSCANGEN_OPENCL_PTX=0: the portable path there too); the status and the
  // build log.
  std::pair<cl_int, std::string> try_build(const std::string& source, const std::string& given) {
    const char* env = std::getenv("SCANGEN_OPENCL_BUILD_OPTIONS");
    const std::string paths = generator::opencl_build_options(device_.platform, env ? env : "");
    const std::string options = given + (given.empty() ? "" : " ") + paths;
    const char* text = source.c_str();
    cl_int err = CL_SUCCESS;
    program_ = Program(clCreateProgramWithSource(context_.get(), 1, &text, nullptr, &err));
    CL_CHECK(err);
    err = clBuildProgram(program_.get(), 1, &device_.id, options.c_str(), nullptr, nullptr);
    size_t size = 0;
    CL_CHECK(clGetProgramBuildInfo(program_.get(), device_.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size));
    std::string log(size, '\0');
    CL_CHECK(clGetProgramBuildInfo(program_.get(), device_.id, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr));
    return {err, log.c_str()};
  }

  // Builds `source`, which must compile without a warning; `what` says what
  // it is when it does not.
  void build(const std::string& source, const std::string& options, const std::string& what) {
    const auto [err, log] = try_build(source, options);
    INFO(what << "\nbuild log:\n" << log);
    REQUIRE(err == CL_SUCCESS);
    CHECK(log.find("warning") == std::string::npos);
  }

  Kernel kernel(const std::string& name) const {
    cl_int err = CL_SUCCESS;
    Kernel k(clCreateKernel(program_.get(), name.c_str(), &err));
    CL_CHECK(err);
    return k;
  }

  const Device& device() const { return device_; }
  cl_context context() const { return context_.get(); }
  cl_command_queue queue() const { return queue_.get(); }

 private:
  Device device_;
  Context context_;
  Queue queue_;
  Program program_;
};

}  // namespace scangen::test::cl
