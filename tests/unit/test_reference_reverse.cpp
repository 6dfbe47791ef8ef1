// The CPU reference of reverse scans with run-time segments and shapes: each
// segment, row or line scanned from its last element is the forward scan of
// the flipped array (and flipped segment structure), flipped back; the
// segment aggregates stay in forward segment order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"
#include "spec_support.h"

namespace dsl = scangen::dsl;
namespace ref = scangen::ref;
using scangen::test::spec_of;

namespace {

// A non-commutative, exact operator: affine maps of u32 (x first).
const char* kAffine =
    "type Aff { a: u32, b: u32 }\n"
    "scan s { type = Aff; combine(x, y) = Aff { a: y.a * x.a, b: y.a * x.b + y.b }; identity = Aff { a: 1, b: 0 };"
    " init = Aff { a: 3, b: 5 }; level = device; mode = both; ";

dsl::Spec affine(const std::string& settings, bool reverse) {
  return spec_of(std::string(kAffine) + settings + (reverse ? " reverse = true; }" : " }"));
}

uint64_t test_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// Elements of `size` bytes in reverse order.
std::vector<uint8_t> flip(const std::vector<uint8_t>& v, size_t size) {
  std::vector<uint8_t> out(v.size());
  const size_t n = v.size() / size;
  for (size_t i = 0; i < n; ++i) std::memcpy(out.data() + (n - 1 - i) * size, v.data() + i * size, size);
  return out;
}

// Segment structures: empty ranges, length 1, one range, random lengths.
std::vector<ref::Evaluator::Range> random_ranges(uint64_t n, std::mt19937_64& rng) {
  std::vector<ref::Evaluator::Range> r;
  std::uniform_int_distribution<uint64_t> len(0, 4);
  for (uint64_t at = 0; at < n || r.empty();) {
    const uint64_t end = std::min(n, at + len(rng));
    r.push_back({at, end});
    at = end;
  }
  return r;
}

}  // namespace

TEST_CASE("reference: a reverse segmented scan is flip, forward segmented scan, flip", "[reference][reverse]") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const dsl::Spec fwd = affine("segments = offsets; outputs = aggregate;", false);
  const dsl::Spec rev = affine("segments = offsets; outputs = aggregate;", true);
  const ref::Evaluator f(fwd), r(rev);
  const size_t es = fwd.type.size();
  for (uint64_t n : {0, 1, 2, 7, 100}) {
    std::vector<uint8_t> in(n * es);
    ref::fill_random(fwd.input, in.data(), n, rng);
    const std::vector<ref::Evaluator::Range> ranges = random_ranges(n, rng);
    std::vector<ref::Evaluator::Range> flipped;  // the flipped array's segments, in its order
    for (size_t s = ranges.size(); s-- > 0;) flipped.push_back({n - ranges[s].end, n - ranges[s].begin});
    const ref::Evaluator::Result want = f.scan_ranges(flip(in, es).data(), n, flipped);
    const ref::Evaluator::Result got = r.scan_ranges(in.data(), n, ranges);
    INFO("n = " << n << ", " << ranges.size() << " segments");
    CHECK(got.inclusive == flip(want.inclusive, es));
    CHECK(got.exclusive == flip(want.exclusive, es));
    CHECK(got.aggregates == flip(want.aggregates, es));  // one per segment, in the array's segment order
  }
}

TEST_CASE("reference: reverse scans by flags restart at each segment's last element", "[reference][reverse]") {
  // docs/dsl.md's example: [3 1 | 7 0 4], flags 1 0 1 0 0.
  const dsl::Spec spec =
      spec_of("scan s { type = i32; op = add; level = device; mode = both; segments = flags; reverse = true; }");
  const ref::Evaluator ev(spec);
  const int32_t in[5] = {3, 1, 7, 0, 4};
  const uint8_t flags[5] = {1, 0, 1, 0, 0};
  const ref::Evaluator::Result r = ev.scan_ranges(in, 5, ref::ranges_from_flags(flags, 5));
  std::vector<int32_t> inc(5), exc(5);
  std::memcpy(inc.data(), r.inclusive.data(), 20);
  std::memcpy(exc.data(), r.exclusive.data(), 20);
  CHECK(inc == std::vector<int32_t>{4, 1, 11, 4, 4});
  CHECK(exc == std::vector<int32_t>{1, 0, 4, 4, 0});
}

