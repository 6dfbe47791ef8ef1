// Device-wide scan throughput: scangen's device scans, CUB's
// cub::DeviceScan and a device-to-device copy of the same bytes, timed in one
// run, for sizes N = 2^10, 2^12, ..., 2^30.
//
// Build (scripts/gpu-check build does this):
//
//   scangen emit bench/specs/device_bench.scan -o build/bench/device_bench_gen.cu
//   nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -Xcompiler -Wall,-Wextra
//        -Ibuild/bench bench/device_bench.cu -o .gpu/device_bench
//
// Run: device_bench [--max-log2n 30] [--only NAME] [--csv FILE] ...
// (device_bench --help). The Markdown report goes to standard output,
// progress and diagnostics to standard error.
//
// What one call is. Each implementation is timed per call, the way a program
// would call it, host-side dispatch included:
//   - scangen, decoupled_lookback: one launch of P_scan_kernel(in, inclusive,
//     n, workspace) with max(1, ceil(n / tile)) blocks of the plan's
//     threads, after a cudaMemsetAsync of the 16 + tiles x status bytes of
//     workspace it uses (as the plan says) when there is more than one tile,
//     as the kernel's contract asks and the host wrappers do; from 128 tiles
//     (kZeroKernelFromTiles), as the runtime does, after P_zero_workspace
//     instead, with P_scan_kernel as its programmatic dependent launch.
//     That is what a call in a caller's workspace costs (--zero-each-call).
//     By default the calls run as the runtime runs them in a Scan's own
//     workspace: the kernels tag their statuses with the call's epoch
//     (Plan::epoch_tags, every look-back case here), so the workspace is
//     zeroed whole before the first call of more than one tile and again only
//     every generator::kEpochCallsBeforeZero such calls, and a call is one
//     launch of P_scan_kernel.
//     The workspace is allocated once per case.
//   - scangen, reduce_then_scan: its three launches (reduce, spine, scan),
//     the partials (one element per tile) allocated once.
//   - CUB: cub::DeviceScan::InclusiveSum (sums) or InclusiveScan with a
//     functor (max, affine, 2x2 matrices), temporary storage allocated once;
//     the call includes CUB's own dispatch, which launches its tile-state
//     initialisation kernel and its scan kernel.
//   - copy: cudaMemcpyAsync device to device of N * sizeof(element) bytes.
// Every call is queued on one stream between its own pair of CUDA events;
// warm-up calls first, then the timed ones, 32 at a time behind a kernel that
// waits until they are queued (so the events time the GPU, not the host's
// launch rate; --host-paced: without it); the median is reported.
//
// Correctness. Before timing, scangen and CUB each scan n = 1, 1000 and
// 2^24 + 3 elements into an output filled with garbage, and the whole output
// is compared with a scan computed on the CPU. The inputs keep every result
// exact whatever the grouping of the combines: integer sums wrap around and
// are exact anyway; float sums add the differences of a bounded random
// sequence, so that every partial sum is a difference of two of its terms;
// affine maps are built the same way, with a = +-1; matrices are signed
// permutation matrices. Then, at every timed size, the output of scangen's
// last timed call is compared on the device with that of CUB's last timed
// call (after CUB passed its own check). A kernel that fails gets no time
// (the row says WRONG) and the program exits 1.
//
// The plan constants below (threads, tile, status bytes, shared memory) are
// those `scangen explain --dump=plan bench/specs/device_bench.scan` prints
// for the spec; static asserts check the generated types, and the program
// checks each scan kernel's block size and static shared memory against the
// table before launching it (a wrong tile would leave a ticket untaken and
// the next call waiting for ever).

#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>
#include <cuda/functional>
#include <cuda_fp16.h>

// Generated at build time from bench/specs/device_bench.scan: per scan P the
// extern "C" kernels P_scan_kernel (and for reduce_then_scan P_reduce_kernel,
// P_spine_kernel) and the element type P_T.
#include "device_bench_gen.cu"
#include "bench_buffers.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

// ---------------------------------------------------------------------------
// Errors

// Exit codes.
constexpr int kExitWrongResult = 1;  // a kernel failed its correctness check
constexpr int kExitCuda = 2;         // no usable CUDA device, or a CUDA call failed
constexpr int kExitUsage = 3;        // bad command line

// Timing mode. Blocked (the default): the calls are queued behind a kernel
// that waits until the host has queued them all, so that the events time
// the GPU's work alone, back to back, as in a stream kept busy; without it
// (--host-paced) a call that takes less than the host needs to launch it is
// timed at the host's launch rate (events around each call, nothing held).
bool g_host_paced = false;

#define CUDA_CHECK(call)                                                                           \
  do {                                                                                             \
    const cudaError_t cuda_check_err_ = (call);                                                    \
    if (cuda_check_err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "device_bench: %s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(cuda_check_err_), cudaGetErrorName(cuda_check_err_));        \
      std::exit(kExitCuda);                                                                        \
    }                                                                                              \
  } while (0)

// Waits for the stream, at most `seconds`. A device scan that never finishes
// (a tile waiting for a predecessor that never publishes) cannot be stopped
// from the host; the process then ends at once, which tears its context down.
void sync_stream(cudaStream_t stream, const std::string& what, double seconds = 60.0) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) {
      std::fprintf(stderr, "device_bench: %s: cudaStreamQuery(stream) failed: %s (%s)\n", what.c_str(),
                   cudaGetErrorString(e), cudaGetErrorName(e));
      std::exit(kExitCuda);
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      std::fprintf(stderr, "device_bench: %s did not finish within %.0f s; giving up\n", what.c_str(), seconds);
      std::fflush(stdout);
      std::fflush(stderr);
      std::_Exit(kExitWrongResult);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// ---------------------------------------------------------------------------
// Inputs: a hash of the index

__host__ __device__ inline uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A bounded random sequence: P(i) in [-half, half], P(-1) = 0.
__host__ __device__ inline int walk(uint64_t i, uint64_t seed, int half) {
  return (int)(mix64(seed ^ i) % (uint64_t)(2 * half + 1)) - half;
}
// Its differences: the sum of elements i..j is P(j) - P(i-1), so every partial
// sum, in any grouping, is an integer of magnitude <= 2 * half.
__host__ __device__ inline int telescoped(uint64_t i, uint64_t seed, int half) {
  return walk(i, seed, half) - (i > 0 ? walk(i - 1, seed, half) : 0);
}

// ---------------------------------------------------------------------------
// Element types and operators. Each operator class gives:
//   T         the element as stored (the generated P_T has its size and layout)
//   Ref       the CPU reference's type (T, or float for f16)
//   gen       input element i (device)
//   eq        two outputs are the same value (device, for the scangen vs CUB check)
//   ref/cpu/same/show   the CPU reference: convert, combine (x the earlier), compare, print
//   cub       the CUB call

// The host's view of the scans' struct types.
struct Affine {  // the map v -> a*v + b
  float a;
  float b;
};
struct Mat2 {  // [[a, b], [c, d]]
  float a, b, c, d;
};

// Integer sums: the whole range, wrapping around.
template <typename Int>
struct WrapSum {
  using T = Int;
  using Ref = Int;
  __device__ static T gen(uint64_t i, uint64_t seed) { return (T)mix64(seed ^ i); }
  __device__ static bool eq(T x, T y) { return x == y; }
  static Ref ref(T v) { return v; }
  static Ref cpu(Ref x, Ref y) {
    using U = std::make_unsigned_t<Int>;
    return (Int)(U)((U)x + (U)y);
  }
  static bool same(Ref x, Ref y) { return x == y; }
  static std::string show(Ref v) { return std::to_string((long long)v); }
  static cudaError_t cub(void* temp, size_t& bytes, const T* in, T* out, int n, cudaStream_t s) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, s);
  }
};

