// Calling a scan that scangen generated from your own OpenCL kernel.
//
//   scangen emit block_sum.scan --target opencl -o block_sum.cl
//   c++ -std=c++17 opencl_own_kernel.cpp -lOpenCL -o opencl_own_kernel
//   ./opencl_own_kernel block_sum.cl
//
// The program reads the generated OpenCL C (block_sum.cl), appends its own
// kernel, which loads 512 ints per work-group, scans them with
// block_sum_inclusive() and writes the scan and each work-group's total,
// builds the program for the first OpenCL device, runs it on random data and
// checks the result against a loop on the CPU; then the same with a second
// kernel, which scans segments marked by head flags with
// block_sum_exclusive_segmented().
//
// Exit status: 0 OK, 1 a wrong result or an OpenCL error, 2 no OpenCL device
// or no input file.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The shape block_sum.scan gives the scan: a work-group of kThreads
// work-items, kItems consecutive elements each.
constexpr int kThreads = 128;
constexpr int kItems = 4;
constexpr int kSegment = kThreads * kItems;

// Our own kernel, appended to the generated text. block_sum_temp,
// block_sum_T, block_sum_identity() and block_sum_inclusive() come from it.
const char* const kOwnKernel = R"CLC(
// ---- our own kernel ----------------------------------------------------------
#define OWN_THREADS 128  /* threads = 128 in block_sum.scan */
#define OWN_ITEMS 4      /* items = 4 */

__kernel __attribute__((reqd_work_group_size(OWN_THREADS, 1, 1)))
void own_block_prefix_sums(__global const int* in, __global int* out, __global int* block_totals, uint n) {
  // One scratch per work-group, in local memory, at kernel scope.
  __local block_sum_temp temp;

  // Blocked arrangement: work-item r holds elements r*OWN_ITEMS .. r*OWN_ITEMS + OWN_ITEMS-1
  // of its work-group's segment. Past the end of the data it holds the identity.
  const uint first = (uint)get_group_id(0) * (OWN_THREADS * OWN_ITEMS) + (uint)get_local_id(0) * OWN_ITEMS;
  block_sum_T items[OWN_ITEMS];
  for (int i = 0; i < OWN_ITEMS; ++i) items[i] = first + i < n ? in[first + i] : block_sum_identity();

  // Every work-item of the work-group calls (the function holds barriers), in place.
  const block_sum_T total = block_sum_inclusive(&temp, items, items);

  for (int i = 0; i < OWN_ITEMS; ++i)
    if (first + i < n) out[first + i] = items[i];
  if (get_local_id(0) == 0) block_totals[get_group_id(0)] = total;
}

// Segmented: a nonzero flag starts a segment (head_flags = true in block_sum.scan).
__kernel __attribute__((reqd_work_group_size(OWN_THREADS, 1, 1)))
void own_segmented_sums(__global const int* in, __global const uchar* flags, __global int* out, uint n) {
  __local block_sum_seg_temp temp;  // the scratch of the head-flag functions
  const uint first = (uint)get_group_id(0) * (OWN_THREADS * OWN_ITEMS) + (uint)get_local_id(0) * OWN_ITEMS;
  block_sum_T items[OWN_ITEMS];
  uchar heads[OWN_ITEMS];
  for (int i = 0; i < OWN_ITEMS; ++i) {
    items[i] = first + i < n ? in[first + i] : block_sum_identity();
    heads[i] = first + i < n ? flags[first + i] : 0;  // the identity only extends the last segment
  }
  // Each segment's exclusive sums: 0 at its first element (and at each work-group's first).
  block_sum_exclusive_segmented(&temp, items, heads, items);
  for (int i = 0; i < OWN_ITEMS; ++i)
    if (first + i < n) out[first + i] = items[i];
}
)CLC";

