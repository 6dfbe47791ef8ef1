#include "scangen/generator/plan.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "scangen/generator/preamble.h"

namespace scangen::generator {

using dsl::Algorithm;
using dsl::Level;

const char* to_string(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d) \
  case LaneExchange::en: return s;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

const char* template_file(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d) \
  case LaneExchange::en: return f;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

const char* describe(LaneExchange e) {
  switch (e) {
#define X(en, s, f, d) \
  case LaneExchange::en: return d;
    SCANGEN_LANE_EXCHANGES(X)
#undef X
  }
  return "?";
}

namespace {

// The most static shared memory a CUDA block may declare, and a bound that
// common OpenCL GPUs (32 to 64 KiB of local memory) honour as well.
constexpr size_t kMaxSharedBytes = 48 * 1024;
// Register shuffles move an element of up to this many bytes; larger ones go
// through shared memory.
constexpr size_t kMaxShuffleBytes = 32;

[[noreturn]] void fail(const dsl::Spec& spec, const std::string& why) {
  throw std::invalid_argument("scan '" + spec.name + "': " + why);
}

LaneExchange choose_exchange(const dsl::Spec& spec, Backend backend) {
  const size_t bytes = spec.type.size();
  if (backend == Backend::OpenCL) return LaneExchange::LocalMemory;
  if (spec.algorithm == Algorithm::Coalesced) {
    if (bytes > kMaxShuffleBytes)
      fail(spec, "algorithm 'coalesced' shuffles its elements, which must be at most " +
                     std::to_string(kMaxShuffleBytes) + " bytes; this one has " + std::to_string(bytes));
    return LaneExchange::ActiveLanes;
  }
  if (spec.algorithm == Algorithm::KoggeStoneLocal) return LaneExchange::SharedMemory;
  return bytes <= kMaxShuffleBytes ? LaneExchange::Shuffle : LaneExchange::SharedMemory;
}

bool through_memory(LaneExchange e) { return e == LaneExchange::SharedMemory || e == LaneExchange::LocalMemory; }

void define(Plan& p, const std::string& name, const std::string& value) { p.constants.emplace_back(name, value); }
void define(Plan& p, const std::string& name, long value) { define(p, name, std::to_string(value)); }

std::vector<std::string> public_functions(const dsl::Spec& spec) {
  const std::string& n = spec.name;
  std::vector<std::string> f = {n + "_inclusive", n + "_exclusive", n + "_inclusive_exclusive", n + "_reduce",
                                n + "_broadcast"};
  if (spec.running_total) {
    f.push_back(n + "_inclusive_update");
    f.push_back(n + "_exclusive_update");
    f.push_back(n + "_inclusive_exclusive_update");
  }
  return f;
}

}  // namespace

Plan make_plan(const dsl::Spec& spec, Backend backend) {
  if (spec.level == Level::Device) fail(spec, "device-level scans are not generated yet");
  bool listed = false;
  for (dsl::Target t : spec.targets) listed = listed || backend_for(t) == backend;
  if (!listed) fail(spec, std::string("the scan does not list target '") + to_string(backend) + "'");
  if (spec.algorithm == Algorithm::Coalesced && backend != Backend::Cuda)
    fail(spec, "algorithm 'coalesced' exists only on CUDA");
  if (spec.threads < 1 || spec.items < 1) fail(spec, "threads and items must be set for warp and block scans");

  Plan p;
  p.spec = spec;
  p.backend = backend;
  p.items = spec.items;
  p.element_bytes = spec.type.size();
  p.input_bytes = spec.input.size();
  const std::string& n = spec.name;
  const PreambleNames names = preamble_names(spec);
  p.seeded = spec.init && !(spec.identity && dsl::to_string(*spec.init) == dsl::to_string(*spec.identity));

  define(p, "SG_T", names.value_type);
  define(p, "SG_IN", names.input_type);
  define(p, "SG_COMBINE", names.combine);
  define(p, "SG_IDENTITY", names.identity);
  define(p, "SG_INIT", names.init);
  define(p, "SG_CONVERT", names.convert);
  define(p, "SG_ITEMS", spec.items);

  // Scratch elements per group, besides the lane scratch.
  size_t temp_elements = 0;
  bool uses_lanes = true;
  if (spec.level == Level::Warp) {
    p.group_threads = spec.warp_width;
    p.block_threads = spec.threads;
    p.groups_per_block = spec.threads / spec.warp_width;
    p.exchange = choose_exchange(spec, backend);
    p.lane_scratch = through_memory(p.exchange) ? spec.warp_width : 1;
    temp_elements = static_cast<size_t>(p.lane_scratch);
    define(p, "SG_WIDTH", spec.warp_width);
    p.templates = {template_file(p.exchange), "common/warp.h"};
  } else {
    const int t = spec.threads;
    p.group_threads = t;
    p.block_threads = t;
    p.groups_per_block = 1;
    p.exchange = choose_exchange(spec, backend);
    define(p, "SG_THREADS", t);
    switch (spec.algorithm) {
      case Algorithm::Raking:
      case Algorithm::RakingMemoize: {
        // As few raking threads as fill one warp's worth of segments.
        p.rake_segment = (t + 31) / 32;
        p.rake_threads = (t + p.rake_segment - 1) / p.rake_segment;
        p.rake_padding = p.rake_segment > 1 ? 1 : 0;
        p.lane_scratch = through_memory(p.exchange) ? p.rake_threads : 1;
        temp_elements = static_cast<size_t>(p.rake_threads) * (p.rake_segment + p.rake_padding) +
                        static_cast<size_t>(p.lane_scratch) + 1;
        define(p, "SG_RAKE", p.rake_threads);
        define(p, "SG_SEG", p.rake_segment);
        define(p, "SG_PAD", p.rake_padding);
        define(p, "SG_MEMOIZE", spec.algorithm == Algorithm::RakingMemoize ? 1 : 0);
        p.templates = {template_file(p.exchange), "common/block_raking.h"};
        break;
      }
      case Algorithm::WarpScans:
        if (t % 32 != 0) fail(spec, "algorithm 'warp_scans' needs a multiple of 32 threads");
        p.lane_scratch = through_memory(p.exchange) ? 32 : 1;
        temp_elements = static_cast<size_t>(t / 32) * static_cast<size_t>(p.lane_scratch + 1) + 1;
        p.templates = {template_file(p.exchange), "common/block_warp_scans.h"};
        break;
      case Algorithm::HillisSteele:
        uses_lanes = false;
        temp_elements = 2 * static_cast<size_t>(t) + 1;
        p.templates = {"common/block_hillis_steele.h"};
        break;
      case Algorithm::Blelloch:
        if ((t & (t - 1)) != 0) fail(spec, "algorithm 'blelloch' needs a power-of-two thread count");
        uses_lanes = false;
        p.blelloch_pad_shift = 5;  // 32 banks
        temp_elements = static_cast<size_t>(t) + static_cast<size_t>(t >> p.blelloch_pad_shift) + 1;
        define(p, "SG_PAD_SHIFT", p.blelloch_pad_shift);
        p.templates = {"common/block_blelloch.h"};
        break;
      default: fail(spec, std::string("algorithm '") + dsl::to_string(spec.algorithm) + "' is not a block algorithm");
    }
  }
  if (uses_lanes) {
    if (p.exchange == LaneExchange::Shuffle || p.exchange == LaneExchange::ActiveLanes) {
      p.shuffle_words = static_cast<int>((p.element_bytes + 3) / 4);
      define(p, "SG_SHFL_WORDS", p.shuffle_words);
    }
    define(p, "SG_LANE_SCRATCH", p.lane_scratch);
  }
  p.segment = static_cast<uint64_t>(p.group_threads) * static_cast<uint64_t>(p.items);
  // Every member of P_temp is an array of P_T, whose size is a multiple of
  // its alignment: no padding between them.
  p.temp_bytes = temp_elements * p.element_bytes;
  p.block_shared_bytes = p.temp_bytes * static_cast<size_t>(p.groups_per_block);
  if (p.block_shared_bytes > kMaxSharedBytes)
    fail(spec, "the " + std::string(dsl::to_string(spec.algorithm)) + " scan needs " +
                   std::to_string(p.block_shared_bytes) + " bytes of shared memory per block, more than the " +
                   std::to_string(kMaxSharedBytes) + " a block may declare; use fewer threads or another algorithm");

  define(p, "SG_GROUP_THREADS", p.group_threads);
  define(p, "SG_GROUPS", p.groups_per_block);
  define(p, "SG_BLOCK_THREADS", p.block_threads);
  define(p, "SG_SEEDED", p.seeded ? 1 : 0);
  define(p, "SG_INCLUSIVE_OUT", spec.has_inclusive() ? 1 : 0);
  define(p, "SG_EXCLUSIVE_OUT", spec.has_exclusive() ? 1 : 0);
  define(p, "SG_AGGREGATE_OUT", spec.aggregate ? 1 : 0);
  define(p, "SG_RUNNING_TOTAL", spec.running_total ? 1 : 0);
  p.templates.push_back("common/api.h");
  p.templates.push_back("common/entry.h");

  p.device_functions = public_functions(spec);
  p.entry_kernel = n + "_scan_kernel";
  p.entry_params.push_back({"const " + names.input_type + "*", "in", "n input elements"});
  if (spec.mode == dsl::Mode::Both) {
    p.entry_params.push_back({names.value_type + "*", "inclusive", "n elements, the inclusive scan"});
    p.entry_params.push_back({names.value_type + "*", "exclusive", "n elements, the exclusive scan"});
  } else {
    p.entry_params.push_back({names.value_type + "*", spec.mode == dsl::Mode::Inclusive ? "inclusive" : "exclusive",
                              std::string("n elements, the ") + dsl::to_string(spec.mode) + " scan (may be in)"});
  }
  if (spec.aggregate)
    p.entry_params.push_back({names.value_type + "*", "aggregates", "one element per segment, its total"});
  if (spec.running_total)
    p.entry_params.push_back({names.value_type + "*", "running_total", "one element, the counter, updated"});
  p.entry_params.push_back({"u64", "n", "the element count"});
  return p;
}

std::string to_string(const Plan& p) {
  const dsl::Spec& s = p.spec;
  std::string o = "plan of scan '" + s.name + "' for " + to_string(p.backend) + ":\n";
  auto line = [&](const std::string& k, const std::string& v) { o += "  " + k + ": " + v + "\n"; };
  line("level", std::string(dsl::to_string(s.level)) + ", algorithm " + dsl::to_string(s.algorithm));
  line("element", std::to_string(p.element_bytes) + " bytes" +
                      (p.input_bytes != p.element_bytes || s.convert
                           ? " (input " + std::to_string(p.input_bytes) + " bytes, converted on load)"
                           : ""));
  line("group", std::to_string(p.group_threads) + " threads x " + std::to_string(p.items) +
                    " items = segments of " + std::to_string(p.segment) + " elements, blocked arrangement");
  bool lanes = !p.templates.empty() && p.templates.front().rfind("common/", 0) != 0;
  if (lanes) {
    std::string ex = std::string(to_string(p.exchange)) + " (" + describe(p.exchange) + ")";
    if (p.shuffle_words) ex += ", " + std::to_string(p.shuffle_words) + " word(s) per element";
    line("lane exchange", ex);
  }
  if (p.rake_threads)
    line("raking", std::to_string(p.rake_threads) + " raking threads x " + std::to_string(p.rake_segment) +
                       " partials, " + std::to_string(p.rake_padding) + " padding slot(s) per segment" +
                       (s.algorithm == Algorithm::RakingMemoize ? ", segments kept in registers" : ""));
  if (p.blelloch_pad_shift)
    line("tree", "one padding slot every " + std::to_string(1 << p.blelloch_pad_shift) + " nodes");
  line("seed", p.seeded ? "init, combined before each group's prefix" : "none (init is the identity)");
  line("scratch", std::to_string(p.temp_bytes) + " bytes per group (" + s.name + "_temp), " +
                      std::to_string(p.block_shared_bytes) + " bytes per block of the entry kernel");
  line("entry kernel", p.entry_kernel + ", " + std::to_string(p.block_threads) + " threads per block (" +
                           std::to_string(p.groups_per_block) + " group(s)), ceil(n / " +
                           std::to_string(p.segment * static_cast<uint64_t>(p.groups_per_block)) + ") blocks");
  for (const KernelParam& k : p.entry_params) line("  param " + k.name, k.type + ": " + k.meaning);
  std::string fns;
  for (const std::string& f : p.device_functions) fns += (fns.empty() ? "" : ", ") + f;
  line("device functions", fns);
  std::string t;
  for (const std::string& f : p.templates) t += (t.empty() ? "" : ", ") + f;
  line("templates", t);
  return o;
}

}  // namespace scangen::generator
