// The warp- and block-level sweep of scan_sweep.h on a CUDA GPU: every
// algorithm (coalesced included) emitted for CUDA, compiled by NVRTC for the
// GPU's architecture and run through the driver API against the CPU
// reference, plus a user's kernel calling the device functions, and the
// coalesced scan over a random subset of active lanes, and logical warps of
// 64 lanes called from a block of four.
//
// libcuda is opened with dlopen: with no driver or no GPU the test exits with
// code 4, which CTest reports as skipped.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "random_floats.h"
#include "head_flags_sweep.h"
#include "operator_sweep.h"
#include "scan_sweep.h"
#include "segmented_sweep.h"
#include "sweep_checks.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"

namespace {

using namespace scangen::test::cuda;
using scangen::generator::Backend;
using scangen::generator::Plan;
using scangen::test::ScanCase;

// The module of a sweep, and its launches.
class ScanModule : public Module {
 public:
  explicit ScanModule(const std::string& source) : Module(source, "scan_sweep.cu") {}
  // Sources compiled at once (cuda_support.h, sliced_sources).
  explicit ScanModule(const std::vector<std::string>& sources) : Module(sources, "scan_sweep.cu") {}

  // A scangen::test::LaunchKernel.
  void launch(const std::string& kernel, std::vector<std::vector<uint8_t>>& host,
              const std::vector<scangen::test::KernelArg>& kernel_args, uint64_t blocks, int threads) {
    Driver& d = driver();
    const CUfunction fn = function(kernel);
    std::vector<CUdeviceptr> buffers;
    struct Release {
      std::vector<CUdeviceptr>& b;
      ~Release() {
        for (CUdeviceptr p : b) driver().cuMemFree(p);
      }
    } release{buffers};
    for (const std::vector<uint8_t>& h : host) {
      CUdeviceptr p = 0;
      CU_CHECK(d.cuMemAlloc(&p, h.size() + 1));  // + 1: never zero bytes
      buffers.push_back(p);
      if (!h.empty()) CU_CHECK(d.cuMemcpyHtoD(p, h.data(), h.size()));
    }
    // Scalars live in `values` (reserved: the pointers into it stay valid).
    std::vector<unsigned long long> values;
    values.reserve(kernel_args.size());
    std::vector<unsigned int> values32;
    values32.reserve(kernel_args.size());
    std::vector<void*> args;
    for (const scangen::test::KernelArg& a : kernel_args) {
      using K = scangen::test::KernelArg::Kind;
      if (a.kind == K::Buffer) {
        args.push_back(&buffers.at(a.value));
      } else if (a.kind == K::U64) {
        values.push_back(a.value);
        args.push_back(&values.back());
      } else {
        values32.push_back(static_cast<unsigned int>(a.value));
        args.push_back(&values32.back());
      }
    }
    if (blocks > 0) {
      REQUIRE(blocks < (1ull << 31));
      CU_CHECK(d.cuLaunchKernel(fn, static_cast<unsigned int>(blocks), 1, 1, static_cast<unsigned int>(threads), 1, 1,
                                0, nullptr, args.data(), nullptr));
    }
    CU_CHECK(d.cuCtxSynchronize());
    for (size_t i = 0; i < host.size(); ++i)
      if (!host[i].empty()) CU_CHECK(d.cuMemcpyDtoH(host[i].data(), buffers[i], host[i].size()));
  }
};

void sweep(scangen::dsl::Algorithm algorithm) {
  Driver& d = driver();
  INFO("GPU: " << d.name << " (sm_" << d.major << d.minor << ")");
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  for (ScanCase& c : scangen::test::scan_cases(Backend::Cuda)) {
    if (c.spec.algorithm != algorithm) continue;
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
    cases.push_back(std::move(c));
  }
  REQUIRE(!plans.empty());
  ScanModule module(sliced_sources(cases.size(), [&](size_t b, size_t e) {
    return scangen::test::sweep_source(std::vector<ScanCase>(cases.begin() + b, cases.begin() + e),
                                       std::vector<Plan>(plans.begin() + b, plans.begin() + e));
  }));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { module.launch(kernel, buffers, args, blocks, threads); };
  const int runs = scangen::test::check_scan_cases(cases, plans, launch);
  std::cout << scangen::dsl::to_string(algorithm) << ": " << cases.size() << " scans, " << runs << " kernel runs on "
            << d.name << "\n";
}

}  // namespace

