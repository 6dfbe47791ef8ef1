#include "head_flags_sweep.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <stdexcept>

#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/reference/reference.h"

namespace scangen::test {

namespace {

const char* const kAffine =
    "type AffU { a: u32, b: u32 }\n"
    "scan NAME {\n  type = AffU;\n"
    "  combine(x, y) = AffU { a: y.a * x.a, b: y.a * x.b + y.b };\n"
    "  identity = AffU { a: 1, b: 0 };\n";
const char* const kMatrix =
    "type M2 { a: i64, b: i64, c: i64, d: i64 }\n"
    "scan NAME {\n  type = M2;\n"
    "  combine(x, y) = M2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,\n"
    "                       c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };\n"
    "  identity = M2 { a: 1, b: 0, c: 0, d: 1 };\n";
const char* const kSum = "scan NAME {\n  type = i32;\n  op = add;\n";

struct Case {
  const char* name;
  const char* op;     // the types and the scan's opening, its type and operator
  const char* shape;  // level, algorithm, threads, items and the rest
  bool cuda_only;
};

const Case kCases[] = {
    {"hf_warp8_affine", kAffine, "level = warp(8);\n  threads = 64;\n  items = 3;", false},
    {"hf_warp32_sum_init", kSum, "level = warp(32);\n  threads = 64;\n  items = 2;\n  init = 3;", false},
    {"hf_warp16_matrix_local", kMatrix, "level = warp(16);\n  algorithm = kogge_stone_local;\n  threads = 32;", false},
    {"hf_warp8_matrix", kMatrix, "level = warp(8);\n  threads = 32;\n  items = 2;", false},
    {"hf_warp64_matrix", kMatrix, "level = warp(64);\n  threads = 256;\n  items = 2;", false},
    {"hf_warp128_affine_local", kAffine,
     "level = warp(128);\n  algorithm = kogge_stone_local;\n  threads = 256;\n  items = 3;\n  init = AffU { a: 3, b: 5 "
     "};",
     false},
    {"hf_block96_affine_raking", kAffine,
     "level = block;\n  threads = 96;\n  items = 3;\n  init = AffU { a: 3, b: 5 };\n  init_applies_to = exclusive;",
     false},
    {"hf_block128_matrix_memoize", kMatrix,
     "level = block;\n  algorithm = raking_memoize;\n  threads = 128;\n  items = 2;", false},
    {"hf_block128_affine_warp_scans", kAffine,
     "level = block;\n  algorithm = warp_scans;\n  threads = 128;\n  items = 4;\n  init = AffU { a: 1, b: 7 };", false},
    {"hf_block64_sum_hillis", kSum, "level = block;\n  algorithm = hillis_steele;\n  threads = 64;\n  items = 2;",
     false},
    {"hf_block128_affine_blelloch", kAffine, "level = block;\n  algorithm = blelloch;\n  threads = 128;", false},
    {"hf_warp32_affine_coalesced", kAffine,
     "level = warp(32);\n  algorithm = coalesced;\n  threads = 64;\n  items = 2;\n  targets = cuda;", true},
};

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::vector<uint8_t> poisoned(uint64_t bytes) { return std::vector<uint8_t>(bytes, 0xAB); }

constexpr uint64_t kTail = 3;  // poisoned elements past each output's end

void compare(const std::string& what, const dsl::Type& t, const std::vector<uint8_t>& got,
             const std::vector<uint8_t>& want, const std::vector<bool>& written, std::string& report) {
  const size_t size = t.size();
  uint64_t bad = 0;
  for (uint64_t i = 0; i < written.size(); ++i) {
    const uint8_t* g = got.data() + i * size;
    const bool ok = written[i] ? ref::values_match(t, g, want.data() + i * size, ref::Tolerance{})
                               : std::all_of(g, g + size, [](uint8_t b) { return b == 0xAB; });
    if (ok) continue;
    if (bad++ < 5)
      report += "  " + what + "[" + std::to_string(i) + "]: got " + ref::format_value(t, g) +
                (written[i] ? ", want " + ref::format_value(t, want.data() + i * size) : ", want it untouched") + "\n";
  }
  if (bad) report += "  " + what + ": " + std::to_string(bad) + " of " + std::to_string(written.size()) + " differ\n";
  for (size_t i = written.size() * size; i < got.size(); ++i)
    if (got[i] != 0xAB) {
      report += "  " + what + ": written past its end (byte " + std::to_string(i) + ")\n";
      break;
    }
}

std::vector<uint8_t> flags_for(const std::string& pattern, uint64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> f(n, 0);
  std::uniform_int_distribution<int> byte(1, 255), die(0, 7);
  for (uint64_t i = 0; i < n; ++i) {
    if (pattern == "all")
      f[i] = static_cast<uint8_t>(byte(rng));
    else if (pattern == "first")
      f[i] = i == 0 ? 1 : 0;
    else if (pattern == "sparse")
      f[i] = die(rng) == 0 ? static_cast<uint8_t>(byte(rng)) : 0;
    else if (pattern == "dense")
      f[i] = die(rng) < 4 ? static_cast<uint8_t>(byte(rng)) : 0;
    else if (pattern != "none")
      throw std::logic_error("head-flag sweep: unknown pattern '" + pattern + "'");
  }
  return f;
}

// The CPU loop: each group's elements below n, a segment starting at every
// flag and at the group's first element, every segment scanned from init.
struct Want {
  std::vector<uint8_t> inclusive, exclusive, totals;
};

Want expected(const ref::Evaluator& ev, bool seed_exclusive_only, const std::vector<uint8_t>& input,
              const std::vector<uint8_t>& flags, uint64_t n, uint64_t seg) {
  const size_t es = ev.element_size();
  const uint64_t groups = (n + seg - 1) / seg;
  Want w{std::vector<uint8_t>(n * es), std::vector<uint8_t>(n * es), std::vector<uint8_t>(groups * es)};
  std::vector<uint8_t> init(es), x(es), acc(es), next(es);
  ev.init(init.data());
  for (uint64_t k = 0; k < n; ++k) {
    ev.convert(input.data() + k * ev.input_size(), x.data());
    uint8_t* inc = w.inclusive.data() + k * es;
    uint8_t* exc = w.exclusive.data() + k * es;
    if (flags[k] || k % seg == 0) {
      std::copy(init.begin(), init.end(), exc);
      acc = x;  // the segment's own total so far, without init
    } else {
      ev.combine(init.data(), acc.data(), exc);  // init seeds the exclusive results in both seedings
      ev.combine(acc.data(), x.data(), next.data());
      acc = next;
    }
    if (seed_exclusive_only)
      std::copy(acc.begin(), acc.end(), inc);
    else
      ev.combine(init.data(), acc.data(), inc);
    std::copy(acc.begin(), acc.end(), w.totals.begin() + static_cast<long>(k / seg * es));
  }
  return w;
}

}  // namespace

std::vector<ScanCase> head_flag_cases(generator::Backend backend) {
  std::vector<ScanCase> out;
  for (const Case& c : kCases) {
    if (c.cuda_only && backend != generator::Backend::Cuda) continue;
    const std::string text =
        replaced(c.op, "NAME", c.name) + "  mode = both;\n  head_flags = true;\n  " + c.shape + "\n}\n";
    dsl::Document doc = dsl::load(std::string(c.name) + ".scan", text);
    if (!doc.ok()) throw std::logic_error("head-flag sweep: " + doc.diagnostics().render());
    out.push_back({doc.specs().at(0), "int"});
  }
  return out;
}

std::string head_flag_source(const std::vector<generator::Plan>& plans) {
  std::string source = generator::emit(plans);
  for (const generator::Plan& p : plans) source += head_flag_test_kernel(p);
  return source;
}

std::vector<std::string> head_flag_patterns() { return {"none", "all", "first", "sparse", "dense"}; }

std::string head_flag_test_kernel(const generator::Plan& plan) {
  std::string k = R"(
// A user's kernel: the head-flag device functions of scan P.
SG_KERNEL SG_BOUNDS($T) void P_heads_kernel(const SG_GLOBAL P_In* in, const SG_GLOBAL unsigned char* flags,
                                            SG_GLOBAL P_T* inclusive, SG_GLOBAL P_T* exclusive,
                                            SG_GLOBAL P_T* inclusive_alone, SG_GLOBAL P_T* exclusive_alone,
                                            SG_GLOBAL P_T* totals, scangen_u64 n) {
  SG_SHARED P_seg_temp temp[$B];
  const int group = SG_THREAD() / $G, rank = SG_THREAD() % $G;
  const scangen_u64 segment = SG_BLOCK() * $B + (scangen_u64)group;
  const scangen_u64 start = segment * ($G * $I);
  const scangen_u64 first = start + (scangen_u64)rank * $I;
  P_T items[$I], inc[$I], exc[$I], alone[$I];
  unsigned char heads[$I];
  for (int i = 0; i < $I; ++i) {
    const int here = first + (scangen_u64)i < n;
    items[i] = here ? P_convert(in[first + (scangen_u64)i]) : P_identity();
    heads[i] = here ? flags[first + (scangen_u64)i] : (unsigned char)0;
  }
  const P_T t0 = P_inclusive_exclusive_segmented(&temp[group], items, heads, inc, exc);
  const P_T t1 = P_exclusive_segmented(&temp[group], items, heads, alone);
  const P_T t2 = P_inclusive_segmented(&temp[group], items, heads, items);  /* in place */
  for (int i = 0; i < $I; ++i) {
    if (first + (scangen_u64)i < n) {
      inclusive[first + (scangen_u64)i] = inc[i];
      exclusive[first + (scangen_u64)i] = exc[i];
      exclusive_alone[first + (scangen_u64)i] = alone[i];
      inclusive_alone[first + (scangen_u64)i] = items[i];
    }
  }
  if (start < n) {  /* each total as a different rank got it */
    if (rank == 0) totals[3 * segment] = t0;
    if (rank == $G - 1) totals[3 * segment + 1] = t1;
    if (rank == $G / 2) totals[3 * segment + 2] = t2;
  }
}
)";
  k = replaced(k, "P_", plan.spec.name + "_");
  k = replaced(k, "$G", std::to_string(plan.group_threads));
  k = replaced(k, "$I", std::to_string(plan.items));
  k = replaced(k, "$B", std::to_string(plan.groups_per_block));
  return replaced(k, "$T", std::to_string(plan.block_threads));
}

