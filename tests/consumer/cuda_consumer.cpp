// The CUDA side of the consumer test: host code built by the C++ compiler
// that includes only the headers scangen_generate() wrote for
// examples/affine.scan (device level) and examples/own_kernel/block_sum.scan
// (block level), and links the generated .cu files nvcc compiled.
//
// The argument checks run everywhere (they launch nothing); the scans run on
// a CUDA GPU and are checked against CPU loops. Exit 0 when every check
// passes, 1 when one fails, 2 when there is no GPU to run the scans on.
#include <algorithm>
#include "affine_cuda.h"
#include "block_sum_cuda.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "check.h"

namespace {

using consumer::Failures;
using Affine = affine_recurrence_T;

bool same(const Affine& x, const Affine& y) { return x.a == y.a && x.b == y.b; }

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

// Device memory freed at the end of the scope.
template <typename T>
struct Device {
  T* p = nullptr;
  explicit Device(size_t count) {
    if (cudaMalloc(reinterpret_cast<void**>(&p), count == 0 ? 1 : count * sizeof(T)) != cudaSuccess) p = nullptr;
  }
  ~Device() {
    if (p != nullptr) cudaFree(p);
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

bool affine_case(int64_t n, void* workspace, size_t workspace_bytes, bool in_place, uint32_t seed, cudaStream_t s) {
  const std::vector<Affine> in = consumer::affine_input<Affine>(n, seed);
  Device<Affine> d_in(in.size()), d_out(in.size());
  const size_t bytes = in.size() * sizeof(Affine);
  if (!ok(cudaMemcpy(d_in.p, in.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy")) return false;
  Affine* out = in_place ? d_in.p : d_out.p;
  if (!ok(affine_recurrence_inclusive(d_in.p, out, n, workspace, workspace_bytes, s), "affine_recurrence_inclusive") ||
      !ok(cudaStreamSynchronize(s), "the affine scan"))
    return false;
  std::vector<Affine> got(in.size());
  if (!ok(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy")) return false;
  const int64_t bad = consumer::first_difference(got, consumer::affine_scan(in), same);
  if (bad >= 0)
    std::fprintf(stderr, "affine scan of %lld elements%s: element %lld is {%g, %g}\n", static_cast<long long>(n),
                 in_place ? " (in place)" : "", static_cast<long long>(bad), static_cast<double>(got[bad].a),
                 static_cast<double>(got[bad].b));
  return bad < 0;
}

bool block_sum_case(int64_t n, uint32_t seed, cudaStream_t s) {
  const std::vector<int> in = consumer::int_input(n, seed);
  Device<int> d_in(in.size()), d_out(in.size());
  if (!ok(cudaMemcpy(d_in.p, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy")) return false;
  if (!ok(block_sum_inclusive(d_in.p, d_out.p, n, s), "block_sum_inclusive") ||
      !ok(cudaStreamSynchronize(s), "the block scan"))
    return false;
  std::vector<int> got(in.size());
  if (!ok(cudaMemcpy(got.data(), d_out.p, in.size() * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy")) return false;
  const int64_t bad =
      consumer::first_difference(got, consumer::segmented_sum(in, 512), [](int a, int b) { return a == b; });
  if (bad >= 0)
    std::fprintf(stderr, "block_sum of %lld elements: element %lld differs\n", static_cast<long long>(n),
                 static_cast<long long>(bad));
  return bad < 0;
}

}  // namespace

int main() {
  Failures f;

  // Argument checks: each returns before any CUDA call, so no GPU is needed.
  // The pointers are never dereferenced.
  alignas(16) static unsigned char host[4096];
  Affine* const in = reinterpret_cast<Affine*>(host);
  Affine* const out = in + 64;
  void* const ws = host + 1024;
  const size_t ws_bytes = affine_recurrence_workspace_bytes(64);
  f.expect(ws_bytes >= 16 && ws_bytes <= 2048, "affine_recurrence_workspace_bytes(64)");
  f.expect(affine_recurrence_workspace_bytes(-1) == 0, "affine_recurrence_workspace_bytes(-1) == 0");
  f.expect(affine_recurrence_inclusive(in, out, -1, ws, ws_bytes) == cudaErrorInvalidValue, "n < 0");
  f.expect(affine_recurrence_inclusive(nullptr, out, 64, ws, ws_bytes) == cudaErrorInvalidValue, "null input");
  f.expect(affine_recurrence_inclusive(in, nullptr, 64, ws, ws_bytes) == cudaErrorInvalidValue, "null output");
  f.expect(affine_recurrence_inclusive(in, out, 64, nullptr, ws_bytes) == cudaErrorInvalidValue, "null workspace");
  f.expect(affine_recurrence_inclusive(in, out, 64, ws, ws_bytes - 1) == cudaErrorInvalidValue, "workspace too small");
  f.expect(affine_recurrence_inclusive(in, out, 64, host + 1032, ws_bytes) == cudaErrorInvalidValue,
           "workspace not 16-byte aligned");
  f.expect(affine_recurrence_inclusive(nullptr, nullptr, 0, nullptr, 0) == cudaSuccess, "n == 0 does nothing");
  int* const ints = reinterpret_cast<int*>(host);
  f.expect(block_sum_inclusive(ints, nullptr, 10) == cudaErrorInvalidValue, "block_sum: null output");
  f.expect(block_sum_inclusive(ints, ints, -3) == cudaErrorInvalidValue, "block_sum: n < 0");
  f.expect(block_sum_inclusive(nullptr, nullptr, 0) == cudaSuccess, "block_sum: n == 0 does nothing");
  if (f.count > 0) {
    std::fprintf(stderr, "cuda_consumer: %d argument check(s) failed\n", f.count);
    return 1;
  }
  std::printf("cuda_consumer: the argument checks pass\n");

  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("cuda_consumer: no CUDA GPU here (%s); the scans were not run\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "no device");
    return 2;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) std::printf("cuda_consumer: device %s\n", prop.name);
  cudaStream_t stream = nullptr;
  if (!ok(cudaStreamCreate(&stream), "cudaStreamCreate")) return 1;

  // One workspace for a run of calls, filled with garbage first: it needs no
  // initialisation (each call zeroes what it uses). Then freed and allocated
  // again (perhaps at the same address) with other garbage in it.
  const int64_t max_n = (1 << 22) + 3;
  const size_t bytes = affine_recurrence_workspace_bytes(max_n);
  for (int round = 0; round < 2; ++round) {
    Device<unsigned char> workspace(bytes);
    f.expect(ok(cudaMemset(workspace.p, round == 0 ? 0xff : 0x5a, bytes), "cudaMemset"), "fill the workspace");
    uint32_t seed = 1 + 100u * static_cast<uint32_t>(round);
    for (int64_t n : {int64_t{1}, int64_t{2047}, int64_t{2048}, int64_t{2049}, int64_t{1000000}, max_n, int64_t{5}})
      f.expect(affine_case(n, workspace.p, bytes, false, seed++, stream), "affine scan");
    f.expect(affine_case(700001, workspace.p, bytes, true, 99, stream), "affine scan in place");
  }
  for (int64_t n : {int64_t{1}, int64_t{512}, int64_t{513}, int64_t{1000007}})
    f.expect(block_sum_case(n, static_cast<uint32_t>(n), stream), "block_sum");
  cudaStreamDestroy(stream);

  if (f.count > 0) {
    std::fprintf(stderr, "cuda_consumer: %d check(s) failed\n", f.count);
    return 1;
  }
  std::printf("cuda_consumer: every check passed\n");
  return 0;
}
