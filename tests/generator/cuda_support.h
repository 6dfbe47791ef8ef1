// What the CUDA tests share: the driver API through the project's one table
// of libcuda's functions (runtime/src/cuda_driver.h, loaded with dlopen, so
// the tests build and start where there is no driver, and skip with exit
// code 4), checked driver calls, and a module compiled by NVRTC
// (runtime/src/nvrtc_program.h) for the GPU's architecture.
#pragma once

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
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

// How many NVRTC programs a sweep's source is cut into, to compile them at
// once: SCANGEN_TEST_COMPILE_SLICES, else half the host's threads, 1 to 8.
inline size_t compile_slices() {
  if (const char* e = std::getenv("SCANGEN_TEST_COMPILE_SLICES")) {
    const long v = std::strtol(e, nullptr, 10);
    if (v >= 1 && v <= 64) return static_cast<size_t>(v);
  }
  const size_t threads = std::thread::hardware_concurrency();
  return std::clamp<size_t>(threads / 2, 1, 8);
}

// The sources of `count` items cut into compile_slices() slices (fewer where
// there are fewer items): make(begin, end) gives the source of items
// begin .. end - 1.
template <class Make>
std::vector<std::string> sliced_sources(size_t count, Make make) {
  const size_t parts = std::max<size_t>(1, std::min(count, compile_slices()));
  std::vector<std::string> sources;
  for (size_t p = 0; p < parts; ++p) sources.push_back(make(count * p / parts, count * (p + 1) / parts));
  return sources;
}

// `sources` compiled by NVRTC for `arch`, each a program of its own, at most
// compile_slices() at once on threads of their own (NVRTC compiles
// independent programs at once): their cubins, in order; fails the test,
// with NVRTC's log, where one does not compile.
inline std::vector<std::string> nvrtc_compile_all(const std::vector<std::string>& sources, const std::string& name,
                                                  const std::string& arch) {
  std::vector<scangen::nvrtc_support::Compiled> out(sources.size());
  std::vector<std::string> errors(sources.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < sources.size(); i = next++) {
      try {
        out[i] = scangen::nvrtc_support::compile(sources[i], std::to_string(i) + "_" + name, arch, {});
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  std::vector<std::thread> threads;
  const size_t workers = std::min(sources.size(), compile_slices());
  for (size_t w = 0; w < workers; ++w) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  std::vector<std::string> cubins;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!errors[i].empty()) FAIL(errors[i]);
    INFO(out[i].builtins);
    INFO(name << ", part " << i + 1 << " of " << out.size() << ": NVRTC log:\n" << out[i].log);
    REQUIRE(out[i].status == NVRTC_SUCCESS);
    cubins.push_back(std::move(out[i].code));
  }
  return cubins;
}

// A module of `source`, compiled for the GPU's architecture and loaded; or
// of several sources, each compiled and loaded on its own (their kernels
// looked up in each in turn).
class Module {
 public:
  explicit Module(const std::string& source, const std::string& name = "sweep.cu") {
    Driver& d = driver();
    std::string cubin = nvrtc_compile(source, name, "sm_" + std::to_string(d.major * 10 + d.minor)).code;
    modules_.push_back(nullptr);
    CU_CHECK(d.cuModuleLoadData(&modules_.back(), cubin.data()));
  }
  Module(const std::vector<std::string>& sources, const std::string& name) {
    Driver& d = driver();
    for (const std::string& cubin : nvrtc_compile_all(sources, name, "sm_" + std::to_string(d.major * 10 + d.minor))) {
      modules_.push_back(nullptr);
      CU_CHECK(d.cuModuleLoadData(&modules_.back(), cubin.data()));
    }
  }
  ~Module() {
    for (CUmodule m : modules_)
      if (m) driver().cuModuleUnload(m);
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUfunction function(const std::string& kernel) const {
    for (CUmodule m : modules_) {
      CUfunction fn = nullptr;
      const CUresult r = driver().cuModuleGetFunction(&fn, m, kernel.c_str());
      if (r == CUDA_SUCCESS) return fn;
      if (r != CUDA_ERROR_NOT_FOUND) CU_CHECK(r);
    }
    FAIL("no kernel named " << kernel << " in the module's " << modules_.size() << " part(s)");
    return nullptr;
  }

 private:
  std::vector<CUmodule> modules_;
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
