// The generated OpenCL host wrappers of scans with fused inputs
// (tests/cli/fused_wrappers.scan) on the first OpenCL device (PoCL here),
// against CPU loops, outputs poisoned past their end. Exit 0 when every
// result is right.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "fused_wrappers_opencl.h"

namespace {

int failures = 0;
void expect(bool ok, const char* what, uint64_t n) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s (n = %llu)\n", what, static_cast<unsigned long long>(n));
    ++failures;
  }
}

struct Device {
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
  template <typename T>
  cl_mem buffer(std::vector<T> v) {
    cl_int err = CL_SUCCESS;
    v.resize(std::max<size_t>(v.size(), 1));
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T), v.data(), &err);
    if (err != CL_SUCCESS) std::fprintf(stderr, "clCreateBuffer: %d\n", err);
    return m;
  }
  template <typename T>
  std::vector<T> read(cl_mem m, size_t n) {
    std::vector<T> v(n);
    if (n && clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(T), v.data(), 0, nullptr, nullptr) != CL_SUCCESS)
      std::fprintf(stderr, "clEnqueueReadBuffer failed\n");
    return v;
  }
};

constexpr uint64_t kPad = 5;

// weighted_u64: inclusive, exclusive and the total of x[i] * (i + 1).
void weighted(Device& d, uint64_t n) {
  std::vector<uint32_t> in(n);
  for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>((i * 2654435761u) >> 7);
  const uint64_t poison = 0xABABABABABABABABull;
  cl_mem d_in = d.buffer(in), inc = d.buffer(std::vector<uint64_t>(n + kPad, poison)),
         exc = d.buffer(std::vector<uint64_t>(n + kPad, poison)),
         agg = d.buffer(std::vector<uint64_t>(1 + kPad, poison));
  cl_int err = CL_SUCCESS;
  cl_mem ws = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, weighted_u64_opencl_workspace_bytes(static_cast<int64_t>(n)),
                             nullptr, &err);
  expect(err == CL_SUCCESS &&
             weighted_u64_inclusive_exclusive(d.q, d_in, inc, exc, agg, static_cast<int64_t>(n), ws) == CL_SUCCESS,
         "weighted_u64: the call", n);
  const std::vector<uint64_t> got_inc = d.read<uint64_t>(inc, n + kPad), got_exc = d.read<uint64_t>(exc, n + kPad),
                              got_agg = d.read<uint64_t>(agg, 1 + kPad);
  uint64_t sum = 0, bad = 0;
  for (uint64_t i = 0; i < n; ++i) {
    bad += got_exc[i] != sum;
    sum += static_cast<uint64_t>(in[i]) * (i + 1);
    bad += got_inc[i] != sum;
  }
  for (uint64_t i = n; i < n + kPad; ++i) bad += got_inc[i] != poison || got_exc[i] != poison;
  expect(bad == 0, "weighted_u64: inclusive and exclusive", n);
  expect(got_agg[0] == sum, "weighted_u64: the total (the identity for n = 0)", n);
  expect(got_agg[1] == poison, "weighted_u64: past the total", n);
  for (cl_mem m : {d_in, inc, exc, agg, ws}) clReleaseMemObject(m);
}

// suffix_index_i64: out[i] = max over j >= i of x[j] - j.
void suffix(Device& d, uint64_t n) {
  std::vector<int32_t> in(n);
  for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<int32_t>((i * 7919u) % 100003u) - 50000;
  const int64_t poison = -7;
  cl_mem d_in = d.buffer(in), out = d.buffer(std::vector<int64_t>(n + kPad, poison));
  cl_int err = CL_SUCCESS;
  cl_mem ws = clCreateBuffer(d.ctx, CL_MEM_READ_WRITE, suffix_index_i64_opencl_workspace_bytes(static_cast<int64_t>(n)),
                             nullptr, &err);
  expect(err == CL_SUCCESS && suffix_index_i64_inclusive(d.q, d_in, out, static_cast<int64_t>(n), ws) == CL_SUCCESS,
         "suffix_index_i64: the call", n);
  const std::vector<int64_t> got = d.read<int64_t>(out, n + kPad);
  int64_t best = std::numeric_limits<int64_t>::min();
  uint64_t bad = 0;
  for (uint64_t k = n; k-- > 0;) {
    best = std::max(best, static_cast<int64_t>(in[k]) - static_cast<int64_t>(k));
    bad += got[k] != best;
  }
  for (uint64_t i = n; i < n + kPad; ++i) bad += got[i] != poison;
  expect(bad == 0, "suffix_index_i64: the results", n);
  for (cl_mem m : {d_in, out, ws}) clReleaseMemObject(m);
}

}  // namespace

int main() {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_uint count = 0;
  if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || count == 0 ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
    std::fprintf(stderr, "no OpenCL device\n");
    return 1;
  }
  cl_int err = CL_SUCCESS;
  Device d;
  d.ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (err == CL_SUCCESS) d.q = clCreateCommandQueue(d.ctx, device, 0, &err);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "no context or queue: %d\n", err);
    return 1;
  }
  for (uint64_t n : {0ull, 1ull, 2047ull, 2048ull, 2049ull, 65537ull, 300001ull}) {
    weighted(d, n);
    suffix(d, n);
  }
  clReleaseCommandQueue(d.q);
  clReleaseContext(d.ctx);
  if (failures == 0) std::printf("fused wrappers: all results right\n");
  return failures == 0 ? 0 : 1;
}
