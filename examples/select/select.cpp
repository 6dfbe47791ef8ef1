// Stream compaction, the indices of nonzero bytes, a partition and a
// run-length encoding in one pass each, and buffer allocation across
// launches, through the OpenCL host wrappers that `scangen emit --header`
// writes for select_positive.scan, select_indices.scan, partition.scan,
// run_length_encode.scan and buffer_allocation.scan, on the first OpenCL
// device (PoCL on the CPU), each checked against a plain loop: the selected
// elements in order, their count, the rejected ones from the end in reverse
// order (partition), the runs' values, lengths and count (run-length
// encoding), the offsets and the fill level after each launch (allocation),
// and the poison past the selected count left as it was. Exit 0 when all is
// right.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "buffer_allocation_opencl.h"
#include "partition_opencl.h"
#include "run_length_encode_opencl.h"
#include "select_indices_opencl.h"
#include "select_positive_opencl.h"

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
const float kPoisonF = -12345.0f;
const int32_t kPoisonI = -999999;

// The positive values of x in order and their count; no prefix array (NULL).
void select_positive(Device& d, uint64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = value(rng);
  cl_mem in = d.buffer(x), out = d.buffer(std::vector<float>(n + kPad, kPoisonF)),
         count = d.buffer(std::vector<uint32_t>(1, 0xABABABABu)),
         ws = d.workspace(select_positive_opencl_workspace_bytes(static_cast<int64_t>(n)));
  const cl_int err = select_positive_exclusive(d.q, in, nullptr, out, count, static_cast<int64_t>(n), ws);
  expect(err == CL_SUCCESS, "select_positive_exclusive returned an error", n);
  std::vector<float> want(n + kPad, kPoisonF);
  uint32_t selected = 0;
  for (float v : x)
    if (v > 0.0f) want[selected++] = v;
  expect(d.read<uint32_t>(count, 1)[0] == selected, "select: the count", n);
  const std::vector<float> got = d.read<float>(out, n + kPad);
  expect(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0,
         "select: the selected values in order, the rest of the buffer untouched", n);
  clReleaseMemObject(in);
  clReleaseMemObject(ws);
}

// Values below 100 first in order, the others from the end in reverse order;
// the exclusive counts are written too (beside the fused output).
void partition(Device& d, uint64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> value(0, 199);
  std::vector<int32_t> x(n);
  for (int32_t& v : x) v = value(rng);
  cl_mem in = d.buffer(x), out = d.buffer(std::vector<int32_t>(n + kPad, kPoisonI)),
         before = d.buffer(std::vector<uint32_t>(n + kPad, 0xABABABABu)),
         count = d.buffer(std::vector<uint32_t>(1, 0xABABABABu)),
         ws = d.workspace(partition_small_opencl_workspace_bytes(static_cast<int64_t>(n)));
  const cl_int err = partition_small_exclusive(d.q, in, before, out, count, static_cast<int64_t>(n), ws);
  expect(err == CL_SUCCESS, "partition_small_exclusive returned an error", n);
  std::vector<int32_t> want(n + kPad, kPoisonI);
  std::vector<uint32_t> want_before(n + kPad, 0xABABABABu);
  uint32_t selected = 0;
  uint64_t rejected = 0;
  for (uint64_t i = 0; i < n; ++i) {
    want_before[i] = selected;
    if (x[i] < 100)
      want[selected++] = x[i];
    else
      want[n - 1 - rejected++] = x[i];
  }
  expect(d.read<uint32_t>(count, 1)[0] == selected, "partition: the count", n);
  expect(d.read<int32_t>(out, n + kPad) == want, "partition: selected in order, then the rest reversed", n);
  expect(d.read<uint32_t>(before, n + kPad) == want_before, "partition: the exclusive counts", n);
  clReleaseMemObject(in);
  clReleaseMemObject(ws);
}

// The indices of the nonzero bytes, as u64, and their count (u64).
void nonzero(Device& d, uint64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> value(0, 3);
  std::vector<uint8_t> x(n);
  for (uint8_t& v : x) v = static_cast<uint8_t>(value(rng) == 0 ? 0 : value(rng) + 1);
  const uint64_t poison = 0xABABABABABABABABull;
  cl_mem in = d.buffer(x), out = d.buffer(std::vector<uint64_t>(n + kPad, poison)),
         count = d.buffer(std::vector<uint64_t>(1, poison)),
         ws = d.workspace(nonzero_indices_opencl_workspace_bytes(static_cast<int64_t>(n)));
  const cl_int err = nonzero_indices_exclusive(d.q, in, nullptr, out, count, static_cast<int64_t>(n), ws);
  expect(err == CL_SUCCESS, "nonzero_indices_exclusive returned an error", n);
  std::vector<uint64_t> want(n + kPad, poison);
  uint64_t selected = 0;
  for (uint64_t i = 0; i < n; ++i)
    if (x[i] != 0) want[selected++] = i;
  expect(d.read<uint64_t>(count, 1)[0] == selected, "nonzero: the count", n);
  expect(d.read<uint64_t>(out, n + kPad) == want, "nonzero: the indices in order, the rest untouched", n);
  clReleaseMemObject(in);
  clReleaseMemObject(ws);
}

