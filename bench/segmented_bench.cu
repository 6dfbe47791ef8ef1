// Segmented device scans (segments = offsets / flags / keys) against CUB's
// DeviceScan::InclusiveScanByKey on the same segments, the flat scan of the
// same array and a copy of its bytes: i32 sums (exact: every result is
// checked element for element against a scan on the host first) of n
// elements cut into segments of a mean length L (random lengths, empty
// segments included in the offsets form; L = n is one segment spanning the
// array). The scans run through their generated host wrappers
// (bench/specs/segmented_bench.scan, emitted with --header by
// scripts/gpu-check build), timed with CUDA events: the median of --reps
// runs after warm-up.
//
// A second table times f32 sums by offsets, with and without
// deterministic = true (the fixed-order look-back; with the plan's tile and
// with tiles of 8192), against CUB's scan by
// key of the same f32 values and a copy: the values are small integers, so
// that every order of the combines gives the same exact sums, checked bit
// for bit.
//
// A third table (not with --quick) times the affine recurrence x -> a x + b
// (the f32 maps of examples/affine.scan) over --sequences sequences of random
// length with mean --sequence-mean (uniform in [0, 2 x mean]), one segment
// each by offsets, forward and reverse, against the flat scan of the same
// maps and a copy of their bytes: a = +-1 and b in {-1, 0, 1}, so every
// composition is exact, checked bit for bit. The same scans at other tiles
// (bench/specs/segmented_bench.scan's seg_affine_{fwd,rev}_TxI) follow, in
// the same run. --affine runs this table alone.
//
// CUB has no segmented scan by offsets or flags in this CCCL; its scan by
// key is the one it offers, so its row is the same segments given as keys.
// The bytes each form reads besides the values differ: offsets 4 bytes per
// segment, flags 1 byte per element, keys 4 bytes per element.
//
//   segmented_bench [--log2n 28] [--reps 50] [--csv FILE] [--means L,L,...] [--quick]
//                   [--sequences 4096] [--sequence-mean 4096] [--affine]
//
// --means: the mean segment lengths (default 1,16,1024,65536,n; 0 is n);
// --quick: the forward i32 scans only (no reverse columns, no f32 table).
//
// After the first table, an experiment on the offsets form's plan (always
// run): the offsets turned into head marks first and the flags kernel after
// (a memset of n bytes, a kernel of one thread per segment setting the byte
// of its first element, seg_flags_inclusive), checked like the rest; and the
// same pre-pass writing one bit per element instead (a memset of n / 8 bytes
// and atomicOr per segment), timed alone, the cost a kernel reading head
// bits would add to its own time; and the offsets form's own first launch
// alone (the memset of its workspace and seg_offsets_seg_heads_kernel on the
// grid its wrapper uses: one block of 128 threads a 4096-element tile, the
// plan of bench/specs/segmented_bench.scan), with the scan by offsets minus it.
#include "segmented_bench_gen.cu"
#include "cuda_events.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace {

// The experiment's pre-passes: the first element of every segment marked,
// as a byte (heads[p] = 1) or as bit p % 32 of word p / 32; empty segments
// mark the element that starts the next one, which is marked anyway.
__global__ void heads_from_offsets(const uint32_t* offsets, int64_t count, uint64_t n, uint8_t* heads) {
  const int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s < count && offsets[s] < n) heads[offsets[s]] = 1;
}
__global__ void head_bits_from_offsets(const uint32_t* offsets, int64_t count, uint64_t n, uint32_t* bits) {
  const int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s < count && offsets[s] < n) atomicOr(bits + (offsets[s] >> 5), 1u << (offsets[s] & 31u));
}


// The segments of one case on the host: offsets (segment_count + 1 of
// them), a head flag and a key per element.
struct Segments {
  std::vector<uint32_t> offsets;
  std::vector<uint8_t> flags;
  std::vector<int32_t> keys;
};

