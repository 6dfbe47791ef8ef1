// The segmented race of 2026-12-02 on its own (bench/RESULTS.md, "Checks and
// timings on the H200 (2026-12-02)"): NVRTC compiles FILE, the CUDA text
// `scangen emit` makes of the segmented sweep's seg_flags_affine_exclusive
// (type Affine { a: f32, b: f32 }, mode = exclusive, outputs = aggregate,
// segments = flags), with PREFIX before it ('|' for newlines, e.g.
// '#define SCANGEN_TEST_SLEEP 8'), for the GPU's architecture; runs KERNEL
// REPS times on each n (one segment; every element its own; random starts)
// with a poisoned output and a zeroed workspace, and checks the exclusive
// results bit for bit against a loop here. Exit 1 where any run is wrong.
//
//   g++ -O2 -std=c++17 bench/race_repro.cpp -I/usr/local/cuda/include
//     -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lnvrtc -lcuda -o race_repro
//   ./race_repro seg.cu seg_flags_affine_exclusive_scan_kernel '#define SCANGEN_TEST_SLEEP 8' 10 2048 2049 18431
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#define CK(x)                             \
  do {                                    \
    CUresult r_ = (x);                    \
    if (r_ != CUDA_SUCCESS) {             \
      const char* s;                      \
      cuGetErrorString(r_, &s);           \
      fprintf(stderr, "%s: %s\n", #x, s); \
      exit(2);                            \
    }                                     \
  } while (0)
struct Aff {
  float a, b;
};
static Aff comb(Aff x, Aff y) { return {y.a * x.a, y.a * x.b + y.b}; }
int main(int argc, char** argv) {
  // repro FILE KERNEL PREFIX REPS [n...]
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string prefix = argv[3];
  for (auto& c : prefix)
    if (c == '|') c = '\n';
  std::string src = prefix + ss.str();
  const char* kname = argv[2];
  int reps = atoi(argv[4]);
  std::vector<unsigned long long> ns;
  for (int i = 5; i < argc; ++i) ns.push_back(strtoull(argv[i], 0, 10));
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuCtxCreate(&ctx, nullptr, 0, dev));
  int ma, mi;
  cuDeviceGetAttribute(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  std::string arch = "--gpu-architecture=sm_" + std::to_string(ma * 10 + mi);
  nvrtcProgram p;
  nvrtcCreateProgram(&p, src.c_str(), "r.cu", 0, 0, 0);
  const char* o[] = {arch.c_str()};
  if (nvrtcCompileProgram(p, 1, o) != NVRTC_SUCCESS) {
    size_t l;
    nvrtcGetProgramLogSize(p, &l);
    std::string g(l, 0);
    nvrtcGetProgramLog(p, &g[0]);
    fprintf(stderr, "%s\n", g.c_str());
    return 2;
  }
  size_t cn;
  nvrtcGetCUBINSize(p, &cn);
  std::string cub(cn, 0);
  nvrtcGetCUBIN(p, &cub[0]);
  if (getenv("REPRO_CUBIN")) {
    std::ofstream(getenv("REPRO_CUBIN"), std::ios::binary).write(cub.data(), cub.size());
  }
  CUmodule m;
  CK(cuModuleLoadData(&m, cub.data()));
  CUfunction fn;
  CK(cuModuleGetFunction(&fn, m, kname));
  std::mt19937_64 rng(12345);
  int bad_runs = 0, runs = 0;
  for (unsigned long long n : ns)
    for (int structure = 0; structure < 3; ++structure) {
      std::vector<Aff> in(n);
      std::vector<unsigned char> fl(n);
      for (auto& x : in) {
        x.a = (rng() & 1) ? 1.f : -1.f;
        x.b = (float)((int)(rng() % 17) - 8);
      }
      for (auto& c : fl) c = structure == 0 ? 0 : structure == 1 ? 1 : (rng() % 16 == 0);
      std::vector<Aff> want(n);
      std::vector<Aff> aggs;
      Aff run{1, 0};
      for (size_t i = 0; i < n; ++i) {
        bool st = i == 0 || fl[i];
        if (st) {
          if (i) aggs.push_back(run);
          run = {1, 0};
        }
        want[i] = run;
        run = comb(run, in[i]);
      }
      if (n) aggs.push_back(run);
      unsigned long long tiles = n ? (n + 2047) / 2048 : 1;
      size_t ws = 16 + tiles * 48;
      CUdeviceptr din, dout, dagg, dfl, dws;
      CK(cuMemAlloc(&din, n * 8 + 16));
      CK(cuMemAlloc(&dout, n * 8 + 16));
      CK(cuMemAlloc(&dagg, (aggs.size() + 1) * 8));
      CK(cuMemAlloc(&dfl, n + 16));
      CK(cuMemAlloc(&dws, ws));
      CK(cuMemcpyHtoD(din, in.data(), n * 8));
      CK(cuMemcpyHtoD(dfl, fl.data(), n));
      for (int r = 0; r < reps; ++r) {
        CK(cuMemsetD8(dout, (unsigned char)(0x40 + r), n * 8));
        CK(cuMemsetD8(dws, 0, ws));
        void* args[] = {&din, &dout, &dagg, &dfl, &n, &dws};
        CK(cuLaunchKernel(fn, (unsigned)tiles, 1, 1, 128, 1, 1, 0, 0, args, 0));
        CK(cuCtxSynchronize());
        std::vector<Aff> got(n);
        CK(cuMemcpyDtoH(got.data(), dout, n * 8));
        ++runs;
        int bad = 0, firstbad = -1, lastbad = -1;
        for (size_t i = 0; i < n; ++i)
          if (memcmp(&got[i], &want[i], 8)) {
            if (firstbad < 0) firstbad = (int)i;
            lastbad = (int)i;
            ++bad;
          }
        if (bad) {
          ++bad_runs;
          if (bad_runs <= 5)
            printf("  n=%llu structure %d rep %d: %d differ, [%d..%d]\n", n, structure, r, bad, firstbad, lastbad);
        }
      }
      cuMemFree(din);
      cuMemFree(dout);
      cuMemFree(dagg);
      cuMemFree(dfl);
      cuMemFree(dws);
    }
  printf("%s prefix='%s': %d of %d runs wrong\n", argv[1], argv[3], bad_runs, runs);
  return bad_runs != 0;
}
