// Every warp- and block-level algorithm, emitted for OpenCL C 1.2 and run on
// an OpenCL device (PoCL on the CPU in CI), against the CPU reference: every
// element type x mode, the widths / block sizes / items counts of
// scan_sweep.h, init, aggregates, running totals, u8 -> u32 input, and a
// user's kernel calling the public device functions. All scans of one
// algorithm go into one program (PoCL takes over a second per build).
//
// Without an OpenCL platform the tests fail, unless SCANGEN_ALLOW_NO_OPENCL=1.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "head_flags_sweep.h"
#include "opencl_support.h"
#include "operator_sweep.h"
#include "scan_sweep.h"
#include "segmented_sweep.h"
#include "sweep_checks.h"
#include "test_tier.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"

namespace {

using namespace scangen::test::cl;
using scangen::generator::Backend;
using scangen::generator::Plan;
using scangen::test::ScanCase;

// The program of a sweep, and its launches.
class ProgramRunner : public Session {
 public:
  ProgramRunner(const Device& device, const std::string& source) : Session(device) {
    build(source, scangen::generator::compile_options(Backend::OpenCL),
          "the sweep's program (" + std::to_string(source.size()) + " bytes)");
  }

  void launch(const std::string& name, std::vector<std::vector<uint8_t>>& host,
              const std::vector<scangen::test::KernelArg>& args, uint64_t blocks, int threads) {
    cl_int err = CL_SUCCESS;
    const Kernel k = kernel(name);
    std::vector<Buffer> buffers;
    for (std::vector<uint8_t>& h : host) {
      // OpenCL has no empty buffers: one byte then, which the kernel must not touch.
      std::vector<uint8_t> init = h.empty() ? std::vector<uint8_t>{0xAB} : h;
      buffers.emplace_back(
          clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, init.size(), init.data(), &err));
      CL_CHECK(err);
    }
    cl_uint index = 0;
    for (const scangen::test::KernelArg& a : args) {
      using K = scangen::test::KernelArg::Kind;
      if (a.kind == K::Buffer) {
        cl_mem m = buffers.at(a.value).get();
        CL_CHECK(clSetKernelArg(k.get(), index++, sizeof m, &m));
      } else if (a.kind == K::U64) {
        const cl_ulong v = a.value;
        CL_CHECK(clSetKernelArg(k.get(), index++, sizeof v, &v));
      } else {
        const cl_uint v = static_cast<cl_uint>(a.value);
        CL_CHECK(clSetKernelArg(k.get(), index++, sizeof v, &v));
      }
    }
    if (blocks > 0) {
      const size_t local = static_cast<size_t>(threads);
      const size_t global = static_cast<size_t>(blocks) * local;
      CL_CHECK(clEnqueueNDRangeKernel(queue(), k.get(), 1, nullptr, &global, &local, 0, nullptr, nullptr));
    }
    for (size_t i = 0; i < host.size(); ++i)
      if (!host[i].empty())
        CL_CHECK(clEnqueueReadBuffer(queue(), buffers[i].get(), CL_TRUE, 0, host[i].size(), host[i].data(), 0, nullptr,
                                     nullptr));
  }
};

void sweep(scangen::dsl::Algorithm algorithm) {
  Device device = device_or_skip(true);
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);

  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  int skipped_f64 = 0;
  const char* only = std::getenv("SCANGEN_SCAN_FILTER");  // for debugging: scans whose name contains it
  std::vector<ScanCase> all;
  for (ScanCase& c : scangen::test::scan_cases(Backend::OpenCL))
    if (c.spec.algorithm == algorithm && (!only || c.spec.name.find(only) != std::string::npos))
      all.push_back(std::move(c));
  for (ScanCase& c :
       scangen::test::sample_spec_cases(std::move(all), std::string("OpenCL ") + scangen::dsl::to_string(algorithm))) {
    Plan p = scangen::generator::make_plan(c.spec, Backend::OpenCL);
    if (!device.fp64 && scangen::generator::emit(p).find("cl_khr_fp64") != std::string::npos) {
      ++skipped_f64;
      continue;
    }
    plans.push_back(std::move(p));
    cases.push_back(std::move(c));
  }
  if (skipped_f64) WARN("the device has no fp64: " << skipped_f64 << " f64 cases left out");
  REQUIRE(!plans.empty());
  ProgramRunner runner(device, scangen::test::sweep_source(cases, plans));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { runner.launch(kernel, buffers, args, blocks, threads); };
  const int runs = scangen::test::check_scan_cases(cases, plans, launch);
  std::cout << scangen::dsl::to_string(algorithm) << ": " << cases.size() << " scans, " << runs << " kernel runs\n";
}

}  // namespace

