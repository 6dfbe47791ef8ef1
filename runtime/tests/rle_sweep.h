// Neighbours and named fused outputs on a device (docs/dsl.md §5.13): run-length
// encoding (CUB's DeviceRunLengthEncode::Encode) of every scalar type from i8
// to f64, with u32 and u64 counts, over the awkward sizes and three run
// patterns (all equal, every element its own run, random runs of 1 to 24),
// and a dense output of neighbour differences (prev and next in convert and
// in a scatter function, the convert without its index written), each output
// poisoned past its end, checked against the CPU reference and a plain loop;
// shared by the OpenCL run (test_rle_opencl.cpp, PoCL here) and the CUDA run
// (test_rle_cuda.cpp).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace scangen::test::rle {

constexpr uint8_t kPoison = 0xAB;
constexpr uint64_t kPad = 17;  // poisoned elements past each output's end

inline std::vector<std::string> types() { return {"i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64"}; }

// The run-length encoding of `t` as examples/select/run_length_encode.scan
// writes it, its counts (runs, starts, lengths) of type `count`.
inline std::string rle_text(const std::string& t, const std::string& count) {
  const std::string R = "Runs_" + count;
  return "type " + R + " { runs: " + count + ", start: " + count + " }\n" + "scan rle_" + t + "_" + count +
         " { input = " + t + "; type = " + R + "; convert(x, i) = i == 0 || x != prev(x) ? " + R +
         " { runs: 1, start: " + count + "(i) } : " + R + " { runs: 0, start: 0 }; combine(a, b) = " + R +
         " { runs: a.runs + b.runs, start: max(a.start, b.start) }; identity = " + R +
         " { runs: 0, start: 0 }; mode = inclusive; outputs = aggregate;"
         " scatter_if(x, i) = i == 0 || x != prev(x); scatter_at(x, i, before, after) = u64(after.runs) - 1;"
         " scatter(x) = x;"
         " scatter_if.lengths(x, i, before, after, n) = i == n - 1 || x != next(x);"
         " scatter_at.lengths(x, i, before, after) = u64(after.runs) - 1;"
         " scatter.lengths(x, i, before, after) = " +
         count + "(i) + 1 - after.start; scatter_type.lengths = " + count + "; }";
}

// prev and next elsewhere: convert(v) (no index written) sums the differences
// v - prev(v) (the inclusive result at i is x[i] - x[0], wrapping), and two
// dense outputs at i read both neighbours; checked against the reference.
inline std::string neighbours_text() {
  return "scan neighbours_u32 { input = u32; type = u32; convert(v) = v - prev(v); op = add; mode = both;"
         " outputs = aggregate; scatter_at(x, i) = i; scatter(x, i, e, p) = p ^ (prev(x) * 3 + next(x));"
         " scatter_at.sides(x, i) = i; scatter_if.sides(x) = next(x) > prev(x);"
         " scatter.sides(x, i) = u64(next(x)) * 4294967296 + u64(prev(x)); scatter_type.sides = u64; }";
}
inline bool is_rle(const dsl::Spec& s) { return s.name.rfind("rle_", 0) == 0; }

// prev and next in convert without a fused output, wherever convert takes the
// index: a reverse scan (the loads through the mirror), reduce_then_scan (its
// reduce and scan kernels), and a non-commutative operator (the order of the
// neighbours' contributions); checked against the reference.
inline std::vector<std::string> convert_texts() {
  return {
      "scan near_reverse { type = u32; convert(v, i) = v * 3 + prev(v) - next(v) + u32(i); op = add; mode = both;"
      " reverse = true; outputs = aggregate; }",
      "scan near_reduce_then_scan { input = u32; type = u64; convert(v) = u64(v) * u64(next(v)) + u64(prev(v));"
      " op = add; algorithm = reduce_then_scan; outputs = aggregate; }",
      "type A { a: u32, b: u32 }\n"
      "scan near_affine { input = u32; type = A; convert(v) = A { a: v | 1, b: prev(v) ^ (next(v) << 1) };"
      " combine(x, y) = A { a: x.a * y.a, b: x.b * y.a + y.b }; identity = A { a: 1, b: 0 }; mode = both;"
      " outputs = aggregate; }"};
}

inline std::vector<std::string> specs() {
  std::vector<std::string> v;
  int k = 0;
  for (const std::string& t : types()) v.push_back(rle_text(t, (k++ % 3) == 2 ? "u64" : "u32"));
  v.push_back(neighbours_text());
  for (const std::string& t : convert_texts()) v.push_back(t);
  return v;
}

// 0, 1, around one and two tiles, around a power of two, many tiles.
inline std::vector<uint64_t> sizes(uint64_t tile) {
  return {0, 1, 2, 3, tile - 1, tile, tile + 1, 2 * tile + 1, 65535, 65537, 300007};
}

enum class Runs { AllEqual, AllDistinct, Random };
inline std::vector<Runs> patterns() { return {Runs::AllEqual, Runs::AllDistinct, Runs::Random}; }
inline const char* to_string(Runs r) {
  return r == Runs::AllEqual ? "all equal" : r == Runs::AllDistinct ? "each its own run" : "random runs";
}

// C's == on two elements of scalar type `t` (as the kernels compare).
inline bool equal(const dsl::Type& t, const uint8_t* a, const uint8_t* b) {
  if (t.contains_float()) {
    if (t.size() == 4) {
      float x, y;
      std::memcpy(&x, a, 4);
      std::memcpy(&y, b, 4);
      return x == y;
    }
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return x == y;
  }
  return std::memcmp(a, b, t.size()) == 0;
}

