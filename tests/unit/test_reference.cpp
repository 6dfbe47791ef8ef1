// Unit tests of the CPU reference (scangen::ref): every expected value is
// computed by hand or by a plain loop written here, never by the reference.

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"
#include "spec_support.h"

namespace dsl = scangen::dsl;
namespace ref = scangen::ref;

namespace {

// ---- helpers -------------------------------------------------------------------

using scangen::test::spec_of;

template <class T>
std::vector<uint8_t> pack(const std::vector<T>& values) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <class T>
std::vector<T> unpack(const std::vector<uint8_t>& bytes) {
  static_assert(std::is_trivially_copyable_v<T>);
  REQUIRE(bytes.size() % sizeof(T) == 0);
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

template <class T>
T unpack_one(const std::vector<uint8_t>& bytes) {
  REQUIRE(bytes.size() == sizeof(T));
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

// Runs the reference on `input` (elements of the Spec's input type).
template <class In>
ref::Evaluator::Result run(const ref::Evaluator& ev, const std::vector<In>& input,
                           const void* running_total = nullptr) {
  REQUIRE(ev.input_size() == sizeof(In));
  std::vector<uint8_t> bytes = pack(input);
  return ev.scan(bytes.empty() ? nullptr : bytes.data(), input.size(), running_total);
}

// combine(x, y) of one Evaluator on host values.
template <class T>
T combine(const ref::Evaluator& ev, T x, T y) {
  REQUIRE(ev.element_size() == sizeof(T));
  T out{};
  ev.combine(&x, &y, &out);
  return out;
}

template <class Out, class In>
Out convert(const ref::Evaluator& ev, In in) {
  REQUIRE(ev.input_size() == sizeof(In));
  REQUIRE(ev.element_size() == sizeof(Out));
  Out out{};
  ev.convert(&in, &out);
  return out;
}

template <class T>
T identity_of(const ref::Evaluator& ev) {
  REQUIRE(ev.element_size() == sizeof(T));
  T out{};
  ev.identity(&out);
  return out;
}

// The byte offsets of a Spec type's scalar leaves, to check a C++ mirror struct.
std::vector<size_t> leaf_offsets(const dsl::Type& t) {
  std::vector<size_t> out;
  for (const dsl::ScalarSlot& s : dsl::flatten(t)) out.push_back(s.offset);
  return out;
}

template <class T>
std::vector<T> iota_vec(size_t n, T first) {
  std::vector<T> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

bool contains_text(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// An independent binary16 decoder: (-1)^s * 2^(e-15) * 1.m, or 2^-14 * 0.m.
double decode_half(uint16_t h) {
  int sign = (h >> 15) & 1;
  int e = (h >> 10) & 0x1F;
  int m = h & 0x3FF;
  double v;
  if (e == 0x1F)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0)
    v = std::ldexp(static_cast<double>(m), -24);
  else
    v = std::ldexp(static_cast<double>(m + 1024), e - 25);
  return sign ? -v : v;
}

// ---- C++ mirrors of the DSL structs used below -------------------------------

struct Mat2 {
  float a, b, c, d;
};
bool operator==(const Mat2& x, const Mat2& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }
std::ostream& operator<<(std::ostream& os, const Mat2& m) {
  return os << "[[" << m.a << ", " << m.b << "], [" << m.c << ", " << m.d << "]]";
}

struct Affine {
  float a, b;
};

struct ArgMax {
  float value;
  int32_t index;
};
bool operator==(const ArgMax& x, const ArgMax& y) { return x.value == y.value && x.index == y.index; }
std::ostream& operator<<(std::ostream& os, const ArgMax& m) { return os << "(" << m.value << " @" << m.index << ")"; }

struct Seg {
  uint32_t flag;
  float value;
};
bool operator==(const Seg& x, const Seg& y) { return x.flag == y.flag && x.value == y.value; }
std::ostream& operator<<(std::ostream& os, const Seg& s) { return os << "(" << s.flag << ", " << s.value << ")"; }

struct Pair {
  int32_t sum;
  int32_t count;
};
bool operator==(const Pair& x, const Pair& y) { return x.sum == y.sum && x.count == y.count; }
std::ostream& operator<<(std::ostream& os, const Pair& p) { return os << "(" << p.sum << ", " << p.count << ")"; }

const char* const kMatrixScan =
    "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\n"
    "scan matrix_product {\n"
    "  type = Mat2;\n"
    "  combine(x, y) {\n"
    "    return Mat2 {\n"
    "      a: x.a * y.a + x.b * y.c,\n"
    "      b: x.a * y.b + x.b * y.d,\n"
    "      c: x.c * y.a + x.d * y.c,\n"
    "      d: x.c * y.b + x.d * y.d,\n"
    "    };\n"
    "  }\n"
    "  identity = Mat2 { 1.0, 0.0, 0.0, 1.0 };\n"
    "  level = block;\n"
    "  threads = 128;\n"
    "  items = 4;\n"
    "  mode = both;\n"
    "  outputs = aggregate;\n"
    "}\n";

const char* const kAffineScan =
    "type Affine { a: f32, b: f32 }\n"
    "scan affine_recurrence {\n"
    "  type = Affine;\n"
    "  combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };\n"
    "  identity = Affine { a: 1.0, b: 0.0 };\n"
    "  level = device;\n"
    "}\n";

const char* const kArgMaxScan =
    "type ArgMax { value: f32, index: i32 }\n"
    "scan running_argmax {\n"
    "  type = ArgMax;\n"
    "  combine(x, y) = y.value > x.value ? y : x;\n"
    "  identity = ArgMax { value: -inf, index: -1 };\n"
    "  level = device;\n"
    "  mode = both;\n"
    "  outputs = aggregate;\n"
    "}\n";

const char* const kSegmentedScan =
    "type Seg { flag: u32, value: f32 }\n"
    "scan segmented_sum {\n"
    "  type = Seg;\n"
    "  combine(x, y) {\n"
    "    let starts: bool = y.flag != 0;\n"
    "    return Seg { flag: x.flag | y.flag, value: starts ? y.value : x.value + y.value };\n"
    "  }\n"
    "  identity = Seg { flag: 0, value: 0.0 };\n"
    "  level = block;\n"
    "  threads = 256;\n"
    "  items = 8;\n"
    "}\n";

}  // namespace

// ===========================================================================
// Levels and modes
// ===========================================================================

TEST_CASE("reference: the OpenCL C specification's work_group_scan example", "[reference][levels]") {
  dsl::Spec spec =
      spec_of("scan work_group_scan_add { type = i32; op = add; level = block; threads = 8; items = 1; mode = both; }");
  ref::Evaluator ev(spec);
  ref::Evaluator::Result r = run<int32_t>(ev, {3, 1, 7, 0, 4, 1, 6, 3});
  // 3, 3+1, 4+7, 11+0, 11+4, 15+1, 16+6, 22+3
  CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{3, 4, 11, 11, 15, 16, 22, 25});
  CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{0, 3, 4, 11, 11, 15, 16, 22});
  CHECK(r.aggregates.empty());
  CHECK(r.running_total.empty());

  // Two work-groups: the second restarts from 0.
  r = run<int32_t>(ev, {3, 1, 7, 0, 4, 1, 6, 3, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{3, 4, 11, 11, 15, 16, 22, 25, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{0, 3, 4, 11, 11, 15, 16, 22, 0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("reference: warp(4) with items = 2 restarts every 8 elements", "[reference][levels]") {
  dsl::Spec spec =
      spec_of("scan w { type = i32; op = add; level = warp(4); items = 2; mode = both; outputs = aggregate; }");
  REQUIRE(spec.segment_size() == 8u);
  ref::Evaluator ev(spec);
  // All ones: inclusive[i] = i % 8 + 1, exclusive[i] = i % 8; 20 elements = 8 + 8 + 4.
  ref::Evaluator::Result r = run(ev, std::vector<int32_t>(20, 1));
  std::vector<int32_t> incl = unpack<int32_t>(r.inclusive), excl = unpack<int32_t>(r.exclusive);
  REQUIRE(incl.size() == 20);
  REQUIRE(excl.size() == 20);
  for (size_t i = 0; i < 20; ++i) {
    INFO("i = " << i);
    CHECK(incl[i] == static_cast<int32_t>(i % 8 + 1));
    CHECK(excl[i] == static_cast<int32_t>(i % 8));
  }
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{8, 8, 4});

  // Distinct values: 1..20; segment sums 36, 100, 74.
  r = run(ev, iota_vec<int32_t>(20, 1));
  CHECK(unpack<int32_t>(r.inclusive) ==
        std::vector<int32_t>{1, 3, 6, 10, 15, 21, 28, 36, 9, 19, 30, 42, 55, 69, 84, 100, 17, 35, 54, 74});
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{36, 100, 74});
}

TEST_CASE("reference: block threads = 4, items = 3 restarts every 12, with a partial last segment",
          "[reference][levels]") {
  dsl::Spec spec = spec_of(
      "scan b { type = i32; op = add; level = block; threads = 4; items = 3; mode = both; outputs = aggregate; }");
  REQUIRE(spec.segment_size() == 12u);
  ref::Evaluator ev(spec);
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> dist(-1000, 1000);
  std::vector<int32_t> in(30);  // 12 + 12 + 6
  for (int32_t& v : in) v = dist(rng);
  ref::Evaluator::Result r = run(ev, in);
  // The expected values by a plain loop over segments.
  std::vector<int32_t> incl(in.size()), excl(in.size()), aggs;
  for (size_t begin = 0; begin < in.size(); begin += 12) {
    int32_t acc = 0;
    for (size_t i = begin; i < std::min(in.size(), begin + 12); ++i) {
      excl[i] = acc;
      acc += in[i];
      incl[i] = acc;
    }
    aggs.push_back(acc);
  }
  CHECK(unpack<int32_t>(r.inclusive) == incl);
  CHECK(unpack<int32_t>(r.exclusive) == excl);
  CHECK(unpack<int32_t>(r.aggregates) == aggs);
  REQUIRE(aggs.size() == 3);

  // Fixed values for the partial segment: 1..30.
  r = run(ev, iota_vec<int32_t>(30, 1));
  std::vector<int32_t> got = unpack<int32_t>(r.inclusive);
  CHECK(got[11] == 78);   // 1 + ... + 12
  CHECK(got[12] == 13);   // restart
  CHECK(got[23] == 222);  // 13 + ... + 24
  CHECK(got[24] == 25);
  CHECK(got[29] == 165);  // 25 + ... + 30
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{78, 222, 165});
}

TEST_CASE("reference: device level scans the whole array as one", "[reference][levels]") {
  dsl::Spec spec = spec_of("scan d { type = i64; op = add; mode = both; outputs = aggregate; }");
  ref::Evaluator ev(spec);
  const size_t n = 5000;
  ref::Evaluator::Result r = run(ev, iota_vec<int64_t>(n, 1));
  std::vector<int64_t> incl = unpack<int64_t>(r.inclusive), excl = unpack<int64_t>(r.exclusive);
  REQUIRE(incl.size() == n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = static_cast<int64_t>(i) + 1;
    if (incl[i] != k * (k + 1) / 2 || excl[i] != (k - 1) * k / 2) {
      FAIL("at " << i << ": inclusive " << incl[i] << ", exclusive " << excl[i]);
    }
  }
  CHECK(unpack<int64_t>(r.aggregates) == std::vector<int64_t>{5000 * 5001 / 2});
}

TEST_CASE("reference: n = 0 and n = 1", "[reference][levels]") {
  SECTION("device") {
    ref::Evaluator ev(spec_of("scan d { type = i32; op = max; mode = both; outputs = aggregate; }"));
    ref::Evaluator::Result r = ev.scan(nullptr, 0);
    CHECK(r.inclusive.empty());
    CHECK(r.exclusive.empty());
    // The whole (empty) array has one total: the identity of max on i32.
    CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{std::numeric_limits<int32_t>::min()});
    r = run<int32_t>(ev, {-7});
    CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{-7});
    CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{std::numeric_limits<int32_t>::min()});
    CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{-7});
  }
  SECTION("block") {
    ref::Evaluator ev(
        spec_of("scan b { type = i32; op = add; level = block; threads = 4; mode = both; outputs = aggregate; }"));
    ref::Evaluator::Result r = ev.scan(nullptr, 0);
    CHECK(r.inclusive.empty());
    CHECK(r.exclusive.empty());
    CHECK(r.aggregates.empty());  // no segment at all
    r = run<int32_t>(ev, {42});
    CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{42});
    CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{0});
    CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{42});
  }
  SECTION("running total with nothing to add") {
    ref::Evaluator ev(spec_of("scan r { type = i32; op = add; outputs = running_total; }"));
    const int32_t in = 17;
    ref::Evaluator::Result r = ev.scan(nullptr, 0, &in);
    CHECK(unpack_one<int32_t>(r.running_total) == 17);
  }
}