Segments make_segments(uint64_t n, uint64_t mean, std::mt19937_64& rng) {
  Segments s;
  s.offsets.push_back(0);
  if (mean >= n) {
    s.offsets.push_back(static_cast<uint32_t>(n));
  } else {
    // Lengths uniform in [0, 2 * mean] (so empty segments too), except
    // mean 1: every element its own segment.
    std::uniform_int_distribution<uint64_t> len(0, 2 * mean);
    uint64_t at = 0;
    while (at < n) {
      const uint64_t l = mean == 1 ? 1 : len(rng);
      at = std::min(n, at + l);
      s.offsets.push_back(static_cast<uint32_t>(at));
    }
  }
  s.flags.assign(n, 0);
  s.keys.assign(n, 0);
  int32_t key = 0;
  for (size_t k = 0; k + 1 < s.offsets.size(); ++k) {
    if (s.offsets[k] == s.offsets[k + 1]) continue;  // empty: no element, no key
    s.flags[s.offsets[k]] = 1;
    ++key;
    for (uint64_t i = s.offsets[k]; i < s.offsets[k + 1]; ++i) s.keys[i] = key;
  }
  return s;
}

template <class T>
bool check(const char* what, const std::vector<T>& want, const T* got_dev, uint64_t n) {
  std::vector<T> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), got_dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (uint64_t i = 0; i < n; ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T))) {
      std::fprintf(stderr, "segmented_bench: %s is wrong at %llu: %g, want %g\n", what, (unsigned long long)i,
                   (double)got[i], (double)want[i]);
      return false;
    }
  return true;
}

// The affine recurrence over `sequences` sequences of random length (mean
// `mean`), by offsets, forward and reverse, against the flat scan of the same
// maps and a copy of their bytes (the third table). False when a result is wrong.
bool affine_sequences(uint64_t sequences, uint64_t mean, int reps, std::mt19937_64& rng, uint64_t seed) {
  struct Map {
    float a, b;
  };
  static_assert(sizeof(Map) == sizeof(seg_affine_T) && sizeof(Map) == sizeof(seg_affine_rev_T) &&
                    sizeof(Map) == sizeof(flat_affine_T),
                "the three scans' maps share one layout");
  std::vector<uint32_t> offs{0};
  std::uniform_int_distribution<uint64_t> len(0, 2 * mean);
  for (uint64_t k = 0; k < sequences; ++k) offs.push_back(static_cast<uint32_t>(offs.back() + len(rng)));
  const uint64_t n = offs.back();
  if (n == 0) return true;
  std::vector<Map> h(n);
  {
    std::uniform_int_distribution<int> pm(0, 1), b(-1, 1);
    for (Map& m : h) m = {pm(rng) ? 1.0f : -1.0f, static_cast<float>(b(rng))};
  }
  // combine(x, y) = {y.a x.a, y.a x.b + y.b}: x first. Exact here (a = +-1, |b| <= n).
  const auto combine = [](Map x, Map y) { return Map{y.a * x.a, y.a * x.b + y.b}; };
  std::vector<Map> want(n), want_rev(n);
  for (uint64_t k = 0; k < sequences; ++k) {
    Map acc{1.0f, 0.0f};
    for (uint64_t i = offs[k]; i < offs[k + 1]; ++i) want[i] = acc = combine(acc, h[i]);
    acc = Map{1.0f, 0.0f};
    for (uint64_t i = offs[k + 1]; i-- > offs[k];) want_rev[i] = acc = combine(acc, h[i]);
  }
  Map *in = nullptr, *out = nullptr;
  uint32_t* d_offs = nullptr;
  void* ws = nullptr;
  const int64_t nn = static_cast<int64_t>(n);
  const size_t ws_bytes = std::max({seg_affine_workspace_bytes(nn), seg_affine_rev_workspace_bytes(nn),
                                    flat_affine_workspace_bytes(nn), seg_affine_rev_64x32_workspace_bytes(nn),
                                    seg_affine_rev_128x8_workspace_bytes(nn), seg_affine_rev_256x8_workspace_bytes(nn),
                                    seg_affine_rev_128x32_workspace_bytes(nn), seg_affine_rev_256x16_workspace_bytes(nn),
                                    seg_affine_fwd_64x32_workspace_bytes(nn), seg_affine_fwd_128x32_workspace_bytes(nn)});
  CHECK_CUDA(cudaMalloc(&in, n * sizeof(Map)));
  CHECK_CUDA(cudaMalloc(&out, n * sizeof(Map)));
  CHECK_CUDA(cudaMalloc(&d_offs, offs.size() * 4));
  CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(Map), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_offs, offs.data(), offs.size() * 4, cudaMemcpyHostToDevice));
  const int64_t count = static_cast<int64_t>(sequences);
  // Every scan of the table through its generated wrapper (the maps share one layout).
