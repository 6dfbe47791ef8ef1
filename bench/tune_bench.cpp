// Tuning experiments for device scans: compiles a scan of a .scan file under
// several tunings (generator/include/scangen/generator/tuning.h) through
// NVRTC, checks each against the CPU reference, and times it against a
// device-to-device copy of the same bytes, in one run.
//
//   [SCANGEN_TUNE_NVRTC_OPTIONS="--Ofast-compile=mid"] tune_bench --spec bench/specs/device_bench.scan --case sum_i32 [--case ...]
//              [--variant "threads=128 items=24"] ... [--variants FILE]
//              [--log2n 24,28] [--runs 25] [--csv FILE]
//
// A variant is applied on top of the table's tuning for the scan; the empty
// variant (always run first) is the table's own. Variants from FILE: one per
// line, '#' starts a comment. The report (one line per case, variant and
// size) goes to standard output.
//
// Correctness: each variant first scans 2^22 + 3 elements into a poisoned
// output, compared byte for byte with the CPU reference (inputs keep every
// float result exact: sums of -1, 0, 1; affine maps with a = +-1 and
// b in {-1, 0, 1}; signed permutation matrices). At the timed sizes its
// output must equal the first variant's byte for byte. A variant that fails
// is reported WRONG and not timed; the exit status is then 1.
//
// Only scans of the cases above are supported: integer scalars, f32 / f64,
// and structs of two f32 (affine maps) or four f32 (2x2 matrices).
#include <cuda.h>

#include "nvrtc_program.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "scangen/generator/tuning.h"
#include "scangen/reference/reference.h"

namespace {

namespace gen = scangen::generator;
namespace dsl = scangen::dsl;

[[noreturn]] void die(const std::string& msg, int code = 2) {
  std::fprintf(stderr, "tune_bench: %s\n", msg.c_str());
  std::exit(code);
}

void cu_check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  die(std::string(call) + " failed: " + (name ? name : "?") + " (" + (text ? text : "?") + ")");
}
#define CU(call) cu_check((call), #call)

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) die("cannot read " + path, 3);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Compiled {
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  CUfunction zero = nullptr;  // the knob pdl=1: the workspace's zeroing kernel (Plan::zero_kernel)
  int registers = 0, resident = 0;
};

Compiled compile(const gen::Plan& plan, int major, int minor) {
  const std::string src = gen::emit(plan);
  // SCANGEN_TUNE_NVRTC_OPTIONS: more NVRTC options, separated by spaces (the
  // JIT experiments: what -Ofast-compile costs the kernels).
  static const std::vector<std::string> extra = [] {
    std::vector<std::string> v = {"-std=c++17"};
    std::istringstream words(std::getenv("SCANGEN_TUNE_NVRTC_OPTIONS") ? std::getenv("SCANGEN_TUNE_NVRTC_OPTIONS") : "");
    for (std::string w; words >> w;) v.push_back(w);
    return v;
  }();
  namespace nvrtc = scangen::nvrtc_support;
  nvrtc::Compiled cubin;
  try {
    cubin = nvrtc::compile(src, plan.spec.name + ".cu", "sm_" + std::to_string(major) + std::to_string(minor), extra);
  } catch (const nvrtc::Error& e) {
    die(e.what());
  }
  if (!cubin.builtins.empty()) std::fprintf(stderr, "%s\n", cubin.builtins.c_str());
  if (cubin.status != NVRTC_SUCCESS)
    die(nvrtc::describe("nvrtcCompileProgram", cubin.status) + (cubin.log.empty() ? "" : "\n" + cubin.log));
  Compiled c;
  CU(cuModuleLoadData(&c.module, cubin.code.data()));
  CU(cuModuleGetFunction(&c.kernel, c.module, plan.entry_kernel.c_str()));
  if (plan.dynamic_shared_bytes)  // an exchange past 48 KiB (Plan::dynamic_shared_bytes)
    CU(cuFuncSetAttribute(c.kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          static_cast<int>(plan.dynamic_shared_bytes)));
  if (!plan.zero_kernel.empty()) CU(cuModuleGetFunction(&c.zero, c.module, plan.zero_kernel.c_str()));
  CU(cuFuncGetAttribute(&c.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, c.kernel));
  CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&c.resident, c.kernel, plan.block_threads, plan.dynamic_shared_bytes));
  return c;
}

