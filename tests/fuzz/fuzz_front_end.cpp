// Feeds arbitrary bytes to the front end; whatever checks cleanly goes on to
// the Spec's value operations, the generator's preamble and the CPU
// reference. Nothing may crash, hang or trip a sanitizer.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "scangen/generator/preamble.h"
#include "scangen/reference/reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  scangen::dsl::Document doc = scangen::dsl::load("fuzz.scan", text);
  (void)doc.diagnostics().render();
  (void)scangen::dsl::ast::dump(doc.ast());
  for (const scangen::dsl::Spec& spec : doc.specs()) {
    std::string printed = spec.to_string();
    scangen::dsl::Spec copy = spec;
    if (!(copy == spec) || copy.hash() != spec.hash()) {
      std::fprintf(stderr, "a copy of the spec differs from it:\n%s", printed.c_str());
      __builtin_trap();
    }
    // The printed form must itself be a valid scan file with the same meaning.
    scangen::dsl::Document again = scangen::dsl::load("printed.scan", printed);
    if (!again.ok() || again.specs().size() != 1 || !(again.specs()[0] == spec)) {
      std::fprintf(stderr, "the printed spec does not read back as the same spec:\n%s\n%s%s", printed.c_str(),
                   again.diagnostics().render().c_str(),
                   again.specs().empty() ? "" : again.specs()[0].to_string().c_str());
      __builtin_trap();
    }

    (void)scangen::generator::emit_preamble(spec, scangen::generator::Backend::Cuda);
    (void)scangen::generator::emit_preamble(spec, scangen::generator::Backend::OpenCL);
    // Plan and emit for every target; a plan may refuse a spec (device level,
    // a scratch too large), but only with std::invalid_argument.
    for (scangen::dsl::Target t : spec.targets) {
      try {
        const scangen::generator::Plan plan = scangen::generator::make_plan(spec, scangen::generator::backend_for(t));
        (void)scangen::generator::to_string(plan);
        (void)scangen::generator::emit(plan);
      } catch (const std::invalid_argument&) {
      }
    }
    scangen::ref::check_operator(spec, 1, 4);
    scangen::ref::Evaluator eval(spec);
    std::mt19937_64 rng(size);
    const uint64_t n = 37;
    std::vector<uint8_t> input(n * spec.input.size());
    scangen::ref::fill_random(spec.input, input.data(), n, rng);
    scangen::ref::Evaluator::Result r = eval.scan(input.data(), n);
    (void)r;
  }
  return 0;
}
