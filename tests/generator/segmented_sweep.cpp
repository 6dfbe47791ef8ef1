#include "segmented_sweep.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"

namespace scangen::test {

namespace {

using Range = ref::Evaluator::Range;

struct Kind {
  const char* name;
  const char* text;  // the type and operator settings (and types before the scan)
  const char* values;
};

const Kind kKinds[] = {
    {"i32", "  type = i32;\n  op = add;\n", "int"},
    {"i32init", "  type = i32;\n  op = add;\n  init = 3;\n", "int"},
    {"f32", "  type = f32;\n  op = add;\n", "float"},
    {"affine",
     "  type = Affine;\n  combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };\n"
     "  identity = Affine { a: 1.0, b: 0.0 };\n",
     "affine"},
};

dsl::Spec load(const std::string& name, const std::string& text) {
  dsl::Document doc = dsl::load(name + ".scan", text);
  if (!doc.ok()) throw std::logic_error("segmented sweep: " + doc.diagnostics().render());
  return doc.specs().at(0);
}

// n inputs drawn as the case says: random integers, floats in [-4, 4], or
// affine maps with +-1 factors and small offsets (exact in f32).
std::vector<uint8_t> draw(const ScanCase& c, uint64_t n, std::mt19937_64& rng) {
  const dsl::Type& t = c.spec.input;
  if (c.values == "int") return random_values(t, n, rng);
  std::vector<uint8_t> out(n * t.size());
  std::uniform_int_distribution<int> small(-8, 8), coin(0, 1);
  std::uniform_real_distribution<float> real(-4.0f, 4.0f);
  for (uint64_t i = 0; i < n; ++i) {
    if (c.values == "float") {
      const float f = real(rng);
      std::memcpy(out.data() + i * 4, &f, 4);
    } else {
      const float ab[2] = {coin(rng) ? 1.0f : -1.0f, static_cast<float>(small(rng))};
      std::memcpy(out.data() + i * 8, ab, 8);
    }
  }
  return out;
}

// The starts of the segments (offsets 0 .. n, empty segments where two are
// equal), as the structure says.
std::vector<uint64_t> offsets_for(const std::string& structure, uint64_t n, uint64_t tile, std::mt19937_64& rng) {
  std::vector<uint64_t> o = {0};
  auto lengths = [&](double mean) {
    std::geometric_distribution<uint64_t> g(1.0 / (mean + 1.0));
    for (uint64_t at = 0; at < n;) {
      at = std::min(n, at + g(rng));
      o.push_back(at);
    }
  };
  if (structure == "empty") {  // many empty segments: at 0, between, at n
    std::uniform_int_distribution<int> d(0, 3);
    for (int k = d(rng); k > 0; --k) o.push_back(0);
    for (uint64_t at = 0; at < n;) {
      at = std::min(n, at + static_cast<uint64_t>(d(rng)));
      o.push_back(at);
    }
    for (int k = d(rng); k > 0; --k) o.push_back(n);
  } else if (structure == "ones") {
    for (uint64_t i = 1; i <= n; ++i) o.push_back(i);
  } else if (structure == "whole") {
    o.push_back(n);
  } else if (structure == "mean3") {
    lengths(3);
  } else if (structure == "mean300") {
    lengths(300);
  } else if (structure == "tiles") {  // starts at every tile boundary and one either side
    for (uint64_t b = tile; b - 1 < n; b += tile)
      for (uint64_t at : {b - 1, b, b + 1})
        if (at > o.back() && at < n) o.push_back(at);
    o.push_back(n);
  } else if (structure == "burst") {  // one long segment, then half a tile of length 1 (after two empty
                                      // ones), then one long segment: one tile holds far more segments
                                      // than the average, which the kernels must not assume
    const uint64_t b = std::min(n, std::max<uint64_t>(1, tile / 2)), s0 = (n - b) / 2;
    if (s0 > 0) o.push_back(s0);
    o.push_back(s0);
    o.push_back(s0);
    for (uint64_t i = 1; i <= b; ++i) o.push_back(s0 + i);
  } else if (structure == "end_tiles") {  // starts at n - k x tile and one either side: a reverse scan's tiles
    std::vector<uint64_t> starts;
    for (uint64_t b = tile; b <= n; b += tile)
      for (uint64_t at : {n - b - 1, n - b, n - b + 1})
        if (at > 0 && at < n) starts.push_back(at);
    std::sort(starts.begin(), starts.end());
    for (uint64_t at : starts)
      if (at > o.back()) o.push_back(at);
    o.push_back(n);
  } else {
    throw std::logic_error("segmented sweep: unknown structure '" + structure + "'");
  }
  if (o.back() != n) o.push_back(n);
  return o;
}

std::vector<uint8_t> poisoned(uint64_t elements, size_t size) { return std::vector<uint8_t>(elements * size, 0xAB); }

constexpr uint64_t kTail = 3;

void compare(const std::string& what, const dsl::Type& t, const std::vector<uint8_t>& got,
             const std::vector<uint8_t>& want, uint64_t count, ref::Tolerance tol, std::string& report) {
  const size_t size = t.size();
  uint64_t bad = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (ref::values_match(t, got.data() + i * size, want.data() + i * size, tol)) continue;
    if (bad++ < 5)
      report += "  " + what + "[" + std::to_string(i) + "]: got " + ref::format_value(t, got.data() + i * size) +
                ", want " + ref::format_value(t, want.data() + i * size) + "\n";
  }
  if (bad) report += "  " + what + ": " + std::to_string(bad) + " of " + std::to_string(count) + " differ\n";
  for (size_t i = count * size; i < got.size(); ++i)
    if (got[i] != 0xAB) {
      report += "  " + what + ": written past its end (byte " + std::to_string(i) + ")\n";
      break;
    }
}

// The run-time segments of the case's form, as buffers, and the ranges the
// reference reads from them.
struct Segments {
  std::vector<uint8_t> data;  // flags, offsets or keys
  uint64_t count = 0;         // offsets: the number of segments
  std::vector<Range> ranges;
};

template <class T>
void put(std::vector<uint8_t>& out, uint64_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

// The key_equal cases: each a key type, an equality and a way to draw keys
// that it puts in one segment though they differ (and in two at each start).
struct KeyEqual {
  const char* name;
  const char* text;
};

const KeyEqual kKeyEquals[] = {
    // Keys equal modulo 8 (drawn non-negative: C's % keeps the sign).
    {"mod", "  key = i32;\n  key_equal(a, b) = a % 8 == b % 8;\n"},
    // f32 keys by their integer part.
    {"floor", "  key = f32;\n  key_equal(a, b) = floor(a) == floor(b);\n"},
    // Order-sensitive: a segment runs while its keys do not decrease.
    {"rising", "  key = u32;\n  key_equal(before, own) = before <= own;\n"},
};

// The keys of a key_equal case (its name says which, seg_keyeq_<style>_...)
// for the segment starts `start`.
std::vector<uint8_t> keys_for_equal(const dsl::Spec& s, const std::vector<uint8_t>& start, std::mt19937_64& rng) {
  const uint64_t n = start.size();
  std::vector<uint8_t> out(n * dsl::scalar_size(s.key));
  std::uniform_int_distribution<int> d(1, 1000), frac(0, 15), step(0, 3), residue(1, 7);
  int segment = 0;             // mod: the residue; floor: the integer part
  uint32_t rising = 1u << 31;  // rising: the last key
  const std::string style = s.name.substr(std::string("seg_keyeq_").size());
  for (uint64_t i = 0; i < n; ++i) {
    if (style.rfind("mod", 0) == 0) {
      if (start[i]) segment = (segment + residue(rng)) % 8;
      put(out, i, static_cast<int32_t>(segment + 8 * d(rng)));
    } else if (style.rfind("floor", 0) == 0) {
      if (start[i]) segment += d(rng) * (d(rng) % 2 ? 1 : -1);
      put(out, i, static_cast<float>(segment) + static_cast<float>(frac(rng)) / 16.0f);
    } else if (style.rfind("rising", 0) == 0) {
      rising = start[i] ? rising - static_cast<uint32_t>(d(rng)) : rising + static_cast<uint32_t>(step(rng));
      put(out, i, rising);
    } else {
      throw std::logic_error("segmented sweep: no keys for '" + s.name + "'");
    }
  }
  return out;
}

Segments segments_for(const dsl::Spec& s, const std::vector<uint64_t>& offsets, uint64_t n, std::mt19937_64& rng) {
  Segments g;
  if (s.segments == dsl::Segments::Offsets) {
    const size_t size = dsl::scalar_size(s.offset);
    g.data.resize(offsets.size() * size);
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (size == 4)
        put(g.data, i, static_cast<uint32_t>(offsets[i]));
      else
        put(g.data, i, offsets[i]);
    }
    g.count = offsets.size() - 1;
    g.ranges = ref::ranges_from_offsets(offsets, n);
    return g;
  }
  std::vector<uint8_t> start(n, 0);
  for (size_t i = 0; i + 1 < offsets.size(); ++i)
    if (offsets[i] < n) start[offsets[i]] = 1;
  if (s.segments == dsl::Segments::Flags) {
    // Any nonzero byte starts a segment; element 0 starts one whatever its byte.
    std::uniform_int_distribution<int> byte(1, 255), coin(0, 1);
    g.data.resize(n);
    for (uint64_t i = 0; i < n; ++i) g.data[i] = start[i] ? static_cast<uint8_t>(byte(rng)) : 0;
    if (n) g.data[0] = static_cast<uint8_t>(coin(rng));
    g.ranges = ref::ranges_from_flags(g.data.data(), n);
    return g;
  }
  if (s.key_equal) {
    g.data = keys_for_equal(s, start, rng);
    g.ranges = ref::ranges_from_keys(s, g.data.data(), n);
    return g;
  }
  // Keys: a new key at each start, drawn to differ from the one before.
  const size_t size = dsl::scalar_size(s.key);
  g.data.resize(n * size);
  std::uniform_int_distribution<int> d(1, 1000);
  int key = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (start[i]) key += d(rng) * (d(rng) % 2 ? 1 : -1);
    if (s.key == dsl::ScalarKind::F32)
      put(g.data, i, static_cast<float>(key) * 0.5f);
    else if (s.key == dsl::ScalarKind::F64)
      put(g.data, i, static_cast<double>(key) * 0.25 + 1e-9 * (key & 1));  // differ in the low bits too
    else if (size == 8)
      put(g.data, i, static_cast<int64_t>(key) << 33);  // the high half differs
    else
      put(g.data, i, static_cast<int32_t>(key));
  }
  g.ranges = ref::ranges_from_keys(s, g.data.data(), n);
  return g;
}

}  // namespace