TEST_CASE("CUDA warp scan kogge_stone", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::KoggeStone); }
TEST_CASE("CUDA warp scan kogge_stone_local", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::KoggeStoneLocal); }
TEST_CASE("CUDA warp scan coalesced", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::Coalesced); }
TEST_CASE("CUDA block scan raking", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::Raking); }
TEST_CASE("CUDA block scan raking_memoize", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::RakingMemoize); }
TEST_CASE("CUDA block scan warp_scans", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::WarpScans); }
TEST_CASE("CUDA block scan hillis_steele", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::HillisSteele); }
TEST_CASE("CUDA block scan blelloch", "[gpu][scan]") { sweep(scangen::dsl::Algorithm::Blelloch); }

// The coalesced scan over the lanes that take a branch: in each warp a random
// subset of lanes (a mask per warp) calls; each active lane gets the inclusive
// scan over the active lanes below and at it, in lane order; the other lanes'
// outputs stay poisoned.
// A logical warp of 64 lanes called from a user's block of four of them
// (scan_sweep.h's api_test_kernel with four groups, while the scan's
// `threads` is 64): each thread's rank is its place in its logical warp.
TEST_CASE("CUDA logical warps of 64 lanes in a user's block of 256", "[gpu][scan]") {
  INFO("GPU: " << driver().name);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const ScanCase c = scangen::test::wide_warp_case();
  const Plan p = scangen::generator::make_plan(c.spec, Backend::Cuda);
  REQUIRE(p.block_threads == 64);
  ScanModule module(scangen::generator::emit(p) + scangen::test::api_test_kernel(p, 4));
  const scangen::test::LaunchKernel launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                                                 const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                                                 int threads) {
    module.launch(kernel, buffers, args, blocks, threads);
  };
  for (uint64_t n : {uint64_t{1}, uint64_t{127}, uint64_t{512}, uint64_t{1000}}) {
    INFO("n = " << n);
    const std::string report = scangen::test::run_api_case(c, p, n, rng, launch, 4);
    INFO(report);
    CHECK(report.empty());
  }
}

TEST_CASE("CUDA coalesced warp scan over a random subset of active lanes", "[gpu][scan]") {
  INFO("GPU: " << driver().name);
  const std::string text =
      "scan active_sum { type = u32; op = add; level = warp(32); algorithm = coalesced; targets = cuda; }\n";
  scangen::dsl::Document doc = scangen::dsl::load("active_sum.scan", text);
  REQUIRE(doc.ok());
  const Plan plan = scangen::generator::make_plan(doc.specs().at(0), Backend::Cuda);
  const std::string kernel = R"(
extern "C" __global__ void active_kernel(const unsigned int* masks, const unsigned int* in, unsigned int* out,
                                         unsigned int* totals, unsigned long long n) {
  __shared__ active_sum_temp temp[8];
  const unsigned int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && ((masks[i / 32] >> lane) & 1u)) {
    active_sum_T v[1] = {in[i]};
    active_sum_T r[1];
    const active_sum_T total = active_sum_inclusive(&temp[warp], v, r);
    out[i] = r[0];
    totals[i] = total;
  }
}
)";
  ScanModule module(scangen::generator::emit(plan) + kernel);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const uint64_t warps = 64, n = warps * 32;
  std::vector<uint8_t> masks(warps * 4), in(n * 4), out(n * 4, 0xAB), totals(n * 4, 0xAB);
  for (uint64_t w = 0; w < warps; ++w) {
    uint32_t m = static_cast<uint32_t>(rng());
    if (w == 0) m = 0xffffffffu;
    if (w == 1) m = 1u << 17;
    if (w == 2) m = 0;
    std::memcpy(masks.data() + w * 4, &m, 4);
  }
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t v = static_cast<uint32_t>(rng());
    std::memcpy(in.data() + i * 4, &v, 4);
  }
  std::vector<std::vector<uint8_t>> buffers = {masks, in, out, totals};
  module.launch("active_kernel", buffers, scangen::test::buffers_then_n(buffers.size(), n), warps * 32 / 256, 256);
  int bad = 0;
  for (uint64_t w = 0; w < warps; ++w) {
    uint32_t m;
    std::memcpy(&m, masks.data() + w * 4, 4);
    uint32_t total = 0;
    for (int l = 0; l < 32; ++l)
      if ((m >> l) & 1u) {
        uint32_t v;
        std::memcpy(&v, in.data() + (w * 32 + static_cast<uint64_t>(l)) * 4, 4);
        total += v;
      }
    uint32_t acc = 0;
    for (int l = 0; l < 32; ++l) {
      const uint64_t i = w * 32 + static_cast<uint64_t>(l);
      uint32_t got, got_total, v;
      std::memcpy(&got, buffers[2].data() + i * 4, 4);
      std::memcpy(&got_total, buffers[3].data() + i * 4, 4);
      std::memcpy(&v, in.data() + i * 4, 4);
      if ((m >> l) & 1u) {
        acc += v;
        if (got != acc || got_total != total) ++bad;
      } else if (got != 0xABABABABu || got_total != 0xABABABABu) {
        ++bad;
      }
    }
  }
  CHECK(bad == 0);
}

