// JIT costs of the runtime, on its default device (CUDA when there is a GPU,
// else OpenCL) or the one named by --opencl / --cuda:
//
//   cold compile   a device scan never seen before, caches off (NVRTC or clBuildProgram)
//   disk hit       the same scans in a fresh Runtime, from the disk cache
//   memory hit     Runtime::compile of a text compiled before
//   launch         Scan::run of n = 1024 elements, host side (no wait for the GPU)
//   hit + launch   compile(text) + run, host side
//
// Each figure is a median (cold and disk: of 9 different scans; the others:
// of 2000 calls after 100 warm-up calls). Prints a Markdown table.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "scangen/runtime/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double us(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string spec(int i, const char* type) {
  // A different identity name per i: a different source, so a different key.
  return "scan jit_" + std::to_string(i) + " { type = " + type + "; op = add; level = device; }";
}

}  // namespace

int main(int argc, char** argv) {
  scangen::RuntimeOptions options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--opencl") == 0) options.backend = scangen::Backend::OpenCL;
    else if (std::strcmp(argv[i], "--cuda") == 0) options.backend = scangen::Backend::Cuda;
    else {
      std::fprintf(stderr, "usage: jit_bench [--cuda | --opencl]\n");
      return 1;
    }
  }
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "scangen-jit-bench-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    std::perror("mkdtemp");
    return 2;
  }
  setenv("SCANGEN_CACHE_DIR", dir.c_str(), 1);
  try {
    const int kinds = 9;
    std::vector<double> cold, disk, hit, launch, hit_launch;
    std::string device;
    scangen::Backend backend;
    {
      setenv("SCANGEN_CACHE_DISABLE", "1", 1);
      scangen::Runtime rt(options);
      device = rt.device_name();
      backend = rt.backend();
      rt.compile(spec(1000, "i32"));  // the first compile of a process loads the compiler
      for (int i = 0; i < kinds; ++i) {
        const auto t0 = Clock::now();
        rt.compile(spec(i, "i32"));
        cold.push_back(us(t0, Clock::now()) / 1000);
      }
      unsetenv("SCANGEN_CACHE_DISABLE");
    }
    {
      scangen::Runtime fill(options);
      for (int i = 0; i < kinds; ++i) fill.compile(spec(i, "i32"));
    }
    scangen::Runtime rt(options);
    for (int i = 0; i < kinds; ++i) {
      const auto t0 = Clock::now();
      rt.compile(spec(i, "i32"));
      disk.push_back(us(t0, Clock::now()) / 1000);
    }
    const std::string text = spec(0, "i32");
    scangen::Scan scan = rt.compile(text);
    for (int i = 0; i < 2100; ++i) {
      const auto t0 = Clock::now();
      scangen::Scan again = rt.compile(text);
      if (i >= 100) hit.push_back(us(t0, Clock::now()));
    }
    const uint64_t n = 1024;
    if (backend == scangen::Backend::Cuda) {
      // The driver as the runtime loads it (runtime/src/cuda_driver.h).
      const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
      CUdeviceptr d = 0;
      if (!cu || cu->cuMemAlloc(&d, 2 * n * 4) != CUDA_SUCCESS) throw scangen::Error("cuMemAlloc failed");
      const auto sync = [cu] { cu->cuCtxSynchronize(); };
      scangen::Scan::CudaArgs a;
      a.in = reinterpret_cast<void*>(d);
      a.inclusive = reinterpret_cast<void*>(d + n * 4);
      a.n = n;
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        scan.run(a);
        if (i >= 100) launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) sync();
      }
      sync();
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        rt.compile(text).run(a);
        if (i >= 100) hit_launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) sync();
      }
      sync();
    } else {
      cl_int err = CL_SUCCESS;
      cl_mem in = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, n * 4, nullptr, &err);
      cl_mem out = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, n * 4, nullptr, &err);
      if (err != CL_SUCCESS) throw scangen::Error("clCreateBuffer failed");
      scangen::Scan::OpenCLArgs a;
      a.in = in;
      a.inclusive = out;
      a.n = n;
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        scan.run(a);
        if (i >= 100) launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) clFinish(rt.opencl_queue());
      }
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        rt.compile(text).run(a);
        if (i >= 100) hit_launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) clFinish(rt.opencl_queue());
      }
      clFinish(rt.opencl_queue());
      clReleaseMemObject(in);
      clReleaseMemObject(out);
    }
    std::printf("## jit_bench: %s, %s\n\n", backend == scangen::Backend::Cuda ? "CUDA" : "OpenCL", device.c_str());
    std::printf("| what | median | goal |\n|---|---:|---:|\n");
    std::printf("| cold compile of a device scan (i32 sum) | %.1f ms | <= 100 ms |\n", median(cold));
    std::printf("| disk-cache hit (fresh Runtime) | %.2f ms | <= 2 ms |\n", median(disk));
    std::printf("| memory-cache hit: compile(text) | %.2f us | |\n", median(hit));
    std::printf("| launch, host side: run(n = 1024) | %.2f us | |\n", median(launch));
    std::printf("| memory hit + launch | %.2f us | <= 5 us |\n", median(hit_launch));
  } catch (const scangen::Error& e) {
    std::fprintf(stderr, "jit_bench: %s\n", e.what());
    fs::remove_all(dir);
    return 2;
  }
  fs::remove_all(dir);
  return 0;
}