// f32 / f64 sums: integer differences of magnitude <= 2000, exact.
template <typename F>
struct FloatSum {
  using T = F;
  using Ref = F;
  __device__ static T gen(uint64_t i, uint64_t seed) { return (T)telescoped(i, seed, 1000); }
  __device__ static bool eq(T x, T y) { return x == y; }
  static Ref ref(T v) { return v; }
  static Ref cpu(Ref x, Ref y) { return x + y; }
  static bool same(Ref x, Ref y) { return x == y; }
  static std::string show(Ref v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.17g", (double)v);
    return buf;
  }
  static cudaError_t cub(void* temp, size_t& bytes, const T* in, T* out, int n, cudaStream_t s) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, s);
  }
};

// IEEE binary16 bits -> float (host).
float half_bits_to_float(uint16_t h) {
  const int exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 0)
    v = std::ldexp((float)man, -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp((float)(man | 1024), exp - 25);
  return (h & 0x8000) ? -v : v;
}

// f16 sum: scangen keeps an f16 as its bits (u16) and adds in float, rounding
// to f16 after each add; CUB scans the same bytes as __half. The inputs are
// integers of magnitude <= 2000 whose partial sums stay within 2000, all
// exact in f16 (integers up to 2048), so the CPU reference adds in float.
struct HalfSum {
  using T = uint16_t;
  using Ref = float;
  __device__ static T gen(uint64_t i, uint64_t seed) {
    return __half_as_ushort(__int2half_rn(telescoped(i, seed, 1000)));
  }
  __device__ static bool eq(T x, T y) { return x == y || ((x | y) & 0x7fff) == 0; }  // +0 == -0
  static Ref ref(T v) { return half_bits_to_float(v); }
  static Ref cpu(Ref x, Ref y) { return x + y; }
  static bool same(Ref x, Ref y) { return x == y; }
  static std::string show(Ref v) { return FloatSum<float>::show(v); }
  static cudaError_t cub(void* temp, size_t& bytes, const T* in, T* out, int n, cudaStream_t s) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, reinterpret_cast<const __half*>(in),
                                         reinterpret_cast<__half*>(out), n, s);
  }
};

// i32 max: all negative (the identity must be i32.min, not 0), a slow upward
// trend under noise of 2^24, so that prefixes come from earlier tiles and new
// maxima keep appearing.
struct MaxI32 {
  using T = int32_t;
  using Ref = int32_t;
  __device__ static T gen(uint64_t i, uint64_t seed) {
    return (int32_t)((i >> 6) + (mix64(seed ^ i) & 0xFFFFFF)) - (1 << 28);
  }
  __device__ static bool eq(T x, T y) { return x == y; }
  static Ref ref(T v) { return v; }
  static Ref cpu(Ref x, Ref y) { return x > y ? x : y; }
  static bool same(Ref x, Ref y) { return x == y; }
  static std::string show(Ref v) { return std::to_string(v); }
  static cudaError_t cub(void* temp, size_t& bytes, const T* in, T* out, int n, cudaStream_t s) {
    return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, cuda::maximum<>{}, n, s);
  }
};

// Affine composition, x the earlier map, with the generated combine's
// rounding (round-to-nearest multiply and add, no fused multiply-add).
struct ComposeAffine {
  __device__ Affine operator()(const Affine& x, const Affine& y) const {
    return Affine{__fmul_rn(y.a, x.a), __fadd_rn(__fmul_rn(y.a, x.b), y.b)};
  }
};

// The inputs are the differences of a random sequence of maps P(i) = {+-1,
// b in [-100, 100]}: x(i) = P(i-1)^-1 then P(i), so that every composition
// of consecutive inputs has a = +-1 and |b| <= 200, exact in f32.
struct AffineOp {
  using T = Affine;
  using Ref = Affine;
  __device__ static T gen(uint64_t i, uint64_t seed) {
    auto a_of = [&](uint64_t j) { return (mix64(seed ^ j) & 1) ? 1 : -1; };
    auto b_of = [&](uint64_t j) { return (int)((mix64(seed ^ j) >> 8) % 201) - 100; };
    const int pa = i > 0 ? a_of(i - 1) : 1, pb = i > 0 ? b_of(i - 1) : 0;
    const int a = a_of(i) * pa;
    return Affine{(float)a, (float)(b_of(i) - a * pb)};
  }
  __device__ static bool eq(const T& x, const T& y) { return x.a == y.a && x.b == y.b; }
  static Ref ref(const T& v) { return v; }
  static Ref cpu(const Ref& x, const Ref& y) { return Affine{y.a * x.a, y.a * x.b + y.b}; }
  static bool same(const Ref& x, const Ref& y) { return x.a == y.a && x.b == y.b; }
  static std::string show(const Ref& v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "{a: %g, b: %g}", (double)v.a, (double)v.b);
    return buf;
  }
  static cudaError_t cub(void* temp, size_t& bytes, const T* in, T* out, int n, cudaStream_t s) {
    return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, ComposeAffine{}, n, s);
  }
};

// 2x2 matrix product x * y, x the earlier matrix, with the generated
// combine's rounding.
struct MulMat2 {
  __device__ Mat2 operator()(const Mat2& x, const Mat2& y) const {
    return Mat2{__fadd_rn(__fmul_rn(x.a, y.a), __fmul_rn(x.b, y.c)), __fadd_rn(__fmul_rn(x.a, y.b), __fmul_rn(x.b, y.d)),
                __fadd_rn(__fmul_rn(x.c, y.a), __fmul_rn(x.d, y.c)), __fadd_rn(__fmul_rn(x.c, y.b), __fmul_rn(x.d, y.d))};
  }
};

// Signed permutation matrices: their products are signed permutation
// matrices, exact in any grouping.
struct Mat2Op {
  using T = Mat2;
  using Ref = Mat2;
  __device__ static T gen(uint64_t i, uint64_t seed) {
    const uint64_t h = mix64(seed ^ i);
    const float s1 = (h & 2) ? -1.0f : 1.0f, s2 = (h & 4) ? -1.0f : 1.0f;
    return (h & 1) ? Mat2{0.0f, s1, s2, 0.0f} : Mat2{s1, 0.0f, 0.0f, s2};
  }
  __device__ static bool eq(const T& x, const T& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }
  static Ref ref(const T& v) { return v; }
  static Ref cpu(const Ref& x, const Ref& y) {
    return Mat2{x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
  static bool same(const Ref& x, const Ref& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }
  static std::string show(const Ref& v) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "{a: %g, b: %g, c: %g, d: %g}", (double)v.a, (double)v.b, (double)v.c,
                  (double)v.d);
    return buf;
  }
  static cudaError_t cub(void* temp, size_t& bytes, const T* in, T* out, int n, cudaStream_t s) {
    return cub::DeviceScan::InclusiveScan(temp, bytes, in, out, MulMat2{}, n, s);
  }
};