TEST_CASE("OpenCL warp scan kogge_stone", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::KoggeStone); }
TEST_CASE("OpenCL warp scan kogge_stone_local", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::KoggeStoneLocal); }
TEST_CASE("OpenCL block scan raking", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::Raking); }
TEST_CASE("OpenCL block scan raking_memoize", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::RakingMemoize); }
TEST_CASE("OpenCL block scan warp_scans", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::WarpScans); }
TEST_CASE("OpenCL block scan hillis_steele", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::HillisSteele); }
TEST_CASE("OpenCL block scan blelloch", "[opencl][scan]") { sweep(scangen::dsl::Algorithm::Blelloch); }

namespace {

// Device scans: every case at every size, in rounds on one workspace
// (scangen::test::check_device_rounds).
void device_sweep(std::vector<scangen::dsl::Algorithm> algorithms, int log2_max) {
  Device device = device_or_skip(true);
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  const char* only = std::getenv("SCANGEN_SCAN_FILTER");  // for debugging: scans whose name contains it
  std::vector<ScanCase> all;
  for (ScanCase& c : scangen::test::device_cases(Backend::OpenCL))
    if (std::find(algorithms.begin(), algorithms.end(), c.spec.algorithm) != algorithms.end() &&
        (!only || c.spec.name.find(only) != std::string::npos))
      all.push_back(std::move(c));
  std::string sweep_name = "OpenCL device scans";
  for (scangen::dsl::Algorithm a : algorithms) sweep_name += std::string(" ") + scangen::dsl::to_string(a);
  for (ScanCase& c : scangen::test::sample_spec_cases(std::move(all), sweep_name)) {
    Plan p = scangen::generator::make_plan(c.spec, Backend::OpenCL);
    if (!device.fp64 && scangen::generator::emit(p).find("cl_khr_fp64") != std::string::npos) continue;
    plans.push_back(std::move(p));
    cases.push_back(std::move(c));
  }
  REQUIRE(!plans.empty());
  ProgramRunner runner(device, scangen::generator::emit(plans));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { runner.launch(kernel, buffers, args, blocks, threads); };
  scangen::test::check_device_rounds(cases, plans, launch, log2_max);
}

}  // namespace

TEST_CASE("OpenCL device scan decoupled_lookback", "[opencl][scan][device]") {
  device_sweep({scangen::dsl::Algorithm::DecoupledLookback}, 20);
}
TEST_CASE("OpenCL device scan reduce_then_scan", "[opencl][scan][device]") {
  device_sweep({scangen::dsl::Algorithm::ReduceThenScan}, 20);
}
// Scans of both algorithms and of every status layout take turns on one
// workspace, each finding what the one before left there.
TEST_CASE("OpenCL device scans of both algorithms take turns on one workspace", "[opencl][scan][device]") {
  device_sweep({scangen::dsl::Algorithm::DecoupledLookback, scangen::dsl::Algorithm::ReduceThenScan}, 16);
}

// Segmented scans (segments given at run time): every form x mode x type x
// segment structure x size (segmented_sweep.h).
TEST_CASE("OpenCL segmented device scans", "[opencl][scan][device][segmented]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  std::vector<ScanCase> cases;
  std::vector<Plan> plans;
  const char* only = std::getenv("SCANGEN_SCAN_FILTER");  // for debugging: scans whose name contains it
  for (ScanCase& c :
       scangen::test::sample_spec_cases(scangen::test::segmented_cases(Backend::OpenCL), "OpenCL segmented scans")) {
    if (only && c.spec.name.find(only) == std::string::npos) continue;
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::OpenCL));
    cases.push_back(std::move(c));
  }
  REQUIRE(!plans.empty());
  ProgramRunner runner(device, scangen::generator::emit(plans));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { runner.launch(kernel, buffers, args, blocks, threads); };
  const int calls = scangen::test::check_segmented_cases(cases, plans, launch);
  std::cout << "segmented: " << cases.size() << " scans, " << calls << " calls\n";
}

