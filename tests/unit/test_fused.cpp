// Fused inputs in the front end and the CPU reference: convert(v, i), the
// element's index as convert's second parameter (docs/dsl.md §5.4).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "scangen/dsl/field_arrays.h"
#include "scangen/reference/reference.h"
#include "spec_support.h"

namespace {

using namespace scangen;
using test::spec_of;

const char* const kWeighted =
    "scan w { type = u64; input = u32; convert(v, i) = u64(v) * (i + 1); op = add; mode = both; "
    "outputs = aggregate; }";

std::vector<uint64_t> as_u64(const std::vector<uint8_t>& bytes) {
  std::vector<uint64_t> out(bytes.size() / 8);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace

TEST_CASE("convert(v, i): the index is a u64 parameter, printed and read back the same", "[dsl][fused]") {
  const dsl::Spec s = spec_of(kWeighted);
  REQUIRE(s.convert);
  CHECK(s.convert->params == std::vector<std::string>{"v", "i"});
  REQUIRE(s.convert->param_types.size() == 2);
  CHECK(s.convert->param_types[0] == dsl::Type::scalar(dsl::ScalarKind::U32));
  CHECK(s.convert->param_types[1] == dsl::Type::scalar(dsl::ScalarKind::U64));
  const std::string text = s.to_string();
  INFO(text);
  CHECK(text.find("convert(v, i) = u64(v) * (i + u64(1));") != std::string::npos);
  CHECK(spec_of(text) == s);
  // One parameter is not the same spec.
  CHECK(spec_of("scan w { type = u64; input = u32; convert(v) = u64(v); op = add; mode = both; "
                "outputs = aggregate; }") != s);
}

TEST_CASE("convert(v, i) in the reference: each element's index in the array, in both directions", "[ref][fused]") {
  const std::vector<uint32_t> in = {7, 0, 4294967295u, 3, 12, 1};
  std::vector<uint8_t> bytes(in.size() * 4);
  std::memcpy(bytes.data(), in.data(), bytes.size());
  for (bool reverse : {false, true}) {
    INFO("reverse = " << reverse);
    std::string text = kWeighted;
    if (reverse) text.insert(text.size() - 1, "reverse = true; ");
    const ref::Evaluator ev(spec_of(text));
    CHECK(ev.converts_index());
    const ref::Evaluator::Result r = ev.scan(bytes.data(), in.size());
    const std::vector<uint64_t> inc = as_u64(r.inclusive), exc = as_u64(r.exclusive);
    uint64_t sum = 0;
    for (size_t step = 0; step < in.size(); ++step) {
      const size_t i = reverse ? in.size() - 1 - step : step;
      CHECK(exc[i] == sum);
      sum += static_cast<uint64_t>(in[i]) * (i + 1);
      CHECK(inc[i] == sum);
    }
    CHECK(as_u64(r.aggregates) == std::vector<uint64_t>{sum});
  }
  const ref::Evaluator ev(spec_of(kWeighted));
  uint64_t out = 0;
  ev.convert(&in[2], &out, 9);
  CHECK(out == 4294967295ull * 10);
  CHECK_FALSE(ref::Evaluator(spec_of("scan p { type = u64; input = u32; op = add; }")).converts_index());
}

TEST_CASE("convert(v, i) in shaped scans: the place along the row or line (in segmented ones the array index)",
          "[ref][fused][shapes]") {
  // Two rows of 3 (row stride 4): i counts from each row's first element, also with reverse = true.
  const std::vector<uint32_t> in = {1, 2, 3, 99, 4, 5, 6, 99};
  std::vector<uint8_t> bytes(in.size() * 4);
  std::memcpy(bytes.data(), in.data(), bytes.size());
  const std::string rows =
      "scan w { type = u64; input = u32; convert(v, i) = u64(v) * (i + 1); op = add; "
      "level = device; shape = rows; mode = both; outputs = aggregate; ";
  for (bool reverse : {false, true}) {
    INFO("reverse = " << reverse);
    const ref::Evaluator ev(spec_of(rows + (reverse ? "reverse = true; }" : "}")));
    const ref::Evaluator::Result r = ev.scan_rows(bytes.data(), 2, 3, 4);
    const std::vector<uint64_t> inc = as_u64(r.inclusive);
    const std::vector<uint64_t> want =
        reverse ? std::vector<uint64_t>{14, 13, 9, 32, 28, 18} : std::vector<uint64_t>{1, 5, 14, 4, 14, 32};
    CHECK(inc == want);
    CHECK(as_u64(r.aggregates) == std::vector<uint64_t>{14, 32});
  }
  // Segments: i is the element's index in the array, not in its segment.
  const ref::Evaluator seg(
      spec_of("scan s { type = u64; input = u32; convert(v, i) = u64(v) * (i + 1); op = add; "
              "level = device; segments = offsets; offset = u32; }"));
  const std::vector<uint32_t> x = {1, 1, 1, 1};
  const ref::Evaluator::Result r = seg.scan_ranges(x.data(), 4, {{0, 2}, {2, 4}});
  CHECK(as_u64(r.inclusive) == std::vector<uint64_t>{1, 3, 3, 7});
  // Accepted by the checker with each shape and segments, and explained.
  for (const char* shape : {"shape = rows;", "shape = strided;", "segments = flags;", "segments = keys;"}) {
    INFO(shape);
    const dsl::Spec s = spec_of(std::string("scan s { type = u64; input = u32; convert(v, i) = u64(v) + i; "
                                            "op = add; level = device; ") +
                                shape + " }");
    CHECK(s.convert_takes_index());
  }
}

// ---- input arrays: input = T1, T2, ...; and input = none; --------------------

namespace {

const char* const kSoa =
    "type Affine { a: f32, b: f32 }\n"
    "scan soa { type = Affine; input = f32, f32; convert(p, q) = Affine { a: p, b: q };"
    " combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b }; identity = Affine { a: 1.0, b: 0.0 }; }";

}  // namespace

TEST_CASE("input arrays: one convert parameter per array, the index after them, printed and read back the same",
          "[dsl][fused]") {
  const dsl::Spec s = spec_of(kSoa);
  REQUIRE(s.input_arrays);
  CHECK(*s.input_arrays == std::vector<dsl::Type>(2, dsl::Type::scalar(dsl::ScalarKind::F32)));
  CHECK(s.input == s.type);
  CHECK(s.input_array_count() == 2);
  CHECK_FALSE(s.convert_takes_index());
  const std::string text = s.to_string();
  INFO(text);
  CHECK(text.find("input = f32, f32;") != std::string::npos);
  CHECK(spec_of(text) == s);
  const dsl::Spec indexed =
      spec_of("scan m { type = u64; input = u8, i32; convert(a, b, i) = u64(a) + u64(b) * i; op = add; }");
  CHECK(indexed.convert_takes_index());
  CHECK(indexed.convert->param_types.back() == dsl::Type::scalar(dsl::ScalarKind::U64));
  CHECK(spec_of(indexed.to_string()) == indexed);
  const dsl::Spec none = spec_of("scan c { type = u64; input = none; convert(i) = i; op = add; }");
  REQUIRE(none.input_arrays);
  CHECK(none.input_arrays->empty());
  CHECK(none.convert_takes_index());
  CHECK(none.to_string().find("input = none;") != std::string::npos);
  CHECK(spec_of(none.to_string()) == none);
  const dsl::Spec constant = spec_of("scan k { type = u32; input = none; convert() = 1; op = add; }");
  CHECK_FALSE(constant.convert_takes_index());
  CHECK(constant != spec_of("scan k { type = u32; input = u32; convert(v) = 1; op = add; }"));
}

TEST_CASE("input arrays in the reference: convert over element i of each array, then the scan", "[ref][fused]") {
  const std::vector<float> a = {2.0f, 0.5f, 3.0f, 1.0f}, b = {1.0f, -1.0f, 0.25f, 4.0f};
  const ref::Evaluator ev(spec_of(kSoa));
  const ref::Evaluator::Result r = ev.scan_arrays({a.data(), b.data()}, a.size());
  std::vector<float> got(r.inclusive.size() / 4);
  std::memcpy(got.data(), r.inclusive.data(), r.inclusive.size());
  float pa = 1.0f, pb = 0.0f;  // the composed map v -> pa * v + pb, the earlier first
  for (size_t i = 0; i < a.size(); ++i) {
    pb = a[i] * pb + b[i];
    pa = a[i] * pa;
    CHECK(got[2 * i] == pa);
    CHECK(got[2 * i + 1] == pb);
  }
  const ref::Evaluator counting(spec_of("scan c { type = u64; input = none; convert(i) = i * 3; op = add; }"));
  CHECK(as_u64(counting.scan_arrays({}, 5).inclusive) == std::vector<uint64_t>{0, 3, 9, 18, 30});
  CHECK_THROWS_AS(counting.scan_arrays({a.data()}, 1), std::invalid_argument);
}

TEST_CASE("with_field_arrays: a struct scan's input as one array per scalar field, the scan unchanged",
          "[dsl][fused]") {
  const char* const kText =
      "type In { x: f32, w: Inner }\n"
      "type Inner { k: u8, m: i32 }\n"
      "type Out { s: f64, c: i64 }\n"
      "scan fields { type = Out; input = In;"
      " convert(v, i) { let field0: f64 = f64(v.x) * f64(v.w.m); return Out { s: field0 + f64(v.w.k), c: i64(i) }; }"
      " combine(a, b) = Out { s: a.s + b.s, c: a.c * 3 + b.c }; identity = Out { s: 0.0, c: 0 }; mode = both; }";
  const dsl::Spec s = spec_of(kText);
  std::string why;
  const std::optional<dsl::Spec> soa = dsl::with_field_arrays(s, &why);
  INFO(why);
  REQUIRE(soa);
  REQUIRE(soa->input_arrays);
  CHECK(*soa->input_arrays == std::vector<dsl::Type>{dsl::Type::scalar(dsl::ScalarKind::F32),
                                                     dsl::Type::scalar(dsl::ScalarKind::U8),
                                                     dsl::Type::scalar(dsl::ScalarKind::I32)});
  CHECK(soa->convert_takes_index());
  // The let named field0 keeps its name: the parameters take another.
  CHECK(soa->convert->params == std::vector<std::string>{"field_0", "field_1", "field_2", "i"});
  const std::string text = soa->to_string();
  INFO(text);
  CHECK(spec_of(text) == *soa);  // a spec the checker accepts as it is
  // The same results from the arrays as from the structs.
  const uint64_t n = 37;
  std::vector<uint8_t> structs(n * s.input.size());
  std::vector<float> x(n);
  std::vector<uint8_t> k(n);
  std::vector<int32_t> m(n);
  for (uint64_t i = 0; i < n; ++i) {
    x[i] = 0.25f * static_cast<float>(i) - 3.0f;
    k[i] = static_cast<uint8_t>(i * 7);
    m[i] = static_cast<int32_t>(i * i) - 100;
    uint8_t* e = structs.data() + i * s.input.size();  // x @0, w @4: k @4, m @8
    std::memcpy(e, &x[i], 4);
    std::memcpy(e + 4, &k[i], 1);
    std::memcpy(e + 8, &m[i], 4);
  }
  const ref::Evaluator::Result want = ref::Evaluator(s).scan(structs.data(), n);
  const ref::Evaluator::Result got = ref::Evaluator(*soa).scan_arrays({x.data(), k.data(), m.data()}, n);
  CHECK(got.inclusive == want.inclusive);
  CHECK(got.exclusive == want.exclusive);
  // Where input arrays do not go.
  CHECK_FALSE(dsl::with_field_arrays(spec_of("scan p { type = u32; op = add; }"), &why));
  CHECK(why == "the input is not a struct");
  CHECK_FALSE(dsl::with_field_arrays(
      spec_of(std::string(kText).insert(std::string(kText).size() - 1, " reverse = true;")), &why));
  CHECK(why.find("forward") != std::string::npos);
  // A convert that reads its neighbours keeps the struct (it dereferenced a null expression before).
  CHECK_FALSE(dsl::with_field_arrays(spec_of("type P { a: f64, b: f64 }\nscan nb { type = f64; input = P; "
                                             "convert(e) = prev(e).a * 10.0 + e.b; op = add; }"),
                                     &why));
  CHECK(why.find("prev(x) / next(x)") != std::string::npos);
}
