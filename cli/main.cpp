// scangen: the command-line front end.
//
//   scangen check FILE...            parse, check, and test each operator
//   scangen explain FILE [--dump=ast|spec] [--scan NAME]
//
// Exit status: 0 success, 1 a problem in the input, 2 an internal error.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"

namespace {

constexpr int kOk = 0;
constexpr int kUserError = 1;

const char* const kUsage =
    "usage: scangen <command> [options] FILE...\n"
    "\n"
    "commands:\n"
    "  check FILE...     parse and check scan files, then test each operator's identity and\n"
    "                    associativity on random values with the CPU reference\n"
    "  explain FILE      print each scan fully resolved, defaults filled in\n"
    "  help              this text\n"
    "\n"
    "FILE may be '-' for standard input. Run 'scangen <command> --help' for a command's options.\n";

const char* const kCheckUsage =
    "usage: scangen check [--seed N] [--samples N] [--quiet] FILE...\n"
    "\n"
    "Parses and checks every FILE, then tests each scan's operator on random values:\n"
    "identity (combine(e, x) == x == combine(x, e)) and associativity\n"
    "(combine(combine(a, b), c) == combine(a, combine(b, c))). Integers must match exactly;\n"
    "floats are evaluated in f64 and must agree within a relative 1e-9.\n"
    "\n"
    "  --seed N      random seed (default: a fresh one, printed when a test fails)\n"
    "  --samples N   random triples per scan (default 2000)\n"
    "  --quiet       print nothing on success\n";

const char* const kExplainUsage =
    "usage: scangen explain [--dump=ast|spec] [--scan NAME] FILE\n"
    "\n"
    "  --dump=spec   (default) each scan as the checked Spec, every default filled in\n"
    "  --dump=ast    the parse tree, before names and types are resolved\n"
    "  --scan NAME   only the scan called NAME\n";

struct UserError {
  std::string message;
};

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError{"cannot read '" + path + "'"};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UserError{"cannot read '" + path + "'"};
  return ss.str();
}

scangen::dsl::Document load(const std::string& path) {
  return scangen::dsl::load(path == "-" ? "<stdin>" : path, read_input(path));
}

uint64_t parse_number(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || errno != 0 || text[0] == '-')
    throw UserError{flag + " expects a non-negative whole number, not '" + text + "'"};
  return v;
}

int cmd_check(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::optional<uint64_t> seed;
  int samples = 2000;
  bool quiet = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UserError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kCheckUsage;
      return kOk;
    } else if (a == "--seed") {
      seed = parse_number(a, value());
    } else if (a == "--samples") {
      uint64_t n = parse_number(a, value());
      if (n < 1 || n > 10000000) throw UserError{"--samples must be 1 to 10000000"};
      samples = static_cast<int>(n);
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for check\n" + kCheckUsage};
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) throw UserError{std::string("check needs at least one FILE\n") + kCheckUsage};
  if (!seed) seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();

  int status = kOk;
  for (const std::string& path : files) {
    scangen::dsl::Document doc;
    try {
      doc = load(path);
    } catch (const UserError& e) {
      std::cerr << "scangen: error: " << e.message << "\n";
      status = kUserError;
      continue;
    }
    if (!doc.ok()) {
      std::cerr << doc.diagnostics().render();
      std::cerr << doc.file().name() << ": " << doc.diagnostics().error_count() << " error"
                << (doc.diagnostics().error_count() == 1 ? "" : "s") << "\n";
      status = kUserError;
      continue;
    }
    if (doc.specs().empty() && !quiet) std::cout << doc.file().name() << ": no scans to check\n";
    for (const scangen::dsl::Spec& spec : doc.specs()) {
      scangen::ref::OperatorReport r = scangen::ref::check_operator(spec, *seed, samples);
      if (!r.ok) {
        std::cerr << doc.file().name() << ":" << spec.loc.line << ":" << spec.loc.col << ": error: " << r.message
                  << " (seed " << *seed << ")\n";
        status = kUserError;
      } else if (!quiet) {
        std::cout << doc.file().name() << ": scan '" << spec.name << "': ok (" << spec.type.name() << ", "
                  << scangen::dsl::to_string(spec.level) << ", " << scangen::dsl::to_string(spec.algorithm)
                  << "; identity and associativity hold on " << r.samples << " random samples)\n";
      }
    }
  }
  return status;
}

int cmd_explain(const std::vector<std::string>& args) {
  std::string dump = "spec";
  std::string only;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kExplainUsage;
      return kOk;
    } else if (a.rfind("--dump=", 0) == 0) {
      dump = a.substr(7);
      if (dump != "ast" && dump != "spec") throw UserError{"--dump takes 'ast' or 'spec', not '" + dump + "'"};
    } else if (a == "--scan") {
      if (i + 1 >= args.size()) throw UserError{"--scan needs a scan name"};
      only = args[++i];
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for explain\n" + kExplainUsage};
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 1) throw UserError{std::string("explain takes one FILE\n") + kExplainUsage};
  scangen::dsl::Document doc = load(files[0]);
  if (dump == "ast") {
    std::cout << scangen::dsl::ast::dump(doc.ast());
  }
  if (!doc.ok()) {
    std::cerr << doc.diagnostics().render();
    return kUserError;
  }
  if (dump == "spec") {
    bool found = false;
    for (const scangen::dsl::Spec& spec : doc.specs()) {
      if (!only.empty() && spec.name != only) continue;
      found = true;
      std::cout << spec.to_string();
    }
    if (!found && !only.empty()) throw UserError{"no scan named '" + only + "' in " + files[0]};
  }
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      std::cerr << kUsage;
      return kUserError;
    }
    std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "check") return cmd_check(args);
    if (cmd == "explain") return cmd_explain(args);
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      std::cout << kUsage;
      return kOk;
    }
    if (cmd == "--version") {
      std::cout << "scangen 0.1.0\n";
      return kOk;
    }
    std::cerr << "scangen: error: unknown command '" << cmd << "'\n" << kUsage;
    return kUserError;
  } catch (const UserError& e) {
    std::cerr << "scangen: error: " << e.message << "\n";
    return kUserError;
  } catch (const std::exception& e) {
    std::cerr << "scangen: internal error: " << e.what() << "\n";
    return 2;
  }
}