// Inputs whose every partial result is exact in any grouping (of adjacent runs, as scans add).
std::vector<uint8_t> make_input(const dsl::Spec& s, uint64_t n, std::mt19937_64& rng) {
  const dsl::Type& t = s.input;
  std::vector<uint8_t> v(n * t.size());
  std::uniform_int_distribution<int> tri(-1, 1), sign(0, 1), perm(0, 1);
  if (t.is_integer()) {
    for (auto& b : v) b = static_cast<uint8_t>(rng());
  } else if (t.is_float() && t.size() == 4) {
    auto* f = reinterpret_cast<float*>(v.data());
    for (uint64_t i = 0; i < n; ++i) f[i] = static_cast<float>(tri(rng));
  } else if (t.is_float() && t.size() == 2) {  // f16: -1, 0, 1, the running sum within +-1000 (every run's sum exact)
    int sum = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const int x = sum >= 1000 ? -1 : sum <= -1000 ? 1 : tri(rng);
      sum += x;
      const uint16_t h = dsl::float_to_half_bits(static_cast<float>(x));
      std::memcpy(v.data() + 2 * i, &h, 2);
    }
  } else if (t.is_float() && t.size() == 8) {
    auto* f = reinterpret_cast<double*>(v.data());
    for (uint64_t i = 0; i < n; ++i) f[i] = static_cast<double>(tri(rng));
  } else if (t.is_struct() && t.size() == 8) {  // {a, b}: a = +-1, b in {-1, 0, 1}
    auto* f = reinterpret_cast<float*>(v.data());
    for (uint64_t i = 0; i < n; ++i) {
      f[2 * i] = sign(rng) ? 1.0f : -1.0f;
      f[2 * i + 1] = static_cast<float>(tri(rng));
    }
  } else if (t.is_struct() && t.size() == 16) {  // signed 2x2 permutation matrices
    auto* f = reinterpret_cast<float*>(v.data());
    for (uint64_t i = 0; i < n; ++i) {
      const float x = sign(rng) ? 1.0f : -1.0f, y = sign(rng) ? 1.0f : -1.0f;
      if (perm(rng)) {
        f[4 * i] = x, f[4 * i + 1] = 0, f[4 * i + 2] = 0, f[4 * i + 3] = y;
      } else {
        f[4 * i] = 0, f[4 * i + 1] = x, f[4 * i + 2] = y, f[4 * i + 3] = 0;
      }
    }
  } else {
    die("scan '" + s.name + "': tune_bench has no exact inputs for its type", 3);
  }
  return v;
}

// Two outputs hold the same values: byte for byte, except that float fields
// compare as floats (-0 equals +0: the sign of a zero product depends on the
// grouping).
bool same_values(const dsl::Type& t, const uint8_t* a, const uint8_t* b, uint64_t n, uint64_t* first) {
  const bool floats = t.is_float() || (t.is_struct() && t.size() % 4 == 0 && !t.is_integer());
  if (!floats || t.size() == 2) {
    if (std::memcmp(a, b, n * t.size()) == 0) return true;
    uint64_t i = 0;
    while (a[i] == b[i]) ++i;
    *first = i / t.size();
    return false;
  }
  const uint64_t words = n * t.size() / (t.size() == 8 && t.is_float() ? 8 : 4);
  for (uint64_t i = 0; i < words; ++i) {
    bool eq;
    if (t.size() == 8 && t.is_float()) {
      double x, y;
      std::memcpy(&x, a + 8 * i, 8);
      std::memcpy(&y, b + 8 * i, 8);
      eq = x == y;
    } else {
      float x, y;
      std::memcpy(&x, a + 4 * i, 4);
      std::memcpy(&y, b + 4 * i, 4);
      eq = x == y;
    }
    if (!eq) {
      *first = i * (t.size() == 8 && t.is_float() ? 8 : 4) / t.size();
      return false;
    }
  }
  return true;
}

struct Options {
  std::string spec_path = "bench/specs/device_bench.scan";
  std::vector<std::string> cases;
  std::vector<std::string> variants{""};
  std::vector<int> log2n{28};
  int runs = 25, warmup = 5;
  std::string csv;
};

