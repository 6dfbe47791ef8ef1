// What a call of a plan needs at run time: its workspace (how many bytes,
// when and how they are zeroed, the epochs of a Scan's own), its aggregates
// and its launch shapes; and the names of the kernels' parameter roles.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "plan_steps.h"
#include "scangen/generator/plan.h"

namespace scangen::generator {

using detail::kWorkspaceHeader;
using dsl::Level;

WorkspaceLayout workspace_layout(const Plan& plan) {
  if (plan.level != Level::Device) return {};
  const bool lookback = plan.status != StatusLayout::None;
  WorkspaceLayout w;
  w.header = lookback ? kWorkspaceHeader : 0;
  w.per_tile = lookback ? plan.status_bytes + detail::segmented_head_bytes_per_tile(plan) : plan.element_bytes;
  return w;
}

uint64_t workspace_bytes(const Plan& plan, uint64_t n) {
  if (plan.level != Level::Device) return 0;
  // Rounded up without n + tile - 1, which wraps for n near 2^64.
  const uint64_t tiles = std::max<uint64_t>(1, n / plan.tile + (n % plan.tile != 0 ? 1 : 0));
  const WorkspaceLayout w = workspace_layout(plan);
  if (tiles > (std::numeric_limits<uint64_t>::max() - w.header) / w.per_tile)
    throw std::overflow_error("scan '" + plan.spec.name + "': the workspace of " + std::to_string(n) +
                              " elements does not fit in 64 bits");
  return w.header + tiles * w.per_tile;
}

uint64_t aggregate_elements(const Plan& plan, uint64_t n) {
  if (plan.level == Level::Device) return 1;
  return n / plan.segment + (n % plan.segment != 0 ? 1 : 0);  // without n + segment - 1, which wraps
}

uint64_t launch_blocks(const Plan& plan, const Kernel& kernel, uint64_t n) {
  // Rounded up without n + d - 1, which wraps for n near 2^64.
  const auto blocks_for = [](uint64_t count, uint64_t per) { return count / per + (count % per != 0 ? 1 : 0); };
  switch (kernel.blocks) {
    case Grid::Segments:
      return blocks_for(n, plan.segment * static_cast<uint64_t>(plan.groups_per_block));
    case Grid::Tiles:
      return std::max<uint64_t>(1, blocks_for(n, plan.tile));
    case Grid::One:
      return 1;
    case Grid::Shaped:
      throw std::logic_error("scangen: kernel " + kernel.name + " takes its geometry from the call's shape");
  }
  return 1;
}

const char* to_string(ParamRole r) {
  switch (r) {
    case ParamRole::Input:
      return "input";
    case ParamRole::InputArray:
      return "input_array";
    case ParamRole::Inclusive:
      return "inclusive";
    case ParamRole::Exclusive:
      return "exclusive";
    case ParamRole::Aggregate:
      return "aggregate";
    case ParamRole::Aggregates:
      return "aggregates";
    case ParamRole::RunningTotal:
      return "running_total";
    case ParamRole::Count:
      return "count";
    case ParamRole::Workspace:
      return "workspace";
    case ParamRole::Partials:
      return "partials";
    case ParamRole::SegmentAggregates:
      return "segment_aggregates";
    case ParamRole::SegmentFlags:
      return "segment_flags";
    case ParamRole::SegmentOffsets:
      return "segment_offsets";
    case ParamRole::SegmentCount:
      return "segment_count";
    case ParamRole::SegmentKeys:
      return "segment_keys";
    case ParamRole::Rows:
      return "rows";
    case ParamRole::Length:
      return "length";
    case ParamRole::InRowStride:
      return "in_row_stride";
    case ParamRole::OutRowStride:
      return "out_row_stride";
    case ParamRole::Extent:
      return "extent";
    case ParamRole::InStride:
      return "in_stride";
    case ParamRole::OutStride:
      return "out_stride";
    case ParamRole::AxisLanes:
      return "axis_lanes";
    case ParamRole::Scattered:
      return "scattered";
  }
  return "?";
}

uint64_t workspace_zero_bytes(const Plan& plan, uint64_t n) {
  // One tile reads no status, but the segment starts' bits are set by OR into zeroed words.
  if (plan.status == StatusLayout::None || (n <= plan.tile && !(plan.segmented.head_bits && n > 0))) return 0;
  return workspace_bytes(plan, n);
}

bool zero_by_kernel(const Plan& plan, uint64_t n, int sm) {
  // (Plan::zero_kernel is set for flat look-back scans alone: its one kernel is the scan.)
  return !plan.zero_kernel.empty() && sm >= 90 && launch_blocks(plan, plan.kernels.back(), n) >= kZeroKernelFromTiles;
}

uint64_t zero_kernel_words(const Plan& plan, uint64_t n) { return (workspace_zero_bytes(plan, n) + 7) / 8; }

bool workspace_epoch_zero(const Plan& plan, uint64_t n, uint64_t calls) {
  if (!plan.epoch_tags || workspace_zero_bytes(plan, n) == 0) return false;  // one tile reads no status
  return calls == 0 || calls >= kEpochCallsBeforeZero;
}

bool workspace_epoch_call(const Plan& plan, uint64_t n, uint64_t& calls) {
  const bool whole = workspace_epoch_zero(plan, n, calls);
  if (plan.epoch_tags && workspace_zero_bytes(plan, n) != 0) calls = (whole ? 0 : calls) + 1;
  return whole;
}

uint64_t zero_kernel_blocks(const Plan& plan, uint64_t n) {
  return std::clamp<uint64_t>((zero_kernel_words(plan, n) + 255) / 256, 1, 1024);
}

}  // namespace scangen::generator