TEST_CASE("reference: reverse rows and lines are flip, forward scan, flip along the axis", "[reference][reverse]") {
  const uint64_t seed = test_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const dsl::Spec fwd = affine("shape = strided; outputs = aggregate;", false);
  const dsl::Spec rev = affine("shape = strided; outputs = aggregate;", true);
  const ref::Evaluator f(fwd), r(rev);
  const size_t es = fwd.type.size();
  // A dense (3, 5, 4) array, every axis: flipping the axis is a strided view of the flipped copy.
  const uint64_t ext[3] = {3, 5, 4}, str[3] = {20, 4, 1};
  std::vector<uint8_t> in(60 * es);
  ref::fill_random(fwd.input, in.data(), 60, rng);
  for (int axis = 0; axis < 3; ++axis) {
    INFO("axis " << axis);
    std::vector<uint8_t> flipped(in.size());
    for (uint64_t i = 0; i < 60; ++i) {
      const uint64_t c[3] = {i / 20, i / 4 % 5, i % 4};
      uint64_t j = 0;
      for (int d = 0; d < 3; ++d) j += (d == axis ? ext[d] - 1 - c[d] : c[d]) * str[d];
      std::memcpy(flipped.data() + j * es, in.data() + i * es, es);
    }
    const ref::Evaluator::Result want = f.scan_strided(flipped.data(), 3, ext, str, axis);
    const ref::Evaluator::Result got = r.scan_strided(in.data(), 3, ext, str, axis);
    std::vector<uint8_t> back(want.inclusive.size()), back_exc(want.exclusive.size());
    for (uint64_t i = 0; i < 60; ++i) {
      const uint64_t c[3] = {i / 20, i / 4 % 5, i % 4};
      uint64_t j = 0;
      for (int d = 0; d < 3; ++d) j += (d == axis ? ext[d] - 1 - c[d] : c[d]) * str[d];
      std::memcpy(back.data() + j * es, want.inclusive.data() + i * es, es);
      std::memcpy(back_exc.data() + j * es, want.exclusive.data() + i * es, es);
    }
    CHECK(got.inclusive == back);
    CHECK(got.exclusive == back_exc);
    CHECK(got.aggregates == want.aggregates);  // one per line, the same order
  }
  // rows with a gap between them: row r reversed is the forward scan of the reversed row.
  const uint64_t rows = 4, length = 6, stride = 9;
  std::vector<uint8_t> padded(rows * stride * es), reversed(padded.size());
  ref::fill_random(fwd.input, padded.data(), rows * stride, rng);
  reversed = padded;
  for (uint64_t row = 0; row < rows; ++row)
    for (uint64_t c = 0; c < length; ++c)
      std::memcpy(reversed.data() + (row * stride + length - 1 - c) * es, padded.data() + (row * stride + c) * es, es);
  const ref::Evaluator::Result want = f.scan_rows(reversed.data(), rows, length, stride);
  const ref::Evaluator::Result got = r.scan_rows(padded.data(), rows, length, stride);
  std::vector<uint8_t> back(want.inclusive.size());
  for (uint64_t row = 0; row < rows; ++row)
    for (uint64_t c = 0; c < length; ++c)
      std::memcpy(back.data() + (row * length + length - 1 - c) * es, want.inclusive.data() + (row * length + c) * es,
                  es);
  CHECK(got.inclusive == back);
  CHECK(got.aggregates == want.aggregates);
}

TEST_CASE("the checker takes reverse = true with every segment form and shape", "[dsl][reverse]") {
  for (const char* setting : {"segments = flags; outputs = aggregate;", "segments = offsets; offset = i64;",
                              "segments = keys; key = u64; outputs = aggregate; mode = both;", "shape = rows;",
                              "shape = strided; outputs = aggregate;"}) {
    INFO(setting);
    const dsl::Spec spec =
        spec_of(std::string("scan s { type = i32; op = add; level = device; reverse = true; ") + setting + " }");
    CHECK(spec.reverse);
    CHECK((spec.segments != dsl::Segments::None || spec.shape != dsl::Shape::Flat));
  }
  // What still does not go with a shape is named, reverse or not.
  const dsl::Document doc = dsl::load("s.scan",
                                      "scan s { type = i32; op = add; level = device; reverse = true; shape = rows; "
                                      "segments = flags; }");
  CHECK_FALSE(doc.ok());
  CHECK(doc.diagnostics().render().find("'segments' is not yet generated together with 'shape = rows'") !=
        std::string::npos);
}
