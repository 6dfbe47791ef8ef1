#include "scan_sweep.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"

namespace scangen::test {

using dsl::Algorithm;
using dsl::Level;

namespace {

// An element type of the sweep: its declarations, its operator, and how its
// inputs are drawn.
struct ElementKind {
  const char* name;       // for scan names
  const char* types;      // type declarations
  const char* type;       // `type = ...`
  const char* operator_;  // `op = add;` or combine + identity
  const char* values;
};

const ElementKind kI8 = {"i8", "", "i8", "op = add;", "int"};
const ElementKind kI32 = {"i32", "", "i32", "op = add;", "int"};
const ElementKind kI64 = {"i64", "", "i64", "op = add;", "int"};
const ElementKind kF16 = {"f16", "", "f16", "op = add;", "small"};
const ElementKind kF32 = {"f32", "", "f32", "op = add;", "small"};
const ElementKind kF64 = {"f64", "", "f64", "op = add;", "small"};
// 8 bytes: x -> a*x + b maps, composed (non-commutative).
const ElementKind kAffine = {"affine", "type Affine { a: f32, b: f32 }\n", "Affine",
                             "combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };\n"
                             "  identity = Affine { a: 1.0, b: 0.0 };",
                             "affine"};
// 16 bytes: 2x2 matrix product (non-commutative).
const ElementKind kMatrix = {"mat2", "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\n", "Mat2",
                             "combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,\n"
                             "                       c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };\n"
                             "  identity = Mat2 { 1.0, 0.0, 0.0, 1.0 };",
                             "matrix"};
// 24 bytes (20 and 4 of padding): f64 affine maps with a count.
const ElementKind kAffine64 = {
    "affine64", "type Affine64 { a: f64, b: f64, count: u32 }\n", "Affine64",
    "combine(x, y) = Affine64 { a: y.a * x.a, b: y.a * x.b + y.b, count: x.count + y.count };\n"
    "  identity = Affine64 { a: 1.0, b: 0.0, count: 0 };",
    "affine64"};

const ElementKind* const kAllKinds[] = {&kI8, &kI32, &kI64, &kF16, &kF32, &kF64, &kAffine, &kMatrix, &kAffine64};

struct Shape {
  int width;  // warp level: W; block level: 0
  int threads;
  int items;
};

std::string spec_text(const std::string& name, const ElementKind& k, Algorithm a, const Shape& s, dsl::Mode mode,
                      const std::string& extra) {
  std::ostringstream t;
  t << k.types << "scan " << name << " {\n  type = " << k.type << ";\n  " << k.operator_ << "\n";
  if (s.width)
    t << "  level = warp(" << s.width << ");\n";
  else
    t << "  level = block;\n";
  t << "  algorithm = " << dsl::to_string(a) << ";\n  threads = " << s.threads << ";\n  items = " << s.items
    << ";\n  mode = " << dsl::to_string(mode) << ";\n"
    << extra;
  if (a == Algorithm::Coalesced) t << "  targets = cuda;\n";
  t << "}\n";
  return t.str();
}

dsl::Spec load_spec(const std::string& name, const std::string& text) {
  dsl::Document doc = dsl::load(name + ".scan", text);
  if (!doc.ok() || doc.specs().size() != 1)
    throw std::logic_error("scan sweep: spec '" + name + "' does not load:\n" + doc.diagnostics().render() + text);
  return doc.specs().front();
}

bool is_warp(Algorithm a) {
  return a == Algorithm::KoggeStone || a == Algorithm::KoggeStoneLocal || a == Algorithm::Coalesced;
}

// The group shapes an algorithm runs at.
std::vector<Shape> shapes(Algorithm a) {
  if (is_warp(a)) {
    // Several logical warps per block, blocks of fewer than 32 threads, a block of one lane; logical warps
    // of more than 32 lanes (several per block, one filling the block), which 'coalesced' does not take.
    std::vector<Shape> v = {{1, 32, 1},  {2, 6, 3},   {4, 12, 2},    {8, 64, 1},  {16, 48, 4},
                            {32, 32, 1}, {32, 64, 7}, {32, 128, 32}, {4, 32, 16}, {1, 1, 5}};
    if (a != Algorithm::Coalesced) v.insert(v.end() - 1, {{64, 256, 3}, {128, 128, 2}, {1024, 1024, 1}, {64, 64, 32}});
    return v;
  }
  switch (a) {
    case Algorithm::WarpScans:
      return {{0, 32, 1}, {0, 64, 3}, {0, 96, 2}, {0, 128, 4}, {0, 256, 1}, {0, 1024, 2}, {0, 160, 32}, {0, 512, 7}};
    case Algorithm::Blelloch:
      return {{0, 1, 3}, {0, 2, 1}, {0, 32, 4}, {0, 64, 1}, {0, 128, 2}, {0, 256, 7}, {0, 1024, 1}, {0, 512, 32}};
    default:  // raking, raking_memoize, hillis_steele: any count
      return {{0, 1, 1},   {0, 7, 3},   {0, 32, 1},   {0, 33, 2},   {0, 100, 4},
              {0, 128, 7}, {0, 256, 1}, {0, 1000, 2}, {0, 1024, 1}, {0, 64, 32}};
  }
}

std::vector<Algorithm> algorithms(generator::Backend backend) {
  std::vector<Algorithm> v = {Algorithm::KoggeStone,    Algorithm::KoggeStoneLocal, Algorithm::Raking,
                              Algorithm::RakingMemoize, Algorithm::WarpScans,       Algorithm::HillisSteele,
                              Algorithm::Blelloch};
  if (backend == generator::Backend::Cuda) v.insert(v.begin() + 2, Algorithm::Coalesced);
  return v;
}

const dsl::Mode kModes[] = {dsl::Mode::Inclusive, dsl::Mode::Exclusive, dsl::Mode::Both};

// Whether the plan fits (the shared-memory bound); the sweep leaves out the
// few shape x type pairs that do not, as a user would get an error for them.
bool plannable(const dsl::Spec& s, generator::Backend b) {
  try {
    generator::make_plan(s, b);
    return true;
  } catch (const std::invalid_argument&) {
    return false;
  }
}

using AddCase =
    std::function<void(const std::string&, const ElementKind&, Algorithm, const Shape&, dsl::Mode, const std::string&)>;

// reverse = true: the non-commutative operators in every mode over shapes
// taken in turn, with init and aggregates, u8 in u32, and running totals.
void add_reverse_cases(const std::string& an, Algorithm a, const std::vector<Shape>& sh, const AddCase& add) {
  const std::string rev = "  reverse = true;\n";
  size_t i = 0;
  for (const ElementKind* k : {&kMatrix, &kAffine})
    for (dsl::Mode m : kModes) {
      const Shape& s = sh[(i * 3 + 1) % sh.size()];
      add(an + "_rev_" + k->name + "_" + dsl::to_string(m), *k, a, s, m,
          rev + (i % 2 ? "  outputs = aggregate;\n" : ""));
      ++i;
    }
  add(an + "_rev_mat2_init", kMatrix, a, sh.back(), dsl::Mode::Both,
      rev + "  init = Mat2 { 0.0, 1.0, -1.0, 0.0 };\n  outputs = aggregate;\n");
  add(an + "_rev_i32_init", kI32, a, sh[1], dsl::Mode::Exclusive, rev + "  init = 5;\n  outputs = aggregate;\n");
  const ElementKind bytes = {"u8u32", "", "u32", "input = u8;\n  op = add;", "int"};
  add(an + "_rev_u8_in_u32", bytes, a, sh[sh.size() / 2], dsl::Mode::Inclusive, rev + "  outputs = aggregate;\n");
  const ElementKind u32x = {"u32xor", "", "u32", "op = xor;", "int"};
  add(an + "_rev_running_xor", u32x, a, sh[2], dsl::Mode::Both, rev + "  outputs = running_total, aggregate;\n");
}

}  // namespace

std::vector<ScanCase> scan_cases(generator::Backend backend) {
  std::vector<ScanCase> out;
  auto add = [&](const std::string& name, const ElementKind& k, Algorithm a, const Shape& s, dsl::Mode m,
                 const std::string& extra = "") {
    dsl::Spec spec = load_spec(name, spec_text(name, k, a, s, m, extra));
    if (plannable(spec, backend)) out.push_back({std::move(spec), k.values});
  };
  for (Algorithm a : algorithms(backend)) {
    const std::vector<Shape> sh = shapes(a);
    const std::string an = dsl::to_string(a);
    int i = 0;
    // Every type in every mode, the shapes taken in turn.
    for (const ElementKind* k : kAllKinds) {
      for (dsl::Mode m : kModes) {
        add(an + "_" + k->name + "_" + dsl::to_string(m), *k, a, sh[static_cast<size_t>(i) % sh.size()], m);
        ++i;
      }
    }
    // Every shape with i32 and with the matrix product.
    for (size_t j = 0; j < sh.size(); ++j) {
      add(an + "_shape" + std::to_string(j) + "_i32", kI32, a, sh[j], kModes[j % 3]);
      add(an + "_shape" + std::to_string(j) + "_mat2", kMatrix, a, sh[j], kModes[(j + 1) % 3]);
    }
    const Shape s0 = sh[1], s1 = sh[sh.size() / 2];
    // init, aggregates, u8 in u32, running totals.
    add(an + "_init_aggregate", kI32, a, s0, dsl::Mode::Both, "  init = 5;\n  outputs = aggregate;\n");
    add(an + "_mat2_init", kMatrix, a, s1, dsl::Mode::Both,
        "  init = Mat2 { 0.0, 1.0, -1.0, 0.0 };\n  outputs = aggregate;\n");
    // init_applies_to = exclusive (rocPRIM's seeding): the inclusive results unseeded; the matrix case (a
    // non-commutative operator) also through the public device functions (its name ends in _both).
    add(an + "_init_exclusive_only", kI32, a, s0, dsl::Mode::Both,
        "  init = 5;\n  init_applies_to = exclusive;\n  outputs = aggregate;\n");
    add(an + "_mat2_initx_both", kMatrix, a, s1, dsl::Mode::Both,
        "  init = Mat2 { 0.0, 1.0, -1.0, 0.0 };\n  init_applies_to = exclusive;\n");
    ElementKind bytes = {"u8u32", "", "u32", "input = u8;\n  op = add;", "int"};
    add(an + "_u8_in_u32", bytes, a, s1, dsl::Mode::Inclusive, "  outputs = aggregate;\n");
    ElementKind u32x = {"u32xor", "", "u32", "op = xor;", "int"};
    add(an + "_running_xor", u32x, a, s0, dsl::Mode::Exclusive, "  outputs = running_total, aggregate;\n");
    ElementKind i64max = {"i64max", "", "i64", "op = max;", "int"};
    add(an + "_running_max", i64max, a, s1, dsl::Mode::Both, "  outputs = running_total;\n");
    add(an + "_running_add", kI32, a, sh.back(), dsl::Mode::Both, "  outputs = running_total;\n");
    // Running totals of other operators: a compare-and-swap loop on a word of 4 or 8 bytes (commuting
    // operators, so that the counter's final value is exact): f32 add, a written i32 add, an 8-byte struct.
    ElementKind f32add = {"f32add", "", "f32", "op = add;", "positive"};
    ElementKind i32cas = {"i32cas", "", "i32", "combine(x, y) = x + y;\n  identity = 0;", "int"};
    ElementKind pair = {"pair", "type Pair { lo: u32, hi: u32 }\n", "Pair",
                        "combine(x, y) = Pair { lo: x.lo + y.lo, hi: max(x.hi, y.hi) };\n"
                        "  identity = Pair { lo: 0, hi: 0 };",
                        "int"};
    add(an + "_running_cas_f32", f32add, a, s0, dsl::Mode::Both, "  outputs = running_total;\n");
    add(an + "_running_cas_i32", i32cas, a, s1, dsl::Mode::Exclusive, "  outputs = running_total, aggregate;\n");
    add(an + "_running_cas_pair", pair, a, sh.back(), dsl::Mode::Both, "  outputs = running_total;\n");
    add_reverse_cases(an, a, sh, add);
    if (is_warp(a) && a != Algorithm::Coalesced) {
      // Logical warps of more than 32 lanes: running totals (an atomic, a compare-and-swap loop), reverse, init.
      const Shape w128 = {128, 256, 2}, w64 = {64, 256, 3};
      add(an + "_wide_running_add", kI32, a, w128, dsl::Mode::Both, "  outputs = running_total, aggregate;\n");
      add(an + "_wide_running_cas_f32", f32add, a, w64, dsl::Mode::Exclusive, "  outputs = running_total;\n");
      add(an + "_wide_rev_mat2", kMatrix, a, w64, dsl::Mode::Both, "  reverse = true;\n  outputs = aggregate;\n");
      add(an + "_wide_mat2_initx", kMatrix, a, w128, dsl::Mode::Both,
          "  init = Mat2 { 0.0, 1.0, -1.0, 0.0 };\n  init_applies_to = exclusive;\n  outputs = aggregate;\n");
    }
  }
  return out;
}

std::vector<ScanCase> compile_cases() {
  std::vector<ScanCase> out;
  for (Algorithm a : algorithms(generator::Backend::Cuda)) {
    const Shape s = is_warp(a) ? Shape{32, 128, 4} : Shape{0, 256, 4};
    for (const ElementKind* k : kAllKinds)
      for (dsl::Mode m : kModes) {
        const std::string name = std::string(dsl::to_string(a)) + "_" + k->name + "_" + dsl::to_string(m);
        out.push_back({load_spec(name, spec_text(name, *k, a, s, m, "")), k->values});
      }
    for (dsl::Mode m : kModes) {  // the mirrored loads and stores (reverse = true)
      const std::string name = std::string(dsl::to_string(a)) + "_rev_mat2_" + dsl::to_string(m);
      out.push_back({load_spec(name, spec_text(name, kMatrix, a, s, m, "  reverse = true;\n")), kMatrix.values});
    }
  }
  return out;
}

std::vector<KernelArg> buffers_then_n(size_t buffers, uint64_t n) {
  std::vector<KernelArg> a;
  for (size_t i = 0; i < buffers; ++i) a.push_back({KernelArg::Kind::Buffer, i});
  a.push_back({KernelArg::Kind::U64, n});
  return a;
}

std::vector<uint64_t> scan_sizes(const generator::Plan& plan, std::mt19937_64& rng) {
  const uint64_t seg = plan.segment;
  const uint64_t block = seg * static_cast<uint64_t>(plan.groups_per_block);
  std::vector<uint64_t> v = {0,   1,       2,         seg - 1,
                             seg, seg + 1, block + 1, std::uniform_int_distribution<uint64_t>(1, 4 * block + 3)(rng)};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

namespace {

std::vector<uint8_t> draw(const ScanCase& c, uint64_t n, std::mt19937_64& rng);

// "nan": the "small" values with every zero -0.0, and NaNs at the start, in
// the middle, at the end, everywhere or nowhere, in turn from call to call.
std::vector<uint8_t> with_nans(const ScanCase& c, uint64_t n, std::mt19937_64& rng) {
  ScanCase small = c;
  small.values = "small";
  std::vector<uint8_t> out = draw(small, n, rng);
  const dsl::ScalarKind k = c.spec.input.scalar_kind();
  const size_t size = c.spec.input.size();
  auto set = [&](uint64_t i, double v) {
    uint8_t* e = out.data() + i * size;
    if (k == dsl::ScalarKind::F16) {
      const uint16_t h = dsl::float_to_half_bits(static_cast<float>(v));
      std::memcpy(e, &h, 2);
    } else if (k == dsl::ScalarKind::F32) {
      const float f = static_cast<float>(v);
      std::memcpy(e, &f, 4);
    } else {
      std::memcpy(e, &v, 8);
    }
  };
  auto is_zero = [&](uint64_t i) {
    for (size_t b = 0; b < size; ++b)
      if (out[i * size + b]) return false;
    return true;
  };
  for (uint64_t i = 0; i < n; ++i)
    if (is_zero(i)) set(i, -0.0);
  static thread_local unsigned turn = 0;
  const unsigned where = turn++ % 5;  // start, middle, end, everywhere, nowhere
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (n == 0 || where == 4) return out;
  if (where == 3) {
    for (uint64_t i = 0; i < n; ++i) set(i, nan);
  } else {
    set(where == 0 ? 0 : where == 1 ? n / 2 : n - 1, nan);
  }
  return out;
}

// n input values drawn as the case says.
std::vector<uint8_t> draw(const ScanCase& c, uint64_t n, std::mt19937_64& rng) {
  const dsl::Type& t = c.spec.input;
  const size_t size = t.size();
  std::vector<uint8_t> out(n * size);
  if (c.values == "int") return random_values(t, n, rng);
  if (c.values == "nan") return with_nans(c, n, rng);
  auto small_int = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto sign = [&] { return small_int(0, 1) ? 1.0 : -1.0; };
  int walk = 0;  // f16 "small": the running sum, kept within +-1000
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t* e = out.data() + i * size;
    if (c.values == "small" || c.values == "positive") {
      const auto k = t.scalar_kind();
      // f16 integers are exact up to 2048: steps of -2 .. 2 whose running sum stays within +-1000 (a
      // step that would leave turns back), so that the sum of every run of elements (all a scan adds up,
      // in whatever grouping), init included, is exact. "positive": 1 .. 8, so that sums only grow (a
      // running total never comes back to a value it had: see run_scan_case's chain).
      double v = c.values == "positive"
                     ? small_int(1, 8)
                     : small_int(k == dsl::ScalarKind::F16 ? -2 : -8, k == dsl::ScalarKind::F16 ? 2 : 8);
      if (k == dsl::ScalarKind::F16 && c.values == "small") {
        if (walk + v > 1000 || walk + v < -1000) v = -v;
        walk += static_cast<int>(v);
      }
      if (k == dsl::ScalarKind::F16) {
        const uint16_t h = dsl::float_to_half_bits(static_cast<float>(v));
        std::memcpy(e, &h, 2);
      } else if (k == dsl::ScalarKind::F32) {
        const float f = static_cast<float>(v);
        std::memcpy(e, &f, 4);
      } else {
        std::memcpy(e, &v, 8);
      }
    } else if (c.values == "affine") {
      const float ab[2] = {static_cast<float>(sign()), static_cast<float>(small_int(-8, 8))};
      std::memcpy(e, ab, 8);
    } else if (c.values == "affine64") {
      const double ab[2] = {sign(), static_cast<double>(small_int(-8, 8))};
      const uint32_t count = static_cast<uint32_t>(rng());
      std::memcpy(e, ab, 16);
      std::memcpy(e + 16, &count, 4);
      std::memset(e + 20, 0, 4);
    } else if (c.values == "matrix") {
      // A signed permutation matrix: products stay signed permutations, exact.
      const bool swap = small_int(0, 1) != 0;
      const float s1 = static_cast<float>(sign()), s2 = static_cast<float>(sign());
      const float m[4] = {swap ? 0.0f : s1, swap ? s1 : 0.0f, swap ? s2 : 0.0f, swap ? 0.0f : s2};
      std::memcpy(e, m, 16);
    } else {
      throw std::logic_error("scan sweep: unknown value kind '" + c.values + "'");
    }
  }
  return out;
}

std::vector<uint8_t> poisoned(uint64_t elements, size_t size) { return std::vector<uint8_t>(elements * size, 0xAB); }

// Compares `count` elements of got and want; appends the first mismatches.
// The cases whose values are drawn with NaNs and -0.0 ("nan") compare zeros
// by sign: every result a kernel may produce there is exact, and its sign too.
ref::Tolerance tolerance_of(const ScanCase& c) {
  ref::Tolerance t;
  t.signed_zeros = c.values == "nan";
  return t;
}

bool compare(const std::string& what, const dsl::Type& t, const uint8_t* got, const uint8_t* want, uint64_t count,
             uint64_t segment, std::string& report, ref::Tolerance tol = {}) {
  const size_t size = t.size();
  int shown = 0;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (ref::values_match(t, got + i * size, want + i * size, tol)) continue;
    ++bad;
    if (shown++ < 5)
      report += "  " + what + "[" + std::to_string(i) + "] (segment " + std::to_string(segment ? i / segment : 0) +
                ", position " + std::to_string(segment ? i % segment : i) + "): got " +
                ref::format_value(t, got + i * size) + ", want " + ref::format_value(t, want + i * size) + "\n";
  }
  if (bad) report += "  " + what + ": " + std::to_string(bad) + " of " + std::to_string(count) + " differ\n";
  return bad == 0;
}

// The tail past the n elements must still hold the poison.
bool tail_intact(const std::string& what, const std::vector<uint8_t>& buf, size_t used, std::string& report) {
  for (size_t i = used; i < buf.size(); ++i)
    if (buf[i] != 0xAB) {
      report += "  " + what + ": the kernel wrote past the end (byte " + std::to_string(i) + ")\n";
      return false;
    }
  return true;
}

constexpr uint64_t kTail = 3;  // poisoned elements after every output

}  // namespace