std::vector<int> int_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    char* end = nullptr;
    const long x = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end || x < 10 || x > 32) die("--log2n: '" + part + "' is not in 10..32", 3);
    v.push_back(static_cast<int>(x));
  }
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value", 3);
      return argv[++i];
    };
    if (a == "--spec") o.spec_path = value();
    else if (a == "--case") o.cases.push_back(value());
    else if (a == "--variant") o.variants.push_back(value());
    else if (a == "--variants") {
      std::istringstream f(read_file(value()));
      std::string line;
      while (std::getline(f, line)) {
        line = line.substr(0, line.find('#'));
        if (line.find_first_not_of(" \t\r") != std::string::npos) o.variants.push_back(line);
      }
    } else if (a == "--log2n") o.log2n = int_list(value());
    else if (a == "--runs") o.runs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--warmup") o.warmup = std::max(0, std::atoi(value().c_str()));
    else if (a == "--csv") o.csv = value();
    else if (a == "--help" || a == "-h") {
      std::printf("usage: tune_bench [--spec FILE] --case NAME... [--variant TUNING]... [--variants FILE]\n"
                  "                  [--log2n K,K,...] [--runs R] [--warmup W] [--csv FILE]\n"
                  "TUNING: knob=value ... with knobs threads, items, min_blocks, first_poll_ns,\n"
                  "first_poll_from, poll_ns, streaming, packed, words, raking, status_ops, tagged_words, pdl\n"
                  "(pdl=1, the table's: from kZeroKernelFromTiles tiles the workspace zeroed by the plan's\n"
                  "kernel and the scan launched as its programmatic dependent; SCANGEN_TUNE_PDL_LAUNCH=0\n"
                  "launches it as usual)\n"
                  "(see generator/include/scangen/generator/tuning.h)\n");
      std::exit(0);
    } else die("unknown option '" + a + "'", 3);
  }
  if (o.cases.empty()) die("no --case given", 3);
  // Ascending: the first variant's output at the largest size holds every
  // smaller size's as its prefix.
  std::sort(o.log2n.begin(), o.log2n.end());
  return o;
}

