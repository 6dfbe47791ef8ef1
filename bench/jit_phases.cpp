// Where the cold JIT time of a generated scan goes: NVRTC on one emitted .cu
// file, compiled again and again with different options, no GPU needed.
//
//   jit_phases FILE.cu [--arch sm_90] [--reps N] [--row NAME]...
//
// Rows (each the median and the minimum of N compiles of a fresh program,
// after one compile that loads the compiler; the minimum is the steadier
// figure on a shared machine):
//   ptx          NVRTC to PTX only (front end + NVVM), --gpu-architecture=compute_XX
//   cubin        to a cubin (front end + NVVM + ptxas), as the runtime compiles
//   cubin -O<k>  the same with ptxas at optimisation level k (--ptxas-options=-O<k>)
//   --minimal    NVRTC's minimal mode (no built-in vector types and headers)
//   -Ofast-compile=min|mid|max   NVRTC's trade of code quality for compile time
//   --split-compile=0            NVVM's optimiser on every core
// ptxas's share is cubin - ptx. Prints a Markdown table; a row whose options
// NVRTC refuses says so.
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nvrtc_builtins.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Result {
  bool ok = false;
  double ms = 0;
  size_t bytes = 0;
  std::string log;
};

// One compile of `source` with `options`; the program is destroyed on every
// path. Each compile's text is made unique by a line at its end (a compiler
// that remembers a text it has seen would otherwise time nothing).
Result compile_once(const std::string& source, const std::vector<std::string>& options, bool cubin) {
  static int salt = 0;
  const std::string text = source + "\nstatic __device__ __attribute__((unused)) int jit_phases_salt_" +
                           std::to_string(salt++) + ";\n";
  Result r;
  nvrtcProgram prog = nullptr;
  const auto t0 = Clock::now();
  nvrtcResult e = nvrtcCreateProgram(&prog, text.c_str(), "scan.cu", 0, nullptr, nullptr);
  if (e != NVRTC_SUCCESS) {
    r.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(e);
    return r;
  }
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  e = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t size = 0;
  if (e == NVRTC_SUCCESS) {
    nvrtcResult g = cubin ? nvrtcGetCUBINSize(prog, &size) : nvrtcGetPTXSize(prog, &size);
    if (g != NVRTC_SUCCESS) e = g;
  }
  const auto t1 = Clock::now();
  if (e != NVRTC_SUCCESS) {
    size_t n = 0;
    r.log = std::string("nvrtcCompileProgram: ") + nvrtcGetErrorString(e);
    if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
      std::string log(n, '\0');
      if (nvrtcGetProgramLog(prog, log.data()) == NVRTC_SUCCESS) r.log += "\n" + log;
    }
  } else {
    r.ok = true;
    r.ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    r.bytes = size;
  }
  nvrtcDestroyProgram(&prog);
  return r;
}

struct Row {
  std::string name;
  std::vector<std::string> options;
  bool cubin;
};

}  // namespace

int main(int argc, char** argv) {
  std::string file, arch = "sm_90";
  int reps = 7;
  std::vector<std::string> only;  // --row: these rows alone (their names as printed)
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--arch") == 0 && i + 1 < argc) arch = argv[++i];
    else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--row") == 0 && i + 1 < argc) only.push_back(argv[++i]);
    else if (argv[i][0] != '-' && file.empty()) file = argv[i];
    else {
      std::fprintf(stderr, "usage: jit_phases FILE.cu [--arch sm_XX] [--reps N] [--row NAME]...\n");
      return 1;
    }
  }
  if (file.empty() || arch.rfind("sm_", 0) != 0) {
    std::fprintf(stderr, "usage: jit_phases FILE.cu [--arch sm_XX] [--reps N] [--row NAME]...\n");
    return 1;
  }
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "jit_phases: cannot read '%s': %s\n", file.c_str(), std::strerror(errno));
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string source = ss.str();
  const std::string& why = scangen::nvrtc_support::load_builtins();
  if (!why.empty()) std::fprintf(stderr, "jit_phases: %s\n", why.c_str());

  const std::string sm = "--gpu-architecture=" + arch;
  const std::string compute = "--gpu-architecture=compute_" + arch.substr(3);
  const std::vector<Row> rows = {
      {"ptx", {compute}, false},
      {"cubin", {sm}, true},
      {"cubin, ptxas -O2", {sm, "--ptxas-options=-O2"}, true},
      {"cubin, ptxas -O1", {sm, "--ptxas-options=-O1"}, true},
      {"cubin, ptxas -O0", {sm, "--ptxas-options=-O0"}, true},
      {"cubin, --minimal", {sm, "--minimal"}, true},
      {"ptx, --minimal", {compute, "--minimal"}, false},
      {"cubin, -Ofast-compile=min", {sm, "--Ofast-compile=min"}, true},
      {"cubin, -Ofast-compile=mid", {sm, "--Ofast-compile=mid"}, true},
      {"cubin, -Ofast-compile=max", {sm, "--Ofast-compile=max"}, true},
      {"ptx, -Ofast-compile=max", {compute, "--Ofast-compile=max"}, false},
      {"cubin, --split-compile=0", {sm, "--split-compile=0"}, true},
      {"cubin, --minimal -Ofast-compile=max", {sm, "--minimal", "--Ofast-compile=max"}, true},
      {"cubin, --extra-device-vectorization", {sm, "--extra-device-vectorization"}, true},
      // Candidates for the runtime's fast tier (runtime/README.md, "Tiers").
      {"ptx, -Ofast-compile=mid", {compute, "--Ofast-compile=mid"}, false},
      {"cubin, -Ofast-compile=mid, ptxas -O1", {sm, "--Ofast-compile=mid", "--ptxas-options=-O1"}, true},
      {"cubin, -Ofast-compile=max, ptxas -O0", {sm, "--Ofast-compile=max", "--ptxas-options=-O0"}, true},
      {"cubin, -Ofast-compile=mid --minimal", {sm, "--Ofast-compile=mid", "--minimal"}, true},
      {"ptx, -Ofast-compile=mid --minimal", {compute, "--Ofast-compile=mid", "--minimal"}, false},
  };
  // Load the compiler and its builtins once before timing.
  const Result warm = compile_once(source, {compute}, false);
  if (!warm.ok) {
    std::fprintf(stderr, "jit_phases: %s does not compile:\n%s\n", file.c_str(), warm.log.c_str());
    return 1;
  }
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::printf("%s: %zu bytes of source, NVRTC %d.%d, %s, median of %d compiles\n\n", file.c_str(), source.size(), major,
              minor, arch.c_str(), reps);
  std::printf("| options | ms | min ms | output bytes |\n|---|---:|---:|---:|\n");
  for (const Row& row : rows) {
    if (!only.empty() && std::find(only.begin(), only.end(), row.name) == only.end()) continue;
    std::vector<double> t;
    Result last;
    for (int i = 0; i < reps; ++i) {
      last = compile_once(source, row.options, row.cubin);
      if (!last.ok) break;
      t.push_back(last.ms);
    }
    if (!last.ok) {
      std::string first = last.log.substr(0, last.log.find('\n', last.log.find('\n') + 1));
      std::printf("| %s | refused: %s | | |\n", row.name.c_str(), first.c_str());
      continue;
    }
    std::sort(t.begin(), t.end());
    std::printf("| %s | %.1f | %.1f | %zu |\n", row.name.c_str(), t[t.size() / 2], t.front(), last.bytes);
    std::fflush(stdout);
  }
  return 0;
}
