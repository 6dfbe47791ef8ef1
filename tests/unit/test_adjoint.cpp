// dsl::adjoint: the backward scan derived from a scan's operator, run by the
// reference, against central differences of the forward scan (f64): the
// gradient of L = sum_i <yb[i], y[i]> with respect to every float scalar of
// every x[i], for inclusive and exclusive scans, from the identity and from
// an init, forward and reverse, at lengths 1 .. 40.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scangen/dsl/adjoint.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"
#include "spec_support.h"
#include "test_tier.h"

namespace dsl = scangen::dsl;
namespace ref = scangen::ref;
using scangen::test::spec_of;

namespace {

double get(const uint8_t* p) {
  double d;
  std::memcpy(&d, p, 8);
  return d;
}
void put(uint8_t* p, double d) { std::memcpy(p, &d, 8); }

struct Case {
  bool exclusive = false;
  bool reverse = false;
  bool with_init = false;
};

// The forward scan's outputs (the one the case asks for).
std::vector<uint8_t> forward(const ref::Evaluator& f, const std::vector<uint8_t>& x, uint64_t n) {
  ref::Evaluator::Result r = f.scan(x.data(), n);
  return f.spec().mode == dsl::Mode::Exclusive ? r.exclusive : r.inclusive;
}

double loss(const ref::Evaluator& f, const std::vector<uint8_t>& x, const std::vector<uint8_t>& yb, uint64_t n,
            const std::vector<size_t>& offs) {
  const std::vector<uint8_t> y = forward(f, x, n);
  const size_t es = f.spec().type.size();
  double l = 0;
  for (uint64_t i = 0; i < n; ++i)
    for (size_t o : offs)
      if (std::isfinite(get(&y[i * es + o])))  // an exclusive scan's seed (-inf for max) is a constant
        l += get(&yb[i * es + o]) * get(&y[i * es + o]);
  return l;
}

// The gradient by the adjoint scan, as a user of it computes it: y[i-1]
// (the seed first) from an exclusive forward scan, the gradient of the
// inclusive results from the case's, everything in the array's order.
std::vector<double> adjoint_gradient(const dsl::Spec& spec, const dsl::Adjoint& adj, const std::vector<uint8_t>& x,
                                     const std::vector<uint8_t>& yb_case, uint64_t n, const std::vector<size_t>& offs) {
  const size_t es = spec.type.size();
  const size_t k = offs.size();
  // yb of the inclusive results: an exclusive result is the inclusive one of the element before it in the
  // scan's order, so its gradient goes to that element; the last in the scan's order gets none.
  std::vector<uint8_t> yb(n * es, 0);
  for (uint64_t i = 0; i < n; ++i) {
    if (spec.mode != dsl::Mode::Exclusive) {
      std::memcpy(&yb[i * es], &yb_case[i * es], es);
    } else if (!spec.reverse && i + 1 < n) {
      std::memcpy(&yb[i * es], &yb_case[(i + 1) * es], es);
    } else if (spec.reverse && i > 0) {
      std::memcpy(&yb[i * es], &yb_case[(i - 1) * es], es);
    }
  }
  dsl::Spec ex = spec;
  ex.mode = dsl::Mode::Exclusive;
  const std::vector<uint8_t> yp = ref::Evaluator(ex).scan(x.data(), n).exclusive;

  const dsl::Document doc = dsl::load("adjoint.scan", adj.text);
  INFO(adj.text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  const dsl::Spec* b = doc.find(adj.name);
  REQUIRE(b != nullptr);
  CHECK(b->reverse == !spec.reverse);
  const ref::Evaluator back(*b);
  const size_t is = b->input.size();
  const auto& in_fields = b->input.struct_type().fields;
  REQUIRE(in_fields.size() == 4);
  REQUIRE(in_fields[3].name == "last");
  std::vector<uint8_t> in(n * is, 0);
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(&in[i * is + in_fields[0].offset], &yp[i * es], es);
    std::memcpy(&in[i * is + in_fields[1].offset], &x[i * es], es);
    std::memcpy(&in[i * is + in_fields[2].offset], &yb[i * es], es);
    in[i * is + in_fields[3].offset] = (spec.reverse ? i == 0 : i + 1 == n) ? 1 : 0;
  }
  const std::vector<uint8_t> g = back.scan(in.data(), n).inclusive;
  const dsl::StructType& st = b->type.struct_type();
  std::vector<double> out(n * k);
  for (uint64_t i = 0; i < n; ++i)
    for (size_t l = 0; l < k; ++l) {
      const dsl::Field& w = st.fields[2 * k * k + k + l];
      REQUIRE(w.name == "w" + std::to_string(l));
      out[i * k + l] = get(&g[i * b->type.size() + w.offset]);
    }
  return out;
}

// Compares the adjoint's gradient with central differences for every case;
// returns how many gradient entries were compared.
int check_gradient(const std::string& text, double lo, double hi, const std::string& init = "") {
  int compared = 0;
  const uint64_t seed = scangen::test::tier_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(lo, hi), weight(-1, 1);
  for (const Case c : {Case{false, false, false}, Case{true, false, false}, Case{false, true, false},
                       Case{true, true, false}, Case{false, false, true}, Case{true, true, true}}) {
    if (c.with_init && init.empty()) continue;
    dsl::Spec spec = spec_of(text);
    spec.mode = c.exclusive ? dsl::Mode::Exclusive : dsl::Mode::Inclusive;
    spec.reverse = c.reverse;
    if (c.with_init) spec.init = spec_of(text.substr(0, text.rfind('}')) + " init = " + init + "; }").init;
    CAPTURE(c.exclusive, c.reverse, c.with_init);
    const dsl::Adjoint adj = dsl::adjoint(spec);
    const dsl::Type& t = spec.type;
    const size_t es = t.size();
    std::vector<size_t> offs;
    for (const dsl::Leaf& l : adj.leaves) offs.push_back(scangen::test::leaf_offset(t, l.path));
    const ref::Evaluator f(spec);
    for (const uint64_t n : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{7}, uint64_t{40}}) {
      CAPTURE(n);
      std::vector<uint8_t> x(n * es, 0), yb(n * es, 0);
      for (uint64_t i = 0; i < n; ++i)
        for (size_t o : offs) {
          put(&x[i * es + o], value(rng));
          put(&yb[i * es + o], weight(rng));
        }
      const std::vector<double> grad = adjoint_gradient(spec, adj, x, yb, n, offs);
      for (uint64_t i = 0; i < n; ++i)
        for (size_t l = 0; l < offs.size(); ++l) {
          const double h = 1e-6;
          std::vector<uint8_t> xp = x, xm = x;
          uint8_t* p = &xp[i * es + offs[l]];
          uint8_t* m = &xm[i * es + offs[l]];
          put(p, get(p) + h);
          put(m, get(m) - h);
          const double numeric = (loss(f, xp, yb, n, offs) - loss(f, xm, yb, n, offs)) / (2 * h);
          CAPTURE(i, l, numeric, grad[i * offs.size() + l]);
          CHECK(std::abs(numeric - grad[i * offs.size() + l]) <= 1e-5 * (1 + std::abs(numeric)));
          ++compared;
        }
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("adjoint: the built-in float operators' backward scans match central differences", "[adjoint]") {
  CHECK(check_gradient("scan s { type = f64; op = add; }", -2, 2, "0.5") > 0);
  CHECK(check_gradient("scan s { type = f64; op = mul; }", 0.5, 1.5, "2.0") > 0);
  CHECK(check_gradient("scan s { type = f64; op = max; }", -2, 2, "0.0") > 0);
  CHECK(check_gradient("scan s { type = f64; op = min; }", -2, 2) > 0);
  CHECK(check_gradient("scan s { type = f64; combine(x, y) { let m = max(x, y); return m + log(exp(x - m) + "
                       "exp(y - m)); } identity = -inf; }",
                       -3, 3, "1.0") > 0);
}

TEST_CASE("adjoint: struct operators' backward scans match central differences", "[adjoint]") {
  // The affine map (a linear recurrence h = a * h + b), non-commutative.
  CHECK(check_gradient("type A { a: f64, b: f64 }\nscan s { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * "
                       "x.b + y.b }; identity = A { a: 1.0, b: 0.0 }; }",
                       -1.2, 1.2, "A { a: 1.0, b: 0.5 }") > 0);
  // Products of 2 x 2 matrices: k = 4.
  CHECK(check_gradient("type M { a: f64, b: f64, c: f64, d: f64 }\nscan s { type = M; combine(x, y) = M { a: x.a "
                       "* y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * "
                       "y.d }; identity = M { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; }",
                       -1, 1) > 0);
  // The online softmax normaliser: (running max, sum of exp relative to it).
  CHECK(check_gradient("type S { m: f64, s: f64 }\nscan s { type = S; combine(x, y) { let m = max(x.m, y.m); "
                       "return S { m: m, s: x.s * exp(x.m - m) + y.s * exp(y.m - m) }; } identity = S { m: -inf, "
                       "s: 0.0 }; }",
                       0.1, 2) > 0);
  // Arg-max: the integer index carries no gradient; the value's flows to the position that wins.
  CHECK(check_gradient("type V { v: f64, i: i64 }\nscan s { type = V; combine(x, y) = y.v > x.v ? y : x; "
                       "identity = V { v: -inf, i: 0 }; }",
                       -2, 2) > 0);
}

TEST_CASE("adjoint: what cannot be differentiated is refused by name", "[adjoint]") {
  CHECK_THROWS_WITH(dsl::adjoint(spec_of("scan s { type = i32; op = add; }")),
                    Catch::Contains("i32 has no f16, f32 or f64 scalar"));
  CHECK_THROWS_WITH(dsl::adjoint(spec_of("scan s { type = f32; input = u8; op = add; }")),
                    Catch::Contains("converts its input"));
  CHECK_THROWS_WITH(dsl::adjoint(spec_of("scan s { type = f32; op = add; level = block; }")),
                    Catch::Contains("device-level"));
  CHECK_THROWS_WITH(dsl::adjoint(spec_of("scan s { type = f64; op = add; segments = flags; }")),
                    Catch::Contains("segmented"));
}

TEST_CASE("adjoint: an f32 scan gets an f32 backward scan, and its text compiles as it reads", "[adjoint]") {
  const dsl::Spec spec = spec_of("scan s { type = f32; op = mul; }");
  const dsl::Adjoint adj = dsl::adjoint(spec);
  CHECK(adj.float_type == "f32");
  CHECK(adj.leaves.size() == 1);
  const dsl::Document doc = dsl::load("adjoint.scan", adj.text);
  INFO(adj.text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  CHECK(doc.find(adj.name)->type.size() == 5 * 4);
}