namespace {

// Segments by key with key_equal: each equality with a kind, a mode and a tile.
void key_equal_cases(std::vector<ScanCase>& out) {
  const struct {
    const KeyEqual& eq;
    const Kind& kind;
    dsl::Mode mode;
    const char* extra;
  } cases[] = {
      // reverse = true: the predicate still takes the key of the element before in the array first.
      {kKeyEquals[2], kKinds[3], dsl::Mode::Both, "  outputs = aggregate;\n  reverse = true;\n"},
      {kKeyEquals[0], kKinds[1], dsl::Mode::Exclusive, "  threads = 32;\n  items = 1;\n  reverse = true;\n"},
      {kKeyEquals[0], kKinds[3], dsl::Mode::Both, "  outputs = aggregate;\n"},
      {kKeyEquals[1], kKinds[1], dsl::Mode::Inclusive, "  threads = 32;\n  items = 1;\n"},
      {kKeyEquals[2], kKinds[3], dsl::Mode::Exclusive, "  outputs = aggregate;\n"},
      {kKeyEquals[2], kKinds[0], dsl::Mode::Both, "  outputs = aggregate;\n  threads = 32;\n  items = 1;\n"},
  };
  for (const auto& c : cases) {
    const std::string name = std::string("seg_keyeq_") + c.eq.name + "_" + c.kind.name + "_" + dsl::to_string(c.mode) +
                             (std::strstr(c.extra, "reverse") ? "_rev" : "");
    std::ostringstream t;
    t << "type Affine { a: f32, b: f32 }\nscan " << name << " {\n"
      << c.kind.text << "  level = device;\n  mode = " << dsl::to_string(c.mode) << ";\n  segments = keys;\n"
      << c.eq.text << c.extra << "}\n";
    out.push_back({load(name, t.str()), c.kind.values});
  }
}

}  // namespace

