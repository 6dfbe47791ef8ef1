// The CUDA driver API, loaded with dlopen through one table of functions, so
// that what uses it builds and runs where there is no driver (and says so
// when a CUDA launch is asked for there). The one table of the project: the
// runtime, the CUDA tests, the JIT example and jit_bench all load libcuda
// through it (the scangen_nvrtc_builtins library).
#pragma once

#include <cuda.h>

#include <string>

namespace scangen::runtime::detail {

// X(member, versioned symbol)
// clang-format off
#define SCANGEN_DRIVER_FUNCTIONS(X)                                                                         \
  X(cuInit, "cuInit") X(cuDriverGetVersion, "cuDriverGetVersion") X(cuDeviceGetCount, "cuDeviceGetCount")   \
  X(cuDeviceGet, "cuDeviceGet") X(cuDeviceGetAttribute, "cuDeviceGetAttribute")                             \
  X(cuDeviceGetName, "cuDeviceGetName") X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")             \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") X(cuCtxSetCurrent, "cuCtxSetCurrent")       \
  X(cuCtxGetCurrent, "cuCtxGetCurrent") X(cuCtxSynchronize, "cuCtxSynchronize")                             \
  X(cuModuleLoadData, "cuModuleLoadData") X(cuModuleUnload, "cuModuleUnload")                               \
  X(cuModuleGetFunction, "cuModuleGetFunction") X(cuMemAlloc, "cuMemAlloc_v2") X(cuMemFree, "cuMemFree_v2") \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2") X(cuMemcpyDtoH, "cuMemcpyDtoH_v2") X(cuMemsetD8, "cuMemsetD8_v2")      \
  X(cuMemsetD8Async, "cuMemsetD8Async") X(cuLaunchKernel, "cuLaunchKernel")                                 \
  X(cuGetErrorName, "cuGetErrorName") X(cuGetErrorString, "cuGetErrorString")                               \
  X(cuMemGetAddressRange, "cuMemGetAddressRange_v2") X(cuModuleLoadDataEx, "cuModuleLoadDataEx")        \
  X(cuLaunchKernelEx, "cuLaunchKernelEx") X(cuFuncSetAttribute, "cuFuncSetAttribute")                     \
  X(cuStreamSynchronize, "cuStreamSynchronize") X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
// clang-format on

struct Driver {
#define X(fn, symbol) decltype(&::fn) fn = nullptr;
  SCANGEN_DRIVER_FUNCTIONS(X)
#undef X
};

// The driver, or null with `why` set (no libcuda.so.1, a missing symbol, or
// cuInit failing). Loaded once per process.
const Driver* load_driver(std::string* why);

// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)".
std::string describe(const Driver& d, const char* call, CUresult r);

}  // namespace scangen::runtime::detail
