// What the CUDA tests share: the driver API through dlopen (so the tests
// build and start where there is no driver, and skip with exit code 4),
// checked driver and NVRTC calls.
#pragma once

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace scangen::test::cuda {

// The driver functions the tests call, by their versioned symbol names.
#define SCANGEN_CUDA_FUNCTIONS(X)                                                               \
  X(cuInit, "cuInit") X(cuDeviceGetCount, "cuDeviceGetCount") X(cuDeviceGet, "cuDeviceGet")     \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute") X(cuDeviceGetName, "cuDeviceGetName")         \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                                       \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") X(cuCtxSetCurrent, "cuCtxSetCurrent") \
  X(cuModuleLoadData, "cuModuleLoadData") X(cuModuleUnload, "cuModuleUnload")                   \
  X(cuModuleGetFunction, "cuModuleGetFunction") X(cuMemAlloc, "cuMemAlloc_v2")                  \
  X(cuMemFree, "cuMemFree_v2") X(cuMemcpyHtoD, "cuMemcpyHtoD_v2") X(cuMemcpyDtoH, "cuMemcpyDtoH_v2") \
  X(cuLaunchKernel, "cuLaunchKernel") X(cuCtxSynchronize, "cuCtxSynchronize")                   \
  X(cuGetErrorName, "cuGetErrorName") X(cuMemsetD8, "cuMemsetD8_v2")

struct Driver {
#define X(fn, symbol) decltype(&::fn) fn = nullptr;
  SCANGEN_CUDA_FUNCTIONS(X)
#undef X
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int major = 0, minor = 0;
};

// The driver with a GPU, or exits with 4 (skipped) where there is none.
inline Driver& driver() {
  static Driver d = [] {
    Driver x;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto skip = [](const std::string& why) {
      std::cout << "skipped: " << why << "\n";
      std::exit(4);
    };
    if (!lib) skip(std::string("no CUDA driver (") + dlerror() + ")");
#define X(fn, symbol)                                                     \
  x.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, symbol));           \
  if (!x.fn) skip("the CUDA driver has no " symbol);
    SCANGEN_CUDA_FUNCTIONS(X)
#undef X
    int count = 0;
    if (x.cuInit(0) != CUDA_SUCCESS || x.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) skip("no CUDA GPU");
    if (x.cuDeviceGet(&x.device, 0) != CUDA_SUCCESS ||
        x.cuDevicePrimaryCtxRetain(&x.context, x.device) != CUDA_SUCCESS ||
        x.cuCtxSetCurrent(x.context) != CUDA_SUCCESS)
      skip("cannot open a context on GPU 0");
    char name[256] = {};
    x.cuDeviceGetName(name, sizeof name - 1, x.device);
    x.name = name;
    x.cuDeviceGetAttribute(&x.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, x.device);
    x.cuDeviceGetAttribute(&x.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, x.device);
    return x;
  }();
  return d;
}

#define CU_CHECK(call)                                                         \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* n_ = "?";                                                    \
      scangen::test::cuda::driver().cuGetErrorName(r_, &n_);                                        \
      FAIL(#call << " failed: " << n_);                                        \
    }                                                                          \
  } while (0)

#define NVRTC_CHECK(call)                                                          \
  do {                                                                             \
    nvrtcResult r_ = (call);                                                       \
    if (r_ != NVRTC_SUCCESS) FAIL(#call << " failed: " << nvrtcGetErrorString(r_)); \
  } while (0)

}  // namespace scangen::test::cuda
