// Input arrays through the OpenCL host wrappers that `scangen emit --header`
// writes for affine_soa.scan (two f32 arrays, a and b: the recurrence v[i] =
// a[i] * v[i-1] + b[i]) and triangle_offsets.scan (no array: the start of
// each row of a packed triangular matrix from the row's index), on the first
// OpenCL device (PoCL on the CPU), each checked against a plain loop. The
// outputs are poisoned past n, and the poison must stay. Exit 0 when all is
// right.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "affine_soa_opencl.h"
#include "triangle_offsets_opencl.h"

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
    if (v.empty()) v.resize(1);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T), v.data(), &err);
    if (err != CL_SUCCESS) std::fprintf(stderr, "clCreateBuffer: %d\n", err);
    return m;
  }
  cl_mem workspace(size_t bytes) {
    cl_int err = CL_SUCCESS;
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
  }
  template <typename T>
  std::vector<T> read(cl_mem m, size_t n) {
    std::vector<T> v(n);
    if (clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(T), v.data(), 0, nullptr, nullptr) != CL_SUCCESS)
      std::fprintf(stderr, "clEnqueueReadBuffer failed\n");
    clReleaseMemObject(m);
    return v;
  }
};

constexpr uint64_t kPad = 7;
const float kPoison = -12345.0f;

bool close(float want, float got) { return std::fabs(want - got) <= 1e-4f * (1.0f + std::fabs(want)); }

// v[i] = a[i] * v[i-1] + b[i] from the arrays a and b, with no packing.
void affine(Device& d, uint64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> fa(0.25f, 0.75f), fb(-1.0f, 1.0f);
  std::vector<float> a(n), b(n);
  for (uint64_t i = 0; i < n; ++i) {
    a[i] = fa(rng);
    b[i] = fb(rng);
  }
  const size_t words = 2 * (n + kPad);
  cl_mem in_a = d.buffer(a), in_b = d.buffer(b), out = d.buffer(std::vector<float>(words, kPoison)),
         total = d.buffer(std::vector<float>(2, kPoison)),
         ws = d.workspace(affine_soa_opencl_workspace_bytes(static_cast<int64_t>(n)));
  const cl_int err = affine_soa_inclusive(d.q, in_a, in_b, out, total, static_cast<int64_t>(n), ws);
  expect(err == CL_SUCCESS, "affine_soa_inclusive returned an error", n);
  const std::vector<float> got = d.read<float>(out, words), sum = d.read<float>(total, 2);
  float pa = 1.0f, v = 0.0f;  // the composed map's factor, and v[i]
  bool ok = true;
  for (uint64_t i = 0; i < n && ok; ++i) {
    pa *= a[i];
    v = a[i] * v + b[i];
    ok = close(pa, got[2 * i]) && close(v, got[2 * i + 1]);
  }
  expect(ok, "affine_soa: v[i] from a and b", n);
  bool poison = true;
  for (size_t k = 2 * n; k < words; ++k) poison = poison && got[k] == kPoison;
  expect(poison, "affine_soa: the poison past n", n);
  expect(n == 0 ? sum[0] == 1.0f && sum[1] == 0.0f : close(pa, sum[0]) && close(v, sum[1]), "affine_soa: the aggregate",
         n);
  for (cl_mem m : {in_a, in_b, ws}) clReleaseMemObject(m);
}

// The start of row i of a packed lower-triangular matrix, i * (i + 1) / 2, from i alone.
void triangle(Device& d, uint64_t n) {
  cl_mem out = d.buffer(std::vector<uint64_t>(n + kPad, 77)), total = d.buffer(std::vector<uint64_t>(1, 77)),
         ws = d.workspace(triangle_offsets_opencl_workspace_bytes(static_cast<int64_t>(n)));
  const cl_int err = triangle_offsets_exclusive(d.q, out, total, static_cast<int64_t>(n), ws);
  expect(err == CL_SUCCESS, "triangle_offsets_exclusive returned an error", n);
  const std::vector<uint64_t> got = d.read<uint64_t>(out, n + kPad), sum = d.read<uint64_t>(total, 1);
  bool ok = true;
  for (uint64_t i = 0; i < n + kPad && ok; ++i) ok = got[i] == (i < n ? i * (i + 1) / 2 : 77);
  expect(ok, "triangle_offsets: row i starts at i * (i + 1) / 2", n);
  expect(sum[0] == n * (n + 1) / 2, "triangle_offsets: the packed size", n);
  clReleaseMemObject(ws);
}

}  // namespace

int main() {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) {
    std::fprintf(stderr, "no OpenCL device\n");
    return 1;
  }
  Device d;
  cl_int err = CL_SUCCESS;
  d.ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  d.q = clCreateCommandQueue(d.ctx, device, 0, &err);
  std::random_device rd;
  const unsigned seed = rd();
  std::mt19937 rng(seed);
  for (uint64_t n : {0ull, 1ull, 2ull, 2047ull, 2048ull, 2049ull, 65537ull, 1000003ull}) {
    affine(d, n, rng);
    triangle(d, n);
  }
  clReleaseCommandQueue(d.q);
  clReleaseContext(d.ctx);
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed (seed %u)\n", failures, seed);
    return 1;
  }
  std::printf("affine from two arrays and triangle offsets from the index: every result matches the loop\n");
  return 0;
}
