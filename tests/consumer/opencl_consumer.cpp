// The OpenCL side of the consumer test: the wrappers scangen_generate() wrote
// for examples/affine.scan (device level) and examples/own_kernel/block_sum.scan
// (block level), run on the first OpenCL device (PoCL in CI) and checked
// against CPU loops. Exit 0 when every check passes, 1 otherwise.
#include "affine_opencl.h"
#include "block_sum_opencl.h"
#ifdef SCANGEN_CONSUMER_BOTH_HEADERS
// Both backends' headers of the same specs in one program, the CUDA wrappers
// linked in (consumer/both_headers): no host function may collide.
#include "affine_cuda.h"
#include "block_sum_cuda.h"
#endif

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"

namespace {

using consumer::Failures;
using Affine = affine_recurrence_T;

cl_device_id first_device() {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return nullptr;
  std::vector<cl_platform_id> ids(platforms);
  if (clGetPlatformIDs(platforms, ids.data(), nullptr) != CL_SUCCESS) return nullptr;
  for (cl_platform_id p : ids) {
    cl_device_id d = nullptr;
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &n) == CL_SUCCESS && n > 0) return d;
  }
  return nullptr;
}

// A buffer released at the end of the scope.
struct Buffer {
  cl_mem mem = nullptr;
  Buffer(cl_context context, size_t bytes) {
    cl_int status = CL_SUCCESS;
    mem = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) mem = nullptr;
  }
  ~Buffer() {
    if (mem != nullptr) clReleaseMemObject(mem);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

bool fill(cl_command_queue q, cl_mem m, unsigned char byte, size_t bytes) {
  return clEnqueueFillBuffer(q, m, &byte, 1, 0, bytes, 0, nullptr, nullptr) == CL_SUCCESS;
}

template <typename T>
bool write(cl_command_queue q, cl_mem m, const std::vector<T>& v) {
  return v.empty() ||
         clEnqueueWriteBuffer(q, m, CL_TRUE, 0, v.size() * sizeof(T), v.data(), 0, nullptr, nullptr) == CL_SUCCESS;
}

template <typename T>
bool read(cl_command_queue q, cl_mem m, std::vector<T>& v) {
  return v.empty() ||
         clEnqueueReadBuffer(q, m, CL_TRUE, 0, v.size() * sizeof(T), v.data(), 0, nullptr, nullptr) == CL_SUCCESS;
}

bool same(const Affine& x, const Affine& y) { return x.a == y.a && x.b == y.b; }

// One affine scan of n elements through the wrapper; `workspace` kept by the caller.
bool affine_case(cl_context context, cl_command_queue q, int64_t n, cl_mem workspace, bool in_place, uint32_t seed) {
  const std::vector<Affine> in = consumer::affine_input<Affine>(n, seed);
  const size_t bytes = static_cast<size_t>(n) * sizeof(Affine);
  Buffer d_in(context, bytes), d_out(context, bytes);
  if (!write(q, d_in.mem, in)) return false;
  cl_int status = affine_recurrence_inclusive(q, d_in.mem, in_place ? d_in.mem : d_out.mem, n, workspace);
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "affine_recurrence_inclusive(n = %lld) returned %d\n", static_cast<long long>(n), status);
    return false;
  }
  std::vector<Affine> got(in.size());
  if (!read(q, in_place ? d_in.mem : d_out.mem, got)) return false;
  const int64_t bad = consumer::first_difference(got, consumer::affine_scan(in), same);
  if (bad >= 0)
    std::fprintf(stderr, "affine scan of %lld elements%s: element %lld is {%g, %g}\n", static_cast<long long>(n),
                 in_place ? " (in place)" : "", static_cast<long long>(bad), static_cast<double>(got[bad].a),
                 static_cast<double>(got[bad].b));
  return bad < 0;
}

bool block_sum_case(cl_context context, cl_command_queue q, int64_t n, uint32_t seed) {
  const std::vector<int> in = consumer::int_input(n, seed);
  Buffer d_in(context, in.size() * sizeof(int)), d_out(context, in.size() * sizeof(int));
  if (!write(q, d_in.mem, in)) return false;
  const cl_int status = block_sum_inclusive(q, d_in.mem, d_out.mem, n);
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "block_sum_inclusive(n = %lld) returned %d\n", static_cast<long long>(n), status);
    return false;
  }
  std::vector<int> got(in.size());
  if (!read(q, d_out.mem, got)) return false;
  const int64_t bad =
      consumer::first_difference(got, consumer::segmented_sum(in, 512), [](int a, int b) { return a == b; });
  if (bad >= 0)
    std::fprintf(stderr, "block_sum of %lld elements: element %lld differs\n", static_cast<long long>(n),
                 static_cast<long long>(bad));
  return bad < 0;
}

}  // namespace