std::string run_scan_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, std::mt19937_64& rng,
                          const LaunchKernel& launch) {
  const dsl::Spec& s = c.spec;
  const size_t es = s.type.size();
  const uint64_t seg = plan.segment;
  const uint64_t segments = (n + seg - 1) / seg;
  const uint64_t gpb = static_cast<uint64_t>(plan.groups_per_block);
  const uint64_t blocks = (segments + gpb - 1) / gpb;

  std::vector<std::vector<uint8_t>> buffers;
  buffers.push_back(draw(c, n, rng));
  const size_t inc = s.has_inclusive() ? buffers.size() : 0;
  if (s.has_inclusive()) buffers.push_back(poisoned(n + kTail, es));
  const size_t exc = s.has_exclusive() ? buffers.size() : 0;
  if (s.has_exclusive()) buffers.push_back(poisoned(n + kTail, es));
  const size_t agg = s.aggregate ? buffers.size() : 0;
  if (s.aggregate) buffers.push_back(poisoned(segments + kTail, es));
  const size_t run = s.running_total ? buffers.size() : 0;
  std::vector<uint8_t> counter0;
  if (s.running_total) {
    counter0 = c.values == "int" ? random_values(s.type, 1, rng) : draw(c, 1, rng);  // floats: exact sums
    buffers.push_back(counter0);
  }
  const std::vector<uint8_t> input = buffers[0];
  launch(plan.entry_kernel, buffers, buffers_then_n(buffers.size(), n), blocks, plan.block_threads);

  ref::Evaluator::Options wide;
  wide.widen_floats = true;  // the float64 reference
  const ref::Evaluator ev(s, wide);
  const ref::Evaluator::Result want = ev.scan(input.data(), n, s.running_total ? counter0.data() : nullptr);
  std::string report;
  if (buffers[0] != input) report += "  the input changed\n";
  if (s.has_inclusive()) tail_intact("inclusive", buffers[inc], n * es, report);
  if (s.has_exclusive()) tail_intact("exclusive", buffers[exc], n * es, report);
  if (s.aggregate) {
    tail_intact("aggregates", buffers[agg], segments * es, report);
    compare("aggregates", s.type, buffers[agg].data(), want.aggregates.data(), segments, 0, report, tolerance_of(c));
  }
  if (!s.running_total) {
    if (s.has_inclusive())
      compare("inclusive", s.type, buffers[inc].data(), want.inclusive.data(), n, seg, report, tolerance_of(c));
    if (s.has_exclusive())
      compare("exclusive", s.type, buffers[exc].data(), want.exclusive.data(), n, seg, report, tolerance_of(c));
    return report;
  }
  // Running total: the counter's final value is exact (the operator
  // commutes); the groups took their turns in any order, so each segment is
  // checked against its own old counter value (its first exclusive result),
  // and those values must chain: some order of the segments passes each from
  // one to the next. (Found greedily, which needs a counter that does not
  // come back to a value it had: random 32- and 64-bit values, xor, max, or
  // sums of positive floats.)
  compare("running_total", s.type, buffers[run].data(), want.running_total.data(), 1, 0, report, tolerance_of(c));
  std::vector<std::vector<uint8_t>> olds(segments), totals(segments);
  for (uint64_t g = 0; g < segments; ++g) {
    const uint64_t first = g * seg, len = std::min(n, first + seg) - first;
    const uint64_t head = s.reverse ? first + len - 1 : first;  // the segment's first element in scan order
    olds[g].assign(buffers[exc].begin() + static_cast<long>(head * es),
                   buffers[exc].begin() + static_cast<long>((head + 1) * es));
    const ref::Evaluator::Result one = ev.scan(input.data() + first * s.input.size(), len, olds[g].data());
    const std::string where = "segment " + std::to_string(g) + " ";
    if (s.has_inclusive())
      compare(where + "inclusive", s.type, buffers[inc].data() + first * es, one.inclusive.data(), len, 0, report,
              tolerance_of(c));
    compare(where + "exclusive", s.type, buffers[exc].data() + first * es, one.exclusive.data(), len, 0, report,
            tolerance_of(c));
    const ref::Evaluator::Result alone = ev.scan(input.data() + first * s.input.size(), len, nullptr);
    totals[g] = alone.running_total;
  }
  std::vector<uint8_t> current = counter0;
  std::vector<bool> used(segments, false);
  for (uint64_t step = 0; step < segments; ++step) {
    // Prefer a segment that leaves the counter as it is (its order does not matter).
    int64_t pick = -1;
    std::vector<uint8_t> next(es);
    for (uint64_t g = 0; g < segments; ++g) {
      if (used[g] || olds[g] != current) continue;
      ev.combine(current.data(), totals[g].data(), next.data());
      if (pick < 0 || next == current) pick = static_cast<int64_t>(g);
      if (next == current) break;
    }
    if (pick < 0) {
      report += "  the segments' old counter values do not chain: after " + std::to_string(step) +
                " segments no segment started from " + ref::format_value(s.type, current.data()) + "\n";
      break;
    }
    used[static_cast<size_t>(pick)] = true;
    ev.combine(current.data(), totals[static_cast<size_t>(pick)].data(), next.data());
    current = next;
  }
  return report;
}

