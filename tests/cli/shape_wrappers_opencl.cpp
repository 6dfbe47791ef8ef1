// The generated OpenCL host wrappers of shaped scans (tests/cli/shape_wrappers.scan)
// on the first OpenCL device (PoCL here): rows with strides and poisoned gaps,
// the column scan, a contiguous axis, and the shapes they refuse. Exit 0 when
// every result is right.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <vector>

#include "shape_wrappers_opencl.h"

namespace {

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
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
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  auto buffer = [&](std::vector<int32_t> v) {
    return clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * 4, v.data(), &err);
  };
  auto read = [&](cl_mem m, size_t n) {
    std::vector<int32_t> v(n);
    clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * 4, v.data(), 0, nullptr, nullptr);
    return v;
  };
  const int32_t poison = -77;
  // Rows: 300 rows of 1000, input stride 1003, output stride 1001, gaps poisoned.
  {
    const uint64_t rows = 300, length = 1000, in_stride = 1003, out_stride = 1001;
    std::vector<int32_t> in(rows * in_stride);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>((i * 7919) % 13) - 6;
    cl_mem d_in = buffer(in), d_inc = buffer(std::vector<int32_t>(rows * out_stride, poison)),
           d_exc = buffer(std::vector<int32_t>(rows * out_stride, poison)), d_agg = buffer(std::vector<int32_t>(rows));
    const size_t ws_bytes = rows_i32_opencl_workspace_bytes(rows, length, in_stride, out_stride);
    cl_mem ws = clCreateBuffer(ctx, CL_MEM_READ_WRITE, ws_bytes, nullptr, &err);
    expect(rows_i32_inclusive_exclusive(q, d_in, d_inc, d_exc, d_agg, rows, length, in_stride, out_stride, ws) ==
               CL_SUCCESS,
           "rows: the call");
    const std::vector<int32_t> inc = read(d_inc, rows * out_stride), exc = read(d_exc, rows * out_stride),
                               agg = read(d_agg, rows);
    int bad = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      int32_t s = 1, total = 0;
      for (uint64_t c = 0; c < out_stride; ++c) {
        if (c >= length) {
          bad += inc[r * out_stride + c] != poison || exc[r * out_stride + c] != poison;
          continue;
        }
        bad += exc[r * out_stride + c] != s;
        s += in[r * in_stride + c];
        total += in[r * in_stride + c];
        bad += inc[r * out_stride + c] != s;
      }
      bad += agg[r] != total;
    }
    expect(bad == 0, "rows: the results");
    expect(rows_i32_inclusive_exclusive(q, d_in, d_inc, d_exc, d_agg, rows, length, 999, 0, ws) == CL_INVALID_VALUE,
           "rows: a stride below the length is refused");
    for (cl_mem m : {d_in, d_inc, d_exc, d_agg, ws}) clReleaseMemObject(m);
  }
  // Columns of a row-major (5000, 33) matrix, and its rows as a contiguous axis.
  for (int axis : {0, 1}) {
    const uint64_t R = 5000, C = 33;
    std::vector<int32_t> in(R * C);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>((i * 104729) % 11) - 5;
    const uint64_t extents[2] = {R, C}, strides[2] = {C, 1};
    cl_mem d_in = buffer(in), d_out = buffer(std::vector<int32_t>(R * C, poison)),
           d_agg = buffer(std::vector<int32_t>(axis == 0 ? C : R));
    const size_t ws_bytes = axis_i32_opencl_workspace_bytes(2, extents, strides, nullptr, axis);
    cl_mem ws = clCreateBuffer(ctx, CL_MEM_READ_WRITE, ws_bytes, nullptr, &err);
    expect(axis_i32_inclusive(q, d_in, d_out, d_agg, 2, extents, strides, nullptr, axis, ws) == CL_SUCCESS,
           "strided: the call");
    const std::vector<int32_t> out = read(d_out, R * C), agg = read(d_agg, axis == 0 ? C : R);
    int bad = 0;
    const uint64_t lines = axis == 0 ? C : R, len = axis == 0 ? R : C;
    for (uint64_t l = 0; l < lines; ++l) {
      int32_t s = 0;
      for (uint64_t p = 0; p < len; ++p) {
        const uint64_t at = axis == 0 ? p * C + l : l * C + p;
        s += in[at];
        bad += out[at] != s;
      }
      bad += agg[l] != s;
    }
    expect(bad == 0, axis == 0 ? "strided: the column scan" : "strided: the contiguous axis");
    expect(axis_i32_inclusive(q, d_in, d_out, d_agg, 2, extents, strides, nullptr, 2, ws) == CL_INVALID_VALUE,
           "strided: an axis out of range is refused");
    expect(axis_i32_inclusive(q, d_in, d_out, d_agg, 5, extents, strides, nullptr, 0, ws) == CL_INVALID_VALUE,
           "strided: rank 5 is refused");
    for (cl_mem m : {d_in, d_out, d_agg, ws}) clReleaseMemObject(m);
  }
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  std::printf("%s\n", failures ? "shape wrappers: FAILED" : "shape wrappers: ok");
  return failures ? 1 : 0;
}
