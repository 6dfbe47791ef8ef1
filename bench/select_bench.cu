// Fused outputs against CUB in the same run: select (DeviceSelect::If) of
// 1 %, 50 % and 99 % of 2^28 random i32, partition (DevicePartition::If) of
// 50 %, and run-length encoding (DeviceRunLengthEncode::Encode) of 2^28 i32 in
// random runs of mean length 8 (uniform 1 .. 15), each also against a
// device-to-device copy of the bytes it must move (copy of (read + written) / 2
// bytes: the same traffic). scangen's scans are one pass each
// (bench/specs/select_bench.scan through the host wrappers that
// scripts/gpu-check build emits with --header); every result of both is
// checked against a loop on the host before the timing. CUDA events, 3
// warm-up runs, the median of --reps.
//
//   select_bench [--log2n 28] [--reps 50] [--csv FILE]
#include "select_bench_gen.cu"
#include "cuda_events.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <random>
#include <string>
#include <vector>

namespace {



struct Below50 {
  __host__ __device__ bool operator()(int32_t x) const { return x < 50; }
};

template <typename T>
std::vector<T> to_host(const T* d, uint64_t n) {
  std::vector<T> h(n);
  if (n) CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "select_bench: WRONG: %s\n", what.c_str());
    ++failures;
  }
}

struct Row {
  std::string name;
  double moved_gb;  // bytes read + written, in 10^9
  float ours, cub, copy;
};

// Device buffers shared by the cases (the largest each needs).
struct Buffers {
  int32_t* in = nullptr;
  int32_t* out = nullptr;
  uint32_t* lengths = nullptr;
  void* count = nullptr;  // 8 bytes: a u32 count, an int, or the scan's Runs
  void* ws = nullptr;
  size_t ws_bytes = 0;
  void* cub_temp = nullptr;
  size_t cub_bytes = 0;
  unsigned char* copy_src = nullptr;
  unsigned char* copy_dst = nullptr;
};

float time_copy(Buffers& b, size_t bytes, int reps) {
  return median_ms([&] { CHECK_CUDA(cudaMemcpyAsync(b.copy_dst, b.copy_src, bytes, cudaMemcpyDeviceToDevice)); },
                   reps);
}

Row select_case(Buffers& b, const std::vector<int32_t>& h, double kept_ratio, int reps) {
  const uint64_t n = h.size();
  std::vector<int32_t> want;
  for (int32_t x : h)
    if (x < 50) want.push_back(x);
  const uint64_t kept = want.size();
  char name[64];
  std::snprintf(name, sizeof name, "select %g %% kept", kept_ratio * 100);
  // scangen: one pass; the exclusive counts are not written (null).
  auto ours = [&] {
    CHECK_CUDA(select_if_exclusive(b.in, nullptr, b.out, static_cast<uint32_t*>(b.count), static_cast<int64_t>(n),
                                   b.ws, b.ws_bytes, 0));
  };
  CHECK_CUDA(cudaMemset(b.out, 0xAB, n * 4));
  ours();
  expect(to_host(static_cast<uint32_t*>(b.count), 1)[0] == kept, std::string(name) + ": scangen's count");
  expect(to_host(b.out, kept) == want, std::string(name) + ": scangen's values");
  size_t bytes = 0;
  CHECK_CUDA(cub::DeviceSelect::If(nullptr, bytes, b.in, b.out, static_cast<int*>(b.count), n, Below50{}));
  if (bytes > b.cub_bytes) std::fprintf(stderr, "select_bench: CUB wants %zu temporary bytes\n", bytes), std::exit(1);
  auto cub = [&] {
    CHECK_CUDA(cub::DeviceSelect::If(b.cub_temp, bytes, b.in, b.out, static_cast<int*>(b.count), n, Below50{}));
  };
  CHECK_CUDA(cudaMemset(b.out, 0xAB, n * 4));
  cub();
  expect(static_cast<uint64_t>(to_host(static_cast<int*>(b.count), 1)[0]) == kept, std::string(name) + ": CUB's count");
  expect(to_host(b.out, kept) == want, std::string(name) + ": CUB's values");
  const size_t moved = n * 4 + kept * 4 + 4;
  return {name, moved / 1e9, median_ms(ours, reps), median_ms(cub, reps), time_copy(b, moved / 2, reps)};
}

