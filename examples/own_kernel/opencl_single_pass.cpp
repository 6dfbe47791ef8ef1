// A single-pass kernel of your own that finds each tile's place in its
// output through scangen's decoupled look-back: a run-length decoder.
//
//   scangen emit run_length.scan --target opencl -o run_length.cl --header run_length_opencl.h
//   c++ -std=c++17 -I. opencl_single_pass.cpp -lOpenCL -o opencl_single_pass
//   ./opencl_single_pass run_length.cl
//
// The input is a run-length code: runs of (byte, length). One launch
// decodes it: each work-group takes a tile of 512 runs by ticket
// (run_length_device_tile_ticket), reads their lengths, scans them within
// the tile (run_length_exclusive), gets from run_length_device_tile_prefix
// the number of bytes all earlier tiles decode to (the tile's exclusive
// prefix), and writes its runs' bytes there. The program runs it twice on
// random runs with the same workspace and checks each output against a
// loop on the CPU. From the generated header it takes only the workspace's
// size, run_length_opencl_device_tile_workspace_bytes.
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

#include "run_length_opencl.h"  // run_length_opencl_device_tile_workspace_bytes

namespace {

constexpr int kThreads = 128;  // threads = 128 in run_length.scan
constexpr int kItems = 4;      // items = 4
constexpr int kTile = kThreads * kItems;

// Our own kernel, appended to the generated text.
const char* const kOwnKernel = R"CLC(
// ---- our own kernel ----------------------------------------------------------
#define RL_THREADS 128
#define RL_ITEMS 4
#define RL_TILE (RL_THREADS * RL_ITEMS)

// Launched with `tiles` work-groups of RL_THREADS; the workspace's first
// run_length_opencl_device_tile_workspace_bytes(tiles) bytes zeroed before
// the launch when tiles > 1.
__kernel __attribute__((reqd_work_group_size(RL_THREADS, 1, 1)))
void run_length_decode(__global const uchar* values, __global const uchar* lengths, uint runs, __global uchar* out,
                       __global ulong* out_length, uint tiles, __global uchar* workspace) {
  __local run_length_temp temp;                     // the block scan's scratch
  __local run_length_device_tile_temp tile_temp;    // the look-back's

  // The tile: the order in which work-groups start, not get_group_id(0), so
  // that a tile only waits for tiles whose work-groups are running.
  const ulong tile = run_length_device_tile_ticket(&tile_temp, workspace, tiles);

  // Decode: the lengths of this work-item's runs (blocked: RL_ITEMS consecutive runs).
  const ulong first = tile * RL_TILE + get_local_id(0) * RL_ITEMS;
  run_length_T length[RL_ITEMS], offset[RL_ITEMS];
  for (int i = 0; i < RL_ITEMS; ++i) length[i] = first + i < runs ? lengths[first + i] : 0;

  // Where each run starts within the tile, and the tile's aggregate: its bytes.
  const run_length_T tile_bytes = run_length_exclusive(&temp, length, offset);

  // Where the tile starts in the output: the bytes of every tile before it.
  run_length_T end;
  const run_length_T start = run_length_device_tile_prefix(&tile_temp, workspace, tile, tile_bytes, &end);

  for (int i = 0; i < RL_ITEMS; ++i) {
    if (first + i >= runs) break;
    const uchar v = values[first + i];
    for (run_length_T k = 0; k < length[i]; ++k) out[start + offset[i] + k] = v;
  }
  if (tile == tiles - 1 && get_local_id(0) == 0) out_length[0] = end;  // the decoded size
}
)CLC";