// Runs of equal values (lengths 1 to 16, so that runs cross the tiles'
// edges): each run's value and length, and the number of runs, into arrays
// poisoned past it; the scan's own array is not written (NULL).
void run_length_encode(Device& d, uint64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> value(-3, 3), length(1, 16);
  std::vector<int32_t> x;
  while (x.size() < n) {
    const int32_t v = x.empty() ? value(rng) : x.back() + (value(rng) == 0 ? 4 : value(rng));  // differs from the last
    x.insert(x.end(), std::min<uint64_t>(static_cast<uint64_t>(length(rng)), n - x.size()), v);
  }
  const uint32_t poison = 0xABABABABu;
  cl_mem in = d.buffer(x), unique = d.buffer(std::vector<int32_t>(n + kPad, kPoisonI)),
         lengths = d.buffer(std::vector<uint32_t>(n + kPad, poison)),
         total = d.buffer(std::vector<run_length_encode_T>(1, run_length_encode_T{poison, poison})),
         ws = d.workspace(run_length_encode_opencl_workspace_bytes(static_cast<int64_t>(n)));
  const cl_int err = run_length_encode_inclusive(d.q, in, nullptr, unique, lengths, total, static_cast<int64_t>(n), ws);
  expect(err == CL_SUCCESS, "run_length_encode_inclusive returned an error", n);
  std::vector<int32_t> want_unique(n + kPad, kPoisonI);
  std::vector<uint32_t> want_lengths(n + kPad, poison);
  uint32_t runs = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || x[i] != x[i - 1]) want_unique[runs++] = x[i], want_lengths[runs - 1] = 0;
    ++want_lengths[runs - 1];
  }
  expect(d.read<run_length_encode_T>(total, 1)[0].runs == runs, "run-length encoding: the number of runs", n);
  expect(d.read<int32_t>(unique, n + kPad) == want_unique, "run-length encoding: each run's value, the rest untouched",
         n);
  expect(d.read<uint32_t>(lengths, n + kPad) == want_lengths,
         "run-length encoding: each run's length, the rest untouched", n);
  clReleaseMemObject(in);
  clReleaseMemObject(ws);
}

// Requests of 0 to 64 bytes in launches of n each (three launches): each
// request's offset in one buffer, the fill level carried from launch to
// launch (the running total, set to 0 once), each launch's total (the
// aggregate).
void buffer_allocation(Device& d, uint64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<uint32_t> size(0, 64);
  const uint64_t poison = 0xABABABABABABABABull;
  cl_mem fill = d.buffer(std::vector<uint64_t>(1, 0)),
         ws = d.workspace(buffer_allocation_opencl_workspace_bytes(static_cast<int64_t>(n)));
  uint64_t want_fill = 0;
  for (int launch = 0; launch < 3; ++launch) {
    std::vector<uint32_t> sizes(n);
    for (uint32_t& s : sizes) s = size(rng);
    cl_mem in = d.buffer(sizes), offsets = d.buffer(std::vector<uint64_t>(n + kPad, poison)),
           total = d.buffer(std::vector<uint64_t>(1, poison));
    const cl_int err =
        buffer_allocation_exclusive(d.q, in, offsets, total, fill, static_cast<int64_t>(n), ws);
    expect(err == CL_SUCCESS, "buffer_allocation_exclusive returned an error", n);
    std::vector<uint64_t> want(n + kPad, poison);
    const uint64_t start = want_fill;
    for (uint64_t i = 0; i < n; ++i) want[i] = want_fill, want_fill += sizes[i];
    expect(d.read<uint64_t>(offsets, n + kPad) == want, "allocation: each request's offset, after the last launch's",
           n);
    expect(d.read<uint64_t>(total, 1)[0] == want_fill - start, "allocation: this launch's total (the aggregate)", n);
    uint64_t got_fill = 0;
    clEnqueueReadBuffer(d.q, fill, CL_TRUE, 0, 8, &got_fill, 0, nullptr, nullptr);
    expect(got_fill == want_fill, "allocation: the fill level carried across launches (the running total)", n);
    // Here a program compares got_fill with its buffer's capacity: the requests of a launch that overflows it
    // have offsets past the end, and the fill level says by how much.
    clReleaseMemObject(in);
  }
  clReleaseMemObject(fill);
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
  for (uint64_t n : {0ull, 1ull, 2ull, 4095ull, 4096ull, 4097ull, 65537ull, 1000003ull}) {
    select_positive(d, n, rng);
    nonzero(d, n, rng);
    partition(d, n, rng);
    run_length_encode(d, n, rng);
    buffer_allocation(d, n, rng);
  }
  clReleaseCommandQueue(d.q);
  clReleaseContext(d.ctx);
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed (seed %u)\n", failures, seed);
    return 1;
  }
  std::printf(
      "select, nonzero indices, partition, run-length encoding and buffer allocation: every result matches the "
      "loop\n");
  return 0;
}