// The head-flag device functions of warp and block scans (head_flags = true)
// called from a kernel of the test's own (head_flags_sweep.h).
TEST_CASE("OpenCL head-flag warp and block device functions", "[opencl][scan][head_flags]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const std::vector<ScanCase> cases =
      scangen::test::sample_spec_cases(scangen::test::head_flag_cases(Backend::OpenCL), "OpenCL head flags");
  std::vector<Plan> plans;
  for (const ScanCase& c : cases) plans.push_back(scangen::generator::make_plan(c.spec, Backend::OpenCL));
  REQUIRE(!plans.empty());
  ProgramRunner runner(device, scangen::test::head_flag_source(plans));
  auto launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                    const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                    int threads) { runner.launch(kernel, buffers, args, blocks, threads); };
  const int calls = scangen::test::check_head_flag_cases(cases, plans, launch);
  std::cout << "head flags: " << cases.size() << " scans, " << calls << " calls\n";
}

// A logical warp of 64 lanes called from a user's work-group of four of them
// (scan_sweep.h's api_test_kernel with four groups, while the scan's
// `threads` is 64): each thread's rank is its place in its logical warp.
TEST_CASE("OpenCL logical warps of 64 lanes in a user's work-group of 256", "[opencl][scan]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const ScanCase c = scangen::test::wide_warp_case();
  const Plan p = scangen::generator::make_plan(c.spec, Backend::OpenCL);
  REQUIRE(p.block_threads == 64);
  ProgramRunner runner(device, scangen::generator::emit(p) + scangen::test::api_test_kernel(p, 4));
  const scangen::test::LaunchKernel launch = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                                                 const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                                                 int threads) {
    runner.launch(kernel, buffers, args, blocks, threads);
  };
  for (uint64_t n : {uint64_t{1}, uint64_t{127}, uint64_t{512}, uint64_t{1000}}) {
    INFO("n = " << n);
    const std::string report = scangen::test::run_api_case(c, p, n, rng, launch, 4);
    INFO(report);
    CHECK(report.empty());
  }
}

namespace {

// One device scan compiled alone, for the tests below.
struct OneScan {
  ScanCase scan;
  Plan plan;
  std::unique_ptr<ProgramRunner> runner;
  scangen::test::LaunchKernel launch;
};

OneScan one_scan(const Device& device, const std::string& name, const std::string& text, const char* values) {
  scangen::dsl::Document doc = scangen::dsl::load(name + ".scan", text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  OneScan o{{doc.specs().at(0), values}, {}, nullptr, {}};
  o.plan = scangen::generator::make_plan(o.scan.spec, Backend::OpenCL);
  o.runner = std::make_unique<ProgramRunner>(device, scangen::generator::emit(o.plan));
  ProgramRunner* r = o.runner.get();
  o.launch = [r](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                 const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                 int threads) { r->launch(kernel, buffers, args, blocks, threads); };
  return o;
}

}  // namespace

// Far more work-groups than cores (tiles of 32 elements: 2049 of them per
// call), call after call on one workspace: no hang, no wrong answer. Work-
// groups that wait on a predecessor that is not running fall back on
// reducing its tile themselves.
TEST_CASE("OpenCL decoupled look-back under stress", "[opencl][scan][device][stress]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  struct Kind {
    const char* name;
    const char* body;
    const char* values;
  };
  const Kind kinds[] = {
      {"stress_u32", "type = u32; op = add;", "int"},
      {"stress_mat2",
       "type = Mat2; combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, "
       "c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = Mat2 { 1.0, 0.0, 0.0, 1.0 };",
       "matrix"},
      // reverse = true: the fallback reduces a stalled tile through the mirror.
      {"stress_mat2_rev",
       "type = Mat2; combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, "
       "c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = Mat2 { 1.0, 0.0, 0.0, 1.0 }; reverse = true;",
       "matrix"},
  };
  int calls = 0;
  for (const Kind& k : kinds) {
    OneScan o = one_scan(device, k.name,
                         std::string("type Mat2 { a: f32, b: f32, c: f32, d: f32 }\nscan ") + k.name + " { " + k.body +
                             " level = device; threads = 32; items = 1; mode = both; outputs = aggregate; }",
                         k.values);
    scangen::test::DeviceState state;
    std::vector<uint8_t> counter;
    for (int rep = 0; rep < 25; ++rep) {
      const uint64_t n = (1ull << 16) + 3 + static_cast<uint64_t>(rep);
      INFO(k.name << ", call " << rep + 1 << ", n = " << n);
      const std::string report = scangen::test::run_device_case(o.scan, o.plan, n, rng, o.launch, state, counter);
      INFO(report);
      REQUIRE(report.empty());
      ++calls;
    }
  }
  std::cout << "look-back stress: " << calls << " calls of 2049+ work-groups\n";
}

