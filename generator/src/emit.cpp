#include "scangen/generator/emit.h"

#include <set>
#include <stdexcept>
#include <string>

#include "backend_emitter.h"
#include "scangen/generator/preamble.h"
#include "templates.h"
#include "text.h"

namespace scangen::generator {

namespace detail {

AtomicCounter atomic_counter(const Plan& plan) {
  const dsl::Spec& s = plan.spec;
  if (!s.op || *s.op == dsl::BuiltinOp::Mul || !s.type.is_integer() || dsl::scalar_size(s.type.scalar_kind()) < 4)
    throw std::invalid_argument("scan '" + s.name +
                                "': outputs = running_total at warp and block level needs a built-in operator "
                                "other than mul on a 32- or 64-bit integer type (the counter is updated atomically)");
  const dsl::ScalarKind kind = s.type.scalar_kind();
  const dsl::BuiltinOp op = *s.op;
  const bool ordered = op == dsl::BuiltinOp::Min || op == dsl::BuiltinOp::Max;
  // add, and, or, xor on the unsigned type (wrap-around); min and max on the type's own signedness.
  return {kind, op, dsl::to_string(op), dsl::scalar_size(kind) == 8, ordered && dsl::is_signed(kind)};
}

}  // namespace detail

using namespace detail;

namespace {

// The holes of a scan's templates: SG_NAME(x) is <scan>_x, and SG_T, SG_IN,
// SG_COMBINE, ... are the preamble's names, so that the emitted source names
// its functions and types plainly. (The templates stay valid source on
// their own, where these are macros.)
Holes scan_holes(const Plan& plan) {
  Holes h;
  h.names(plan.spec.name + "_");
  for (const auto& [k, v] : plan.constants)
    if (k == "SG_T" || k == "SG_IN" || k == "SG_COMBINE" || k == "SG_IDENTITY" || k == "SG_INIT" || k == "SG_CONVERT")
      h.set(k, v);
  return h;
}

}  // namespace

std::string compile_options(Backend backend) { return exact_float_options(backend); }

uint64_t templates_hash() {
  uint64_t h = fnv1a("");
  for (const EmbeddedTemplate& t : embedded_templates())
    for (const char* s : {t.path, t.text}) h = fnv1a("\xff", fnv1a(s, h));  // a 0xff byte ends each string
  return h;
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
      .set("SG_DIALECT", be.dialect_template())
      .set("SG_DIALECT_TEXT", template_text(be.dialect_template()));
  for (const Plan& p : plans) {
    Holes& scan = h.add("scan");
    scan.set("SG_SCAN", p.spec.name)
        .set("SG_FROM", p.spec.file.empty() ? "" : " from " + p.spec.file)
        .set("SG_LEVEL", dsl::to_string(p.spec.level))
        .set("SG_ALGORITHM", dsl::to_string(p.spec.algorithm))
        .set("SG_PREFIX", p.spec.name + "_")
        .set("SG_PREAMBLE", [&p, backend, source_name](long line) {
          PreambleOptions po;
          po.source_name = source_name;
          po.first_line = static_cast<int>(line);  // for its #line directives
          return emit_preamble(p.spec, backend, po);
        });
    for (const auto& [k, v] : p.constants) scan.add("constant").set("SG_CONSTANT", k).set("SG_VALUE", v);
    Holes holes = scan_holes(p);
    for (const std::string& t : p.templates) {
      Holes& each = scan.add("template");
      const bool atomic = t == "common/api.h" && p.spec.running_total && p.spec.level != dsl::Level::Device;
      if (atomic) {
        const BackendEmitter::AtomicUpdate a = be.atomic_update(p);
        holes.set("SG_ATOMIC", a.function).set("SG_ATOMIC_POINTER", a.pointer).set("SG_ATOMIC_TYPE", a.type);
        each.set("SG_ATOMIC_TEXT", fill_template("common/atomic_combine.h", holes));
      }
      each.when("atomic", atomic).set("SG_PATH", t).set("SG_TEXT", fill_template(t, holes));
    }
  }
  return fill_template("common/source.h", h);
}

}  // namespace scangen::generator
