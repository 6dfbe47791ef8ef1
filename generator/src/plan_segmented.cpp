// Segmented scans (`segments = flags | offsets | keys;`): the pair the tiles
// scan, the kernel and its parameters, the constants of its templates.
//
// The tiles scan pairs (heads, value) with
//   combine((ha, a), (hb, b)) = (ha + hb, hb ? b : a . b)
// where heads counts segment starts: a pair's value restarts at each start,
// and the count of an element's inclusive pair is its segment's ordinal + 1.
// The pair, its operator and its identity are templates/common/segmented_pair.h;
// the kernel is templates/common/device_segmented.h.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "c_names.h"
#include "plan_steps.h"

namespace scangen::generator::detail {

namespace {

using R = ParamRole;

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

void decide_segmented(Plan& p) {
  const dsl::Spec& spec = p.spec;
  p.segmented.form = spec.segments;
  if (!p.segmented.on()) return;
  if (spec.level != dsl::Level::Device || spec.algorithm != dsl::Algorithm::DecoupledLookback || spec.running_total)
    fail(spec, "segmented scans are device-level decoupled_lookback scans without a running total");
  if (spec.segments == dsl::Segments::Offsets) {
    p.segmented.offset_type = c_type(dsl::Type::scalar(spec.offset), spec.name, Form::Storage);
    p.segmented.offset_bytes = dsl::scalar_size(spec.offset);
  }
  if (spec.segments == dsl::Segments::Keys) {
    p.segmented.key_type = c_type(dsl::Type::scalar(spec.key), spec.name, Form::Storage);
    p.segmented.key_bytes = dsl::scalar_size(spec.key);
    p.segmented.key_equal = spec.key_equal.has_value();
  }
  p.segmented.pair_bytes = segmented_pair_bytes(spec.type);
}

void decide_segmented_heads(Plan& p) {
  // Reverse scans read the offsets through the mirror, and segment aggregates need each segment's
  // index, which the bits do not keep (empty segments): both stay with the tile's own search.
  p.segmented.head_bits = p.segmented.form == dsl::Segments::Offsets && !p.reverse && !p.outputs.aggregate &&
                          p.status != StatusLayout::None;
}

uint64_t segmented_head_bytes_per_tile(const Plan& p) { return p.segmented.head_bits ? 4 * ((p.tile + 31) / 32) : 0; }

size_t segmented_pair_bytes(const dsl::Type& value) {
  // struct { P_T value; unsigned int heads; }: the count after the value, on a 4-byte boundary.
  const size_t align = std::max<size_t>(value.align(), 4);
  return round_up(round_up(value.size(), 4) + 4, align);
}

void segmented_kernel(Plan& p) {
  const std::string& T = p.names.value_type;
  std::vector<KernelParam> k = {{R::Input, "const " + p.names.input_type + "*", "in", "n input elements"}};
  if (p.outputs.inclusive)
    k.push_back({R::Inclusive, T + "*", "inclusive", "n elements, each segment's inclusive scan from init"});
  if (p.outputs.exclusive)
    k.push_back({R::Exclusive, T + "*", "exclusive", "n elements, each segment's exclusive scan from init"});
  if (p.outputs.aggregate)
    k.push_back({R::SegmentAggregates, T + "*", "segment_aggregates",
                 "one element per segment, its total without init (empty segments: the identity)"});
  switch (p.segmented.form) {
    case dsl::Segments::Flags:
      k.push_back({R::SegmentFlags, "const u8*", "flags", "n bytes: nonzero starts a segment (element 0 always does)"});
      break;
    case dsl::Segments::Offsets:
      k.push_back({R::SegmentOffsets, "const " + p.segmented.offset_type + "*", "offsets",
                   "segment_count + 1 offsets: offsets[0] = 0, nondecreasing, offsets[segment_count] = n"});
      k.push_back({R::SegmentCount, "u64", "segment_count", "the number of segments"});
      break;
    case dsl::Segments::Keys:
      k.push_back({R::SegmentKeys, "const " + p.segmented.key_type + "*", "keys",
                   p.segmented.key_equal ? "n keys: a segment starts where key_equal(the key before, its own) is false"
                                         : "n keys: a segment starts where the key differs from the one before"});
      break;
    case dsl::Segments::None:
      break;
  }
  k.push_back({R::Count, "u64", "n", "the element count"});
  k.push_back({R::Workspace, "unsigned char*", "workspace",
               std::to_string(kWorkspaceHeader) + " + tiles x " + std::to_string(p.status_bytes) +
                   " bytes; the first workspace_bytes(n) zeroed before each call"});
  if (p.segmented.head_bits)
    k.back().meaning = std::to_string(kWorkspaceHeader) + " + tiles x " +
                       std::to_string(p.status_bytes + segmented_head_bytes_per_tile(p)) +
                       " bytes (the statuses, then a bit per element: the segment starts); the first "
                       "workspace_bytes(n) zeroed before each call";
  const std::string grid = "max(1, ceil(n / " + std::to_string(p.tile) + "))";
  p.kernels.clear();
  if (p.segmented.head_bits) {
    // Before the scan: the offsets as bits in the workspace, which the scan kernel reads.
    std::vector<KernelParam> heads;
    for (const KernelParam& q : k)
      if (q.role == R::SegmentOffsets || q.role == R::SegmentCount || q.role == R::Count || q.role == R::Workspace)
        heads.push_back(q);
    p.kernels.push_back({p.spec.name + "_seg_heads_kernel", grid + " blocks", Grid::Tiles, heads});
  }
  p.kernels.push_back({p.entry_kernel, grid + " blocks", Grid::Tiles, k});
  p.kernels.back().dynamic_shared_bytes = p.dynamic_shared_bytes;
  p.entry_params = k;
}

void segmented_constants(const Plan& p, std::vector<std::pair<std::string, std::string>>& c) {
  const std::string pair = p.spec.name + "_seg";
  // The templates scan the pair: SG_T and its operator are the pair's, and
  // SG_VALUE_* are the scan's own.
  for (auto& [name, value] : c) {
    if (name == "SG_T") value = pair;
    if (name == "SG_COMBINE") value = pair + "_combine";
    if (name == "SG_IDENTITY") value = pair + "_identity";
    if (name == "SG_INIT") value = pair + "_init";
    if (name == "SG_CONVERT") value = pair + "_convert";
  }
  c.emplace_back("SG_VALUE_T", p.names.value_type);
  c.emplace_back("SG_VALUE_COMBINE", p.names.combine);
  c.emplace_back("SG_VALUE_IDENTITY", p.names.identity);
  c.emplace_back("SG_VALUE_INIT", p.names.init);
  c.emplace_back("SG_VALUE_CONVERT", p.names.convert);
  // The forms by name; SG_SEGMENTS is one of them (the templates compare it with the names).
  c.emplace_back("SG_SEGMENTS_FLAGS", "1");
  c.emplace_back("SG_SEGMENTS_OFFSETS", "2");
  c.emplace_back("SG_SEGMENTS_KEYS", "3");
  c.emplace_back("SG_SEGMENTS", p.segmented.form == dsl::Segments::Flags     ? "SG_SEGMENTS_FLAGS"
                                : p.segmented.form == dsl::Segments::Offsets ? "SG_SEGMENTS_OFFSETS"
                                                                             : "SG_SEGMENTS_KEYS");
  if (!p.segmented.offset_type.empty()) c.emplace_back("SG_OFFSET", p.segmented.offset_type);
  if (!p.segmented.key_type.empty()) c.emplace_back("SG_KEY", p.segmented.key_type);
  c.emplace_back("SG_SEG_HEAD_BITS", p.segmented.head_bits ? "1" : "0");
  if (p.segmented.head_bits) c.emplace_back("SG_SEG_STATUS_BYTES", std::to_string(p.status_bytes) + "u");
  // Flags and keys go through the exchange like the inputs: in 16-byte words
  // where a thread's flags or keys fill whole words and the inputs move in words.
  const size_t mark_bytes = p.segmented.form == dsl::Segments::Flags  ? 1
                            : p.segmented.form == dsl::Segments::Keys ? p.segmented.key_bytes
                                                                      : 0;
  const size_t chunk = mark_bytes * static_cast<size_t>(p.items);
  const bool words = !p.reverse && p.input_words > 0 && chunk > 0 && chunk % 16 == 0;  // reverse: read mirrored
  c.emplace_back("SG_SEG_WORDS", std::to_string(words ? chunk / 16 : 0));
  c.emplace_back("SG_SEG_VEC_OUT", std::to_string(segmented_output_words(p)));
}

int segmented_output_words(const Plan& p) {
  // Where a thread's values fill whole words and the inputs move in words (not reverse: written mirrored).
  if (p.reverse) return 0;
  const size_t chunk = p.element_bytes * static_cast<size_t>(p.items);
  return p.input_words > 0 && chunk % 16 == 0 ? static_cast<int>(chunk / 16) : 0;
}

}  // namespace scangen::generator::detail
