// Input arrays on a device (docs/dsl.md §5.4, `input = T1, T2, ...;` and
// `input = none;`): a struct-of-arrays affine recurrence (non-commutative,
// f32, every mode, seeded), integer arrays of three sizes into a struct
// (exact, with the index), a struct array beside a scalar one, and elements
// from the index alone (a counting sequence, a constant); the sizes and the
// check of every output against the CPU reference. Outputs are poisoned past
// n too. Shared by the OpenCL run (test_arrays_opencl.cpp, PoCL here) and the
// CUDA run (test_arrays_cuda.cpp).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace scangen::test::arrays {

constexpr uint8_t kPoison = 0xAB;
constexpr uint64_t kPad = 17;  // poisoned elements past each output's end

inline std::vector<std::string> specs() {
  const std::string affine = "type Affine { a: f32, b: f32 }\n";
  const std::string affine_op =
      " combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b }; identity = Affine { a: 1.0, b: 0.0 };";
  return {
      affine + "scan soa_affine { type = Affine; input = f32, f32; convert(a, b) = Affine { a: a, b: b };" + affine_op +
          " }",
      affine + "scan soa_affine_both { type = Affine; input = f32, f32; convert(p, q) = Affine { a: p * 0.5, b: q };" +
          affine_op + " mode = both; init = Affine { a: 2.0, b: 1.0 }; outputs = aggregate; }",
      affine + "scan soa_affine_exclusive { type = Affine; input = f32, f32; convert(a, b) = Affine { a: a, b: b };" +
          affine_op + " mode = exclusive; outputs = aggregate; }",
      // Integers, exact: a non-commutative map over u32 from three arrays of
      // different sizes and the index.
      "type M { a: u32, b: u32 }\n"
      "scan soa_mixed { type = M; input = u8, u16, u64; convert(x, y, z, i) = M { a: u32(x) | 1, b: u32(y) + "
      "u32(z) ^ u32(i) }; combine(l, r) = M { a: l.a * r.a, b: l.b * r.a + r.b }; identity = M { a: 1, b: 0 }; "
      "mode = both; outputs = aggregate; }",
      // A struct array beside a scalar one.
      "type P { x: i32, y: i32 }\n"
      "type Q { s: i64, c: i64 }\n"
      "scan soa_struct { type = Q; input = P, i16; convert(p, w) = Q { s: i64(p.x) * i64(w) - i64(p.y), c: 1 }; "
      "combine(l, r) = Q { s: l.s + r.s, c: l.c + r.c }; identity = Q { s: 0, c: 0 }; outputs = aggregate; }",
      // No array: a counting sequence (CUB's CountingInputIterator) and a constant.
      "scan counting { type = u64; input = none; convert(i) = i * i + 3; op = add; mode = both; outputs = aggregate; "
      "}",
      "scan constant_ones { type = u32; input = none; convert() = 1; op = add; mode = exclusive; outputs = aggregate; "
      "}",
  };
}

// 0, 1, around one and two tiles, around a power of two, many tiles.
inline std::vector<uint64_t> sizes(uint64_t tile) {
  return {0, 1, 2, 31, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1, 65535, 65537, 1000003};
}

// Random arrays of the spec's input types, n elements each.
inline std::vector<std::vector<uint8_t>> inputs(const dsl::Spec& s, uint64_t n, std::mt19937_64& rng) {
  std::vector<std::vector<uint8_t>> v;
  for (const dsl::Type& t : *s.input_arrays) {
    std::vector<uint8_t> a(n * t.size());
    ref::fill_random(t, a.data(), n, rng);
    // Affine factors in [0.25, 0.75]: a contracting recurrence, whose rounding
    // errors fade instead of growing with n (f32 results within 1e-3).
    if (t == dsl::Type::scalar(dsl::ScalarKind::F32) && &t == &s.input_arrays->front())
      for (uint64_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, a.data() + 4 * i, 4);
        f = 0.5f + f / 16.0f;
        std::memcpy(a.data() + 4 * i, &f, 4);
      }
    v.push_back(std::move(a));
  }
  return v;
}

struct Outputs {
  std::vector<uint8_t> inclusive, exclusive, aggregate;  // poisoned, kPad elements past n
};

inline Outputs poisoned(const dsl::Spec& s, uint64_t n) {
  const size_t t = s.type.size();
  Outputs o;
  if (s.has_inclusive()) o.inclusive.assign((n + kPad) * t, kPoison);
  if (s.has_exclusive()) o.exclusive.assign((n + kPad) * t, kPoison);
  if (s.aggregate) o.aggregate.assign((1 + kPad) * t, kPoison);
  return o;
}

inline void check_array(const dsl::Spec& s, const char* what, const std::vector<uint8_t>& want,
                        const std::vector<uint8_t>& got, uint64_t count) {
  const size_t t = s.type.size();
  const bool floats = s.type.contains_float();
  const ref::Tolerance tol{floats ? 1e-3 : 0.0, floats ? 1e-3 : 0.0};
  for (uint64_t i = 0; i < count; ++i)
    if (!ref::values_match(s.type, want.data() + i * t, got.data() + i * t, tol)) {
      INFO(what << "[" << i << "] of " << count << ": want " << ref::format_value(s.type, want.data() + i * t)
                << ", got " << ref::format_value(s.type, got.data() + i * t));
      FAIL_CHECK("wrong element");
      return;
    }
  for (size_t b = count * t; b < got.size(); ++b)
    if (got[b] != kPoison) {
      INFO(what << ": byte " << b << " past the end was written");
      FAIL_CHECK("written past n");
      return;
    }
}

inline void check(const dsl::Spec& s, const std::vector<std::vector<uint8_t>>& in, uint64_t n, const Outputs& got) {
  INFO(s.name << ", n = " << n);
  std::vector<const void*> arrays;
  for (const auto& a : in) arrays.push_back(a.data());
  const ref::Evaluator::Result want = ref::Evaluator(s).scan_arrays(arrays, n);
  if (s.has_inclusive()) check_array(s, "inclusive", want.inclusive, got.inclusive, n);
  if (s.has_exclusive()) check_array(s, "exclusive", want.exclusive, got.exclusive, n);
  if (s.aggregate) check_array(s, "aggregate", want.aggregates, got.aggregate, 1);
}

}  // namespace scangen::test::arrays