// The look-back's fallback of a reverse scan: work-item 0 reduces a stalled
// tile from the input itself (sg_reduce_alone), through the mirror. PoCL
// seldom stalls a tile, so a kernel of the test's own calls it for every
// tile, and each total must be the reference's for that tile's elements, the
// last first (the 2x2 matrix product: any other order or element differs).
TEST_CASE("OpenCL look-back's fallback reduces a reverse scan's tile through the mirror", "[opencl][scan][device]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  for (ScanCase& c : scangen::test::device_cases(Backend::OpenCL)) {
    if (c.spec.name != "lookback_rev_mat2_both") continue;
    const Plan p = scangen::generator::make_plan(c.spec, Backend::OpenCL);
    const std::string P = c.spec.name + "_";
    const std::string test_kernel =
        "\n__kernel void " + P + "reduce_alone_test(__global const " + P + "In* in, __global " + P +
        "T* totals, ulong n) {\n  totals[get_group_id(0)] = " + P + "sg_reduce_alone(in, get_group_id(0), n);\n}\n";
    ProgramRunner runner(device, scangen::generator::emit(p) + test_kernel);
    scangen::dsl::Spec one = c.spec;
    one.aggregate = true;
    const scangen::ref::Evaluator ev(one);
    const size_t es = one.type.size();
    for (uint64_t n : {p.tile - 1, p.tile, 3 * p.tile + 5}) {
      INFO("n = " << n);
      const uint64_t tiles = (n + p.tile - 1) / p.tile, end = tiles * p.tile;
      // Signed permutation matrices: every product exact.
      std::vector<float> m(4 * n);
      for (uint64_t i = 0; i < n; ++i) {
        const float s1 = rng() % 2 ? 1.0f : -1.0f, s2 = rng() % 2 ? 1.0f : -1.0f;
        const bool swap = rng() % 2 != 0;
        const float e[4] = {swap ? 0.0f : s1, swap ? s1 : 0.0f, swap ? s2 : 0.0f, swap ? 0.0f : s2};
        std::copy(e, e + 4, m.begin() + static_cast<std::ptrdiff_t>(4 * i));
      }
      std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(n * es),
                                                   std::vector<uint8_t>(tiles * es, 0xAB)};
      std::memcpy(buffers[0].data(), m.data(), n * es);
      runner.launch(P + "reduce_alone_test", buffers, scangen::test::buffers_then_n(2, n), tiles, 1);
      for (uint64_t t = 0; t < tiles; ++t) {
        const uint64_t hi = std::min(n, end - t * p.tile), lo = end - (t + 1) * p.tile;
        const auto want = ev.scan(buffers[0].data() + lo * es, hi - lo).aggregates;
        INFO("tile " << t << ": elements " << lo << " .. " << hi - 1);
        CHECK(scangen::ref::values_match(one.type, buffers[1].data() + t * es, want.data(), {}));
      }
    }
    return;
  }
  FAIL("no case lookback_rev_mat2_both");
}