int main() {
#ifdef SCANGEN_CONSUMER_BOTH_HEADERS
  // The CUDA wrappers' workspace size (a host function of the .cu), beside
  // the OpenCL one used below: two functions, two tiles.
  std::printf("workspace for 2^20 elements: CUDA %zu bytes, OpenCL %zu bytes\n",
              affine_recurrence_workspace_bytes(1 << 20), affine_recurrence_opencl_workspace_bytes(1 << 20));
#endif
  cl_device_id device = first_device();
  if (device == nullptr) {
    std::fprintf(stderr, "opencl_consumer: no OpenCL device (install PoCL: pocl-opencl-icd)\n");
    return 1;
  }
  char name[256] = {};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  std::printf("opencl_consumer: device %s\n", name);
  cl_int status = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "clCreateContext failed: %d\n", status);
    return 1;
  }
  cl_command_queue q = clCreateCommandQueue(context, device, 0, &status);
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "clCreateCommandQueue failed: %d\n", status);
    return 1;
  }
  Failures f;

  // The programs build once per context; a failure comes with the log.
  std::string log;
  status = affine_recurrence_build(context, &log);
  if (status != CL_SUCCESS) {
    std::fprintf(stderr, "building affine.cl failed (%d):\n%s\n", status, log.c_str());
    return 1;
  }
  f.expect(block_sum_build(context, &log) == CL_SUCCESS, "block_sum_build");
  f.expect(affine_recurrence_build(nullptr) == CL_INVALID_CONTEXT, "a null context is refused");

  const int64_t max_n = (1 << 20) + 3;
  const size_t ws_bytes = affine_recurrence_opencl_workspace_bytes(max_n);
  f.expect(ws_bytes > 0 && affine_recurrence_opencl_workspace_bytes(-1) == 0,
           "affine_recurrence_opencl_workspace_bytes");
  {
    // Argument checks: nothing is enqueued.
    Buffer in(context, 64 * sizeof(Affine)), out(context, 64 * sizeof(Affine)), small(context, 8);
    Buffer ws(context, affine_recurrence_opencl_workspace_bytes(64));
    f.expect(affine_recurrence_inclusive(q, in.mem, out.mem, -1, ws.mem) == CL_INVALID_VALUE, "n < 0");
    f.expect(affine_recurrence_inclusive(q, nullptr, out.mem, 64, ws.mem) == CL_INVALID_MEM_OBJECT, "null input");
    f.expect(affine_recurrence_inclusive(q, in.mem, out.mem, 64, nullptr) == CL_INVALID_MEM_OBJECT, "null workspace");
    f.expect(affine_recurrence_inclusive(q, in.mem, out.mem, 65, ws.mem) == CL_INVALID_VALUE, "buffers too small");
    f.expect(affine_recurrence_inclusive(q, in.mem, out.mem, 64, small.mem) == CL_INVALID_VALUE, "workspace too small");
    f.expect(affine_recurrence_inclusive(nullptr, in.mem, out.mem, 64, ws.mem) == CL_INVALID_COMMAND_QUEUE,
             "null queue");
    f.expect(affine_recurrence_inclusive(q, nullptr, nullptr, 0, nullptr) == CL_SUCCESS, "n == 0 does nothing");
    f.expect(block_sum_inclusive(q, in.mem, nullptr, 4) == CL_INVALID_MEM_OBJECT, "block_sum: null output");
    f.expect(block_sum_inclusive(q, in.mem, out.mem, -2) == CL_INVALID_VALUE, "block_sum: n < 0");
  }

  // One workspace for a run of calls, filled with garbage first: it needs no
  // initialisation (each call zeroes what it uses).
  {
    Buffer ws(context, ws_bytes);
    f.expect(fill(q, ws.mem, 0xff, ws_bytes), "fill the workspace");
    uint32_t seed = 1;
    for (int64_t n : {int64_t{1}, int64_t{2047}, int64_t{2048}, int64_t{2049}, int64_t{100000}, max_n, int64_t{5}})
      f.expect(affine_case(context, q, n, ws.mem, false, seed++), "affine scan");
    f.expect(affine_case(context, q, 70001, ws.mem, true, 99), "affine scan in place");
  }
  // A workspace released and another created (perhaps with the same handle),
  // with other garbage in it.
  for (int round = 0; round < 3; ++round) {
    Buffer ws(context, ws_bytes);
    f.expect(fill(q, ws.mem, static_cast<unsigned char>(0x5a + round), ws_bytes), "fill the workspace");
    f.expect(affine_case(context, q, 300000, ws.mem, false, 40u + static_cast<uint32_t>(round)),
             "affine scan on a new workspace");
  }

  for (int64_t n : {int64_t{1}, int64_t{512}, int64_t{513}, int64_t{100007}})
    f.expect(block_sum_case(context, q, n, static_cast<uint32_t>(n)), "block_sum");

  // A second context builds its own program.
  cl_context second = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
  f.expect(status == CL_SUCCESS, "clCreateContext (second)");
  if (status == CL_SUCCESS) {
    cl_command_queue q2 = clCreateCommandQueue(second, device, 0, &status);
    f.expect(status == CL_SUCCESS, "clCreateCommandQueue (second)");
    if (status == CL_SUCCESS) {
      f.expect(block_sum_case(second, q2, 4096 + 17, 7), "block_sum in a second context");
      clReleaseCommandQueue(q2);
    }
    block_sum_release(second);
    clReleaseContext(second);
  }

  affine_recurrence_release(context);
  block_sum_release(context);
  clReleaseCommandQueue(q);
  clReleaseContext(context);
  if (f.count > 0) {
    std::fprintf(stderr, "opencl_consumer: %d check(s) failed\n", f.count);
    return 1;
  }
  std::printf("opencl_consumer: every check passed\n");
  return 0;
}
