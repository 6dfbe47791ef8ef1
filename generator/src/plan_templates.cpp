// The templates of a plan: the catalogue (every template and what it needs),
// the plan's list resolved from it, and the SG_* constants the templates are
// written against, spelled from the plan's fields.
#include <string>
#include <utility>
#include <vector>

#include "plan_steps.h"

namespace scangen::generator {

namespace detail {

namespace {

// What a template needs before it: other templates, and the helpers the plan
// picks: the lane exchange's lane scans, the backend's look-back statuses.
struct Entry {
  const char* path;
  std::vector<const char*> needs;
  bool lanes = false;       // the plan's lane exchange template (template_file(LaneExchange))
  bool lookback = false;    // the backend's look-back template
  bool counter = false;     // the counter's atomic update (emitted, BackendEmitter::atomic_combine), given a counter
  bool scan_names = false;  // in the head-flag pass, filled with the scan's own names (not the pair scan's)
};

// The catalogue. The build embeds every file under templates/; these are the
// ones a plan names, besides the dialects and the lane exchanges.
const std::vector<Entry>& catalogue() {
  static const std::vector<Entry> entries = {
      {"cuda/lookback.cuh", {}},
      {"opencl/lookback.cl", {}},
      {"common/lookback_fixed.h", {}},
      {"common/warp.h", {}, true},
      {"common/block_raking.h", {}, true},
      {"common/block_warp_scans.h", {}, true},
      {"common/block_hillis_steele.h", {}},
      {"common/block_blelloch.h", {}},
      {"common/api.h", {}, false, false, true},
      {"common/api_segmented.h", {}, false, false, false, true},
      {"common/io.h", {}},
      {"common/io_mirror.h", {"common/io.h"}},
      {"common/io_inputs.h", {"common/io.h"}},
      {"common/entry.h", {"common/api.h", "common/io.h"}},
      {"common/device.h", {"common/api.h", "common/io.h"}},
      {"cuda/packed.cuh", {"common/io.h"}},
      {"common/device_lookback.h", {"common/device.h"}, false, true},
      {"common/device_tile_prefix.h", {"common/device_lookback.h"}},
      {"common/device_reduce_then_scan.h", {"common/device.h"}},
      {"common/segmented_pair.h", {}, false, false, false, true},
      {"common/device_segmented.h", {"common/device.h"}, false, true},
      {"common/device_rows.h", {"common/device.h"}, false, true},
      {"common/device_strided.h", {"common/device_rows.h"}, false, true},
  };
  return entries;
}

const Entry* find(const std::string& path) {
  for (const Entry& e : catalogue())
    if (path == e.path) return &e;
  return nullptr;
}

const char* lookback_template(Backend backend) {
  return backend == Backend::Cuda ? "cuda/lookback.cuh" : "opencl/lookback.cl";
}

// The kernels' template: the entry kernel of warp and block scans, a device
// scheme's kernels.
const char* kernel_template(const Plan& p) {
  if (p.level != dsl::Level::Device) return "common/entry.h";
  if (p.segmented.on()) return "common/device_segmented.h";
  if (p.shape != dsl::Shape::Flat)
    return p.shape == dsl::Shape::Rows ? "common/device_rows.h" : "common/device_strided.h";
  return p.status != StatusLayout::None ? "common/device_lookback.h" : "common/device_reduce_then_scan.h";
}

void add(const Plan& p, const std::string& path, std::vector<std::string>& out) {
  for (const std::string& t : out)
    if (t == path) return;
  if (const Entry* e = find(path)) {
    if (e->lanes)
      for (const char* t : lane_templates(p)) add(p, t, out);
    for (const char* need : e->needs) add(p, need, out);
    if (e->lookback) add(p, lookback_template(p.backend), out);
    if (e->lookback && p.fixed_order) add(p, "common/lookback_fixed.h", out);  // its sg_tile_prefix
  }
  // A look-back scan of packed words (Plan::packed_lanes): their reduce, rescan, loads and stores first.
  if (p.packed_lanes && path == "common/device_lookback.h") add(p, "cuda/packed.cuh", out);
  out.push_back(path);
  // A reverse scan's loads and stores are the mirror's, which stands right after io.h's helpers.
  if (p.reverse && path == "common/io.h") add(p, "common/io_mirror.h", out);
}

}  // namespace

const char* dialect_template(Backend backend) {
  return backend == Backend::Cuda ? "cuda/dialect.cuh" : "opencl/dialect.cl";
}

const char* group_template(const Plan& p) {
  if (p.level == dsl::Level::Warp && p.group_threads <= 32) return "common/warp.h";
  switch (p.tile_algorithm) {
    case dsl::Algorithm::Raking:
    case dsl::Algorithm::RakingMemoize:
      return "common/block_raking.h";
    case dsl::Algorithm::WarpScans:
      return "common/block_warp_scans.h";
    case dsl::Algorithm::HillisSteele:
      return "common/block_hillis_steele.h";
    case dsl::Algorithm::Blelloch:
      return "common/block_blelloch.h";
    default:
      return "";
  }
}

std::vector<const char*> lane_templates(const Plan& p) {
  if (p.exchange == LaneExchange::LocalMemory && p.shuffle_words > 0)
    return {template_file(LaneExchange::Shuffle), template_file(LaneExchange::LocalMemory)};
  return {template_file(p.exchange)};
}

bool needs_lanes(const std::string& path) {
  const Entry* e = find(path);
  return e && e->lanes;
}

bool needs_counter_update(const std::string& path) {
  const Entry* e = find(path);
  return e && e->counter;
}

bool takes_scan_names(const std::string& path) {
  const Entry* e = find(path);
  return e && e->scan_names;
}

std::vector<std::string> plan_templates(const Plan& p) {
  std::vector<std::string> out;
  if (p.segmented.on()) add(p, "common/segmented_pair.h", out);  // the pair type, before every use
  add(p, group_template(p), out);
  if (p.input_arrays) add(p, "common/io_inputs.h", out);  // the loads of input arrays, before the kernel's
  add(p, kernel_template(p), out);
  if (p.tile_prefix) add(p, "common/device_tile_prefix.h", out);
  return out;
}

}  // namespace detail

std::vector<std::string> known_templates() {
  std::vector<std::string> all = {detail::dialect_template(Backend::Cuda), detail::dialect_template(Backend::OpenCL)};
#define X(e, s, f, d) all.push_back(f);
  SCANGEN_LANE_EXCHANGES(X)
#undef X
  for (const detail::Entry& e : detail::catalogue()) all.push_back(e.path);
  return all;
}

namespace {

// The look-back's constants (a plan with tile statuses), its enumerations by name.
void lookback_constants(const Plan& p, std::vector<std::pair<std::string, std::string>>& c) {
  auto define = [&](const char* name, const std::string& value) { c.emplace_back(name, value); };
  auto number = [&](const char* name, long value) { define(name, std::to_string(value)); };
  number("SG_LB_FIRST_POLL_NS", p.tuning.first_poll_ns);
  number("SG_LB_FIRST_POLL_FROM", p.tuning.first_poll_from);
  if (p.backend == Backend::Cuda) {
    number("SG_LB_POLL_NS", p.tuning.poll_ns);
    // How statuses are published and read, by name (cuda/lookback.cuh compares SG_LB_STATUS_OPS with them).
    number("SG_LB_OPS_EXCHANGE", 0);
    number("SG_LB_OPS_RELAXED", 1);
    number("SG_LB_OPS_VOLATILE", 2);
    define("SG_LB_STATUS_OPS", p.tuning.status_ops == 0   ? "SG_LB_OPS_EXCHANGE"
                               : p.tuning.status_ops == 1 ? "SG_LB_OPS_RELAXED"
                                                          : "SG_LB_OPS_VOLATILE");
    number("SG_LB_PDL", p.tuning.pdl);
  } else
    number("SG_SPIN", p.status_reads);
  number("SG_MIN_BLOCKS", p.min_blocks);
  // The status layouts by name (StatusLayout's values); SG_STATUS_KIND is the plan's.
  number("SG_STATUS_WORD64", static_cast<long>(StatusLayout::Word64));
  number("SG_STATUS_WORD128", static_cast<long>(StatusLayout::Word128));
  number("SG_STATUS_TAG_THEN_WORDS", static_cast<long>(StatusLayout::TagThenWords));
  number("SG_STATUS_TAGGED_WORDS", static_cast<long>(StatusLayout::TaggedWords));
  define("SG_STATUS_KIND", p.status == StatusLayout::Word64         ? "SG_STATUS_WORD64"
                           : p.status == StatusLayout::Word128      ? "SG_STATUS_WORD128"
                           : p.status == StatusLayout::TagThenWords ? "SG_STATUS_TAG_THEN_WORDS"
                                                                    : "SG_STATUS_TAGGED_WORDS");
  number("SG_STATUS_WORDS", p.status_words);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> template_constants(const Plan& p) {
  std::vector<std::pair<std::string, std::string>> c;
  auto define = [&](const char* name, const std::string& value) { c.emplace_back(name, value); };
  auto number = [&](const char* name, long value) { define(name, std::to_string(value)); };
  const bool device = p.level == dsl::Level::Device;
  define("SG_T", p.names.value_type);
  define("SG_IN", p.names.input_type);
  define("SG_COMBINE", p.names.combine);
  define("SG_IDENTITY", p.names.identity);
  define("SG_INIT", p.names.init);
  define("SG_CONVERT", p.convert_neighbours ? p.names.convert + "_near" : p.names.convert);
  number("SG_ITEMS", p.items);
  if (p.level == dsl::Level::Warp) {
    number("SG_WIDTH", p.group_threads);
  } else {
    number("SG_THREADS", p.block_threads);
    if (p.rake_threads) {
      number("SG_RAKE", p.rake_threads);
      number("SG_SEG", p.rake_segment);
      number("SG_PAD", p.rake_padding);
      number("SG_MEMOIZE", p.tile_algorithm == dsl::Algorithm::RakingMemoize ? 1 : 0);
    }
    if (p.blelloch_pad_shift) number("SG_PAD_SHIFT", p.blelloch_pad_shift);
  }
  if (p.uses_lanes) {
    if (p.shuffle_words) number("SG_SHFL_WORDS", p.shuffle_words);
    number("SG_LANE_SCRATCH", p.lane_scratch);
  }
  if (p.status != StatusLayout::None) lookback_constants(p, c);
  if (p.shape != dsl::Shape::Flat) number("SG_SHAPE_MIN_BLOCKS", p.shape_min_blocks);
  if (device) number("SG_TILE", static_cast<long>(p.tile));
  if (p.raw_tile) number("SG_RAW_SLOTS", static_cast<long>(raw_tile_slots(p)));
  number("SG_STAGED_IO", p.staged_io ? 1 : 0);
  number("SG_VEC_IN", p.input_words);
  number("SG_VEC_OUT", p.output_words);
  number("SG_STREAMING", p.streaming ? 1 : 0);
  number("SG_EXCHANGE", p.staged_io ? static_cast<long>(p.exchange_elements) : 1L);
  if (p.dynamic_shared_bytes) number("SG_DYNAMIC_EXCHANGE", 1);  // device_lookback.h: the exchange dynamic
  number("SG_GROUP_THREADS", p.group_threads);
  number("SG_GROUPS", p.groups_per_block);
  number("SG_BLOCK_THREADS", p.block_threads);
  number("SG_SEEDED", p.seeded ? 1 : 0);
  number("SG_INCLUSIVE_OUT", p.outputs.inclusive ? 1 : 0);
  number("SG_EXCLUSIVE_OUT", p.outputs.exclusive ? 1 : 0);
  number("SG_AGGREGATE_OUT", p.outputs.aggregate ? 1 : 0);
  number("SG_RUNNING_TOTAL", p.outputs.running_total ? 1 : 0);
  number("SG_GROUP_UPDATE", p.counter ? 1 : 0);
  if (p.reverse) number("SG_REVERSE", 1);                       // only when set: a forward scan's text as before
  if (p.packed_lanes) number("SG_PACK_LANES", p.packed_lanes);  // only when set, as SG_REVERSE
  if (p.packed_lanes && p.spec.type.is_float()) number("SG_PACK_F16", 1);  // f16 (the one float packed)
  if (p.input_arrays) {                                                    // only with input arrays, likewise
    number("SG_INPUT_ARRAYS", static_cast<long>(p.arrays.size()));
    bool words = false;
    for (const Plan::InputArray& a : p.arrays) words = words || a.words > 0;
    number("SG_ARRAY_WORDS", words ? 1 : 0);
  }
  if (p.segmented.on()) detail::segmented_constants(p, c);
  return c;
}

std::vector<std::pair<std::string, std::string>> head_flag_constants(const Plan& p) {
  const Plan::HeadFlags& h = p.head_flags;
  const std::string pair = p.spec.name + "_seg";
  std::vector<std::pair<std::string, std::string>> c;
  for (auto [name, value] : template_constants(p)) {
    if (name == "SG_SHFL_WORDS" || name == "SG_LANE_SCRATCH") continue;  // the pair's, below
    if (name == "SG_T") value = pair;
    if (name == "SG_COMBINE") value = pair + "_combine";
    if (name == "SG_IDENTITY") value = pair + "_identity";
    if (name == "SG_INIT") value = pair + "_init";
    if (name == "SG_CONVERT") value = pair + "_convert";
    c.emplace_back(name, value);
  }
  if (h.shuffle_words) c.emplace_back("SG_SHFL_WORDS", std::to_string(h.shuffle_words));
  if (p.uses_lanes) c.emplace_back("SG_LANE_SCRATCH", std::to_string(h.lane_scratch));
  c.emplace_back("SG_VALUE_T", p.names.value_type);
  c.emplace_back("SG_VALUE_COMBINE", p.names.combine);
  c.emplace_back("SG_VALUE_IDENTITY", p.names.identity);
  c.emplace_back("SG_VALUE_INIT", p.names.init);
  c.emplace_back("SG_VALUE_CONVERT", p.names.convert);
  return c;
}

}  // namespace scangen::generator
