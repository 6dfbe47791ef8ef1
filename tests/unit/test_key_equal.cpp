// Segmented scans by key with a written equality, `key_equal(a, b) = ...;`,
// in the front end and the CPU reference (docs/dsl.md §5.10).
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "scangen/reference/reference.h"
#include "spec_support.h"

namespace {

using namespace scangen;
using test::spec_of;
using Range = ref::Evaluator::Range;

std::string by_key(const std::string& key, const std::string& equal) {
  return "scan s { type = i32; op = add; segments = keys; key = " + key + "; " + equal + " }";
}

// The ranges as (begin, end) pairs, for printing and comparing.
std::vector<std::pair<uint64_t, uint64_t>> pairs(const std::vector<Range>& ranges) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const Range& r : ranges) out.emplace_back(r.begin, r.end);
  return out;
}

std::string diagnostics(const std::string& text) { return dsl::load("t.scan", text).diagnostics().render(); }

}  // namespace

TEST_CASE("key_equal(a, b): two parameters of the key type, a bool result, printed and read back", "[dsl][keys]") {
  const dsl::Spec s = spec_of(by_key("u16", "key_equal(a, b) = a / 4 == b / 4;"));
  REQUIRE(s.key_equal);
  CHECK(s.key_equal->params == std::vector<std::string>{"a", "b"});
  CHECK(s.key_equal->param_types ==
        std::vector<dsl::Type>{dsl::Type::scalar(dsl::ScalarKind::U16), dsl::Type::scalar(dsl::ScalarKind::U16)});
  CHECK(s.key_equal->result == dsl::Type::scalar(dsl::ScalarKind::Bool));
  const std::string text = s.to_string();
  INFO(text);
  CHECK(text.find("  key = u16;\n  key_equal(a, b) = a / u16(4) == b / u16(4);\n") != std::string::npos);
  CHECK(spec_of(text) == s);
  // Another equality, or none, is another spec (and another cache key).
  const dsl::Spec other = spec_of(by_key("u16", "key_equal(a, b) = a / 8 == b / 8;"));
  const dsl::Spec plain = spec_of(by_key("u16", ""));
  CHECK(other != s);
  CHECK(plain != s);
  CHECK(plain.hash() != s.hash());
  CHECK(plain.to_string().find("key_equal") == std::string::npos);
}

TEST_CASE("key_equal takes a body with lets, and f32 keys", "[dsl][keys]") {
  const dsl::Spec s = spec_of(by_key("f32", "key_equal(a, b) { let d = b - a; return d >= 0.0 && d < 1.0; }"));
  REQUIRE(s.key_equal);
  CHECK(s.key_equal->num_locals == 1);
  CHECK(spec_of(s.to_string()) == s);
}

TEST_CASE("key_equal is refused where it does not belong, or is not a bool over two keys", "[dsl][keys]") {
  CHECK_THAT(diagnostics("scan s { type = i32; op = add; segments = flags; key_equal(a, b) = a == b; }"),
             Catch::Contains("error: 'key_equal' compares the keys of 'segments = keys;'"));
  CHECK_THAT(diagnostics("scan s { type = i32; op = add; key_equal(a, b) = a == b; }"),
             Catch::Contains("'key_equal' compares the keys of 'segments = keys;', which this scan does not set"));
  CHECK_THAT(diagnostics(by_key("i32", "key_equal(a) = a == 0;")),
             Catch::Contains("'key_equal' is a function of two keys"));
  CHECK_THAT(diagnostics(by_key("i32", "key_equal = true;")), Catch::Contains("'key_equal' is a function of two keys"));
  CHECK_THAT(diagnostics(by_key("i32", "key_equal(a, b) = a - b;")),
             Catch::Contains("key_equal returns i32 but must return bool"));
  CHECK_THAT(diagnostics(by_key("i32", "key_equal(a, b) = a == c;")), Catch::Contains("'c'"));
  CHECK_THAT(diagnostics(by_key("i32", "key_equal(a, a) = a == a;")),
             Catch::Contains("parameter 'a' appears twice in key_equal"));
  // A key type already refused is not reported again through key_equal.
  const std::string bad_key = diagnostics(by_key("Pair", "key_equal(a, b) = a == b;"));
  CHECK_THAT(bad_key, Catch::Contains("'key' takes one of"));
  size_t errors = 0;
  for (size_t at = bad_key.find("error:"); at != std::string::npos; at = bad_key.find("error:", at + 1)) ++errors;
  CHECK(errors == 1);
}

