// The quick tier's sample (tests/support/test_tier.h): every feature of a
// sweep kept, the cases in their order, the same sample for the same seed and
// sweep, and every case in the full tier.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_tier.h"

namespace {

struct Case {
  int id;
  std::vector<std::string> features;
};

std::vector<Case> grid() {
  std::vector<Case> cases;
  int id = 0;
  for (const char* mode : {"inclusive", "exclusive", "both"})
    for (const char* type : {"int", "float", "struct", "f16"})
      for (const char* shape : {"flat", "rows"}) cases.push_back({id++, {mode, type, shape}});
  return cases;
}

std::vector<Case> sample(const std::string& sweep) {
  return scangen::test::sample_cases(grid(), sweep, [](const Case& c) { return c.features; });
}

// Restores SCANGEN_TEST_FULL as it was.
struct FullTier {
  explicit FullTier(const char* value) {
    if (const char* e = getenv("SCANGEN_TEST_FULL")) before = e, had = true;
    if (value)
      setenv("SCANGEN_TEST_FULL", value, 1);
    else
      unsetenv("SCANGEN_TEST_FULL");
  }
  ~FullTier() {
    if (had)
      setenv("SCANGEN_TEST_FULL", before.c_str(), 1);
    else
      unsetenv("SCANGEN_TEST_FULL");
  }
  std::string before;
  bool had = false;
};

}  // namespace

TEST_CASE("the quick tier keeps every feature of a sweep, in order, the same for the same seed", "[tier]") {
  const FullTier quick(nullptr);
  const std::vector<Case> kept = sample("a sweep");
  INFO("seed " << scangen::test::tier_seed());
  CHECK(kept.size() < grid().size());
  CHECK(kept.size() >= 4);  // four types: at least four cases
  std::set<std::string> all, covered;
  for (const Case& c : grid()) all.insert(c.features.begin(), c.features.end());
  for (const Case& c : kept) covered.insert(c.features.begin(), c.features.end());
  CHECK(covered == all);
  for (size_t i = 1; i < kept.size(); ++i) CHECK(kept[i - 1].id < kept[i].id);
  std::vector<int> again;
  for (const Case& c : sample("a sweep")) again.push_back(c.id);
  std::vector<int> first;
  for (const Case& c : kept) first.push_back(c.id);
  CHECK(again == first);
}

TEST_CASE("SCANGEN_TEST_FULL keeps every case, and 0 is the quick tier", "[tier]") {
  {
    const FullTier full("1");
    CHECK(sample("a sweep").size() == grid().size());
  }
  const FullTier zero("0");
  CHECK(sample("a sweep").size() < grid().size());
}

TEST_CASE("only_dimensions keeps the features of the named dimensions", "[tier]") {
  const std::vector<std::string> f = {"shape=rows", "mode=both", "type=int", "modes=x"};
  CHECK(scangen::test::only_dimensions(f, {"mode"}) == std::vector<std::string>{"mode=both"});
  CHECK(scangen::test::only_dimensions(f, {"mode", "type"}) == std::vector<std::string>{"mode=both", "type=int"});
  CHECK(scangen::test::spec_features(scangen::dsl::load("t.scan", "scan s { type = f32; op = add; }").specs().at(0))
            .size() == 8);
}
