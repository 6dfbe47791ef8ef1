// scangen: the command-line front end.
//
//   scangen check FILE...            parse, check, and test each operator
//   scangen explain FILE [--dump=ast|spec|plan] [--scan NAME] [--target cuda|opencl]
//   scangen emit FILE [--target cuda|opencl] [--scan NAME] [-o OUT]
//   scangen emit --opencl-builtins [-o OUT]
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
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/opencl_builtins.h"
#include "scangen/generator/plan.h"
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
    "  explain FILE      print each scan fully resolved, defaults filled in, and the\n"
    "                    generator's plan for each of its targets\n"
    "  emit FILE         write the CUDA or OpenCL C source of the file's scans\n"
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
    "usage: scangen explain [--dump=ast|spec|plan] [--scan NAME] [--target cuda|opencl] FILE\n"
    "\n"
    "  (default)     each scan as the checked Spec, every default filled in, then its plan\n"
    "  --dump=spec   only the Spec\n"
    "  --dump=plan   only the plans: every decision the generator makes for a backend\n"
    "  --dump=ast    the parse tree, before names and types are resolved\n"
    "  --scan NAME   only the scan called NAME\n"
    "  --target T    only the plan for backend T (cuda or opencl)\n";

const char* const kEmitUsage =
    "usage: scangen emit [--target cuda|opencl] [--scan NAME] [-o OUT] FILE\n"
    "       scangen emit --opencl-builtins [-o OUT]\n"
    "\n"
    "Writes one self-contained source file (no #include) holding every scan of FILE that\n"
    "lists the target: CUDA C++ for NVRTC or nvcc, or OpenCL C 1.2. docs/generated-code.md\n"
    "describes what it defines and how to call it.\n"
    "\n"
    "  --target T          cuda (default) or opencl\n"
    "  --scan NAME         only the scan called NAME\n"
    "  -o OUT              write to OUT instead of standard output\n"
    "  --opencl-builtins   write OpenCL 2.0's work_group_scan_* / work_group_reduce_*\n"
    "                      for OpenCL 1.2 devices instead (docs/opencl-builtins.md)\n";

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

scangen::generator::Backend parse_backend(const std::string& name) {
  auto b = scangen::generator::backend_from_name(name);
  if (!b) throw UserError{"unknown target '" + name + "' (targets: cuda, opencl)"};
  return *b;
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

// The plan of `spec` for `backend`, or why there is none.
std::string plan_text(const scangen::dsl::Spec& spec, scangen::generator::Backend backend) {
  try {
    return scangen::generator::to_string(scangen::generator::make_plan(spec, backend));
  } catch (const std::invalid_argument& e) {
    return std::string("no plan for ") + scangen::generator::to_string(backend) + ": " + e.what() + "\n";
  }
}

int cmd_explain(const std::vector<std::string>& args) {
  std::string dump = "all";
  std::optional<scangen::generator::Backend> target;
  std::string only;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kExplainUsage;
      return kOk;
    } else if (a.rfind("--dump=", 0) == 0) {
      dump = a.substr(7);
      if (dump != "ast" && dump != "spec" && dump != "plan")
        throw UserError{"--dump takes 'ast', 'spec' or 'plan', not '" + dump + "'"};
    } else if (a == "--scan") {
      if (i + 1 >= args.size()) throw UserError{"--scan needs a scan name"};
      only = args[++i];
    } else if (a == "--target") {
      if (i + 1 >= args.size()) throw UserError{"--target needs cuda or opencl"};
      target = parse_backend(args[++i]);
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
  if (dump != "ast") {
    bool found = false;
    for (const scangen::dsl::Spec& spec : doc.specs()) {
      if (!only.empty() && spec.name != only) continue;
      found = true;
      if (dump != "plan") std::cout << spec.to_string();
      if (dump == "spec") continue;
      for (scangen::dsl::Target t : spec.targets) {
        scangen::generator::Backend b = scangen::generator::backend_for(t);
        if (target && *target != b) continue;
        std::string text = plan_text(spec, b);
        // Inside the spec's text, the plan reads as a comment.
        if (dump != "plan") {
          std::string commented;
          size_t start = 0;
          while (start < text.size()) {
            size_t end = text.find('\n', start);
            commented += "# " + text.substr(start, end - start) + "\n";
            start = end + 1;
          }
          text = commented;
        }
        std::cout << text;
      }
    }
    if (!found && !only.empty()) throw UserError{"no scan named '" + only + "' in " + files[0]};
  }
  return kOk;
}

int cmd_emit(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string only, out_path;
  bool builtins = false;
  scangen::generator::Backend target = scangen::generator::Backend::Cuda;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UserError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      std::cout << kEmitUsage;
      return kOk;
    } else if (a == "--target") {
      target = parse_backend(value());
    } else if (a == "--scan") {
      only = value();
    } else if (a == "-o") {
      out_path = value();
    } else if (a == "--opencl-builtins") {
      builtins = true;
    } else if (a.size() > 1 && a[0] == '-') {
      throw UserError{"unknown option '" + a + "' for emit\n" + kEmitUsage};
    } else {
      files.push_back(a);
    }
  }
  std::string text;
  if (builtins) {
    if (!files.empty() || !only.empty()) throw UserError{"--opencl-builtins takes no FILE and no --scan"};
    text = scangen::generator::emit_opencl_builtins();
  } else {
    if (files.size() != 1) throw UserError{std::string("emit takes one FILE\n") + kEmitUsage};
    scangen::dsl::Document doc = load(files[0]);
    if (!doc.ok()) {
      std::cerr << doc.diagnostics().render();
      return kUserError;
    }
    std::vector<scangen::generator::Plan> plans;
    for (const scangen::dsl::Spec& spec : doc.specs()) {
      if (!only.empty() && spec.name != only) continue;
      bool listed = false;
      for (scangen::dsl::Target t : spec.targets) listed = listed || scangen::generator::backend_for(t) == target;
      if (!listed && only.empty()) continue;  // a scan for the other backend
      try {
        plans.push_back(scangen::generator::make_plan(spec, target));
      } catch (const std::invalid_argument& e) {
        throw UserError{doc.file().name() + ":" + std::to_string(spec.loc.line) + ":" + std::to_string(spec.loc.col) +
                        ": " + e.what()};
      }
    }
    if (plans.empty()) {
      if (!only.empty()) throw UserError{"no scan named '" + only + "' in " + files[0]};
      throw UserError{"no scan in " + files[0] + " lists target '" + scangen::generator::to_string(target) + "'"};
    }
    scangen::generator::EmitOptions options;
    if (!out_path.empty()) {
      size_t slash = out_path.find_last_of('/');
      options.source_name = slash == std::string::npos ? out_path : out_path.substr(slash + 1);
    }
    text = scangen::generator::emit(plans, options);
  }
  if (out_path.empty() || out_path == "-") {
    std::cout << text;
    return kOk;
  }
  // Write next to the destination, then rename: a reader never sees half a file.
  const std::string tmp = out_path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw UserError{"cannot write '" + tmp + "'"};
    out << text;
    out.close();
    if (!out) throw UserError{"cannot write '" + tmp + "'"};
  }
  if (std::rename(tmp.c_str(), out_path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UserError{"cannot write '" + out_path + "'"};
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
    if (cmd == "emit") return cmd_emit(args);
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
