// Fused outputs on a device (docs/dsl.md §5.13): select (copy_if) and
// partition specs over every element type and a struct, with u32 and u64
// counts, the indices of selected elements (scatter_type = u64), a dense
// output of a seeded non-commutative scan (both results, i and n), the sizes, the selection ratios and the check of
// every output against the CPU reference and a plain loop; shared by the OpenCL run (test_select_opencl.cpp, PoCL here)
// and the CUDA run (test_select_cuda.cpp). Every output is poisoned past n too, and the scattered output everywhere:
// what a select does not write must keep its poison.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"
#include "test_tier.h"

namespace scangen::test::select {

constexpr uint8_t kPoison = 0xAB;
constexpr uint64_t kPad = 17;  // poisoned elements past each output's end

// The input types, with the predicate each spec writes: the low bit of an
// integer, the sign of a float, the low bit of a struct's key (a struct
// without padding, so that whole elements compare byte for byte).
struct InputType {
  std::string name;  // scalar name, or "S" (the struct below)
  bool is_float = false;
};
inline std::vector<InputType> input_types() {
  return {{"i8"}, {"u8"}, {"i16"}, {"u16"}, {"i32"}, {"u32"}, {"i64"}, {"u64"}, {"f32", true}, {"f64", true}, {"S"}};
}

inline std::string predicate(const InputType& t) {
  if (t.name == "S") return "(x.key & 1) == 1";
  return t.is_float ? "x > 0.0" : "(x & 1) == 1";
}

// `partition`: selected first in order, the rest from the end in reverse
// order (CUB's DevicePartition::If); else select (copy_if). The count's type
// is u32 or u64.
inline std::string spec_text(const InputType& t, bool partition, const std::string& count) {
  const std::string name = std::string(partition ? "partition_" : "select_") + t.name + "_" + count;
  const std::string p = predicate(t);
  std::string s = t.name == "S" ? "type S { key: i32, tag: u8, mark: u8, w: u16, val: f64 }\n" : "";
  s += "scan " + name + " { input = " + t.name + "; type = " + count + "; convert(x) = " + p +
       " ? 1 : 0; op = add; mode = exclusive; outputs = aggregate; ";
  if (partition)
    s += "scatter_at(x, i, before, after, n) = " + p + " ? u64(before) : n - 1 - (i - u64(before)); ";
  else
    s += "scatter_if(x) = " + p + "; scatter_at(x, i, before) = u64(before); ";
  return s + "scatter(x) = x; }";
}

// Select the indices of the selected elements (as numpy.nonzero): a fused
// output of another type than the input, u64.
inline std::string indices_text(const InputType& t, const std::string& count) {
  std::string s = t.name == "S" ? "type S { key: i32, tag: u8, mark: u8, w: u16, val: f64 }\n" : "";
  const std::string p = predicate(t);
  return s + "scan indices_" + t.name + "_" + count + " { input = " + t.name + "; type = " + count +
         "; convert(x) = " + p + " ? 1 : 0; op = add; mode = exclusive; outputs = aggregate; scatter_if(x) = " + p +
         "; scatter_at(x, i, before) = u64(before); scatter(x, i) = i; scatter_type = u64; }";
}
inline bool selects_indices(const dsl::Spec& s) { return s.name.rfind("indices_", 0) == 0; }

// A dense fused output beside nothing (the test passes no prefix array): each
// element's value from x, i, both seeded results of a non-commutative
// operator and n, at position i; checked against the reference alone.
inline std::string dense_text() {
  return "type A { a: u32, b: u32 }\n"
         "scan dense_affine { type = A; input = u32; convert(v, i) = A { a: v | 1, b: u32(i) ^ v };"
         " combine(x, y) = A { a: x.a * y.a, b: x.b * y.a + y.b }; identity = A { a: 1, b: 0 }; mode = both;"
         " init = A { a: 3, b: 7 }; outputs = aggregate; scatter_type = u64; scatter_at(x, i) = i;"
         " scatter(x, i, e, p, n) = u64(e.a) * 1000003 + u64(e.b) * 31 + u64(p.b) + u64(x) * n + i; }";
}
inline bool is_dense(const dsl::Spec& s) { return s.name.rfind("dense_", 0) == 0; }

inline std::vector<std::string> specs() {
  std::vector<std::string> v;
  int k = 0;
  for (const InputType& t : input_types())
    for (bool partition : {false, true}) v.push_back(spec_text(t, partition, (k++ % 2) ? "u64" : "u32"));
  for (const char* t : {"i8", "f64", "S"}) v.push_back(indices_text({t, std::string(t) == "f64"}, "u32"));
  v.push_back(dense_text());
  return v;
}

// 0, 1, around one and two tiles, around a power of two, many tiles.
inline std::vector<uint64_t> sizes(uint64_t tile) {
  return {0, 1, 2, tile - 1, tile, tile + 1, 2 * tile + 1, 65535, 65537, 1000003};
}

enum class Ratio { None, All, Alternate, Random };
inline std::vector<Ratio> ratios() { return {Ratio::None, Ratio::All, Ratio::Alternate, Ratio::Random}; }
inline const char* to_string(Ratio r) {
  return r == Ratio::None ? "0%" : r == Ratio::All ? "100%" : r == Ratio::Alternate ? "alternating" : "random";
}

// Whether element `e` (bytes of the input type) is selected, as the specs' predicate says.
inline bool selected(const dsl::Type& t, const uint8_t* e) {
  if (t.is_struct() || !t.contains_float()) return (e[0] & 1) != 0;  // little-endian: the low bit
  if (t.size() == 4) {
    float f;
    std::memcpy(&f, e, 4);
    return f > 0.0f;
  }
  double d;
  std::memcpy(&d, e, 8);
  return d > 0.0;
}

// Makes element `e` selected or not, keeping its other bits random.
inline void force(const dsl::Type& t, uint8_t* e, bool want) {
  if (t.is_struct() || !t.contains_float()) {
    e[0] = static_cast<uint8_t>(want ? (e[0] | 1) : (e[0] & ~1));
  } else if (t.size() == 4) {
    float f;
    std::memcpy(&f, e, 4);
    f = f < 0 ? -f : f;
    if (want && !(f > 0.0f)) f = 1.5f;
    if (!want) f = -f;
    std::memcpy(e, &f, 4);
  } else {
    double d;
    std::memcpy(&d, e, 8);
    d = d < 0 ? -d : d;
    if (want && !(d > 0.0)) d = 2.25;
    if (!want) d = -d;
    std::memcpy(e, &d, 8);
  }
}

// n random inputs with the ratio's selection (one spare element, so that n = 0 still has a buffer).
inline std::vector<uint8_t> input(const dsl::Spec& s, uint64_t n, Ratio r, std::mt19937_64& rng) {
  const size_t is = s.input.size();
  std::vector<uint8_t> in((n + 1) * is);
  ref::fill_random(s.input, in.data(), n, rng);
  for (uint64_t i = 0; i < n; ++i) {
    const bool want = r == Ratio::All || (r == Ratio::Alternate && i % 2 == 0) || (r == Ratio::Random && (rng() & 1));
    force(s.input, in.data() + i * is, want);
  }
  return in;
}

// The outputs of one call, each with kPad poisoned elements past its end.
struct Outputs {
  std::vector<uint8_t> exclusive, scattered, aggregate;
};

// `keep_exclusive`: the scan's exclusive results are asked for too (beside
// the fused output); else their array is null (the fused output instead).
inline Outputs poisoned(const dsl::Spec& s, uint64_t n, bool keep_exclusive) {
  Outputs o;
  if (keep_exclusive && !is_dense(s)) o.exclusive.assign((n + kPad) * s.type.size(), kPoison);
  o.scattered.assign((n + kPad) * s.scatter_type.size(), kPoison);
  o.aggregate.assign((1 + kPad) * s.type.size(), kPoison);
  return o;
}

inline uint64_t read_count(const dsl::Spec& s, const uint8_t* p) {
  if (s.type.size() == 4) {
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
// and against a plain loop (selected elements in order, the count, the rest
// in reverse from the end for a partition, poison elsewhere).
inline void check(const dsl::Spec& s, const std::vector<uint8_t>& in, uint64_t n, Ratio r, const Outputs& got) {
  const size_t is = s.input.size(), es = s.type.size(), os = s.scatter_type.size();
  const bool partition = !s.scatter_if;
  INFO("scan '" << s.name << "', n = " << n << ", selection " << to_string(r));
  const ref::Evaluator ev(s);
  const ref::Evaluator::Result want = ev.scan(in.data(), n);
  if (!got.exclusive.empty()) {
    std::vector<uint8_t> exc(got.exclusive.size(), kPoison);
    std::memcpy(exc.data(), want.exclusive.data(), want.exclusive.size());
    INFO("exclusive: first wrong byte " << first_difference(got.exclusive, exc));
    CHECK(first_difference(got.exclusive, exc) < 0);
  }
  std::vector<uint8_t> agg(got.aggregate.size(), kPoison);
  std::memcpy(agg.data(), want.aggregates.data(), es);
  CHECK(first_difference(got.aggregate, agg) < 0);

  std::vector<uint8_t> scattered(got.scattered.size(), kPoison);
  const uint64_t written = ev.scatter(in.data(), n, scattered.data());
  if (is_dense(s)) {  // the reference alone: every element written
    CHECK(written == n);
    INFO("scattered: first wrong byte " << first_difference(got.scattered, scattered));
    CHECK(first_difference(got.scattered, scattered) < 0);
    return;
  }
  // The plain loop.
  std::vector<uint8_t> loop(got.scattered.size(), kPoison);
  uint64_t count = 0, rejected = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* e = in.data() + i * is;
    if (selected(s.input, e))
      std::memcpy(loop.data() + count++ * os, selects_indices(s) ? static_cast<const void*>(&i) : e, os);
    else if (partition)
      std::memcpy(loop.data() + (n - 1 - rejected++) * os, e, os);
  }
  CHECK(written == (partition ? n : count));
  INFO("the reference against the loop: first wrong byte " << first_difference(scattered, loop));
  CHECK(first_difference(scattered, loop) < 0);
  INFO("count: got " << read_count(s, got.aggregate.data()) << ", want " << count);
  CHECK(read_count(s, got.aggregate.data()) == count);
  const long bad = first_difference(got.scattered, loop);
  INFO("scattered: first wrong byte " << bad << " (element " << (bad < 0 ? -1 : bad / static_cast<long>(os))
                                      << "; elements from " << count << " on must keep their poison in a select)");
  CHECK(bad < 0);
}

// The scan's own results of a call with fused outputs (`got`: n elements and
// kPad of poison, or empty where not asked for) against the reference's.
inline void check_own(const dsl::Spec& s, const std::vector<uint8_t>& in, uint64_t n,
                      const std::vector<uint8_t>& inclusive, const std::vector<uint8_t>& exclusive) {
  INFO("scan '" << s.name << "', n = " << n << ": the scan's own results beside the fused output");
  const ref::Evaluator::Result want = ref::Evaluator(s).scan(in.data(), n);
  for (const auto& [got, ref_bytes] :
       {std::pair{&inclusive, &want.inclusive}, std::pair{&exclusive, &want.exclusive}}) {
    if (got->empty()) continue;
    std::vector<uint8_t> expect(got->size(), kPoison);
    std::memcpy(expect.data(), ref_bytes->data(), ref_bytes->size());
    INFO((got == &inclusive ? "inclusive" : "exclusive") << ": first wrong byte " << first_difference(*got, expect));
    CHECK(first_difference(*got, expect) < 0);
  }
}

// ---- one call, and the sweeps over it, for any backend ----------------------
//
// A backend `B` has `void run(const Scan&, Call&)`: every non-empty buffer of
// the call to the device, the scan run on `n`, every buffer back (`in` too:
// in place, the exclusive results are written over it).

struct Call {
  std::vector<uint8_t> in, inclusive, exclusive, scattered, aggregate, running_total;
  uint64_t n = 0;
  bool in_place = false;  // the exclusive results into `in`'s buffer
};

template <class B>
Outputs run_one(B& b, const Scan& scan, const std::vector<uint8_t>& in, uint64_t n, bool keep_exclusive) {
  Outputs got = poisoned(scan.spec(), n, keep_exclusive);
  Call c{in, {}, got.exclusive, got.scattered, got.aggregate, {}, n, false};
  b.run(scan, c);
  got.exclusive = c.exclusive;
  got.scattered = c.scattered;
  got.aggregate = c.aggregate;
  return got;
}

// Every spec of specs() at every size and selection ratio; a third of the
// calls ask for the exclusive results too.
template <class B>
void sweep(B& b, Runtime& rt, std::mt19937_64& rng) {
  int k = 0;
  for (const std::string& text : sample_texts(specs(), "select and partition")) {
    INFO(text);
    const Scan scan = rt.compile(text);
    for (uint64_t n : sizes(scan.plan().tile))
      for (Ratio r : ratios()) {
        const std::vector<uint8_t> in = input(scan.spec(), n, r, rng);
        check(scan.spec(), in, n, r, run_one(b, scan, in, n, (k++ % 3) == 0));
      }
  }
}

// The pass that writes the fused outputs writes the scan's own results too:
// both of them (mode = both, a non-commutative operator, the inclusive one
// read at every thread's last item), and in place (the input read before
// its element is overwritten).
template <class B>
void own_results(B& b, Runtime& rt, std::mt19937_64& rng) {
  const Scan both = rt.compile(dense_text());
  const Scan select = rt.compile(spec_text({"u32"}, false, "u32"));
  for (const Scan* scan : {&both, &select})
    for (uint64_t n : sizes(scan->plan().tile)) {
      const dsl::Spec& s = scan->spec();
      const bool in_place = scan == &select;
      const std::vector<uint8_t> in = input(s, n, Ratio::Random, rng);
      const Outputs fused = poisoned(s, n, false);
      const std::vector<uint8_t> own((n + kPad) * s.type.size(), kPoison);
      Call c{in,
             in_place ? std::vector<uint8_t>{} : own,
             in_place ? std::vector<uint8_t>{} : own,
             fused.scattered,
             fused.aggregate,
             {},
             n,
             in_place};
      b.run(*scan, c);
      if (in_place) {
        c.exclusive = c.in;
        c.exclusive.resize(n * s.type.size());  // the spare element is no result
      }
      check_own(s, in, n, c.inclusive, c.exclusive);
      check(s, in, n, Ratio::Random, Outputs{{}, c.scattered, c.aggregate});
    }
}

// ---- warp and block level: P_scatter and P_scatter_update -------------------
//
// Through the entry kernel, which calls the public P_scatter (with outputs =
// running_total P_scatter_update) on each thread's elements: a per-segment
// select (each block segment compacted into its own range; the same in each
// logical warp of 128 lanes), a dense output of a non-commutative operator
// whose init seeds the exclusive results alone (warp(8), mode = both), and a buffer allocation across groups (positions
// from a running total, the order between groups not fixed).

inline std::vector<std::string> group_texts() {
  return {
      "scan group_select { input = i32; type = u32; convert(x) = (x & 1) == 1 ? 1 : 0; op = add; level = block;"
      " threads = 64; items = 3; mode = exclusive; outputs = aggregate; scatter_if(x) = (x & 1) == 1;"
      " scatter_at(x, i, before) = i - i % 192 + u64(before); scatter(x) = x; }",
      "type A { a: u32, b: u32 }\nscan group_dense { type = A; input = u32; convert(v) = A { a: v | 1, b: v };"
      " combine(x, y) = A { a: x.a * y.a, b: x.b * y.a + y.b }; identity = A { a: 1, b: 0 }; level = warp(8);"
      " threads = 64; items = 2; mode = both; init = A { a: 3, b: 7 }; init_applies_to = exclusive;"
      " scatter_type = u64; scatter_at(x, i) = i;"
      " scatter(x, i, e, p, n) = u64(e.a) * 1000003 + u64(e.b) * 31 + u64(p.b) + u64(x) * n + i; }",
      // A logical warp of 128 lanes (4 warps of 32) selecting odd values within each of its segments.
      "scan group_select_wide { input = i32; type = u32; convert(x) = (x & 1) == 1 ? 1 : 0; op = add;"
      " level = warp(128); threads = 256; items = 3; mode = inclusive; scatter_if(x) = (x & 1) == 1;"
      " scatter_at(x, i, before) = i - i % 384 + u64(before); scatter(x) = x; }",
  };
}

inline const char* group_alloc_text() {
  return "scan group_alloc { input = u32; type = u64; convert(x) = u64(x % 2); op = add; level = block;"
         " threads = 32; items = 4; mode = exclusive; outputs = running_total; scatter_if(x) = x % 2 == 1;"
         " scatter_at(x, i, before) = before; scatter(x, i) = i; scatter_type = u64; }";
}

template <class B>
void group_allocation(B& b, Runtime& rt, std::mt19937_64& rng);

// Each group spec at sizes around its segment: every output against the
// reference (segment by segment); the scan's own arrays null in every other call.
template <class B>
void group_outputs(B& b, Runtime& rt, std::mt19937_64& rng) {
  int k = 0;
  for (const std::string& text : sample_texts(group_texts(), "fused outputs of warp and block scans")) {
    INFO(text);
    const Scan scan = rt.compile(text);
    const dsl::Spec& s = scan.spec();
    const uint64_t seg = s.segment_size(), es = s.type.size();
    for (uint64_t n : {uint64_t{0}, uint64_t{1}, seg - 1, seg, seg + 1, 7 * seg + 5, uint64_t{65537}}) {
      INFO("n = " << n);
      const std::vector<uint8_t> in = input(s, n, Ratio::Random, rng);
      const bool own = (k++ % 2) == 0;
      const std::vector<uint8_t> outs = own ? std::vector<uint8_t>((n + kPad) * es, kPoison) : std::vector<uint8_t>{};
      const uint64_t segments = (n + seg - 1) / seg;
      Call c{in,
             s.has_inclusive() ? outs : std::vector<uint8_t>{},
             s.has_exclusive() ? outs : std::vector<uint8_t>{},
             std::vector<uint8_t>((n + kPad) * s.scatter_type.size(), kPoison),
             s.aggregate ? std::vector<uint8_t>((segments + kPad) * es, kPoison) : std::vector<uint8_t>{},
             {},
             n,
             false};
      b.run(scan, c);
      const ref::Evaluator ev(s);
      std::vector<uint8_t> scattered(c.scattered.size(), kPoison);
      ev.scatter(in.data(), n, scattered.data());
      INFO("scattered: first wrong byte " << first_difference(c.scattered, scattered));
      CHECK(first_difference(c.scattered, scattered) < 0);
      const ref::Evaluator::Result want = ev.scan(in.data(), n);
      if (own) check_own(s, in, n, c.inclusive, c.exclusive);
      if (s.aggregate) {
        std::vector<uint8_t> agg(c.aggregate.size(), kPoison);
        std::memcpy(agg.data(), want.aggregates.data(), want.aggregates.size());
        INFO("aggregates: first wrong byte " << first_difference(c.aggregate, agg));
        CHECK(first_difference(c.aggregate, agg) < 0);
      }
    }
  }
  group_allocation(b, rt, rng);
}

// Buffer allocation: each odd element takes one slot from the running
// total; the groups take their slots in any order, each group's in order.
template <class B>
void group_allocation(B& b, Runtime& rt, std::mt19937_64& rng) {
  const Scan alloc = rt.compile(group_alloc_text());
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{129}, uint64_t{100003}}) {
    INFO("scan group_alloc, n = " << n);
    std::vector<uint8_t> in = input(alloc.spec(), n, Ratio::Random, rng);
    const uint64_t start = n % 5;  // the counter's value before the call
    std::vector<uint8_t> counter(8);
    std::memcpy(counter.data(), &start, 8);
    Call c{in, {}, {}, std::vector<uint8_t>((n + kPad) * 8, kPoison), {}, counter, n, false};
    b.run(alloc, c);
    std::vector<uint64_t> odd;
    for (uint64_t i = 0; i < n; ++i) {
      uint32_t x;
      std::memcpy(&x, in.data() + i * 4, 4);
      if (x % 2 == 1) odd.push_back(i);
    }
    uint64_t after = 0;
    std::memcpy(&after, c.running_total.data(), 8);
    CHECK(after == start + odd.size());
    // Slots start .. start + count - 1 (those below n) hold each odd index once; the others keep their poison.
    std::vector<uint64_t> got;
    uint64_t poisoned_ok = 0, slots = 0;
    for (uint64_t p = 0; p < n + kPad; ++p) {
      const bool slot = p >= start && p < start + odd.size() && p < n;
      uint64_t v;
      std::memcpy(&v, c.scattered.data() + p * 8, 8);
      if (slot) {
        got.push_back(v);
        ++slots;
      } else {
        poisoned_ok +=
            std::all_of(c.scattered.begin() + static_cast<long>(p * 8),
                        c.scattered.begin() + static_cast<long>(p * 8 + 8), [](uint8_t x) { return x == kPoison; });
      }
    }
    CHECK(poisoned_ok == n + kPad - slots);
    // Within a group the slots follow the elements: each slot's index is above the one before it in the same segment.
    uint64_t out_of_order = 0;
    for (size_t j = 1; j < got.size(); ++j)
      out_of_order +=
          got[j] / alloc.spec().segment_size() == got[j - 1] / alloc.spec().segment_size() && got[j] < got[j - 1];
    CHECK(out_of_order == 0);
    // Every odd index once (where every slot lies below n; else some were dropped, which ones not fixed).
    std::sort(got.begin(), got.end());
    if (start + odd.size() <= n) CHECK(got == odd);
  }
}

}  // namespace scangen::test::select
