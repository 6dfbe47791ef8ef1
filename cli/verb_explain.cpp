// `scangen explain FILE`: each scan fully resolved, and the generator's plan
// for each of its targets.
#include <iostream>
#include <optional>
#include <stdexcept>

#include "cli.h"

namespace scangen::cli {

namespace {

const char* const kExplainUsage =
    "usage: scangen explain [--dump=ast|spec|plan] [--scan NAME] [--target cuda|opencl]\n"
    "                       [--arch sm_XX [--device NAME]] [--tuning KNOBS] FILE\n"
    "\n"
    "  (default)     each scan as the checked Spec, every default filled in, then its plan\n"
    "  --dump=spec   only the Spec\n"
    "  --dump=plan   only the plans: every decision the generator makes for a backend\n"
    "  --dump=ast    the parse tree, before names and types are resolved\n"
    "  --scan NAME   only the scan called NAME\n"
    "  --target T    only the plan for backend T (cuda or opencl)\n"
    "  --arch A      plan CUDA for architecture A (sm_90, ...; default: any, with sm_90's tuning)\n"
    "  --device NAME with --arch: plan CUDA for the device of that name too ('NVIDIA H200'):\n"
    "                the tuning table's rows for it come first\n"
    "  --tuning KNOBS device scans: these knobs over the tuning table's entry ('raw_tile=1')\n";

struct ExplainOptions {
  std::string dump = "all";
  std::optional<generator::Backend> target;
  int arch = 0;        // --arch: the CUDA plans' architecture (0: any)
  std::string device;  // --device: the CUDA device's name (Target::device)
  std::string tuning;  // --tuning: knobs over the table's entry (Target::tuning)
  std::string only;
  std::vector<std::string> files;
};

// The plan of `spec` for `target`, or why there is none.
std::string plan_text(const dsl::Spec& spec, const generator::Target& target) {
  try {
    return generator::to_string(generator::make_plan(spec, target));
  } catch (const std::invalid_argument& e) {
    return std::string("no plan for ") + generator::to_string(target.backend) + ": " + e.what() + "\n";
  }
}

// Every line of `text` as a comment: "# line".
std::string commented(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    out += "# " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// Prints the chosen scans (their Specs, their plans, or both); false when
// --scan names none of them.
bool print_scans(const dsl::Document& doc, const ExplainOptions& o) {
  bool found = false;
  for (const dsl::Spec& spec : doc.specs()) {
    if (!o.only.empty() && spec.name != o.only) continue;
    found = true;
    if (o.dump != "plan") std::cout << spec.to_string();
    if (o.dump == "spec") continue;
    for (dsl::Target t : spec.targets) {
      const generator::Backend b = generator::backend_for(t);
      if (o.target && *o.target != b) continue;
      const bool cuda = b == generator::Backend::Cuda;
      generator::Target target{b, cuda ? o.arch : 0, cuda ? o.device : std::string()};
      target.tuning = o.tuning;
      const std::string text = plan_text(spec, target);
      // Inside the spec's text, the plan reads as a comment.
      std::cout << (o.dump != "plan" ? commented(text) : text);
    }
  }
  return found;
}

}  // namespace

int run_explain(const std::vector<std::string>& args) {
  ExplainOptions o;
  const CommandLine line{
      "explain",
      kExplainUsage,
      {{{"--dump"},
        Takes::EqualsOnly,
        "",
        [&](const std::string& v) {
          o.dump = v;
          if (v != "ast" && v != "spec" && v != "plan")
            throw UserError{"--dump takes 'ast', 'spec' or 'plan', not '" + v + "'"};
        }},
       {{"--scan"}, Takes::Next, "--scan needs a scan name", [&](const std::string& v) { o.only = v; }},
       {{"--target"},
        Takes::Next,
        "--target needs cuda or opencl",
        [&](const std::string& v) { o.target = parse_backend(v); }},
       {{"--arch"}, Takes::NextOrEquals, "--arch needs sm_XX", [&](const std::string& v) { o.arch = parse_arch(v); }},
       {{"--device"},
        Takes::NextOrEquals,
        "--device needs a device name",
        [&](const std::string& v) { o.device = parse_device(v); }},
       {{"--tuning"}, Takes::NextOrEquals, "", [&](const std::string& v) { o.tuning = parse_tuning_knobs(v); }}},
      [&](const std::string& word) { o.files.push_back(word); }};
  if (!parse_command_line(line, args)) return kOk;
  if (o.files.size() != 1) throw UserError{std::string("explain takes one FILE\n") + kExplainUsage};
  check_device(o.device, o.arch);
  dsl::Document doc = load(o.files[0]);
  if (o.dump == "ast") std::cout << dsl::ast::dump(doc.ast());
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    return kUserError;
  }
  if (o.dump != "ast" && !print_scans(doc, o) && !o.only.empty())
    throw UserError{"no scan named '" + o.only + "' in " + o.files[0]};
  return kOk;
}

}  // namespace scangen::cli