// n inputs in runs of the pattern (one spare element, so that n = 0 still has
// a buffer): each run's value random and unequal to the run's before.
inline std::vector<uint8_t> input(const dsl::Spec& s, uint64_t n, Runs r, std::mt19937_64& rng) {
  const size_t is = s.input.size();
  std::vector<uint8_t> in((n + 1) * is);
  std::vector<uint8_t> value(is);
  uint64_t i = 0;
  while (i < n) {
    do ref::fill_random(s.input, value.data(), 1, rng);
    while (i > 0 && equal(s.input, value.data(), in.data() + (i - 1) * is));
    const uint64_t length = r == Runs::AllEqual ? n : r == Runs::AllDistinct ? 1 : 1 + rng() % 24;
    for (uint64_t k = 0; k < length && i < n; ++k, ++i) std::memcpy(in.data() + i * is, value.data(), is);
  }
  return in;
}

// The outputs of one call, each with kPad poisoned elements past its end.
struct Outputs {
  std::vector<uint8_t> inclusive, exclusive, aggregate;
  std::vector<std::vector<uint8_t>> fused;  // scattered, then the named ones
};

// `keep_results`: the scan's own arrays are asked for too; else null.
inline Outputs poisoned(const dsl::Spec& s, uint64_t n, bool keep_results) {
  Outputs o;
  if (keep_results && s.has_inclusive()) o.inclusive.assign((n + kPad) * s.type.size(), kPoison);
  if (keep_results && s.has_exclusive()) o.exclusive.assign((n + kPad) * s.type.size(), kPoison);
  o.aggregate.assign((1 + kPad) * s.type.size(), kPoison);
  if (!s.has_scatter()) {  // convert_texts(): the scan's own arrays
    o.inclusive.assign(s.has_inclusive() ? (n + kPad) * s.type.size() : 0, kPoison);
    o.exclusive.assign(s.has_exclusive() ? (n + kPad) * s.type.size() : 0, kPoison);
    return o;
  }
  o.fused.emplace_back((n + kPad) * s.scatter_type.size(), kPoison);
  for (const dsl::Spec::NamedScatter& named : s.scatter_named)
    o.fused.emplace_back((n + kPad) * named.type.size(), kPoison);
  return o;
}

inline uint64_t read_count(size_t bytes, const uint8_t* p) {
  if (bytes == 4) {
    uint32_t c;
    std::memcpy(&c, p, 4);
    return c;
  }
  uint64_t c;
  std::memcpy(&c, p, 8);
  return c;
}

// The first byte where `got` and `want` differ, or -1.
inline long first_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  for (size_t b = 0; b < got.size(); ++b)
    if (got[b] != want[b]) return static_cast<long>(b);
  return -1;
}

// `got`, the outputs of one call on the n inputs `in`, against the reference
// and, for the encodings, against a plain loop (each run's first value and
// its length at the run's number, the number of runs, poison elsewhere).
inline void check(const dsl::Spec& s, const std::vector<uint8_t>& in, uint64_t n, Runs r, const Outputs& got) {
  INFO("scan '" << s.name << "', n = " << n << ", " << to_string(r));
  const ref::Evaluator ev(s);
  const ref::Evaluator::Result want = ev.scan(in.data(), n);
  auto check_array = [&](const char* what, const std::vector<uint8_t>& g, const std::vector<uint8_t>& w) {
    if (g.empty()) return;
    std::vector<uint8_t> expect(g.size(), kPoison);
    std::memcpy(expect.data(), w.data(), w.size());
    INFO(what << ": first wrong byte " << first_difference(g, expect));
    CHECK(first_difference(g, expect) < 0);
  };
  check_array("inclusive", got.inclusive, want.inclusive);
  check_array("exclusive", got.exclusive, want.exclusive);
  check_array("aggregate", got.aggregate, want.aggregates);

  if (!s.has_scatter()) return;
  std::vector<std::vector<uint8_t>> fused;
  std::vector<void*> outs;
  for (const std::vector<uint8_t>& f : got.fused) fused.emplace_back(f.size(), kPoison);
  for (std::vector<uint8_t>& f : fused) outs.push_back(f.data());
  const std::vector<uint64_t> written = ev.scatter_all(in.data(), n, outs);
  for (size_t k = 0; k < fused.size(); ++k) {
    INFO("fused output " << k << ": first wrong byte " << first_difference(got.fused[k], fused[k]));
    CHECK(first_difference(got.fused[k], fused[k]) < 0);
  }
  if (!is_rle(s)) return;
  // The plain loop.
  const size_t is = s.input.size(), cs = s.scatter_named.at(0).type.size();
  std::vector<uint8_t> unique(got.fused[0].size(), kPoison), lengths(got.fused[1].size(), kPoison);
  uint64_t runs = 0, start = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* e = in.data() + i * is;
    if (i == 0 || !equal(s.input, e, e - is)) std::memcpy(unique.data() + runs++ * is, e, is), start = i;
    if (i == n - 1 || !equal(s.input, e, e + is)) {
      const uint64_t length = i + 1 - start;
      std::memcpy(lengths.data() + (runs - 1) * cs, &length, cs);  // little-endian: u32 takes the low half
    }
  }
  CHECK(written.at(0) == runs);
  CHECK(written.at(1) == runs);
  INFO("the reference against the loop: values " << first_difference(fused[0], unique) << ", lengths "
                                                 << first_difference(fused[1], lengths));
  CHECK(first_difference(fused[0], unique) < 0);
  CHECK(first_difference(fused[1], lengths) < 0);
  INFO("runs: got " << read_count(cs, got.aggregate.data()) << ", want " << runs);
  CHECK(read_count(cs, got.aggregate.data()) == runs);
}

}  // namespace scangen::test::rle
