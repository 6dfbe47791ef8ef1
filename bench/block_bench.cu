// Block-level scan throughput: every block algorithm scangen generates, on an
// i32 sum and on the composition of affine maps, against a device-to-device
// copy of the same bytes and against CUB's cub::BlockScan with the same
// algorithm and shape.
//
// Build (scripts/gpu-check build does this):
//
//   scangen emit bench/specs/block_bench.scan -o build/bench/block_bench_gen.cu
//   nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -Xcompiler -Wall,-Wextra
//        -Ibuild/bench bench/block_bench.cu -o .gpu/block_bench
//
// Run: block_bench [--log2n 28] [--runs 25] [--warmup 3] [--csv FILE] ...
// (block_bench --help). The Markdown report goes to standard output, progress
// and diagnostics to standard error.
//
// What is measured. Each kernel scans N elements (2^28 by default) in
// independent segments, one segment per block (per warp for the warp-level
// reference), reading the input once and writing the inclusive scan once:
// 2 * N * sizeof(T) bytes of memory traffic, against which GB/s is computed.
// Every kernel, the copy included, is timed the same way: warm-up launches,
// then each timed launch between its own pair of CUDA events, and the median
// of the timed launches is reported.
//
// Correctness. Before timing, every kernel writes into an output buffer
// filled with garbage; a sample of its segments (the first, the last and
// random ones in between, or all with --check-all) is copied back and
// compared with a scan computed on the CPU, exactly: i32 sums wrap around,
// and the affine inputs have a in {-1, +1} and b a small integer, so every
// prefix is exact in f32 whatever the grouping. The same check is repeated on
// the output of the last timed launch. A kernel that fails either check gets
// no time in the report, and the program exits 1.
//
// The shapes below must match bench/specs/block_bench.scan. The static
// asserts check the generated types and kernel signatures; a wrong thread or
// item count in the table shifts the segment boundaries, which the
// correctness check catches.

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/version.cuh>

// Generated at build time from bench/specs/block_bench.scan: one extern "C"
// entry kernel P_scan_kernel(const P_In* in, P_T* inclusive, u64 n) per scan.
#include "block_bench_gen.cu"

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

// ---------------------------------------------------------------------------
// Errors

// Exit codes.
constexpr int kExitWrongResult = 1;  // a kernel failed its correctness check
constexpr int kExitCuda = 2;         // no usable CUDA device, or a CUDA call failed
constexpr int kExitUsage = 3;        // bad command line

#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    const cudaError_t cuda_check_err_ = (call);                                                    \
    if (cuda_check_err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "block_bench: %s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,  \
                   cudaGetErrorString(cuda_check_err_), cudaGetErrorName(cuda_check_err_));        \
      std::exit(kExitCuda);                                                                        \
    }                                                                                              \
  } while (0)

// ---------------------------------------------------------------------------
// Element types and operators, host side and for the CUB kernels

// The host's view of the scan's Affine struct: the map v -> a*v + b.
struct Affine {
  float a;
  float b;
};

enum class Elem { I32, Affine };

const char* elem_name(Elem e) { return e == Elem::I32 ? "i32" : "Affine"; }
size_t elem_bytes(Elem e) { return e == Elem::I32 ? sizeof(int32_t) : sizeof(Affine); }

// i32 sum with wrap-around, as scangen defines it (computed unsigned).
struct SumI32 {
  __host__ __device__ static int32_t identity() { return 0; }
  __host__ __device__ int32_t operator()(int32_t x, int32_t y) const {
    return (int32_t)((uint32_t)x + (uint32_t)y);
  }
};

// Affine composition, x the earlier map: with the rounding of the generated
// combine (round-to-nearest multiply and add, no fused multiply-add).
struct ComposeAffine {
  __host__ __device__ static Affine identity() { return Affine{1.0f, 0.0f}; }
  __device__ Affine operator()(const Affine& x, const Affine& y) const {
    return Affine{__fmul_rn(y.a, x.a), __fadd_rn(__fmul_rn(y.a, x.b), y.b)};
  }
};

// The CPU reference. The test inputs keep every value exact, so plain float
// arithmetic gives the same bits as the GPU's.
int32_t cpu_combine(int32_t x, int32_t y) { return (int32_t)((uint32_t)x + (uint32_t)y); }
Affine cpu_combine(const Affine& x, const Affine& y) { return Affine{y.a * x.a, y.a * x.b + y.b}; }
bool same(int32_t x, int32_t y) { return x == y; }
bool same(const Affine& x, const Affine& y) { return x.a == y.a && x.b == y.b; }
std::string show(int32_t x) { return std::to_string(x); }
std::string show(const Affine& x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "{a: %g, b: %g}", (double)x.a, (double)x.b);
  return buf;
}

