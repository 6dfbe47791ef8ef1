// Input arrays against one array of structs, on the same GPU in the same run:
// the f32 affine recurrence scanned from an array of {a, b} (affine_aos) and
// from two f32 arrays a and b (affine_soa, `input = f32, f32;`, the element
// built in the kernel), and a u64 counting sequence made from the index alone
// (iota_u64, `input = none;`) beside a u64 sum that reads the same values
// (sum_u64). The scans run through their generated host wrappers
// (bench/specs/soa_bench.scan, emitted with --header by scripts/gpu-check
// build), timed with CUDA events: the median of --reps runs after warm-up,
// the pairs interleaved run by run so that clocks and temperature treat both
// alike. Every result is checked first: the SoA scan against the AoS one
// (within 1e-4, the look-back's order of tile totals depends on timing), the
// counting sequence against the sum, exactly. A fused map: the i32 prefix sum
// of f(x[i], i) = 3 x[i] + i % 7 in one pass (map_sum, convert(x, i)) against
// a map kernel writing f(x[i], i) (16-byte words) and then sum_i32 over what
// it wrote (two passes), checked equal.
//
//   soa_bench [--log2n 20,24,28] [--reps 50] [--csv FILE]
#include "soa_bench_gen.cu"
#include "cuda_events.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {


// The two-pass map: y[i] = 3 x[i] + i % 7 (wrapping), four elements a thread.
__global__ void map_kernel(const int4* x, int4* y, long long words) {
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < words;
       w += (long long)gridDim.x * blockDim.x) {
    const int4 v = x[w];
    const unsigned long long i = 4ull * (unsigned long long)w;
    y[w] = make_int4((int)(3u * (unsigned)v.x + (unsigned)(i % 7)), (int)(3u * (unsigned)v.y + (unsigned)((i + 1) % 7)),
                     (int)(3u * (unsigned)v.z + (unsigned)((i + 2) % 7)), (int)(3u * (unsigned)v.w + (unsigned)((i + 3) % 7)));
  }
}

// Runs f and g alternately, reps times each after a warm-up; the median times in ms.
template <class F, class G>
std::pair<float, float> paired_median_ms(F&& f, G&& g, int reps) {
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) {
    f();
    g();
  }
  std::vector<float> tf, tg;
  auto time = [&](auto&& h) {
    CHECK_CUDA(cudaEventRecord(a));
    h();
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    return ms;
  };
  for (int i = 0; i < reps; ++i) {
    if (i % 2 == 0) {
      tf.push_back(time(f));
      tg.push_back(time(g));
    } else {
      tg.push_back(time(g));
      tf.push_back(time(f));
    }
  }
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