TEST_CASE("reference: init seeds every segment, aggregates exclude it", "[reference][modes]") {
  dsl::Spec spec = spec_of(
      "scan s { type = i32; op = add; level = block; threads = 2; items = 2; mode = both; init = 10;"
      " outputs = aggregate; }");
  ref::Evaluator ev(spec);
  int32_t init = 0;
  ev.init(&init);
  CHECK(init == 10);
  CHECK(identity_of<int32_t>(ev) == 0);
  ref::Evaluator::Result r = run<int32_t>(ev, {1, 2, 3, 4, 5, 6});
  // Segments [1 2 3 4] and [5 6], each from 10.
  CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{10, 11, 13, 16, 10, 15});
  CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{11, 13, 16, 20, 15, 21});
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{10, 11});

  // Exclusive only, at device level, with a non-commutative-looking init for max.
  ref::Evaluator ex(spec_of("scan e { type = i32; op = max; mode = exclusive; init = 5; outputs = aggregate; }"));
  r = run<int32_t>(ex, {3, 9, 1, 4});
  CHECK(r.inclusive.empty());
  CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{5, 5, 9, 9});
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{9});
  r = run<int32_t>(ex, {1, 2});
  CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{5, 5});
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{2});  // the total of the input alone
}

TEST_CASE("reference: init_applies_to = exclusive seeds the exclusive results alone (rocPRIM's warp_scan::scan)",
          "[reference][modes]") {
  // rocPRIM's documented example: a warp of 32 lanes scanning ones with init 10 gets inclusive {1, 2, ..., 32}
  // and exclusive {10, 11, ..., 41}.
  ref::Evaluator ev(
      spec_of("scan s { type = i32; op = add; level = warp; mode = both; init = 10; init_applies_to = exclusive;"
              " outputs = aggregate; }"));
  ref::Evaluator::Result r = run<int32_t>(ev, std::vector<int32_t>(32, 1));
  std::vector<int32_t> inclusive(32), exclusive(32);
  for (int i = 0; i < 32; ++i) {
    inclusive[static_cast<size_t>(i)] = i + 1;
    exclusive[static_cast<size_t>(i)] = 10 + i;
  }
  CHECK(unpack<int32_t>(r.inclusive) == inclusive);
  CHECK(unpack<int32_t>(r.exclusive) == exclusive);
  CHECK(unpack<int32_t>(r.aggregates) == std::vector<int32_t>{32});

  // A non-commutative operator (affine maps, the earlier applied first): init goes on the left of the
  // unseeded prefix, and each segment of 4 restarts.
  struct Aff {
    int32_t a, b;
    bool operator==(const Aff& o) const { return a == o.a && b == o.b; }
  };
  ref::Evaluator aff(spec_of(
      "type Aff { a: i32, b: i32 }\n"
      "scan f { type = Aff; combine(x, y) = Aff { a: y.a * x.a, b: y.a * x.b + y.b }; identity = Aff { a: 1, b: 0 };"
      " level = block; threads = 2; items = 2; mode = both; init = Aff { a: 2, b: 3 };"
      " init_applies_to = exclusive; }"));
  const std::vector<Aff> x = {{2, 1}, {3, -1}, {-1, 4}, {5, 0}, {2, 2}};
  auto compose = [](Aff p, Aff q) { return Aff{q.a * p.a, q.a * p.b + q.b}; };
  std::vector<Aff> inc, exc;
  for (size_t seg = 0; seg < x.size(); seg += 4) {
    Aff p{1, 0};
    for (size_t i = seg; i < std::min(x.size(), seg + 4); ++i) {
      exc.push_back(compose({2, 3}, p));
      p = compose(p, x[i]);
      inc.push_back(p);
    }
  }
  r = run<Aff>(aff, x);
  CHECK(unpack<Aff>(r.inclusive) == inc);
  CHECK(unpack<Aff>(r.exclusive) == exc);
}

TEST_CASE("reference: running_total at device level carries across calls", "[reference][modes]") {
  dsl::Spec spec = spec_of("scan r { type = i32; op = add; mode = both; outputs = running_total, aggregate; }");
  ref::Evaluator ev(spec);
  ref::Evaluator::Result first = run<int32_t>(ev, {1, 2, 3});
  CHECK(unpack<int32_t>(first.inclusive) == std::vector<int32_t>{1, 3, 6});
  CHECK(unpack<int32_t>(first.exclusive) == std::vector<int32_t>{0, 1, 3});
  CHECK(unpack<int32_t>(first.aggregates) == std::vector<int32_t>{6});
  const int32_t total = unpack_one<int32_t>(first.running_total);
  CHECK(total == 6);

  ref::Evaluator::Result second = run<int32_t>(ev, {4, 5}, &total);
  CHECK(unpack<int32_t>(second.inclusive) == std::vector<int32_t>{10, 15});
  CHECK(unpack<int32_t>(second.exclusive) == std::vector<int32_t>{6, 10});
  CHECK(unpack<int32_t>(second.aggregates) == std::vector<int32_t>{9});  // this call's input only
  CHECK(unpack_one<int32_t>(second.running_total) == 15);

  // Splitting the array anywhere gives the one-call result.
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<int32_t> all(100);
  for (int32_t& v : all) v = static_cast<int32_t>(rng() % 201) - 100;
  std::vector<int32_t> expect(all.size());
  std::partial_sum(all.begin(), all.end(), expect.begin());
  const size_t cut = static_cast<size_t>(rng() % all.size());
  CAPTURE(cut);
  ref::Evaluator::Result a = run(ev, std::vector<int32_t>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut)));
  const int32_t carry = unpack_one<int32_t>(a.running_total);
  ref::Evaluator::Result b =
      run(ev, std::vector<int32_t>(all.begin() + static_cast<std::ptrdiff_t>(cut), all.end()), &carry);
  std::vector<int32_t> joined = unpack<int32_t>(a.inclusive);
  std::vector<int32_t> tail = unpack<int32_t>(b.inclusive);
  joined.insert(joined.end(), tail.begin(), tail.end());
  CHECK(joined == expect);
  CHECK(unpack_one<int32_t>(b.running_total) == expect.back());
}

