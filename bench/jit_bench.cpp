// JIT costs of the runtime, on its default device (CUDA when there is a GPU,
// else OpenCL) or the one named by --opencl / --cuda:
//
//   cold compile   a device scan never seen before, caches off (NVRTC or clBuildProgram)
//   disk hit       the same scans in a fresh Runtime, from the disk cache
//   memory hit     Runtime::compile of a text compiled before
//   launch         Scan::run of n = 1024 elements, host side (no wait for the GPU)
//   hit + launch   compile(text) + run, host side
//
// Each figure is a median (cold and disk: of 9 different scans; the others:
// of 2000 calls after 100 warm-up calls). Prints a Markdown table. The cold
// compile, the disk hit and the hits are timed with tiered compilation off
// (one compile per scan, as before tiers); on CUDA a second table times the
// tiers (runtime/README.md, "Tiers") for an i32 sum, the affine map and the
// 2x2 matrix product, each the median of 3 different scans:
//
//   one tier       the cold compile with tiering off (the tuned build only)
//   first result   tiering on: compile + the first call (n = 2^20) + its wait
//   tuned ready    from the same compile's start to wait_tuned()
//   kernel         one call at n = 2^24 on each tier, host-timed over 20
//                  calls (the fast tier's only where no swap came in between)
// (--tiers: this table alone) and a third what a fast tier of PTX would cost: NVRTC to PTX with
// -Ofast-compile=mid or max, then the driver's JIT (cuModuleLoadDataEx) at
// its default optimisation level and at level 0 (median of 3).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cuda_driver.h"
#include "nvrtc_program.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/runtime/runtime.h"

