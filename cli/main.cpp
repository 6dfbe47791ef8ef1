// scangen: the command-line front end.
//
//   scangen check FILE...            parse, check, and test each operator
//   scangen explain FILE [--dump=ast|spec|plan] [--scan NAME] [--target cuda|opencl]
//   scangen emit FILE [--target cuda|opencl] [--scan NAME] [-o OUT] [--header H]
//   scangen emit --opencl-builtins [-o OUT]
//   scangen compile FILE --arch sm_XX|compute_XX [--scan NAME] [-o OUT]
//   scangen list [types|operators|functions|levels|algorithms|modes|targets]
//   scangen import HEADER --op OP [--type T] [--identity EXPR] [--level LEVEL]
//
// Exit status: 0 success, 1 a problem in the input, 2 an internal error.
// Each command is a file, verb_*.cpp; cli.h lists the parts.

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"

namespace {

using namespace scangen::cli;

const char* const kUsage =
    "usage: scangen <command> [options] FILE...\n"
    "\n"
    "commands:\n"
    "  check FILE...     parse and check scan files, then test each operator's identity and\n"
    "                    associativity on random values with the CPU reference\n"
    "  explain FILE      print each scan fully resolved, defaults filled in, and the\n"
    "                    generator's plan for each of its targets\n"
    "  emit FILE         write the CUDA or OpenCL C source of the file's scans, and with\n"
    "                    --header the typed host wrappers that launch them\n"
    "  compile FILE      compile the file's CUDA scans with NVRTC: PTX or a cubin\n"
    "  list              the element types, operators, functions, levels, algorithms, modes\n"
    "                    and targets of the language\n"
    "  import HEADER     the .scan text of a C++ element type and operator (a CUB-style\n"
    "                    functor), read with Clang\n"
    "  help              this text\n"
    "  --version         the version of scangen\n"
    "\n"
    "FILE may be '-' for standard input. Run 'scangen <command> --help' for a command's options.\n"
    "Exit status: 0 success, 1 a problem in the input or the command line, 2 an internal error.\n";

struct Command {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
};

const Command kCommands[] = {
    {"check", run_check},     {"explain", run_explain}, {"emit", run_emit},
    {"compile", run_compile}, {"list", run_list},       {"import", run_import},
};

int dispatch(std::vector<std::string> args) {
  if (args.empty()) {
    std::cerr << kUsage;
    return kUserError;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  for (const Command& c : kCommands)
    if (cmd == c.name) return c.run(args);
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::cout << kUsage;
    return kOk;
  }
  if (cmd == "--version") {
    std::cout << "scangen " SCANGEN_VERSION "\n";
    return kOk;
  }
  std::cerr << "scangen: error: unknown command '" << cmd << "'\n" << kUsage;
  return kUserError;
}

}  // namespace

int main(int argc, char** argv) {
  int rc = kOk;
  try {
    rc = dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UserError& e) {
    if (e.where.empty())
      std::cerr << "scangen: error: " << e.message << "\n";
    else
      std::cerr << e.where << ": error: " << e.message << "\n";
    rc = kUserError;
  } catch (const std::exception& e) {
    std::cerr << "scangen: internal error: " << e.what() << "\n";
    rc = kInternalError;
  }
  // What a command printed may still sit in the buffer: a write that fails
  // only now (a full disk, /dev/full, a closed pipe) fails the command.
  std::cout.flush();
  if (!std::cout && rc == kOk) {
    std::cerr << "scangen: error: cannot write to standard output\n";
    rc = kUserError;
  }
  return rc;
}
