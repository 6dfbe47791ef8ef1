// The kernels of a plan and their parameters (the kernel ABI, plan.h), the
// entry kernel and the public device functions.
#include <string>
#include <vector>

#include "plan_steps.h"

namespace scangen::generator::detail {

namespace {

using R = ParamRole;

std::vector<std::string> public_functions(const Plan& p) {
  const std::string& n = p.spec.name;
  std::vector<std::string> f = {n + "_inclusive", n + "_exclusive", n + "_inclusive_exclusive", n + "_reduce",
                                n + "_broadcast"};
  if (p.head_flags.on) {  // api_segmented.h
    f.push_back(n + "_inclusive_segmented");
    f.push_back(n + "_exclusive_segmented");
    f.push_back(n + "_inclusive_exclusive_segmented");
  }
  if (p.counter) {
    f.push_back(n + "_inclusive_update");
    f.push_back(n + "_exclusive_update");
    f.push_back(n + "_inclusive_exclusive_update");
  }
  if (p.scatter && p.level != dsl::Level::Device) {  // api.h's group_scatter
    f.push_back(n + "_scatter");
    if (p.counter) f.push_back(n + "_scatter_update");
  }
  if (p.tile_prefix) {
    f.push_back(n + "_device_tile_ticket");
    f.push_back(n + "_device_tile_prefix");
  }
  return f;
}

// The fused outputs' parameters (scattered, then the named ones).
void add_fused_outputs(const Plan& p, std::vector<KernelParam>& params) {
  for (size_t i = 0; i < p.fused_outputs.size(); ++i) {
    const Plan::FusedOutput& o = p.fused_outputs[i];
    const std::string s = i == 0 ? "" : "." + o.name;
    KernelParam param{
        R::Scattered, o.out_type + "*", o.name,
        "n elements (not in): scatter" + s + "(...) at scatter_at" + s + "(...) where scatter_if" + s + "(...) holds"};
    param.dim = static_cast<int>(i);
    params.push_back(param);
  }
}

// Device level: one kernel (decoupled look-back) or three (reduce, spine, scan).
void device_kernels(Plan& p) {
  const std::string& n = p.spec.name;
  const std::string T = p.names.value_type;
  std::vector<KernelParam> outs;
  const std::string in_place = p.input_arrays       ? ""
                               : p.reads_neighbours ? " (not in: prev / next read it)"
                                                    : " (may be in)";
  if (p.outputs.inclusive)
    outs.push_back({R::Inclusive, T + "*", "inclusive", "n elements, the inclusive scan" + in_place});
  if (p.outputs.exclusive)
    outs.push_back({R::Exclusive, T + "*", "exclusive", "n elements, the exclusive scan" + in_place});
  const KernelParam in{R::Input, "const " + p.names.input_type + "*", "in", "n input elements"};
  const KernelParam count{R::Count, "u64", "n", "the element count"};
  const KernelParam aggregate{R::Aggregate, T + "*", "aggregate", "one element: the total, without init"};
  const KernelParam running{R::RunningTotal, T + "*", "running_total", "one element: the carry, read and written back"};
  const std::string grid = "max(1, ceil(n / " + std::to_string(p.tile) + "))";
  std::vector<KernelParam> inputs = {in};
  if (p.input_arrays) {  // input = T1, T2, ...; or none: the arrays instead of `in`
    inputs.clear();
    for (size_t a = 0; a < p.arrays.size(); ++a)
      inputs.push_back({R::InputArray, "const " + p.arrays[a].type + "*", p.arrays[a].name,
                        "n elements, convert's '" + p.spec.convert->params[a] + "'", 0, static_cast<int>(a)});
  }
  if (p.status != StatusLayout::None) {
    Kernel k{n + "_scan_kernel", grid + " blocks", Grid::Tiles, inputs};
    k.params.insert(k.params.end(), outs.begin(), outs.end());
    add_fused_outputs(p, k.params);
    if (p.outputs.aggregate) k.params.push_back(aggregate);
    if (p.outputs.running_total) k.params.push_back(running);
    k.params.push_back(count);
    k.params.push_back({R::Workspace, "unsigned char*", "workspace",
                        std::to_string(kWorkspaceHeader) + " + tiles x " + std::to_string(p.status_bytes) +
                            " bytes; the first workspace_bytes(n) zeroed before each call"});
    k.dynamic_shared_bytes = p.dynamic_shared_bytes;
    p.kernels = {k};
    if (p.backend == Backend::Cuda && p.tuning.pdl && p.shape == dsl::Shape::Flat && p.status_bytes % 8 == 0)
      p.zero_kernel = n + "_zero_workspace";
    p.epoch_tags = p.backend == Backend::Cuda && p.shape == dsl::Shape::Flat && !p.segmented.on() && !p.fixed_order;
  } else {
    const KernelParam partials{R::Partials, T + "*", "partials", "tiles elements (the workspace)"};
    Kernel reduce{n + "_reduce_kernel", grid + " blocks", Grid::Tiles, {in, partials, count}};
    Kernel spine{n + "_spine_kernel", "1 block", Grid::One, {partials}};
    if (p.outputs.aggregate) spine.params.push_back(aggregate);
    if (p.outputs.running_total) spine.params.push_back(running);
    spine.params.push_back(count);
    Kernel scan{n + "_scan_kernel", grid + " blocks", Grid::Tiles, {in}};
    scan.params.insert(scan.params.end(), outs.begin(), outs.end());
    scan.params.push_back({R::Partials, "const " + T + "*", "partials", "from the spine kernel"});
    scan.params.push_back(count);
    p.kernels = {reduce, spine, scan};
  }
  p.entry_params = p.kernels.back().params;
}

// Warp and block level: one entry kernel over segments.
void segment_kernel(Plan& p) {
  const std::string& T = p.names.value_type;
  std::vector<KernelParam>& e = p.entry_params;
  e.push_back({R::Input, "const " + p.names.input_type + "*", "in", "n input elements"});
  if (p.outputs.inclusive && p.outputs.exclusive) {
    e.push_back({R::Inclusive, T + "*", "inclusive", "n elements, the inclusive scan"});
    e.push_back({R::Exclusive, T + "*", "exclusive", "n elements, the exclusive scan"});
  } else {
    const bool inclusive = p.outputs.inclusive;
    e.push_back({inclusive ? R::Inclusive : R::Exclusive, T + "*", inclusive ? "inclusive" : "exclusive",
                 std::string("n elements, the ") + (inclusive ? "inclusive" : "exclusive") + " scan (may be in)"});
  }
  add_fused_outputs(p, e);
  if (p.outputs.aggregate) e.push_back({R::Aggregates, T + "*", "aggregates", "one element per segment, its total"});
  if (p.outputs.running_total)
    e.push_back({R::RunningTotal, T + "*", "running_total", "one element, the counter, updated"});
  e.push_back({R::Count, "u64", "n", "the element count"});
  p.kernels = {{p.entry_kernel,
                "ceil(n / " + std::to_string(p.segment * static_cast<uint64_t>(p.groups_per_block)) + ") blocks",
                Grid::Segments, e}};
}

}  // namespace

void plan_kernels(Plan& p) {
  p.device_functions = public_functions(p);
  p.entry_kernel = p.spec.name + "_scan_kernel";
  if (p.segmented.on())
    segmented_kernel(p);
  else if (p.level == dsl::Level::Device)
    device_kernels(p);
  else
    segment_kernel(p);
}

}  // namespace scangen::generator::detail