std::vector<int> parse_list(const char* s) {
  std::vector<int> v;
  for (const char* p = s; *p;) {
    v.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p == ',') ++p;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log2n = {20, 24, 28};
  int reps = 50;
  const char* csv_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--log2n" && i + 1 < argc) log2n = parse_list(argv[++i]);
    else if (arg == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (arg == "--csv" && i + 1 < argc) csv_path = argv[++i];
    else {
      std::fprintf(stderr, "usage: soa_bench [--log2n 20,24,28] [--reps 50] [--csv FILE]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("# soa_bench on %s: input arrays (SoA) against one array of structs (AoS), median of %d runs\n\n",
              prop.name, reps);
  std::printf("| scan | n | time (us) | GB/s (bytes in + out) | vs the pair's first |\n|---|---|---|---|---|\n");
  FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
  if (csv) std::fprintf(csv, "scan,log2n,n,us,gbps,ratio\n");
  int status = 0;
  for (int lg : log2n) {
    const int64_t n = int64_t{1} << lg;
    const size_t un = static_cast<size_t>(n);
    // Factors in [0.75, 1.25] and offsets in [-1, 1]: a contracting recurrence on average.
    std::mt19937 rng(12345u + static_cast<unsigned>(lg));
    std::uniform_real_distribution<float> fa(0.75f, 1.25f), fb(-1.0f, 1.0f);
    std::vector<float> a(un), b(un);
    std::vector<affine_aos_T> ab(un);
    for (size_t i = 0; i < un; ++i) {
      a[i] = fa(rng);
      b[i] = fb(rng);
      ab[i].a = a[i];
      ab[i].b = b[i];
    }
    float *d_a = nullptr, *d_b = nullptr;
    affine_aos_T *d_ab = nullptr, *d_out_aos = nullptr;
    affine_soa_T* d_out_soa = nullptr;
    sum_u64_T *d_values = nullptr, *d_sum = nullptr;
    iota_u64_T* d_iota = nullptr;
    CHECK_CUDA(cudaMalloc(&d_a, un * 4));
    CHECK_CUDA(cudaMalloc(&d_b, un * 4));
    CHECK_CUDA(cudaMalloc(&d_ab, un * 8));
    CHECK_CUDA(cudaMalloc(&d_out_aos, un * 8));
    CHECK_CUDA(cudaMalloc(&d_out_soa, un * 8));
    CHECK_CUDA(cudaMalloc(&d_values, un * 8));
    CHECK_CUDA(cudaMalloc(&d_iota, un * 8));
    CHECK_CUDA(cudaMalloc(&d_sum, un * 8));
    CHECK_CUDA(cudaMemcpy(d_a, a.data(), un * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_b, b.data(), un * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_ab, ab.data(), un * 8, cudaMemcpyHostToDevice));
    std::vector<sum_u64_T> values(un);
    for (size_t i = 0; i < un; ++i) values[i] = i;
    CHECK_CUDA(cudaMemcpy(d_values, values.data(), un * 8, cudaMemcpyHostToDevice));
    std::vector<int> xs(un);
    for (size_t i = 0; i < un; ++i) xs[i] = static_cast<int>(rng() % 2001) - 1000;
    int *d_x = nullptr, *d_y = nullptr, *d_fused = nullptr, *d_two = nullptr;
    CHECK_CUDA(cudaMalloc(&d_x, un * 4));
    CHECK_CUDA(cudaMalloc(&d_y, un * 4));
    CHECK_CUDA(cudaMalloc(&d_fused, un * 4));
    CHECK_CUDA(cudaMalloc(&d_two, un * 4));
    CHECK_CUDA(cudaMemcpy(d_x, xs.data(), un * 4, cudaMemcpyHostToDevice));
    const size_t ws_bytes = std::max({affine_aos_workspace_bytes(n), affine_soa_workspace_bytes(n),
                                      iota_u64_workspace_bytes(n), sum_u64_workspace_bytes(n),
                                      map_sum_workspace_bytes(n), sum_i32_workspace_bytes(n)});
    void* ws = nullptr;
    CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
    auto aos = [&] { CHECK_CUDA(affine_aos_inclusive(d_ab, d_out_aos, n, ws, ws_bytes)); };
    auto soa = [&] { CHECK_CUDA(affine_soa_inclusive(d_a, d_b, d_out_soa, n, ws, ws_bytes)); };
    auto iota = [&] { CHECK_CUDA(iota_u64_inclusive(d_iota, n, ws, ws_bytes)); };
    auto sum = [&] { CHECK_CUDA(sum_u64_inclusive(d_values, d_sum, n, ws, ws_bytes)); };
    auto fused = [&] { CHECK_CUDA(map_sum_inclusive(d_x, d_fused, n, ws, ws_bytes)); };
    auto two_pass = [&] {
      const long long words = n / 4;  // n is a power of two >= 2^10
      map_kernel<<<static_cast<unsigned>(std::min<long long>((words + 255) / 256, 132 * 32)), 256>>>(
          reinterpret_cast<const int4*>(d_x), reinterpret_cast<int4*>(d_y), words);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(sum_i32_inclusive(d_y, d_two, n, ws, ws_bytes));
    };
    // The results first.
    aos();
    soa();
    iota();
    sum();
    fused();
    two_pass();
    CHECK_CUDA(cudaDeviceSynchronize());
    {
      std::vector<int> r_fused(un), r_two(un);
      CHECK_CUDA(cudaMemcpy(r_fused.data(), d_fused, un * 4, cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(r_two.data(), d_two, un * 4, cudaMemcpyDeviceToHost));
      uint32_t want = 0;  // wrapping, as the scans
      for (size_t i = 0; i < un; ++i) {
        want += 3u * static_cast<uint32_t>(xs[i]) + static_cast<uint32_t>(i % 7);
        if (static_cast<uint32_t>(r_fused[i]) != want || static_cast<uint32_t>(r_two[i]) != want) {
          std::fprintf(stderr, "n = 2^%d: element %zu: fused %d, two passes %d, want %d\n", lg, i, r_fused[i],
                       r_two[i], static_cast<int>(want));
          status = 1;
          break;
        }
      }
    }
    std::vector<affine_aos_T> r_aos(un);
    std::vector<affine_soa_T> r_soa(un);
    std::vector<iota_u64_T> r_iota(un);
    std::vector<sum_u64_T> r_sum(un);
    CHECK_CUDA(cudaMemcpy(r_aos.data(), d_out_aos, un * 8, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(r_soa.data(), d_out_soa, un * 8, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(r_iota.data(), d_iota, un * 8, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(r_sum.data(), d_sum, un * 8, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < un; ++i) {
      const float da = std::fabs(r_aos[i].a - r_soa[i].a), db = std::fabs(r_aos[i].b - r_soa[i].b);
      if (da > 1e-4f * (1.0f + std::fabs(r_aos[i].a)) || db > 1e-4f * (1.0f + std::fabs(r_aos[i].b))) {
        std::fprintf(stderr, "n = 2^%d: SoA and AoS differ at %zu: {%g, %g} vs {%g, %g}\n", lg, i, r_soa[i].a,
                     r_soa[i].b, r_aos[i].a, r_aos[i].b);
        status = 1;
        break;
      }
    }
    for (size_t i = 0; i < un; ++i) {
      const uint64_t want = static_cast<uint64_t>(i) * (i + 1) / 2;
      if (r_iota[i] != want || r_sum[i] != want) {
        std::fprintf(stderr, "n = 2^%d: element %zu: counting %llu, sum %llu, want %llu\n", lg, i,
                     static_cast<unsigned long long>(r_iota[i]), static_cast<unsigned long long>(r_sum[i]),
                     static_cast<unsigned long long>(want));
        status = 1;
        break;
      }
    }
    const auto [t_aos, t_soa] = paired_median_ms(aos, soa, reps);
    const auto [t_sum, t_iota] = paired_median_ms(sum, iota, reps);
    const auto [t_two, t_fused] = paired_median_ms(two_pass, fused, reps);
    auto row = [&](const char* name, float ms, double bytes, float first) {
      const double us = ms * 1e3, gbps = bytes / (ms * 1e-3) / 1e9;
      std::printf("| %s | 2^%d | %.1f | %.0f | %.3f |\n", name, lg, us, gbps, ms / first);
      if (csv) std::fprintf(csv, "%s,%d,%lld,%.2f,%.1f,%.4f\n", name, lg, static_cast<long long>(n), us, gbps, ms / first);
    };
    const double nb = static_cast<double>(n);
    row("affine_aos (Affine[] in)", t_aos, 16 * nb, t_aos);
    row("affine_soa (f32[] a, f32[] b in)", t_soa, 16 * nb, t_aos);
    row("sum_u64 (u64[] in)", t_sum, 16 * nb, t_sum);
    row("iota_u64 (no input array)", t_iota, 8 * nb, t_sum);
    row("map kernel + sum_i32 (two passes)", t_two, 16 * nb, t_two);
    row("map_sum (convert(x, i), one pass)", t_fused, 8 * nb, t_two);
    for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_ab),
                    static_cast<void*>(d_out_aos), static_cast<void*>(d_out_soa), static_cast<void*>(d_values),
                    static_cast<void*>(d_iota), static_cast<void*>(d_sum), static_cast<void*>(d_x),
                    static_cast<void*>(d_y), static_cast<void*>(d_fused), static_cast<void*>(d_two), ws})
      CHECK_CUDA(cudaFree(p));
  }
  if (csv) std::fclose(csv);
  std::printf("\nGoals: affine_soa within 3 %% of affine_aos (ratio <= 1.03); map_sum at least 1.8 x as fast as the "
              "two passes (ratio <= 0.556).%s\n",
              status ? " Some results were WRONG (above)." : " Every result checked.");
  return status;
}
