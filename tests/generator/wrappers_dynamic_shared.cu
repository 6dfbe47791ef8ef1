// The generated CUDA host wrappers of scans whose exchange is dynamic shared
// memory (tests/generator/specs/dynamic_shared.scan, emitted with --arch
// sm_90 --header by scripts/gpu-check build): the wrappers allow the bytes and
// give them at launch. Each scan at awkward sizes against a loop on the host,
// its output poisoned first, the workspace as the wrapper asks. Exit 0 when
// every check passes, 1 when one fails, 2 when there is no GPU.
#include "wrappers_dynamic_shared_gen.cu"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "wrappers_dynamic_shared: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

// One call of `scan` on n random values, against `reference`; false on any failure.
template <typename T, typename Scan, typename Bytes, typename Reference>
bool check(const char* name, int64_t n, std::mt19937_64& rng, Scan scan, Bytes workspace_bytes, Reference reference) {
  std::vector<T> in(static_cast<size_t>(n)), got(static_cast<size_t>(n)), want(static_cast<size_t>(n));
  std::uniform_int_distribution<int64_t> d(-1000, 1000);
  for (T& x : in) x = static_cast<T>(d(rng));
  reference(in, want);
  T *d_in = nullptr, *d_out = nullptr;
  void* ws = nullptr;
  const size_t ws_bytes = workspace_bytes(n);
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  bool good = ok(cudaMalloc(&d_in, bytes + sizeof(T)), "cudaMalloc") &&
              ok(cudaMalloc(&d_out, bytes + sizeof(T)), "cudaMalloc") && ok(cudaMalloc(&ws, ws_bytes), "cudaMalloc") &&
              ok(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") &&
              ok(cudaMemset(d_out, 0xA5, bytes + sizeof(T)), "cudaMemset") && ok(scan(d_in, d_out, n, ws, ws_bytes), name) &&
              ok(cudaDeviceSynchronize(), name) &&
              ok(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (good)
    for (int64_t i = 0; i < n; ++i)
      if (std::memcmp(&got[static_cast<size_t>(i)], &want[static_cast<size_t>(i)], sizeof(T)) != 0) {
        std::fprintf(stderr, "wrappers_dynamic_shared: %s of %lld elements is wrong at %lld: %lld, want %lld\n", name,
                     static_cast<long long>(n), static_cast<long long>(i),
                     static_cast<long long>(got[static_cast<size_t>(i)]),
                     static_cast<long long>(want[static_cast<size_t>(i)]));
        good = false;
        break;
      }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(ws);
  return good;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("wrappers_dynamic_shared: no CUDA GPU: skipped\n");
    return 2;
  }
  const uint64_t seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  bool good = true;
  const int64_t t32 = 256 * 48, t64 = 128 * 64;
  for (int64_t n : {int64_t{1}, t32 - 1, t32, t32 + 1, 3 * t32 + 5, int64_t{1000001}, (int64_t{1} << 22) + 3})
    good &= check<big_i32_T>(
        "big_i32_inclusive", n, rng,
        [](const big_i32_T* in, big_i32_T* out, int64_t m, void* ws, size_t b) {
          return big_i32_inclusive(in, out, m, ws, b);
        },
        big_i32_workspace_bytes,
        [](const std::vector<big_i32_T>& in, std::vector<big_i32_T>& want) {
          uint32_t acc = 0;
          for (size_t i = 0; i < in.size(); ++i) want[i] = static_cast<big_i32_T>(acc += static_cast<uint32_t>(in[i]));
        });
  for (int64_t n : {int64_t{1}, t64 - 1, t64, t64 + 1, 3 * t64 + 5, int64_t{1000001}, (int64_t{1} << 22) + 3})
    good &= check<big_i64_T>(
        "big_i64_exclusive", n, rng,
        [](const big_i64_T* in, big_i64_T* out, int64_t m, void* ws, size_t b) {
          return big_i64_exclusive(in, out, m, ws, b);
        },
        big_i64_workspace_bytes,
        [](const std::vector<big_i64_T>& in, std::vector<big_i64_T>& want) {
          big_i64_T acc = 7;
          for (size_t i = 0; i < in.size(); ++i) {
            want[i] = acc;
            acc += in[i];
          }
        });
  std::printf("wrappers_dynamic_shared: %s (seed %llu)\n", good ? "passed" : "FAILED", static_cast<unsigned long long>(seed));
  return good ? 0 : 1;
}