namespace {

void device_sweep(std::vector<scangen::dsl::Algorithm> algorithms, int log2_max) {
  Driver& d = driver();
  INFO("GPU: " << d.name);
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  for (ScanCase& c : scangen::test::device_cases(Backend::Cuda)) {
    if (std::find(algorithms.begin(), algorithms.end(), c.spec.algorithm) == algorithms.end()) continue;
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
    cases.push_back(std::move(c));
  }
  REQUIRE(!plans.empty());
  ScanModule module(sliced_sources(plans.size(), [&](size_t b, size_t e) {
    return scangen::generator::emit(std::vector<Plan>(plans.begin() + b, plans.begin() + e));
  }));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { module.launch(kernel, buffers, args, blocks, threads); };
  scangen::test::check_device_rounds(cases, plans, launch, log2_max);
}

}  // namespace

// Segmented scans (segments given at run time): every form x mode x type x
// segment structure x size (segmented_sweep.h).
namespace {

// The segmented sweep (segmented_sweep.h) on the GPU, `prefix` before each
// slice's source; returns the calls made.
int segmented_sweep(const std::string& prefix) {
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  for (ScanCase& c : scangen::test::segmented_cases(Backend::Cuda)) {
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
    cases.push_back(std::move(c));
  }
  ScanModule module(sliced_sources(plans.size(), [&](size_t b, size_t e) {
    return prefix + scangen::generator::emit(std::vector<Plan>(plans.begin() + b, plans.begin() + e));
  }));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { module.launch(kernel, buffers, args, blocks, threads); };
  const int calls = scangen::test::check_segmented_cases(cases, plans, launch);
  std::cout << cases.size() << " scans, " << calls << " calls on " << driver().name << "\n";
  return calls;
}

}  // namespace

TEST_CASE("CUDA segmented device scans", "[gpu][scan][device][segmented]") {
  INFO("GPU: " << driver().name);
  std::cout << "segmented: ";
  segmented_sweep("");
}

// The same with about one tile in eight sleeping 20 us before it publishes
// its status (SCANGEN_TEST_SLEEP, cuda/lookback.cuh): a tile that holds a
// segment start publishes its total as final before its own look-back, the
// others an aggregate first; the look-back must take each as what it is.
TEST_CASE("CUDA segmented look-back with randomly sleeping tiles", "[gpu][scan][device][segmented][race]") {
  INFO("GPU: " << driver().name);
  std::cout << "segmented, sleeping look-back: ";
  segmented_sweep("#define SCANGEN_TEST_SLEEP 8\n");
}