const char* error_name(cl_int e) {
  switch (e) {
#define NAME(x) \
  case x: return #x;
    NAME(CL_DEVICE_NOT_FOUND)
    NAME(CL_OUT_OF_RESOURCES)
    NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_BUILD_PROGRAM_FAILURE)
    NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE)
    NAME(CL_INVALID_BUILD_OPTIONS)
    NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_BUFFER_SIZE)
    NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
#undef NAME
    default: return "";
  }
}

// Every OpenCL call goes through CHECK: on an error it says which and exits 1.
#define CHECK(call) check((call), #call, __LINE__)
void check(cl_int err, const char* what, int line) {
  if (err == CL_SUCCESS) return;
  std::fprintf(stderr, "opencl_own_kernel: line %d: %s failed with OpenCL error %d %s\n", line, what, err,
               error_name(err));
  std::exit(1);
}

bool read_text(const char* path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return !in.bad();
}

// The first device of the first platform that has one, or null.
cl_device_id first_device() {
  cl_uint platforms = 0;
  // No ICD, or an ICD loader that finds no platform: both mean no device.
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return nullptr;
  std::vector<cl_platform_id> ids(platforms);
  CHECK(clGetPlatformIDs(platforms, ids.data(), nullptr));
  for (cl_platform_id p : ids) {
    cl_device_id d = nullptr;
    cl_uint n = 0;
    const cl_int err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &n);
    if (err == CL_DEVICE_NOT_FOUND) continue;
    CHECK(err);
    if (n > 0) return d;
  }
  return nullptr;
}

