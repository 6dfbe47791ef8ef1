// What the CUDA tests share: the driver API through the project's one table
// of libcuda's functions (runtime/src/cuda_driver.h, loaded with dlopen, so
// the tests build and start where there is no driver, and skip with exit
// code 4), checked driver calls, and a module compiled by NVRTC
// (runtime/src/nvrtc_program.h) for the GPU's architecture.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "nvrtc_program.h"

namespace scangen::test::cuda {

// The driver's functions, and the GPU the tests run on.
struct Driver : scangen::runtime::detail::Driver {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int major = 0, minor = 0;
};

// The driver with a GPU, or exits with 4 (skipped) where there is none.
inline Driver& driver() {
  static Driver d = [] {
    auto skip = [](const std::string& why) {
      std::cout << "skipped: " << why << "\n";
      std::exit(4);
    };
    std::string why;
    const scangen::runtime::detail::Driver* loaded = scangen::runtime::detail::load_driver(&why);
    if (!loaded) skip(why);
    Driver x;
    static_cast<scangen::runtime::detail::Driver&>(x) = *loaded;
    int count = 0;
    if (x.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) skip("no CUDA GPU");
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

#define CU_CHECK(call)                                       \
  do {                                                       \
    CUresult r_ = (call);                                    \
    if (r_ != CUDA_SUCCESS) {                                \
      const char* n_ = "?";                                  \
      scangen::test::cuda::driver().cuGetErrorName(r_, &n_); \
      FAIL(#call << " failed: " << n_);                      \
    }                                                        \
  } while (0)

// `source` compiled by NVRTC for `arch` ("sm_90", "compute_90"), with `extra`
// options: fails the test, with NVRTC's log, where it does not compile.
inline scangen::nvrtc_support::Compiled nvrtc_compile(const std::string& source, const std::string& name,
                                                      const std::string& arch,
                                                      const std::vector<std::string>& extra = {}) {
  scangen::nvrtc_support::Compiled c;
  try {
    c = scangen::nvrtc_support::compile(source, name, arch, extra);
  } catch (const scangen::nvrtc_support::Error& e) {
    FAIL(e.what());
  }
  INFO(c.builtins);  // where NVRTC's builtins library could not be loaded, why
  INFO(name << ": NVRTC log:\n" << c.log);
  REQUIRE(c.status == NVRTC_SUCCESS);
  return c;
}

// A module of `source`, compiled for the GPU's architecture and loaded.
class Module {
 public:
  explicit Module(const std::string& source, const std::string& name = "sweep.cu") {
    Driver& d = driver();
    std::string cubin = nvrtc_compile(source, name, "sm_" + std::to_string(d.major * 10 + d.minor)).code;
    CU_CHECK(d.cuModuleLoadData(&module_, cubin.data()));
  }
  ~Module() {
    if (module_) driver().cuModuleUnload(module_);
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUfunction function(const std::string& kernel) const {
    CUfunction fn = nullptr;
    CU_CHECK(driver().cuModuleGetFunction(&fn, module_, kernel.c_str()));
    return fn;
  }

 private:
  CUmodule module_ = nullptr;
};

// Device memory of `bytes` bytes (at least one), freed at the end of the
// scope; movable, not copyable.
struct DeviceBuffer {
  CUdeviceptr p = 0;
  explicit DeviceBuffer(size_t bytes) { CU_CHECK(driver().cuMemAlloc(&p, bytes > 0 ? bytes : 1)); }
  ~DeviceBuffer() {
    if (p) driver().cuMemFree(p);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p(o.p) { o.p = 0; }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return reinterpret_cast<void*>(p); }
};

}  // namespace scangen::test::cuda