TEST_CASE("The reference's segments by key follow key_equal(before, own)", "[reference][keys]") {
  // i32 keys equal modulo 4 (C's %: -1 % 4 is -1, not 3).
  const std::vector<int32_t> keys = {1, 5, 9, 2, 6, 6, -1, 3, 7, -5};
  const dsl::Spec mod = spec_of(by_key("i32", "key_equal(a, b) = a % 4 == b % 4;"));
  CHECK(pairs(ref::ranges_from_keys(mod, keys.data(), keys.size())) ==
        std::vector<std::pair<uint64_t, uint64_t>>{{0, 3}, {3, 6}, {6, 7}, {7, 9}, {9, 10}});
  // Without key_equal: C's ==, as ranges_from_keys(kind, ...).
  const dsl::Spec plain = spec_of(by_key("i32", ""));
  CHECK(pairs(ref::ranges_from_keys(plain, keys.data(), keys.size())) ==
        pairs(ref::ranges_from_keys(dsl::ScalarKind::I32, keys.data(), keys.size())));
  CHECK(ref::ranges_from_keys(mod, keys.data(), 0).empty());
  CHECK(pairs(ref::ranges_from_keys(mod, keys.data(), 1)) == std::vector<std::pair<uint64_t, uint64_t>>{{0, 1}});
}

TEST_CASE("The reference passes the key before first: an order-sensitive key_equal", "[reference][keys]") {
  // A segment runs while the keys do not decrease.
  const std::vector<uint32_t> keys = {3, 3, 7, 2, 2, 9, 1, 4000000000u, 5};
  const dsl::Spec rising = spec_of(by_key("u32", "key_equal(a, b) = a <= b;"));
  CHECK(pairs(ref::ranges_from_keys(rising, keys.data(), keys.size())) ==
        std::vector<std::pair<uint64_t, uint64_t>>{{0, 3}, {3, 6}, {6, 8}, {8, 9}});
  // The same predicate with its parameters swapped starts segments where keys rise.
  const dsl::Spec falling = spec_of(by_key("u32", "key_equal(b, a) = a <= b;"));
  CHECK(pairs(ref::ranges_from_keys(falling, keys.data(), keys.size())) ==
        std::vector<std::pair<uint64_t, uint64_t>>{{0, 2}, {2, 5}, {5, 7}, {7, 9}});
}

TEST_CASE("The reference compares f32 keys in f32: floor(a) == floor(b), NaN in its own segments",
          "[reference][keys]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> keys = {0.25f, 0.75f, 1.0f, 1.99f, -0.5f, -0.0f, 0.0f, nan, nan, 2.5f};
  const dsl::Spec floors = spec_of(by_key("f32", "key_equal(a, b) = floor(a) == floor(b);"));
  CHECK(pairs(ref::ranges_from_keys(floors, keys.data(), keys.size())) ==
        std::vector<std::pair<uint64_t, uint64_t>>{{0, 2}, {2, 4}, {4, 5}, {5, 7}, {7, 8}, {8, 9}, {9, 10}});
  // An equality that ignores the keys: one segment, however they differ.
  const dsl::Spec always = spec_of(by_key("f32", "key_equal(a, b) = true;"));
  CHECK(pairs(ref::ranges_from_keys(always, keys.data(), keys.size())) ==
        std::vector<std::pair<uint64_t, uint64_t>>{{0, 10}});
}