// Runs own_segmented_sums on `in` with random flags and checks it against a
// loop; returns the number of wrong values.
int check_segmented(cl_context context, cl_command_queue queue, cl_program program, const std::vector<cl_int>& in,
                    cl_mem in_buf, size_t groups) {
  cl_int err = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "own_segmented_sums", &err);
  CHECK(err);
  const cl_uint n = static_cast<cl_uint>(in.size());
  std::vector<cl_uchar> flags(n);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> die(0, 7);
  for (cl_uchar& f : flags) f = die(rng) == 0 ? 1 : 0;  // segments of 8 elements on average
  cl_mem flags_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n, flags.data(), &err);
  CHECK(err);
  cl_mem out_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, n * sizeof(cl_int), nullptr, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof in_buf, &in_buf));
  CHECK(clSetKernelArg(kernel, 1, sizeof flags_buf, &flags_buf));
  CHECK(clSetKernelArg(kernel, 2, sizeof out_buf, &out_buf));
  CHECK(clSetKernelArg(kernel, 3, sizeof n, &n));
  const size_t local = kThreads;
  const size_t global = groups * local;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<cl_int> out(n);
  CHECK(clEnqueueReadBuffer(queue, out_buf, CL_TRUE, 0, n * sizeof(cl_int), out.data(), 0, nullptr, nullptr));
  CHECK(clReleaseMemObject(out_buf));
  CHECK(clReleaseMemObject(flags_buf));
  CHECK(clReleaseKernel(kernel));

  // The CPU's answer: an exclusive prefix sum restarting at every flag and every kSegment elements.
  int wrong = 0;
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (flags[i] || i % kSegment == 0) sum = 0;
    if (out[i] != sum && ++wrong <= 10)
      std::fprintf(stderr, "segmented out[%zu] = %d, expected %lld\n", i, out[i], static_cast<long long>(sum));
    sum += in[i];
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s block_sum.cl   (the output of: scangen emit block_sum.scan --target opencl)\n",
                 argv[0]);
    return 2;
  }
  std::string source;
  if (!read_text(argv[1], source)) {
    std::fprintf(stderr, "opencl_own_kernel: cannot read '%s'\n", argv[1]);
    return 2;
  }
  source += kOwnKernel;

  cl_device_id device = first_device();
  if (!device) {
    std::fprintf(stderr, "opencl_own_kernel: no OpenCL device found (install an OpenCL driver, e.g. PoCL)\n");
    return 2;
  }
  char name[256] = {};
  CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr));
  std::printf("OpenCL device: %s\n", name);

  // scangen's OpenCL text wants -cl-fp32-correctly-rounded-divide-sqrt, so
  // that float division and sqrt round like the reference; the option is
  // legal only where the device reports the capability. (block_sum has no
  // float arithmetic: without it the result is the same.)
  cl_device_fp_config fp = 0;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  const bool exact_divide_sqrt = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  const char* options = exact_divide_sqrt ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
  if (!exact_divide_sqrt)
    std::printf(
        "note: the device cannot round float division and sqrt correctly; building without "
        "-cl-fp32-correctly-rounded-divide-sqrt\n");

  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &err);
  CHECK(err);
  err = clBuildProgram(program, 1, &device, options, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size));
    std::string log(size, '\0');
    CHECK(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr));
    std::fprintf(stderr, "opencl_own_kernel: the program does not build; build log:\n%s\n", log.c_str());
  }
  CHECK(err);
  cl_kernel kernel = clCreateKernel(program, "own_block_prefix_sums", &err);
  CHECK(err);
  size_t max_group = 0;
  CHECK(clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group, &max_group, nullptr));
  if (max_group < static_cast<size_t>(kThreads)) {
    std::fprintf(stderr,
                 "opencl_own_kernel: the device runs at most %zu work-items per work-group, the scan needs %d\n",
                 max_group, kThreads);
    return 1;
  }

  // Random input, not a multiple of the segment: the last work-group is short.
  const cl_uint n = 100000;
  const size_t groups = (n + kSegment - 1) / kSegment;
  std::vector<cl_int> in(n);
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int> value(-1000, 1000);
  for (cl_int& x : in) x = value(rng);

  cl_mem in_buf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_int), in.data(), &err);
  CHECK(err);
  cl_mem out_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, n * sizeof(cl_int), nullptr, &err);
  CHECK(err);
  cl_mem totals_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, groups * sizeof(cl_int), nullptr, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kernel, 0, sizeof in_buf, &in_buf));
  CHECK(clSetKernelArg(kernel, 1, sizeof out_buf, &out_buf));
  CHECK(clSetKernelArg(kernel, 2, sizeof totals_buf, &totals_buf));
  CHECK(clSetKernelArg(kernel, 3, sizeof n, &n));

  // 1-D: work-groups of exactly `threads` work-items, one per segment.
  const size_t local = kThreads;
  const size_t global = groups * local;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<cl_int> out(n), totals(groups);
  CHECK(clEnqueueReadBuffer(queue, out_buf, CL_TRUE, 0, n * sizeof(cl_int), out.data(), 0, nullptr, nullptr));
  CHECK(
      clEnqueueReadBuffer(queue, totals_buf, CL_TRUE, 0, groups * sizeof(cl_int), totals.data(), 0, nullptr, nullptr));

  // The CPU's answer: an inclusive prefix sum restarting every kSegment elements.
  int wrong = 0;
  for (size_t g = 0; g < groups; ++g) {
    int64_t sum = 0;
    for (size_t i = g * kSegment; i < n && i < (g + 1) * kSegment; ++i) {
      sum += in[i];
      if (out[i] != sum && ++wrong <= 10)
        std::fprintf(stderr, "out[%zu] = %d, expected %lld\n", i, out[i], static_cast<long long>(sum));
    }
    if (totals[g] != sum && ++wrong <= 10)
      std::fprintf(stderr, "block_totals[%zu] = %d, expected %lld\n", g, totals[g], static_cast<long long>(sum));
  }

  wrong += check_segmented(context, queue, program, in, in_buf, groups);

  CHECK(clReleaseMemObject(totals_buf));
  CHECK(clReleaseMemObject(out_buf));
  CHECK(clReleaseMemObject(in_buf));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseContext(context));

  if (wrong) {
    std::printf("FAIL: %d wrong values in %u elements, %zu work-groups\n", wrong, n, groups);
    return 1;
  }
  std::printf("OK: %u elements in %zu work-groups of %d x %d match the CPU, scanned whole and in segments\n", n,
              groups, kThreads, kItems);
  return 0;
}
