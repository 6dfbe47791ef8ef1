// The CUB-style functors of cub_ops.h and the C++ front end: each functor,
// compiled here as host C++ and applied in order, gives the reference's scan
// of its import (so the import means what the C++ means), and the frozen
// texts the OpenCL and CUDA runs compile (freeze_specs) are the imported
// specs.
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cub_ops_frozen.h"
#include "cub_ops_sweep.h"
#include "runtime_test_support.h"
#include "scangen/cxx/cxx.h"
#include "scangen/dsl/dsl.h"

namespace {

using namespace scangen::test::cub;
using scangen::test::runtime::seed;

// cub_ops.scan loaded with its imports resolved by the C++ front end.
scangen::dsl::Document imported() {
  const std::string path = std::string(SCANGEN_CXX_TESTS_DIR) + "/cub_ops.scan";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  scangen::dsl::LoadOptions o;
  o.resolve_imports = scangen::cxx::import_operators;
  scangen::dsl::Document doc = scangen::dsl::load(path, text.str(), o);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  REQUIRE(doc.specs().size() == 10);
  return doc;
}

// The host functor `op`, applied in order from `identity`, gives the
// reference's scan of `s` (a device scan), whose operator is its import.
template <typename T, typename Op>
void check_host_functor(const scangen::dsl::Spec& s, Op op, const T& identity, std::mt19937_64& rng) {
  INFO("scan '" << s.name << "'");
  REQUIRE(s.type.size() == sizeof(T));
  REQUIRE(s.input.size() == sizeof(T));
  const uint64_t n = 3000;
  const std::vector<uint8_t> in = inputs(s, n, rng);
  std::vector<uint8_t> got(n * sizeof(T) + kGuard, kPoison);
  T acc = identity;
  for (uint64_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, in.data() + i * sizeof(T), sizeof(T));
    if (s.has_inclusive()) acc = op(acc, x);
    std::memcpy(got.data() + i * sizeof(T), &acc, sizeof(T));
    if (!s.has_inclusive()) acc = op(acc, x);
  }
  check(s, in, n, got);
}

}  // namespace

TEST_CASE("the functors of cub_ops.h as host C++ agree with the reference of their import", "[cxx]") {
  const scangen::dsl::Document doc = imported();
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  int checked = 0;
  for (const scangen::dsl::Spec& s : doc.specs()) {
    // A warp or block scan's reference restarts at every group of elements.
    if (s.level != scangen::dsl::Level::Device) continue;
    const std::string& n = s.name;
    auto is = [&](const char* prefix) { return n.rfind(prefix, 0) == 0 && ++checked; };
    if (is("custom_min_i32")) check_host_functor(s, CustomMin<int32_t>{}, CustomMin<int32_t>::identity, rng);
    if (is("custom_min_f32")) check_host_functor(s, CustomMin<float>{}, CustomMin<float>::identity, rng);
    if (is("affine")) check_host_functor(s, AffineCompose{}, AffineCompose::identity, rng);
    if (is("matrix")) check_host_functor(s, Mat2Multiply{}, Mat2Multiply::identity(), rng);
    if (is("argmax")) check_host_functor(s, ArgMaxWithIndex{}, ArgMaxWithIndex::identity, rng);
    if (is("segmented_sum")) check_host_functor(s, SegmentedSumPair{}, SegmentedSumPair::identity, rng);
  }
  CHECK(checked == 8);  // every device scan of cub_ops.scan
}

TEST_CASE("the frozen texts of the CUDA test are the imported specs", "[cxx]") {
  const scangen::dsl::Document doc = imported();
  const size_t count = sizeof scangen::test::cxx::kFrozenSpecs / sizeof scangen::test::cxx::kFrozenSpecs[0];
  REQUIRE(count == doc.specs().size());
  for (size_t i = 0; i < count; ++i) {
    const scangen::dsl::Document frozen = scangen::dsl::load("frozen.scan", scangen::test::cxx::kFrozenSpecs[i]);
    INFO(frozen.diagnostics().render());
    REQUIRE(frozen.ok());
    REQUIRE(frozen.specs().size() == 1);
    CHECK(frozen.specs()[0].to_string() == doc.specs()[i].to_string());
  }
}