bool has_api_kernel(const ScanCase& c) {
  const std::string& n = c.spec.name;
  // (The device functions scan in the order their threads hold the items, reverse or not.)
  return !c.spec.running_total && !c.spec.reverse && n.size() > 5 && n.compare(n.size() - 5, 5, "_both") == 0;
}

std::string api_test_kernel(const generator::Plan& plan, int groups) {
  const int gpb = groups > 0 ? groups : plan.groups_per_block;
  const std::string P = plan.spec.name;
  const std::string G = std::to_string(plan.group_threads), I = std::to_string(plan.items), B = std::to_string(gpb);
  std::string k = R"(
// A user's kernel: the public device functions of scan P.
SG_KERNEL SG_BOUNDS($T) void P_api_kernel(const SG_GLOBAL P_In* in, SG_GLOBAL P_T* inclusive,
                                          SG_GLOBAL P_T* exclusive, SG_GLOBAL P_T* reduced,
                                          SG_GLOBAL P_T* broadcast, scangen_u64 n) {
  SG_SHARED P_temp temp[$B];
  const int group = SG_THREAD() / $G, rank = SG_THREAD() % $G;
  const scangen_u64 segment = SG_BLOCK() * $B + (scangen_u64)group;
  const scangen_u64 start = segment * ($G * $I);
  const scangen_u64 first = start + (scangen_u64)rank * $I;
  P_T items[$I], inc[$I], exc[$I];
  for (int i = 0; i < $I; ++i) items[i] = first + (scangen_u64)i < n ? P_convert(in[first + (scangen_u64)i]) : P_identity();
  P_inclusive_exclusive(&temp[group], items, inc, exc);
  const P_T total = P_reduce(&temp[group], items);
  const P_T last = P_broadcast(&temp[group], items[0], $G - 1);
  for (int i = 0; i < $I; ++i) {
    if (first + (scangen_u64)i < n) {
      inclusive[first + (scangen_u64)i] = inc[i];
      exclusive[first + (scangen_u64)i] = exc[i];
    }
  }
  if (start < n) {
    if (rank == 0) reduced[segment] = total;
    broadcast[segment * $G + (scangen_u64)rank] = last;
  }
}
)";
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t p = k.find(from); p != std::string::npos; p = k.find(from, p + to.size()))
      k.replace(p, from.size(), to);
  };
  replace("P_", P + "_");
  replace("$G", G);
  replace("$I", I);
  replace("$B", B);
  replace("$T", std::to_string(gpb * plan.group_threads));
  return k;
}