#define CHECK(call) check((call), #call, __LINE__)
void check(cl_int err, const char* what, int line) {
  if (err == CL_SUCCESS) return;
  std::fprintf(stderr, "opencl_single_pass: line %d: %s failed with OpenCL error %d\n", line, what, err);
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

cl_device_id first_device() {
  cl_uint platforms = 0;
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

cl_program build(cl_context context, cl_device_id device, const std::string& source) {
  cl_device_fp_config fp = 0;
  CHECK(clGetDeviceInfo(device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  const char* options = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
  cl_int err = CL_SUCCESS;
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
    std::fprintf(stderr, "opencl_single_pass: the program does not build; build log:\n%s\n", log.c_str());
  }
  CHECK(err);
  return program;
}

// A buffer of `bytes` (one at least), a copy of `data` where it is given.
cl_mem buffer(cl_context context, size_t bytes, const void* data) {
  cl_int err = CL_SUCCESS;
  const cl_mem_flags flags = CL_MEM_READ_WRITE | (data && bytes ? CL_MEM_COPY_HOST_PTR : 0);
  cl_mem m =
      clCreateBuffer(context, flags, bytes > 0 ? bytes : 1, data && bytes ? const_cast<void*>(data) : nullptr, &err);
  CHECK(err);
  return m;
}

// Decodes `runs` random runs on the device with `workspace`; the count of
// wrong bytes against the CPU's decoding.
int decode_and_check(cl_context context, cl_command_queue queue, cl_kernel kernel, cl_mem workspace, cl_uint runs,
                     std::mt19937& rng) {
  std::vector<cl_uchar> values(runs), lengths(runs);
  std::uniform_int_distribution<int> byte(0, 255), length(0, 12);  // empty runs too
  std::vector<cl_uchar> expected;
  for (cl_uint r = 0; r < runs; ++r) {
    values[r] = static_cast<cl_uchar>(byte(rng));
    lengths[r] = static_cast<cl_uchar>(length(rng));
    expected.insert(expected.end(), lengths[r], values[r]);
  }
  const cl_uint tiles = runs > 0 ? (runs + kTile - 1) / kTile : 1;
  const size_t ws_bytes = run_length_opencl_device_tile_workspace_bytes(tiles);
  const size_t out_bytes = expected.size() + 64;  // 64 poisoned bytes past the end must stay so
  cl_mem d_values = buffer(context, runs, values.data());
  cl_mem d_lengths = buffer(context, runs, lengths.data());
  cl_mem d_out = buffer(context, out_bytes, nullptr);
  cl_mem d_length = buffer(context, sizeof(cl_ulong), nullptr);
  const cl_uchar poison = 0xAB, zero = 0;
  CHECK(clEnqueueFillBuffer(queue, d_out, &poison, 1, 0, out_bytes, 0, nullptr, nullptr));
  CHECK(clEnqueueFillBuffer(queue, d_length, &poison, 1, 0, sizeof(cl_ulong), 0, nullptr, nullptr));
  // The workspace rule: zeroed before each launch of more than one tile.
  if (tiles > 1) CHECK(clEnqueueFillBuffer(queue, workspace, &zero, 1, 0, ws_bytes, 0, nullptr, nullptr));
  const cl_mem args[] = {d_values, d_lengths};
  CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &args[0]));
  CHECK(clSetKernelArg(kernel, 1, sizeof(cl_mem), &args[1]));
  CHECK(clSetKernelArg(kernel, 2, sizeof runs, &runs));
  CHECK(clSetKernelArg(kernel, 3, sizeof d_out, &d_out));
  CHECK(clSetKernelArg(kernel, 4, sizeof d_length, &d_length));
  CHECK(clSetKernelArg(kernel, 5, sizeof tiles, &tiles));
  CHECK(clSetKernelArg(kernel, 6, sizeof workspace, &workspace));
  const size_t local = kThreads, global = static_cast<size_t>(tiles) * kThreads;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<cl_uchar> out(out_bytes);
  cl_ulong decoded = 0;
  CHECK(clEnqueueReadBuffer(queue, d_out, CL_TRUE, 0, out_bytes, out.data(), 0, nullptr, nullptr));
  CHECK(clEnqueueReadBuffer(queue, d_length, CL_TRUE, 0, sizeof decoded, &decoded, 0, nullptr, nullptr));
  int wrong = 0;
  if (decoded != expected.size()) {
    std::fprintf(stderr, "decoded %llu bytes, expected %zu\n", static_cast<unsigned long long>(decoded),
                 expected.size());
    ++wrong;
  }
  for (size_t i = 0; i < out_bytes; ++i) {
    const cl_uchar want = i < expected.size() ? expected[i] : poison;
    if (out[i] != want && ++wrong <= 10) std::fprintf(stderr, "out[%zu] = %d, expected %d\n", i, out[i], want);
  }
  for (cl_mem m : {d_length, d_out, d_lengths, d_values}) CHECK(clReleaseMemObject(m));
  std::printf("%u runs in %u tiles, %zu bytes: %s\n", runs, tiles, expected.size(), wrong ? "WRONG" : "match the CPU");
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s run_length.cl   (scangen emit run_length.scan --target opencl)\n", argv[0]);
    return 2;
  }
  std::string source;
  if (!read_text(argv[1], source)) {
    std::fprintf(stderr, "opencl_single_pass: cannot read '%s'\n", argv[1]);
    return 2;
  }
  cl_device_id device = first_device();
  if (!device) {
    std::fprintf(stderr, "opencl_single_pass: no OpenCL device found (install an OpenCL driver, e.g. PoCL)\n");
    return 2;
  }
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  CHECK(err);
  cl_program program = build(context, device, source + kOwnKernel);
  cl_kernel kernel = clCreateKernel(program, "run_length_decode", &err);
  CHECK(err);

  // One workspace for every launch, sized for the largest; its contents
  // before the first launch do not matter.
  const cl_uint sizes[] = {300000, 1000, 100, 0, 77777};
  const size_t ws_bytes = run_length_opencl_device_tile_workspace_bytes((300000 + kTile - 1) / kTile);
  cl_mem workspace = clCreateBuffer(context, CL_MEM_READ_WRITE, ws_bytes, nullptr, &err);
  CHECK(err);
  std::mt19937 rng(2025);
  int wrong = 0;
  for (cl_uint runs : sizes) wrong += decode_and_check(context, queue, kernel, workspace, runs, rng);

  CHECK(clReleaseMemObject(workspace));
  CHECK(clReleaseKernel(kernel));
  CHECK(clReleaseProgram(program));
  CHECK(clReleaseCommandQueue(queue));
  CHECK(clReleaseContext(context));
  if (wrong) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