#define SEG_AFFINE_RUN(scan) \
  [&] { \
    CHECK_CUDA(scan##_inclusive(reinterpret_cast<const scan##_In*>(in), reinterpret_cast<scan##_T*>(out), d_offs, \
                                count, nn, ws, ws_bytes)); \
  }
  const std::function<void()> forward = SEG_AFFINE_RUN(seg_affine), reverse = SEG_AFFINE_RUN(seg_affine_rev);
  const auto flat = [&] {
    CHECK_CUDA(flat_affine_inclusive(reinterpret_cast<const flat_affine_In*>(in), reinterpret_cast<flat_affine_T*>(out),
                                     nn, ws, ws_bytes));
  };
  const auto copy = [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, n * sizeof(Map), cudaMemcpyDeviceToDevice)); };
  // The same scans at other tiles than the plan's (threads x items in the spec).
  struct Variant {
    const char* what;
    bool reverse;
    std::function<void()> run;
  };
  const Variant variants[] = {{"reverse, 64 x 32", true, SEG_AFFINE_RUN(seg_affine_rev_64x32)},
                              {"reverse, 128 x 8", true, SEG_AFFINE_RUN(seg_affine_rev_128x8)},
                              {"reverse, 256 x 8", true, SEG_AFFINE_RUN(seg_affine_rev_256x8)},
                              {"reverse, 128 x 32", true, SEG_AFFINE_RUN(seg_affine_rev_128x32)},
                              {"reverse, 256 x 16", true, SEG_AFFINE_RUN(seg_affine_rev_256x16)},
                              {"forward, 64 x 32", false, SEG_AFFINE_RUN(seg_affine_fwd_64x32)},
                              {"forward, 128 x 32", false, SEG_AFFINE_RUN(seg_affine_fwd_128x32)}};