ScanCase wide_warp_case() {
  const std::string text = std::string(kMatrix.types) + "scan wide_warp_both {\n  type = Mat2;\n  " +
                           kMatrix.operator_ +
                           "\n  level = warp(64);\n  items = 2;\n  mode = both;\n"
                           "  init = Mat2 { 0.0, 1.0, -1.0, 0.0 };\n}\n";
  return {load_spec("wide_warp_both", text), kMatrix.values};
}

std::string run_api_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, std::mt19937_64& rng,
                         const LaunchKernel& launch, int groups) {
  dsl::Spec s = c.spec;
  const size_t es = s.type.size();
  const uint64_t seg = plan.segment;
  const uint64_t segments = (n + seg - 1) / seg;
  const uint64_t gpb = static_cast<uint64_t>(groups > 0 ? groups : plan.groups_per_block);
  const uint64_t g = static_cast<uint64_t>(plan.group_threads);
  std::vector<std::vector<uint8_t>> buffers = {draw(c, n, rng), poisoned(n + kTail, es), poisoned(n + kTail, es),
                                               poisoned(segments + kTail, es), poisoned(segments * g + kTail, es)};
  const std::vector<uint8_t> input = buffers[0];
  launch(s.name + "_api_kernel", buffers, buffers_then_n(buffers.size(), n), (segments + gpb - 1) / gpb,
         static_cast<int>(gpb * g));

  s.mode = dsl::Mode::Both;
  s.aggregate = true;
  s.running_total = false;
  ref::Evaluator::Options wide;
  wide.widen_floats = true;
  const ref::Evaluator ev(s, wide);
  const ref::Evaluator::Result want = ev.scan(input.data(), n);
  std::string report;
  compare("P_inclusive_exclusive inclusive", s.type, buffers[1].data(), want.inclusive.data(), n, seg, report,
          tolerance_of(c));
  compare("P_inclusive_exclusive exclusive", s.type, buffers[2].data(), want.exclusive.data(), n, seg, report,
          tolerance_of(c));
  compare("P_reduce", s.type, buffers[3].data(), want.aggregates.data(), segments, 0, report, tolerance_of(c));
  // P_broadcast(items[0], rank G-1): the last rank's first item, or the identity past n.
  std::vector<uint8_t> bcast(segments * g * es), value(es);
  for (uint64_t k = 0; k < segments; ++k) {
    const uint64_t src = k * seg + (g - 1) * static_cast<uint64_t>(plan.items);
    if (src < n)
      ev.convert(input.data() + src * s.input.size(), value.data());
    else
      ev.identity(value.data());
    for (uint64_t r = 0; r < g; ++r) std::memcpy(bcast.data() + (k * g + r) * es, value.data(), es);
  }
  compare("P_broadcast", s.type, buffers[4].data(), bcast.data(), segments * g, g, report, tolerance_of(c));
  for (size_t b = 1; b < buffers.size(); ++b)
    tail_intact("output " + std::to_string(b), buffers[b],
                (b == 3   ? segments
                 : b == 4 ? segments * g
                          : n) *
                    es,
                report);
  return report;
}

