// The generated OpenCL host wrappers of scans with fused inputs and of
// warp- and block-level scans with fused outputs (tests/cli/fused_wrappers.scan)
// on the first OpenCL device (PoCL here), against CPU loops, outputs poisoned
// past their end and where nothing is written. Exit 0 when every result is
// right.
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

// group_select_u32: each logical warp's segment of 192 compacts its multiples
// of 3 into its own range; the exclusive counts (null in every other call)
// and one count per segment beside.
void group_select(Device& d, uint64_t n, bool with_counts) {
  constexpr uint64_t kSeg = 192;
  std::vector<uint32_t> in(n);
  for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>((i * 2654435761u) >> 9);
  const uint64_t segments = (n + kSeg - 1) / kSeg;
  const uint32_t poison = 0xCDCDCDCDu;
  cl_mem d_in = d.buffer(in), out = d.buffer(std::vector<uint32_t>(n + kPad, poison)),
         scattered = d.buffer(std::vector<uint32_t>(n + kPad, poison)),
         counts = d.buffer(std::vector<uint32_t>(segments + kPad, poison));
  expect(group_select_u32_exclusive(d.q, d_in, with_counts ? out : nullptr, scattered, counts,
                                    static_cast<int64_t>(n)) == CL_SUCCESS,
         "group_select_u32: the call", n);
  const std::vector<uint32_t> got_out = d.read<uint32_t>(out, n + kPad), got = d.read<uint32_t>(scattered, n + kPad),
                              got_counts = d.read<uint32_t>(counts, segments + kPad);
  std::vector<uint32_t> want(n + kPad, poison), want_out(n + kPad, poison), want_counts(segments + kPad, poison);
  for (uint64_t s = 0; s < segments; ++s) {
    uint32_t kept = 0;
    for (uint64_t i = s * kSeg; i < std::min(n, (s + 1) * kSeg); ++i) {
      if (with_counts) want_out[i] = kept;
      if (in[i] % 3 == 0) want[s * kSeg + kept++] = in[i];
    }
    want_counts[s] = kept;
  }
  expect(got == want, "group_select_u32: each segment's multiples of 3, in order, at its start", n);
  expect(got_out == want_out, "group_select_u32: the exclusive counts (untouched when null)", n);
  expect(got_counts == want_counts, "group_select_u32: the count of each segment", n);
  for (cl_mem m : {d_in, out, scattered, counts}) clReleaseMemObject(m);
}

// group_alloc_u32: one slot per odd value, from a counter that starts at 3:
// the slots of all groups are 3 .. 3 + odd values - 1, each once, ascending
// within a group (the order of the groups is not fixed), slot k holding the
// index whose slot it is; the counter ends past the last.
void group_alloc(Device& d, uint64_t n) {
  constexpr uint64_t kSeg = 128;
  std::vector<uint32_t> in(n);
  for (uint64_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>((i * 40503u) >> 3);
  const uint32_t poison = 0xCDCDCDCDu, start = 3;
  cl_mem d_in = d.buffer(in), out = d.buffer(std::vector<uint32_t>(n + kPad, poison)),
         scattered = d.buffer(std::vector<uint32_t>(n + kPad, poison)),
         counter = d.buffer(std::vector<uint32_t>(1 + kPad, start));
  expect(group_alloc_u32_exclusive(d.q, d_in, out, scattered, counter, static_cast<int64_t>(n)) == CL_SUCCESS,
         "group_alloc_u32: the call", n);
  const std::vector<uint32_t> slot = d.read<uint32_t>(out, n + kPad), got = d.read<uint32_t>(scattered, n + kPad),
                              total = d.read<uint32_t>(counter, 1 + kPad);
  uint64_t odd = 0, bad = 0;
  std::vector<uint8_t> taken(n + kPad, 0);
  for (uint64_t i = 0; i < n; ++i) {
    if (in[i] % 2 == 0) continue;
    ++odd;
    const uint64_t k = slot[i];
    const bool in_range = k >= start && k < n + kPad;
    bad += !in_range || taken[k]++ != 0;
    if (in_range && k < n) bad += got[k] != i;  // positions >= n are dropped
    // the next odd value of the same group takes the next slot
    for (uint64_t j = i + 1; j < std::min(n, (i / kSeg + 1) * kSeg); ++j)
      if (in[j] % 2 == 1) {
        bad += slot[j] != k + 1;
        break;
      }
  }
  for (uint64_t k = start; k < start + odd; ++k) bad += taken[k] != 1;
  for (uint64_t k = 0; k < n + kPad; ++k)
    if (k < start || k >= std::min(n, start + odd)) bad += got[k] != poison;
  expect(bad == 0, "group_alloc_u32: every odd value's slot once, in order within its group, holding its index", n);
  expect(total[0] == start + odd, "group_alloc_u32: the counter after the call", n);
  expect(total[1] == start, "group_alloc_u32: past the counter", n);
  for (cl_mem m : {d_in, out, scattered, counter}) clReleaseMemObject(m);
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
    group_select(d, n, n % 2 == 1);
    group_alloc(d, n);
  }
  clReleaseCommandQueue(d.q);
  clReleaseContext(d.ctx);
  if (failures == 0) std::printf("fused wrappers: all results right\n");
  return failures == 0 ? 0 : 1;
}
