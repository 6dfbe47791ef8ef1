// Scan: the compiled scan's accessors, and the argument checks both
// backends' Scan::run make before a launch (cuda_backend.cpp, opencl_backend.cpp).
#include <limits>
#include <stdexcept>

#include "runtime_impl.h"

namespace scangen {

using runtime::detail::fail;

Scan::State::~State() {
  for (auto& [n, k] : cl_kernels) clReleaseKernel(k);
  if (program) clReleaseProgram(program);
  if (cl_workspace) clReleaseMemObject(cl_workspace);
  for (cl_mem m : cl_totals)
    if (m) clReleaseMemObject(m);
  if (rt && rt->driver) {
    if (cu_fast || cu_tuned || cu_workspace || cu_totals) rt->driver->cuCtxSetCurrent(rt->cu_context);
    if (cu_workspace) rt->driver->cuMemFree(cu_workspace);
    if (cu_totals) rt->driver->cuMemFree(cu_totals);
    for (const auto* m : {cu_fast.get(), cu_tuned.get()})
      if (m && m->module) rt->driver->cuModuleUnload(m->module);
  }
}

Scan::Scan() = default;
Scan::~Scan() = default;
Scan::Scan(const Scan&) = default;
Scan& Scan::operator=(const Scan&) = default;
Scan::Scan(std::shared_ptr<State> s) : s_(std::move(s)) {}

namespace runtime::detail {

const Scan::State& state_of(const std::shared_ptr<Scan::State>& s) {
  if (!s) fail("this Scan is empty (default-constructed); get one from Runtime::compile");
  return *s;
}

std::vector<const generator::Kernel*> plan_launches(const generator::Plan& p, uint64_t n) {
  std::vector<const generator::Kernel*> v;
  for (const generator::Kernel& k : p.kernels) {
    const uint64_t blocks = generator::launch_blocks(p, k, n);
    if (blocks >= (1ull << 31))
      fail("scan '" + p.spec.name + "': " + std::to_string(n) + " elements make " + std::to_string(blocks) +
           " blocks of " + k.name + ", more than one launch takes (2^31 - 1)");
    if (blocks > 0) v.push_back(&k);
  }
  return v;
}

void check_outputs(const generator::Plan& p, bool in, bool inc, bool exc, bool agg, bool run, uint64_t n) {
  const generator::Outputs& o = p.outputs;
  const std::string who = "scan '" + p.spec.name + "': ";
  if (n > 0 && !in) fail(who + "the input is null");
  // `even_if_empty`: written even when n == 0 (the aggregate, the running total).
  auto need = [&](bool given, bool wanted, bool even_if_empty, const std::string& name, const std::string& why) {
    if (wanted && !given && (n > 0 || even_if_empty)) fail(who + "the " + name + " output is null, but " + why);
    if (!wanted && given) fail(who + "an " + name + " output was given, but the spec has none (" + why + ")");
  };
  const std::string mode = std::string("mode = ") + dsl::to_string(p.spec.mode);
  // With a fused output, the scan's own results may be left out: all of them null.
  const bool fused_only = p.scatter && !inc && !exc;
  need(inc, o.inclusive && !fused_only, false, "inclusive", mode);
  need(exc, o.exclusive && !fused_only, false, "exclusive", mode);
  need(agg, o.aggregate, true, "aggregate",
       o.aggregate ? "outputs lists aggregate" : "outputs does not list aggregate");
  need(run, o.running_total, true, "running_total",
       o.running_total ? "outputs lists running_total" : "outputs does not list running_total");
}

void check_reduce(const generator::Plan& p, bool inclusive, bool exclusive) {
  const dsl::Spec& s = p.spec;
  const std::string who = "scan '" + s.name + "': ";
  if (s.level != dsl::Level::Device || s.algorithm != dsl::Algorithm::ReduceThenScan || p.shape != dsl::Shape::Flat ||
      p.segmented.on() || p.scatter || !p.outputs.aggregate)
    fail(who +
         "reduce() takes a flat device scan by reduce_then_scan with outputs = aggregate (it launches "
         "that plan's reduce and spine kernels, not its scan); this one is not (`scangen explain` shows "
         "its plan)");
  if (inclusive || exclusive)
    fail(who + "reduce() writes the aggregate alone: the " + (inclusive ? "inclusive" : "exclusive") +
         " output must be null");
}

void keep_reduce_launches(Call& call) {
  auto writes_scan = [](const generator::Kernel& k) {
    for (const generator::KernelParam& param : k.params)
      if (param.role == generator::ParamRole::Inclusive || param.role == generator::ParamRole::Exclusive) return true;
    return false;
  };
  std::vector<std::pair<const generator::Kernel*, uint64_t>> kept;
  for (const auto& launch : call.launches)
    if (!writes_scan(*launch.first)) kept.push_back(launch);
  call.launches = std::move(kept);
}

void check_host_totals(const generator::Plan& p, bool agg, bool host_agg, bool run, bool host_run) {
  if (!host_agg && !host_run) return;
  const std::string who = "scan '" + p.spec.name + "': ";
  if (p.spec.level != dsl::Level::Device || p.shape != dsl::Shape::Flat || p.segmented.on())
    fail(who +
         "totals in host memory (host_aggregate, host_running_total) take a flat device scan's one "
         "aggregate and running total; this spec is not one");
  if (agg && host_agg) fail(who + "the aggregate was given twice: aggregate and host_aggregate; give one");
  if (run && host_run) fail(who + "the running total was given twice: running_total and host_running_total; give one");
}

void check_input_arrays(const generator::Plan& p, bool in, const std::vector<const void*>& arrays,
                        const void* inclusive, const void* exclusive, uint64_t n) {
  const std::string who = "scan '" + p.spec.name + "': ";
  if (!p.input_arrays) {
    if (!arrays.empty())
      fail(who + std::to_string(arrays.size()) +
           " input arrays were given (inputs), but the spec reads one array, 'in' (input = " + p.spec.input.name() +
           ")");
    return;
  }
  const size_t k = p.arrays.size();
  const std::string reads = k == 0 ? "no array (input = none)" : std::to_string(k) + " input arrays (inputs)";
  if (in) fail(who + "an input 'in' was given, but the spec reads " + reads);
  if (arrays.size() != k)
    fail(who + "the spec reads " + reads + ", but " + std::to_string(arrays.size()) + " input arrays were given");
  for (size_t i = 0; i < k; ++i) {
    if (n > 0 && !arrays[i])
      fail(who + "input array " + std::to_string(i) + " ('" + p.spec.convert->params[i] + "' of convert) is null");
    if (arrays[i] && (arrays[i] == inclusive || arrays[i] == exclusive))
      fail(who + "an output is input array " + std::to_string(i) +
           " (the other arrays' elements would be read after it is written); give another buffer");
  }
}

void check_neighbours_not_in_place(const generator::Plan& p, const void* in, const void* inc, const void* exc) {
  if (p.reads_neighbours && in != nullptr && (in == inc || in == exc))
    fail("scan '" + p.spec.name +
         "': an output is the input, but the spec reads prev(...) / next(...), the input beside each element, "
         "which another tile's results would have overwritten; give another buffer");
}

void check_outputs_apart(const generator::Plan& p, const void* inc_root, uint64_t inc_begin, const void* exc_root,
                         uint64_t exc_begin, uint64_t bytes) {
  if (!inc_root || inc_root != exc_root || bytes == 0) return;
  if (inc_begin < exc_begin + bytes && exc_begin < inc_begin + bytes)
    fail("scan '" + p.spec.name + "': the inclusive and exclusive outputs " +
         (inc_begin == exc_begin ? std::string("are one buffer") : "overlap") + ", but mode = both writes both (" +
         std::to_string(bytes) + " bytes each); give two buffers apart");
}

void check_scattered(const generator::Plan& p, const void* const* fused, const void* in, uint64_t n) {
  const std::string who = "scan '" + p.spec.name + "': ";
  for (size_t k = 0; k < 1 + dsl::Spec::kMaxNamedScatter; ++k) {
    const bool given = fused[k] != nullptr;
    if (k < p.fused_outputs.size()) {
      const generator::Plan::FusedOutput& o = p.fused_outputs[k];
      const std::string what = k == 0 ? "scatter(...)" : "scatter." + o.name + "(...)";
      if (!given && n > 0)
        fail(who + "the " +
             (k == 0 ? std::string("scattered") : "named_scattered[" + std::to_string(k - 1) + "] ('" + o.name + "')") +
             " output is null, but the spec has '" + what + "' (n elements of " + o.element.name() + ")");
      if (given && fused[k] == in) fail(who + "the " + o.name + " output is the input; give another buffer");
    } else if (given) {
      fail(who + (k == 0 ? std::string("a scattered output was given, but the spec has no 'scatter(...)'")
                         : "named_scattered[" + std::to_string(k - 1) + "] was given, but the spec has " +
                               std::to_string(p.fused_outputs.size() > 0 ? p.fused_outputs.size() - 1 : 0) +
                               " named fused output(s)"));
    }
  }
}

void check_no_overflow(const generator::Plan& p, uint64_t count, uint64_t element, const std::string& type) {
  if (count > std::numeric_limits<uint64_t>::max() / element)
    fail("scan '" + p.spec.name + "': " + std::to_string(count) + " " + type + " elements of " +
         std::to_string(element) + " bytes overflow 64 bits");
}

Call plan_call(const generator::Plan& p, uint64_t n, const generator::RunShape* shape) {
  Call c;
  if (!shape) {
    for (const generator::Kernel* k : plan_launches(p, n))
      c.launches.emplace_back(k, generator::launch_blocks(p, *k, n));
    c.elements = c.in_count = c.out_count = n;
    c.aggregate_count = generator::aggregate_elements(p, n);
    c.workspace_bytes = generator::workspace_bytes(p, n);
    c.zero_bytes = generator::workspace_zero_bytes(p, n);
    return c;
  }
  try {
    c.shape = generator::shape_call(p, *shape);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  c.launches.emplace_back(c.shape.kernel, c.shape.blocks);
  c.elements = c.shape.in_span;
  c.in_count = c.shape.in_span;
  c.out_count = c.shape.out_span;
  c.aggregate_count = c.shape.aggregates;
  c.workspace_bytes = c.shape.workspace_bytes;
  c.zero_bytes = c.shape.zero_bytes;
  return c;
}

}  // namespace runtime::detail

using runtime::detail::state_of;

const dsl::Spec& Scan::spec() const { return state_of(s_).plan.spec; }
const generator::Plan& Scan::plan() const { return state_of(s_).plan; }
Backend Scan::backend() const { return state_of(s_).plan.backend; }
uint64_t Scan::workspace_bytes(uint64_t n) const { return generator::workspace_bytes(state_of(s_).plan, n); }
uint64_t Scan::workspace_bytes(const ShapeArgs& shape) const {
  const generator::RunShape run = runtime::detail::to_run_shape(shape);
  return runtime::detail::plan_call(state_of(s_).plan, 0, &run).workspace_bytes;
}
size_t Scan::element_size() const { return state_of(s_).plan.element_bytes; }
size_t Scan::input_size() const { return state_of(s_).plan.input_bytes; }

void Scan::check_sizes(size_t in, size_t t) const {
  const generator::Plan& p = state_of(s_).plan;
  if (in != p.input_bytes || t != p.element_bytes)
    fail("scan '" + p.spec.name + "' takes " + std::to_string(p.input_bytes) + "-byte inputs and " +
         std::to_string(p.element_bytes) + "-byte elements; the pointers given are to " + std::to_string(in) +
         "- and " + std::to_string(t) + "-byte types");
}

}  // namespace scangen