Row partition_case(Buffers& b, const std::vector<int32_t>& h, int reps) {
  const uint64_t n = h.size();
  std::vector<int32_t> want(n);
  uint64_t kept = 0, rejected = 0;
  for (int32_t x : h)
    if (x < 50)
      want[kept++] = x;
    else
      want[n - 1 - rejected++] = x;
  const std::string name = "partition 50 %";
  auto ours = [&] {
    CHECK_CUDA(partition_if_exclusive(b.in, nullptr, b.out, static_cast<uint32_t*>(b.count),
                                      static_cast<int64_t>(n), b.ws, b.ws_bytes, 0));
  };
  ours();
  expect(to_host(static_cast<uint32_t*>(b.count), 1)[0] == kept, name + ": scangen's count");
  expect(to_host(b.out, n) == want, name + ": scangen's values");
  size_t bytes = 0;
  CHECK_CUDA(cub::DevicePartition::If(nullptr, bytes, b.in, b.out, static_cast<int*>(b.count), n, Below50{}));
  if (bytes > b.cub_bytes) std::fprintf(stderr, "select_bench: CUB wants %zu temporary bytes\n", bytes), std::exit(1);
  auto cub = [&] {
    CHECK_CUDA(cub::DevicePartition::If(b.cub_temp, bytes, b.in, b.out, static_cast<int*>(b.count), n, Below50{}));
  };
  CHECK_CUDA(cudaMemset(b.out, 0xAB, n * 4));
  cub();
  expect(static_cast<uint64_t>(to_host(static_cast<int*>(b.count), 1)[0]) == kept, name + ": CUB's count");
  expect(to_host(b.out, n) == want, name + ": CUB's values");
  const size_t moved = n * 8 + 4;
  return {name, moved / 1e9, median_ms(ours, reps), median_ms(cub, reps), time_copy(b, moved / 2, reps)};
}

