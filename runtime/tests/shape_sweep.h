// The sweep of shape = rows and shape = strided, shared by the OpenCL and
// CUDA runtime tests, forward and reverse: specs of every element size (4 to 32 bytes), exact
// non-commutative operators, f32 with a tolerance, a converted input; every
// mode, init and per-row aggregates; awkward shapes. Inputs random (the seed
// printed), outputs and aggregates poisoned: every element of the shape
// must be the reference's, and every other byte (gaps between rows, the
// element after the aggregates) must keep its poison.
//
// A backend gives: Buffer upload(bytes), std::vector<uint8_t> download(Buffer, bytes),
// void run(const Scan&, Buffer in, Buffer inc, Buffer exc, Buffer agg, const Case&).
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "random_floats.h"
#include "scangen/runtime/runtime.h"
#include "test_tier.h"

namespace scangen::test::shapes {

constexpr uint8_t kPoison = 0xA5;

struct Case {
  std::string name;
  // rows
  uint64_t rows = 0, length = 0, row_stride = 0, out_row_stride = 0;
  // strided
  int rank = 0, axis = 0;
  std::vector<uint64_t> extents, strides, out_strides;
};

// The args' shape fields from a case (CudaArgs and OpenCLArgs alike).
template <class Args>
void set_shape(Args& a, const Case& c) {
  a.rows = c.rows;
  a.length = c.length;
  a.row_stride = c.row_stride;
  a.out_row_stride = c.out_row_stride;
  a.strided.rank = c.rank;
  a.strided.axis = c.axis;
  for (int d = 0; d < c.rank; ++d) {
    a.strided.extents[d] = c.extents[d];
    a.strided.strides[d] = c.strides[d];
    a.strided.out_strides[d] = c.out_strides.empty() ? 0 : c.out_strides[d];
  }
}

// The strided view of a case: extents, input and output strides.
struct View {
  std::vector<uint64_t> extents, in, out;
  int axis = 0;
};
inline View view(const Case& c) {
  if (c.rank == 0) {
    const uint64_t in = c.row_stride ? c.row_stride : c.length;
    return {{c.rows, c.length}, {in, 1}, {c.out_row_stride ? c.out_row_stride : in, 1}, 1};
  }
  return {c.extents, c.strides, c.out_strides.empty() ? c.strides : c.out_strides, c.axis};
}

// Elements from the base a walk over extents with strides touches.
inline uint64_t span(const std::vector<uint64_t>& e, const std::vector<uint64_t>& s) {
  uint64_t last = 0;
  for (size_t d = 0; d < e.size(); ++d) {
    if (e[d] == 0) return 0;
    last += (e[d] - 1) * s[d];
  }
  return last + 1;
}

inline ref::Tolerance tolerance(const dsl::Spec& s, uint64_t length) {
  if (!s.type.contains_float()) return {};
  return {1e-4, 1e-5 * static_cast<double>(std::max<uint64_t>(length, 10))};
}

// Compares one output (dense reference `want`) against `got` laid out with
// the output strides; counts wrong elements and touched gap bytes.
inline void compare(const dsl::Spec& s, const View& v, const std::vector<uint8_t>& want,
                    const std::vector<uint8_t>& got, const char* what) {
  const size_t es = s.type.size();
  std::vector<uint8_t> covered(got.size() / es, 0);
  uint64_t total = 1;
  for (uint64_t e : v.extents) total *= e;
  uint64_t wrong = 0, first_wrong = total, first_at = 0;
  for (uint64_t i = 0; i < total; ++i) {
    uint64_t rest = i, at = 0;
    for (size_t d = v.extents.size(); d-- > 0;) {
      at += (rest % v.extents[d]) * v.out[d];
      rest /= v.extents[d];
    }
    covered[at] = 1;
    if (!ref::values_match(s.type, got.data() + at * es, want.data() + i * es, tolerance(s, v.extents[v.axis]))) {
      if (wrong++ == 0) {
        first_wrong = i;
        first_at = at;
      }
    }
  }
  uint64_t touched = 0;
  for (size_t e = 0; e < covered.size(); ++e)
    if (!covered[e])
      for (size_t b = 0; b < es; ++b) touched += got[e * es + b] != kPoison;
  INFO(what << ": " << wrong << " wrong elements (the first: dense index " << first_wrong
            << (wrong ? ", got " + ref::format_value(s.type, got.data() + first_at * es) + ", want " +
                            ref::format_value(s.type, want.data() + first_wrong * es)
                      : std::string())
            << "), " << touched << " bytes of the gaps written");
  CHECK(wrong == 0);
  CHECK(touched == 0);
}

template <class Backend>
void run_case(Backend& b, const Scan& scan, const Case& c, std::mt19937_64& rng) {
  const dsl::Spec& s = scan.spec();
  const View v = view(c);
  INFO("shape " << c.name);
  const size_t is = s.input.size(), es = s.type.size();
  const uint64_t in_span = span(v.extents, v.in), out_span = span(v.extents, v.out);
  std::vector<uint8_t> in(in_span * is);
  ref::fill_random(s.input, in.data(), in_span, rng);
  const ref::Evaluator eval(s);
  const ref::Evaluator::Result want =
      c.rank == 0 ? eval.scan_rows(in.data(), c.rows, c.length, v.in[0])
                  : eval.scan_strided(in.data(), c.rank, c.extents.data(), c.strides.data(), c.axis);
  uint64_t lines = 1;
  for (size_t d = 0; d < v.extents.size(); ++d)
    if (static_cast<int>(d) != v.axis) lines *= v.extents[d];
  const std::vector<uint8_t> poison_out((out_span + 1) * es, kPoison), poison_agg((lines + 1) * es, kPoison);
  auto d_in = b.upload(in);
  auto d_inc = b.upload(s.has_inclusive() ? poison_out : std::vector<uint8_t>{});
  auto d_exc = b.upload(s.has_exclusive() ? poison_out : std::vector<uint8_t>{});
  auto d_agg = b.upload(s.aggregate ? poison_agg : std::vector<uint8_t>{});
  b.run(scan, d_in, s.has_inclusive() ? d_inc : nullptr, s.has_exclusive() ? d_exc : nullptr,
        s.aggregate ? d_agg : nullptr, c);
  if (s.has_inclusive()) compare(s, v, want.inclusive, b.download(d_inc, poison_out.size()), "inclusive");
  if (s.has_exclusive()) compare(s, v, want.exclusive, b.download(d_exc, poison_out.size()), "exclusive");
  if (s.aggregate) {
    const std::vector<uint8_t> got = b.download(d_agg, poison_agg.size());
    uint64_t wrong = 0;
    for (uint64_t l = 0; l < lines; ++l)
      wrong += !ref::values_match(s.type, got.data() + l * es, want.aggregates.data() + l * es,
                                  tolerance(s, v.extents[v.axis]));
    INFO("aggregates: " << wrong << " of " << lines << " wrong");
    CHECK(wrong == 0);
    CHECK(std::all_of(got.end() - static_cast<long>(es), got.end(), [](uint8_t x) { return x == kPoison; }));
  }
  b.release(d_in);
  b.release(d_inc);
  b.release(d_exc);
  b.release(d_agg);
}

inline Case rows(uint64_t r, uint64_t length, uint64_t stride = 0, uint64_t out_stride = 0) {
  Case c;
  c.name = std::to_string(r) + " rows x " + std::to_string(length) + " (strides " + std::to_string(stride) + ", " +
           std::to_string(out_stride) + ")";
  c.rows = r;
  c.length = length;
  c.row_stride = stride;
  c.out_row_stride = out_stride;
  return c;
}

inline Case strided(std::vector<uint64_t> extents, std::vector<uint64_t> strides, int axis,
                    std::vector<uint64_t> out_strides = {}) {
  Case c;
  c.rank = static_cast<int>(extents.size());
  c.axis = axis;
  c.name = "extents";
  for (uint64_t e : extents) c.name += " " + std::to_string(e);
  c.name += ", strides";
  for (uint64_t e : strides) c.name += " " + std::to_string(e);
  if (!out_strides.empty()) {
    c.name += ", out strides";
    for (uint64_t e : out_strides) c.name += " " + std::to_string(e);
  }
  c.name += ", axis " + std::to_string(axis);
  c.extents = std::move(extents);
  c.strides = std::move(strides);
  c.out_strides = std::move(out_strides);
  return c;
}

// Row-major strides of extents.
inline std::vector<uint64_t> dense(const std::vector<uint64_t>& e) {
  std::vector<uint64_t> s(e.size(), 1);
  for (size_t d = e.size() - 1; d-- > 0;) s[d] = s[d + 1] * e[d + 1];
  return s;
}

inline std::vector<Case> row_cases(uint64_t tile) {
  return {rows(0, 5),
          rows(1, 0),
          rows(3, 0),
          rows(1, 1),
          rows(5, 1),
          rows(1, tile - 1),
          rows(1, tile),
          rows(1, tile + 1),
          rows(3, tile + 1),
          rows(1000, 3),
          rows(7, 3 * tile + 5),
          rows(2, 2 * tile - 1),
          rows(50, 37, 41, 45),
          rows(4, 2 * tile + 3, 2 * tile + 10),
          rows(333, 1, 2, 3),
          rows(tile + 1, 2),
          rows(5, 2 * tile + 16, 2 * tile + 48),  // strides that keep 16-byte words whole (1, 4, 16 elements
          rows(300, 64, 80, 96),    // per word): full tiles in words on CUDA, rows across and within tiles
          rows(7, 3 * tile + 4),    // rows of whole words across tiles, and many of them in a tile (in
          rows(1000, 12),           // reverse, each word's elements backwards)
          rows(2, 45 * tile + 3)};  // long chains of tiles (the fixed-order look-back's deeper nodes)
}

inline std::vector<Case> strided_cases(uint64_t tile) {
  std::vector<Case> v;
  for (uint64_t cols : std::vector<uint64_t>{1, 2, 31, 33})
    for (uint64_t r : std::vector<uint64_t>{1, tile - 1, tile + 1, 3 * 130 + 7})
      v.push_back(strided({r, cols}, {cols, 1}, 0));
  v.push_back(strided({1000, 7}, {7, 1}, 1));           // the contiguous axis: the rows kernel
  v.push_back(strided({300, 5}, {11, 2}, 0, {5, 1}));   // input with gaps, dense outputs
  v.push_back(strided({300, 5}, {1, 300}, 0, {5, 1}));  // column-major input
  v.push_back(strided({300, 5}, {1, 300}, 0));          // column-major: the rows kernel
  v.push_back(strided({0, 5}, {5, 1}, 0));              // empty lines
  v.push_back(strided({5, 0}, {1, 1}, 0));              // no lines
  v.push_back(strided({777}, {1}, 0));                  // rank 1
  v.push_back(strided({777}, {3}, 0, {2}));             // rank 1, strided
  for (int axis = 0; axis < 3; ++axis) v.push_back(strided({3, 70, 9}, dense({3, 70, 9}), axis));
  for (int axis = 0; axis < 4; ++axis) v.push_back(strided({2, 3, 150, 5}, dense({2, 3, 150, 5}), axis));
  v.push_back(strided({4, 6, 5}, {1, 40, 4}, 1, {30, 5, 1}));  // permuted input
  // Long chains of chunks; in reverse, the column scan whose threads off the lines (3 lines, tiles of 4) once
  // read before the input on PoCL (common/device_strided.h, sg_axis_load).
  v.push_back(strided({45 * tile + 3, 3}, {3, 1}, 0));
  return v;
}

// Tiles of 32 lines side by side in memory (a multiple of 32 lines in the
// innermost of the other dimensions, one element apart; the column scan of a
// row-major matrix of 32 columns or more): around the chunk (`depth`
// positions: the tile over 32 lines), long chains of chunks, several strips,
// 3-d arrays, rows further apart than the lines, and outputs laid out
// otherwise than the input.
inline std::vector<Case> side_by_side_cases(uint64_t tile) {
  const uint64_t depth = tile / 32;
  std::vector<Case> v;
  for (uint64_t r : std::vector<uint64_t>{1, depth - 1, depth + 1, 3 * depth + 7, 200 * depth + 5})
    v.push_back(strided({r, 32}, {32, 1}, 0));
  for (uint64_t r : std::vector<uint64_t>{depth, 3 * depth + 7}) v.push_back(strided({r, 64}, {64, 1}, 0));
  for (int axis = 0; axis < 2; ++axis) v.push_back(strided({5, 40, 32}, dense({5, 40, 32}), axis));
  v.push_back(strided({2, 300, 32}, {300 * 36, 36, 1}, 1, {300 * 32, 32, 1}));  // rows 36 apart
  v.push_back(strided({300, 32}, {32, 1}, 0, {33, 1}));                         // the outputs' rows 33 apart
  v.push_back(strided({300, 32}, {33, 1}, 0, {32, 1}));                         // the input's
  return v;
}

// The specs; with `reverse`, those of integer and exact non-commutative
// operators (every mode, init, aggregates) with reverse = true: each row or
// line scanned from its last element.
inline std::vector<std::string> spec_texts(const std::string& shape, bool reverse = false) {
  const std::string d = " level = device; shape = " + shape + ";" + (reverse ? " reverse = true;" : "");
  std::vector<std::string> all = {
      "scan i32_inc { type = i32; op = add;" + d + " outputs = aggregate; }",
      "scan i32_exc { type = i32; op = add;" + d + " mode = exclusive; init = 7; }",
      "scan i32_both { type = i32; op = max;" + d + " mode = both; init = -5; outputs = aggregate; }",
      "scan f32_sum { type = f32; op = add;" + d + " outputs = aggregate; }",
      "scan u8_u32 { type = u32; input = u8; op = add;" + d + " mode = exclusive; }",
      "type Aff { a: u32, b: u32 }\nscan aff { type = Aff; combine(x, y) = Aff { a: y.a * x.a, b: y.a * x.b + y.b };"
      " identity = Aff { a: 1, b: 0 };" +
          d + " mode = both; outputs = aggregate; }",
      "type M { a: u32, b: u32, c: u32, d: u32 }\nscan mat { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c,"
      " b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
      " identity = M { a: 1, b: 0, c: 0, d: 1 };" +
          d + " init = M { a: 2, b: 1, c: 1, d: 1 }; outputs = aggregate; }",
      "type M8 { a: u64, b: u64, c: u64, d: u64 }\nscan mat64 { type = M8; combine(x, y) = M8 { a: x.a * y.a + x.b "
      "* y.c, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
      " identity = M8 { a: 1, b: 0, c: 0, d: 1 };" +
          d + " mode = exclusive; }",
  };
  // convert(v, i): i is the element's place along its row or line (in storage order, with reverse too).
  const std::vector<std::string> indexed = {
      "scan idx_u64 { type = u64; input = u32; convert(v, i) = u64(v) * (i + 1); op = add;" + d +
          " mode = both; outputs = aggregate; }",
      "type Aff { a: u32, b: u32 }\nscan idx_aff { type = Aff; input = u32;"
      " convert(v, i) = Aff { a: v | 1, b: u32(i) }; combine(x, y) = Aff { a: y.a * x.a, b: y.a * x.b + y.b };"
      " identity = Aff { a: 1, b: 0 };" +
          d + " mode = exclusive; init = Aff { a: 3, b: 1 }; }",
  };
  // deterministic = true with floats: the fixed-order look-back (common/lookback_fixed.h). The affine maps'
  // factors are +-1 and their offsets small integers, so that every grouping gives the same exact result;
  // tiles of 32 elements make long chains of tiles.
  const std::vector<std::string> fixed_order = {
      "scan f32_det { type = f32; op = add;" + d + " deterministic = true; outputs = aggregate; }",
      "scan f64_det { type = f64; op = add;" + d + " deterministic = true; mode = exclusive; init = 1.5; }",
      "type Af { a: f32, b: f32 }\nscan aff_det { type = Af; input = u32;"
      " convert(v) = Af { a: f32(v & 1) * 2.0 - 1.0, b: f32((v >> 1) % 17) - 8.0 };"
      " combine(x, y) = Af { a: y.a * x.a, b: y.a * x.b + y.b }; identity = Af { a: 1.0, b: 0.0 };" +
          d + " deterministic = true; threads = 32; items = 1; mode = both; outputs = aggregate; }",
  };
  if (reverse) all = {all[0], all[1], all[2], all[4], all[5], all[6]};
  all.insert(all.end(), indexed.begin(), indexed.end());
  all.insert(all.end(), fixed_order.begin(), fixed_order.end());
  return all;
}

// deterministic = true: long f32 rows and a column scan give the same bits call after call (values in
// [-1, 1], whose sums round, so that the grouping shows in the bits). The same scans without it run alike;
// how many of their calls changed the bits is returned (not checked: a timing may repeat).
template <class Backend>
int same_bits(Backend& b, Runtime& rt, std::mt19937_64& rng, int calls) {
  int changed = 0;
  for (const std::string shape : {"rows", "strided"}) {
    for (const bool det : {true, false}) {
      const Scan scan = rt.compile("scan s { type = f32; op = add; level = device; shape = " + shape + ";" +
                                   (det ? " deterministic = true;" : "") + " }");
      INFO("shape = " << shape << (det ? ", deterministic" : ""));
      const Case c = shape == "rows" ? rows(3, (1u << 20) + 7) : strided({(1u << 18) + 5, 32}, {32, 1}, 0);
      const View v = view(c);
      const uint64_t count = span(v.extents, v.in);
      const std::vector<uint8_t> in = random_f32_bytes(rng, count);
      auto d_in = b.upload(in);
      auto d_out = b.upload(std::vector<uint8_t>(count * 4, kPoison));
      std::vector<uint8_t> first;
      for (int call = 0; call < calls; ++call) {
        b.run(scan, d_in, d_out, nullptr, nullptr, c);
        std::vector<uint8_t> got = b.download(d_out, count * 4);
        if (call == 0) {
          first = std::move(got);
        } else if (det) {
          INFO("call " << call + 1);
          CHECK(got == first);
        } else {
          changed += got != first;
        }
      }
      b.release(d_in);
      b.release(d_out);
    }
  }
  return changed;
}

// shape "rows" or "strided"; "side by side": shape = strided over side_by_side_cases.
template <class Backend>
void sweep(Backend& b, Runtime& rt, const std::string& shape, std::mt19937_64& rng, bool reverse = false) {
  const bool side = shape == "side by side";
  // Each spec costs a compile of large kernels on PoCL (the strided ones two, of half a minute each there):
  // the quick tier covers every mode of rows, one strided spec, drawn.
  for (const std::string& text :
       sample_texts(spec_texts(side ? "strided" : shape, reverse),
                    std::string("shape = ") + (side ? "strided" : shape) + (reverse ? ", reverse" : ""),
                    {shape == "rows" ? "mode" : "shape"})) {
    const Scan scan = rt.compile(text);
    INFO("scan " << scan.spec().name << " (shape = " << shape << ", tile " << scan.plan().tile << ")");
    const uint64_t tile = scan.plan().tile;
    for (const Case& c : side ? side_by_side_cases(tile) : shape == "rows" ? row_cases(tile) : strided_cases(tile))
      run_case(b, scan, c, rng);
  }
}

}  // namespace scangen::test::shapes