// The head-flag device functions of warp and block scans (head_flags = true)
// called from a kernel of the test's own (head_flags_sweep.h).
TEST_CASE("CUDA head-flag warp and block device functions", "[gpu][scan][head_flags]") {
  Driver& d = driver();
  INFO("GPU: " << d.name);
  const std::vector<ScanCase> cases = scangen::test::head_flag_cases(Backend::Cuda);
  std::vector<Plan> plans;
  for (const ScanCase& c : cases) plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
  ScanModule module(scangen::test::head_flag_source(plans));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { module.launch(kernel, buffers, args, blocks, threads); };
  const int calls = scangen::test::check_head_flag_cases(cases, plans, launch);
  std::cout << "head flags: " << cases.size() << " scans, " << calls << " calls on " << d.name << "\n";
}

TEST_CASE("CUDA device scan decoupled_lookback", "[gpu][scan][device]") {
  device_sweep({scangen::dsl::Algorithm::DecoupledLookback}, 22);
}
TEST_CASE("CUDA device scan reduce_then_scan", "[gpu][scan][device]") {
  device_sweep({scangen::dsl::Algorithm::ReduceThenScan}, 22);
}
// Scans of both algorithms and of every status layout take turns on one
// workspace, each finding what the one before left there.
TEST_CASE("CUDA device scans of both algorithms take turns on one workspace", "[gpu][scan][device]") {
  device_sweep({scangen::dsl::Algorithm::DecoupledLookback, scangen::dsl::Algorithm::ReduceThenScan}, 16);
}

// ---- device scans at scale --------------------------------------------------

namespace {

// One device scan, compiled once (with extra NVRTC options), run on device
// buffers through the driver API: large counts need no host-side reference
// interpreter, so these tests check with native loops.
class DeviceScan {
 public:
  DeviceScan(const std::string& text, const std::string& extra_source = "") {
    scangen::dsl::Document doc = scangen::dsl::load("scale.scan", text);
    INFO(doc.diagnostics().render());
    REQUIRE(doc.ok());
    plan_ = scangen::generator::make_plan(doc.specs().at(0), Backend::Cuda);
    module_ = std::make_unique<ScanModule>(extra_source + scangen::generator::emit(plan_));
  }
  const Plan& plan() const { return plan_; }
  ScanModule& module() { return *module_; }

 private:
  Plan plan_;
  std::unique_ptr<ScanModule> module_;
};

// Runs the decoupled look-back or reduce-then-scan kernels of `s` on `in`
// (n elements of `in_size` bytes) and returns the inclusive scan.
std::vector<uint8_t> device_inclusive(DeviceScan& s, const std::vector<uint8_t>& in, uint64_t n,
                                      scangen::test::DeviceState& state) {
  using K = scangen::test::KernelArg::Kind;
  const Plan& p = s.plan();
  const uint64_t tiles = std::max<uint64_t>(1, (n + p.tile - 1) / p.tile);
  std::vector<std::vector<uint8_t>> buffers = {in, std::vector<uint8_t>(n * p.element_bytes, 0xAB)};
  auto buffer = [](size_t i) { return scangen::test::KernelArg{K::Buffer, i}; };
  const scangen::test::KernelArg count{K::U64, n};
  const uint64_t need = scangen::generator::workspace_bytes(p, n);
  if (state.workspace.size() < need) state.workspace.resize(need, 0xAB);
  const uint64_t zero = scangen::generator::workspace_zero_bytes(p, n);  // the host's memset before each call
  std::fill(state.workspace.begin(), state.workspace.begin() + static_cast<std::ptrdiff_t>(zero), uint8_t{0});
  ++state.calls;
  buffers.push_back(state.workspace);
  if (p.spec.algorithm == scangen::dsl::Algorithm::DecoupledLookback) {
    s.module().launch(p.entry_kernel, buffers, {buffer(0), buffer(1), count, buffer(2)}, tiles, p.block_threads);
  } else {
    s.module().launch(p.spec.name + "_reduce_kernel", buffers, {buffer(0), buffer(2), count}, tiles, p.block_threads);
    s.module().launch(p.spec.name + "_spine_kernel", buffers, {buffer(2), count}, 1, p.block_threads);
    s.module().launch(p.entry_kernel, buffers, {buffer(0), buffer(1), buffer(2), count}, tiles, p.block_threads);
  }
  state.workspace = buffers[2];
  return buffers[1];
}

// Wrapping inclusive sums of `n` values of width W (1 or 4 bytes), checked natively.
template <typename T>
uint64_t count_wrong_sums(const std::vector<uint8_t>& in, const std::vector<uint8_t>& out, uint64_t n,
                          uint64_t& first_bad) {
  T acc = 0;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, in.data() + i * sizeof(T), sizeof(T));
    std::memcpy(&y, out.data() + i * sizeof(T), sizeof(T));
    acc = static_cast<T>(acc + x);
    if (y != acc && bad++ == 0) first_bad = i;
  }
  return bad;
}