// ---------------------------------------------------------------------------
// The CUB comparison kernel: the same job as the generated entry kernel. Each
// block scans one segment of THREADS * ITEMS elements held in a blocked
// arrangement, with CUB's usual split: full segments unguarded, the last one
// guarded and padded with the identity.
//
// The comparison rows (vs CUB) load and store directly from and to global
// memory in the blocked arrangement (BLOCK_LOAD_DIRECT / BLOCK_STORE_DIRECT),
// as the generated entry kernel does, so that only the block scan differs.
// One more row per element uses warp-transposed I/O (BLOCK_LOAD_WARP_TRANSPOSE
// / BLOCK_STORE_WARP_TRANSPOSE: coalesced warp-striped accesses, transposed
// through shared memory) with BLOCK_SCAN_WARP_SCANS, the arrangement CUB's
// own device-wide scan uses, to show what the memory access pattern costs.

template <typename T, typename Op, cub::BlockScanAlgorithm ALGORITHM, int THREADS, int ITEMS,
          cub::BlockLoadAlgorithm LOAD, cub::BlockStoreAlgorithm STORE>
__global__ void __launch_bounds__(THREADS) cub_scan_kernel(const T* in, T* out, unsigned long long n) {
  using Load = cub::BlockLoad<T, THREADS, ITEMS, LOAD>;
  using Store = cub::BlockStore<T, THREADS, ITEMS, STORE>;
  using Scan = cub::BlockScan<T, THREADS, ALGORITHM>;
  // Direct loads and stores need no scratch (their TempStorage is empty).
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } temp;
  constexpr bool kReuse = LOAD != cub::BLOCK_LOAD_DIRECT || STORE != cub::BLOCK_STORE_DIRECT;

  const unsigned long long first = (unsigned long long)blockIdx.x * (THREADS * ITEMS);
  const unsigned long long left = n - first;
  T items[ITEMS];
  if (left >= (unsigned long long)(THREADS * ITEMS)) {
    Load(temp.load).Load(in + first, items);
    if constexpr (kReuse) __syncthreads();
    Scan(temp.scan).InclusiveScan(items, items, Op());
    if constexpr (kReuse) __syncthreads();
    Store(temp.store).Store(out + first, items);
  } else {
    const int valid = (int)left;
    Load(temp.load).Load(in + first, items, valid, Op::identity());
    if constexpr (kReuse) __syncthreads();
    Scan(temp.scan).InclusiveScan(items, items, Op());
    if constexpr (kReuse) __syncthreads();
    Store(temp.store).Store(out + first, items, valid);
  }
}

// ---------------------------------------------------------------------------
// The table of kernels

struct Kernel {
  std::string name;       // row label
  std::string source;     // "scangen" or "cub"
  std::string algorithm;  // raking, raking_memoize, warp_scans, ...; CUB's in scangen's spelling
  std::string io;         // "direct" (blocked, straight from global memory) or "warp_transpose"
  Elem elem;
  int threads;        // per block
  int group_threads;  // threads that scan one segment: the block, or a warp of 32
  int items;          // per thread
  const void* fn;     // __global__ void (const T* in, T* out, unsigned long long n)
};

// The host type a generated element type must match.
template <Elem E>
struct HostType;
template <>
struct HostType<Elem::I32> {
  using type = int32_t;
};
template <>
struct HostType<Elem::Affine> {
  using type = Affine;
};

