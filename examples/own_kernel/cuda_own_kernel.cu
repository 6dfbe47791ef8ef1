// Calling a scan that scangen generated from your own CUDA kernel.
//
//   scangen emit block_sum.scan --target cuda -o block_sum.cu
//   nvcc -arch=sm_90 -I. cuda_own_kernel.cu -o cuda_own_kernel
//   ./cuda_own_kernel
//
// The generated block_sum.cu is self-contained (no #include) and is included
// here like a header. Our kernel loads 512 ints per block, scans them with
// block_sum_inclusive() and writes the scan and each block's total; main()
// runs it on random data and checks the result against a loop on the CPU,
// then a second kernel that scans segments marked by head flags with
// block_sum_exclusive_segmented().
//
// Exit status: 0 OK, 1 a wrong result or a CUDA error, 2 no CUDA GPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

// Defines block_sum_T, block_sum_temp, block_sum_identity(),
// block_sum_inclusive() ... (docs/generated-code.md).
#include "block_sum.cu"

namespace {

// The shape block_sum.scan gives the scan: a block of kThreads threads,
// kItems consecutive elements each.
constexpr int kThreads = 128;  // threads = 128 in block_sum.scan
constexpr int kItems = 4;      // items = 4
constexpr int kSegment = kThreads * kItems;

// Every CUDA call goes through CHECK: on an error it says which and exits 1.
#define CHECK(call) check((call), #call, __LINE__)
void check(cudaError_t err, const char* what, int line) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "cuda_own_kernel: line %d: %s failed: %s (%s)\n", line, what, cudaGetErrorString(err),
               cudaGetErrorName(err));
  std::exit(1);
}

}  // namespace

// Launch with blocks of exactly kThreads threads (1-D), one block per segment.
__global__ void __launch_bounds__(kThreads)
    own_block_prefix_sums(const int* in, int* out, int* block_totals, unsigned int n) {
  // One scratch per block, in shared memory.
  __shared__ block_sum_temp temp;

  // Blocked arrangement: thread r holds elements r*kItems .. r*kItems + kItems-1
  // of its block's segment. Past the end of the data it holds the identity.
  const unsigned int first = blockIdx.x * kSegment + threadIdx.x * kItems;
  block_sum_T items[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) items[i] = first + i < n ? in[first + i] : block_sum_identity();

  // Every thread of the block calls (the function holds __syncthreads()), in place.
  const block_sum_T total = block_sum_inclusive(&temp, items, items);

#pragma unroll
  for (int i = 0; i < kItems; ++i)
    if (first + i < n) out[first + i] = items[i];
  if (threadIdx.x == 0) block_totals[blockIdx.x] = total;
}

// Segmented: a nonzero flag starts a segment (head_flags = true in
// block_sum.scan); each segment's exclusive sums, 0 at its first element
// (and at each block's first).
__global__ void __launch_bounds__(kThreads)
    own_segmented_sums(const int* in, const unsigned char* flags, int* out, unsigned int n) {
  __shared__ block_sum_seg_temp temp;  // the scratch of the head-flag functions
  const unsigned int first = blockIdx.x * kSegment + threadIdx.x * kItems;
  block_sum_T items[kItems];
  unsigned char heads[kItems];
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    items[i] = first + i < n ? in[first + i] : block_sum_identity();
    heads[i] = first + i < n ? flags[first + i] : 0;  // the identity only extends the last segment
  }
  block_sum_exclusive_segmented(&temp, items, heads, items);
#pragma unroll
  for (int i = 0; i < kItems; ++i)
    if (first + i < n) out[first + i] = items[i];
}

namespace {

// Runs own_segmented_sums on `in` (on the device at d_in) with random flags
// and checks it against a loop; returns the number of wrong values.
int check_segmented(const std::vector<int>& in, const int* d_in, unsigned int blocks) {
  const unsigned int n = static_cast<unsigned int>(in.size());
  std::vector<unsigned char> flags(n);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> die(0, 7);
  for (unsigned char& f : flags) f = die(rng) == 0 ? 1 : 0;  // segments of 8 elements on average
  unsigned char* d_flags = nullptr;
  int* d_out = nullptr;
  CHECK(cudaMalloc(&d_flags, n));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_flags, flags.data(), n, cudaMemcpyHostToDevice));
  own_segmented_sums<<<blocks, kThreads>>>(d_in, d_flags, d_out, n);
  CHECK(cudaGetLastError());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_flags));

  // The CPU's answer: an exclusive prefix sum restarting at every flag and every kSegment elements.
  int wrong = 0;
  int64_t sum = 0;
  for (unsigned int i = 0; i < n; ++i) {
    if (flags[i] || i % kSegment == 0) sum = 0;
    if (out[i] != sum && ++wrong <= 10)
      std::fprintf(stderr, "segmented out[%u] = %d, expected %lld\n", i, out[i], static_cast<long long>(sum));
    sum += in[i];
  }
  return wrong;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "cuda_own_kernel: no CUDA GPU (%s)\n",
                 probe != cudaSuccess ? cudaGetErrorString(probe) : "no devices");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("CUDA device: %s\n", prop.name);

  // Random input, not a multiple of the segment: the last block is short.
  const unsigned int n = 100000;
  const unsigned int blocks = (n + kSegment - 1) / kSegment;
  std::vector<int> in(n);
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int> value(-1000, 1000);
  for (int& x : in) x = value(rng);

  int *d_in = nullptr, *d_out = nullptr, *d_totals = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_totals, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  own_block_prefix_sums<<<blocks, kThreads>>>(d_in, d_out, d_totals, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<int> out(n), totals(blocks);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(totals.data(), d_totals, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_totals));
  CHECK(cudaFree(d_out));
  int wrong = check_segmented(in, d_in, blocks);
  CHECK(cudaFree(d_in));

  // The CPU's answer: an inclusive prefix sum restarting every kSegment elements.
  for (unsigned int b = 0; b < blocks; ++b) {
    int64_t sum = 0;
    for (unsigned int i = b * kSegment; i < n && i < (b + 1) * kSegment; ++i) {
      sum += in[i];
      if (out[i] != sum && ++wrong <= 10)
        std::fprintf(stderr, "out[%u] = %d, expected %lld\n", i, out[i], static_cast<long long>(sum));
    }
    if (totals[b] != sum && ++wrong <= 10)
      std::fprintf(stderr, "block_totals[%u] = %d, expected %lld\n", b, totals[b], static_cast<long long>(sum));
  }
  if (wrong) {
    std::printf("FAIL: %d wrong values in %u elements, %u blocks\n", wrong, n, blocks);
    return 1;
  }
  std::printf("OK: %u elements in %u blocks of %d x %d match the CPU, scanned whole and in segments\n", n, blocks,
              kThreads, kItems);
  return 0;
}