// ---- device level ----------------------------------------------------------

std::vector<ScanCase> nan_cases(generator::Backend backend) {
  std::vector<ScanCase> out;
  const char* const ops[] = {"max", "min", "fmax", "fmin", "add"};
  const char* const types[] = {"f32", "f64", "f16"};
  int i = 0;
  for (int level = 0; level < 3; ++level) {
    for (const char* op : ops) {
      const char* type = types[(i + level) % 3];
      const std::string name = std::string("nan_") +
                               (level == 0   ? "warp"
                                : level == 1 ? "block"
                                             : "device") +
                               "_" + op + "_" + type;
      // Both modes with the aggregate; every third scan reversed.
      std::string extra = "  outputs = aggregate;\n";
      if (i % 3 == 2) extra += "  reverse = true;\n";
      dsl::Spec spec;
      if (level < 2) {
        const std::string op_text = std::string("op = ") + op + ";";
        const ElementKind kind = {type, "", type, op_text.c_str(), "nan"};
        const Algorithm a = level == 0 ? Algorithm::KoggeStone : Algorithm::Raking;
        const Shape shape = level == 0 ? Shape{32, 128, 3} : Shape{0, 128, 3};
        spec = load_spec(name, spec_text(name, kind, a, shape, dsl::Mode::Both, extra));
      } else {
        spec = load_spec(name, "scan " + name + " {\n  type = " + type + ";\n  op = " + op +
                                   ";\n  level = device;\n  mode = both;\n" + extra + "}\n");
      }
      if (plannable(spec, backend)) out.push_back({std::move(spec), "nan"});
      ++i;
    }
  }
  return out;
}

