// Fused outputs in the front end and the CPU reference: scatter(...),
// scatter_at(...) and scatter_if(...) (docs/dsl.md §5.13).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "spec_support.h"

namespace {

using namespace scangen;
using test::spec_of;

// Odd values first in order, the even ones from the end; init 5 seeds the
// exclusive and inclusive results the functions see.
const char* const kPartition =
    "scan p { input = i32; type = u64; convert(x) = (x & 1) == 1 ? 1 : 0; op = add; mode = exclusive; init = 5; "
    "outputs = aggregate; scatter_at(x, i, before, after, n) = (x & 1) == 1 ? before - 5 : n - 1 - (i - (before - 5)); "
    "scatter(x, i, before, after) = x * 1000 + i32(after); }";

}  // namespace

TEST_CASE("scatter: the functions' parameter types, printed and read back the same", "[dsl][scatter]") {
  const dsl::Spec s = spec_of(kPartition);
  REQUIRE(s.scatter);
  REQUIRE(s.scatter_at);
  CHECK(!s.scatter_if);
  CHECK(s.scatter_at->params == std::vector<std::string>{"x", "i", "before", "after", "n"});
  const dsl::Type u64 = dsl::Type::scalar(dsl::ScalarKind::U64), i32 = dsl::Type::scalar(dsl::ScalarKind::I32);
  CHECK(s.scatter_at->param_types == std::vector<dsl::Type>{i32, u64, u64, u64, u64});
  CHECK(s.scatter_at->result == u64);
  CHECK(s.scatter->result == i32);
  const std::string text = s.to_string();
  INFO(text);
  CHECK(text.find("scatter(x, i, before, after) = ") != std::string::npos);
  CHECK(s.scatter_type == i32);  // the input type by default
  CHECK(text.find("scatter_type = i32;") != std::string::npos);
  CHECK(spec_of(text) == s);
  CHECK(spec_of(text).hash() == s.hash());
  // Another predicate is another spec.
  std::string other = kPartition;
  other.insert(other.size() - 1, "scatter_if(x) = x > 0; ");
  CHECK(spec_of(other) != s);
  CHECK(spec_of(other).hash() != s.hash());
  // So is another element type of the fused output.
  std::string wide = kPartition;
  wide.replace(wide.find("x * 1000 + i32(after)"), 21, "i64(x) * 1000 + i64(after)");
  wide.insert(wide.size() - 1, "scatter_type = i64; ");
  const dsl::Spec w = spec_of(wide);
  CHECK(w.scatter_type == dsl::Type::scalar(dsl::ScalarKind::I64));
  CHECK(spec_of(w.to_string()) == w);
  CHECK(w != s);
}

TEST_CASE("scatter in the reference: positions from the seeded results, the rest untouched", "[ref][scatter]") {
  const std::vector<int32_t> in = {3, 8, 5, -2, 7, 10, 1};
  const uint64_t n = in.size();
  std::vector<uint8_t> bytes(n * 4);
  std::memcpy(bytes.data(), in.data(), bytes.size());
  const ref::Evaluator ev(spec_of(kPartition));
  std::vector<int32_t> out(n + 2, -1);
  CHECK(ev.scatter(bytes.data(), n, out.data()) == n);
  // Inclusive counts (seeded by 5): 6 6 7 7 8 8 9.
  const std::vector<int32_t> want = {3006, 5007, 7008, 1009, 10008, -1993, 8006, -1, -1};
  CHECK(out == want);

  // A select drops the elements scatter_if refuses and every position >= n.
  const ref::Evaluator sel(
      spec_of("scan s { type = u32; input = i32; convert(x) = x > 4 ? 1 : 0; op = add; "
              "scatter_if(x) = x > 4; scatter_at(x, i, e) = u64(e) + 4; scatter(x) = x; }"));
  std::vector<int32_t> got(n, -1);
  CHECK(sel.scatter(bytes.data(), n, got.data()) == 3);  // 8, 5 and 7 at 4, 5 and 6; 10 at 7, past n
  CHECK(got == std::vector<int32_t>{-1, -1, -1, -1, 8, 5, 7});
}