struct Timer {
  std::vector<CUevent> start, stop;
  explicit Timer(int runs) : start(runs), stop(runs) {
    for (int i = 0; i < runs; ++i) {
      CU(cuEventCreate(&start[i], CU_EVENT_DEFAULT));
      CU(cuEventCreate(&stop[i], CU_EVENT_DEFAULT));
    }
  }
  ~Timer() {
    for (size_t i = 0; i < start.size(); ++i) {
      cuEventDestroy(start[i]);
      cuEventDestroy(stop[i]);
    }
  }
  template <typename F>
  double median_us(const F& call, int warmup, CUstream s) {
    for (int i = 0; i < warmup; ++i) call();
    for (size_t i = 0; i < start.size(); ++i) {
      CU(cuEventRecord(start[i], s));
      call();
      CU(cuEventRecord(stop[i], s));
    }
    CU(cuStreamSynchronize(s));
    std::vector<double> us;
    for (size_t i = 0; i < start.size(); ++i) {
      float ms = 0;
      CU(cuEventElapsedTime(&ms, start[i], stop[i]));
      us.push_back(1000.0 * ms);
    }
    std::sort(us.begin(), us.end());
    const size_t r = us.size();
    return r % 2 ? us[r / 2] : 0.5 * (us[r / 2 - 1] + us[r / 2]);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  const dsl::Document doc = dsl::load(opt.spec_path, read_file(opt.spec_path));
  if (!doc.ok()) die(doc.diagnostics().render(), 3);

  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  int major = 0, minor = 0;
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
  char dev_name[256] = {};
  CU(cuDeviceGetName(dev_name, sizeof dev_name, dev));
  std::printf("# tune_bench on %s (sm_%d%d), spec %s, %d timed runs (median), %d warm-up\n", dev_name, major, minor,
              opt.spec_path.c_str(), opt.runs, opt.warmup);
  CUstream stream;
  CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  FILE* csv = opt.csv.empty() ? nullptr : std::fopen(opt.csv.c_str(), "w");
  if (csv) std::fprintf(csv, "case,tuning,log2n,registers,resident_blocks,us,copy_us,of_copy,gbps,status\n");

  std::mt19937_64 rng(std::random_device{}());
  int status = 0;
  const uint64_t n_check = (1ull << 22) + 3;
  for (const std::string& name : opt.cases) {
    const dsl::Spec* spec = doc.find(name);
    if (!spec) die("no scan '" + name + "' in " + opt.spec_path, 3);
    if (spec->level != dsl::Level::Device || spec->algorithm != dsl::Algorithm::DecoupledLookback)
      die("scan '" + name + "' is not a decoupled_lookback device scan", 3);
    if (spec->mode != dsl::Mode::Inclusive || spec->aggregate || spec->running_total)
      die("scan '" + name + "': tune_bench runs plain inclusive scans only", 3);
    const size_t in_bytes = spec->input.size(), out_bytes = spec->type.size();
    const int max_log2n = *std::max_element(opt.log2n.begin(), opt.log2n.end());
    const uint64_t n_max = std::max<uint64_t>(n_check, 1ull << max_log2n);

    // Inputs: the check's, then the timed sizes' (the first n_max elements).
    const uint64_t seed = rng();
    std::mt19937_64 gen_rng(seed);
    const std::vector<uint8_t> host_in = make_input(*spec, n_max, gen_rng);
    const scangen::ref::Evaluator ev(*spec);
    const std::vector<uint8_t> expect = ev.scan(host_in.data(), n_check).inclusive;
    CUdeviceptr d_in, d_out, d_first, d_ws;
    CU(cuMemAlloc(&d_in, n_max * in_bytes));
    CU(cuMemAlloc(&d_out, n_max * out_bytes));
    CU(cuMemAlloc(&d_first, n_max * out_bytes));
    CU(cuMemcpyHtoD(d_in, host_in.data(), n_max * in_bytes));
    std::printf("# case %s (seed %llu): %zu-byte elements\n", name.c_str(), (unsigned long long)seed, out_bytes);

    // The copy, per size.
    std::vector<double> copy_us;
    for (int k : opt.log2n) {
      const uint64_t n = 1ull << k;
      Timer t(opt.runs);
      copy_us.push_back(t.median_us([&] { CU(cuMemcpyDtoDAsync(d_out, d_in, n * out_bytes, stream)); },
                                    opt.warmup, stream));
    }

    // The table's entry for this device (its architecture's, or the device's own: Target::device).
    const gen::Target target{gen::Backend::Cuda, major * 10 + minor, dev_name};
    const gen::DeviceTuning base = gen::device_tuning(*spec, target);
    for (size_t vi = 0; vi < opt.variants.size(); ++vi) {
      gen::DeviceTuning tuning;
      gen::Plan plan;
      try {
        tuning = gen::parse_tuning(opt.variants[vi], base);
        // Planned for the device's architecture, as the runtime plans (an exchange past 48 KiB is then
        // dynamic shared memory: Plan::dynamic_shared_bytes).
        plan = gen::make_plan(*spec, target, tuning);
      } catch (const std::exception& e) {
        std::printf("%-10s %-70s invalid: %s\n", name.c_str(), opt.variants[vi].c_str(), e.what());
        continue;
      }
      const std::string knobs = gen::to_string(plan.tuning);
      const Compiled c = compile(plan, major, minor);
      const uint64_t ws_bytes = gen::workspace_bytes(plan, n_max);
      CU(cuMemAlloc(&d_ws, ws_bytes));
      CU(cuMemsetD8(d_ws, 0, ws_bytes));
      auto launch = [&](uint64_t n) {
        uint64_t tiles = std::max<uint64_t>(1, (n + plan.tile - 1) / plan.tile);
        unsigned long long n_arg = n;
        void* args[] = {&d_in, &d_out, &n_arg, &d_ws};
        if (gen::zero_by_kernel(plan, n, 10 * major + minor)) {
          // pdl=1, as the runtime does it: the plan's zero kernel, then the scan
          // as its programmatic dependent (SCANGEN_TUNE_PDL_LAUNCH=0: launched
          // as usual, to compare).
          unsigned long long words = gen::zero_kernel_words(plan, n);
          void* zargs[] = {&words, &d_ws};
          const unsigned zblocks = static_cast<unsigned>(gen::zero_kernel_blocks(plan, n));
          CU(cuLaunchKernel(c.zero, zblocks, 1, 1, 256, 1, 1, 0, stream, zargs, nullptr));
          static const bool pdl_launch = !std::getenv("SCANGEN_TUNE_PDL_LAUNCH") ||
                                         std::string(std::getenv("SCANGEN_TUNE_PDL_LAUNCH")) != "0";
          CUlaunchAttribute attr{};
          attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
          attr.value.programmaticStreamSerializationAllowed = 1;
          CUlaunchConfig cfg{};
          cfg.gridDimX = static_cast<unsigned>(tiles);
          cfg.gridDimY = cfg.gridDimZ = 1;
          cfg.blockDimX = static_cast<unsigned>(plan.block_threads);
          cfg.blockDimY = cfg.blockDimZ = 1;
          cfg.sharedMemBytes = static_cast<unsigned>(plan.dynamic_shared_bytes);
          cfg.hStream = stream;
          cfg.attrs = pdl_launch ? &attr : nullptr;
          cfg.numAttrs = pdl_launch ? 1 : 0;
          CU(cuLaunchKernelEx(&cfg, c.kernel, args, nullptr));
          return;
        }
        if (const uint64_t zero = gen::workspace_zero_bytes(plan, n))  // the kernel's contract
          CU(cuMemsetD8Async(d_ws, 0, zero, stream));
        CU(cuLaunchKernel(c.kernel, static_cast<unsigned>(tiles), 1, 1, static_cast<unsigned>(plan.block_threads), 1,
                          1, static_cast<unsigned>(plan.dynamic_shared_bytes), stream, args, nullptr));
      };
      // The check against the reference.
      CU(cuMemsetD8(d_out, 0xA5, n_max * out_bytes));
      launch(n_check);
      CU(cuStreamSynchronize(stream));
      std::vector<uint8_t> got(n_check * out_bytes);
      CU(cuMemcpyDtoH(got.data(), d_out, got.size()));
      std::string wrong;
      uint64_t first = 0;
      if (!same_values(spec->type, got.data(), expect.data(), n_check, &first))
        wrong = "differs from the reference at element " + std::to_string(first) + " (seed " + std::to_string(seed) +
                ")";
      for (size_t si = 0; si < opt.log2n.size() && wrong.empty(); ++si) {
        const int k = opt.log2n[si];
        const uint64_t n = 1ull << k;
        Timer t(opt.runs);
        const double us = t.median_us([&] { launch(n); }, opt.warmup, stream);
        // Byte for byte the first variant's output.
        if (vi == 0) {
          CU(cuMemcpyDtoDAsync(d_first, d_out, n * out_bytes, stream));
          CU(cuStreamSynchronize(stream));
        } else {
          std::vector<uint8_t> a(n * out_bytes), b(n * out_bytes);
          CU(cuMemcpyDtoH(a.data(), d_out, a.size()));
          CU(cuMemcpyDtoH(b.data(), d_first, b.size()));
          if (!same_values(spec->type, a.data(), b.data(), n, &first)) {
            wrong = "at 2^" + std::to_string(k) + " differs from the first variant's output";
            break;
          }
        }
        const double gbps = 2.0 * static_cast<double>(n) * static_cast<double>(out_bytes) / (us * 1e3);
        std::printf("%-10s %-88s 2^%d regs %3d blocks/SM %2d  %9.1f us  copy %8.1f us  %.3f of copy  %6.0f GB/s\n",
                    name.c_str(), knobs.c_str(), k, c.registers, c.resident, us, copy_us[si], copy_us[si] / us, gbps);
        if (csv)
          std::fprintf(csv, "%s,%s,%d,%d,%d,%.2f,%.2f,%.4f,%.1f,ok\n", name.c_str(), knobs.c_str(), k, c.registers,
                       c.resident, us, copy_us[si], copy_us[si] / us, gbps);
      }
      if (!wrong.empty()) {
        status = 1;
        std::printf("%-10s %-70s WRONG: %s\n", name.c_str(), knobs.c_str(), wrong.c_str());
        if (csv) std::fprintf(csv, "%s,%s,,,,,,,,WRONG\n", name.c_str(), knobs.c_str());
      }
      std::fflush(stdout);
      CU(cuMemFree(d_ws));
      CU(cuModuleUnload(c.module));
    }
    CU(cuMemFree(d_in));
    CU(cuMemFree(d_out));
    CU(cuMemFree(d_first));
  }
  if (csv) std::fclose(csv);
  return status;
}