std::vector<ScanCase> device_cases(generator::Backend backend) {
  std::vector<ScanCase> out;
  const ElementKind bytes = {"u8u32", "", "u32", "input = u8;\n  op = add;", "int"};
  const ElementKind* kinds[] = {&kI32, &bytes, &kF32, &kF64, &kAffine, &kMatrix};
  for (Algorithm a : {Algorithm::DecoupledLookback, Algorithm::ReduceThenScan}) {
    const std::string an = a == Algorithm::DecoupledLookback ? "lookback" : "rts";
    int i = 0;
    for (const ElementKind* k : kinds) {
      for (dsl::Mode m : kModes) {
        std::string extra = "  algorithm = " + std::string(dsl::to_string(a)) + ";\n";
        extra += "  mode = " + std::string(dsl::to_string(m)) + ";\n";
        if (i % 3 == 1 && k != &kAffine && k != &kMatrix) extra += "  init = 3;\n";
        if (i % 3 == 2) extra += "  outputs = aggregate;\n";
        ++i;
        const std::string name = an + "_" + k->name + "_" + dsl::to_string(m);
        std::ostringstream t;
        t << k->types << "scan " << name << " {\n  type = " << k->type << ";\n  " << k->operator_
          << "\n  level = device;\n"
          << extra << "}\n";
        dsl::Spec spec = load_spec(name, t.str());
        if (plannable(spec, backend)) out.push_back({std::move(spec), k->values});
      }
    }
    // A running total carried from call to call, a small tile (many tiles), a
    // non-default shape.
    const std::string alg = "  algorithm = " + std::string(dsl::to_string(a)) + ";\n";
    auto add = [&](const std::string& name, const std::string& body, const char* values) {
      dsl::Spec spec = load_spec(name, "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\nscan " + name + " {\n" + body +
                                           "  level = device;\n" + alg + "}\n");
      if (plannable(spec, backend)) out.push_back({std::move(spec), values});
    };
    add(an + "_running_i64", "  type = i64;\n  op = add;\n  mode = both;\n  outputs = running_total, aggregate;\n",
        "int");
    add(an + "_running_mat2",
        std::string("  type = Mat2;\n  ") + kMatrix.operator_ + "\n  mode = exclusive;\n  outputs = running_total;\n",
        "matrix");
    add(an + "_small_tiles", "  type = u32;\n  op = xor;\n  threads = 32;\n  items = 1;\n", "int");
    // deterministic = true with floats by decoupled look-back: the fixed-order look-back (common/lookback_fixed.h).
    if (a == Algorithm::DecoupledLookback) {
      const std::string det = "  deterministic = true;\n";
      add("lookback_det_f32", "  type = f32;\n  op = add;\n  mode = both;\n  outputs = aggregate;\n" + det, "small");
      add("lookback_det_mat2_small",
          std::string("  type = Mat2;\n  ") + kMatrix.operator_ + "\n  threads = 32;\n  items = 1;\n" + det, "matrix");
      add("lookback_det_running_mat2",
          std::string("  type = Mat2;\n  ") + kMatrix.operator_ +
              "\n  mode = exclusive;\n  outputs = running_total;\n" + det,
          "matrix");
      add("lookback_det_rev_mat2",
          std::string("  type = Mat2;\n  ") + kMatrix.operator_ + "\n  reverse = true;\n  mode = both;\n" + det,
          "matrix");
    }
    add(an + "_i8_max", "  type = i8;\n  op = max;\n  threads = 64;\n  items = 3;\n", "int");
    // Wrapping sums of 1- and 2-byte integers and f16 sums, whose look-back tiles keep their
    // items packed in 32-bit words on CUDA (cuda/packed.cuh): each type in each
    // mode, with init, aggregates and running totals, at the table's tile, at
    // one word per thread (many tiles), three words per thread (a word count
    // that is no power of two) and at items that fill no whole word (unpacked).
    int j = 0;
    for (const char* type : {"i8", "u8", "i16", "u16", "f16"}) {
      const bool byte = type[1] == '8';
      for (dsl::Mode m : kModes) {
        std::string body = std::string("  type = ") + type + ";\n  op = add;\n  mode = " + dsl::to_string(m) + ";\n";
        if (j % 4 == 1) body += type[0] != 'u' ? "  init = -3;\n" : byte ? "  init = 253;\n" : "  init = 65533;\n";
        if (j % 4 == 2) body += "  outputs = aggregate;\n";
        if (j % 4 == 3) body += "  outputs = running_total, aggregate;\n";
        if (j % 3 == 1) body += byte ? "  threads = 32;\n  items = 16;\n" : "  threads = 32;\n  items = 8;\n";
        if (j % 6 == 2) body += byte ? "  threads = 64;\n  items = 48;\n" : "  threads = 64;\n  items = 24;\n";
        if (j % 6 == 5) body += "  threads = 64;\n  items = 3;\n";
        add(an + "_sum_" + type + "_" + dsl::to_string(m), body, type[0] == 'f' ? "small" : "int");
        ++j;
      }
    }
    // reverse = true: the non-commutative operators in every mode, init, u8 in u32, running totals, small tiles.
    const std::string rev = "  reverse = true;\n";
    for (dsl::Mode m : kModes) {
      const std::string mode = "  mode = " + std::string(dsl::to_string(m)) + ";\n";
      add(an + "_rev_mat2_" + dsl::to_string(m),
          std::string("  type = Mat2;\n  ") + kMatrix.operator_ + "\n" + mode + rev + "  outputs = aggregate;\n",
          "matrix");
      const std::string name = an + "_rev_affine_" + dsl::to_string(m);
      dsl::Spec spec = load_spec(name, std::string(kAffine.types) + "scan " + name + " {\n  type = Affine;\n  " +
                                           kAffine.operator_ + "\n  level = device;\n" + alg + mode + rev + "}\n");
      if (plannable(spec, backend)) out.push_back({std::move(spec), kAffine.values});
    }
    add(an + "_rev_i32_init", "  type = i32;\n  op = add;\n  mode = both;\n  init = 3;\n" + rev, "int");
    add(an + "_rev_u8u32", "  type = u32;\n  input = u8;\n  op = add;\n  outputs = aggregate;\n" + rev, "int");
    add(an + "_rev_f32", "  type = f32;\n  op = add;\n  mode = exclusive;\n" + rev, "small");
    add(an + "_rev_running_mat2",
        std::string("  type = Mat2;\n  ") + kMatrix.operator_ + "\n  mode = both;\n  outputs = running_total;\n" + rev,
        "matrix");
    add(an + "_rev_small_tiles", "  type = u32;\n  op = xor;\n  threads = 32;\n  items = 1;\n" + rev, "int");
    add(an + "_rev_i8_max", "  type = i8;\n  op = max;\n  threads = 64;\n  items = 3;\n  mode = both;\n" + rev, "int");
    // convert(v, i): each element's index in the array goes into the scan, forward and reverse.
    const std::string indexed = "  type = u64;\n  input = u32;\n  convert(v, i) = u64(v) * (i + 1);\n  op = add;\n";
    add(an + "_index_u32u64", indexed + "  mode = both;\n  outputs = aggregate;\n", "int");
    add(an + "_rev_index_u32u64", indexed + "  mode = exclusive;\n  init = 5;\n" + rev, "int");
    add(an + "_index_small_tiles",
        "  type = i32;\n  convert(v, i) = v ^ i32(i);\n  op = max;\n  threads = 32;\n  items = 3;\n", "int");
  }
  return out;
}