Row rle_case(Buffers& b, const std::vector<int32_t>& h, int reps) {
  const uint64_t n = h.size();
  std::vector<int32_t> unique;
  std::vector<uint32_t> lengths;
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || h[i] != h[i - 1]) unique.push_back(h[i]), lengths.push_back(0);
    ++lengths.back();
  }
  const uint64_t runs = unique.size();
  char name[64];
  std::snprintf(name, sizeof name, "run-length encode, mean run %.1f", static_cast<double>(n) / runs);
  auto ours = [&] {
    CHECK_CUDA(rle_inclusive(b.in, nullptr, b.out, b.lengths, static_cast<rle_T*>(b.count), static_cast<int64_t>(n),
                             b.ws, b.ws_bytes, 0));
  };
  ours();
  expect(to_host(static_cast<rle_T*>(b.count), 1)[0].runs == runs, std::string(name) + ": scangen's run count");
  expect(to_host(b.out, runs) == unique, std::string(name) + ": scangen's values");
  expect(to_host(b.lengths, runs) == lengths, std::string(name) + ": scangen's lengths");
  size_t bytes = 0;
  int* counts = reinterpret_cast<int*>(b.lengths);
  CHECK_CUDA(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, b.in, b.out, counts, static_cast<int*>(b.count),
                                                static_cast<int>(n)));
  if (bytes > b.cub_bytes) std::fprintf(stderr, "select_bench: CUB wants %zu temporary bytes\n", bytes), std::exit(1);
  auto cub = [&] {
    CHECK_CUDA(cub::DeviceRunLengthEncode::Encode(b.cub_temp, bytes, b.in, b.out, counts, static_cast<int*>(b.count),
                                                  static_cast<int>(n)));
  };
  CHECK_CUDA(cudaMemset(b.out, 0xAB, n * 4));
  cub();
  expect(static_cast<uint64_t>(to_host(static_cast<int*>(b.count), 1)[0]) == runs, std::string(name) + ": CUB's count");
  expect(to_host(b.out, runs) == unique, std::string(name) + ": CUB's values");
  expect(to_host(b.lengths, runs) == lengths, std::string(name) + ": CUB's lengths");
  const size_t moved = n * 4 + runs * 8 + 4;
  return {name, moved / 1e9, median_ms(ours, reps), median_ms(cub, reps), time_copy(b, moved / 2, reps)};
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28, reps = 50;
  const char* csv = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc)
      log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc)
      csv = argv[++i];
    else {
      std::fprintf(stderr, "usage: select_bench [--log2n 28] [--reps 50] [--csv FILE]\n");
      return 1;
    }
  }
  if (log2n < 10 || log2n > 30) {
    std::fprintf(stderr, "select_bench: --log2n must be within 10 .. 30\n");
    return 1;
  }
  const uint64_t n = 1ull << log2n;
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("select_bench: %s, n = 2^%d i32, seed %llu, median of %d runs after 3 warm-up runs\n\n", prop.name,
              log2n, (unsigned long long)seed, reps);

  Buffers b;
  CHECK_CUDA(cudaMalloc(&b.in, n * 4));
  CHECK_CUDA(cudaMalloc(&b.out, n * 4));
  CHECK_CUDA(cudaMalloc(&b.lengths, n * 4));
  CHECK_CUDA(cudaMalloc(&b.count, 8));
  b.ws_bytes = std::max({select_if_workspace_bytes(static_cast<int64_t>(n)),
                         partition_if_workspace_bytes(static_cast<int64_t>(n)), rle_workspace_bytes(static_cast<int64_t>(n))});
  CHECK_CUDA(cudaMalloc(&b.ws, b.ws_bytes));
  b.cub_bytes = 64u << 20;
  CHECK_CUDA(cudaMalloc(&b.cub_temp, b.cub_bytes));
  CHECK_CUDA(cudaMalloc(&b.copy_src, n * 8));
  CHECK_CUDA(cudaMalloc(&b.copy_dst, n * 8));
  CHECK_CUDA(cudaMemset(b.copy_src, 1, n * 8));

  std::vector<Row> rows;
  std::vector<int32_t> h(n);
  // Selection: each element kept (below 50) with probability r, its value random either way.
  for (double r : {0.01, 0.5, 0.99}) {
    std::uniform_int_distribution<int32_t> low(-1000000, 49), high(50, 1000000);
    std::bernoulli_distribution keep(r);
    for (int32_t& x : h) x = keep(rng) ? low(rng) : high(rng);
    CHECK_CUDA(cudaMemcpy(b.in, h.data(), n * 4, cudaMemcpyHostToDevice));
    rows.push_back(select_case(b, h, r, reps));
    if (r == 0.5) rows.push_back(partition_case(b, h, reps));
  }
  // Runs of random lengths 1 .. 15 (mean 8), each value unequal to the one before.
  {
    std::uniform_int_distribution<int32_t> value(-1000000, 1000000), length(1, 15);
    uint64_t i = 0;
    int32_t last = 0;
    while (i < n) {
      int32_t v;
      do v = value(rng);
      while (i > 0 && v == last);
      for (int k = length(rng); k > 0 && i < n; --k) h[i++] = v;
      last = v;
    }
    CHECK_CUDA(cudaMemcpy(b.in, h.data(), n * 4, cudaMemcpyHostToDevice));
    rows.push_back(rle_case(b, h, reps));
  }

  std::printf("| case (2^%d i32) | scangen ms | CUB ms | copy ms | scangen / CUB | scangen GB/s | CUB GB/s | copy GB/s |\n",
              log2n);
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows)
    std::printf("| %s | %.3f | %.3f | %.3f | %.2f | %.0f | %.0f | %.0f |\n", r.name.c_str(), r.ours, r.cub, r.copy,
                r.ours / r.cub, r.moved_gb / (r.ours * 1e-3), r.moved_gb / (r.cub * 1e-3), r.moved_gb / (r.copy * 1e-3));
  std::printf("\nGB/s: bytes read + written (input, kept values or runs' values and lengths, the count) / time; the copy "
              "moves the same bytes (cudaMemcpyAsync of half of them, device to device).\n");
  if (csv) {
    FILE* f = std::fopen(csv, "w");
    if (!f) {
      std::fprintf(stderr, "select_bench: cannot write %s\n", csv);
      return 1;
    }
    std::fprintf(f, "case,log2n,scangen_ms,cub_ms,copy_ms,moved_gb\n");
    for (const Row& r : rows)
      std::fprintf(f, "%s,%d,%.4f,%.4f,%.4f,%.4f\n", r.name.c_str(), log2n, r.ours, r.cub, r.copy, r.moved_gb);
    std::fclose(f);
  }
  for (void* p : {static_cast<void*>(b.in), static_cast<void*>(b.out), static_cast<void*>(b.lengths), b.count, b.ws,
                  b.cub_temp, static_cast<void*>(b.copy_src), static_cast<void*>(b.copy_dst)})
    CHECK_CUDA(cudaFree(p));
  if (failures) {
    std::fprintf(stderr, "select_bench: %d result(s) wrong (seed %llu)\n", failures, (unsigned long long)seed);
    return 1;
  }
  return 0;
}