// ---------------------------------------------------------------------------
// Device helpers: fill, compare

template <typename Op>
__global__ void fill_kernel(typename Op::T* out, unsigned long long n, uint64_t seed) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    out[i] = Op::gen(i, seed);
}

// *first = the smallest index where a and b differ (left alone where none does).
template <typename Op>
__global__ void compare_kernel(const typename Op::T* a, const typename Op::T* b, unsigned long long n,
                               unsigned long long* first) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)
    if (!Op::eq(a[i], b[i])) atomicMin(first, i);
}

// ---------------------------------------------------------------------------
// Type-dependent operations, behind plain function pointers

template <typename Op>
void fill(void* d, uint64_t n, uint64_t seed, cudaStream_t s) {
  fill_kernel<Op><<<4096, 256, 0, s>>>(static_cast<typename Op::T*>(d), n, seed);
  CUDA_CHECK(cudaGetLastError());
}

std::string at_index(uint64_t i) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "index %" PRIu64 ": ", i);
  return buf;
}

// The whole output against a sequential scan on the CPU.
template <typename Op>
bool cpu_check(const void* d_in, const void* d_out, uint64_t n, std::string* why) {
  using T = typename Op::T;
  std::vector<T> in(n), out(n);
  CUDA_CHECK(cudaMemcpy(in.data(), d_in, n * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  typename Op::Ref acc = Op::ref(in[0]);
  for (uint64_t i = 0; i < n; ++i) {
    if (i > 0) acc = Op::cpu(acc, Op::ref(in[i]));
    if (!Op::same(acc, Op::ref(out[i]))) {
      *why = at_index(i) + "expected " + Op::show(acc) + ", got " + Op::show(Op::ref(out[i]));
      return false;
    }
  }
  return true;
}

// scangen's output against CUB's, on the device.
template <typename Op>
bool gpu_compare(const void* d_sg, const void* d_cub, uint64_t n, unsigned long long* d_first, cudaStream_t s,
                 std::string* why) {
  using T = typename Op::T;
  const unsigned long long none = ~0ull;
  CUDA_CHECK(cudaMemcpyAsync(d_first, &none, sizeof none, cudaMemcpyHostToDevice, s));
  compare_kernel<Op><<<4096, 256, 0, s>>>(static_cast<const T*>(d_sg), static_cast<const T*>(d_cub), n, d_first);
  CUDA_CHECK(cudaGetLastError());
  unsigned long long first = none;
  CUDA_CHECK(cudaMemcpyAsync(&first, d_first, sizeof first, cudaMemcpyDeviceToHost, s));
  sync_stream(s, "comparing scangen's output with CUB's");
  if (first == none) return true;
  T a, b;
  CUDA_CHECK(cudaMemcpy(&a, static_cast<const T*>(d_sg) + first, sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&b, static_cast<const T*>(d_cub) + first, sizeof(T), cudaMemcpyDeviceToHost));
  *why = at_index(first) + "differs from CUB's output (which passed its own check): CUB " + Op::show(Op::ref(b)) +
         ", scangen " + Op::show(Op::ref(a));
  return false;
}

// Temporary storage bytes of the CUB call for n elements.
template <typename Op>
size_t cub_temp_bytes(uint64_t n) {
  size_t bytes = 0;
  CUDA_CHECK(Op::cub(nullptr, bytes, nullptr, nullptr, (int)n, 0));
  return bytes;
}

template <typename Op>
void cub_call(void* temp, size_t bytes, const void* in, void* out, uint64_t n, cudaStream_t s) {
  using T = typename Op::T;
  CUDA_CHECK(Op::cub(temp, bytes, static_cast<const T*>(in), static_cast<T*>(out), (int)n, s));
}

// ---------------------------------------------------------------------------
// The cases

enum class Algo { Lookback, ReduceThenScan };

// Static shared memory may exceed the plan's figure by alignment padding.
constexpr size_t kSmemSlack = 32;

struct Case {
  std::string name;  // the scan's name in bench/specs/device_bench.scan
  std::string what;  // readable
  std::string type;  // element type
  Algo algo;
  const char* cub_name;  // the CUB call
  size_t elem_bytes;
  // From the plan (scangen explain --dump=plan).
  int threads;          // per block
  uint64_t tile;        // elements per block: threads x items
  size_t status_bytes;  // decoupled_lookback: workspace bytes per tile
  size_t smem;          // shared memory per block of the plan (P_scan_kernel's static shared memory, unpadded)
  // The generated kernels.
  const void* scan;
  const void* zero;    // decoupled_lookback: P_zero_workspace (Plan::zero_kernel)
  const void* reduce;  // reduce_then_scan only
  const void* spine;   // reduce_then_scan only
  // The element type's operations.
  void (*fill)(void*, uint64_t, uint64_t, cudaStream_t);
  bool (*cpu_check)(const void*, const void*, uint64_t, std::string*);
  bool (*gpu_compare)(const void*, const void*, uint64_t, unsigned long long*, cudaStream_t, std::string*);
  size_t (*cub_temp_bytes)(uint64_t);
  void (*cub)(void*, size_t, const void*, void*, uint64_t, cudaStream_t);

  uint64_t tiles(uint64_t n) const { return std::max<uint64_t>(1, (n + tile - 1) / tile); }
  // As the plan's workspace_bytes: 16 bytes of header + a status per tile
  // (decoupled look-back); one element per tile (reduce_then_scan).
  uint64_t workspace_bytes(uint64_t n) const {
    return algo == Algo::Lookback ? 16 + tiles(n) * status_bytes : tiles(n) * elem_bytes;
  }
  const char* algorithm() const { return algo == Algo::Lookback ? "decoupled_lookback" : "reduce_then_scan"; }
};

// The generated element type has the host type's size and alignment, and
// the kernel reads and writes one type.
template <typename Op, typename GIn, typename GT>
void check_types() {
  using T = typename Op::T;
  static_assert(std::is_same<GIn, GT>::value, "the bench scans have no separate input type");
  static_assert(sizeof(GT) == sizeof(T) && alignof(GT) == alignof(T), "generated element type differs from the host's");
  static_assert(std::is_trivially_copyable<GT>::value, "generated element type is copied bytewise");
}

template <typename Op>
Case with_ops(Case c) {
  c.elem_bytes = sizeof(typename Op::T);
  c.fill = &fill<Op>;
  c.cpu_check = &cpu_check<Op>;
  c.gpu_compare = &gpu_compare<Op>;
  c.cub_temp_bytes = &cub_temp_bytes<Op>;
  c.cub = &cub_call<Op>;
  return c;
}

template <typename Op, typename GIn, typename GT>
Case lookback_case(const char* name, const char* what, const char* type, const char* cub_name, int threads,
                   uint64_t tile, size_t status_bytes, size_t smem,
                   void (*scan)(const GIn*, GT*, scangen_u64, unsigned char*),
                   void (*zero)(scangen_u64, unsigned long long*)) {
  check_types<Op, GIn, GT>();
  Case c{};
  c.name = name;
  c.what = what;
  c.type = type;
  c.algo = Algo::Lookback;
  c.cub_name = cub_name;
  c.threads = threads;
  c.tile = tile;
  c.status_bytes = status_bytes;
  c.smem = smem;
  c.scan = reinterpret_cast<const void*>(scan);
  c.zero = reinterpret_cast<const void*>(zero);
  return with_ops<Op>(c);
}

template <typename Op, typename GIn, typename GT>
Case rts_case(const char* name, const char* what, const char* type, const char* cub_name, int threads, uint64_t tile,
              size_t smem, void (*reduce)(const GIn*, GT*, scangen_u64), void (*spine)(GT*, scangen_u64),
              void (*scan)(const GIn*, GT*, const GT*, scangen_u64)) {
  check_types<Op, GIn, GT>();
  Case c{};
  c.name = name;
  c.what = what;
  c.type = type;
  c.algo = Algo::ReduceThenScan;
  c.cub_name = cub_name;
  c.threads = threads;
  c.tile = tile;
  c.status_bytes = 0;
  c.smem = smem;
  c.scan = reinterpret_cast<const void*>(scan);
  c.reduce = reinterpret_cast<const void*>(reduce);
  c.spine = reinterpret_cast<const void*>(spine);
  return with_ops<Op>(c);
}

// Field offsets of the generated structs are those of the host's.
static_assert(offsetof(affine_T, a) == offsetof(Affine, a) && offsetof(affine_T, b) == offsetof(Affine, b),
              "affine_T is laid out unlike Affine");
static_assert(offsetof(mat2_T, a) == offsetof(Mat2, a) && offsetof(mat2_T, b) == offsetof(Mat2, b) &&
                  offsetof(mat2_T, c) == offsetof(Mat2, c) && offsetof(mat2_T, d) == offsetof(Mat2, d),
              "mat2_T is laid out unlike Mat2");
static_assert(std::is_same<sum_i32_T, int>::value && std::is_same<max_i32_T, int>::value &&
                  std::is_same<sum_i32_rts_T, int>::value,
              "i32 is int");
static_assert(std::is_same<sum_f32_T, float>::value && std::is_same<sum_f64_T, double>::value, "f32, f64");
static_assert(std::is_same<sum_i64_T, long long>::value && std::is_same<sum_i8_T, signed char>::value &&
                  std::is_same<sum_i16_T, short>::value,
              "i64, i8, i16");
static_assert(std::is_same<sum_f16_T, unsigned short>::value, "f16 is kept as its bits");
static_assert(sizeof(__half) == 2, "__half is two bytes");

// The plan of every scan, from `scangen explain --dump=plan
// bench/specs/device_bench.scan` (threads = auto, items = auto):
//
//   scan         element  threads x items = tile  status        shared memory
//   sum_i32      4 B      128 x 32 = 4096         8 B per tile  16964 B
//   sum_f32      4 B      128 x 32 = 4096         8 B           16964 B
//   sum_i64      8 B      128 x 32 = 4096         16 B          33888 B
//   sum_f64      8 B      128 x 32 = 4096         16 B          33888 B
//   max_i32      4 B      128 x 32 = 4096         8 B           16964 B
//   sum_i8       1 B      128 x 128 = 16384       8 B           16929 B
//   sum_i16      2 B      128 x 64 = 8192         8 B           16946 B
//   sum_f16      2 B      128 x 64 = 8192         8 B           16946 B
//   affine       8 B      128 x 32 = 4096         16 B          33888 B
//   mat2        16 B       64 x 32 = 2048         64 B          33912 B
//   sum_i32_rts  4 B      256 x 32 = 8192         (partials: 4 B per tile)  33864 B
std::vector<Case> all_cases() {
  return {
      lookback_case<WrapSum<int32_t>>("sum_i32", "inclusive sum i32", "i32", "InclusiveSum", 128, 4096, 8, 16964,
                                      sum_i32_scan_kernel, sum_i32_zero_workspace),
      lookback_case<FloatSum<float>>("sum_f32", "inclusive sum f32", "f32", "InclusiveSum", 128, 4096, 8, 16964,
                                     sum_f32_scan_kernel, sum_f32_zero_workspace),
      lookback_case<WrapSum<long long>>("sum_i64", "inclusive sum i64", "i64", "InclusiveSum", 128, 4096, 16, 33888,
                                        sum_i64_scan_kernel, sum_i64_zero_workspace),
      lookback_case<FloatSum<double>>("sum_f64", "inclusive sum f64", "f64", "InclusiveSum", 128, 4096, 16, 33888,
                                      sum_f64_scan_kernel, sum_f64_zero_workspace),
      lookback_case<MaxI32>("max_i32", "inclusive max i32", "i32", "InclusiveScan(cuda::maximum<>)", 128, 4096, 8,
                            16964, max_i32_scan_kernel, max_i32_zero_workspace),
      lookback_case<WrapSum<signed char>>("sum_i8", "inclusive sum i8", "i8", "InclusiveSum", 128, 16384, 8, 16929,
                                          sum_i8_scan_kernel, sum_i8_zero_workspace),
      lookback_case<WrapSum<short>>("sum_i16", "inclusive sum i16", "i16", "InclusiveSum", 128, 8192, 8, 16946,
                                    sum_i16_scan_kernel, sum_i16_zero_workspace),
      lookback_case<HalfSum>("sum_f16", "inclusive sum f16", "f16", "InclusiveSum(__half)", 128, 8192, 8, 16946,
                             sum_f16_scan_kernel, sum_f16_zero_workspace),
      lookback_case<AffineOp>("affine", "affine recurrence {a,b: f32}", "Affine", "InclusiveScan(functor)", 128, 4096,
                              16, 33888, affine_scan_kernel, affine_zero_workspace),
      lookback_case<Mat2Op>("mat2", "2x2 matrix product f32", "Mat2", "InclusiveScan(functor)", 64, 2048, 64, 33912,
                            mat2_scan_kernel, mat2_zero_workspace),
      rts_case<WrapSum<int32_t>>("sum_i32_rts", "inclusive sum i32, reduce_then_scan", "i32", "InclusiveSum", 256,
                                 8192, 33864, sum_i32_rts_reduce_kernel, sum_i32_rts_spine_kernel,
                                 sum_i32_rts_scan_kernel),
  };
}

// ---------------------------------------------------------------------------
// One scangen call

// generator::kZeroKernelFromTiles: from so many tiles a call zeroes its
// workspace with the plan's zero kernel instead of a memset.
constexpr uint64_t kZeroKernelFromTiles = 128;

// generator::kEpochCallsBeforeZero.
constexpr uint64_t kEpochCallsBeforeZero = 1ull << 29;

// --zero-each-call: the workspace zeroed before every call of more than one
// tile, as in a caller's workspace and the generated host wrappers.
bool g_zero_each_call = false;

struct Workspace {
  unsigned char* p = nullptr;
  uint64_t bytes = 0;
  uint64_t epoch_calls = 0;  // calls of more than one tile since it was zeroed whole (0: not yet)
};

void scangen_call(const Case& c, const void* in, void* out, uint64_t n, Workspace& ws, cudaStream_t s) {
  const uint64_t tiles = c.tiles(n);
  const dim3 grid((unsigned)tiles), block((unsigned)c.threads);
  unsigned long long n_arg = n;
  if (c.algo == Algo::Lookback) {
    unsigned char* workspace = ws.p;
    void* args[] = {&in, &out, &n_arg, &workspace};
    if (!g_zero_each_call) {  // as the runtime (generator::workspace_epoch_zero)
      if (tiles > 1) {
        const bool whole = ws.epoch_calls == 0 || ws.epoch_calls >= kEpochCallsBeforeZero;
        if (whole) CUDA_CHECK(cudaMemsetAsync(workspace, 0, ws.bytes, s));
        ws.epoch_calls = (whole ? 0 : ws.epoch_calls) + 1;
      }
      CUDA_CHECK(cudaLaunchKernel(c.scan, grid, block, args, 0, s));
      return;
    }
    if (tiles >= kZeroKernelFromTiles) {
      // As the runtime (generator::zero_by_kernel): the workspace zeroed by the plan's
      // zero kernel, the scan launched as its programmatic dependent.
      unsigned long long words = c.workspace_bytes(n) / 8;
      void* zero_args[] = {&words, &workspace};
      const unsigned zero_blocks = (unsigned)std::min<uint64_t>(1024, (words + 255) / 256);
      CUDA_CHECK(cudaLaunchKernel(c.zero, dim3(zero_blocks), dim3(256), zero_args, 0, s));
      cudaLaunchAttribute dependent{};
      dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      dependent.val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t config{};
      config.gridDim = grid;
      config.blockDim = block;
      config.stream = s;
      config.attrs = &dependent;
      config.numAttrs = 1;
      CUDA_CHECK(cudaLaunchKernelExC(&config, c.scan, args));
      return;
    }
    if (tiles > 1) CUDA_CHECK(cudaMemsetAsync(workspace, 0, c.workspace_bytes(n), s));  // one tile reads none
    CUDA_CHECK(cudaLaunchKernel(c.scan, grid, block, args, 0, s));
  } else {
    void* partials = ws.p;
    void* reduce_args[] = {&in, &partials, &n_arg};
    CUDA_CHECK(cudaLaunchKernel(c.reduce, grid, block, reduce_args, 0, s));
    void* spine_args[] = {&partials, &n_arg};
    CUDA_CHECK(cudaLaunchKernel(c.spine, dim3(1), block, spine_args, 0, s));
    void* scan_args[] = {&in, &out, &partials, &n_arg};
    CUDA_CHECK(cudaLaunchKernel(c.scan, grid, block, scan_args, 0, s));
  }
}

// ---------------------------------------------------------------------------
// Options

constexpr int kMinLog2n = 10;

struct Options {
  int max_log2n = 30;
  int runs = 0;    // 0: by size
  int warmup = -1;  // -1: by size
  int device = 0;
  std::string csv;
  std::string only;
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: device_bench [options]\n"
               "\n"
               "Times scangen's device-wide inclusive scans against CUB's DeviceScan and a\n"
               "device-to-device copy of the same bytes, for N = 2^10, 2^12, ... elements;\n"
               "prints a Markdown report on standard output.\n"
               "\n"
               "  --max-log2n K  largest N = 2^K (10..30; default 30); sizes that do not fit\n"
               "                 in GPU memory are skipped, and the report says so\n"
               "  --only NAME    only the case NAME (sum_i32, sum_f32, sum_i64, sum_f64,\n"
               "                 max_i32, sum_i8, sum_i16, sum_f16, affine, mat2, sum_i32_rts)\n"
               "  --runs R       timed calls per size (default: 200 up to 2^16, 100 up to\n"
               "                 2^22, 50 up to 2^26, 25 above)\n"
               "  --warmup W     untimed calls first (default: max(3, runs / 10))\n"
               "  --device D     CUDA device index (default 0)\n"
               "  --csv FILE     also write the results as CSV to FILE\n"
               "  --zero-each-call  zero the look-back's workspace before every call of more\n"
               "                 than one tile (a memset; the zero kernel from 128 tiles), as\n"
               "                 in a caller's workspace; default: zeroed once, as the runtime\n"
               "                 does in a Scan's own (the statuses carry the call's epoch)\n"
               "  --host-paced   time each call as the host launches it (events around each\n"
               "                 call, nothing held back): small calls then measure the host's\n"
               "                 launch rate; default: the calls are queued behind a waiting\n"
               "                 kernel first, so the events time the GPU's work alone\n"
               "  --help         this text\n"
               "\n"
               "exit status: 0 all scangen scans correct (a wrong CUB result is reported, not timed), 1 a scangen scan gave wrong results, 2 no usable\n"
               "CUDA device or a CUDA error, 3 bad command line\n");
}

[[noreturn]] void bad_usage(const std::string& msg) {
  std::fprintf(stderr, "device_bench: %s\n", msg.c_str());
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
    } else if (a == "--max-log2n") {
      o.max_log2n = int_arg("--max-log2n", value(), kMinLog2n, 30);
    } else if (a == "--only") {
      o.only = value();
    } else if (a == "--runs") {
      o.runs = int_arg("--runs", value(), 1, 100000);
    } else if (a == "--warmup") {
      o.warmup = int_arg("--warmup", value(), 0, 100000);
    } else if (a == "--device") {
      o.device = int_arg("--device", value(), 0, 1024);
    } else if (a == "--csv") {
      o.csv = value();
    } else if (a == "--zero-each-call") {
      g_zero_each_call = true;
    } else if (a == "--host-paced") {
      g_host_paced = true;
    } else {
      bad_usage("unknown option '" + a + "'");
    }
  }
  return o;
}

