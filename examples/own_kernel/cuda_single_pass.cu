// A single-pass kernel of your own that finds each tile's place in its
// output through scangen's decoupled look-back: a run-length decoder.
//
//   scangen emit run_length.scan --target cuda -o run_length.cu --header run_length_cuda.h
//   nvcc -arch=sm_90 -I. cuda_single_pass.cu -o cuda_single_pass
//   ./cuda_single_pass
//
// The input is a run-length code: runs of (byte, length). One launch
// decodes it: each block takes a tile of 512 runs by ticket
// (run_length_device_tile_ticket), reads their lengths, scans them within
// the tile (run_length_exclusive), gets from run_length_device_tile_prefix
// the number of bytes all earlier tiles decode to (the tile's exclusive
// prefix), and writes its runs' bytes there. main() runs it on random runs,
// several times with one workspace, and checks each output against a loop
// on the CPU.
//
// Exit status: 0 OK, 1 a wrong result or a CUDA error, 2 no CUDA GPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// Defines run_length_T, run_length_temp, run_length_exclusive(),
// run_length_device_tile_temp, run_length_device_tile_ticket(),
// run_length_device_tile_prefix() and, with --header, the host function
// run_length_device_tile_workspace_bytes() (docs/generated-code.md).
#include "run_length.cu"

namespace {

constexpr int kThreads = 128;  // threads = 128 in run_length.scan
constexpr int kItems = 4;      // items = 4
constexpr int kTile = kThreads * kItems;

#define CHECK(call) check((call), #call, __LINE__)
void check(cudaError_t err, const char* what, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "cuda_single_pass: line %d: %s failed: %s (%s)\n", line, what, cudaGetErrorString(err),
               cudaGetErrorName(err));
  std::exit(1);
}

}  // namespace

// Launched with `tiles` blocks of kThreads; the workspace's first
// run_length_device_tile_workspace_bytes(tiles) bytes zeroed before the
// launch when tiles > 1.
__global__ void __launch_bounds__(kThreads)
    run_length_decode(const unsigned char* values, const unsigned char* lengths, unsigned runs, unsigned char* out,
                      unsigned long long* out_length, unsigned tiles, unsigned char* workspace) {
  __shared__ run_length_temp temp;                   // the block scan's scratch
  __shared__ run_length_device_tile_temp tile_temp;  // the look-back's

  // The tile: the order in which blocks start, not blockIdx.x, so that a
  // tile only waits for tiles whose blocks are running.
  const unsigned long long tile = run_length_device_tile_ticket(&tile_temp, workspace, tiles);

  // Decode: the lengths of this thread's runs (blocked: kItems consecutive runs).
  const unsigned long long first = tile * kTile + threadIdx.x * kItems;
  run_length_T length[kItems], offset[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) length[i] = first + i < runs ? lengths[first + i] : 0;

  // Where each run starts within the tile, and the tile's aggregate: its bytes.
  const run_length_T tile_bytes = run_length_exclusive(&temp, length, offset);

  // Where the tile starts in the output: the bytes of every tile before it.
  run_length_T end;
  const run_length_T start = run_length_device_tile_prefix(&tile_temp, workspace, tile, tile_bytes, &end);

#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    if (first + i >= runs) break;
    const unsigned char v = values[first + i];
    for (run_length_T k = 0; k < length[i]; ++k) out[start + offset[i] + k] = v;
  }
  if (tile == tiles - 1 && threadIdx.x == 0) *out_length = end;  // the decoded size
}

namespace {

// Decodes `runs` random runs on the GPU with `workspace`; the count of
// wrong bytes against the CPU's decoding.
int decode_and_check(unsigned char* workspace, unsigned runs, std::mt19937& rng) {
  std::vector<unsigned char> values(runs), lengths(runs), expected;
  std::uniform_int_distribution<int> byte(0, 255), length(0, 12);  // empty runs too
  for (unsigned r = 0; r < runs; ++r) {
    values[r] = static_cast<unsigned char>(byte(rng));
    lengths[r] = static_cast<unsigned char>(length(rng));
    expected.insert(expected.end(), lengths[r], values[r]);
  }
  const unsigned tiles = runs > 0 ? (runs + kTile - 1) / kTile : 1;
  const size_t out_bytes = expected.size() + 64;  // 64 poisoned bytes past the end must stay so
  unsigned char *d_values = nullptr, *d_lengths = nullptr, *d_out = nullptr;
  unsigned long long* d_length = nullptr;
  CHECK(cudaMalloc(&d_values, runs + 1));
  CHECK(cudaMalloc(&d_lengths, runs + 1));
  CHECK(cudaMalloc(&d_out, out_bytes));
  CHECK(cudaMalloc(&d_length, sizeof *d_length));
  CHECK(cudaMemcpy(d_values, values.data(), runs, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_lengths, lengths.data(), runs, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xAB, out_bytes));
  CHECK(cudaMemset(d_length, 0xAB, sizeof *d_length));
  // The workspace rule: zeroed before each launch of more than one tile.
  if (tiles > 1) CHECK(cudaMemsetAsync(workspace, 0, run_length_device_tile_workspace_bytes(tiles)));
  run_length_decode<<<tiles, kThreads>>>(d_values, d_lengths, runs, d_out, d_length, tiles, workspace);
  CHECK(cudaGetLastError());
  std::vector<unsigned char> out(out_bytes);
  unsigned long long decoded = 0;
  CHECK(cudaMemcpy(out.data(), d_out, out_bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&decoded, d_length, sizeof decoded, cudaMemcpyDeviceToHost));
  int wrong = 0;
  if (decoded != expected.size()) {
    std::fprintf(stderr, "decoded %llu bytes, expected %zu\n", decoded, expected.size());
    ++wrong;
  }
  for (size_t i = 0; i < out_bytes; ++i) {
    const unsigned char want = i < expected.size() ? expected[i] : 0xAB;
    if (out[i] != want && ++wrong <= 10) std::fprintf(stderr, "out[%zu] = %d, expected %d\n", i, out[i], want);
  }
  CHECK(cudaFree(d_length));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_lengths));
  CHECK(cudaFree(d_values));
  std::printf("%u runs in %u tiles, %zu bytes: %s\n", runs, tiles, expected.size(), wrong ? "WRONG" : "match the CPU");
  return wrong;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuda_single_pass: no CUDA GPU (%s)\n",
                 probe != cudaSuccess ? cudaGetErrorString(probe) : "no devices");
    return 2;
  }
  // One workspace for every launch, sized for the largest; its contents
  // before the first launch do not matter.
  const unsigned sizes[] = {3000000, 1000, 100, 0, 77777, 3000000};
  unsigned char* workspace = nullptr;
  CHECK(cudaMalloc(&workspace, run_length_device_tile_workspace_bytes((3000000 + kTile - 1) / kTile)));
  std::mt19937 rng(2025);
  int wrong = 0;
  for (unsigned runs : sizes) wrong += decode_and_check(workspace, runs, rng);
  CHECK(cudaFree(workspace));
  if (wrong) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}
