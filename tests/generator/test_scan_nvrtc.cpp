// Every warp- and block-level algorithm x element type (i8, i32, i64, f16,
// f32, f64, 8-, 16- and 24-byte structs) x mode compiles with NVRTC for sm_90
// (a cubin; no GPU needed) without an error or a warning. The three modes of
// one algorithm and type share a translation unit, as `scangen emit` puts a
// file's scans together.
#include "cuda_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "head_flags_sweep.h"
#include "scan_sweep.h"
#include "segmented_sweep.h"
#include "scangen/generator/emit.h"
#include "test_tier.h"

namespace {

using scangen::generator::Backend;

void compile_clean(const std::string& source, const std::string& name) {
  const scangen::nvrtc_support::Compiled c = scangen::test::cuda::nvrtc_compile(source, name, "sm_90");
  INFO(name << ": NVRTC log:\n" << c.log);
  CHECK(!c.code.empty());
  CHECK(c.log.find("warning") == std::string::npos);
}

void compile_algorithm(scangen::dsl::Algorithm a) {
  // Cases are named <algorithm>_<type>_<mode>: group the modes of one type.
  std::map<std::string, std::vector<scangen::generator::Plan>> units;
  for (const scangen::test::ScanCase& c : scangen::test::compile_cases()) {
    if (c.spec.algorithm != a) continue;
    const std::string& n = c.spec.name;
    units[n.substr(0, n.rfind('_'))].push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
  }
  REQUIRE(units.size() == 10);  // nine element types, and the 2x2 matrix with reverse = true
  // The quick tier: a unit of each type class (and the reverse one), drawn.
  using Unit = std::pair<std::string, std::vector<scangen::generator::Plan>>;
  const std::vector<Unit> kept = scangen::test::sample_cases(
      std::vector<Unit>(units.begin(), units.end()), std::string("NVRTC ") + scangen::dsl::to_string(a),
      [](const Unit& u) {
        const scangen::dsl::Spec& s = u.second.front().spec;
        return std::vector<std::string>{scangen::test::type_class(s.type), s.reverse ? "reverse" : "forward"};
      });
  const auto start = std::chrono::steady_clock::now();
  int scans = 0;
  for (const auto& [unit, plans] : kept) {
    REQUIRE(plans.size() == 3);
    compile_clean(scangen::generator::emit(plans), unit + ".cu");
    scans += static_cast<int>(plans.size());
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << scangen::dsl::to_string(a) << ": " << scans << " scans in " << kept.size()
            << " translation units compiled for sm_90, " << static_cast<int>(ms / static_cast<double>(kept.size()))
            << " ms per unit\n";
}

}  // namespace

TEST_CASE("NVRTC compiles warp scan kogge_stone", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::KoggeStone);
}
TEST_CASE("NVRTC compiles warp scan kogge_stone_local", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::KoggeStoneLocal);
}
TEST_CASE("NVRTC compiles warp scan coalesced", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::Coalesced);
}
TEST_CASE("NVRTC compiles block scan raking", "[nvrtc][scan]") { compile_algorithm(scangen::dsl::Algorithm::Raking); }
TEST_CASE("NVRTC compiles block scan raking_memoize", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::RakingMemoize);
}
TEST_CASE("NVRTC compiles block scan warp_scans", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::WarpScans);
}
TEST_CASE("NVRTC compiles block scan hillis_steele", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::HillisSteele);
}
TEST_CASE("NVRTC compiles block scan blelloch", "[nvrtc][scan]") {
  compile_algorithm(scangen::dsl::Algorithm::Blelloch);
}

TEST_CASE("NVRTC compiles the device scans", "[nvrtc][scan][device]") {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::test::ScanCase& c :
       scangen::test::sample_spec_cases(scangen::test::device_cases(Backend::Cuda), "NVRTC device scans"))
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
  REQUIRE(plans.size() >= (scangen::test::full_tier() ? 20u : 1u));
  compile_clean(scangen::generator::emit(plans), "device_scans.cu");
}