TEST_CASE("reference: running_total at block level absorbs segment totals in order", "[reference][modes]") {
  dsl::Spec spec = spec_of(
      "scan r { type = u32; op = add; level = block; threads = 2; items = 1; mode = both;"
      " outputs = aggregate, running_total; }");
  ref::Evaluator ev(spec);
  const uint32_t counter = 100;
  ref::Evaluator::Result r = run<uint32_t>(ev, {1, 2, 3, 4, 5}, &counter);
  // Segments [1 2] [3 4] [5], each from the counter, which then adds the segment's total.
  CHECK(unpack<uint32_t>(r.inclusive) == std::vector<uint32_t>{101, 103, 106, 110, 115});
  CHECK(unpack<uint32_t>(r.exclusive) == std::vector<uint32_t>{100, 101, 103, 106, 110});
  CHECK(unpack<uint32_t>(r.aggregates) == std::vector<uint32_t>{3, 7, 5});
  CHECK(unpack_one<uint32_t>(r.running_total) == 115u);

  // Without a counter value: starts from 0. The counter wraps like any u32.
  r = run<uint32_t>(ev, {7});
  CHECK(unpack_one<uint32_t>(r.running_total) == 7u);
  const uint32_t near_max = 0xFFFFFFFEu;
  r = run<uint32_t>(ev, {1, 2, 3}, &near_max);
  CHECK(unpack<uint32_t>(r.inclusive) == std::vector<uint32_t>{0xFFFFFFFFu, 1u, 4u});
  CHECK(unpack_one<uint32_t>(r.running_total) == 4u);
}

// ===========================================================================
// Input conversion
// ===========================================================================

TEST_CASE("reference: u8 input summed in a u32 accumulator", "[reference][convert]") {
  dsl::Spec spec =
      spec_of("scan byte_sum { type = u32; input = u8; op = add; level = device; mode = both; outputs = aggregate; }");
  ref::Evaluator ev(spec);
  REQUIRE(ev.input_size() == 1u);
  REQUIRE(ev.element_size() == 4u);
  ref::Evaluator::Result r = run(ev, std::vector<uint8_t>(10, 255));
  std::vector<uint32_t> incl = unpack<uint32_t>(r.inclusive);
  REQUIRE(incl.size() == 10);
  for (size_t i = 0; i < 10; ++i) CHECK(incl[i] == 255u * static_cast<uint32_t>(i + 1));
  CHECK(unpack<uint32_t>(r.exclusive).front() == 0u);
  CHECK(unpack<uint32_t>(r.exclusive).back() == 2295u);
  CHECK(unpack<uint32_t>(r.aggregates) == std::vector<uint32_t>{2550u});
  CHECK(convert<uint32_t, uint8_t>(ev, 200) == 200u);

  // A signed byte converts by value: i8 -1 becomes i32 -1.
  ref::Evaluator s(spec_of("scan s { type = i32; input = i8; op = add; }"));
  r = run<int8_t>(s, {-1, -128, 127});
  CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{-1, -129, -2});
  // u32 from i8 wraps: -1 is 0xFFFFFFFF.
  ref::Evaluator w(spec_of("scan w { type = u32; input = i8; op = add; }"));
  CHECK(convert<uint32_t, int8_t>(w, -1) == 0xFFFFFFFFu);
}

TEST_CASE("reference: an explicit convert from a scalar to a struct", "[reference][convert]") {
  dsl::Spec spec = spec_of(
      "type Pair { sum: i32, count: i32 }\n"
      "scan mean {\n"
      "  type = Pair; input = i32;\n"
      "  convert(v) = Pair { sum: v * 2, count: 1 };\n"
      "  combine(x, y) = Pair { sum: x.sum + y.sum, count: x.count + y.count };\n"
      "  identity = Pair { 0, 0 };\n"
      "  mode = both;\n"
      "}\n");
  REQUIRE(spec.type.size() == sizeof(Pair));
  REQUIRE(leaf_offsets(spec.type) == std::vector<size_t>{offsetof(Pair, sum), offsetof(Pair, count)});
  ref::Evaluator ev(spec);
  CHECK(convert<Pair, int32_t>(ev, 21) == Pair{42, 1});
  ref::Evaluator::Result r = run<int32_t>(ev, {5, -3, 7});
  CHECK(unpack<Pair>(r.inclusive) == std::vector<Pair>{{10, 1}, {4, 2}, {18, 3}});
  CHECK(unpack<Pair>(r.exclusive) == std::vector<Pair>{{0, 0}, {10, 1}, {4, 2}});
}

// ===========================================================================
// Scalar semantics
// ===========================================================================

TEST_CASE("reference: integer arithmetic wraps at the type's width", "[reference][scalars]") {
  SECTION("i32 add: INT32_MAX + 1 == INT32_MIN") {
    ref::Evaluator ev(spec_of("scan s { type = i32; op = add; }"));
    ref::Evaluator::Result r = run<int32_t>(ev, {std::numeric_limits<int32_t>::max(), 1, -1});
    CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{std::numeric_limits<int32_t>::max(),
                                                               std::numeric_limits<int32_t>::min(),
                                                               std::numeric_limits<int32_t>::max()});
  }
  SECTION("i8 mul") {
    ref::Evaluator ev(spec_of("scan s { type = i8; op = mul; }"));
    // 16 * 16 = 256 = 0 (mod 256); 100 * 3 = 300 = 44; 44 * -1 = -44; -128 * -1 = 128 = -128.
    CHECK(unpack<int8_t>(run<int8_t>(ev, {16, 16, 3}).inclusive) == std::vector<int8_t>{16, 0, 0});
    CHECK(unpack<int8_t>(run<int8_t>(ev, {100, 3, -1}).inclusive) == std::vector<int8_t>{100, 44, -44});
    CHECK(unpack<int8_t>(run<int8_t>(ev, {-128, -1}).inclusive) == std::vector<int8_t>{-128, -128});
    CHECK(combine<int8_t>(ev, 127, 127) == 1);  // 16129 = 63 * 256 + 1
  }
  SECTION("u16 sub") {
    ref::Evaluator ev(spec_of("scan s { type = u16; combine(x, y) = x - y; identity = 0; }"));
    CHECK(combine<uint16_t>(ev, 0, 1) == 65535);
    CHECK(combine<uint16_t>(ev, 3, 65535) == 4);
    CHECK(combine<uint16_t>(ev, 1000, 1) == 999);
  }
  SECTION("u8 add and i16 negation") {
    ref::Evaluator u(spec_of("scan s { type = u8; op = add; }"));
    CHECK(combine<uint8_t>(u, 200, 100) == 44);
    ref::Evaluator n(spec_of("scan s { type = i16; combine(x, y) = -x + y; identity = 0; }"));
    CHECK(combine<int16_t>(n, std::numeric_limits<int16_t>::min(), 0) == std::numeric_limits<int16_t>::min());
    CHECK(combine<int16_t>(n, 5, 0) == -5);
  }
  SECTION("u64 and i64 at their limits") {
    ref::Evaluator u(spec_of("scan s { type = u64; op = add; }"));
    CHECK(combine<uint64_t>(u, std::numeric_limits<uint64_t>::max(), 2) == 1u);
    ref::Evaluator i(spec_of("scan s { type = i64; op = mul; }"));
    CHECK(combine<int64_t>(i, std::numeric_limits<int64_t>::min(), -1) == std::numeric_limits<int64_t>::min());
    CHECK(combine<int64_t>(i, int64_t{1} << 62, 4) == 0);
  }
}

TEST_CASE("reference: shift counts are taken modulo the width", "[reference][scalars]") {
  ref::Evaluator lit(spec_of("scan s { type = i32; combine(x, y) = (x << 33) + y; identity = 0; }"));
  CHECK(combine<int32_t>(lit, 5, 0) == 10);  // x << 33 == x << 1
  CHECK(combine<int32_t>(lit, -3, 1) == -5);

  ref::Evaluator shl(spec_of("scan s { type = i32; combine(x, y) = x << y; identity = 0; }"));
  CHECK(combine<int32_t>(shl, 3, 33) == 6);
  CHECK(combine<int32_t>(shl, 3, 32) == 3);
  CHECK(combine<int32_t>(shl, 3, 64) == 3);
  CHECK(combine<int32_t>(shl, 1, 31) == std::numeric_limits<int32_t>::min());
  CHECK(combine<int32_t>(shl, 3, -1) == std::numeric_limits<int32_t>::min());  // -1 & 31 == 31; 3 << 31 wraps

  ref::Evaluator sar(spec_of("scan s { type = i32; combine(x, y) = x >> y; identity = 0; }"));
  CHECK(combine<int32_t>(sar, -8, 33) == -4);  // arithmetic shift for signed
  CHECK(combine<int32_t>(sar, -8, 1) == -4);
  CHECK(combine<int32_t>(sar, std::numeric_limits<int32_t>::min(), 31) == -1);

  ref::Evaluator shr(spec_of("scan s { type = u32; combine(x, y) = x >> y; identity = 0; }"));
  CHECK(combine<uint32_t>(shr, 0x80000000u, 35) == 0x10000000u);  // logical shift, 35 & 31 == 3
  ref::Evaluator u8s(spec_of("scan s { type = u8; combine(x, y) = x << y; identity = 0; }"));
  CHECK(combine<uint8_t>(u8s, 0x81, 9) == 0x02);  // 9 & 7 == 1; the high bit falls off
}