std::vector<ScanCase> segmented_cases(generator::Backend backend) {
  (void)backend;
  std::vector<ScanCase> out;
  const char* forms[][2] = {{"flags", ""}, {"offsets", "  offset = u32;\n"}, {"keys", "  key = i32;\n"}};
  int i = 0;
  for (const auto& form : forms)
    for (const Kind& k : kKinds)
      for (dsl::Mode m : {dsl::Mode::Inclusive, dsl::Mode::Exclusive, dsl::Mode::Both}) {
        const std::string name = std::string("seg_") + form[0] + "_" + k.name + "_" + dsl::to_string(m);
        std::string extra = form[1];
        if (i % 5 == 1 && std::string(form[0]) == "offsets") extra = "  offset = i64;\n";
        if (i % 5 == 2 && std::string(form[0]) == "keys") extra = "  key = u64;\n";
        if (i % 7 == 3 && std::string(form[0]) == "keys") extra = "  key = f32;\n";
        if (i % 7 == 5 && std::string(form[0]) == "keys") extra = "  key = f64;\n";
        if (i % 2 == 0) extra += "  outputs = aggregate;\n";
        if (i % 4 == 3) extra += "  threads = 32;\n  items = 1;\n";  // small tiles: many of them
        ++i;
        std::ostringstream t;
        t << "type Affine { a: f32, b: f32 }\nscan " << name << " {\n"
          << k.text << "  level = device;\n  mode = " << dsl::to_string(m) << ";\n  segments = " << form[0] << ";\n"
          << extra << "}\n";
        out.push_back({load(name, t.str()), k.values});
      }
  // reverse = true: every segment scanned from its last element to its first.
  struct Reverse {
    const char* form;
    const Kind& kind;
    dsl::Mode mode;
    const char* extra;
  };
  const Reverse reverse[] = {
      {"flags", kKinds[1], dsl::Mode::Inclusive, "  outputs = aggregate;\n"},
      {"flags", kKinds[3], dsl::Mode::Both, "  outputs = aggregate;\n"},
      {"flags", kKinds[2], dsl::Mode::Exclusive, ""},
      {"flags", kKinds[1], dsl::Mode::Both, "  outputs = aggregate;\n  threads = 32;\n  items = 1;\n"},
      {"keys", kKinds[3], dsl::Mode::Inclusive, "  key = i32;\n  outputs = aggregate;\n"},
      {"keys", kKinds[1], dsl::Mode::Both, "  key = u64;\n"},
      {"keys", kKinds[2], dsl::Mode::Both, "  key = f32;\n"},
      {"keys", kKinds[3], dsl::Mode::Exclusive,
       "  key = i32;\n  outputs = aggregate;\n  threads = 32;\n  items = 1;\n"},
      {"offsets", kKinds[3], dsl::Mode::Both, "  offset = u32;\n  outputs = aggregate;\n"},
      {"offsets", kKinds[1], dsl::Mode::Inclusive, "  offset = i64;\n  outputs = aggregate;\n"},
      {"offsets", kKinds[2], dsl::Mode::Exclusive, "  offset = i32;\n"},
      {"offsets", kKinds[3], dsl::Mode::Exclusive,
       "  offset = u64;\n  outputs = aggregate;\n  threads = 32;\n  items = 1;\n"},
  };
  for (const Reverse& r : reverse) {
    const std::string name = std::string("seg_rev_") + r.form + "_" + r.kind.name + "_" + dsl::to_string(r.mode);
    std::ostringstream t;
    t << "type Affine { a: f32, b: f32 }\nscan " << name << " {\n"
      << r.kind.text << "  level = device;\n  mode = " << dsl::to_string(r.mode) << ";\n  segments = " << r.form
      << ";\n  reverse = true;\n"
      << r.extra << "}\n";
    out.push_back({load(name, t.str()), r.kind.values});
  }
  key_equal_cases(out);
  // deterministic = true with floats: the fixed-order look-back (common/lookback_fixed.h), every form; tiles
  // of 32 elements make long chains of tiles.
  int d = 0;
  for (const auto& form : forms)
    for (const Kind& k : {kKinds[2], kKinds[3]}) {
      const dsl::Mode m = d % 3 == 0 ? dsl::Mode::Inclusive : d % 3 == 1 ? dsl::Mode::Exclusive : dsl::Mode::Both;
      const bool rev = d == 3;
      const std::string name =
          std::string("seg_det_") + form[0] + "_" + k.name + "_" + dsl::to_string(m) + (rev ? "_rev" : "");
      std::ostringstream t;
      t << "type Affine { a: f32, b: f32 }\nscan " << name << " {\n"
        << k.text << "  level = device;\n  mode = " << dsl::to_string(m) << ";\n  segments = " << form[0] << ";\n"
        << form[1] << "  deterministic = true;\n  outputs = aggregate;\n"
        << (d % 2 == 1 ? "  threads = 32;\n  items = 1;\n" : "") << (rev ? "  reverse = true;\n" : "") << "}\n";
      out.push_back({load(name, t.str()), k.values});
      ++d;
    }
  // convert(v, i): i is the element's index in the array (not in its segment), in both directions.
  const struct {
    const char* form;
    const char* text;
    const char* values;
    dsl::Mode mode;
    bool reverse;
  } indexed[] = {
      {"flags", "  type = u64;\n  input = u32;\n  convert(v, i) = u64(v) * (i + 1);\n  op = add;\n", "int",
       dsl::Mode::Both, false},
      {"offsets", "  type = u64;\n  input = u32;\n  convert(v, i) = u64(v) * (i + 1);\n  op = add;\n  offset = u32;\n",
       "int", dsl::Mode::Inclusive, true},
      {"keys",
       "  type = Affine;\n  convert(v, i) = Affine { a: v.a, b: v.b + f32(i % 8) };\n"
       "  combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };\n  identity = Affine { a: 1.0, b: 0.0 };\n"
       "  key = i32;\n",
       "affine", dsl::Mode::Both, false},
      {"flags",
       "  type = Affine;\n  convert(v, i) = Affine { a: v.a, b: v.b + f32(i % 8) };\n"
       "  combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };\n  identity = Affine { a: 1.0, b: 0.0 };\n"
       "  threads = 32;\n  items = 1;\n",
       "affine", dsl::Mode::Exclusive, true},
  };
  for (const auto& c : indexed) {
    const std::string name =
        std::string("seg_index_") + c.form + "_" + dsl::to_string(c.mode) + (c.reverse ? "_rev" : "");
    std::ostringstream t;
    t << "type Affine { a: f32, b: f32 }\nscan " << name << " {\n"
      << c.text << "  level = device;\n  mode = " << dsl::to_string(c.mode) << ";\n  segments = " << c.form
      << ";\n  outputs = aggregate;\n"
      << (c.reverse ? "  reverse = true;\n" : "") << "}\n";
    out.push_back({load(name, t.str()), c.values});
  }
  return out;
}

