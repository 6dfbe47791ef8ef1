// Batched-row and column scans (shape = rows / strided) against a copy of
// the same bytes: f32 sums of rows (4096 x 4096, 65536 x 256, 2^20 x 32)
// and of the columns of row-major matrices (1M x 32, 1M x 2, 65536 x 1024),
// through the generated host wrappers (bench/specs/shape_bench.scan,
// emitted with --header by scripts/gpu-check build), timed with CUDA events:
// the median of --reps runs after warm-up. The copy is cudaMemcpyAsync of
// the matrix (the scan reads it once and writes it once: the same bytes).
// The deterministic cases (deterministic = true: the fixed-order look-back)
// go against the same shapes without it.
// Each result is checked against a double-precision scan on the host first.
//
//   shape_bench [--reps 200] [--csv FILE] [--tiles]
//
// --tiles: instead, the forward rows and columns cases with every tile of
// the spec's variants (rows_sum_tT_iI, cols_sum_tT_iI: T threads x I items)
// against the plan's tile, in one run, each result checked.
#include "shape_bench_gen.cu"
#include "cuda_events.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {


struct Case {
  const char* name;
  bool rows;  // rows (dim=1) or columns (dim=0)
  uint64_t r, c;
  bool reverse = false;  // reverse = true: each row or column from its last element
  bool det = false;      // deterministic = true: the fixed-order look-back
};


// The scan of the case on the device, from d_in into d_out.
cudaError_t scan(const Case& k, const float* d_in, float* d_out, void* ws, size_t ws_bytes) {
  const uint64_t extents[2] = {k.r, k.c}, strides[2] = {k.c, 1};
  if (k.rows && k.det) return rows_sum_det_inclusive(d_in, d_out, k.r, k.c, k.c, k.c, ws, ws_bytes, 0);
  if (k.det) return cols_sum_det_inclusive(d_in, d_out, 2, extents, strides, nullptr, 0, ws, ws_bytes, 0);
  if (k.rows && k.reverse) return rows_sum_rev_inclusive(d_in, d_out, k.r, k.c, k.c, k.c, ws, ws_bytes, 0);
  if (k.rows) return rows_sum_inclusive(d_in, d_out, k.r, k.c, k.c, k.c, ws, ws_bytes, 0);
  if (k.reverse) return cols_sum_rev_inclusive(d_in, d_out, 2, extents, strides, nullptr, 0, ws, ws_bytes, 0);
  return cols_sum_inclusive(d_in, d_out, 2, extents, strides, nullptr, 0, ws, ws_bytes, 0);
}

size_t workspace(const Case& k) {
  const uint64_t extents[2] = {k.r, k.c}, strides[2] = {k.c, 1};
  if (k.rows && k.det) return rows_sum_det_workspace_bytes(k.r, k.c, k.c, k.c);
  if (k.det) return cols_sum_det_workspace_bytes(2, extents, strides, nullptr, 0);
  if (k.rows && k.reverse) return rows_sum_rev_workspace_bytes(k.r, k.c, k.c, k.c);
  if (k.rows) return rows_sum_workspace_bytes(k.r, k.c, k.c, k.c);
  if (k.reverse) return cols_sum_rev_workspace_bytes(2, extents, strides, nullptr, 0);
  return cols_sum_workspace_bytes(2, extents, strides, nullptr, 0);
}

// The tiles of `shape_bench --tiles`: the plan's, then the spec's variants.
typedef cudaError_t (*RowsScan)(const float*, float*, uint64_t, uint64_t, uint64_t, uint64_t, void*, size_t,
                                cudaStream_t);
typedef size_t (*RowsBytes)(uint64_t, uint64_t, uint64_t, uint64_t);
typedef cudaError_t (*ColsScan)(const float*, float*, int, const uint64_t*, const uint64_t*, const uint64_t*, int,
                                void*, size_t, cudaStream_t);