TEST_CASE("reference: integer division by zero, and MIN / -1", "[reference][scalars]") {
  ref::Evaluator div(spec_of("scan s { type = i32; combine(x, y) = x / y; identity = 1; }"));
  const int32_t min = std::numeric_limits<int32_t>::min();
  CHECK(combine<int32_t>(div, 7, 0) == 0);
  CHECK(combine<int32_t>(div, min, 0) == 0);
  CHECK(combine<int32_t>(div, min, -1) == min);
  CHECK(combine<int32_t>(div, 7, -2) == -3);  // truncation toward zero
  CHECK(combine<int32_t>(div, -7, 2) == -3);
  ref::Evaluator rem(spec_of("scan s { type = i32; combine(x, y) = x % y; identity = 1; }"));
  CHECK(combine<int32_t>(rem, 7, 0) == 0);
  CHECK(combine<int32_t>(rem, min, -1) == 0);
  CHECK(combine<int32_t>(rem, -7, 2) == -1);  // the sign of the dividend
  CHECK(combine<int32_t>(rem, 7, -2) == 1);
  ref::Evaluator udiv(spec_of("scan s { type = u32; combine(x, y) = x / y; identity = 1; }"));
  CHECK(combine<uint32_t>(udiv, 0xFFFFFFFFu, 2) == 0x7FFFFFFFu);  // unsigned, not -1 / 2
  CHECK(combine<uint32_t>(udiv, 5, 0) == 0u);
}

TEST_CASE("reference: float to integer conversion saturates, NaN gives 0", "[reference][scalars][convert]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const int32_t imax = std::numeric_limits<int32_t>::max(), imin = std::numeric_limits<int32_t>::min();
  SECTION("convert(v) = i32(v) from f32") {
    ref::Evaluator ev(spec_of("scan s { type = i32; input = f32; convert(v) = i32(v); op = add; }"));
    CHECK(convert<int32_t, float>(ev, 2.9f) == 2);
    CHECK(convert<int32_t, float>(ev, -2.9f) == -2);  // toward zero
    CHECK(convert<int32_t, float>(ev, 1e10f) == imax);
    CHECK(convert<int32_t, float>(ev, -1e10f) == imin);
    CHECK(convert<int32_t, float>(ev, inf) == imax);
    CHECK(convert<int32_t, float>(ev, -inf) == imin);
    CHECK(convert<int32_t, float>(ev, nan) == 0);
    CHECK(convert<int32_t, float>(ev, 2147483648.0f) == imax);        // 2^31: just out of range
    CHECK(convert<int32_t, float>(ev, 2147483520.0f) == 2147483520);  // the largest float below 2^31
    CHECK(convert<int32_t, float>(ev, -2147483648.0f) == imin);       // exactly MIN
    // The same conversion inside a scan.
    // -1e10 -> MIN; NaN -> 0 (MIN + 0); 2.5 -> 2 (MIN + 2).
    ref::Evaluator::Result r = run<float>(ev, {-1e10f, nan, 2.5f});
    CHECK(unpack<int32_t>(r.inclusive) == std::vector<int32_t>{imin, imin, imin + 2});
  }
  SECTION("implicit conversion to unsigned types saturates at 0 and MAX") {
    ref::Evaluator ev(spec_of("scan s { type = u8; input = f32; op = add; }"));
    CHECK(convert<uint8_t, float>(ev, 300.0f) == 255);
    CHECK(convert<uint8_t, float>(ev, -5.0f) == 0);
    CHECK(convert<uint8_t, float>(ev, 255.9f) == 255);
    CHECK(convert<uint8_t, float>(ev, nan) == 0);
    ref::Evaluator u64(spec_of("scan s { type = u64; input = f64; op = add; }"));
    CHECK(convert<uint64_t, double>(u64, 1e30) == std::numeric_limits<uint64_t>::max());
    CHECK(convert<uint64_t, double>(u64, 9007199254740993.0) == 9007199254740992u);
  }
  SECTION("i32(...) inside a combine") {
    ref::Evaluator ev(spec_of("scan s { type = f32; combine(x, y) = f32(i32(x + y)); identity = 0.0; }"));
    CHECK(combine<float>(ev, 1e10f, 0.0f) == 2147483648.0f);  // MAX, rounded to f32
    CHECK(combine<float>(ev, -1e10f, 0.0f) == -2147483648.0f);
    CHECK(combine<float>(ev, nan, 1.0f) == 0.0f);
    CHECK(combine<float>(ev, 2.75f, 1.0f) == 3.0f);
  }
}

TEST_CASE("reference: built-in identities per type", "[reference][identity]") {
  auto ev = [](const std::string& type, const std::string& op) {
    return ref::Evaluator(spec_of("scan s { type = " + type + "; op = " + op + "; }"));
  };
  CHECK(identity_of<uint8_t>(ev("u8", "min")) == 255);
  CHECK(identity_of<int16_t>(ev("i16", "max")) == -32768);
  CHECK(identity_of<int32_t>(ev("i32", "and")) == -1);
  CHECK(identity_of<uint16_t>(ev("u16", "and")) == 65535);
  CHECK(identity_of<int32_t>(ev("i32", "mul")) == 1);
  CHECK(identity_of<int32_t>(ev("i32", "add")) == 0);
  CHECK(identity_of<uint32_t>(ev("u32", "or")) == 0u);
  CHECK(identity_of<uint64_t>(ev("u64", "xor")) == 0u);
  CHECK(identity_of<int8_t>(ev("i8", "min")) == 127);
  CHECK(identity_of<int64_t>(ev("i64", "min")) == std::numeric_limits<int64_t>::max());
  CHECK(identity_of<int64_t>(ev("i64", "max")) == std::numeric_limits<int64_t>::min());
  CHECK(identity_of<uint32_t>(ev("u32", "max")) == 0u);
  CHECK(identity_of<uint32_t>(ev("u32", "min")) == 0xFFFFFFFFu);
  CHECK(identity_of<float>(ev("f32", "min")) == std::numeric_limits<float>::infinity());
  CHECK(identity_of<double>(ev("f64", "max")) == -std::numeric_limits<double>::infinity());
  CHECK(identity_of<float>(ev("f32", "mul")) == 1.0f);
  CHECK(identity_of<uint16_t>(ev("f16", "min")) == 0x7C00);  // +inf in binary16
  CHECK(identity_of<uint16_t>(ev("f16", "add")) == 0x8000);  // -0.0 in binary16
  // The identity of add on floats is -0.0 (x + -0.0 == x for every x, -0.0 too).
  CHECK(float_bits(identity_of<float>(ev("f32", "add"))) == 0x80000000u);
  CHECK(std::signbit(identity_of<double>(ev("f64", "add"))));
  // fmin and fmax: NaN (fmin(NaN, x) == x for every x).
  CHECK(std::isnan(identity_of<float>(ev("f32", "fmin"))));
  CHECK(std::isnan(identity_of<double>(ev("f64", "fmax"))));

  // The identity is what an exclusive scan starts with, and does not change a value.
  ref::Evaluator mn = ev("u8", "min");
  CHECK(combine<uint8_t>(mn, 255, 17) == 17);
  ref::Evaluator ex(spec_of("scan s { type = i16; op = max; mode = exclusive; }"));
  CHECK(unpack<int16_t>(run<int16_t>(ex, {-5, 3}).exclusive) == std::vector<int16_t>{-32768, -5});
}