TEST_CASE("neighbours: prev(x) and next(x) printed as written, their parameters after the full list", "[dsl][rle]") {
  const char* text =
      "scan d { type = u32; convert(v) = v - prev(v); op = add; outputs = aggregate; scatter_at(x, i) = i; "
      "scatter(x) = next(x); scatter_at.both(x, i) = i; scatter_if.both(x, i, e, p, n) = i + 1 < n; "
      "scatter.both(x) = u64(prev(x)) + u64(next(x)); scatter_type.both = u64; }";
  const dsl::Spec s = spec_of(text);
  REQUIRE(s.convert);
  // convert(v): prev and next come after v and the unnamed index.
  CHECK(s.convert->neighbours == 2);
  CHECK(s.convert->written_params() == 1);
  CHECK(s.convert->params.size() == 4);
  CHECK(s.scatter->neighbours == 5);
  CHECK(s.scatter_at->neighbours == -1);
  REQUIRE(s.scatter_named.size() == 1);
  CHECK(s.scatter_named[0].name == "both");
  CHECK(s.scatter_named[0].type == dsl::Type::scalar(dsl::ScalarKind::U64));
  CHECK(s.scatter_named[0].when->neighbours == -1);
  CHECK(s.scatter_named[0].value.neighbours == 5);
  const std::string printed = s.to_string();
  INFO(printed);
  CHECK(printed.find("convert(v) = v - prev(v);") != std::string::npos);
  CHECK(printed.find("scatter(x) = next(x);") != std::string::npos);
  CHECK(printed.find("scatter.both(x) = u64(prev(x)) + u64(next(x));") != std::string::npos);
  CHECK(printed.find("scatter_type.both = u64;") != std::string::npos);
  CHECK(spec_of(printed) == s);
  CHECK(spec_of(printed).hash() == s.hash());
  // next instead of prev is another spec.
  std::string other = text;
  other.replace(other.find("v - prev(v)"), 11, "v - next(v)");
  CHECK(spec_of(other) != s);
  CHECK(spec_of(other).hash() != s.hash());
}

TEST_CASE("neighbours in the reference: the element itself at the ends, every named output", "[ref][rle]") {
  const std::vector<uint32_t> in = {5, 9, 2, 2, 2};
  const uint64_t n = in.size();
  std::vector<uint8_t> bytes(n * 4);
  std::memcpy(bytes.data(), in.data(), bytes.size());
  const ref::Evaluator ev(
      spec_of("scan d { type = u32; convert(v) = v * 10 + prev(v); op = add; mode = both; scatter_at(x, i) = i; "
              "scatter(x) = next(x); scatter_at.sides(x, i) = i; scatter_if.sides(x) = prev(x) != next(x); "
              "scatter.sides(x) = prev(x) * 100 + next(x); }"));
  // convert: 55 (5 itself before it), 95, 29, 22, 22.
  const ref::Evaluator::Result r = ev.scan(bytes.data(), n);
  std::vector<uint32_t> inclusive(n);
  std::memcpy(inclusive.data(), r.inclusive.data(), r.inclusive.size());
  CHECK(inclusive == std::vector<uint32_t>{55, 150, 179, 201, 223});
  std::vector<uint32_t> next(n + 1, 0xFFFF), sides(n + 1, 0xFFFF);
  const std::vector<uint64_t> written = ev.scatter_all(bytes.data(), n, {next.data(), sides.data()});
  CHECK(written == std::vector<uint64_t>{5, 3});
  CHECK(next == std::vector<uint32_t>{9, 2, 2, 2, 2, 0xFFFF});  // the last element's next is itself
  // prev(x) != next(x) at 0 (5, 9), 1 (5, 2) and 2 (9, 2); not at 3 (2, 2) or 4 (2, itself).
  CHECK(sides == std::vector<uint32_t>{509, 502, 902, 0xFFFF, 0xFFFF, 0xFFFF});
}