// A generated entry kernel, its signature and element type checked at compile
// time against what the table says.
template <Elem E, typename T, typename In>
Kernel scangen_kernel(const char* name, const char* algorithm, int threads, int group_threads, int items,
                      void (*fn)(const In*, T*, scangen_u64)) {
  using H = typename HostType<E>::type;
  static_assert(std::is_same<In, T>::value, "the bench scans have no separate input type");
  static_assert(sizeof(T) == sizeof(H) && alignof(T) == alignof(H), "generated element type differs from the table's");
  static_assert(std::is_trivially_copyable<T>::value, "generated element type is copied bytewise");
  return Kernel{name,  "scangen", algorithm, "direct", E, threads, group_threads,
                items, reinterpret_cast<const void*>(fn)};
}

// The field offsets of the generated Affine structs are those of the host's.
#define CHECK_AFFINE_LAYOUT(P)                                                                    \
  static_assert(offsetof(P##_T, a) == offsetof(Affine, a) && offsetof(P##_T, b) == offsetof(Affine, b), \
                #P "_T is laid out unlike Affine")
CHECK_AFFINE_LAYOUT(raking_affine);
CHECK_AFFINE_LAYOUT(raking_memoize_affine);
CHECK_AFFINE_LAYOUT(warp_scans_affine);
CHECK_AFFINE_LAYOUT(hillis_steele_affine);
CHECK_AFFINE_LAYOUT(blelloch_affine);
CHECK_AFFINE_LAYOUT(kogge_stone_affine);
static_assert(std::is_same<raking_i32_T, int32_t>::value, "i32 is int32_t");

// Shapes, as in bench/specs/block_bench.scan: 256 threads, 64 bytes per thread.
constexpr int kThreads = 256;
constexpr int kItemsI32 = 16;
constexpr int kItemsAffine = 8;

#define SCANGEN_BLOCK(P, ALGO, E, ITEMS) \
  scangen_kernel<E>(#P, ALGO, kThreads, kThreads, ITEMS, P##_scan_kernel)
#define SCANGEN_WARP(P, ALGO, E, ITEMS) scangen_kernel<E>(#P " (warp 32)", ALGO, kThreads, 32, ITEMS, P##_scan_kernel)

template <Elem E, typename Op, cub::BlockScanAlgorithm A, int ITEMS, bool TRANSPOSE = false>
Kernel cub_kernel(const char* name, const char* algorithm) {
  using T = typename HostType<E>::type;
  constexpr cub::BlockLoadAlgorithm load = TRANSPOSE ? cub::BLOCK_LOAD_WARP_TRANSPOSE : cub::BLOCK_LOAD_DIRECT;
  constexpr cub::BlockStoreAlgorithm store = TRANSPOSE ? cub::BLOCK_STORE_WARP_TRANSPOSE : cub::BLOCK_STORE_DIRECT;
  return Kernel{name,     "cub",    algorithm, TRANSPOSE ? "warp_transpose" : "direct", E, kThreads, kThreads,
                ITEMS,    reinterpret_cast<const void*>(&cub_scan_kernel<T, Op, A, kThreads, ITEMS, load, store>)};
}

std::vector<Kernel> all_kernels() {
  return {
      SCANGEN_BLOCK(raking_i32, "raking", Elem::I32, kItemsI32),
      SCANGEN_BLOCK(raking_memoize_i32, "raking_memoize", Elem::I32, kItemsI32),
      SCANGEN_BLOCK(warp_scans_i32, "warp_scans", Elem::I32, kItemsI32),
      SCANGEN_BLOCK(hillis_steele_i32, "hillis_steele", Elem::I32, kItemsI32),
      SCANGEN_BLOCK(blelloch_i32, "blelloch", Elem::I32, kItemsI32),
      SCANGEN_WARP(kogge_stone_i32, "kogge_stone", Elem::I32, kItemsI32),
      cub_kernel<Elem::I32, SumI32, cub::BLOCK_SCAN_RAKING, kItemsI32>("cub BLOCK_SCAN_RAKING", "raking"),
      cub_kernel<Elem::I32, SumI32, cub::BLOCK_SCAN_RAKING_MEMOIZE, kItemsI32>("cub BLOCK_SCAN_RAKING_MEMOIZE",
                                                                              "raking_memoize"),
      cub_kernel<Elem::I32, SumI32, cub::BLOCK_SCAN_WARP_SCANS, kItemsI32>("cub BLOCK_SCAN_WARP_SCANS", "warp_scans"),
      cub_kernel<Elem::I32, SumI32, cub::BLOCK_SCAN_WARP_SCANS, kItemsI32, true>(
          "cub BLOCK_SCAN_WARP_SCANS, warp-transposed I/O", "warp_scans"),

      SCANGEN_BLOCK(raking_affine, "raking", Elem::Affine, kItemsAffine),
      SCANGEN_BLOCK(raking_memoize_affine, "raking_memoize", Elem::Affine, kItemsAffine),
      SCANGEN_BLOCK(warp_scans_affine, "warp_scans", Elem::Affine, kItemsAffine),
      SCANGEN_BLOCK(hillis_steele_affine, "hillis_steele", Elem::Affine, kItemsAffine),
      SCANGEN_BLOCK(blelloch_affine, "blelloch", Elem::Affine, kItemsAffine),
      SCANGEN_WARP(kogge_stone_affine, "kogge_stone", Elem::Affine, kItemsAffine),
      cub_kernel<Elem::Affine, ComposeAffine, cub::BLOCK_SCAN_RAKING, kItemsAffine>("cub BLOCK_SCAN_RAKING",
                                                                                    "raking"),
      cub_kernel<Elem::Affine, ComposeAffine, cub::BLOCK_SCAN_RAKING_MEMOIZE, kItemsAffine>(
          "cub BLOCK_SCAN_RAKING_MEMOIZE", "raking_memoize"),
      cub_kernel<Elem::Affine, ComposeAffine, cub::BLOCK_SCAN_WARP_SCANS, kItemsAffine>("cub BLOCK_SCAN_WARP_SCANS",
                                                                                        "warp_scans"),
      cub_kernel<Elem::Affine, ComposeAffine, cub::BLOCK_SCAN_WARP_SCANS, kItemsAffine, true>(
          "cub BLOCK_SCAN_WARP_SCANS, warp-transposed I/O", "warp_scans"),
  };
}

// ---------------------------------------------------------------------------
// Inputs, generated on the device from a hash of the index

__host__ __device__ inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// i32: the whole range, so that sums wrap around.
__global__ void fill_i32(int32_t* out, unsigned long long n, uint64_t seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = (int32_t)(uint32_t)mix64(seed ^ i);
}

// Affine: a in {-1, +1}, b in {-3, ..., 3}. Every prefix then has a = +-1 and
// |b| <= 3 * segment, exact in f32.
__global__ void fill_affine(Affine* out, unsigned long long n, uint64_t seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const uint64_t h = mix64(seed ^ i);
    out[i] = Affine{(h & 1) ? 1.0f : -1.0f, (float)((int)((h >> 8) % 7) - 3)};
  }
}

// ---------------------------------------------------------------------------
// Options

struct Options {
  int log2n = 28;
  int runs = 25;
  int warmup = 3;
  int samples = 256;
  bool check_all = false;
  int device = 0;
  std::string csv;
  std::string filter;
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: block_bench [options]\n"
               "\n"
               "Times scangen's block-level scans (i32 sum, affine composition) on 2^log2n\n"
               "elements in segments, against a device-to-device copy of the same bytes and\n"
               "CUB's cub::BlockScan; prints a Markdown report on standard output.\n"
               "\n"
               "  --log2n K      scan 2^K elements per kernel (1..32; default 28)\n"
               "  --runs R       timed launches per kernel, median reported (default 25)\n"
               "  --warmup W     untimed launches first (default 3)\n"
               "  --samples S    segments checked against the CPU per kernel (default 256)\n"
               "  --check-all    check every segment instead (slow for large K)\n"
               "  --filter STR   only kernels whose name contains STR (copies always run)\n"
               "  --device D     CUDA device index (default 0)\n"
               "  --csv FILE     also write the results as CSV to FILE\n"
               "  --help         this text\n"
               "\n"
               "exit status: 0 all kernels correct, 1 a kernel gave wrong results, 2 no usable\n"
               "CUDA device or a CUDA error, 3 bad command line\n");
}

[[noreturn]] void bad_usage(const std::string& msg) {
  std::fprintf(stderr, "block_bench: %s\n", msg.c_str());
  usage(stderr);
  std::exit(kExitUsage);
}

int int_arg(const char* flag, const char* text, int lo, int hi) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi)
    bad_usage(std::string(flag) + " wants an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
              ", not '" + text + "'");
  return (int)v;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) bad_usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--log2n") {
      o.log2n = int_arg("--log2n", value(), 1, 32);
    } else if (a == "--runs") {
      o.runs = int_arg("--runs", value(), 1, 10000);
    } else if (a == "--warmup") {
      o.warmup = int_arg("--warmup", value(), 0, 10000);
    } else if (a == "--samples") {
      o.samples = int_arg("--samples", value(), 1, 1 << 30);
    } else if (a == "--check-all") {
      o.check_all = true;
    } else if (a == "--filter") {
      o.filter = value();
    } else if (a == "--device") {
      o.device = int_arg("--device", value(), 0, 1024);
    } else if (a == "--csv") {
      o.csv = value();
    } else {
      bad_usage("unknown option '" + a + "'");
    }
  }
  return o;
}