// NumPy's and PyTorch's semantics: a NaN propagates through min and max
// (np.maximum.accumulate, torch.cummax), fmin and fmax ignore it
// (np.fmax.accumulate), and a float sum keeps -0.0 (np.cumsum).
TEST_CASE("reference: min and max propagate a NaN, fmin and fmax ignore it", "[reference][identity]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto scan = [&](const char* op, const std::vector<double>& in) {
    ref::Evaluator ev(spec_of(std::string("scan s { type = f64; op = ") + op + "; mode = both; }"));
    return run<double>(ev, in);
  };
  // NaNs at the start, in the middle, at the end, everywhere; and no NaN.
  const std::vector<std::vector<double>> inputs = {{nan, 1, 2}, {3, nan, 5}, {2, 1, nan}, {nan, nan, nan}, {2, -1, 4}};
  for (const std::vector<double>& in : inputs) {
    INFO("input " << in[0] << " " << in[1] << " " << in[2]);
    // A plain loop: np.maximum.accumulate / np.minimum.accumulate, np.fmax.accumulate / np.fmin.accumulate.
    std::vector<double> mx(3), mn(3), fmx(3), fmn(3);
    for (size_t i = 0; i < 3; ++i) {
      bool seen_nan = false;
      double hi = -INFINITY, lo = INFINITY, fhi = nan, flo = nan;
      for (size_t j = 0; j <= i; ++j) {
        seen_nan = seen_nan || std::isnan(in[j]);
        if (!std::isnan(in[j])) {
          hi = std::max(hi, in[j]);
          lo = std::min(lo, in[j]);
          fhi = std::isnan(fhi) ? in[j] : std::max(fhi, in[j]);
          flo = std::isnan(flo) ? in[j] : std::min(flo, in[j]);
        }
      }
      mx[i] = seen_nan ? nan : hi;
      mn[i] = seen_nan ? nan : lo;
      fmx[i] = fhi;
      fmn[i] = flo;
    }
    auto same = [](const std::vector<double>& got, const std::vector<double>& want) {
      for (size_t i = 0; i < want.size(); ++i)
        if (std::isnan(got[i]) != std::isnan(want[i]) || (!std::isnan(want[i]) && got[i] != want[i])) return false;
      return true;
    };
    CHECK(same(unpack<double>(scan("max", in).inclusive), mx));
    CHECK(same(unpack<double>(scan("min", in).inclusive), mn));
    CHECK(same(unpack<double>(scan("fmax", in).inclusive), fmx));
    CHECK(same(unpack<double>(scan("fmin", in).inclusive), fmn));
  }
  // The exclusive fmax starts from its identity, NaN; max from -inf.
  CHECK(std::isnan(unpack<double>(scan("fmax", {1, 2}).exclusive)[0]));
  CHECK(unpack<double>(scan("max", {1, 2}).exclusive)[0] == -INFINITY);
  // min(a, b) and max(a, b) of equal values give a: -0.0 before +0.0 stays -0.0.
  CHECK(std::signbit(unpack<double>(scan("max", {-0.0, 0.0}).inclusive)[1]));
  CHECK(!std::signbit(unpack<double>(scan("min", {0.0, -0.0}).inclusive)[1]));
  // The functions too, and clamp through them.
  ref::Evaluator fn(
      spec_of("scan s { type = f32; combine(x, y) = max(x, y) + clamp(y, 0.0, 1.0) * 0.0; "
              "identity = -inf; }"));
  CHECK(std::isnan(combine<float>(fn, 1.0f, std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("reference: float sums keep -0.0", "[reference][identity]") {
  for (const char* type : {"f32", "f64"}) {
    INFO(type);
    ref::Evaluator ev(spec_of(std::string("scan s { type = ") + type + "; op = add; mode = both; }"));
    if (type[1] == '3') {
      const auto r = run<float>(ev, {-0.0f, -0.0f, 1.0f, -1.0f});
      const std::vector<float> inc = unpack<float>(r.inclusive), exc = unpack<float>(r.exclusive);
      CHECK(std::signbit(inc[0]));   // alone
      CHECK(std::signbit(inc[1]));   // -0.0 + -0.0
      CHECK(!std::signbit(inc[3]));  // 1 + -1 is +0.0
      CHECK(std::signbit(exc[0]));   // the identity
    } else {
      const auto r = run<double>(ev, {-0.0});
      CHECK(std::signbit(unpack<double>(r.inclusive)[0]));
    }
  }
  ref::Evaluator h(spec_of("scan s { type = f16; op = add; }"));
  CHECK(unpack<uint16_t>(run<uint16_t>(h, {0x8000, 0x8000}).inclusive) == std::vector<uint16_t>{0x8000, 0x8000});
}

// ===========================================================================
// Non-commutative operators
// ===========================================================================

TEST_CASE("reference: 2x2 matrix products keep their order", "[reference][struct]") {
  dsl::Spec spec = spec_of(kMatrixScan);
  REQUIRE(spec.type.size() == sizeof(Mat2));
  REQUIRE(leaf_offsets(spec.type) == std::vector<size_t>{0, 4, 8, 12});
  ref::Evaluator ev(spec);
  const Mat2 m0{1, 2, 3, 4}, m1{0, 1, 1, 0}, m2{2, 0, 1, 1};
  // By hand:
  //   m0 * m1 = [[1*0+2*1, 1*1+2*0], [3*0+4*1, 3*1+4*0]] = [[2, 1], [4, 3]]
  //   (m0 * m1) * m2 = [[2*2+1*1, 2*0+1*1], [4*2+3*1, 4*0+3*1]] = [[5, 1], [11, 3]]
  //   m1 * m0 = [[3, 4], [1, 2]] (a different product: the order matters)
  ref::Evaluator::Result r = run<Mat2>(ev, {m0, m1, m2});
  CHECK(unpack<Mat2>(r.inclusive) == std::vector<Mat2>{{1, 2, 3, 4}, {2, 1, 4, 3}, {5, 1, 11, 3}});
  CHECK(unpack<Mat2>(r.exclusive) == std::vector<Mat2>{{1, 0, 0, 1}, {1, 2, 3, 4}, {2, 1, 4, 3}});
  CHECK(unpack<Mat2>(r.aggregates) == std::vector<Mat2>{{5, 1, 11, 3}});
  CHECK(combine<Mat2>(ev, m1, m0) == Mat2{3, 4, 1, 2});
  CHECK(combine<Mat2>(ev, m0, m1) == Mat2{2, 1, 4, 3});
  CHECK(identity_of<Mat2>(ev) == Mat2{1, 0, 0, 1});
}

TEST_CASE("reference: affine maps scan to the recurrence x[i] = a[i] * x[i-1] + b[i]", "[reference][struct]") {
  dsl::Spec spec = spec_of(kAffineScan);
  REQUIRE(spec.type.size() == sizeof(Affine));
  ref::Evaluator ev(spec);
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  // Small integers keep every value exact in f32: |x| <= 3 * (2^13 - 1) < 2^24.
  const size_t n = 12;
  std::vector<Affine> in(n);
  for (Affine& m : in) {
    m.a = static_cast<float>(static_cast<int>(rng() % 5) - 2);  // -2..2
    m.b = static_cast<float>(static_cast<int>(rng() % 7) - 3);  // -3..3
  }
  std::vector<Affine> out = unpack<Affine>(run(ev, in).inclusive);
  REQUIRE(out.size() == n);
  for (int64_t x0 : {0, 5, -7}) {
    int64_t x = x0;
    for (size_t i = 0; i < n; ++i) {
      x = static_cast<int64_t>(in[i].a) * x + static_cast<int64_t>(in[i].b);  // the recurrence, directly
      INFO("x0 = " << x0 << ", i = " << i);
      // The prefix is the map x0 -> A*x0 + B.
      CHECK(static_cast<double>(out[i].a) * static_cast<double>(x0) + static_cast<double>(out[i].b) ==
            static_cast<double>(x));
    }
  }
  // One by hand: maps 2x+1, 3x-1, -x+2. Composed: (2, 1); (3*2, 3*1 - 1) = (6, 2);
  // (-1*6, -1*2 + 2) = (-6, 0). From x0 = 1: x = 3, 8, -6.
  std::vector<Affine> fixed = unpack<Affine>(run<Affine>(ev, {{2, 1}, {3, -1}, {-1, 2}}).inclusive);
  REQUIRE(fixed.size() == 3);
  CHECK((fixed[0].a == 2.0f && fixed[0].b == 1.0f));
  CHECK((fixed[1].a == 6.0f && fixed[1].b == 2.0f));
  CHECK((fixed[2].a == -6.0f && fixed[2].b == 0.0f));
  CHECK(fixed[2].a * 1.0f + fixed[2].b == -6.0f);
}

TEST_CASE("reference: arg-max ties keep the earlier index", "[reference][struct]") {
  dsl::Spec spec = spec_of(kArgMaxScan);
  REQUIRE(spec.type.size() == sizeof(ArgMax));
  REQUIRE(leaf_offsets(spec.type) == std::vector<size_t>{offsetof(ArgMax, value), offsetof(ArgMax, index)});
  ref::Evaluator ev(spec);
  const float ninf = -std::numeric_limits<float>::infinity();
  ref::Evaluator::Result r = run<ArgMax>(ev, {{1, 0}, {3, 1}, {3, 2}, {2, 3}, {5, 4}, {5, 5}, {-1, 6}});
  CHECK(unpack<ArgMax>(r.inclusive) == std::vector<ArgMax>{{1, 0}, {3, 1}, {3, 1}, {3, 1}, {5, 4}, {5, 4}, {5, 4}});
  CHECK(unpack<ArgMax>(r.exclusive) == std::vector<ArgMax>{{ninf, -1}, {1, 0}, {3, 1}, {3, 1}, {3, 1}, {5, 4}, {5, 4}});
  CHECK(unpack<ArgMax>(r.aggregates) == std::vector<ArgMax>{{5, 4}});
  // The later of two equal values loses, whichever side it is on.
  CHECK(combine<ArgMax>(ev, {7, 9}, {7, 2}) == ArgMax{7, 9});
  CHECK(combine<ArgMax>(ev, {7, 2}, {7, 9}) == ArgMax{7, 2});
}

TEST_CASE("reference: segmented sum over (flag, value) pairs", "[reference][struct]") {
  dsl::Spec spec = spec_of(kSegmentedScan);
  REQUIRE(spec.type.size() == sizeof(Seg));
  REQUIRE(leaf_offsets(spec.type) == std::vector<size_t>{offsetof(Seg, flag), offsetof(Seg, value)});
  ref::Evaluator ev(spec);
  ref::Evaluator::Result r = run<Seg>(ev, {{1, 1}, {0, 2}, {0, 3}, {1, 4}, {0, 5}, {1, 6}, {0, 7}, {0, 8}});
  // Segments [1 2 3] [4 5] [6 7 8].
  CHECK(unpack<Seg>(r.inclusive) == std::vector<Seg>{{1, 1}, {1, 3}, {1, 6}, {1, 4}, {1, 9}, {1, 6}, {1, 13}, {1, 21}});
  // No flag on the first element: it continues from the identity.
  r = run<Seg>(ev, {{0, 1}, {0, 2}, {1, 3}, {0, 4}});
  CHECK(unpack<Seg>(r.inclusive) == std::vector<Seg>{{0, 1}, {0, 3}, {1, 3}, {1, 7}});

  // Random flags, against a plain loop (integer values: exact in f32).
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<Seg> in(300);
  for (Seg& s : in) {
    s.flag = (rng() % 4 == 0) ? 1u : 0u;
    s.value = static_cast<float>(rng() % 10);
  }
  std::vector<Seg> got = unpack<Seg>(run(ev, in).inclusive);
  REQUIRE(got.size() == in.size());
  for (size_t begin = 0; begin < in.size(); begin += 2048) {  // one block: 256 x 8
    float sum = 0;
    uint32_t seen = 0;
    for (size_t i = begin; i < in.size(); ++i) {
      sum = in[i].flag ? in[i].value : sum + in[i].value;
      seen |= in[i].flag;
      INFO("i = " << i);
      CHECK(got[i] == Seg{seen, sum});
    }
  }
}

// ===========================================================================
// f16
// ===========================================================================

TEST_CASE("reference: f16 elements are IEEE binary16 and round at every step", "[reference][f16]") {
  dsl::Spec spec = spec_of("scan h { type = f16; op = add; mode = both; }");
  ref::Evaluator ev(spec);
  REQUIRE(ev.element_size() == 2u);
  const uint16_t one = 0x3C00, tiny = 0x1000;  // 1.0 and 2^-11
  CHECK(decode_half(tiny) == std::ldexp(1.0, -11));
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties to even, 1.
  ref::Evaluator::Result r = run<uint16_t>(ev, {one, tiny, tiny});
  CHECK(unpack<uint16_t>(r.inclusive) == std::vector<uint16_t>{0x3C00, 0x3C00, 0x3C00});
  CHECK(unpack<uint16_t>(r.exclusive) == std::vector<uint16_t>{0x8000, 0x3C00, 0x3C00});
  // In the other order the small values add up first: 2^-10, then 1 + 2^-10 (exact).
  r = run<uint16_t>(ev, {tiny, tiny, one});
  CHECK(unpack<uint16_t>(r.inclusive) == std::vector<uint16_t>{0x1000, 0x1400, 0x3C01});
  // In f32 the same sums are not rounded away.
  ref::Evaluator f(spec_of("scan h { type = f32; op = add; }"));
  CHECK(unpack<float>(run<float>(f, {1.0f, 0x1p-11f, 0x1p-11f}).inclusive) ==
        std::vector<float>{1.0f, 1.00048828125f, 1.0009765625f});
  // Overflow: 65504 + 8 rounds back to 65504; 65504 + 16 = 65520 is the midpoint to
  // 65536 and rounds to even, which is inf.
  CHECK(combine<uint16_t>(ev, 0x7BFF, 0x4800) == 0x7BFF);  // 65504 + 8
  CHECK(combine<uint16_t>(ev, 0x7BFF, 0x4C00) == 0x7C00);  // 65504 + 16
  // Subnormals: 2^-24 + 2^-24 = 2^-23.
  CHECK(combine<uint16_t>(ev, 0x0001, 0x0001) == 0x0002);
}

TEST_CASE("reference: float_to_half_bits and half_bits_to_float", "[reference][f16]") {
  // Known encodings.
  CHECK(dsl::float_to_half_bits(1.0f) == 0x3C00);
  CHECK(dsl::float_to_half_bits(-2.0f) == 0xC000);
  CHECK(dsl::float_to_half_bits(65504.0f) == 0x7BFF);
  CHECK(dsl::float_to_half_bits(0x1p-14f) == 0x0400);  // smallest normal
  CHECK(dsl::float_to_half_bits(0x1p-24f) == 0x0001);  // smallest subnormal
  CHECK(dsl::float_to_half_bits(-0.0f) == 0x8000);
  CHECK(dsl::float_to_half_bits(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(dsl::float_to_half_bits(0.1f) == 0x2E66);
  // Rounding: to nearest, ties to even; overflow to inf from the midpoint 65520.
  CHECK(dsl::float_to_half_bits(1.0f + 0x1p-11f) == 0x3C00);
  CHECK(dsl::float_to_half_bits(1.0f + 0x1p-11f + 0x1p-20f) == 0x3C01);
  CHECK(dsl::float_to_half_bits(1.0f + 3 * 0x1p-11f) == 0x3C02);
  CHECK(dsl::float_to_half_bits(65519.0f) == 0x7BFF);
  CHECK(dsl::float_to_half_bits(65520.0f) == 0x7C00);
  CHECK(dsl::float_to_half_bits(1e10f) == 0x7C00);
  CHECK(dsl::float_to_half_bits(0x1p-25f) == 0x0000);               // tie between 0 and 2^-24: even
  CHECK(dsl::float_to_half_bits(0x1p-25f * 1.0000001f) == 0x0001);  // just above the tie
  CHECK(dsl::float_to_half_bits(3 * 0x1p-25f) == 0x0002);           // 1.5 * 2^-24: tie, to even (2)
  CHECK(dsl::float_to_half_bits(0x1p-26f) == 0x0000);
  CHECK(dsl::float_to_half_bits(0x1p-14f - 0x1p-25f) == 0x0400);  // rounds up into the normals
  CHECK(dsl::float_to_half_bits(1e-30f) == 0x0000);
  CHECK(dsl::float_to_half_bits(-1e-30f) == 0x8000);
  uint16_t nan_bits = dsl::float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
  CHECK((nan_bits & 0x7C00) == 0x7C00);
  CHECK((nan_bits & 0x03FF) != 0);

  // Every one of the 65536 patterns decodes to its value and encodes back to itself.
  int mismatches = 0;
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const uint16_t bits = static_cast<uint16_t>(h);
    const float f = dsl::half_bits_to_float(bits);
    const double want = decode_half(bits);
    const uint16_t back = dsl::float_to_half_bits(f);
    bool ok;
    if (std::isnan(want)) {
      ok = std::isnan(f) && (back & 0x7C00) == 0x7C00 && (back & 0x03FF) != 0 && (back & 0x8000) == (bits & 0x8000);
    } else {
      ok = static_cast<double>(f) == want && std::signbit(f) == static_cast<bool>(bits & 0x8000) && back == bits;
    }
    if (!ok && ++mismatches <= 10) {
      INFO("pattern 0x" << std::hex << h << ": decoded " << f << ", expected " << want << ", re-encoded 0x" << back);
      CHECK(ok);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("reference: f64 -> f16 conversion rounds once", "[reference][f16]") {
  // Regression: converting f64 to f16 through f32 turns 1 + 2^-11 + 2^-40 into
  // exactly 1 + 2^-11 (a tie), which then rounds to even, 1.0. Rounded once,
  // it is above the tie: 1 + 2^-10 (0x3C01).
  ref::Evaluator ev(spec_of("scan s { type = f16; input = f64; op = add; }"));
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  CHECK(convert<uint16_t, double>(ev, v) == 0x3C01);
}

TEST_CASE("reference: f16 fma rounds once", "[reference][f16]") {
  // Regression: an f16 fma computed with fmaf (rounded to f32), then rounded
  // again to f16, is wrong here: a*b + c = -(2^-11 - 2^-31) + (1 + 2^-10) =
  // 1 + 2^-11 + 2^-31; in f32 that is the tie 1 + 2^-11, and ties-to-even gives
  // 1.0. Correctly rounded (CUDA's __hfma, OpenCL's fma) it is 1 + 2^-10 (0x3C01).
  ref::Evaluator ev(spec_of("scan s { type = f16; combine(x, y) = fma(x, f16(-0.9990234375), y); identity = 0.0; }"));
  const uint16_t a = 0x1001;  // 2^-11 * (1 + 2^-10)
  const uint16_t c = 0x3C01;  // 1 + 2^-10
  CHECK(decode_half(a) == std::ldexp(1.0, -11) + std::ldexp(1.0, -21));
  CHECK(combine<uint16_t>(ev, a, c) == 0x3C01);
}

// ===========================================================================
// check_operator
// ===========================================================================

TEST_CASE("check_operator: lawful operators pass", "[reference][check]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  const std::vector<std::string> texts = {
      "scan add { type = i32; op = add; }",
      "scan mx { type = i32; op = max; }",
      "scan mn { type = u8; op = min; }",
      "scan x { type = u64; op = xor; }",
      "scan m { type = i16; op = mul; }",
      "scan f { type = f32; combine(x, y) = x + y; identity = 0.0; }",  // associative in f64
      "scan fm { type = f32; op = max; }",
      kAffineScan,
      kMatrixScan,
      kArgMaxScan,
      kSegmentedScan,
  };
  for (const std::string& text : texts) {
    INFO(text);
    dsl::Spec spec = spec_of(text);
    for (uint64_t s : {seed, uint64_t{1}, uint64_t{42}}) {
      ref::OperatorReport r = ref::check_operator(spec, s, 500);
      INFO("seed " << s << ": " << r.message);
      CHECK(r.ok);
      CHECK(r.message.empty());
      CHECK(r.samples == 500);
    }
  }
}

// refuse_operator trusts a built-in `op` without sampling it: this is what
// makes that safe. Every built-in on every scalar type the language allows it.
TEST_CASE("check_operator: every built-in op on every type", "[reference][check]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  int checked = 0;
  for (const char* op : {"add", "mul", "min", "max", "and", "or", "xor", "fmin", "fmax"}) {
    for (const char* type : {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64", "bool"}) {
      const std::string text = std::string("scan s { type = ") + type + "; op = " + op + "; }";
      const dsl::Document doc = dsl::load("<op>", text);
      if (!doc.ok()) continue;  // not allowed on this type (the checker says why)
      INFO(text);
      const dsl::Spec& spec = doc.specs().front();
      ref::OperatorReport r = ref::check_operator(spec, seed, 500);
      INFO(r.message);
      CHECK(r.ok);
      CHECK(ref::refuse_operator(spec).empty());
      ++checked;
    }
  }
  CHECK(checked >= 40);  // add, mul, min, max on 11 types; and, or, xor on the integers
}

// assume_associative = true vouches for associativity, not for the identity;
// the refusal suggests it only where the failure is within float rounding.
TEST_CASE("refuse_operator: assume_associative keeps the identity test, and its hint comes only with rounding",
          "[reference][check]") {
  SECTION("a wrong identity is refused under assume_associative, with no hint to say it") {
    const dsl::Spec spec =
        spec_of("scan minus { type = i32; combine(x, y) = x - y; identity = 0; assume_associative = true; }");
    const std::string why = ref::refuse_operator(spec);
    INFO(why);
    CHECK(contains_text(why, "is not an identity"));
    CHECK_FALSE(contains_text(why, "assume_associative"));
  }
  SECTION("an integer operator that is not associative gets no hint") {
    const std::string why =
        ref::refuse_operator(spec_of("scan g { type = i32; combine(x, y) = x == 0 ? y : y == 0 ? x : x - y; "
                                     "identity = 0; }"));
    INFO(why);
    CHECK(contains_text(why, "does not look associative"));
    CHECK_FALSE(contains_text(why, "assume_associative"));
  }
  SECTION("a float operator off by far more than rounding gets no hint") {
    const std::string why = ref::refuse_operator(
        spec_of("scan avg { type = f32; combine(x, y) = x == 0.0 ? y : y == 0.0 ? x : (x + y) * 0.5; "
                "identity = 0.0; }"));
    INFO(why);
    CHECK(contains_text(why, "does not look associative"));
    CHECK_FALSE(contains_text(why, "assume_associative"));
  }
  SECTION("a float operator off by less than f32 rounding gets the hint, and the setting then makes its kernel") {
    const std::string text =
        "scan near { type = f32; combine(x, y) = x + y + x * x * y * 0.000000001; identity = 0.0; ";
    const std::string why = ref::refuse_operator(spec_of(text + "}"));
    INFO(why);
    CHECK(contains_text(why, "does not look associative"));
    CHECK(contains_text(why, "within the element's float rounding"));
    CHECK(contains_text(why, "assume_associative = true;"));
    CHECK(ref::refuse_operator(spec_of(text + "assume_associative = true; }")).empty());
  }
}

TEST_CASE("check_operator: operators that break the laws fail with a reason", "[reference][check]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  SECTION("x - y is not a scan operator") {
    dsl::Spec spec = spec_of("scan minus { type = i32; combine(x, y) = x - y; identity = 0; }");
    for (uint64_t s : {seed, uint64_t{1}, uint64_t{42}}) {
      ref::OperatorReport r = ref::check_operator(spec, s);
      INFO("seed " << s << ": " << r.message);
      CHECK_FALSE(r.ok);
      // 0 - x != x, so either law may be the first to break, depending on the draw.
      CHECK((contains_text(r.message, "associative") || contains_text(r.message, "identity")));
      CHECK(contains_text(r.message, "minus"));
    }
    // With seed 42 the first value drawn is 0, for which 0 - x == x: associativity breaks first.
    CHECK(contains_text(ref::check_operator(spec, 42).message, "does not look associative"));
  }
  SECTION("a non-associative operator with a true identity") {
    // 0 is a two-sided identity of this guarded subtraction, but (a - b) - c != a - (b - c).
    dsl::Spec spec =
        spec_of("scan guarded { type = i32; combine(x, y) = x == 0 ? y : y == 0 ? x : x - y; identity = 0; }");
    ref::OperatorReport r = ref::check_operator(spec, seed);
    INFO(r.message);
    CHECK_FALSE(r.ok);
    CHECK(contains_text(r.message, "does not look associative"));
    CHECK(contains_text(r.message, "guarded"));
    CHECK(contains_text(r.message, "combine(combine(a, b), c)"));
  }
  SECTION("an identity that is not its own identity: log-sum-exp without a branch for -inf") {
    // combine(-inf, -inf) = -inf + log(exp(nan) + exp(nan)) = NaN; every random sample passes.
    dsl::Spec spec = spec_of(
        "scan lse { type = f64; combine(x, y) { let m = max(x, y); return m + log(exp(x - m) "
        "+ exp(y - m)); } identity = -inf; }");
    ref::OperatorReport r = ref::check_operator(spec, seed);
    INFO(r.message);
    CHECK_FALSE(r.ok);
    CHECK(r.identity_failed);
    CHECK(contains_text(r.message, "combine(e, e) = nan"));
    dsl::Spec guarded = spec_of(
        "scan lse { type = f64; combine(x, y) { let m = max(x, y); return m == -inf ? m : m "
        "+ log(exp(x - m) + exp(y - m)); } identity = -inf; }");
    CHECK(ref::check_operator(guarded, seed).ok);
  }
  SECTION("a wrong identity: mul with identity 0") {
    dsl::Spec spec = spec_of("scan m { type = i32; combine(x, y) = x * y; identity = 0; }");
    ref::OperatorReport r = ref::check_operator(spec, seed);
    INFO(r.message);
    CHECK_FALSE(r.ok);
    CHECK(contains_text(r.message, "identity"));
    CHECK(contains_text(r.message, "e = 0"));
    CHECK_FALSE(contains_text(r.message, "associative"));
  }
  SECTION("a float operator that is not associative even in f64") {
    dsl::Spec spec = spec_of(
        "scan avg { type = f32; combine(x, y) = x == 0.0 ? y : y == 0.0 ? x : (x + y) * 0.5; identity = 0.0; }");
    ref::OperatorReport r = ref::check_operator(spec, seed);
    INFO(r.message);
    CHECK_FALSE(r.ok);
    CHECK(contains_text(r.message, "associative"));
  }
  SECTION("a wrong struct identity") {
    std::string text = kMatrixScan;
    const std::string good = "Mat2 { 1.0, 0.0, 0.0, 1.0 }";
    REQUIRE(text.find(good) != std::string::npos);
    text.replace(text.find(good), good.size(), "Mat2 { 1.0, 0.0, 0.0, 0.0 }");
    dsl::Spec spec = spec_of(text);
    ref::OperatorReport r = ref::check_operator(spec, seed);
    INFO(r.message);
    CHECK_FALSE(r.ok);
    CHECK(contains_text(r.message, "identity"));
  }
}

// ===========================================================================
// Values: formatting and comparison
// ===========================================================================

TEST_CASE("format_value: scalars and nested structs", "[reference][values]") {
  dsl::Spec spec = spec_of(
      "type Inner { x: i32, y: u8 }\n"
      "type Outer { p: Inner, w: f32, h: f16 }\n"
      "scan s { type = Outer; combine(a, b) = b;\n"
      "  identity = Outer { p: Inner { x: 0, y: 0 }, w: 0.0, h: 0.0 }; }");
  // Layout by C rules: Inner = {x @0, y @4} size 8; Outer = {p @0, w @8, h @12} size 16.
  REQUIRE(spec.type.size() == 16u);
  REQUIRE(leaf_offsets(spec.type) == std::vector<size_t>{0, 4, 8, 12});
  std::array<uint8_t, 16> bytes{};
  const int32_t x = -3;
  const uint8_t y = 200;
  const float w = 1.5f;
  const uint16_t h = 0x3400;  // 0.25
  std::memcpy(bytes.data() + 0, &x, 4);
  std::memcpy(bytes.data() + 4, &y, 1);
  std::memcpy(bytes.data() + 8, &w, 4);
  std::memcpy(bytes.data() + 12, &h, 2);
  CHECK(ref::format_value(spec.type, bytes.data()) == "{p: {x: -3, y: 200}, w: 1.5, h: 0.25}");

  auto scalar = [](dsl::ScalarKind k, const void* v) { return ref::format_value(dsl::Type::scalar(k), v); };
  const int8_t m1 = -1;
  const uint64_t umax = std::numeric_limits<uint64_t>::max();
  const int64_t imin = std::numeric_limits<int64_t>::min();
  const float tenth = 0.1f, inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float ninf = -inf;
  const double third = 1.0 / 3.0;
  const uint16_t h_neg2 = 0xC000;
  CHECK(scalar(dsl::ScalarKind::I8, &m1) == "-1");
  CHECK(scalar(dsl::ScalarKind::U8, &m1) == "255");
  CHECK(scalar(dsl::ScalarKind::U64, &umax) == "18446744073709551615");
  CHECK(scalar(dsl::ScalarKind::I64, &imin) == "-9223372036854775808");
  CHECK(scalar(dsl::ScalarKind::F32, &tenth) == "0.1");  // shortest f32 spelling, not 0.100000001
  CHECK(scalar(dsl::ScalarKind::F32, &inf) == "inf");
  CHECK(scalar(dsl::ScalarKind::F32, &ninf) == "-inf");
  CHECK(scalar(dsl::ScalarKind::F32, &nan) == "nan");
  CHECK(scalar(dsl::ScalarKind::F64, &third) == "0.3333333333333333");
  CHECK(scalar(dsl::ScalarKind::F16, &h_neg2) == "-2");
}

TEST_CASE("values_match: exact integers, tolerant floats, NaN and infinities", "[reference][values]") {
  const dsl::Type f32 = dsl::Type::scalar(dsl::ScalarKind::F32);
  const dsl::Type i32 = dsl::Type::scalar(dsl::ScalarKind::I32);
  auto fm = [&](float a, float b, ref::Tolerance t) { return ref::values_match(f32, &a, &b, t); };
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(fm(1.0f, 1.0f, {}));
  CHECK_FALSE(fm(1.0f, 1.0001f, {}));
  CHECK(fm(1.0f, 1.0001f, {1e-3, 0}));  // relative
  CHECK_FALSE(fm(1.0f, 1.0001f, {1e-5, 0}));
  CHECK(fm(1000.0f, 1000.1f, {1e-3, 0}));   // relative to the larger magnitude: 0.1 <= 1.0001
  CHECK_FALSE(fm(0.0f, 1e-6f, {1e-3, 0}));  // near zero the relative part is tiny
  CHECK(fm(0.0f, 1e-6f, {0, 1e-5}));        // absolute
  CHECK_FALSE(fm(0.0f, 1e-4f, {0, 1e-5}));
  CHECK(fm(0.0f, -0.0f, {}));
  ref::Tolerance signs;
  signs.signed_zeros = true;
  CHECK_FALSE(fm(0.0f, -0.0f, signs));
  CHECK(fm(-0.0f, -0.0f, signs));
  CHECK(fm(1.0f, 1.0f, signs));
  CHECK(fm(nan, nan, {}));  // NaN matches NaN
  CHECK_FALSE(fm(nan, 1.0f, {1, 1e30}));
  CHECK_FALSE(fm(1.0f, nan, {1, 1e30}));
  CHECK(fm(inf, inf, {}));
  CHECK_FALSE(fm(inf, -inf, {1, 1e30}));
  CHECK_FALSE(fm(inf, 3e38f, {1, 1e30}));  // an infinity matches only itself

  auto im = [&](int32_t a, int32_t b, ref::Tolerance t) { return ref::values_match(i32, &a, &b, t); };
  CHECK(im(5, 5, {}));
  CHECK_FALSE(im(5, 6, {1, 100}));  // integers must be equal, whatever the tolerance

  // Structs: every field must match; padding bytes are ignored.
  dsl::Spec spec = spec_of(kArgMaxScan);
  ArgMax a{1.0f, 3}, b{1.0f, 3};
  std::array<uint8_t, 8> pa{}, pb{};
  std::memcpy(pa.data(), &a, 8);
  std::memcpy(pb.data(), &b, 8);
  CHECK(ref::values_match(spec.type, pa.data(), pb.data(), {}));
  b.index = 4;
  std::memcpy(pb.data(), &b, 8);
  CHECK_FALSE(ref::values_match(spec.type, pa.data(), pb.data(), {1, 1}));
  b = {1.00001f, 3};
  std::memcpy(pb.data(), &b, 8);
  CHECK_FALSE(ref::values_match(spec.type, pa.data(), pb.data(), {}));
  CHECK(ref::values_match(spec.type, pa.data(), pb.data(), {1e-4, 0}));

  dsl::Spec padded =
      spec_of("type P { a: u8, b: i32 }\nscan s { type = P; combine(x, y) = y; identity = P { 0, 0 }; }");
  std::array<uint8_t, 8> x{}, y{};
  x[0] = y[0] = 7;
  x[1] = 0xAA;  // padding
  y[1] = 0x55;
  CHECK(ref::values_match(padded.type, x.data(), y.data(), {}));
}

TEST_CASE("fill_random: values of the right type, reproducible from the seed", "[reference][values]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  const dsl::Type f16 = dsl::Type::scalar(dsl::ScalarKind::F16);
  std::vector<uint16_t> a(1000), b(1000);
  std::mt19937_64 r1(seed), r2(seed);
  ref::fill_random(f16, a.data(), a.size(), r1);
  ref::fill_random(f16, b.data(), b.size(), r2);
  CHECK(a == b);
  for (uint16_t h : a) {
    const double v = decode_half(h);
    if (!(v >= -4.0 && v <= 4.0)) FAIL("f16 value " << v << " outside [-4, 4]");
  }
  // Integers cover their range, with the edges drawn often enough to show up.
  const dsl::Type i8 = dsl::Type::scalar(dsl::ScalarKind::I8);
  std::vector<int8_t> ints(4000);
  ref::fill_random(i8, ints.data(), ints.size(), r1);
  CHECK(std::count(ints.begin(), ints.end(), int8_t{-128}) > 0);
  CHECK(std::count(ints.begin(), ints.end(), int8_t{127}) > 0);
  CHECK(std::count(ints.begin(), ints.end(), int8_t{0}) > 0);
}

TEST_CASE("Evaluator: rejects a spec without an operator, and is movable", "[reference]") {
  dsl::Spec empty;
  CHECK_THROWS_AS(ref::Evaluator(empty), std::invalid_argument);
  ref::Evaluator ev(spec_of("scan s { type = i32; op = add; }"));
  ref::Evaluator moved(std::move(ev));
  CHECK(combine<int32_t>(moved, 2, 3) == 5);
  CHECK(moved.spec().name == "s");
  ref::Evaluator other(spec_of("scan t { type = i32; op = mul; }"));
  other = std::move(moved);
  CHECK(combine<int32_t>(other, 2, 3) == 5);
  CHECK(other.spec().name == "s");
}

TEST_CASE("reference: reverse scans are forward scans of the reversed array, segment by segment",
          "[reference][reverse]") {
  // Block of 4 x 3: segments of 12 at 0, 12, 24 (the last partial), each
  // scanned from its last element to its first, with init.
  dsl::Spec spec = spec_of(
      "scan b { type = i32; op = add; level = block; threads = 4; items = 3; mode = both; init = 100; "
      "outputs = aggregate; reverse = true; }");
  REQUIRE(spec.reverse);
  ref::Evaluator ev(spec);
  const std::vector<int32_t> in = iota_vec<int32_t>(30, 1);
  ref::Evaluator::Result r = run(ev, in);
  std::vector<int32_t> incl(in.size()), excl(in.size()), aggs;
  for (size_t begin = 0; begin < in.size(); begin += 12) {
    const size_t end = std::min(in.size(), begin + 12);
    int32_t acc = 100, total = 0;
    for (size_t i = end; i-- > begin;) {
      excl[i] = acc;
      acc += in[i];
      total += in[i];
      incl[i] = acc;
    }
    aggs.push_back(total);
  }
  CHECK(unpack<int32_t>(r.inclusive) == incl);
  CHECK(unpack<int32_t>(r.exclusive) == excl);
  CHECK(unpack<int32_t>(r.aggregates) == aggs);
  CHECK(incl[11] == 112);        // 100 + 12: a segment's last element comes first
  CHECK(excl[11] == 100);        // its exclusive result is init
  CHECK(incl[0] == 100 + 78);    // 100 + 12 + ... + 1
  CHECK(excl[29] == 100);        // the partial segment starts at the array's last element
  CHECK(incl[24] == 100 + 165);  // 100 + 30 + ... + 25
}

TEST_CASE("reference: a reverse affine scan is the backward recurrence G[i] = b[i] + a[i] * G[i+1]",
          "[reference][reverse][struct]") {
  // combine(x, y) = y after x: scanned from the end, the inclusive result at
  // i is the map of element n-1, then n-2, ..., then i. Applied to 0 it is
  // the discounted return G[i] = r[i] + gamma * G[i+1] (a = gamma, b = r).
  dsl::Spec spec = spec_of(std::string(kAffineScan).insert(std::string(kAffineScan).rfind('}'), " reverse = true; "));
  REQUIRE(spec.reverse);
  ref::Evaluator ev(spec);
  const std::vector<Affine> in = {{2, 1}, {3, -1}, {-1, 2}, {1, 5}};
  std::vector<Affine> out = unpack<Affine>(run(ev, in).inclusive);
  REQUIRE(out.size() == in.size());
  for (int64_t g0 : {0, 4, -3}) {
    int64_t g = g0;
    for (size_t i = in.size(); i-- > 0;) {
      g = static_cast<int64_t>(in[i].b) + static_cast<int64_t>(in[i].a) * g;  // the recurrence, directly
      INFO("g0 = " << g0 << ", i = " << i);
      CHECK(static_cast<double>(out[i].a) * static_cast<double>(g0) + static_cast<double>(out[i].b) ==
            static_cast<double>(g));
    }
  }
  // By hand: (1, 5); then (-1, 2) after it: (-1, -5 + 2) = (-1, -3); then (3, -1): (-3, -10);
  // then (2, 1): (-6, -19).
  CHECK((out[3].a == 1.0f && out[3].b == 5.0f));
  CHECK((out[2].a == -1.0f && out[2].b == -3.0f));
  CHECK((out[1].a == -3.0f && out[1].b == -10.0f));
  CHECK((out[0].a == -6.0f && out[0].b == -19.0f));
}

TEST_CASE("reference: a reverse device scan with a running total starts from the counter at the last element",
          "[reference][reverse]") {
  dsl::Spec spec = spec_of(
      "scan d { type = i32; op = add; level = device; mode = exclusive; outputs = running_total; reverse = true; }");
  ref::Evaluator ev(spec);
  const int32_t counter = 10;
  ref::Evaluator::Result r = run(ev, std::vector<int32_t>{1, 2, 3}, &counter);
  CHECK(unpack<int32_t>(r.exclusive) == std::vector<int32_t>{15, 13, 10});
  CHECK(unpack_one<int32_t>(r.running_total) == 16);
  // n = 0: no outputs, the counter unchanged.
  r = run(ev, std::vector<int32_t>{}, &counter);
  CHECK(r.exclusive.empty());
  CHECK(unpack_one<int32_t>(r.running_total) == 10);
}