int runs_for(int log2n, const Options& o) {
  if (o.runs > 0) return o.runs;
  return log2n <= 16 ? 200 : log2n <= 22 ? 100 : log2n <= 26 ? 50 : 25;
}
int warmup_for(int runs, const Options& o) { return o.warmup >= 0 ? o.warmup : std::max(3, runs / 10); }

// ---------------------------------------------------------------------------
// Timing

__global__ void empty_kernel() {}

struct Timing {
  double median_us = 0, min_us = 0, max_us = 0;
};

// The blocking kernel: waits for *release (host memory, mapped) or, after
// `timeout_ns`, gives up and says so in *timed_out.
__global__ void hold_stream(const volatile int* release, int* timed_out, unsigned long long timeout_ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

struct StreamHold {
  volatile int* release = nullptr;  // host-mapped
  int* timed_out = nullptr;         // host-mapped
  int* d_release = nullptr;
  int* d_timed_out = nullptr;
  StreamHold() {
    CUDA_CHECK(cudaHostAlloc((void**)&release, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostAlloc((void**)&timed_out, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void**)&d_release, (void*)release, 0));
    CUDA_CHECK(cudaHostGetDevicePointer((void**)&d_timed_out, (void*)timed_out, 0));
    *release = 1;
    *timed_out = 0;
  }
  void hold(cudaStream_t s) {
    *release = 0;
    hold_stream<<<1, 1, 0, s>>>(d_release, d_timed_out, 2000000000ull);
    CUDA_CHECK(cudaGetLastError());
  }
  void let_go() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    *release = 1;
  }
};

