// The installed JIT runtime: compile a device scan at run time on the
// OpenCL device (PoCL in CI) and check it against a loop on the CPU.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "scangen/runtime/runtime.h"

int main() {
  try {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    scangen::Scan sum = rt.compile("scan s { type = i64; op = add; level = device; mode = exclusive; init = 7; }");
    const uint64_t n = 300001;
    std::vector<int64_t> in(n), out(n, -1);
    for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<int64_t>(i % 1000) - 500;
    cl_int err = CL_SUCCESS;
    cl_mem d_in = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8, in.data(), &err);
    cl_mem d_out = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, n * 8, nullptr, &err);
    if (err != CL_SUCCESS) {
      std::fprintf(stderr, "clCreateBuffer failed: %d\n", err);
      return 1;
    }
    scangen::Scan::OpenCLArgs a;
    a.in = d_in;
    a.exclusive = d_out;
    a.n = n;
    sum.run(a);
    clEnqueueReadBuffer(rt.opencl_queue(), d_out, CL_TRUE, 0, n * 8, out.data(), 0, nullptr, nullptr);
    clReleaseMemObject(d_in);
    clReleaseMemObject(d_out);
    int64_t acc = 7;
    for (uint64_t i = 0; i < n; ++i) {
      if (out[i] != acc) {
        std::printf("FAIL at %llu: %lld, want %lld\n", static_cast<unsigned long long>(i),
                    static_cast<long long>(out[i]), static_cast<long long>(acc));
        return 1;
      }
      acc += in[i];
    }
    std::printf("OK: the installed runtime scanned %llu elements on %s\n", static_cast<unsigned long long>(n),
                rt.device_name().c_str());
    return 0;
  } catch (const scangen::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
