#include "scangen/generator/emit.h"

#include <set>
#include <stdexcept>
#include <string>

#include "conditionals.h"
#include "emitters.h"
#include "plan_steps.h"
#include "scangen/generator/preamble.h"
#include "templates.h"
#include "text.h"

namespace scangen::generator {

using namespace detail;

namespace {

// The holes of a scan's templates: SG_NAME(x) is <scan>_x, and SG_T, SG_IN,
// SG_COMBINE, ... are the preamble's names, so that the emitted source names
// its functions and types plainly. (The templates stay valid source on
// their own, where these are macros.)
Holes scan_holes(const Plan& plan) {
  Holes h;
  h.names(plan.spec.name + "_");
  // The scanned type and its operator as the constants spell them (a
  // segmented scan's are the pair's, plan_segmented.cpp).
  for (const auto& [k, v] : template_constants(plan))
    if (k == "SG_T" || k == "SG_IN" || k == "SG_COMBINE" || k == "SG_IDENTITY" || k == "SG_INIT" || k == "SG_CONVERT")
      h.set(k, v);
  // api.h's and entry.h's seeding: both outputs, or (init_applies_to = exclusive) the exclusive one alone.
  h.when("seed_both", !plan.seed_exclusive_only).when("seed_exclusive", plan.seed_exclusive_only);
  // device_lookback.h's running-total counter: who writes it back (Plan::counter_by_last_group).
  h.when("counter_by_last_tile", !plan.counter_by_last_group).when("counter_by_last_group", plan.counter_by_last_group);
  // device_segmented.h's key comparisons: C's == or the scan's key_equal(before, own).
  h.when("key_c_equal", !plan.segmented.key_equal).when("key_equal", plan.segmented.key_equal);
  // Items packed in 32-bit words (cuda/packed.cuh): device_lookback.h's
  // packed path; io.h's sg_load and sg_store then leave their word paths to it.
  h.when("packed", plan.packed_lanes > 0).when("unpacked", plan.packed_lanes == 0);
  return h;
}

// The holes of a head_flags scan's second part: the pair's names, under
// `prefix` (P_ for the pair and the public functions, P_seg_ for the pair's
// group scan).
Holes head_flag_holes(const Plan& plan, const std::string& prefix) {
  Holes h;
  h.names(prefix);
  for (const auto& [k, v] : head_flag_constants(plan))
    if (k == "SG_T" || k == "SG_IN" || k == "SG_COMBINE" || k == "SG_IDENTITY" || k == "SG_INIT" || k == "SG_CONVERT")
      h.set(k, v);
  h.when("seed_both", !plan.seed_exclusive_only).when("seed_exclusive", plan.seed_exclusive_only);
  h.when("packed", false).when("unpacked", true);
  return h;
}

// How the kernels take their input (io_inputs.h): the one array `in` (section
// one_input), or the input arrays as one value (input_bundle; a repetition of
// input_array each), SG_INPUTS the type the loads and the look-back take it as.
void input_holes(const Plan& p, Holes& holes) {
  const std::string prefix = p.spec.name + "_";
  holes.when("one_input", !p.input_arrays).when("input_bundle", p.input_arrays);
  holes.when("no_array", p.input_arrays && p.arrays.empty());
  holes.set("SG_INPUTS", p.input_arrays ? prefix + "sg_inputs" : "const SG_GLOBAL " + p.names.input_type + "*");
  if (!p.input_arrays) return;
  std::string list, at, item, aligned;
  for (const Plan::InputArray& a : p.arrays) {
    const std::string raw = "raw_" + a.name;
    holes.add("input_array")
        .set("SG_INPUT_T", a.type)
        .set("SG_INPUT_NAME", a.name)
        .set("SG_INPUT_LOAD", prefix + "sg_load_" + a.name)
        .set("SG_INPUT_RAW", raw)
        .set("SG_INPUT_WORDS", std::to_string(a.words))
        .set("SG_INPUT_STAGED", a.staged ? "1" : "0")
        .set("SG_INPUT_OFFSET", std::to_string(a.offset))
        .set("SG_INPUT_PUT", prefix + "sg_put_" + a.name)
        .set("SG_INPUT_GET", prefix + "sg_get_" + a.name);
    aligned +=
        (aligned.empty() ? "" : " && ") + std::string("((unsigned long long)(in.") + a.name + " + first) & 15u) == 0";
    list += (list.empty() ? "" : ", ") + a.name;
    at += (at.empty() ? "" : ", ") + std::string("in.") + a.name + "[i]";
    item += (item.empty() ? "" : ", ") + raw + "[i]";
  }
  if (p.spec.convert_takes_index()) {
    at += at.empty() ? "i" : ", i";
    item += item.empty() ? "at" : ", at";
  }
  holes.when("arrays_together", p.arrays_together).when("arrays_apart", !p.arrays_together);
  holes.set("SG_INPUTS_ALIGNED", aligned.empty() ? "1" : aligned);
  holes.set("SG_INPUT_LIST", list.empty() ? "0" : list).set("SG_INPUT_AT", at).set("SG_INPUT_ITEM", item);
}

// A kernel's parameter list as its template's signature takes it (the kernel
// ABI of Plan::kernels, written once): a buffer `T*` in the backend's global
// address space, a `u64` as scangen_u64; one parameter a line.
std::string kernel_parameters(const Kernel& k) {
  // The plan's spelling of the ABI's scalars, as the kernel text names them.
  const auto c_type = [](const std::string& t) {
    return t == "u64" ? std::string("scangen_u64") : t == "u8" ? std::string("unsigned char") : t;
  };
  std::string out;
  for (const KernelParam& param : k.params) {
    std::string type = param.type;
    if (!type.empty() && type.back() == '*') {
      const bool is_const = type.rfind("const ", 0) == 0;
      const std::string pointee = type.substr(is_const ? 6 : 0, type.size() - (is_const ? 6 : 0) - 1);
      type = std::string(is_const ? "const " : "") + "SG_GLOBAL " + c_type(pointee) + "*";
    } else {
      type = c_type(type);
    }
    out += (out.empty() ? "" : ",\n    ") + type + " " + param.name;
  }
  return out;
}

// SG_PARAMS_<kernel>: each kernel's parameter list (the hole in its
// template's signature), <kernel> its name without the scan's prefix.
void kernel_parameter_holes(const Plan& p, Holes& holes) {
  const std::string prefix = p.spec.name + "_";
  for (const Kernel& k : p.kernels)
    if (k.name.rfind(prefix, 0) == 0) holes.set("SG_PARAMS_" + k.name.substr(prefix.size()), kernel_parameters(k));
}

// A scan's templates and their constants, the first part of its text.
void scan_part(const Plan& p, const BackendEmitter& be, Holes& scan, Conditionals& cond) {
  Holes& part = scan.add("part");
  part.set("SG_PART", "the constants its templates are written against").set("SG_PREFIX", p.spec.name + "_");
  const std::vector<std::pair<std::string, std::string>> constants = template_constants(p);
  for (const auto& [k, v] : constants) part.add("constant").set("SG_CONSTANT", k).set("SG_VALUE", v);
  cond.define(constants);
  Holes holes = scan_holes(p);
  holes.when("forward", !p.reverse).when("reverse", p.reverse);  // io.h's functions or io_mirror.h's
  // The mirror's end: n rounded up to whole blocks, or n itself for segmented scans (their padding stays last).
  holes.when("mirror_blocks", !p.segmented.on()).when("mirror_exact", p.segmented.on());
  holes.when("fixed_order", p.fixed_order).when("any_order", !p.fixed_order);  // the look-back's order
  holes.when("indexed", p.convert_index);                             // the loads pass convert the element's index
  holes.when("scatter", p.scatter && p.level == dsl::Level::Device);  // fused outputs (device_lookback.h)
  holes.when("zero_kernel", !p.zero_kernel.empty());                  // P_zero_workspace (device_lookback.h)
  holes.when("head_bits", p.segmented.head_bits);  // P_seg_heads_kernel and its readers (device_segmented.h)
  holes.when("group_scatter", p.scatter && p.level != dsl::Level::Device);  // P_scatter (api.h, entry.h)
  holes.when("group_plain", !(p.scatter && p.level != dsl::Level::Device));
  holes.when("scatter_any", p.scatter);  // api.h's sg_scatter_element, for both
  holes.when("scatter_staged", p.scatter_staged).when("scatter_direct", !p.scatter_staged);
  // The fused outputs in the striped order write the scan's results too (no stores after them).
  holes.when("scatter_striped", p.scatter_striped).when("scatter_own", p.scatter && !p.scatter_striped);
  holes.when("own_stores", !p.scatter_striped);
  // The tile's inputs kept in shared memory from the loads (io.h's sg_load_raw), convert's neighbours from there.
  holes.when("raw_tile", p.raw_tile).when("raw_none", !p.raw_tile);
  holes.when("raw_near", p.convert_neighbours).when("raw_plain", !p.convert_neighbours);
  holes.set("SG_CONVERT_NEIGHBOURS", p.names.convert);
  for (const Plan::FusedOutput& o : p.fused_outputs)
    holes.add("scatter_output")
        .set("SG_SCATTERED", o.name)
        .set("SG_OUT", o.out_type)
        .set("SG_SCATTER_VALUE", o.value)
        .set("SG_SCATTER_AT", o.at)
        .set("SG_SCATTER_IF", o.when);
  holes.when("tile_prefix", p.tile_prefix);  // the OpenCL look-back without an input (device_tile_prefix.h)
  input_holes(p, holes);
  kernel_parameter_holes(p, holes);
  for (const std::string& t : p.templates) {
    Holes& each = part.add("template");
    const bool atomic = p.counter && needs_counter_update(t);
    if (atomic) {
      const BackendEmitter::AtomicUpdate a = be.atomic_update(p);
      holes.set("SG_ATOMIC", a.function).set("SG_ATOMIC_POINTER", a.pointer).set("SG_ATOMIC_TYPE", a.type);
      holes.when("atomic_native", p.counter->cas_bytes == 0).when("atomic_cas", p.counter->cas_bytes != 0);
      each.set("SG_ATOMIC_TEXT", cond.resolve(fill_template("common/atomic_combine.h", holes)));
    }
    each.when("atomic", atomic).set("SG_PATH", t).set("SG_TEXT", cond.resolve(fill_template(t, holes)));
  }
  cond.undefine(constants);
}

// head_flags = true: the pair, its group scan (names P_seg_*) and the
// head-flag functions, with the pair's constants, the second part.
void head_flag_part(const Plan& p, Holes& scan, Conditionals& cond) {
  if (!p.head_flags.on) return;
  const std::string own = p.spec.name + "_", pairs = p.spec.name + "_seg_";
  Holes& part = scan.add("part");
  part.set("SG_PART", "its head-flag functions, which scan (heads, value) pairs: their constants")
      .set("SG_PREFIX", pairs);
  const std::vector<std::pair<std::string, std::string>> constants = head_flag_constants(p);
  for (const auto& [k, v] : constants) part.add("constant").set("SG_CONSTANT", k).set("SG_VALUE", v);
  cond.define(constants);
  for (const std::string& t : p.head_flags.templates) {
    // The pair and the public functions take the scan's names; the group scan the pair's.
    const bool own_names = takes_scan_names(t);
    Holes& each = part.add("template");
    each.when("atomic", false)
        .set("SG_PATH", t)
        .set("SG_TEXT", cond.resolve(fill_template(t, head_flag_holes(p, own_names ? own : pairs))));
  }
  cond.undefine(constants);
}

}  // namespace

std::string compile_options(Backend backend) { return exact_float_options(backend); }

std::string opencl_build_options(const std::string& platform_name, const std::string& extra) {
  std::string options;
  if (extra.find("SCANGEN_OPENCL_PTX") == std::string::npos)
    options = platform_name.find("NVIDIA") != std::string::npos ? "-DSCANGEN_OPENCL_PTX=1" : "-DSCANGEN_OPENCL_PTX=0";
  if (!extra.empty()) options += (options.empty() ? "" : " ") + extra;
  return options;
}

bool template_embedded(const std::string& path) {
  for (const EmbeddedTemplate& t : embedded_templates())
    if (path == t.path) return true;
  return false;
}

uint64_t templates_hash() {
  // The templates are compiled in: hashed once per process (every cache key
  // needs it, and hashing them takes about as long as emitting a scan).
  static const uint64_t hash = [] {
    uint64_t h = fnv1a("");
    for (const EmbeddedTemplate& t : embedded_templates())
      for (const char* s : {t.path, t.text}) h = fnv1a("\xff", fnv1a(s, h));  // a 0xff byte ends each string
    return h;
  }();
  return hash;
}

std::string emit(const Plan& plan, const EmitOptions& options) { return emit(std::vector<Plan>{plan}, options); }

std::string emit(const std::vector<Plan>& plans, const EmitOptions& options) {
  if (plans.empty()) throw std::invalid_argument("scangen: nothing to emit (no scans)");
  const Backend backend = plans.front().backend;
  std::set<std::string> names;
  for (const Plan& p : plans) {
    if (p.backend != backend) throw std::invalid_argument("scangen: the scans of one source must share a backend");
    if (!names.insert(p.spec.name).second)
      throw std::invalid_argument("scangen: two scans named '" + p.spec.name + "' in one source");
  }
  const BackendEmitter& be = emitter_for(backend);
  const std::string source_name =
      options.source_name.empty() ? plans.front().spec.name + source_extension(backend) : options.source_name;

  Holes h;
  h.set("SG_BACKEND", backend == Backend::Cuda ? "CUDA" : "OpenCL C 1.2")
      .set("SG_PROLOGUE", be.prologue(plans))
      .set("SG_DIALECT", dialect_template(backend))
      .set("SG_DIALECT_TEXT", template_text(dialect_template(backend)));
  // The templates' #if on the plans' constants decided here (conditionals.h), from the macros the text
  // defines before them.
  Conditionals cond;
  cond.read(be.prologue(plans));
  cond.read(template_text(dialect_template(backend)));
  for (const Plan& p : plans) {
    Holes& scan = h.add("scan");
    scan.set("SG_SCAN", p.spec.name)
        .set("SG_FROM", p.spec.file.empty() ? "" : " from " + p.spec.file)
        .set("SG_LEVEL", dsl::to_string(p.level))
        .set("SG_ALGORITHM", dsl::to_string(p.algorithm))
        .set("SG_PREAMBLE", [&p, backend, source_name](long line) {
          PreambleOptions po;
          po.source_name = source_name;
          po.first_line = static_cast<int>(line);  // for its #line directives
          return emit_preamble(p.spec, backend, po);
        });
    scan_part(p, be, scan, cond);
    head_flag_part(p, scan, cond);
  }
  return fill_template("common/source.h", h);
}

}  // namespace scangen::generator