std::string run_head_flag_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, const std::string& pattern,
                               std::mt19937_64& rng, const LaunchKernel& launch) {
  const dsl::Spec& s = c.spec;
  const size_t es = s.type.size();
  const uint64_t seg = plan.segment, groups = (n + seg - 1) / seg;
  const uint64_t gpb = static_cast<uint64_t>(plan.groups_per_block);
  const std::vector<uint8_t> input = random_values(s.input, n, rng), flags = flags_for(pattern, n, rng);
  std::vector<std::vector<uint8_t>> buffers = {input, flags};
  for (int i = 0; i < 4; ++i) buffers.push_back(poisoned((n + kTail) * es));
  buffers.push_back(poisoned((3 * groups + kTail) * es));
  std::vector<KernelArg> args;
  for (uint64_t i = 0; i < buffers.size(); ++i) args.push_back({KernelArg::Kind::Buffer, i});
  args.push_back({KernelArg::Kind::U64, n});
  launch(s.name + "_heads_kernel", buffers, args, (groups + gpb - 1) / gpb, plan.block_threads);

  const ref::Evaluator ev(s);
  const Want want = expected(ev, plan.seed_exclusive_only, input, flags, n, seg);
  std::string report;
  const std::vector<bool> all(n, true);
  compare("P_inclusive_exclusive_segmented inclusive", s.type, buffers[2], want.inclusive, all, report);
  compare("P_inclusive_exclusive_segmented exclusive", s.type, buffers[3], want.exclusive, all, report);
  compare("P_inclusive_segmented (in place)", s.type, buffers[4], want.inclusive, all, report);
  compare("P_exclusive_segmented", s.type, buffers[5], want.exclusive, all, report);
  std::vector<uint8_t> totals(3 * groups * es);
  for (uint64_t g = 0; g < 3 * groups; ++g)
    std::copy_n(want.totals.begin() + static_cast<long>(g / 3 * es), es, totals.begin() + static_cast<long>(g * es));
  compare("returned totals (0: inclusive_exclusive, 1: exclusive, 2: inclusive), 3 per group", s.type, buffers[6],
          totals, std::vector<bool>(3 * groups, true), report);
  return report;
}

int check_head_flag_cases(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans,
                          const LaunchKernel& launch) {
  const uint64_t seed = test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  int calls = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO("scan:\n" << cases[i].spec.to_string());
    const uint64_t seg = plans[i].segment, block = seg * static_cast<uint64_t>(plans[i].groups_per_block);
    std::vector<uint64_t> sizes = {0, 1, seg - 1, seg + 1,
                                   std::uniform_int_distribution<uint64_t>(block + 1, 3 * block + 5)(rng)};
    for (uint64_t n : sizes) {
      for (const std::string& pattern : head_flag_patterns()) {
        INFO("n = " << n << ", flags " << pattern);
        const std::string report = run_head_flag_case(cases[i], plans[i], n, pattern, rng, launch);
        INFO(report);
        CHECK(report.empty());
        ++calls;
      }
    }
  }
  return calls;
}

}  // namespace scangen::test