#undef SEG_AFFINE_RUN
  bool ok = true;
  const auto check_run = [&](const char* what, const std::function<void()>& run, const std::vector<Map>& w) {
    CHECK_CUDA(cudaMemset(out, 0xA5, n * sizeof(Map)));
    run();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<Map> got(n);
    CHECK_CUDA(cudaMemcpy(got.data(), out, n * sizeof(Map), cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < n; ++i)
      if (std::memcmp(&got[i], &w[i], sizeof(Map))) {
        std::fprintf(stderr,
                     "segmented_bench: affine sequences, %s, is wrong at %llu: {%g, %g}, want {%g, %g} (%llu "
                     "sequences, seed %llu)\n",
                     what, (unsigned long long)i, got[i].a, got[i].b, w[i].a, w[i].b, (unsigned long long)sequences,
                     (unsigned long long)seed);
        return false;
      }
    return true;
  };
  ok = check_run("forward", forward, want) && ok;
  ok = check_run("reverse", reverse, want_rev) && ok;
  for (const Variant& v : variants) ok = check_run(v.what, v.run, v.reverse ? want_rev : want) && ok;
  const float t_fwd = median_ms(forward, reps) * 1000, t_rev = median_ms(reverse, reps) * 1000,
              t_flat = median_ms(flat, reps) * 1000, t_copy = median_ms(copy, reps) * 1000;
  // Counting the offsets read besides the maps: 4 bytes a sequence.
  const double scale = (16.0 * static_cast<double>(n) + 4.0 * static_cast<double>(sequences + 1)) /
                       (16.0 * static_cast<double>(n));
  std::printf("\nThe affine recurrence over %llu sequences of random length (mean %llu, %llu maps of f32 a, b) "
              "by offsets, exact, checked bit for bit; the fractions of copy counting the offsets read:\n\n"
              "| sequences | maps | forward µs | reverse µs | reverse / forward | flat µs | copy µs | forward / copy | "
              "reverse / copy |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
              "| %llu | %llu | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f | %.3f |\n",
              (unsigned long long)sequences, (unsigned long long)mean, (unsigned long long)n,
              (unsigned long long)sequences, (unsigned long long)n, t_fwd, t_rev, t_rev / t_fwd, t_flat, t_copy,
              t_copy * scale / t_fwd, t_copy * scale / t_rev);
  std::printf("\nThe same scans at other tiles (threads x items in the spec; the plans' own are the tuning table's "
              "row for 9 - 12-byte pairs, 128 x 16), in the same run:\n\n"
              "| scan, threads x items | µs | of copy | plan's tile µs / this |\n|---|---:|---:|---:|\n");
  for (const Variant& v : variants) {
    const float t = median_ms(v.run, reps) * 1000;
    std::printf("| %s | %.1f | %.3f | %.3f |\n", v.what, t, t_copy * scale / t, (v.reverse ? t_rev : t_fwd) / t);
  }
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(d_offs), ws})
    CHECK_CUDA(cudaFree(p));
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28, reps = 50;
  const char* csv = nullptr;
  std::vector<uint64_t> means = {1, 16, 1024, 65536, 0};
  bool quick = false, affine_only = false;
  uint64_t sequences = 4096, sequence_mean = 4096;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--affine")) affine_only = true;
    else if (!std::strcmp(argv[i], "--sequences") && i + 1 < argc) sequences = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--sequence-mean") && i + 1 < argc)
      sequence_mean = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--means") && i + 1 < argc) {
      means.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(p, &end, 10);
        if (end == p || (*end && *end != ',')) {
          std::fprintf(stderr, "segmented_bench: --means takes lengths separated by commas\n");
          return 1;
        }
        means.push_back(v);
        p = *end ? end + 1 : end;
      }
    } else {
      std::fprintf(stderr,
                   "usage: segmented_bench [--log2n 28] [--reps 50] [--csv FILE] [--means L,L,...] [--quick]\n"
                   "                       [--sequences 4096] [--sequence-mean 4096] [--affine]\n");
      return 1;
    }
  }
  if (sequences < 1 || sequences > (1u << 20) || sequence_mean < 1 || sequence_mean > (1u << 20)) {
    std::fprintf(stderr, "segmented_bench: --sequences and --sequence-mean must be within 1 .. 2^20\n");
    return 1;
  }
  if (log2n < 10 || log2n > 30) {
    std::fprintf(stderr, "segmented_bench: --log2n must be within 10 .. 30\n");
    return 1;
  }
  const uint64_t n = 1ull << log2n;
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  std::printf("segmented_bench: n = 2^%d i32, seed %llu\n\n", log2n, (unsigned long long)seed);
  if (affine_only) return affine_sequences(sequences, sequence_mean, reps, rng, seed) ? 0 : 1;

  std::vector<int32_t> h_in(n);
  std::vector<float> h_inf(n);  // small integers: every partial sum of 2^30 of them is exact in f32
  {
    std::uniform_int_distribution<int32_t> v(-1000, 1000);
    for (auto& x : h_in) x = v(rng);
    std::uniform_int_distribution<int32_t> w(-8, 8);
    for (auto& x : h_inf) x = static_cast<float>(w(rng));
  }
  int32_t *in = nullptr, *out = nullptr, *keys = nullptr;
  uint8_t* flags = nullptr;
  uint32_t* offsets = nullptr;
  CHECK_CUDA(cudaMalloc(&in, n * 4));
  CHECK_CUDA(cudaMalloc(&out, n * 4));
  CHECK_CUDA(cudaMalloc(&keys, n * 4));
  CHECK_CUDA(cudaMalloc(&flags, n));
  uint8_t* heads = nullptr;  // the experiment's marks: n bytes, or n / 8 bytes of bits
  CHECK_CUDA(cudaMalloc(&heads, n));
  CHECK_CUDA(cudaMalloc(&offsets, (n + 1) * 4));
  float *inf = nullptr, *outf = nullptr;
  CHECK_CUDA(cudaMalloc(&inf, n * 4));
  CHECK_CUDA(cudaMalloc(&outf, n * 4));
  CHECK_CUDA(cudaMemcpy(in, h_in.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(inf, h_inf.data(), n * 4, cudaMemcpyHostToDevice));
  size_t ws_bytes = std::max({seg_offsets_workspace_bytes(n), seg_flags_workspace_bytes(n),
                              seg_keys_workspace_bytes(n), flat_workspace_bytes(n), seg_offsets_rev_workspace_bytes(n),
                              seg_flags_rev_workspace_bytes(n), seg_keys_rev_workspace_bytes(n),
                              seg_offsets_f32_workspace_bytes(n), seg_offsets_f32_det_workspace_bytes(n),
                              seg_offsets_f32_det_256x32_workspace_bytes(n),
                              seg_offsets_f32_det_512x16_workspace_bytes(n)});
  void* ws = nullptr;
  CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  size_t cub_bytes = 0, cub_bytes_f32 = 0;
  CHECK_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, cub_bytes, keys, in, out, cuda::std::plus<>{},
                                                 static_cast<int64_t>(n), cuda::std::equal_to<>{}));
  CHECK_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, cub_bytes_f32, keys, inf, outf, cuda::std::plus<>{},
                                                 static_cast<int64_t>(n), cuda::std::equal_to<>{}));
  cub_bytes = std::max(cub_bytes, cub_bytes_f32);
  void* cub_ws = nullptr;
  CHECK_CUDA(cudaMalloc(&cub_ws, cub_bytes));

  FILE* f = csv ? std::fopen(csv, "w") : nullptr;
  if (csv && !f) {
    std::perror(csv);
    return 1;
  }
  if (f)
    std::fprintf(f, "n,mean_length,segments,offsets_us,flags_us,keys_us,cub_by_key_us,flat_us,copy_us,"
                    "offsets_rev_us,flags_rev_us,keys_rev_us\n");
  std::printf("| mean segment length | segments | offsets µs | flags µs | keys µs | CUB by key µs | "
              "CUB / keys | CUB / offsets | flat µs | copy µs | offsets / copy | reverse offsets µs | "
              "reverse flags µs | reverse keys µs |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  bool ok = true;
  std::vector<std::string> f32_rows;  // the second table, printed after the first
  std::vector<std::tuple<uint64_t, int64_t, float, float, float>> experiment_rows;  // and the experiment's
  std::vector<std::tuple<float, float, float>> experiment_refs;             // offsets, flags, CUB
  for (uint64_t mean : means) {
    if (mean == 0 || mean > n) mean = n;
    const Segments s = make_segments(n, mean, rng);
    const int64_t count = static_cast<int64_t>(s.offsets.size()) - 1;
    CHECK_CUDA(cudaMemcpy(offsets, s.offsets.data(), s.offsets.size() * 4, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(flags, s.flags.data(), n, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(keys, s.keys.data(), n * 4, cudaMemcpyHostToDevice));
    std::vector<int32_t> want(n);
    {
      uint32_t acc = 0;
      for (uint64_t i = 0; i < n; ++i) {
        if (s.flags[i]) acc = 0;
        acc += static_cast<uint32_t>(h_in[i]);
        want[i] = static_cast<int32_t>(acc);
      }
    }
    std::vector<int32_t> want_rev(n);  // reverse: each segment from its last element
    {
      uint32_t acc = 0;
      for (uint64_t i = n; i-- > 0;) {
        if (i + 1 == n || s.flags[i + 1]) acc = 0;
        acc += static_cast<uint32_t>(h_in[i]);
        want_rev[i] = static_cast<int32_t>(acc);
      }
    }
    const auto by_offsets = [&] {
      CHECK_CUDA(seg_offsets_inclusive(in, out, offsets, count, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto by_flags = [&] { CHECK_CUDA(seg_flags_inclusive(in, out, flags, static_cast<int64_t>(n), ws, ws_bytes)); };
    const auto by_keys = [&] { CHECK_CUDA(seg_keys_inclusive(in, out, keys, static_cast<int64_t>(n), ws, ws_bytes)); };
    const auto cub_keys = [&] {
      size_t b = cub_bytes;
      CHECK_CUDA(cub::DeviceScan::InclusiveScanByKey(cub_ws, b, keys, in, out, cuda::std::plus<>{},
                                                     static_cast<int64_t>(n), cuda::std::equal_to<>{}));
    };
    const auto flat = [&] { CHECK_CUDA(flat_inclusive(in, out, static_cast<int64_t>(n), ws, ws_bytes)); };
    const auto rev_offsets = [&] {
      CHECK_CUDA(seg_offsets_rev_inclusive(in, out, offsets, count, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto rev_flags = [&] {
      CHECK_CUDA(seg_flags_rev_inclusive(in, out, flags, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto rev_keys = [&] {
      CHECK_CUDA(seg_keys_rev_inclusive(in, out, keys, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto copy = [&] { CHECK_CUDA(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); };
    const unsigned seg_blocks = static_cast<unsigned>((count + 255) / 256);
    const auto via_flags = [&] {  // the experiment: heads first, then the flags kernel
      CHECK_CUDA(cudaMemsetAsync(heads, 0, n));
      if (count > 0) heads_from_offsets<<<seg_blocks, 256>>>(offsets, count, n, heads);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(seg_flags_inclusive(in, out, heads, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto bits_prep = [&] {
      CHECK_CUDA(cudaMemsetAsync(heads, 0, n / 8));
      if (count > 0) head_bits_from_offsets<<<seg_blocks, 256>>>(offsets, count, n, reinterpret_cast<uint32_t*>(heads));
      CHECK_CUDA(cudaGetLastError());
    };
    const auto heads_kernel = [&] {  // the offsets form's own first launch, alone: its memset and heads kernel
      CHECK_CUDA(cudaMemsetAsync(ws, 0, seg_offsets_workspace_bytes(n)));
      seg_offsets_seg_heads_kernel<<<static_cast<unsigned>((n + 4095) / 4096), 128>>>(
          offsets, static_cast<unsigned long long>(count), static_cast<unsigned long long>(n),
          static_cast<unsigned char*>(ws));
      CHECK_CUDA(cudaGetLastError());
    };
    // Each checked once, its output poisoned first.
    const std::pair<const char*, std::function<void()>> runs[] = {
        {"offsets", by_offsets},         {"flags", by_flags},           {"keys", by_keys},
        {"CUB by key", cub_keys},        {"reverse offsets", rev_offsets}, {"reverse flags", rev_flags},
        {"reverse keys", rev_keys},      {"offsets via flags (experiment)", via_flags}};
    for (const auto& [what, run] : runs) {
      if (quick && !std::strncmp(what, "reverse", 7)) continue;
      CHECK_CUDA(cudaMemset(out, 0xA5, n * 4));
      run();
      CHECK_CUDA(cudaDeviceSynchronize());
      if (!check(what, std::strncmp(what, "reverse", 7) ? want : want_rev, out, n)) {
        std::fprintf(stderr, "  (mean length %llu, %lld segments, seed %llu)\n", (unsigned long long)mean,
                     (long long)count, (unsigned long long)seed);
        ok = false;
      }
    }
    {  // the bits' pre-pass, checked against the host's marks
      bits_prep();
      CHECK_CUDA(cudaDeviceSynchronize());
      std::vector<uint32_t> bits(n / 32);
      CHECK_CUDA(cudaMemcpy(bits.data(), heads, n / 8, cudaMemcpyDeviceToHost));
      uint64_t bad = 0;
      for (uint64_t i = 1; i < n; ++i) bad += ((bits[i >> 5] >> (i & 31)) & 1u) != s.flags[i];
      if (bad) {
        std::fprintf(stderr, "head bits from offsets: %llu of %llu bits wrong (mean length %llu, seed %llu)\n",
                     (unsigned long long)bad, (unsigned long long)n, (unsigned long long)mean,
                     (unsigned long long)seed);
        ok = false;
      }
    }
    const float t_via = median_ms(via_flags, reps) * 1000, t_bits = median_ms(bits_prep, reps) * 1000,
                t_heads = median_ms(heads_kernel, reps) * 1000;
    experiment_rows.push_back(std::make_tuple(mean, count, t_via, t_bits, t_heads));
    const float t_off = median_ms(by_offsets, reps) * 1000, t_flags = median_ms(by_flags, reps) * 1000,
                t_keys = median_ms(by_keys, reps) * 1000, t_cub = median_ms(cub_keys, reps) * 1000,
                t_flat = median_ms(flat, reps) * 1000, t_copy = median_ms(copy, reps) * 1000,
                t_roff = quick ? 0 : median_ms(rev_offsets, reps) * 1000,
                t_rflags = quick ? 0 : median_ms(rev_flags, reps) * 1000,
                t_rkeys = quick ? 0 : median_ms(rev_keys, reps) * 1000;
    // The reverse scans' cells: "-" in the table and empty in the CSV under --quick (not timed).
    const auto reverse_cell = [&](float us, const char* format, const char* untimed) {
      char cell[32];
      std::snprintf(cell, sizeof cell, format, us);
      return std::string(quick ? untimed : cell);
    };
    std::printf("| %llu | %lld | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.1f | %.1f | %.3f | %s | %s | %s |\n",
                (unsigned long long)mean, (long long)count, t_off, t_flags, t_keys, t_cub, t_cub / t_keys,
                t_cub / t_off, t_flat, t_copy, t_copy / t_off, reverse_cell(t_roff, "%.1f", "-").c_str(),
                reverse_cell(t_rflags, "%.1f", "-").c_str(), reverse_cell(t_rkeys, "%.1f", "-").c_str());
    std::fflush(stdout);
    experiment_refs.push_back(std::make_tuple(t_off, t_flags, t_cub));
    if (f)
      std::fprintf(f, "%llu,%llu,%lld,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%s,%s,%s\n", (unsigned long long)n,
                   (unsigned long long)mean, (long long)count, t_off, t_flags, t_keys, t_cub, t_flat, t_copy,
                   reverse_cell(t_roff, "%.2f", "").c_str(), reverse_cell(t_rflags, "%.2f", "").c_str(),
                   reverse_cell(t_rkeys, "%.2f", "").c_str());

    if (quick) continue;
    // f32 by offsets, any order and fixed order, against CUB's scan by key of the same values.
    std::vector<float> want_f(n);
    {
      double acc = 0;  // exact: small integers
      for (uint64_t i = 0; i < n; ++i) {
        if (s.flags[i]) acc = 0;
        acc += h_inf[i];
        want_f[i] = static_cast<float>(acc);
      }
    }
    const auto f32_any = [&] {
      CHECK_CUDA(seg_offsets_f32_inclusive(inf, outf, offsets, count, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto f32_det = [&] {
      CHECK_CUDA(seg_offsets_f32_det_inclusive(inf, outf, offsets, count, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto f32_det_256 = [&] {
      CHECK_CUDA(
          seg_offsets_f32_det_256x32_inclusive(inf, outf, offsets, count, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto f32_det_512 = [&] {
      CHECK_CUDA(
          seg_offsets_f32_det_512x16_inclusive(inf, outf, offsets, count, static_cast<int64_t>(n), ws, ws_bytes));
    };
    const auto cub_f32 = [&] {
      size_t b = cub_bytes;
      CHECK_CUDA(cub::DeviceScan::InclusiveScanByKey(cub_ws, b, keys, inf, outf, cuda::std::plus<>{},
                                                     static_cast<int64_t>(n), cuda::std::equal_to<>{}));
    };
    const std::pair<const char*, std::function<void()>> runs_f32[] = {
        {"f32 offsets", f32_any},
        {"f32 offsets, deterministic", f32_det},
        {"f32 offsets, deterministic, 256 x 32", f32_det_256},
        {"f32 offsets, deterministic, 512 x 16", f32_det_512},
        {"CUB by key f32", cub_f32}};
    for (const auto& [what, run] : runs_f32) {
      CHECK_CUDA(cudaMemset(outf, 0xA5, n * 4));
      run();
      CHECK_CUDA(cudaDeviceSynchronize());
      if (!check(what, want_f, outf, n)) {
        std::fprintf(stderr, "  (mean length %llu, %lld segments, seed %llu)\n", (unsigned long long)mean,
                     (long long)count, (unsigned long long)seed);
        ok = false;
      }
    }
    const float t_fany = median_ms(f32_any, reps) * 1000, t_fdet = median_ms(f32_det, reps) * 1000,
                t_fcub = median_ms(cub_f32, reps) * 1000, t_f256 = median_ms(f32_det_256, reps) * 1000,
                t_f512 = median_ms(f32_det_512, reps) * 1000;
    // Offsets read besides the values: 4 bytes a segment.
    const double bytes = 8.0 * static_cast<double>(n) + 4.0 * static_cast<double>(count + 1);
    char row[512];
    std::snprintf(row, sizeof row,
                  "| %llu | %lld | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.2f | %.1f | %.3f | %.3f |\n",
                  (unsigned long long)mean, (long long)count, t_fany, t_fdet, t_fdet / t_fany, t_f256, t_f512, t_fcub,
                  t_fcub / t_fany, t_copy, t_copy * bytes / (8.0 * static_cast<double>(n)) / t_fany,
                  t_copy * bytes / (8.0 * static_cast<double>(n)) / t_fdet);
    f32_rows.push_back(row);
  }
  std::printf("\nThe offsets form's plan, an experiment: heads first (memset + one thread a segment), then the "
              "flags kernel; the pre-pass as bits (memset of n / 8 bytes + atomicOr), timed alone; the offsets "
              "form's own first launch (memset of its workspace + seg_offsets_seg_heads_kernel), timed alone:\n\n"
              "| mean segment length | segments | offsets µs | via flags µs | CUB / via flags | flags µs | "
              "bits pre-pass µs | heads kernel µs | offsets - heads kernel µs |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < experiment_rows.size(); ++i) {
    const auto& [mean, count, t_via, t_bits, t_heads] = experiment_rows[i];
    const auto& [t_off, t_flags, t_cub] = experiment_refs[i];
    std::printf("| %llu | %lld | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f |\n", (unsigned long long)mean,
                (long long)count, t_off, t_via, t_cub / t_via, t_flags, t_bits, t_heads, t_off - t_heads);
  }
  std::printf("\nf32 sums by offsets (values small integers: exact, checked bit for bit); copy of the values' "
              "bytes, the fractions of copy counting the offsets read:\n\n"
              "| mean segment length | segments | any order µs | deterministic µs | det / any | det 256 x 32 µs | "
              "det 512 x 16 µs | CUB by key µs | CUB / any | copy µs | any / copy | det / copy |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& r : f32_rows) std::fputs(r.c_str(), stdout);
  if (f) std::fclose(f);
  if (!quick) ok = affine_sequences(sequences, sequence_mean, reps, rng, seed) && ok;
  for (void* p : {static_cast<void*>(in), static_cast<void*>(out), static_cast<void*>(inf), static_cast<void*>(outf),
                  static_cast<void*>(keys),
                  static_cast<void*>(flags), static_cast<void*>(heads), static_cast<void*>(offsets), ws, cub_ws})
    CHECK_CUDA(cudaFree(p));
  return ok ? 0 : 1;
}