namespace {

using Clock = std::chrono::steady_clock;

double us(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// This process's mark in every scan's name: a source no earlier run compiled, so that neither
// NVRTC's nor the driver's caches (which outlive a process) know it.
const std::string& run_mark() {
  static const std::string mark =
      "_r" + std::to_string(static_cast<unsigned long long>(std::chrono::system_clock::now().time_since_epoch().count()) %
                            1000000000000ull);
  return mark;
}

std::string spec(int i, const char* type) {
  // A different identity name per i: a different source, so a different key.
  return "scan jit_" + std::to_string(i) + run_mark() + " { type = " + type + "; op = add; level = device; }";
}

const char* const kTierScans[][2] = {
    {"i32 sum", "scan %s { type = i32; op = add; level = device; }"},
    {"affine", "type Affine { a: f32, b: f32 }\nscan %s { type = Affine; combine(x, y) = Affine { a: y.a * x.a, "
               "b: y.a * x.b + y.b }; identity = Affine { a: 1.0, b: 0.0 }; level = device; }"},
    {"2x2 matrix", "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\nscan %s { type = Mat2; combine(x, y) = Mat2 { "
                   "a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + "
                   "x.d * y.d }; identity = Mat2 { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; level = device; }"},
};

std::string tier_spec(int kind, const std::string& name) {
  char text[512];
  std::snprintf(text, sizeof text, kTierScans[kind][1], (name + run_mark()).c_str());
  return text;
}

// Microseconds per call of `s` over `calls` calls of n elements (host-timed,
// the GPU drained before and after).
double kernel_us(const scangen::runtime::detail::Driver& cu, const scangen::Scan& s, CUdeviceptr buf, uint64_t n,
                 int calls) {
  scangen::Scan::CudaArgs a;
  a.in = reinterpret_cast<void*>(buf);
  a.inclusive = reinterpret_cast<void*>(buf + n * 16);
  a.n = n;
  s.run(a);  // the managed workspace grown
  cu.cuCtxSynchronize();
  const auto t0 = Clock::now();
  for (int i = 0; i < calls; ++i) s.run(a);
  cu.cuCtxSynchronize();
  return us(t0, Clock::now()) / calls;
}

// The tiers' table (CUDA, caches off).
void tier_table(const scangen::RuntimeOptions& options) {
  const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
  const uint64_t big = 1ull << 24, first_n = 1ull << 20;
  CUdeviceptr buf = 0;
  if (!cu || cu->cuMemAlloc(&buf, 2 * big * 16) != CUDA_SUCCESS || cu->cuMemsetD8(buf, 0, 2 * big * 16) != CUDA_SUCCESS)
    throw scangen::Error("cuMemAlloc failed");
  scangen::RuntimeOptions on = options, off = options;
  on.jit_tiers = true;
  off.jit_tiers = false;
  std::printf("\n## tiers (caches off; kernels at n = 2^24, host-timed)\n\n"
              "The tuned build queued once the fast tier's module is loaded (the runtime's way), and, in the last\n"
              "columns, before the fast build starts (SCANGEN_JIT_TUNED_AFTER=0: the two side by side). First\n"
              "result: compile, one call at n = 2^20 and its wait.\n\n");
  std::printf("| scan | one tier, cold ms | first result (fast tier) ms | tuned ready ms | fast kernel us | "
              "tuned kernel us | fast / tuned | first result, tuned beside ms | tuned ready, tuned beside ms |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<double> one, first[2], ready[2], fast_k[2], tuned_k;
    {
      scangen::Runtime rt(off);
      rt.compile(tier_spec(kind, "warm"));  // the compiler loaded
      for (int i = 0; i < 3; ++i) {
        const auto t0 = Clock::now();
        rt.compile(tier_spec(kind, "one_" + std::to_string(i)));
        one.push_back(us(t0, Clock::now()) / 1000);
      }
    }
    for (int way = 0; way < 2; ++way) {
      if (way == 1)
        setenv("SCANGEN_JIT_TUNED_AFTER", "0", 1);
      else
        unsetenv("SCANGEN_JIT_TUNED_AFTER");
      scangen::Runtime rt(on);
      rt.compile(tier_spec(kind, "warm_" + std::to_string(way))).wait_tuned();
      for (int i = 0; i < 5; ++i) {
        const auto t0 = Clock::now();
        scangen::Scan s = rt.compile(tier_spec(kind, "tiered_" + std::to_string(way) + "_" + std::to_string(i)));
        scangen::Scan::CudaArgs a;
        a.in = reinterpret_cast<void*>(buf);
        a.inclusive = reinterpret_cast<void*>(buf + big * 16);
        a.n = first_n;
        s.run(a);
        cu->cuCtxSynchronize();
        first[way].push_back(us(t0, Clock::now()) / 1000);
        const bool was_fast = s.tier() == scangen::Tier::Fast;
        const double f = kernel_us(*cu, s, buf, big, 20);  // in every way, so that "tuned ready" compares
        if (was_fast) fast_k[way].push_back(f);
        s.wait_tuned();
        ready[way].push_back(us(t0, Clock::now()) / 1000);
        if (s.tier() != scangen::Tier::Tuned) throw scangen::Error("the tuned tier did not come: " + s.tier_error());
        if (way == 0) tuned_k.push_back(kernel_us(*cu, s, buf, big, 20));
      }
    }
    unsetenv("SCANGEN_JIT_TUNED_AFTER");
    const double fk = median(fast_k[0]), tk = median(tuned_k);
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f |\n", kTierScans[kind][0], median(one),
                median(first[0]), median(ready[0]), fk, tk, tk > 0 ? fk / tk : 0.0, median(first[1]),
                median(ready[1]));
    std::fflush(stdout);
  }
  cu->cuMemFree(buf);
}

// NVRTC to PTX with `level`, then the driver's JIT at `jit_level` (-1: its
// default): milliseconds for both, the module unloaded.
double ptx_then_driver(const scangen::runtime::detail::Driver& cu, const std::string& source, const std::string& arch,
                       const char* level, int jit_level) {
  const auto t0 = Clock::now();
  scangen::nvrtc_support::Compiled c =
      scangen::nvrtc_support::compile(source, "scan.cu", arch, {std::string("--Ofast-compile=") + level});
  if (c.status != NVRTC_SUCCESS) throw scangen::Error("NVRTC: " + c.log);
  CUjit_option opt[1] = {CU_JIT_OPTIMIZATION_LEVEL};
  void* val[1] = {reinterpret_cast<void*>(static_cast<uintptr_t>(jit_level < 0 ? 0 : jit_level))};
  CUmodule m = nullptr;
  const CUresult r = cu.cuModuleLoadDataEx(&m, c.code.c_str(), jit_level < 0 ? 0 : 1, opt, val);
  if (r != CUDA_SUCCESS) throw scangen::Error(scangen::runtime::detail::describe(cu, "cuModuleLoadDataEx", r));
  const double ms = us(t0, Clock::now()) / 1000;
  cu.cuModuleUnload(m);
  return ms;
}

// A fast tier of PTX: NVRTC's PTX and the driver's JIT (each source made new
// by its scan's name, so that neither NVRTC nor the driver's cache knows it).
void ptx_table(const scangen::RuntimeOptions& options) {
  const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
  scangen::RuntimeOptions off = options;
  off.jit_tiers = false;
  scangen::Runtime rt(off);
  std::printf("\n## a fast tier of PTX: NVRTC to PTX, then the driver's JIT (ms, caches off)\n\n");
  std::printf("| scan | mid, JIT default | mid, JIT -O0 | max, JIT default | max, JIT -O0 |\n|---|---:|---:|---:|---:|\n");
  int salt = 0;
  for (int kind = 0; kind < 3; ++kind) {
    const scangen::Scan s = rt.compile(tier_spec(kind, "ptx_plan"));
    const int sm = s.plan().arch;
    const std::string arch = "compute_" + std::to_string(sm);
    std::printf("| %s |", kTierScans[kind][0]);
    for (const char* level : {"mid", "max"}) {
      for (int jit : {-1, 0}) {
        std::vector<double> t;
        for (int i = 0; i < 3; ++i) {
          // A fresh scan name: a fresh source, unknown to the driver's own cache.
          const std::string text = tier_spec(kind, "ptx_" + std::to_string(salt++));
          scangen::dsl::Document doc = scangen::dsl::load("<ptx>", text);
          scangen::generator::Plan p = scangen::generator::make_plan(doc.specs().front(), {scangen::Backend::Cuda, sm});
          t.push_back(ptx_then_driver(*cu, scangen::generator::emit(p, {}), arch, level, jit));
        }
        std::printf(" %.1f |", median(t));
      }
    }
    std::printf("\n");
  }
}

// One compile of `source` for the candidates' table: NVRTC with `nvrtc`
// options to a cubin (`jit_level` < -1) or to PTX that the driver's JIT loads
// at `jit_level` (-1: its default); milliseconds to a loaded module.
double compile_and_load(const scangen::runtime::detail::Driver& cu, const std::string& source, int sm,
                        const std::vector<std::string>& nvrtc, int jit_level) {
  const bool cubin = jit_level < -1;
  const std::string arch = (cubin ? "sm_" : "compute_") + std::to_string(sm);
  const auto t0 = Clock::now();
  scangen::nvrtc_support::Compiled c = scangen::nvrtc_support::compile(source, "scan.cu", arch, nvrtc);
  if (c.status != NVRTC_SUCCESS) throw scangen::Error("NVRTC: " + c.log);
  // The kernels' names: PTX's ".entry NAME(", a cubin's sections ".text.NAME".
  std::vector<std::string> entries;
  const std::string mark = cubin ? ".text." : ".entry ";
  for (size_t at = c.code.find(mark); at != std::string::npos; at = c.code.find(mark, at + 1)) {
    size_t end = at + mark.size();
    while (end < c.code.size() && (std::isalnum(static_cast<unsigned char>(c.code[end])) || c.code[end] == '_')) ++end;
    if (end > at + mark.size()) entries.push_back(c.code.substr(at + mark.size(), end - at - mark.size()));
  }
  CUjit_option opt[1] = {CU_JIT_OPTIMIZATION_LEVEL};
  void* val[1] = {reinterpret_cast<void*>(static_cast<uintptr_t>(jit_level < 0 ? 0 : jit_level))};
  CUmodule m = nullptr;
  const CUresult r = cu.cuModuleLoadDataEx(&m, c.code.data(), jit_level < 0 ? 0 : 1, opt, val);
  if (r != CUDA_SUCCESS) throw scangen::Error(scangen::runtime::detail::describe(cu, "cuModuleLoadDataEx", r));
  // The kernels looked up, as the runtime does: with lazy loading (the
  // driver's default) a kernel's machine code, and PTX's JIT, may wait for it.
  for (const std::string& k : entries) {
    CUfunction fn = nullptr;
    const CUresult g = cu.cuModuleGetFunction(&fn, m, k.c_str());
    if (g != CUDA_SUCCESS) throw scangen::Error(scangen::runtime::detail::describe(cu, "cuModuleGetFunction", g));
  }
  const double ms = us(t0, Clock::now()) / 1000;
  cu.cuModuleUnload(m);
  return ms;
}

// Where a disk hit's time goes, besides reading the entry: the generator
// (parse, plan, emit: the runtime makes the source to key it) and the
// driver's loading of a tuned cubin (cuModuleLoadData + cuModuleGetFunction).
void disk_hit_parts() {
  const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
  int sm = 0;
  {
    scangen::RuntimeOptions off;
    off.jit_tiers = false;
    scangen::Runtime rt(off);
    sm = rt.compile(spec(0, "i32")).plan().arch;
  }
  std::vector<double> gen, load;
  std::string source;
  for (int i = 0; i < 50; ++i) {
    const auto t0 = Clock::now();
    scangen::dsl::Document doc = scangen::dsl::load("<parts>", spec(i, "i32"));
    const scangen::generator::Plan p =
        scangen::generator::make_plan(doc.specs().front(), {scangen::Backend::Cuda, sm});
    source = scangen::generator::emit(p, {});
    gen.push_back(us(t0, Clock::now()) / 1000);
  }
  scangen::nvrtc_support::Compiled c =
      scangen::nvrtc_support::compile(source, "scan.cu", "sm_" + std::to_string(sm), {});
  if (c.status != NVRTC_SUCCESS) throw scangen::Error("NVRTC: " + c.log);
  for (int i = 0; i < 50; ++i) {
    const auto t0 = Clock::now();
    CUmodule m = nullptr;
    CUfunction f = nullptr;
    if (cu->cuModuleLoadData(&m, c.code.data()) != CUDA_SUCCESS ||
        cu->cuModuleGetFunction(&f, m, "jit_49_scan_kernel") != CUDA_SUCCESS)
      throw scangen::Error("cuModuleLoadData / cuModuleGetFunction failed");
    load.push_back(us(t0, Clock::now()) / 1000);
    cu->cuModuleUnload(m);
  }
  std::printf("\n## a disk hit's parts (ms, median of 50)\n\n| generator: parse, plan, emit | driver: load the cubin |\n"
              "|---:|---:|\n| %.3f | %.3f |\n", median(gen), median(load));
}

// Candidates for the fast tier, end to end (NVRTC, then the module loaded):
// the scans of the tiers' table with smaller tiles, under the options that
// trade code for compile time, and a one-line kernel (NVRTC's floor).
void candidate_table() {
  const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
  int sm = 0;
  {
    scangen::RuntimeOptions off;
    off.jit_tiers = false;
    scangen::Runtime rt(off);
    sm = rt.compile(tier_spec(0, "cand_plan")).plan().arch;
  }
  struct Way {
    const char* name;
    std::vector<std::string> nvrtc;
    int jit;  // < -1: cubin from NVRTC; -1: PTX, driver JIT default; >= 0: PTX, driver JIT level
  };
  const std::vector<Way> ways = {
      {"cubin", {}, -2},
      {"cubin mid", {"--Ofast-compile=mid"}, -2},
      {"ptx + jit O0", {}, 0},
      {"ptx mid + jit O0", {"--Ofast-compile=mid"}, 0},
      {"ptx mid + jit O1", {"--Ofast-compile=mid"}, 1},
      {"ptx max + jit O0", {"--Ofast-compile=max"}, 0},
      {"cubin mid minimal", {"--Ofast-compile=mid", "--minimal"}, -2},
      {"ptx mid minimal + jit O0", {"--Ofast-compile=mid", "--minimal"}, 0},
      {"ptx max minimal + jit O0", {"--Ofast-compile=max", "--minimal"}, 0},
  };
  const char* const tiles[] = {"", "items = 4;", "items = 1;"};
  std::printf("\n## fast-tier candidates: NVRTC, then the module loaded (ms, median of 5, caches off)\n\n| scan | tile |");
  for (const Way& w : ways) std::printf(" %s |", w.name);
  std::printf("\n|---|---|");
  for (size_t i = 0; i < ways.size(); ++i) std::printf("---:|");
  std::printf("\n");
  int salt = 0;
  const auto row = [&](const char* scan, const char* tile, const std::function<std::string()>& source) {
    std::printf("| %s | %s |", scan, *tile ? tile : "(tuned)");
    for (const Way& w : ways) {
      std::vector<double> t;
      for (int i = 0; i < 5; ++i) t.push_back(compile_and_load(*cu, source(), sm, w.nvrtc, w.jit));
      std::printf(" %.1f |", median(t));
      std::fflush(stdout);
    }
    std::printf("\n");
  };
  row("one-line kernel", "", [&] {
    return "extern \"C\" __global__ void k" + std::to_string(salt++) + "(int* p) { p[threadIdx.x] += 1; }\n";
  });
  for (int kind = 0; kind < 3; ++kind) {
    for (const char* tile : tiles) {
      row(kTierScans[kind][0], tile, [&] {
        std::string text = tier_spec(kind, "cand_" + std::to_string(salt++));
        text.insert(text.rfind('}'), std::string(" ") + tile + " ");
        scangen::dsl::Document doc = scangen::dsl::load("<cand>", text);
        return scangen::generator::emit(
            scangen::generator::make_plan(doc.specs().front(), {scangen::Backend::Cuda, sm}), {});
      });
    }
  }
}

// Does the tuned tier's compile, which the runtime starts beside the fast
// one, slow the fast one down? The fast tier's build (PTX of `mid
// --minimal`, the driver's JIT at -O0) alone, and while another thread
// builds the tuned cubin of another new source: NVRTC or the driver may
// serialise the two, and the host's cores are shared.
void contention_table() {
  const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
  int sm = 0;
  {
    scangen::RuntimeOptions off;
    off.jit_tiers = false;
    scangen::Runtime rt(off);
    sm = rt.compile(tier_spec(0, "cont_plan")).plan().arch;
  }
  std::printf("\n## the fast tier's build alone and beside the tuned build (ms, median of 5, caches off)\n\n"
              "| scan | fast alone | fast, tuned beside it | tuned (beside) |\n|---|---:|---:|---:|\n");
  int salt = 0;
  const auto source = [&](int kind) {
    const std::string text = tier_spec(kind, "cont_" + std::to_string(salt++));
    scangen::dsl::Document doc = scangen::dsl::load("<cont>", text);
    return scangen::generator::emit(scangen::generator::make_plan(doc.specs().front(), {scangen::Backend::Cuda, sm}),
                                    {});
  };
  const std::vector<std::string> fast = {"--Ofast-compile=mid", "--minimal"};
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<double> alone, beside, tuned;
    for (int i = 0; i < 5; ++i) alone.push_back(compile_and_load(*cu, source(kind), sm, fast, 0));
    for (int i = 0; i < 5; ++i) {
      const std::string a = source(kind), b = source(kind);
      double t_tuned = 0;
      CUcontext ctx = nullptr;
      cu->cuCtxGetCurrent(&ctx);  // the context the main thread loads into, for the other thread too
      std::thread other([&] {
        cu->cuCtxSetCurrent(ctx);
        try {
          t_tuned = compile_and_load(*cu, b, sm, {}, -2);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "jit_bench: the tuned build beside the fast one: %s\n", e.what());
          t_tuned = -1;
        }
      });
      beside.push_back(compile_and_load(*cu, a, sm, fast, 0));
      other.join();
      tuned.push_back(t_tuned);
    }
    std::printf("| %s | %.1f | %.1f | %.1f |\n", kTierScans[kind][0], median(alone), median(beside), median(tuned));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  scangen::RuntimeOptions options;
  bool tiers_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--opencl") == 0) options.backend = scangen::Backend::OpenCL;
    else if (std::strcmp(argv[i], "--cuda") == 0) options.backend = scangen::Backend::Cuda;
    else if (std::strcmp(argv[i], "--tiers") == 0) tiers_only = true;
    else {
      std::fprintf(stderr, "usage: jit_bench [--cuda | --opencl] [--tiers]\n");
      return 1;
    }
  }
  if (tiers_only) {  // the tiers' table alone (CUDA)
    options.backend = scangen::Backend::Cuda;
    setenv("SCANGEN_CACHE_DISABLE", "1", 1);
    try {
      scangen::Runtime rt(options);  // the driver and its context current here, as in the full run
      rt.compile(spec(1000, "i32"));
      std::printf("## jit_bench --tiers: CUDA, %s\n", rt.device_name().c_str());
      tier_table(options);
    } catch (const scangen::Error& e) {
      std::fprintf(stderr, "jit_bench: %s\n", e.what());
      return 2;
    }
    return 0;
  }
  scangen::RuntimeOptions one_tier = options;
  one_tier.jit_tiers = false;
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "scangen-jit-bench-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    std::perror("mkdtemp");
    return 2;
  }
  setenv("SCANGEN_CACHE_DIR", dir.c_str(), 1);
  try {
    const int kinds = 9;
    std::vector<double> cold, disk, hit, launch, hit_launch;
    std::string device;
    scangen::Backend backend;
    {
      setenv("SCANGEN_CACHE_DISABLE", "1", 1);
      scangen::Runtime rt(one_tier);
      device = rt.device_name();
      backend = rt.backend();
      rt.compile(spec(1000, "i32"));  // the first compile of a process loads the compiler
      for (int i = 0; i < kinds; ++i) {
        const auto t0 = Clock::now();
        rt.compile(spec(i, "i32"));
        cold.push_back(us(t0, Clock::now()) / 1000);
      }
      unsetenv("SCANGEN_CACHE_DISABLE");
    }
    {
      scangen::Runtime fill(one_tier);
      for (int i = 0; i < kinds; ++i) fill.compile(spec(i, "i32"));
    }
    scangen::Runtime rt(options);
    for (int i = 0; i < kinds; ++i) {
      const auto t0 = Clock::now();
      rt.compile(spec(i, "i32"));
      disk.push_back(us(t0, Clock::now()) / 1000);
    }
    const std::string text = spec(0, "i32");
    scangen::Scan scan = rt.compile(text);
    for (int i = 0; i < 2100; ++i) {
      const auto t0 = Clock::now();
      scangen::Scan again = rt.compile(text);
      if (i >= 100) hit.push_back(us(t0, Clock::now()));
    }
    const uint64_t n = 1024;
    if (backend == scangen::Backend::Cuda) {
      // The driver as the runtime loads it (runtime/src/cuda_driver.h).
      const scangen::runtime::detail::Driver* cu = scangen::runtime::detail::load_driver(nullptr);
      CUdeviceptr d = 0;
      if (!cu || cu->cuMemAlloc(&d, 2 * n * 4) != CUDA_SUCCESS) throw scangen::Error("cuMemAlloc failed");
      const auto sync = [cu] { cu->cuCtxSynchronize(); };
      scangen::Scan::CudaArgs a;
      a.in = reinterpret_cast<void*>(d);
      a.inclusive = reinterpret_cast<void*>(d + n * 4);
      a.n = n;
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        scan.run(a);
        if (i >= 100) launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) sync();
      }
      sync();
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        rt.compile(text).run(a);
        if (i >= 100) hit_launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) sync();
      }
      sync();
    } else {
      cl_int err = CL_SUCCESS;
      cl_mem in = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, n * 4, nullptr, &err);
      cl_mem out = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, n * 4, nullptr, &err);
      if (err != CL_SUCCESS) throw scangen::Error("clCreateBuffer failed");
      scangen::Scan::OpenCLArgs a;
      a.in = in;
      a.inclusive = out;
      a.n = n;
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        scan.run(a);
        if (i >= 100) launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) clFinish(rt.opencl_queue());
      }
      for (int i = 0; i < 2100; ++i) {
        const auto t0 = Clock::now();
        rt.compile(text).run(a);
        if (i >= 100) hit_launch.push_back(us(t0, Clock::now()));
        if (i % 64 == 0) clFinish(rt.opencl_queue());
      }
      clFinish(rt.opencl_queue());
      clReleaseMemObject(in);
      clReleaseMemObject(out);
    }
    std::printf("## jit_bench: %s, %s\n\n", backend == scangen::Backend::Cuda ? "CUDA" : "OpenCL", device.c_str());
    std::printf("| what | median | goal |\n|---|---:|---:|\n");
    std::printf("| cold compile of a device scan (i32 sum) | %.1f ms | <= 100 ms |\n", median(cold));
    std::printf("| disk-cache hit (fresh Runtime) | %.2f ms | <= 2 ms |\n", median(disk));
    std::printf("| memory-cache hit: compile(text) | %.2f us | |\n", median(hit));
    std::printf("| launch, host side: run(n = 1024) | %.2f us | |\n", median(launch));
    std::printf("| memory hit + launch | %.2f us | <= 5 us |\n", median(hit_launch));
    if (backend == scangen::Backend::Cuda) {
      setenv("SCANGEN_CACHE_DISABLE", "1", 1);
      tier_table(options);
      ptx_table(options);
      disk_hit_parts();
      candidate_table();
      contention_table();
      unsetenv("SCANGEN_CACHE_DISABLE");
    }
  } catch (const scangen::Error& e) {
    std::fprintf(stderr, "jit_bench: %s\n", e.what());
    fs::remove_all(dir);
    return 2;
  }
  fs::remove_all(dir);
  return 0;
}