// The look-back's fallback of a scan of input arrays: work-item 0 reduces a
// stalled tile from the arrays (sg_reduce_alone over io_inputs.h's bundle and
// sg_input_at). A kernel of the test's own calls it for every tile; each total
// must be the reference's, exact (a non-commutative integer map of two arrays
// and the index: any other order, element or index differs).
TEST_CASE("OpenCL look-back's fallback reduces a tile of input arrays", "[opencl][scan][device]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  scangen::dsl::Document doc = scangen::dsl::load(
      "arrays.scan",
      "type M { a: u32, b: u32 }\n"
      "scan soa_fallback { type = M; input = u8, u16; convert(x, y, i) = M { a: u32(x) | 1, b: u32(y) ^ u32(i) };"
      " combine(l, r) = M { a: l.a * r.a, b: l.b * r.a + r.b }; identity = M { a: 1, b: 0 }; outputs = aggregate; }");
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  const scangen::dsl::Spec& spec = doc.specs().at(0);
  const Plan p = scangen::generator::make_plan(spec, Backend::OpenCL);
  const std::string P = spec.name + "_";
  const std::string test_kernel =
      "\n__kernel void " + P + "reduce_alone_test(__global const " + P + "In_x* x, __global const " + P +
      "In_y* y, __global " + P + "T* totals, ulong n) {\n  const " + P +
      "sg_inputs in = {x, y};\n  totals[get_group_id(0)] = " + P + "sg_reduce_alone(in, get_group_id(0), n);\n}\n";
  ProgramRunner runner(device, scangen::generator::emit(p) + test_kernel);
  const scangen::ref::Evaluator ev(spec);
  const size_t es = spec.type.size();
  for (uint64_t n : {p.tile - 1, p.tile, 3 * p.tile + 5}) {
    INFO("n = " << n);
    const uint64_t tiles = (n + p.tile - 1) / p.tile;
    std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(n), std::vector<uint8_t>(2 * n),
                                                 std::vector<uint8_t>(tiles * es, 0xAB)};
    for (auto& b : {&buffers[0], &buffers[1]})
      for (uint8_t& v : *b) v = static_cast<uint8_t>(rng());
    runner.launch(P + "reduce_alone_test", buffers, scangen::test::buffers_then_n(3, n), tiles, 1);
    const std::vector<uint8_t> elements = ev.convert_arrays({buffers[0].data(), buffers[1].data()}, n);
    for (uint64_t t = 0; t < tiles; ++t) {
      const uint64_t lo = t * p.tile, hi = std::min(n, lo + p.tile);
      std::vector<uint8_t> want(es), next(es);
      std::memcpy(want.data(), elements.data() + lo * es, es);
      for (uint64_t i = lo + 1; i < hi; ++i) {
        ev.combine(want.data(), elements.data() + i * es, next.data());
        want = next;
      }
      INFO("tile " << t << ": elements " << lo << " .. " << hi - 1);
      CHECK(std::memcmp(buffers[2].data() + t * es, want.data(), es) == 0);
    }
  }
}

// outputs = running_total with the look-back's fallback: the last tile may
// finish while an earlier work-group has taken its ticket but not yet run,
// nor read the counter as its seed. The test stalls tile 0 for the whole of
// a launch: it takes ticket 0 itself (the header's ticket set to 1), so a
// first launch of tiles - 1 work-groups runs tiles 1 .. tiles - 1, each
// reducing tile 0 through the fallback; a second launch of one work-group
// then runs tile 0, which must still take the counter's old value for its
// seed. Then the counter must hold the seed plus every element, once.
TEST_CASE("OpenCL look-back's running total is read before any tile writes it back", "[opencl][scan][device]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  scangen::dsl::Document doc = scangen::dsl::load(
      "stalled.scan",
      "scan stalled { type = u32; op = add; level = device; algorithm = decoupled_lookback; threads = 32; "
      "items = 1; mode = inclusive; outputs = running_total; }");
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  const Plan p = scangen::generator::make_plan(doc.specs().at(0), Backend::OpenCL);
  ProgramRunner runner(device, scangen::generator::emit(p));
  for (uint64_t n : {p.tile + 1, 4 * p.tile - 1, 9 * p.tile}) {
    INFO("n = " << n);
    const uint64_t tiles = (n + p.tile - 1) / p.tile;
    std::vector<uint32_t> in(n);
    for (uint32_t& v : in) v = static_cast<uint32_t>(rng() % 1000);
    const uint32_t start = static_cast<uint32_t>(rng() % 100000);
    std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(n * 4), std::vector<uint8_t>(n * 4, 0xAB),
                                                 std::vector<uint8_t>(4),
                                                 std::vector<uint8_t>(scangen::generator::workspace_bytes(p, n), 0)};
    std::memcpy(buffers[0].data(), in.data(), n * 4);
    std::memcpy(buffers[2].data(), &start, 4);
    buffers[3][0] = 1;  // ticket 0 taken: tile 0 stalled
    std::vector<scangen::test::KernelArg> args = scangen::test::buffers_then_n(3, n);
    args.push_back({scangen::test::KernelArg::Kind::Buffer, 3});
    runner.launch(p.spec.name + "_scan_kernel", buffers, args, tiles - 1, p.block_threads);
    runner.launch(p.spec.name + "_scan_kernel", buffers, args, 1, p.block_threads);
    std::vector<uint32_t> out(n);
    std::memcpy(out.data(), buffers[1].data(), n * 4);
    uint32_t sum = start;
    for (uint64_t i = 0; i < n; ++i) {
      sum += in[i];
      INFO("element " << i << " (tile " << i / p.tile << ")");
      REQUIRE(out[i] == sum);
    }
    uint32_t counter = 0;
    std::memcpy(&counter, buffers[2].data(), 4);
    CHECK(counter == sum);
  }
}

