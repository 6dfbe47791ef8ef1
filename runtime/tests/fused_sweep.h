// Fused inputs on a device (docs/dsl.md §5.12): the specs, the sizes and the
// check of every output against the CPU reference, shared by the OpenCL run
// (test_fused_opencl.cpp, PoCL here) and the CUDA run (test_fused_cuda.cpp).
// Every output is poisoned past n too, and must stay so there.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace scangen::test::fused {

constexpr uint8_t kPoison = 0xAB;
constexpr uint64_t kPad = 17;  // poisoned elements past each output's end

// Index-aware convert (convert(v, i)): integer types, so the outputs match
// the reference exactly; a non-commutative operator; both algorithms; both
// directions; inputs narrower than the scan's type (16-byte words on CUDA).
inline std::vector<std::string> index_specs() {
  return {
      "scan ix_add { type = u64; input = u32; convert(v, i) = u64(v) * (i + 1); op = add; mode = both; "
      "outputs = aggregate; }",
      "type A { a: u32, b: u32 }\n"
      "scan ix_affine { type = A; input = u32; convert(v, i) = A { a: v | 1, b: u32(i) ^ v };"
      " combine(x, y) = A { a: x.a * y.a, b: x.b * y.a + y.b }; identity = A { a: 1, b: 0 }; mode = both;"
      " outputs = aggregate; }",
      "scan ix_rev { type = i64; input = i8; convert(v, i) = i64(v) * 1000 - i64(i); op = max; reverse = true;"
      " mode = both; outputs = aggregate; }",
      "scan ix_rts { type = u32; convert(v, index) = v ^ u32(index >> 3); op = xor; algorithm = reduce_then_scan;"
      " mode = both; outputs = aggregate; }",
      "type B { a: u32, b: u32 }\n"
      "scan ix_rts_affine { type = B; input = u8; convert(v, i) = B { a: u32(v) | 1, b: u32(i) };"
      " combine(x, y) = B { a: x.a * y.a, b: x.b * y.a + y.b }; identity = B { a: 1, b: 0 };"
      " algorithm = reduce_then_scan; reverse = true; mode = exclusive; init = B { a: 3, b: 7 }; }",
  };
}

// 0, 1, around one and two tiles, around powers of two.
inline std::vector<uint64_t> sizes(uint64_t tile) {
  return {0, 1, 2, tile - 1, tile, tile + 1, 2 * tile + 1, 65535, 65537, 1000003};
}

// The outputs of one call, each with kPad poisoned elements past its end.
struct Outputs {
  std::vector<uint8_t> inclusive, exclusive, aggregate;
};

inline Outputs poisoned(const dsl::Spec& s, uint64_t n) {
  const size_t es = s.type.size();
  Outputs o;
  if (s.has_inclusive()) o.inclusive.assign((n + kPad) * es, kPoison);
  if (s.has_exclusive()) o.exclusive.assign((n + kPad) * es, kPoison);
  if (s.aggregate) o.aggregate.assign((1 + kPad) * es, kPoison);
  return o;
}

inline void compare(const dsl::Spec& s, const char* what, const std::vector<uint8_t>& got,
                    const std::vector<uint8_t>& want, uint64_t count) {
  if (got.empty()) return;
  const size_t es = s.type.size();
  uint64_t bad = 0, first = count;
  for (uint64_t i = 0; i < count; ++i)
    if (!ref::values_match(s.type, got.data() + i * es, want.data() + i * es, {})) {
      ++bad;
      if (first == count) first = i;
    }
  uint64_t touched = 0;
  for (size_t b = count * es; b < got.size(); ++b) touched += got[b] != kPoison;
  INFO("scan '" << s.name << "' " << what << ", n = " << count << ": " << bad << " wrong"
                << (bad ? ", the first at " + std::to_string(first) + ": got " +
                              ref::format_value(s.type, got.data() + first * es) + ", want " +
                              ref::format_value(s.type, want.data() + first * es)
                        : std::string()));
  CHECK(bad == 0);
  INFO("scan '" << s.name << "' " << what << ": " << touched << " bytes written past the output");
  CHECK(touched == 0);
}

// `got`, the outputs of one call on the n inputs `in`, against the reference.
inline void check(const dsl::Spec& s, const std::vector<uint8_t>& in, uint64_t n, const Outputs& got) {
  const ref::Evaluator::Result want = ref::Evaluator(s).scan(in.data(), n);
  compare(s, "inclusive", got.inclusive, want.inclusive, n);
  compare(s, "exclusive", got.exclusive, want.exclusive, n);
  compare(s, "aggregate", got.aggregate, want.aggregates, 1);
}

// n random inputs (one spare byte, so that n = 0 still has a buffer).
inline std::vector<uint8_t> random_input(const dsl::Spec& s, uint64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> in(n * s.input.size() + 1);
  ref::fill_random(s.input, in.data(), n, rng);
  return in;
}

}  // namespace scangen::test::fused
