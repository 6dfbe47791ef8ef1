// `scangen import HEADER --op OP [--type T]`: the .scan text of an element
// type and an operator written in C++ (scangen::cxx, Clang libTooling).
#include <iostream>

#include "cli.h"

#if SCANGEN_HAVE_CXX
#include "scangen/cxx/cxx.h"
#endif

namespace scangen::cli {

namespace {

const char* const kImportUsage =
    "usage: scangen import HEADER --op OP [--type T] [--identity EXPR] [--name NAME] [--level LEVEL]\n"
    "                      [--set 'KEY = VALUE']... [-I DIR]... [-D NAME[=VALUE]]... [-o OUT]\n"
    "\n"
    "Reads a C++ header with Clang and prints the equivalent .scan text: a 'type' for the\n"
    "element struct, the operator as 'combine(x, y)' (or a built-in 'op' it is equal to) and\n"
    "its identity. docs/cxx.md lists the C++ it translates.\n"
    "\n"
    "  --op OP          the operator: a functor struct with operator(), a function, or a\n"
    "                   variable holding a lambda\n"
    "  --type T         the element type, checked against the operator's (default: the\n"
    "                   operator's return type)\n"
    "  --identity EXPR  the identity as a .scan expression, when the functor (or the type)\n"
    "                   has no 'static constexpr T identity'\n"
    "  --name NAME      the scan's name (default: OP)\n"
    "  --level LEVEL    writes 'level = LEVEL;' (warp, warp(16), block, device)\n"
    "  --set SETTING    writes 'SETTING;' into the scan (repeatable): --set 'items = 4'\n"
    "  -I DIR, -D DEF   passed to Clang\n"
    "  -o OUT           write to OUT instead of standard output\n";

struct ImportArgs {
  std::string header, type, op, out;
#if SCANGEN_HAVE_CXX
  cxx::ImportOptions options;
#endif
};

}  // namespace

int run_import(const std::vector<std::string>& args) {
  ImportArgs a;
  auto keep = [&](std::string& field) { return [&field](const std::string& v) { field = v; }; };
#if SCANGEN_HAVE_CXX
  cxx::ImportOptions& o = a.options;
#else
  struct {
    std::string identity, name, level;
    std::vector<std::string> settings, clang_args;
  } o;
#endif
  const CommandLine line{
      "import",
      kImportUsage,
      {{{"--op"}, Takes::NextOrEquals, "--op needs the name of a functor or function", keep(a.op)},
       {{"--type"}, Takes::NextOrEquals, "--type needs a type name", keep(a.type)},
       {{"--identity"}, Takes::NextOrEquals, "--identity needs an expression", keep(o.identity)},
       {{"--name"}, Takes::NextOrEquals, "--name needs a scan name", keep(o.name)},
       {{"--level"}, Takes::NextOrEquals, "--level needs a level", keep(o.level)},
       {{"--set"}, Takes::Next, "--set needs a setting, 'KEY = VALUE'",
        [&](const std::string& v) { o.settings.push_back(v); }},
       {{"-I"}, Takes::Next, "", [&](const std::string& v) { o.clang_args.push_back("-I" + v); }},
       {{"-D"}, Takes::Next, "", [&](const std::string& v) { o.clang_args.push_back("-D" + v); }},
       {{"-o"}, Takes::Next, "-o needs a file name", keep(a.out)}},
      [&](const std::string& word) {
        if (!a.header.empty()) throw UserError{std::string("import takes one HEADER\n") + kImportUsage};
        a.header = word;
      }};
  if (!parse_command_line(line, args)) return kOk;
  if (a.header.empty()) throw UserError{std::string("import needs a HEADER\n") + kImportUsage};
  if (a.op.empty()) throw UserError{"import needs --op, the functor or function that combines two elements"};
#if SCANGEN_HAVE_CXX
  try {
    write_output(a.out, cxx::import(a.header, a.type, a.op, a.options), {a.header});
  } catch (const cxx::ImportError& e) {
    std::cerr << e.diagnostics << a.header << ": " << e.error_count << " error" << (e.error_count == 1 ? "" : "s")
              << "\n";
    return kUserError;
  }
  return kOk;
#else
  throw UserError{"this scangen was built without the C++ front end (Clang libTooling); install "
                  "libclang-14-dev libclang-cpp14-dev llvm-14-dev (scripts/setup-deps) and configure and "
                  "build scangen again"};
#endif
}

}  // namespace scangen::cli