TEST_CASE("NVRTC compiles the device scans with a tuning of their own", "[nvrtc][scan][device]") {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::test::ScanCase& c :
       scangen::test::sample_spec_cases(scangen::test::device_cases(Backend::Cuda), "NVRTC device scans")) {
    if (c.spec.algorithm != scangen::dsl::Algorithm::DecoupledLookback) continue;
    const scangen::generator::DeviceTuning t =
        scangen::generator::parse_tuning("threads=128 items=4 min_blocks=3 first_poll_ns=700 poll_ns=0 pdl=1",
                                         scangen::generator::device_tuning(c.spec, Backend::Cuda));
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda, t));
    // The spec's own threads / items win over the tuning's.
    CHECK(plans.back().block_threads == (c.spec.threads > 0 ? c.spec.threads : 128));
    CHECK(plans.back().items == (c.spec.items > 0 ? c.spec.items : 4));
  }
  REQUIRE(plans.size() >= (scangen::test::full_tier() ? 10u : 1u));
  compile_clean(scangen::generator::emit(plans), "device_scans_tuned.cu");
}

TEST_CASE("NVRTC compiles the device scans with OpenCL's tile scan, element I/O and status operations",
          "[nvrtc][scan][device]") {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::test::ScanCase& c :
       scangen::test::sample_spec_cases(scangen::test::device_cases(Backend::Cuda), "NVRTC device scans")) {
    if (c.spec.algorithm != scangen::dsl::Algorithm::DecoupledLookback) continue;
    const scangen::generator::DeviceTuning t =
        scangen::generator::parse_tuning(plans.size() % 2 ? "raking=1 words=0 status_ops=1 tagged_words=0"
                                                          : "raking=1 words=0 status_ops=2 tagged_words=1",
                                         scangen::generator::device_tuning(c.spec, Backend::Cuda));
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda, t));
    CHECK(plans.back().tile_algorithm == scangen::dsl::Algorithm::Raking);
    CHECK(plans.back().input_words == 0);
    CHECK(plans.back().output_words == 0);
  }
  REQUIRE(plans.size() >= (scangen::test::full_tier() ? 10u : 1u));
  compile_clean(scangen::generator::emit(plans), "device_scans_raking.cu");
}

TEST_CASE("NVRTC compiles the segmented device scans", "[nvrtc][scan][device][segmented]") {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::test::ScanCase& c :
       scangen::test::sample_spec_cases(scangen::test::segmented_cases(Backend::Cuda), "NVRTC segmented scans"))
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
  REQUIRE(plans.size() >= (scangen::test::full_tier() ? 30u : 1u));
  compile_clean(scangen::generator::emit(plans), "segmented_scans.cu");
}

TEST_CASE("NVRTC compiles the segmented device scans with their exchange in dynamic shared memory",
          "[nvrtc][scan][device][segmented]") {
  std::vector<scangen::generator::Plan> plans;
  const scangen::generator::Target sm90{Backend::Cuda, 90};
  // One scan per form, order and pair size (a translation unit of every case takes a minute).
  std::set<std::tuple<int, bool, size_t>> seen;
  for (const scangen::test::ScanCase& c :
       scangen::test::sample_spec_cases(scangen::test::segmented_cases(Backend::Cuda), "NVRTC segmented scans")) {
    if (c.spec.threads > 0 || c.spec.items > 0) continue;  // their own tile
    const scangen::generator::DeviceTuning t =
        scangen::generator::parse_tuning("threads=256 items=48", scangen::generator::device_tuning(c.spec, sm90));
    scangen::generator::Plan p = scangen::generator::make_plan(c.spec, sm90, t);
    if (!seen.insert({static_cast<int>(c.spec.segments), c.spec.reverse, p.segmented.pair_bytes}).second) continue;
    plans.push_back(std::move(p));
    INFO(c.spec.name);
    CHECK(plans.back().dynamic_shared_bytes > 48u * 1024u);
  }
  REQUIRE(plans.size() >= (scangen::test::full_tier() ? 10u : 1u));
  compile_clean(scangen::generator::emit(plans), "segmented_scans_dynamic.cu");
}

TEST_CASE("NVRTC compiles the head-flag warp and block device functions", "[nvrtc][scan][head_flags]") {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::test::ScanCase& c : scangen::test::head_flag_cases(Backend::Cuda))
    plans.push_back(scangen::generator::make_plan(c.spec, Backend::Cuda));
  REQUIRE(plans.size() >= 10);
  // The pair of the 2x2 i64 matrices (40 bytes) goes through shared memory, the others' through shuffles.
  CHECK(std::any_of(plans.begin(), plans.end(), [](const scangen::generator::Plan& p) {
    return p.head_flags.exchange == scangen::generator::LaneExchange::SharedMemory &&
           p.exchange == scangen::generator::LaneExchange::Shuffle;
  }));
  compile_clean(scangen::test::head_flag_source(plans), "head_flags.cu");
}
