// dsl::derivative: every partial derivative of combine(x, y), evaluated by the
// reference, against central differences of combine itself (f64, away from
// kinks: points where the one-sided differences disagree are skipped and
// counted).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scangen/dsl/derivative.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"
#include "spec_support.h"
#include "test_tier.h"

namespace dsl = scangen::dsl;
namespace ref = scangen::ref;
using scangen::test::spec_of;

namespace {

double get(const std::vector<uint8_t>& v, size_t off) {
  double d;
  std::memcpy(&d, v.data() + off, 8);
  return d;
}

void set(std::vector<uint8_t>& v, size_t off, double d) { std::memcpy(v.data() + off, &d, 8); }

// Checks every partial of the spec's combine (all float scalars f64) at
// `points` random pairs of elements whose f64 scalars are drawn from
// [lo, hi]; returns how many (point, partial) pairs were compared.
int check_partials(const std::string& text, double lo, double hi, int points) {
  const dsl::Spec spec = spec_of(text);
  const dsl::Type& t = spec.type;
  const ref::Evaluator f(spec);
  const std::vector<dsl::Leaf> out_leaves = dsl::float_leaves(t, "r");
  const uint64_t seed = scangen::test::tier_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(lo, hi);
  int compared = 0, kinks = 0;
  for (size_t param = 0; param < 2; ++param) {
    for (const dsl::Leaf& leaf : dsl::float_leaves(t, param == 0 ? "x" : "y")) {
      dsl::Spec d_spec = spec;
      d_spec.combine = dsl::derivative(spec.combine, param, leaf.path);
      INFO("d/d" << leaf.name << ": " << dsl::to_string(*d_spec.combine.body));
      const ref::Evaluator df(d_spec);
      for (int p = 0; p < points; ++p) {
        std::vector<uint8_t> x(t.size(), 0), y(t.size(), 0), got(t.size()), plus(t.size()), minus(t.size()),
            mid(t.size());
        for (const dsl::Leaf& l : dsl::float_leaves(t, "")) {
          set(x, scangen::test::leaf_offset(t, l.path), value(rng));
          set(y, scangen::test::leaf_offset(t, l.path), value(rng));
        }
        std::vector<uint8_t>& arg = param == 0 ? x : y;
        const size_t at = scangen::test::leaf_offset(t, leaf.path);
        const double v = get(arg, at), h = 1e-5 * std::max(1.0, std::fabs(v));
        df.combine(x.data(), y.data(), got.data());
        f.combine(x.data(), y.data(), mid.data());
        set(arg, at, v + h);
        f.combine(x.data(), y.data(), plus.data());
        set(arg, at, v - h);
        f.combine(x.data(), y.data(), minus.data());
        set(arg, at, v);
        for (const dsl::Leaf& r : out_leaves) {
          const size_t o = scangen::test::leaf_offset(t, r.path);
          const double right = (get(plus, o) - get(mid, o)) / h, left = (get(mid, o) - get(minus, o)) / h;
          if (std::fabs(right - left) > 1e-3 * (1 + std::fabs(right))) {
            ++kinks;  // a kink (a min, max, clamp or branch switches): no derivative to compare with
            continue;
          }
          const double numeric = (get(plus, o) - get(minus, o)) / (2 * h), symbolic = get(got, o);
          INFO(r.name << " at " << leaf.name << " = " << v << ": symbolic " << symbolic << ", numeric " << numeric);
          CHECK(std::fabs(symbolic - numeric) <= 1e-5 * (1 + std::fabs(numeric)));
          ++compared;
        }
      }
    }
  }
  CHECK(kinks < compared);  // the points are mostly smooth ones
  return compared;
}

}  // namespace

TEST_CASE("derivative: the affine maps, the 2x2 matrix product and logaddexp against central differences",
          "[derivative]") {
  CHECK(check_partials("type A { a: f64, b: f64 }\n"
                       "scan s { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
                       "identity = A { a: 1.0, b: 0.0 }; }",
                       -2, 2, 20) > 0);
  CHECK(check_partials(
            "type M { a: f64, b: f64, c: f64, d: f64 }\n"
            "scan s { type = M; combine(x, y) { let p = x.a * y.a + x.b * y.c; "
            "return M { a: p, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; } "
            "identity = M { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; }",
            -2, 2, 20) > 0);
  CHECK(check_partials(
            "scan s { type = f64; combine(x, y) { let m = max(x, y); return m + log(exp(x - m) + exp(y - m)); } "
            "identity = -inf; }",
            -5, 5, 40) > 0);
}

TEST_CASE("derivative: the built-in functions, branches, lets and conversions", "[derivative]") {
  CHECK(check_partials(
            "scan s { type = f64; combine(x, y) = clamp(x, -1.0, 1.0) * y + sqrt(abs(x) + 1.0) / (y * y + "
            "1.0) + select(x, y, x < y) + fma(x, y, x) + f64(i32(x)) * 0.0 + x * 0.5 + (x > 0.0 ? x * x : -y) - "
            "x / y + floor(x) + min(x, y) * fmax(y, 0.5) + fmin(x * y, 1.0); identity = 0.0; "
            "assume_associative = true; }",
            -3, 3, 60) > 0);
  // A struct whose integer field carries no derivative (the arg-max's index).
  CHECK(check_partials("type V { v: f64, i: i64 }\n"
                       "scan s { type = V; combine(x, y) = y.v > x.v ? y : x; identity = V { v: -inf, i: 0 }; }",
                       -2, 2, 20) > 0);
}

TEST_CASE("derivative: with respect to an integer is refused by name, and the text reads back", "[derivative]") {
  const dsl::Spec spec = spec_of(
      "type V { v: f64, i: i64 }\nscan s { type = V; combine(x, y) = y.v > x.v ? y : x; "
      "identity = V { v: -inf, i: 0 }; }");
  CHECK_THROWS_WITH(dsl::derivative(spec.combine, 0, {1}), Catch::Contains("'x.i' is i64, not a float"));
  const dsl::Spec affine = spec_of(
      "type A { a: f64, b: f64 }\nscan s { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
      "identity = A { a: 1.0, b: 0.0 }; }");
  // d/dx.b of A { y.a * x.a, y.a * x.b + y.b } is A { 0, y.a }: the zeros and ones folded away.
  CHECK(dsl::to_string(*dsl::derivative(affine.combine, 0, {1}).body) == "A { a: 0.0, b: y.a }");
  CHECK(dsl::float_leaves(affine.type, "x").size() == 2);
  CHECK(dsl::float_leaves(affine.type, "x")[1].name == "x.b");
}