std::vector<uint8_t> random_bytes(uint64_t bytes, std::mt19937_64& rng) {
  std::vector<uint8_t> v(bytes);
  for (uint64_t i = 0; i + 8 <= bytes; i += 8) {
    const uint64_t r = rng();
    std::memcpy(v.data() + i, &r, 8);
  }
  for (uint64_t i = bytes & ~7ull; i < bytes; ++i) v[i] = static_cast<uint8_t>(rng());
  return v;
}

}  // namespace

TEST_CASE("CUDA device scan of i32 up to 2^30 elements, both algorithms", "[gpu][scan][device][large]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  for (const char* algorithm : {"decoupled_lookback", "reduce_then_scan"}) {
    DeviceScan s(std::string("scan big { type = u32; op = add; level = device; algorithm = ") + algorithm + "; }");
    scangen::test::DeviceState state;
    for (uint64_t n : {(1ull << 24) + 1, (1ull << 28) - 1, 1ull << 30}) {
      INFO(algorithm << ", n = " << n);
      const std::vector<uint8_t> in = random_bytes(n * 4, rng);
      const std::vector<uint8_t> out = device_inclusive(s, in, n, state);
      uint64_t first_bad = 0;
      const uint64_t bad = count_wrong_sums<uint32_t>(in, out, n, first_bad);
      INFO(bad << " wrong, the first at " << first_bad);
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("CUDA device scan of 2^32 + 7 elements of u8 and i8", "[gpu][scan][device][large]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const uint64_t n = (1ull << 32) + 7;
  const std::vector<uint8_t> in = random_bytes(n, rng);
  for (const char* type : {"u8", "i8"}) {
    DeviceScan s(std::string("scan bytes { type = ") + type + "; op = add; level = device; }");
    scangen::test::DeviceState state;
    INFO(type << ", n = " << n << ", tile " << s.plan().tile);
    const std::vector<uint8_t> out = device_inclusive(s, in, n, state);
    uint64_t first_bad = 0;
    const uint64_t bad = count_wrong_sums<uint8_t>(in, out, n, first_bad);  // i8 wraps alike, bit for bit
    INFO(bad << " wrong, the first at " << first_bad);
    CHECK(bad == 0);
  }
}

// Race hunting: about one tile in 8 sleeps 20 us before each publication, so
// look-backs find statuses missing, half-published (aggregate only) and late,
// for every status word kind (4-, 8- and 16-byte elements).
TEST_CASE("CUDA decoupled look-back with randomly sleeping tiles", "[gpu][scan][device][race]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  int calls = 0;
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  for (ScanCase& c : scangen::test::device_cases(Backend::Cuda)) {
    if (c.spec.algorithm != scangen::dsl::Algorithm::DecoupledLookback) continue;
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
    cases.push_back(std::move(c));
  }
  REQUIRE(!plans.empty());
  ScanModule module(sliced_sources(plans.size(), [&](size_t b, size_t e) {
    return "#define SCANGEN_TEST_SLEEP 8\n" +
           scangen::generator::emit(std::vector<Plan>(plans.begin() + b, plans.begin() + e));
  }));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { module.launch(kernel, buffers, args, blocks, threads); };
  for (size_t i = 0; i < cases.size(); ++i) {
    const ScanCase& c = cases[i];
    const Plan& plan = plans[i];
    INFO("scan:\n" << c.spec.to_string());
    scangen::test::DeviceState state;
    std::vector<uint8_t> counter;
    for (int rep = 0; rep < 4; ++rep) {
      for (uint64_t n : {plan.tile * 97 + 5, plan.tile * 1000 + 1}) {
        INFO("n = " << n << ", repetition " << rep);
        const std::string report = scangen::test::run_device_case(c, plan, n, rng, launch, state, counter);
        INFO(report);
        CHECK(report.empty());
        ++calls;
      }
    }
  }
  std::cout << "sleeping look-back: " << calls << " calls\n";
}

// The same in a workspace zeroed once (Plan::epoch_tags, as the runtime
// keeps a Scan's own): each call's statuses carry its epoch, and the
// statuses the calls before left (more tiles, fewer, other values) sit in
// the workspace while tiles sleep before publishing; a look-back must wait
// for this call's status, never take an earlier call's.
TEST_CASE("CUDA decoupled look-back with randomly sleeping tiles in a workspace zeroed once",
          "[gpu][scan][device][race]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  int calls = 0;
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  for (ScanCase& c : scangen::test::device_cases(Backend::Cuda)) {
    if (c.spec.algorithm != scangen::dsl::Algorithm::DecoupledLookback) continue;
    Plan plan = scangen::generator::make_plan(c.spec, Backend::Cuda);
    if (!plan.epoch_tags) continue;
    plans.push_back(std::move(plan));
    cases.push_back(std::move(c));
  }
  REQUIRE(!plans.empty());
  ScanModule module(sliced_sources(plans.size(), [&](size_t b, size_t e) {
    return "#define SCANGEN_TEST_SLEEP 8\n" +
           scangen::generator::emit(std::vector<Plan>(plans.begin() + b, plans.begin() + e));
  }));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { module.launch(kernel, buffers, args, blocks, threads); };
  for (size_t i = 0; i < cases.size(); ++i) {
    const ScanCase& c = cases[i];
    const Plan& plan = plans[i];
    INFO("scan:\n" << c.spec.to_string());
    scangen::test::DeviceState state;
    state.epochs = true;
    std::vector<uint8_t> counter;
    // Larger, smaller, one tile (no ticket, no epoch taken), larger again: every call but the first finds
    // statuses of other epochs in the tiles it uses.
    for (uint64_t n : {plan.tile * 300 + 5, plan.tile * 37 + 1, plan.tile, plan.tile * 300 + 5, plan.tile * 2 + 3,
                       plan.tile * 301}) {
      INFO("n = " << n << ", call " << state.calls + 1 << " in this workspace");
      const std::string report = scangen::test::run_device_case(c, plan, n, rng, launch, state, counter);
      INFO(report);
      CHECK(report.empty());
      ++calls;
    }
    CHECK(state.epoch_calls == 5);  // zeroed before the first call alone (the call of one tile counts none)
  }
  std::cout << "sleeping look-back, workspace zeroed once: " << calls << " calls\n";
}

// deterministic = true: float results are the same bits from run to run.
TEST_CASE("CUDA deterministic float scan gives the same bits twice", "[gpu][scan][device]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  DeviceScan s("scan det { type = f32; op = add; level = device; deterministic = true; }");
  REQUIRE(s.plan().spec.algorithm == scangen::dsl::Algorithm::ReduceThenScan);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const uint64_t n = (1ull << 24) + 3;
  const std::vector<uint8_t> in = scangen::test::random_f32_bytes(rng, n);
  scangen::test::DeviceState state;
  const std::vector<uint8_t> first = device_inclusive(s, in, n, state);
  const std::vector<uint8_t> second = device_inclusive(s, in, n, state);
  CHECK(first == second);
}

// deterministic = true by decoupled look-back (the fixed-order look-back,
// common/lookback_fixed.h): the same bits call after call, with about one
// tile in 8 sleeping 20 us before it publishes (SCANGEN_TEST_SLEEP), f32 sums
// of values whose sums round (so the grouping shows in the bits), n large
// enough for Fenwick nodes of 2^10 tiles and more. The any-order look-back
// of the same sums is run alike, and how often its bits changed is printed
// (not checked: a timing may repeat).
TEST_CASE("CUDA fixed-order look-back gives the same float bits call after call", "[gpu][scan][device][race]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const uint64_t n = (1ull << 24) + 3;
  const std::vector<uint8_t> in = scangen::test::random_f32_bytes(rng, n);
  const std::string sleep = "#define SCANGEN_TEST_SLEEP 8\n";
  DeviceScan det(
      "scan det { type = f32; op = add; level = device; algorithm = decoupled_lookback; "
      "deterministic = true; threads = 64; items = 4; }",
      sleep);
  DeviceScan any("scan any { type = f32; op = add; level = device; threads = 64; items = 4; }", sleep);
  REQUIRE(det.plan().fixed_order);
  REQUIRE_FALSE(any.plan().fixed_order);
  scangen::test::DeviceState state;
  const std::vector<uint8_t> first = device_inclusive(det, in, n, state);
  double worst = 0, sum = 0;  // against a double sum: the results are sums, not noise
  for (uint64_t i = 0; i < n; ++i) {
    float a, g;
    std::memcpy(&a, in.data() + i * 4, 4);
    std::memcpy(&g, first.data() + i * 4, 4);
    sum += a;
    worst = std::max(worst, std::abs(g - sum));
  }
  INFO("largest error against a double sum " << worst);
  CHECK(worst < 0.5);
  int changed = 0;
  const std::vector<uint8_t> any_first = device_inclusive(any, in, n, state);
  for (int call = 0; call < 6; ++call) {
    INFO("call " << call + 2);
    CHECK(device_inclusive(det, in, n, state) == first);
    changed += device_inclusive(any, in, n, state) != any_first;
  }
  std::cout << "any-order look-back: the bits changed in " << changed << " of 6 calls; fixed order: in none\n";
}

// The device sweep's element kinds at the largest sizes, both algorithms,
// checked natively (the inputs keep every partial result exact, so the
// order of the combines does not matter): i32 and u8 -> u32 wrapping sums,
// f32 and f64 sums of small integers, affine maps with a = +-1, 2x2 signed
// permutation matrices.
TEST_CASE("CUDA device scans of every kind at 2^27 .. 2^30 elements", "[gpu][scan][device][large]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none, before any host work
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  struct Kind {
    const char* name;
    const char* body;
    uint64_t n;
  };
  const Kind kinds[] = {
      {"i32", "type = i32; op = add;", (1ull << 30) - 1},
      {"u8u32", "type = u32; input = u8; op = add;", (1ull << 30) + 1},
      {"f32", "type = f32; op = add;", (1ull << 28) - 1},
      {"f64", "type = f64; op = add;", (1ull << 28) + 1},
      {"affine",
       "type = Affine; combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b }; "
       "identity = Affine { a: 1.0, b: 0.0 };",
       (1ull << 28) + 1},
      {"mat2",
       "type = Mat2; combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, "
       "c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = Mat2 { 1.0, 0.0, 0.0, 1.0 };",
       (1ull << 27) + 1},
  };
  for (const char* algorithm : {"decoupled_lookback", "reduce_then_scan"}) {
    for (const Kind& k : kinds) {
      DeviceScan s(std::string("type Affine { a: f32, b: f32 }\ntype Mat2 { a: f32, b: f32, c: f32, d: f32 }\n") +
                   "scan big_" + k.name + " { " + k.body + " level = device; algorithm = " + algorithm + "; }");
      const uint64_t n = k.n;
      const size_t is = s.plan().input_bytes;
      std::vector<uint8_t> in(n * is);
      const std::string kind = k.name;
      // Inputs.
      for (uint64_t i = 0; i < n; ++i) {
        uint8_t* e = in.data() + i * is;
        const uint64_t r = rng();
        if (kind == "i32" || kind == "u8u32") {
          std::memcpy(e, &r, is);
        } else if (kind == "f32") {
          const float v = static_cast<float>(static_cast<int>(r % 17) - 8);
          std::memcpy(e, &v, 4);
        } else if (kind == "f64") {
          const double v = static_cast<double>(static_cast<int>(r % 17) - 8);
          std::memcpy(e, &v, 8);
        } else if (kind == "affine") {
          const float ab[2] = {(r & 1) ? 1.0f : -1.0f, static_cast<float>(static_cast<int>((r >> 1) % 17) - 8)};
          std::memcpy(e, ab, 8);
        } else {
          const float s1 = (r & 1) ? 1.0f : -1.0f, s2 = (r & 2) ? 1.0f : -1.0f;
          const bool swap = (r & 4) != 0;
          const float m[4] = {swap ? 0.0f : s1, swap ? s1 : 0.0f, swap ? s2 : 0.0f, swap ? 0.0f : s2};
          std::memcpy(e, m, 16);
        }
      }
      scangen::test::DeviceState state;
      const std::vector<uint8_t> out = device_inclusive(s, in, n, state);
      // Native check.
      uint64_t bad = 0, first_bad = 0;
      auto wrong = [&](uint64_t i) {
        if (bad++ == 0) first_bad = i;
      };
      if (kind == "i32") {
        bad = count_wrong_sums<uint32_t>(in, out, n, first_bad);
      } else if (kind == "u8u32") {
        uint32_t acc = 0;
        for (uint64_t i = 0; i < n; ++i) {
          acc += in[i];
          uint32_t y;
          std::memcpy(&y, out.data() + i * 4, 4);
          if (y != acc) wrong(i);
        }
      } else if (kind == "f32" || kind == "f64") {
        double acc = 0;
        for (uint64_t i = 0; i < n; ++i) {
          double x, y;
          if (kind == "f32") {
            float xf, yf;
            std::memcpy(&xf, in.data() + i * 4, 4);
            std::memcpy(&yf, out.data() + i * 4, 4);
            x = xf, y = yf;
          } else {
            std::memcpy(&x, in.data() + i * 8, 8);
            std::memcpy(&y, out.data() + i * 8, 8);
          }
          acc += x;
          if (y != acc) wrong(i);
        }
      } else if (kind == "affine") {
        double a = 1, b = 0;
        for (uint64_t i = 0; i < n; ++i) {
          float x[2], y[2];
          std::memcpy(x, in.data() + i * 8, 8);
          std::memcpy(y, out.data() + i * 8, 8);
          b = x[0] * b + x[1];
          a = x[0] * a;
          if (y[0] != a || y[1] != b) wrong(i);
        }
      } else {
        double m[4] = {1, 0, 0, 1};
        for (uint64_t i = 0; i < n; ++i) {
          float x[4], y[4];
          std::memcpy(x, in.data() + i * 16, 16);
          std::memcpy(y, out.data() + i * 16, 16);
          const double r[4] = {m[0] * x[0] + m[1] * x[2], m[0] * x[1] + m[1] * x[3], m[2] * x[0] + m[3] * x[2],
                               m[2] * x[1] + m[3] * x[3]};
          std::memcpy(m, r, sizeof m);
          if (y[0] != m[0] || y[1] != m[1] || y[2] != m[2] || y[3] != m[3]) wrong(i);
        }
      }
      INFO(algorithm << ", " << kind << ", n = " << n << ": " << bad << " wrong, the first at " << first_bad);
      CHECK(bad == 0);
    }
  }
}

// Float min and max propagate a NaN, fmin and fmax ignore it, and sums keep
// -0.0 (the identity of float addition), at warp, block and device level
// (scan_sweep.h's nan_cases).
TEST_CASE("CUDA float min max fmin fmax and add with NaNs and -0.0 at every level", "[gpu][scan]") {
  std::vector<ScanCase> groups, devices;
  std::vector<Plan> group_plans, device_plans;
  for (ScanCase& c : scangen::test::nan_cases(Backend::Cuda)) {
    Plan p = scangen::generator::make_plan(c.spec, Backend::Cuda);
    const bool at_device = c.spec.level == scangen::dsl::Level::Device;
    (at_device ? device_plans : group_plans).push_back(std::move(p));
    (at_device ? devices : groups).push_back(std::move(c));
  }
  REQUIRE(!groups.empty());
  REQUIRE(!devices.empty());
  ScanModule group_module(scangen::test::sweep_source(groups, group_plans));
  ScanModule device_module(scangen::generator::emit(device_plans));
  auto launch_group = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                          const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                          int threads) { group_module.launch(kernel, buffers, args, blocks, threads); };
  auto launch_device = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                           const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                           int threads) { device_module.launch(kernel, buffers, args, blocks, threads); };
  scangen::test::check_scan_cases(groups, group_plans, launch_group);
  scangen::test::check_device_rounds(devices, device_plans, launch_device, 16);
}