// ---------------------------------------------------------------------------
// Timing

struct Timing {
  double median_us = 0, min_us = 0, max_us = 0;
};

// `warmup` launches, then `runs` launches each between its own pair of
// events; all are queued before the one synchronisation.
template <typename Launch>
Timing time_launches(const Launch& launch, int warmup, int runs, cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<cudaEvent_t> start(runs), stop(runs);
  for (int i = 0; i < runs; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
  for (int i = 0; i < runs; ++i) {
    CUDA_CHECK(cudaEventRecord(start[i], stream));
    launch();
    CUDA_CHECK(cudaEventRecord(stop[i], stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us(runs);
  for (int i = 0; i < runs; ++i) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
    us[i] = 1000.0 * ms;
    CUDA_CHECK(cudaEventDestroy(start[i]));
    CUDA_CHECK(cudaEventDestroy(stop[i]));
  }
  std::sort(us.begin(), us.end());
  Timing t;
  t.min_us = us.front();
  t.max_us = us.back();
  t.median_us = runs % 2 ? us[runs / 2] : 0.5 * (us[runs / 2 - 1] + us[runs / 2]);
  return t;
}

// ---------------------------------------------------------------------------
// Correctness

// The segments to check: all of them when there are few (or --check-all);
// otherwise the first four, the last four (the last may be short) and
// pseudo-random ones in between.
std::vector<uint64_t> sample_segments(uint64_t segments, const Options& o) {
  std::vector<uint64_t> s;
  if (o.check_all || segments <= (uint64_t)o.samples) {
    for (uint64_t i = 0; i < segments; ++i) s.push_back(i);
    return s;
  }
  const uint64_t ends = std::min<uint64_t>(4, (uint64_t)o.samples / 2);
  for (uint64_t i = 0; i < ends; ++i) {
    s.push_back(i);
    s.push_back(segments - 1 - i);
  }
  for (uint64_t k = 0; s.size() < (size_t)o.samples; ++k) s.push_back(mix64(0x5eedull + k) % segments);
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

// Compares the device output with the CPU's scan of the device input on the
// sampled segments; on a mismatch, describes the first one in *why.
template <typename T>
bool check_output(const T* d_in, const T* d_out, uint64_t n, uint64_t segment, const std::vector<uint64_t>& segs,
                  std::string* why) {
  std::vector<T> in, out;
  for (uint64_t s : segs) {
    const uint64_t first = s * segment;
    const uint64_t len = std::min(segment, n - first);
    in.resize(len);
    out.resize(len);
    CUDA_CHECK(cudaMemcpy(in.data(), d_in + first, len * sizeof(T), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out.data(), d_out + first, len * sizeof(T), cudaMemcpyDeviceToHost));
    T acc = in[0];
    for (uint64_t i = 0; i < len; ++i) {
      if (i > 0) acc = cpu_combine(acc, in[i]);
      if (!same(acc, out[i])) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "segment %" PRIu64 " (of %" PRIu64 " elements), element %" PRIu64
                      " (index %" PRIu64 "): ", s, segment, i, first + i);
        *why = std::string(buf) + "expected " + show(acc) + ", got " + show(out[i]);
        return false;
      }
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Report

struct Row {
  std::string name, source, algorithm, io;
  Elem elem;
  int threads = 0, items = 0;
  uint64_t segment = 0;  // elements per block
  uint64_t blocks = 0;
  int regs = 0;
  size_t smem = 0;
  int blocks_per_sm = 0;
  std::string status;  // "ok", "wrong", "copy"
  std::string why;     // the first mismatch of a wrong kernel
  Timing t;
  double gbps = 0, of_copy = 0;
  double vs_cub = 0;  // CUB's time / this kernel's time; 0 where there is no CUB row
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// A row's label: scangen's kernels are named after their scan.
std::string label(const std::string& source, const std::string& name) {
  return source == "scangen" ? "scangen " + name : name;
}

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// ---------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options opt = parse_options(argc, argv);

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (err != cudaSuccess)
      std::fprintf(stderr, "block_bench: no usable CUDA device: cudaGetDeviceCount failed: %s (%s)\n",
                   cudaGetErrorString(err), cudaGetErrorName(err));
    else
      std::fprintf(stderr, "block_bench: no usable CUDA device: cudaGetDeviceCount found none\n");
    return kExitCuda;
  }
  if (opt.device >= count) {
    std::fprintf(stderr, "block_bench: --device %d, but there are %d CUDA device(s)\n", opt.device, count);
    return kExitCuda;
  }
  CUDA_CHECK(cudaSetDevice(opt.device));

  // Open the CSV now, so that a bad path fails before the long run.
  FILE* csv = nullptr;
  if (!opt.csv.empty() && !(csv = std::fopen(opt.csv.c_str(), "w"))) {
    std::fprintf(stderr, "block_bench: cannot write %s: %s\n", opt.csv.c_str(), std::strerror(errno));
    return kExitUsage;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, opt.device));
  int driver = 0, runtime = 0, mem_khz = 0, bus_bits = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, opt.device));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, opt.device));
  const double peak_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;  // double data rate

  const uint64_t n = 1ull << opt.log2n;
  std::vector<Kernel> kernels;
  for (const Kernel& k : all_kernels())
    if (opt.filter.empty() || k.name.find(opt.filter) != std::string::npos) kernels.push_back(k);

  // One input and one output buffer, big enough for the widest element.
  size_t max_bytes = 0;
  for (Elem e : {Elem::I32, Elem::Affine}) max_bytes = std::max(max_bytes, (size_t)n * elem_bytes(e));
  void* d_in = nullptr;
  void* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, max_bytes));
  CUDA_CHECK(cudaMalloc(&d_out, max_bytes));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  std::vector<Row> rows;
  bool all_ok = true;
  for (Elem e : {Elem::I32, Elem::Affine}) {
    const size_t bytes = (size_t)n * elem_bytes(e);
    std::fprintf(stderr, "block_bench: %s, n = 2^%d\n", elem_name(e), opt.log2n);
    if (e == Elem::I32)
      fill_i32<<<4096, 256, 0, stream>>>(static_cast<int32_t*>(d_in), n, 0x1234);
    else
      fill_affine<<<4096, 256, 0, stream>>>(static_cast<Affine*>(d_in), n, 0x5678);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamSynchronize(stream));

    // The copy: the same bytes read and written.
    Row copy;
    copy.name = "cudaMemcpyAsync D2D";
    copy.source = "copy";
    copy.algorithm = "copy";
    copy.io = "copy";
    copy.elem = e;
    copy.status = "copy";
    copy.t = time_launches(
        [&] { CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, stream)); }, opt.warmup,
        opt.runs, stream);
    copy.gbps = 2.0 * bytes / (copy.t.median_us * 1e-6) / 1e9;
    copy.of_copy = 1.0;
    rows.push_back(copy);
    const size_t first_row = rows.size();

    for (const Kernel& k : kernels) {
      if (k.elem != e) continue;
      std::fprintf(stderr, "block_bench:   %s\n", label(k.source, k.name).c_str());
      Row r;
      r.name = k.name;
      r.source = k.source;
      r.algorithm = k.algorithm;
      r.io = k.io;
      r.elem = e;
      r.threads = k.threads;
      r.items = k.items;
      r.segment = (uint64_t)k.threads * k.items;
      r.blocks = (n + r.segment - 1) / r.segment;
      cudaFuncAttributes attr{};
      CUDA_CHECK(cudaFuncGetAttributes(&attr, k.fn));
      r.regs = attr.numRegs;
      r.smem = attr.sharedSizeBytes;
      CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, k.fn, k.threads, 0));

      const void* in = d_in;
      void* out = d_out;
      unsigned long long n_arg = n;
      void* args[] = {&in, &out, &n_arg};
      auto launch = [&] {
        CUDA_CHECK(cudaLaunchKernel(k.fn, dim3((unsigned)r.blocks), dim3((unsigned)k.threads), args, 0, stream));
      };

      // Check on a garbage-filled output, time, check the last timed output.
      const uint64_t check_segment = (uint64_t)k.group_threads * k.items;
      const std::vector<uint64_t> segs = sample_segments((n + check_segment - 1) / check_segment, opt);
      auto check = [&](const char* when) {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::string why;
        const bool ok =
            e == Elem::I32
                ? check_output(static_cast<const int32_t*>(d_in), static_cast<const int32_t*>(d_out), n,
                               check_segment, segs, &why)
                : check_output(static_cast<const Affine*>(d_in), static_cast<const Affine*>(d_out), n,
                               check_segment, segs, &why);
        if (!ok) {
          r.why = std::string(when) + ": " + why;
          std::fprintf(stderr, "block_bench: %s (%s) is WRONG, %s\n", label(k.source, k.name).c_str(),
                       elem_name(e), r.why.c_str());
        }
        return ok;
      };
      CUDA_CHECK(cudaMemsetAsync(d_out, 0xA5, bytes, stream));
      launch();
      bool ok = check("before timing");
      if (ok) {
        r.t = time_launches(launch, opt.warmup, opt.runs, stream);
        ok = check("after timing");
      }
      if (ok) {
        r.status = "ok";
        r.gbps = 2.0 * bytes / (r.t.median_us * 1e-6) / 1e9;
        r.of_copy = copy.t.median_us / r.t.median_us;
      } else {
        r.status = "wrong";
        r.t = Timing{};
        all_ok = false;
      }
      rows.push_back(r);
    }

    // vs CUB: the CUB row of the same algorithm, element and (direct) I/O.
    for (size_t i = first_row; i < rows.size(); ++i) {
      if (rows[i].source != "scangen" || rows[i].status != "ok") continue;
      for (size_t j = first_row; j < rows.size(); ++j)
        if (rows[j].source == "cub" && rows[j].status == "ok" && rows[j].algorithm == rows[i].algorithm &&
            rows[j].io == rows[i].io)
          rows[i].vs_cub = rows[j].t.median_us / rows[i].t.median_us;
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));

  // ---- Markdown report on standard output ----
  std::printf("## block_bench: block-level scan throughput\n\n");
  std::printf("- device: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB; peak memory bandwidth %.0f GB/s from "
              "memory clock x bus width)\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024), prop.l2CacheSize / (1024 * 1024), peak_gbps);
  std::printf("- CUDA driver %s, runtime %s; CUB %d.%d.%d\n", cuda_version(driver).c_str(),
              cuda_version(runtime).c_str(), CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
  std::printf("- date: %s\n", now_utc().c_str());
  std::printf("- N = 2^%d = %" PRIu64 " elements per kernel, inclusive scan in segments of threads x items "
              "(one per block; one per warp for kogge_stone)\n",
              opt.log2n, n);
  std::printf("- time: median of %d launches after %d warm-up launches, CUDA events around each launch\n", opt.runs,
              opt.warmup);
  std::printf("- GB/s = 2 * N * sizeof(element) / time (input read once, output written once; 1 GB = 1e9 bytes)\n");
  std::printf("- fraction of copy = copy time / kernel time, the copy being cudaMemcpyAsync device to device of "
              "N * sizeof(element) bytes\n");
  std::printf("- vs CUB = CUB time / scangen time for cub::BlockScan with the same algorithm, element and shape, "
              "loading and storing the blocked arrangement directly from and to global memory as the generated "
              "kernel does (BLOCK_LOAD_DIRECT / BLOCK_STORE_DIRECT); above 1: scangen is faster. The "
              "\"warp-transposed I/O\" rows load and store through shared memory instead "
              "(BLOCK_LOAD_WARP_TRANSPOSE / BLOCK_STORE_WARP_TRANSPOSE)\n");
  std::printf("- checked against the CPU on %s segments per kernel, before and after timing\n\n",
              opt.check_all ? "all" : ("up to " + std::to_string(opt.samples)).c_str());

  std::printf("| kernel | element | threads×items | time µs | GB/s | fraction of copy | vs CUB same algorithm |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    const std::string shape =
        r.source == "copy" ? "—" : std::to_string(r.threads) + "×" + std::to_string(r.items);
    const std::string name = label(r.source, r.name);
    if (r.status == "wrong") {
      std::printf("| %s | %s | %s | WRONG | — | — | — |\n", name.c_str(), elem_name(r.elem), shape.c_str());
      continue;
    }
    std::printf("| %s | %s | %s | %.1f | %.0f | %.2f | %s |\n", name.c_str(), elem_name(r.elem), shape.c_str(),
                r.t.median_us, r.gbps, r.of_copy, r.vs_cub > 0 ? fmt("%.2f", r.vs_cub).c_str() : "—");
  }
  bool any_wrong = false;
  for (const Row& r : rows)
    if (r.status == "wrong") {
      if (!any_wrong) std::printf("\n### Wrong results (no time reported)\n\n");
      any_wrong = true;
      std::printf("- %s (%s): %s\n", label(r.source, r.name).c_str(), elem_name(r.elem), r.why.c_str());
    }
  std::fflush(stdout);

  // ---- CSV ----
  if (csv) {
    FILE* f = csv;
    std::fprintf(f, "kernel,source,algorithm,io,element,element_bytes,threads,items,segment,n,bytes_moved,blocks,"
                    "regs,static_smem,blocks_per_sm,median_us,min_us,max_us,gbps,fraction_of_copy,vs_cub,status\n");
    for (const Row& r : rows) {
      const bool timed = r.status != "wrong";
      std::fprintf(f, "\"%s\",%s,%s,%s,%s,%zu,%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%zu,%d,%s,%s,%s,"
                      "%s,%s,%s,%s\n",
                   r.name.c_str(), r.source.c_str(), r.algorithm.c_str(), r.io.c_str(), elem_name(r.elem),
                   elem_bytes(r.elem),
                   r.threads, r.items, r.segment, n, (uint64_t)(2 * n * elem_bytes(r.elem)), r.blocks, r.regs, r.smem,
                   r.blocks_per_sm, timed ? fmt("%.2f", r.t.median_us).c_str() : "",
                   timed ? fmt("%.2f", r.t.min_us).c_str() : "", timed ? fmt("%.2f", r.t.max_us).c_str() : "",
                   timed ? fmt("%.1f", r.gbps).c_str() : "", timed ? fmt("%.4f", r.of_copy).c_str() : "",
                   r.vs_cub > 0 ? fmt("%.4f", r.vs_cub).c_str() : "", r.status.c_str());
    }
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "block_bench: cannot write %s: %s\n", opt.csv.c_str(), std::strerror(errno));
      return kExitUsage;
    }
  }
  return all_ok ? 0 : kExitWrongResult;
}
