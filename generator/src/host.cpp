// Host wrappers (scangen/generator/host.h): the header and the definitions
// that let a program call the kernels of an emitted source like functions.
// The text is templates/host/ (text.h fills it); here are the decisions and
// the values of its holes.
#include "scangen/generator/host.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "c_names.h"
#include "scalar_library.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/preamble.h"
#include "text.h"

namespace scangen::generator {

using namespace detail;

namespace {

using dsl::Level;
using dsl::Mode;

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string u64(uint64_t v) { return std::to_string(v) + "u"; }

std::string join(const std::vector<std::string>& items, const std::string& before, const std::string& after,
                 const std::string& separator) {
  std::string o;
  for (const std::string& item : items) o += (o.empty() ? "" : separator) + before + item + after;
  return o;
}

// Everything the wrappers of one scan need to know, from its plan.
struct Scan {
  const Plan* plan = nullptr;
  std::string P, T, In;
  bool device = false;
  bool lookback = false;
  std::string function;              // P_inclusive, P_exclusive, P_inclusive_exclusive
  std::vector<std::string> outputs;  // "out", or "inclusive" and "exclusive"
  std::string aggregate;             // "aggregate" (device), "aggregates" (warp, block), "" without
  bool running_total = false;
  // The input arrays' parameters, (element type, name): `in`, or with input
  // arrays one per array (none with `input = none;`).
  std::vector<std::pair<std::string, std::string>> inputs;
  bool scatter = false;    // fused outputs: `scattered`, n elements of P_Out, after the outputs
  uint64_t per_block = 0;  // elements per block: the tile, or segment x groups per block
  int threads = 0;
  uint64_t ws_base = 0, ws_per_tile = 0;  // workspace bytes: base + tiles x per tile
  // Segmented scans: the form's parameters after the results, (CUDA type, name).
  bool segmented = false;
  std::vector<std::pair<std::string, std::string>> segment_params;
  dsl::Shape shape = dsl::Shape::Flat;  // shape = rows / strided: shape_holes
};

// A segmented scan's wrapper parameters: the form's arrays (and the offsets' count).
void describe_segments(Scan& c, const Plan& p) {
  c.segmented = p.segmented.on();
  if (!c.segmented) return;
  if (p.outputs.aggregate) c.aggregate = "segment_aggregates";
  switch (p.segmented.form) {
    case dsl::Segments::Flags:
      c.segment_params = {{"const uint8_t*", "flags"}};
      break;
    case dsl::Segments::Offsets:
      c.segment_params = {{"const " + p.segmented.offset_type + "*", "offsets"}, {"int64_t", "segment_count"}};
      break;
    case dsl::Segments::Keys:
      c.segment_params = {{"const " + p.segmented.key_type + "*", "keys"}};
      break;
    case dsl::Segments::None:
      break;
  }
}

// The scan's mode, from the outputs the plan writes.
Mode plan_mode(const Plan& p) {
  return p.outputs.inclusive && p.outputs.exclusive ? Mode::Both
         : p.outputs.inclusive                      ? Mode::Inclusive
                                                    : Mode::Exclusive;
}

Scan describe_scan(const Plan& p) {
  Scan c;
  c.plan = &p;
  c.P = p.spec.name;
  c.T = p.names.value_type;
  c.In = p.names.input_type;
  if (!p.input_arrays) c.inputs = {{c.In, "in"}};
  for (const Plan::InputArray& a : p.arrays) c.inputs.push_back({a.type, a.name});
  c.device = p.level == Level::Device;
  c.lookback = c.device && p.algorithm == dsl::Algorithm::DecoupledLookback;
  const Mode mode = plan_mode(p);
  c.function = c.P + (mode == Mode::Inclusive   ? "_inclusive"
                      : mode == Mode::Exclusive ? "_exclusive"
                                                : "_inclusive_exclusive");
  c.outputs = mode == Mode::Both ? std::vector<std::string>{"inclusive", "exclusive"} : std::vector<std::string>{"out"};
  c.shape = p.shape;
  if (p.outputs.aggregate) c.aggregate = c.device && c.shape == dsl::Shape::Flat ? "aggregate" : "aggregates";
  c.running_total = p.outputs.running_total;
  c.scatter = p.scatter;
  c.threads = p.block_threads;
  if (c.device) {
    c.per_block = p.tile;
    const WorkspaceLayout w = workspace_layout(p);
    c.ws_per_tile = w.per_tile;
    c.ws_base = w.header;
  } else {
    c.per_block = p.segment * static_cast<uint64_t>(p.groups_per_block);
  }
  if (c.per_block == 0 || c.threads <= 0)
    throw std::logic_error("scangen: scan '" + c.P + "' has an empty launch shape");
  describe_segments(c, p);
  if (c.device && !c.lookback && p.kernels.size() != 3)
    throw std::logic_error("scangen: reduce_then_scan without its three kernels");
  return c;
}

const char* mode_words(Mode m) {
  switch (m) {
    case Mode::Inclusive:
      return "inclusive scan";
    case Mode::Exclusive:
      return "exclusive scan";
    case Mode::Both:
      return "inclusive and exclusive scans";
  }
  return "scan";
}

bool mentions_f64(const dsl::Type& t) { return dsl::holds_scalar(t, dsl::ScalarKind::F64); }

bool arrays_f64(const dsl::Spec& s) {
  if (s.input_arrays)
    for (const dsl::Type& t : *s.input_arrays)
      if (mentions_f64(t)) return true;
  return false;
}

// The holes every template of a scan's wrappers shares.
void scan_holes(Holes& h, const Scan& c) {
  const Plan& p = *c.plan;
  const Mode mode = plan_mode(p);
  h.names(c.P + "_")
      .set("SG_P", c.P)
      .set("SG_T", c.T)
      .set("SG_IN", c.In)
      .set("SG_OUT", p.names.out_type)
      .set("SG_FUNCTION", c.function)
      .set("SG_FROM", p.spec.file.empty() ? "" : " (" + p.spec.file + ")")
      .set("SG_LEVEL", dsl::to_string(p.level))
      .set("SG_ALGORITHM", dsl::to_string(p.algorithm))
      .set("SG_MODE", dsl::to_string(mode))
      .set("SG_MODE_WORDS", mode_words(mode))
      .set("SG_OUTPUTS", c.outputs.size() != 1      ? "inclusive[0 .. n) and exclusive[0 .. n)"
                         : p.output_may_alias_input ? "out[0 .. n) (which may be in)"
                                                    : "out[0 .. n)")
      .set("SG_SEGMENT", std::to_string(p.segment))
      .set("SG_SEGMENT_LESS_ONE", std::to_string(p.segment - 1))
      .set("SG_ENTRY", p.entry_kernel)
      .set("SG_TYPES_GUARD", "SCANGEN_TYPES_" + c.P)
      .set("SG_BLOCK_THREADS", std::to_string(c.threads))
      .set("SG_PER_BLOCK", u64(c.per_block))
      .set("SG_PER_BLOCK_LESS_ONE", u64(c.per_block - 1))
      .set("SG_WORKSPACE_BASE", u64(c.ws_base))
      .set("SG_WORKSPACE_PER_TILE", u64(c.ws_per_tile))
      .when("device", c.device)
      .when("segments", !c.device)
      .when("lookback", c.lookback)
      .when("zero_by_kernel", c.lookback && !p.zero_kernel.empty())
      .set("SG_ZERO_KERNEL", p.zero_kernel)
      .set("SG_ZERO_FROM_TILES", std::to_string(kZeroKernelFromTiles))
      .when("reduce_then_scan", c.device && !c.lookback)
      .when("one_kernel", !c.device || (c.lookback && !p.segmented.head_bits))
      .when("heads_then_scan", c.lookback && p.segmented.head_bits)
      .when("head_bits", p.segmented.head_bits)
      .when("statuses_only", !p.segmented.head_bits)
      .when("aggregate", !c.aggregate.empty() && !c.segmented)
      .when("running_total", c.running_total)
      .when("tile_prefix", p.tile_prefix)
      .when("scatter", c.scatter)
      .when("one_input", !p.input_arrays)
      .when("input_bundle", p.input_arrays);
  if (p.input_arrays) {
    std::string elements;
    for (size_t k = 0; k < p.arrays.size(); ++k) {
      h.add("input_array").set("SG_INPUT_T", p.arrays[k].type).set("SG_INPUT_NAME", p.arrays[k].name);
      elements += (k ? ", " : "") + p.arrays[k].name + "[i]";
    }
    if (p.spec.convert_takes_index()) elements += elements.empty() ? "i" : ", i";
    h.set("SG_INPUT_ELEMENTS", elements);
  }
  // Each fused output: scattered, then the named ones (the buffer checks, the types, the comments).
  for (size_t i = 0; i < p.fused_outputs.size(); ++i) {
    const Plan::FusedOutput& o = p.fused_outputs[i];
    h.add("scatter_output")
        .set("SG_SCATTERED", o.name)
        .set("SG_OUT", o.out_type)
        .set("SG_OUT_STORAGE", c_type(o.element, c.P, Form::Storage));
    if (i > 0)
      h.add("named_scatter_output")
          .set("SG_SCATTERED", o.name)
          .set("SG_OUT", o.out_type)
          .set("SG_SCATTER_IF", o.when)
          .set("SG_SCATTER_AT", o.at)
          .set("SG_SCATTER_VALUE", o.value);
  }
  // Device scans write the aggregate and the running total even for n == 0.
  const bool writes_when_empty = c.device && (!c.aggregate.empty() || c.running_total);
  h.when("writes_when_empty", writes_when_empty).when("returns_when_empty", !writes_when_empty);
}

bool outputs_mention_f64(const Scan& c) {
  for (const Plan::FusedOutput& o : c.plan->fused_outputs)
    if (mentions_f64(o.element)) return true;
  return false;
}

// P_T, P_In and their structs with the C layout of the generated source,
// guarded by SCANGEN_TYPES_P: the emitted .cu defines that macro before
// repeating the header, since its preamble defines the same types.
std::string host_types(const Scan& c) {
  const dsl::Spec& s = c.plan->spec;
  Holes h;
  scan_holes(h, c);
  h.set("SG_SCALAR_TYPES",
        ScalarLibrary(Backend::Cuda)
            .scalar_typedefs(mentions_f64(s.type) || mentions_f64(s.input) || arrays_f64(s) || outputs_mention_f64(c)))
      .set("SG_T_STORAGE", c_type(s.type, c.P, Form::Storage))
      .set("SG_IN_STORAGE", c_type(s.input, c.P, Form::Storage));
  if (s.input_arrays) {
    for (size_t k = 0; k < s.input_arrays->size(); ++k)
      h.add("input_type")
          .set("SG_INPUT_T", c.plan->arrays[k].type)
          .set("SG_INPUT_STORAGE", c_type((*s.input_arrays)[k], c.P, Form::Storage));
  }
  std::vector<std::shared_ptr<const dsl::StructType>> structs;
  dsl::collect_structs(s.type, structs);
  dsl::collect_structs(s.input, structs);
  if (s.input_arrays)
    for (const dsl::Type& t : *s.input_arrays) dsl::collect_structs(t, structs);
  for (const Plan::FusedOutput& o : c.plan->fused_outputs) dsl::collect_structs(o.element, structs);
  std::set<const dsl::StructType*> seen;
  for (const auto& st : structs) {
    if (!seen.insert(st.get()).second) continue;
    Holes& sh = h.add("struct");
    sh.set("SG_STRUCT", struct_name(c.P, *st))
        .set("SG_SIZE", std::to_string(st->size))
        .set("SG_ALIGN", std::to_string(st->align));
    const std::vector<std::string> fields = field_names(*st, c.P);
    for (size_t i = 0; i < fields.size(); ++i)
      sh.add("field")
          .set("SG_FIELD", fields[i])
          .set("SG_FIELD_TYPE", c_type(st->fields[i].type, c.P, Form::Storage))
          .set("SG_OFFSET", std::to_string(st->fields[i].offset));
  }
  return fill_template("host/types.h", h);
}

// The pointer parameters of a wrapper, in order.
std::vector<std::string> data_params(const Scan& c) {
  std::vector<std::string> v;
  for (const auto& input : c.inputs) v.push_back(input.second);
  v.insert(v.end(), c.outputs.begin(), c.outputs.end());
  for (const Plan::FusedOutput& o : c.plan->fused_outputs) v.push_back(o.name);
  return v;
}
std::vector<std::string> result_params(const Scan& c) {
  std::vector<std::string> v;
  if (!c.aggregate.empty()) v.push_back(c.aggregate);
  if (c.running_total) v.push_back("running_total");
  return v;
}

// The argument of a kernel parameter, in the wrapper's terms, by its role.
std::string argument(const Scan& c, const KernelParam& k, Backend b) {
  const bool cuda = b == Backend::Cuda;
  switch (k.role) {
    case ParamRole::Input:
      return "in";
    case ParamRole::InputArray:
      return c.plan->arrays.at(static_cast<size_t>(k.array)).name;
    case ParamRole::Inclusive:
      return c.outputs.size() == 1 ? "out" : "inclusive";
    case ParamRole::Exclusive:
      return c.outputs.size() == 1 ? "out" : "exclusive";
    case ParamRole::Aggregate:
    case ParamRole::Aggregates:
      return c.aggregate;
    case ParamRole::RunningTotal:
      return "running_total";
    case ParamRole::Count:
      return cuda ? "static_cast<unsigned long long>(n)" : "count";
    case ParamRole::Workspace:
      return cuda ? "static_cast<unsigned char*>(workspace)" : "workspace";
    case ParamRole::Partials:
      return cuda ? "partials" : "workspace";
    case ParamRole::SegmentAggregates:
      return "segment_aggregates";
    case ParamRole::SegmentFlags:
      return "flags";
    case ParamRole::SegmentOffsets:
      return "offsets";
    case ParamRole::SegmentCount:
      return cuda ? "static_cast<unsigned long long>(segment_count)" : "segments";
    case ParamRole::SegmentKeys:
      return "keys";
    case ParamRole::Rows:
      return "call.rows";
    case ParamRole::Length:
      return "call.length";
    case ParamRole::InRowStride:
      return "call.in_row_stride";
    case ParamRole::OutRowStride:
      return "call.out_row_stride";
    case ParamRole::Extent:
      return "call.extent[" + std::to_string(k.dim) + "]";
    case ParamRole::InStride:
      return "call.in_stride[" + std::to_string(k.dim) + "]";
    case ParamRole::OutStride:
      return "call.out_stride[" + std::to_string(k.dim) + "]";
    case ParamRole::AxisLanes:
      return "call.lanes";
    case ParamRole::Scattered:
      return k.name;  // scattered, or the fused output's name
  }
  throw std::logic_error("scangen: the host wrapper of scan '" + c.P + "' knows no role of parameter '" + k.name + "'");
}

// A segmented scan's parameters after the results (CUDA's types, or cl_mem for its arrays).
std::string segment_param_list(const Scan& c, bool cuda) {
  std::string s;
  for (const auto& [type, name] : c.segment_params)
    s += ", " + (cuda || type == "int64_t" ? type : std::string("cl_mem")) + " " + name;
  return s;
}

// A segmented scan's checks of its segments and the words of its comment.
void segment_holes(Holes& h, const Scan& c, bool cuda) {
  h.when("segmented", c.segmented);
  if (!c.segmented) return;
  const Plan& p = *c.plan;
  const bool offsets = p.segmented.form == dsl::Segments::Offsets;
  const std::string array = c.segment_params.front().second;
  std::string words =
      offsets ? "offsets[0 .. segment_count] (offsets[0] = 0, nondecreasing, offsets[segment_count] "
                "= n: the caller's duty, not checked) delimit the segments"
      : p.segmented.form == dsl::Segments::Flags
          ? "flags[0 .. n) mark the segments (a nonzero byte starts one; element 0 always does)"
      : p.segmented.key_equal
          ? "keys[0 .. n) mark the segments (one starts where key_equal(the key before, its own) is false)"
          : "keys[0 .. n) mark the segments (one starts where the key differs from the one before)";
  words += "; every segment's scan starts again from init";
  if (!c.aggregate.empty())
    words += offsets ? "; segment_aggregates[0 .. segment_count) receives each segment's total (empty: the identity)"
                     : "; segment_aggregates[k] receives the total of segment k (one element per segment)";
  h.set("SG_SEGMENT_WORDS", words).when("segment_count", offsets && !cuda);
  if (cuda) {
    h.set("SG_SEGMENT_INVALID",
          offsets ? "segment_count < 0 || offsets == nullptr" : "n > 0 && " + array + " == nullptr");
    return;
  }
  const std::string size = "sizeof(" + (offsets ? p.segmented.offset_type : p.segmented.key_type) + ")";
  if (offsets) {
    h.add("segment_check")
        .set("SG_CHECK",
             "segment_count < 0 ? CL_INVALID_VALUE : scangen_opencl_check_buffer_v1(offsets, segment_count + 1, " +
                 size + ")");
    if (!c.aggregate.empty())
      h.add("segment_check")
          .set("SG_CHECK", "scangen_opencl_check_buffer_v1(segment_aggregates, segment_count, sizeof(" + c.T + "))");
  } else {
    h.add("segment_check")
        .set("SG_CHECK", "scangen_opencl_check_buffer_v1(" + array + ", n, " +
                             (p.segmented.form == dsl::Segments::Flags ? std::string("1") : size) + ")");
  }
}

// The run-time shape's numbers (u64, a cl_ulong each on OpenCL), Rows .. AxisLanes.
bool shape_role(ParamRole r) { return r >= ParamRole::Rows && r <= ParamRole::AxisLanes; }

// shape = rows / strided: the wrappers take the run-time shape instead of n,
// and compute the call's geometry with host/shape_call.h.
void shape_holes(Holes& h, const Scan& c, Backend b) {
  const bool cuda = b == Backend::Cuda, shaped = c.shape != dsl::Shape::Flat, rows = c.shape == dsl::Shape::Rows;
  h.when("flat", !shaped).when("shaped", shaped).when("rows", rows).when("strided", c.shape == dsl::Shape::Strided);
  if (!shaped) return;
  const Plan& p = *c.plan;
  const std::string shape = rows ? "uint64_t rows, uint64_t length, uint64_t in_row_stride, uint64_t out_row_stride"
                                 : "int rank, const uint64_t* extents, const uint64_t* in_strides, "
                                   "const uint64_t* out_strides, int axis";
  Holes call;
  call.names(c.P + "_");
  call.set("SG_P", c.P)
      .set("SG_SHAPE", dsl::to_string(c.shape))
      .set("SG_LINKAGE", cuda ? "static inline" : "inline")
      .set("SG_SHAPE_TILE", u64(p.tile) + "ll")
      .set("SG_SHAPE_THREADS", u64(static_cast<uint64_t>(p.block_threads)) + "ll")
      .set("SG_SHAPE_ITEMS", u64(static_cast<uint64_t>(p.items)) + "ll")
      .set("SG_SHAPE_STATUS", u64(p.status_bytes) + "ll")
      .when("strided", !rows);
  const std::vector<std::string> data = data_params(c), results = result_params(c);
  h.set("SG_SHAPE_CALL", fill_template("host/shape_call.h", call))
      .set("SG_SHAPE_PARAMS", shape)
      .set("SG_SHAPE_CHECK", rows ? c.P + "_shape_rows(&call, rows, length, in_row_stride, out_row_stride)"
                                  : c.P + "_shape_strided(&call, rank, extents, in_strides, out_strides, axis)");
  if (cuda)
    h.set("SG_PARAMS", "const " + c.In + "* in" + join(c.outputs, ", " + c.T + "* ", "", "") +
                           join(results, ", " + c.T + "* ", "", "") + ", " + shape +
                           ", void* workspace, size_t workspace_bytes, cudaStream_t stream")
        .set("SG_NULL_DATA", join(data, "", " == nullptr", " || "));
  else
    h.set("SG_PARAMS", "cl_command_queue queue" + join(data, ", cl_mem ", "", "") + join(results, ", cl_mem ", "", "") +
                           ", " + shape + ", cl_mem workspace");
}

// The holes of the wrappers of one scan for backend `b`, its kernels
// numbered from `first` in the program.
void wrapper_holes(Holes& h, const Scan& c, Backend b, size_t first) {
  const bool cuda = b == Backend::Cuda;
  scan_holes(h, c);
  const std::string ws = c.P + (cuda ? "_workspace_bytes" : "_opencl_workspace_bytes");
  const std::string tile_ws = c.P + (cuda ? "_device_tile_workspace_bytes" : "_opencl_device_tile_workspace_bytes");
  h.set("SG_WORKSPACE_BYTES", ws).set("SG_TILE_WORKSPACE_BYTES", tile_ws);
  Holes w;
  scan_holes(w, c);
  w.set("SG_WORKSPACE_BYTES", ws).set("SG_TILE_WORKSPACE_BYTES", tile_ws).when("inline", !cuda);
  h.set("SG_WORKSPACE_FUNCTION", fill_template("host/workspace_bytes.h", w)).set("SG_TYPES", host_types(c));
  const std::vector<std::string> data = data_params(c), results = result_params(c);
  if (cuda) {
    // With a fused output, the scan's own output arrays may be null (none written).
    std::vector<std::string> needed = data;
    if (c.scatter) {
      needed = {"in"};
      for (const Plan::FusedOutput& o : c.plan->fused_outputs) needed.push_back(o.name);
    }
    std::string fused;
    for (const Plan::FusedOutput& o : c.plan->fused_outputs) fused += ", " + o.out_type + "* " + o.name;
    std::vector<std::string> all = needed;
    all.insert(all.end(), results.begin(), results.end());
    std::string params;
    for (const auto& [type, name] : c.inputs) params += (params.empty() ? "const " : ", const ") + type + "* " + name;
    for (const std::string& o : c.outputs) params += (params.empty() ? "" : ", ") + c.T + "* " + o;
    h.set("SG_PARAMS", params + fused + join(results, ", " + c.T + "* ", "", "") + segment_param_list(c, true) +
                           ", int64_t n" + (c.device ? ", void* workspace, size_t workspace_bytes" : "") +
                           ", cudaStream_t stream")
        .set("SG_NULL_ANY", join(all, "", " == nullptr", " || "))
        .set("SG_NULL_DATA", join(needed, "", " == nullptr", " || "))
        .set("SG_NULL_RESULTS", join(results, "", " == nullptr", " || "));
  } else {
    h.set("SG_PARAMS", "cl_command_queue queue" + join(data, ", cl_mem ", "", "") + join(results, ", cl_mem ", "", "") +
                           segment_param_list(c, false) + ", int64_t n" + (c.device ? ", cl_mem workspace" : ""));
    for (const std::string& out : c.outputs) h.add("output").set("SG_OUTPUT", out);
  }
  segment_holes(h, c, cuda);
  const std::vector<Kernel>& kernels = c.plan->kernels;
  for (size_t i = 0; i < kernels.size(); ++i) {
    std::vector<std::string> args;
    for (const KernelParam& p : kernels[i].params) {
      const std::string a = argument(c, p, b);
      const bool scalar = p.role == ParamRole::Count || p.role == ParamRole::SegmentCount;
      args.push_back(cuda                 ? a
                     : scalar             ? "{sizeof " + a + ", &" + a + "}"
                     : shape_role(p.role) ? "{sizeof(cl_ulong), &" + a + "}"
                                          : "{sizeof(cl_mem), &" + a + "}");
    }
    const bool one = kernels[i].blocks == Grid::One;
    const std::string k = std::to_string(i);
    h.set("SG_KERNEL" + k, kernels[i].name)
        .set("SG_INDEX" + k, std::to_string(first + i))
        .set("SG_GRID" + k, one    ? "1"
                            : cuda ? "static_cast<unsigned int>(blocks)"
                                   : "blocks")
        .set("SG_ARGS" + k, join(args, "", "", ", "))
        .set("SG_DYNAMIC_SHARED" + k, std::to_string(kernels[i].dynamic_shared_bytes));
  }
  h.when("dynamic_shared", cuda && !kernels.empty() && kernels.back().dynamic_shared_bytes > 0);
  if (!kernels.empty())
    h.set("SG_SCAN_KERNEL", kernels.back().name)
        .set("SG_SCAN_DYNAMIC_SHARED", std::to_string(kernels.back().dynamic_shared_bytes));
  shape_holes(h, c, b);
}

// The device source as C++ raw string literals of at most ~4000 bytes, cut
// after a newline where there is one.
void source_parts(Holes& h, const std::string& text) {
  std::string delim = "scangen_cl";
  while (text.find(")" + delim + "\"") != std::string::npos) delim += "_";
  h.set("SG_DELIMITER", delim).when("no_part", text.empty());
  constexpr size_t kPart = 4000;
  for (size_t start = 0, end; start < text.size(); start = end) {
    end = std::min(text.size(), start + kPart);
    if (end < text.size()) {
      const size_t nl = text.rfind('\n', end - 1);
      if (nl != std::string::npos && nl >= start) end = nl + 1;
    }
    h.add("part").set("SG_PART", text.substr(start, end - start));
  }
}

}  // namespace

HostCode emit_host(const std::vector<Plan>& plans, const std::string& device_source, const HostOptions& options) {
  if (plans.empty()) throw std::invalid_argument("scangen: no scans to wrap");
  const Backend backend = plans.front().backend;
  const bool cuda = backend == Backend::Cuda;
  HostOptions o = options;
  if (o.source_name.empty()) o.source_name = plans.front().spec.name + source_extension(backend);
  if (o.header_name.empty()) o.header_name = plans.front().spec.name + (cuda ? "_cuda.h" : "_opencl.h");
  const std::string id = hex(fnv1a(device_source));
  Holes h;
  h.set("SG_SOURCE", o.source_name)
      .set("SG_HEADER", o.header_name)
      .set("SG_GUARD", (cuda ? "SCANGEN_CUDA_HOST_" : "SCANGEN_OPENCL_HOST_") + id + "_H")
      .set("SG_NS", "scangen_opencl_" + id);
  std::vector<std::string> kernels;
  for (const Plan& p : plans) {
    if (p.backend != backend) throw std::invalid_argument("scangen: the scans of one source must share a backend");
    wrapper_holes(h.add("scan"), describe_scan(p), backend, kernels.size());
    for (const Kernel& k : p.kernels) kernels.push_back(k.name);
  }
  HostCode code;
  if (cuda) {
    code.header = fill_template("host/cuda.h", h);
    code.source_tail = fill_template("host/cuda_definitions.cu", h.set("SG_HEADER_TEXT", code.header));
  } else {
    source_parts(h, device_source);
    h.set("SG_SOURCE_LITERAL", c_string_escape(o.source_name))
        .set("SG_EXACT_OPTIONS", c_string_escape(compile_options(Backend::OpenCL)))
        .set("SG_KERNEL_COUNT", std::to_string(kernels.size()))
        .set("SG_KERNEL_NAMES", join(kernels, "\"", "\"", ", "));
    code.header = fill_template("host/opencl.h", h);
  }
  return code;
}

}  // namespace scangen::generator