// 2^24 +- 1 elements, and the output written over the input.
TEST_CASE("OpenCL device scans of 16M elements and in place", "[opencl][scan][device]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  // The quick tier: one of the two algorithms at this size, drawn (both run at smaller sizes in the sweeps).
  for (const std::string& algorithm : scangen::test::sample_cases(
           std::vector<std::string>{"decoupled_lookback", "reduce_then_scan"}, "OpenCL device scans of 16M elements",
           [](const std::string&) { return std::vector<std::string>{"algorithm"}; })) {
    OneScan o = one_scan(
        device, "big", std::string("scan big { type = i32; op = add; level = device; algorithm = ") + algorithm + "; }",
        "int");
    scangen::test::DeviceState state;
    std::vector<uint8_t> counter;
    for (uint64_t n : {(1ull << 24) - 1, (1ull << 24) + 1}) {
      for (bool in_place : {false, true}) {
        INFO(algorithm << ", n = " << n << (in_place ? ", in place" : ""));
        const std::string report =
            scangen::test::run_device_case(o.scan, o.plan, n, rng, o.launch, state, counter, in_place);
        INFO(report);
        CHECK(report.empty());
      }
    }
  }
}

// Segmented scans call after call on one workspace, with many work-groups
// (small tiles) and with the default tile, forward and reverse: no hang, no
// wrong answer.
TEST_CASE("OpenCL segmented look-back under stress", "[opencl][scan][device][segmented][stress]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const int reps = std::getenv("SCANGEN_STRESS_REPS") ? std::atoi(std::getenv("SCANGEN_STRESS_REPS")) : 12;
  int calls = 0;
  for (const char* shape : {"threads = 32; items = 1;", "", "reverse = true; threads = 32; items = 1;",
                            "reverse = true;"}) {  // reverse: the last work-group flips the aggregates
    const char* body = std::getenv("SCANGEN_STRESS_BODY");
    OneScan o = one_scan(device, "stress_seg",
                         std::string("scan stress_seg { type = i32; op = add; level = device; ") +
                             (body ? body : "mode = both; outputs = aggregate; segments = flags; ") + shape + " }",
                         "int");
    scangen::test::DeviceState state;
    for (int rep = 0; rep < reps; ++rep)
      for (const char* structure : {"whole", "mean3", "tiles"}) {
        const uint64_t n = 9 * o.plan.tile - 1 + static_cast<uint64_t>(rep % 3);
        const std::string report =
            scangen::test::run_segmented_case(o.scan, o.plan, n, structure, rng, o.launch, state);
        INFO(report);
        REQUIRE(report.empty());
        ++calls;
      }
  }
  std::cout << "segmented look-back stress: " << calls << " calls\n";
}

// Float min and max propagate a NaN, fmin and fmax ignore it, and sums keep
// -0.0 (the identity of float addition), at warp, block and device level
// (scan_sweep.h's nan_cases; every case on every tier).
TEST_CASE("OpenCL float min max fmin fmax and add with NaNs and -0.0 at every level", "[opencl][scan]") {
  Device device = device_or_skip(true);
  if (!device.id) return;
  std::vector<ScanCase> groups, devices;
  std::vector<Plan> group_plans, device_plans;
  for (ScanCase& c : scangen::test::nan_cases(Backend::OpenCL)) {
    Plan p = scangen::generator::make_plan(c.spec, Backend::OpenCL);
    if (!device.fp64 && scangen::generator::emit(p).find("cl_khr_fp64") != std::string::npos) continue;
    const bool at_device = c.spec.level == scangen::dsl::Level::Device;
    (at_device ? device_plans : group_plans).push_back(std::move(p));
    (at_device ? devices : groups).push_back(std::move(c));
  }
  REQUIRE(!groups.empty());
  REQUIRE(!devices.empty());
  ProgramRunner group_runner(device, scangen::test::sweep_source(groups, group_plans));
  ProgramRunner device_runner(device, scangen::generator::emit(device_plans));
  auto launch_group = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                          const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                          int threads) { group_runner.launch(kernel, buffers, args, blocks, threads); };
  auto launch_device = [&](const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                           const std::vector<scangen::test::KernelArg>& args, uint64_t blocks,
                           int threads) { device_runner.launch(kernel, buffers, args, blocks, threads); };
  scangen::test::check_scan_cases(groups, group_plans, launch_group);
  scangen::test::check_device_rounds(devices, device_plans, launch_device, 14);
}