typedef size_t (*ColsBytes)(int, const uint64_t*, const uint64_t*, const uint64_t*, int);
struct Tile {
  const char* name;
  RowsScan rows;
  RowsBytes rows_bytes;
  ColsScan cols;
  ColsBytes cols_bytes;
};
#define SG_TILE_VARIANT(suffix)                                                                            \
  {#suffix, rows_sum##suffix##_inclusive, rows_sum##suffix##_workspace_bytes, cols_sum##suffix##_inclusive, \
   cols_sum##suffix##_workspace_bytes}
const Tile kTiles[] = {
    {"plan", rows_sum_inclusive, rows_sum_workspace_bytes, cols_sum_inclusive, cols_sum_workspace_bytes},
    SG_TILE_VARIANT(_t128_i32), SG_TILE_VARIANT(_t128_i16), SG_TILE_VARIANT(_t256_i16),
    SG_TILE_VARIANT(_t512_i16),
    {"_t256_i8", rows_sum_t256_i8_inclusive, rows_sum_t256_i8_workspace_bytes, nullptr, nullptr},
};

// The input of every case: n floats in [-0.5, 0.5) from a fixed LCG.
std::vector<float> test_input(uint64_t n) {
  std::vector<float> h(n);
  uint32_t x = 12345;
  for (float& v : h) v = static_cast<float>((x = x * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
  return h;
}

// Largest relative error against a double-precision host scan.
double check(const Case& k, const std::vector<float>& in, const std::vector<float>& out) {
  double worst = 0;
  const uint64_t lines = k.rows ? k.r : k.c, len = k.rows ? k.c : k.r;
  for (uint64_t l = 0; l < lines; ++l) {
    double s = 0, mag = 0;
    for (uint64_t q = 0; q < len; ++q) {
      const uint64_t p = k.reverse ? len - 1 - q : q;
      const uint64_t at = k.rows ? l * k.c + p : p * k.c + l;
      s += in[at];
      mag += std::fabs(in[at]);
      worst = std::max(worst, std::fabs(out[at] - s) / std::max(1.0, mag));
    }
  }
  return worst;
}

// shape_bench --tiles: the forward cases, every tile against the copy, in one run.
int run_tiles(const cudaDeviceProp& prop, int reps) {
  const Case cases[] = {
      {"rows 4096 x 4096", true, 4096, 4096},  {"rows 65536 x 256", true, 65536, 256},
      {"rows 2^20 x 32", true, 1u << 20, 32},  {"rows 4 x 2^26", true, 4, 1u << 26},
      {"columns 1M x 32", false, 1u << 20, 32}, {"columns 1M x 2", false, 1u << 20, 2},
      {"columns 65536 x 1024", false, 65536, 1024},
  };
  std::printf("# shape_bench --tiles on %s, median of %d runs (CUDA events), fraction of the copy\n\n", prop.name,
              reps);
  std::printf("| case | copy (us) |");
  for (const Tile& t : kTiles) std::printf(" %s |", t.name);
  std::printf("\n|---|---:|");
  for (size_t i = 0; i < sizeof(kTiles) / sizeof(kTiles[0]); ++i) std::printf("---:|");
  std::printf("\n");
  int failed = 0;
  for (const Case& k : cases) {
    const uint64_t n = k.r * k.c;
    const uint64_t extents[2] = {k.r, k.c}, strides[2] = {k.c, 1};
    const std::vector<float> h = test_input(n);
    float *d_in = nullptr, *d_out = nullptr;
    CHECK_CUDA(cudaMalloc(&d_in, n * 4));
    CHECK_CUDA(cudaMalloc(&d_out, n * 4));
    CHECK_CUDA(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    const float copy_ms =
        median_ms([&] { CHECK_CUDA(cudaMemcpyAsync(d_out, d_in, n * 4, cudaMemcpyDeviceToDevice, 0)); }, reps, 5);
    std::printf("| %s | %.1f |", k.name, copy_ms * 1e3);
    for (const Tile& t : kTiles) {
      if (!k.rows && !t.cols) {
        std::printf(" - |");
        continue;
      }
      const size_t ws_bytes = k.rows ? t.rows_bytes(k.r, k.c, k.c, k.c) : t.cols_bytes(2, extents, strides, nullptr, 0);
      void* ws = nullptr;
      CHECK_CUDA(cudaMalloc(&ws, ws_bytes ? ws_bytes : 16));
      auto run = [&] {
        return k.rows ? t.rows(d_in, d_out, k.r, k.c, k.c, k.c, ws, ws_bytes, 0)
                      : t.cols(d_in, d_out, 2, extents, strides, nullptr, 0, ws, ws_bytes, 0);
      };
      CHECK_CUDA(cudaMemset(d_out, 0xff, n * 4));
      CHECK_CUDA(run());
      std::vector<float> got(n);
      CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
      const double err = check(k, h, got);
      const float ms = median_ms([&] { CHECK_CUDA(run()); }, reps, 5);
      std::printf(" %.3f%s |", copy_ms / ms, err > 1e-4 ? " WRONG" : "");
      if (err > 1e-4) ++failed;
      CHECK_CUDA(cudaFree(ws));
    }
    std::printf("\n");
    std::fflush(stdout);
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_out));
  }
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 200;
  std::string csv;
  bool tiles = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tiles") {
      tiles = true;
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--csv" && i + 1 < argc) {
      csv = argv[++i];
    } else {
      std::fprintf(stderr, "usage: shape_bench [--reps N] [--csv FILE] [--tiles]\n");
      return 2;
    }
  }
  const Case cases[] = {
      {"rows 4096 x 4096", true, 4096, 4096},          {"rows 65536 x 256", true, 65536, 256},
      {"rows 2^20 x 32", true, 1u << 20, 32},          {"columns 1M x 32", false, 1u << 20, 32},
      {"columns 1M x 2", false, 1u << 20, 2},          {"columns 65536 x 1024", false, 65536, 1024},
      {"rows 4096 x 4096 reverse", true, 4096, 4096, true},
      {"rows 2^20 x 32 reverse", true, 1u << 20, 32, true},
      {"columns 1M x 32 reverse", false, 1u << 20, 32, true},
      {"columns 65536 x 1024 reverse", false, 65536, 1024, true},
      {"rows 4096 x 4096 deterministic", true, 4096, 4096, false, true},
      {"rows 2^20 x 32 deterministic", true, 1u << 20, 32, false, true},
      {"rows 4 x 2^26 deterministic", true, 4, 1u << 26, false, true},
      {"rows 4 x 2^26", true, 4, 1u << 26},
      {"columns 1M x 32 deterministic", false, 1u << 20, 32, false, true},
      {"columns 65536 x 1024 deterministic", false, 65536, 1024, false, true},
  };
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  if (tiles) return run_tiles(prop, reps);
  std::printf("# shape_bench on %s, median of %d runs (CUDA events)\n\n", prop.name, reps);
  std::printf("| case | scan (us) | copy (us) | scan / copy speed | GB/s (read + write) | max rel. error |\n");
  std::printf("|---|---|---|---|---|---|\n");
  FILE* out_csv = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out_csv) std::fprintf(out_csv, "case,rows,cols,scan_us,copy_us,ratio,gbps\n");
  int failed = 0;
  for (const Case& k : cases) {
    const uint64_t n = k.r * k.c;
    const std::vector<float> h = test_input(n);
    float *d_in = nullptr, *d_out = nullptr;
    void* ws = nullptr;
    const size_t ws_bytes = workspace(k);
    CHECK_CUDA(cudaMalloc(&d_in, n * 4));
    CHECK_CUDA(cudaMalloc(&d_out, n * 4));
    CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
    CHECK_CUDA(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(scan(k, d_in, d_out, ws, ws_bytes));
    std::vector<float> got(n);
    CHECK_CUDA(cudaMemcpy(got.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
    const double err = check(k, h, got);
    if (err > 1e-4) ++failed;
    const float scan_ms = median_ms([&] { CHECK_CUDA(scan(k, d_in, d_out, ws, ws_bytes)); }, reps, 5);
    const float copy_ms =
        median_ms([&] { CHECK_CUDA(cudaMemcpyAsync(d_out, d_in, n * 4, cudaMemcpyDeviceToDevice, 0)); }, reps, 5);
    const double gbps = 2.0 * n * 4 / (scan_ms * 1e6);
    std::printf("| %s | %.1f | %.1f | %.3f | %.0f | %.1e%s |\n", k.name, scan_ms * 1e3, copy_ms * 1e3,
                copy_ms / scan_ms, gbps, err, err > 1e-4 ? " WRONG" : "");
    if (out_csv)
      std::fprintf(out_csv, "%s,%llu,%llu,%.2f,%.2f,%.4f,%.1f\n", k.name, (unsigned long long)k.r,
                   (unsigned long long)k.c, scan_ms * 1e3, copy_ms * 1e3, copy_ms / scan_ms, gbps);
    CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaFree(ws));
  }
  if (out_csv) std::fclose(out_csv);
  return failed ? 1 : 0;
}