std::vector<uint64_t> device_sizes(const generator::Plan& plan, int log2_max) {
  const uint64_t tile = plan.tile;
  std::vector<uint64_t> v = {0, 1, 2, tile - 1, tile, tile + 1, 2 * tile + 1};
  for (int k = 3; k <= log2_max; k += 3) {
    v.push_back((1ull << k) - 1);
    v.push_back((1ull << k) + 1);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string run_device_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, std::mt19937_64& rng,
                            const LaunchKernel& launch, DeviceState& state, std::vector<uint8_t>& counter,
                            bool in_place) {
  using K = KernelArg::Kind;
  const dsl::Spec& s = c.spec;
  const size_t es = s.type.size();
  const uint64_t tiles = std::max<uint64_t>(1, (n + plan.tile - 1) / plan.tile);
  const int threads = plan.block_threads;
  if (s.running_total && counter.empty()) counter = draw(c, 1, rng);

  std::vector<std::vector<uint8_t>> buffers;
  buffers.push_back(draw(c, n, rng));
  const std::vector<uint8_t> input = buffers[0];
  std::vector<size_t> outs;
  if (in_place && (s.mode == dsl::Mode::Both || !(s.input == s.type)))
    throw std::logic_error("scan sweep: an in-place scan needs one output of the input's type");
  for (int k = 0; k < (s.mode == dsl::Mode::Both ? 2 : 1); ++k) {
    outs.push_back(in_place ? 0 : buffers.size());
    if (!in_place) buffers.push_back(poisoned(n + kTail, es));
  }
  const size_t agg = buffers.size();
  if (s.aggregate) buffers.push_back(poisoned(1 + kTail, es));
  const size_t run = buffers.size();
  if (s.running_total) buffers.push_back(counter);
  const std::vector<uint8_t> counter_in = counter;

  auto buffer = [](size_t i) { return KernelArg{K::Buffer, i}; };
  const KernelArg count{K::U64, n};
  // The workspace as the host rule leaves it: whatever the calls before
  // wrote (other scans, other layouts), poisoned past what this call uses,
  // and its first workspace_zero_bytes(n) bytes zeroed (the runtime's and
  // the wrappers' memset; none for one tile, whose statuses are whatever the
  // call before left).
  const uint64_t need = generator::workspace_bytes(plan, n);
  if (state.epochs && plan.epoch_tags) {
    // A workspace kept for this plan (DeviceState::epochs): what its earlier calls left stays, statuses of
    // other epochs included; zeroed whole only when new or grown, and when the epoch would come round.
    if (state.workspace.size() < need) {
      state.workspace.assign(need, 0);
      state.epoch_calls = 0;
    }
    if (generator::workspace_epoch_call(plan, n, state.epoch_calls))
      std::fill(state.workspace.begin(), state.workspace.end(), uint8_t{0});
  } else {
    if (state.workspace.size() < need) state.workspace.resize(need, 0xAB);
    std::fill(state.workspace.begin() + static_cast<std::ptrdiff_t>(need), state.workspace.end(), uint8_t{0xAB});
    const uint64_t zero = generator::workspace_zero_bytes(plan, n);
    std::fill(state.workspace.begin(), state.workspace.begin() + static_cast<std::ptrdiff_t>(zero), uint8_t{0});
  }
  ++state.calls;
  const size_t ws = buffers.size();
  buffers.push_back(state.workspace);
  if (s.algorithm == Algorithm::DecoupledLookback) {
    std::vector<KernelArg> args = {buffer(0)};
    for (size_t o : outs) args.push_back(buffer(o));
    if (s.aggregate) args.push_back(buffer(agg));
    if (s.running_total) args.push_back(buffer(run));
    args.push_back(count);
    args.push_back(buffer(ws));
    launch(plan.entry_kernel, buffers, args, tiles, threads);
  } else {
    const size_t partials = ws;
    launch(s.name + "_reduce_kernel", buffers, {buffer(0), buffer(partials), count}, tiles, threads);
    std::vector<KernelArg> spine = {buffer(partials)};
    if (s.aggregate) spine.push_back(buffer(agg));
    if (s.running_total) spine.push_back(buffer(run));
    spine.push_back(count);
    launch(s.name + "_spine_kernel", buffers, spine, 1, threads);
    std::vector<KernelArg> scan = {buffer(0)};
    for (size_t o : outs) scan.push_back(buffer(o));
    scan.push_back(buffer(partials));
    scan.push_back(count);
    launch(plan.entry_kernel, buffers, scan, tiles, threads);
  }

  state.workspace = buffers[ws];  // what this call left, for the next one
  std::string report;

  ref::Evaluator::Options wide;
  wide.widen_floats = true;
  const ref::Evaluator ev(s, wide);
  const ref::Evaluator::Result want = ev.scan(input.data(), n, s.running_total ? counter_in.data() : nullptr);
  if (!in_place && buffers[0] != input) report += "  the input changed\n";
  size_t o = 0;
  if (s.has_inclusive()) {
    compare("inclusive", s.type, buffers[outs[o]].data(), want.inclusive.data(), n, plan.tile, report, tolerance_of(c));
    if (!in_place) tail_intact("inclusive", buffers[outs[o]], n * es, report);
    ++o;
  }
  if (s.has_exclusive()) {
    compare("exclusive", s.type, buffers[outs[o]].data(), want.exclusive.data(), n, plan.tile, report, tolerance_of(c));
    if (!in_place) tail_intact("exclusive", buffers[outs[o]], n * es, report);
  }
  if (s.aggregate) {
    compare("aggregate", s.type, buffers[agg].data(), want.aggregates.data(), 1, 0, report, tolerance_of(c));
    tail_intact("aggregate", buffers[agg], es, report);
  }
  if (s.running_total) {
    compare("running_total", s.type, buffers[run].data(), want.running_total.data(), 1, 0, report, tolerance_of(c));
    counter = buffers[run];
  }
  return report;
}

}  // namespace scangen::test
