// Fused inputs in the front end and the CPU reference: convert(v, i), the
// element's index as convert's second parameter (docs/dsl.md §5.4).
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
