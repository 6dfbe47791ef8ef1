// `scangen check FILE...`: parse and check each file, then test each scan's
// operator on random values with the CPU reference.
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>

#include "cli.h"
#include "scangen/reference/reference.h"

namespace scangen::cli {

namespace {

const char* const kCheckUsage =
    "usage: scangen check [--seed N] [--samples N] [-q|--quiet] FILE...\n"
    "\n"
    "Parses and checks every FILE, then tests each scan's operator on random values:\n"
    "identity (combine(e, x) == x == combine(x, e)) and associativity\n"
    "(combine(combine(a, b), c) == combine(a, combine(b, c))). Integers must match exactly;\n"
    "floats are evaluated in f64 and must agree within a relative 1e-9.\n"
    "\n"
    "  --seed N      random seed (default: a fresh one, printed when a test fails)\n"
    "  --samples N   random triples per scan (default 2000)\n"
    "  -q, --quiet   print nothing on success\n";

struct CheckOptions {
  std::vector<std::string> files;
  uint64_t seed = 0;
  int samples = 2000;
  bool quiet = false;
};

// Checks one file: kOk, or kUserError after printing why.
int check_file(const std::string& path, const CheckOptions& o) {
  dsl::Document doc;
  try {
    doc = load(path);
  } catch (const UserError& e) {
    std::cerr << "scangen: error: " << e.message << "\n";
    return kUserError;
  }
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    std::cerr << doc.file().name() << ": " << doc.diagnostics().error_count() << " error"
              << (doc.diagnostics().error_count() == 1 ? "" : "s") << "\n";
    return kUserError;
  }
  if (doc.specs().empty() && !o.quiet) std::cout << doc.file().name() << ": no scans to check\n";
  int status = kOk;
  for (const dsl::Spec& spec : doc.specs()) {
    ref::OperatorReport r = ref::check_operator(spec, o.seed, o.samples);
    if (!r.ok) {
      std::cerr << doc.file().name() << ":" << spec.loc.line << ":" << spec.loc.col << ": error: " << r.message
                << " (seed " << o.seed << ")\n";
      status = kUserError;
    } else if (!o.quiet) {
      std::cout << doc.file().name() << ": scan '" << spec.name << "': ok (" << spec.type.name() << ", "
                << dsl::to_string(spec.level) << ", " << dsl::to_string(spec.algorithm)
                << "; identity and associativity hold on " << r.samples << " random samples)\n";
    }
  }
  return status;
}

}  // namespace

int run_check(const std::vector<std::string>& args) {
  CheckOptions o;
  std::optional<uint64_t> seed;
  const CommandLine line{
      "check",
      kCheckUsage,
      {{{"--seed"}, Takes::Next, "", [&](const std::string& v) { seed = parse_number("--seed", v); }},
       {{"--samples"},
        Takes::Next,
        "",
        [&](const std::string& v) {
          uint64_t n = parse_number("--samples", v);
          if (n < 1 || n > 10000000) throw UserError{"--samples must be 1 to 10000000"};
          o.samples = static_cast<int>(n);
        }},
       {{"--quiet", "-q"}, Takes::Nothing, "", [&](const std::string&) { o.quiet = true; }}},
      [&](const std::string& word) { o.files.push_back(word); }};
  if (!parse_command_line(line, args)) return kOk;
  if (o.files.empty()) throw UserError{std::string("check needs at least one FILE\n") + kCheckUsage};
  o.seed = seed ? *seed : (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  int status = kOk;
  for (const std::string& path : o.files)
    if (check_file(path, o) != kOk) status = kUserError;
  return status;
}

}  // namespace scangen::cli