StreamHold& stream_hold() {
  static StreamHold h;
  return h;
}

// `warmup` calls, then `runs` calls each between its own pair of events; all
// are queued before the one synchronisation, in batches of 32 calls, each
// batch held back until it is all queued (unless host-paced).
template <typename Call>
Timing time_calls(const Call& call, int warmup, int runs, cudaStream_t stream, const std::string& what) {
  for (int i = 0; i < warmup; ++i) call();
  std::vector<cudaEvent_t> start(runs), stop(runs);
  for (int i = 0; i < runs; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
  StreamHold* hold = g_host_paced ? nullptr : &stream_hold();
  constexpr int kBatch = 32;
  for (int i = 0; i < runs; ++i) {
    if (hold && i % kBatch == 0) {
      if (i > 0) hold->let_go();
      sync_stream(stream, what);  // the batch before has run: the next one is queued while nothing runs
      hold->hold(stream);
    }
    CUDA_CHECK(cudaEventRecord(start[i], stream));
    call();
    CUDA_CHECK(cudaEventRecord(stop[i], stream));
  }
  if (hold) hold->let_go();
  sync_stream(stream, what);
  if (hold && *hold->timed_out) {
    std::fprintf(stderr, "device_bench: %s: the stream was let go before its calls were all queued (a launch took "
                 "over 2 s to queue); rerun, or use --host-paced\n", what.c_str());
    std::exit(kExitCuda);
  }
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
// Report

struct Measure {
  std::string status;  // "ok", "wrong", "skipped", "" (not run)
  std::string why;
  Timing t;
  double gbps = 0, of_copy = 0;
  uint64_t blocks = 0, workspace = 0;
};

struct Row {
  const Case* c = nullptr;
  int log2n = 0;
  uint64_t n = 0;
  int runs = 0, warmup = 0;
  std::string skipped;  // why the size was not run
  Measure copy, sg, cub;
  double vs_cub = 0;  // CUB time / scangen time; 0 where either has none
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

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string gib(double bytes) { return fmt("%.1f GiB", bytes / (1024.0 * 1024 * 1024)); }

bool timed(const Measure& m) { return m.status == "ok"; }

// ---------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Options opt = parse_options(argc, argv);

  std::vector<Case> cases;
  for (const Case& c : all_cases())
    if (opt.only.empty() || c.name == opt.only) cases.push_back(c);
  if (cases.empty()) bad_usage("--only: no case named '" + opt.only + "'");

  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    if (err != cudaSuccess)
      std::fprintf(stderr, "device_bench: no usable CUDA device: cudaGetDeviceCount failed: %s (%s)\n",
                   cudaGetErrorString(err), cudaGetErrorName(err));
    else
      std::fprintf(stderr, "device_bench: no usable CUDA device: cudaGetDeviceCount found none\n");
    return kExitCuda;
  }
  if (opt.device >= count) {
    std::fprintf(stderr, "device_bench: --device %d, but there are %d CUDA device(s)\n", opt.device, count);
    return kExitCuda;
  }
  CUDA_CHECK(cudaSetDevice(opt.device));

  // Open the CSV now, so that a bad path fails before the long run.
  FILE* csv = nullptr;
  if (!opt.csv.empty() && !(csv = std::fopen(opt.csv.c_str(), "w"))) {
    std::fprintf(stderr, "device_bench: cannot write %s: %s\n", opt.csv.c_str(), std::strerror(errno));
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
  const std::string date = now_utc();

  std::vector<int> sizes;
  for (int k = kMinLog2n; k <= opt.max_log2n; k += 2) sizes.push_back(k);
  if (sizes.back() != opt.max_log2n) sizes.push_back(opt.max_log2n);
  const std::vector<uint64_t> check_sizes = {1, 1000, scangen::bench::kLargestCheck};
  const uint64_t check_max = check_sizes.back();

  // Three buffers (input, scangen's output, CUB's output), each big enough
  // for the largest case run and its checks; as large as fits when that is
  // too much (bench_buffers.h).
  uint64_t elem_bytes = 0;
  for (const Case& c : cases) elem_bytes = std::max<uint64_t>(elem_bytes, c.elem_bytes);
  size_t free_mem = 0, total_mem = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_mem, &total_mem));
  const uint64_t reserve = 1ull << 30;  // workspaces, CUB's temporary storage, the driver
  const scangen::bench::BufferPlan buffers = scangen::bench::plan_buffers(elem_bytes, opt.max_log2n, free_mem, reserve);
  const uint64_t buf_bytes = buffers.bytes;
  if (!buffers.enough) {
    std::fprintf(stderr, "device_bench: %s of free GPU memory is not enough for the correctness checks\n",
                 gib((double)free_mem).c_str());
    return kExitCuda;
  }
  if (buffers.shrunk)
    std::fprintf(stderr, "device_bench: %s free on the GPU: buffers of %s each (3 of them); larger sizes are "
                         "skipped\n",
                 gib((double)free_mem).c_str(), gib((double)buf_bytes).c_str());
  void *d_in = nullptr, *d_sg = nullptr, *d_cub = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, buf_bytes));
  CUDA_CHECK(cudaMalloc(&d_sg, buf_bytes));
  CUDA_CHECK(cudaMalloc(&d_cub, buf_bytes));
  unsigned long long* d_first = nullptr;
  CUDA_CHECK(cudaMalloc(&d_first, sizeof *d_first));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // The floor of a one-launch call as these events measure it: an empty
  // kernel of one block, and of 64 blocks.
  const Timing empty1 = time_calls([&] { empty_kernel<<<1, 256, 0, stream>>>(); CUDA_CHECK(cudaGetLastError()); }, 20, 200, stream, "empty kernel");
  const Timing empty64 = time_calls([&] { empty_kernel<<<64, 256, 0, stream>>>(); CUDA_CHECK(cudaGetLastError()); }, 20, 200, stream, "empty kernel");

  std::vector<Row> rows;
  std::vector<std::string> failures;  // "case: what", for the report
  bool all_ok = true;
  uint64_t seed = 0x5eed0000;
  for (const Case& c : cases) {
    ++seed;
    std::fprintf(stderr, "device_bench: %s (%s, %zu-byte elements, %s)\n", c.name.c_str(), c.what.c_str(),
                 c.elem_bytes, c.algorithm());
    const uint64_t fit_n = buf_bytes / c.elem_bytes;  // elements that fit in each buffer
    uint64_t max_n = check_max;
    for (int k : sizes)
      if ((1ull << k) <= fit_n) max_n = std::max<uint64_t>(max_n, 1ull << k);

    bool sg_ok = true, cub_ok = true;
    std::string sg_why, cub_why;

    // The table against the generated kernel: its block size (from its
    // __launch_bounds__) and static shared memory, which holds the tile's
    // exchange buffer (tile + tile / 32 elements) and so changes with the
    // tile by hundreds of bytes at least. The plan adds up the shared
    // objects' sizes; the compiler may pad each for alignment, hence the
    // few bytes of slack.
    {
      cudaFuncAttributes attr{};
      CUDA_CHECK(cudaFuncGetAttributes(&attr, c.scan));
      if (attr.maxThreadsPerBlock != c.threads || attr.sharedSizeBytes < c.smem ||
          attr.sharedSizeBytes >= c.smem + kSmemSlack) {
        sg_ok = false;
        sg_why = "the kernel's shape differs from the table's (" + std::to_string(attr.maxThreadsPerBlock) +
                 " threads, " + std::to_string(attr.sharedSizeBytes) + " bytes of static shared memory; table: " +
                 std::to_string(c.threads) + ", " + std::to_string(c.smem) +
                 "): update the plan constants in bench/device_bench.cu; not launched";
      }
    }

    // Input (an index hash: a prefix of it is the input of every smaller
    // size), the workspace, CUB's temporary storage.
    c.fill(d_in, max_n, seed, stream);
    Workspace ws;
    ws.bytes = c.workspace_bytes(max_n);
    CUDA_CHECK(cudaMalloc(&ws.p, ws.bytes));
    CUDA_CHECK(cudaMemsetAsync(ws.p, 0, ws.bytes, stream));
    const size_t temp_bytes = std::max<size_t>(1, c.cub_temp_bytes(max_n));
    void* d_temp = nullptr;
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));
    sync_stream(stream, "filling the input");

    // Correctness before timing.
    for (uint64_t n : check_sizes) {
      if (sg_ok) {
        CUDA_CHECK(cudaMemsetAsync(d_sg, 0xA5, n * c.elem_bytes, stream));
        scangen_call(c, d_in, d_sg, n, ws, stream);
        sync_stream(stream, "scangen " + c.name + " on " + std::to_string(n) + " elements");
        std::string why;
        if (!c.cpu_check(d_in, d_sg, n, &why)) {
          sg_ok = false;
          sg_why = "n = " + std::to_string(n) + ", " + why;
        }
      }
      if (cub_ok) {
        CUDA_CHECK(cudaMemsetAsync(d_cub, 0xA5, n * c.elem_bytes, stream));
        c.cub(d_temp, temp_bytes, d_in, d_cub, n, stream);
        sync_stream(stream, "CUB " + c.name + " on " + std::to_string(n) + " elements");
        std::string why;
        if (!c.cpu_check(d_in, d_cub, n, &why)) {
          cub_ok = false;
          cub_why = "n = " + std::to_string(n) + ", " + why;
        }
      }
    }
    if (!sg_ok) {
      std::fprintf(stderr, "device_bench:   scangen %s is WRONG: %s\n", c.name.c_str(), sg_why.c_str());
      failures.push_back("scangen " + c.name + ": " + sg_why);
      all_ok = false;
    }
    if (!cub_ok) {  // the comparison's fault, not scangen's: reported, not timed, not an error
      std::fprintf(stderr, "device_bench:   CUB %s is WRONG: %s\n", c.name.c_str(), cub_why.c_str());
      failures.push_back("CUB " + c.name + ": " + cub_why);
    }

    for (int k : sizes) {
      Row r;
      r.c = &c;
      r.log2n = k;
      r.n = 1ull << k;
      r.runs = runs_for(k, opt);
      r.warmup = warmup_for(r.runs, opt);
      const uint64_t bytes = r.n * c.elem_bytes;
      if (r.n > fit_n) {
        r.skipped = "does not fit in GPU memory (3 buffers of " + gib((double)bytes) + ")";
        std::fprintf(stderr, "device_bench:   2^%d: skipped, %s\n", k, r.skipped.c_str());
        r.copy.status = r.sg.status = r.cub.status = "skipped";
        rows.push_back(r);
        continue;
      }
      std::fprintf(stderr, "device_bench:   2^%d (%d runs)\n", k, r.runs);
      const std::string at = " " + c.name + " at 2^" + std::to_string(k);

      r.copy.t = time_calls(
          [&] { CUDA_CHECK(cudaMemcpyAsync(d_sg, d_in, bytes, cudaMemcpyDeviceToDevice, stream)); }, r.warmup,
          r.runs, stream, "copy" + at);
      r.copy.status = "ok";

      r.sg.blocks = c.tiles(r.n);  // of P_scan_kernel (and of P_reduce_kernel)
      r.sg.workspace = c.workspace_bytes(r.n);
      if (sg_ok) {
        r.sg.t = time_calls([&] { scangen_call(c, d_in, d_sg, r.n, ws, stream); }, r.warmup, r.runs, stream,
                            "scangen" + at);
        r.sg.status = "ok";
      } else {
        r.sg.status = "wrong";
        r.sg.why = sg_why;
      }

      r.cub.workspace = c.cub_temp_bytes(r.n);  // what CUB asks for at this size
      if (cub_ok) {
        r.cub.t = time_calls([&] { c.cub(d_temp, temp_bytes, d_in, d_cub, r.n, stream); }, r.warmup, r.runs, stream,
                             "CUB" + at);
        r.cub.status = "ok";
      } else {
        r.cub.status = "wrong";
        r.cub.why = cub_why;
      }

      // The last timed outputs, scangen's against CUB's.
      if (sg_ok && cub_ok) {
        std::string why;
        if (!c.gpu_compare(d_sg, d_cub, r.n, d_first, stream, &why)) {
          r.sg.status = "wrong";
          r.sg.why = "n = 2^" + std::to_string(k) + ", after timing, " + why;
          std::fprintf(stderr, "device_bench:   scangen %s is WRONG: %s\n", c.name.c_str(), r.sg.why.c_str());
          failures.push_back("scangen " + c.name + ": " + r.sg.why);
          all_ok = false;
        }
      }

      for (Measure* m : {&r.copy, &r.sg, &r.cub}) {
        if (!timed(*m)) {
          m->t = Timing{};
          continue;
        }
        m->gbps = 2.0 * bytes / (m->t.median_us * 1e-6) / 1e9;
        m->of_copy = r.copy.t.median_us / m->t.median_us;
      }
      if (timed(r.sg) && timed(r.cub)) r.vs_cub = r.cub.t.median_us / r.sg.t.median_us;
      rows.push_back(r);
    }
    CUDA_CHECK(cudaFree(ws.p));
    CUDA_CHECK(cudaFree(d_temp));
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_sg));
  CUDA_CHECK(cudaFree(d_cub));
  CUDA_CHECK(cudaFree(d_first));

  // ---- Markdown report on standard output ----
  std::printf("## device_bench: device-wide inclusive scans\n\n");
  std::printf("- device: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %d MiB; peak memory bandwidth %.0f GB/s from "
              "memory clock x bus width)\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount,
              (double)prop.totalGlobalMem / (1024.0 * 1024 * 1024), prop.l2CacheSize / (1024 * 1024), peak_gbps);
  std::printf("- CUDA driver %s, runtime %s; CUB %d.%d.%d; built with nvcc %d.%d\n", cuda_version(driver).c_str(),
              cuda_version(runtime).c_str(), CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION,
              __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
  std::printf("- date: %s\n", date.c_str());
  std::printf("- one call: scangen = its launch(es) as a library would make them (decoupled_lookback: %s; "
              "reduce_then_scan: three launches); "
              "CUB = cub::DeviceScan::InclusiveSum / InclusiveScan with temporary storage allocated beforehand, "
              "its host-side dispatch and all its launches included; copy = cudaMemcpyAsync device to device of N * "
              "sizeof(element) bytes\n",
              g_zero_each_call
                  ? "the workspace zeroed before each call of more than one tile (--zero-each-call: a memset, "
                    "from 128 tiles the plan's zero kernel with the scan as its programmatic dependent), as in "
                    "a caller's workspace"
                  : "one launch, as in a Scan's own workspace: the statuses carry the call's epoch, and the "
                    "workspace is zeroed once per case");
  if (opt.runs > 0)
    std::printf("- time: median of %d calls after %d warm-up calls, ", opt.runs, warmup_for(opt.runs, opt));
  else
    std::printf("- time: median of 200 calls (N <= 2^16), 100 (<= 2^22), 50 (<= 2^26), 25 (larger), after "
                "max(3, runs / 10) warm-up calls, ");
  std::printf(g_host_paced ? "CUDA events around each call, one stream, host-paced (each call timed as the host "
                             "launches it: small calls measure the launch rate)\n"
                           : "CUDA events around each call, one stream; the calls queued (32 at a time) behind a "
                             "kernel that waits until they all are, so the events time the GPU's work alone\n");
  std::printf("- an empty kernel, timed the same way (the floor of any one-launch call): %.1f us with 1 block, "
              "%.1f us with 64 blocks of 256 threads (median of 200)\n",
              empty1.median_us, empty64.median_us);
  std::printf("- GB/s = 2 * N * sizeof(element) / time (input read once, output written once; 1 GB = 1e9 bytes)\n");
  std::printf("- fraction of copy = copy time / scan time; vs CUB = CUB time / scangen time (above 1: scangen is "
              "faster)\n");
  std::printf("- checked against the CPU (every element) at N = 1, 1000 and 2^24 + 3 before timing, scangen and CUB "
              "alike; at every timed size, scangen's last output compared on the GPU with CUB's\n\n");

  auto us = [](const Measure& m) {
    return timed(m) ? fmt(m.t.median_us < 100 ? "%.1f" : "%.0f", m.t.median_us) : m.status == "wrong" ? "WRONG" : "—";
  };
  auto frac = [](const Measure& m) { return timed(m) ? fmt("%.2f", m.of_copy) : std::string("—"); };
  auto gbs = [](const Measure& m) { return timed(m) ? fmt("%.0f", m.gbps) : std::string("—"); };
  auto ratio = [](const Row& r) { return r.vs_cub > 0 ? fmt("%.2f", r.vs_cub) : std::string("—"); };

  bool have_28 = false;
  for (const Row& r : rows) have_28 = have_28 || (r.log2n == 28 && r.skipped.empty());
  if (have_28) {
    std::printf("### N = 2^28\n\n");
    std::printf("| case | element | scangen µs | scangen fraction of copy | CUB µs | CUB fraction of copy | "
                "vs CUB |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (const Row& r : rows)
      if (r.log2n == 28 && r.skipped.empty())
        std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.c->name.c_str(), r.c->type.c_str(), us(r.sg).c_str(),
                    frac(r.sg).c_str(), us(r.cub).c_str(), frac(r.cub).c_str(), ratio(r).c_str());
    std::printf("\n");
  }

  std::printf("### All sizes\n\n");
  std::printf("| case | N | copy µs | scangen µs | scangen GB/s | scangen fraction of copy | CUB µs | CUB GB/s | "
              "CUB fraction of copy | vs CUB |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    if (!r.skipped.empty()) {
      std::printf("| %s | 2^%d | skipped: %s | | | | | | | |\n", r.c->name.c_str(), r.log2n, r.skipped.c_str());
      continue;
    }
    std::printf("| %s | 2^%d | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.c->name.c_str(), r.log2n,
                us(r.copy).c_str(), us(r.sg).c_str(), gbs(r.sg).c_str(), frac(r.sg).c_str(), us(r.cub).c_str(),
                gbs(r.cub).c_str(), frac(r.cub).c_str(), ratio(r).c_str());
  }
  std::printf("\nCases (bench/specs/device_bench.scan; plan: threads x items per tile):\n\n");
  for (const Case& c : cases)
    std::printf("- %s: %s, %s, %d x %" PRIu64 " = %" PRIu64 " elements per tile; CUB: %s\n", c.name.c_str(),
                c.what.c_str(), c.algorithm(), c.threads, c.tile / (uint64_t)c.threads, c.tile, c.cub_name);
  if (!failures.empty()) {
    std::printf("\n### Wrong results (no time reported)\n\n");
    for (const std::string& f : failures) std::printf("- %s\n", f.c_str());
  }
  std::fflush(stdout);

  // ---- CSV: one line per case, size and implementation ----
  if (csv) {
    FILE* f = csv;
    std::fprintf(f, "case,type,element_bytes,algorithm,impl,log2n,n,bytes_moved,threads,tile,blocks,workspace_bytes,"
                    "runs,warmup,median_us,min_us,max_us,gbps,fraction_of_copy,vs_cub,status\n");
    for (const Row& r : rows) {
      const Case& c = *r.c;
      struct Line {
        const char* impl;
        const Measure* m;
      };
      for (const Line& l : {Line{"copy", &r.copy}, Line{"scangen", &r.sg}, Line{"cub", &r.cub}}) {
        const Measure& m = *l.m;
        const bool is_sg = l.m == &r.sg;
        const bool t = timed(m);
        std::fprintf(f, "%s,%s,%zu,%s,%s,%d,%" PRIu64 ",%" PRIu64 ",%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s\n",
                     c.name.c_str(), c.type.c_str(), c.elem_bytes,
                     is_sg ? c.algorithm() : l.m == &r.cub ? c.cub_name : "cudaMemcpyAsync", l.impl, r.log2n, r.n,
                     (uint64_t)(2 * r.n * c.elem_bytes), is_sg ? std::to_string(c.threads).c_str() : "",
                     is_sg ? std::to_string(c.tile).c_str() : "",
                     is_sg && r.skipped.empty() ? std::to_string(m.blocks).c_str() : "",
                     l.impl != std::string("copy") && r.skipped.empty() ? std::to_string(m.workspace).c_str() : "",
                     r.runs, r.warmup, t ? fmt("%.2f", m.t.median_us).c_str() : "",
                     t ? fmt("%.2f", m.t.min_us).c_str() : "", t ? fmt("%.2f", m.t.max_us).c_str() : "",
                     t ? fmt("%.1f", m.gbps).c_str() : "", t ? fmt("%.4f", m.of_copy).c_str() : "",
                     is_sg && r.vs_cub > 0 ? fmt("%.4f", r.vs_cub).c_str() : "", m.status.c_str());
      }
    }
    if (std::fclose(f) != 0) {
      std::fprintf(stderr, "device_bench: cannot write %s: %s\n", opt.csv.c_str(), std::strerror(errno));
      return kExitUsage;
    }
  }
  return all_ok ? 0 : kExitWrongResult;
}