std::vector<std::string> segment_structures(bool reverse) {
  std::vector<std::string> v = {"empty", "ones", "whole", "mean3", "mean300", "tiles", "burst"};
  if (reverse) v.push_back("end_tiles");
  return v;
}

std::vector<uint64_t> segmented_sizes(const generator::Plan& plan) {
  const uint64_t t = plan.tile;
  std::vector<uint64_t> v = {0, 1, 2, t - 1, t, t + 1, 3 * t + 7, 9 * t - 1};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string run_segmented_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, const std::string& structure,
                               std::mt19937_64& rng, const LaunchKernel& launch, DeviceState& state) {
  using K = KernelArg::Kind;
  const dsl::Spec& s = c.spec;
  const size_t es = s.type.size();
  const Segments g = segments_for(s, offsets_for(structure, n, plan.tile, rng), n, rng);
  const uint64_t segments = g.ranges.size();

  std::vector<std::vector<uint8_t>> buffers = {draw(c, n, rng)};
  const std::vector<uint8_t> input = buffers[0];
  std::vector<KernelArg> args = {{K::Buffer, 0}};
  std::vector<size_t> outs;
  for (int k = 0; k < (s.mode == dsl::Mode::Both ? 2 : 1); ++k) {
    outs.push_back(buffers.size());
    args.push_back({K::Buffer, buffers.size()});
    buffers.push_back(poisoned(n + kTail, es));
  }
  const size_t agg = buffers.size();
  if (s.aggregate) {
    args.push_back({K::Buffer, agg});
    buffers.push_back(poisoned(segments + kTail, es));
  }
  const KernelArg segments_arg{K::Buffer, buffers.size()};
  args.push_back(segments_arg);
  buffers.push_back(g.data);
  if (s.segments == dsl::Segments::Offsets) args.push_back({K::U64, g.count});
  args.push_back({K::U64, n});
  // The workspace as the host rule leaves it (see run_device_case).
  const uint64_t need = generator::workspace_bytes(plan, n);
  if (state.workspace.size() < need) state.workspace.resize(need, 0xAB);
  std::fill(state.workspace.begin() + static_cast<std::ptrdiff_t>(need), state.workspace.end(), uint8_t{0xAB});
  const uint64_t zero = generator::workspace_zero_bytes(plan, n);
  std::fill(state.workspace.begin(), state.workspace.begin() + static_cast<std::ptrdiff_t>(zero), uint8_t{0});
  ++state.calls;
  const size_t ws = buffers.size();
  args.push_back({K::Buffer, ws});
  buffers.push_back(state.workspace);
  const uint64_t tiles = std::max<uint64_t>(1, (n + plan.tile - 1) / plan.tile);
  // Every kernel of the plan in order, as the host wrappers and the runtime launch them: with
  // offsets as bits (Plan::Segmented::head_bits) the heads kernel first, over the same workspace.
  for (const generator::Kernel& k : plan.kernels) {
    if (k.name == plan.entry_kernel) {
      launch(plan.entry_kernel, buffers, args, tiles, plan.block_threads);
      continue;
    }
    REQUIRE(plan.segmented.head_bits);
    REQUIRE(k.params.size() == 4);  // offsets, segment_count, n, workspace
    launch(k.name, buffers, {segments_arg, {K::U64, g.count}, {K::U64, n}, {K::Buffer, ws}}, tiles, plan.block_threads);
  }
  state.workspace = buffers[ws];

  ref::Evaluator::Options wide;
  wide.widen_floats = true;
  const ref::Evaluator ev(s, wide);
  const ref::Evaluator::Result want = ev.scan_ranges(input.data(), n, g.ranges);
  const ref::Tolerance tol = c.values == "float" ? ref::Tolerance{1e-5, 2e-3} : ref::Tolerance{};
  std::string report;
  if (buffers[0] != input) report += "  the input changed\n";
  size_t o = 0;
  if (s.has_inclusive()) compare("inclusive", s.type, buffers[outs[o++]], want.inclusive, n, tol, report);
  if (s.has_exclusive()) compare("exclusive", s.type, buffers[outs[o]], want.exclusive, n, tol, report);
  if (s.aggregate) compare("segment_aggregates", s.type, buffers[agg], want.aggregates, segments, tol, report);
  if (!report.empty())
    report =
        structure + " segments (" + std::to_string(segments) + " of them), n = " + std::to_string(n) + "\n" + report;
  return report;
}

int check_segmented_cases(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans,
                          const LaunchKernel& launch) {
  const uint64_t seed = test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  DeviceState state;
  int calls = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("scan:\n" << cases[i].spec.to_string());
    for (uint64_t n : segmented_sizes(plans[i]))
      for (const std::string& structure : segment_structures(cases[i].spec.reverse)) {
        const std::string report = run_segmented_case(cases[i], plans[i], n, structure, rng, launch, state);
        INFO(report);
        CHECK(report.empty());
        ++calls;
      }
  }
  return calls;
}

}  // namespace scangen::test
