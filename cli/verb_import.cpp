// `scangen import HEADER --op OP [--type T]`: the .scan text of an element
// type and an operator written in C++ (scangen::cxx, Clang libTooling).
//
// The front end links Clang and LLVM; it is a module of its own,
// scangen-cxx.so, loaded here with dlopen so that no other command pays for
// loading those libraries.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli.h"
#include "scangen/cxx/cxx.h"

#ifndef SCANGEN_CXX_MODULE_DIR
#define SCANGEN_CXX_MODULE_DIR "../lib/scangen"
#endif

namespace scangen::cli {

namespace {

const char* const kImportUsage =
    "usage: scangen import HEADER --op OP [--type T] [--identity EXPR] [--name NAME] [--level LEVEL]\n"
    "                      [--key-equal EQ] [--set 'KEY = VALUE']... [-I DIR]... [-D NAME[=VALUE]]... [-o OUT]\n"
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
    "  --key-equal EQ   a scan by key: 'segments = keys;', the key type and 'key_equal(a, b)'\n"
    "                   from EQ, a comparison of two keys (bool eq(K a, K b)) in the header\n"
    "  --set SETTING    writes 'SETTING;' into the scan (repeatable): --set 'items = 4'\n"
    "  -I DIR, -D DEF   passed to Clang\n"
    "  -o OUT           write to OUT instead of standard output\n";

struct ImportArgs {
  std::string header, type, op, out;
  cxx::ImportOptions options;
};

using ImportFn = int (*)(const std::string*, const std::string*, const std::string*, const cxx::ImportOptions*,
                         std::string*, std::string*);
using ImportOperatorsFn = int (*)(const std::vector<dsl::CxxHeader>*, const std::vector<dsl::CxxOperatorRequest>*,
                                  dsl::CxxImportResult*);

const char* const kNoFrontEnd =
    "this scangen was built without Clang libTooling; install libclang-14-dev libclang-cpp14-dev llvm-14-dev "
    "(scripts/setup-deps), then configure and build scangen again";

// Where scangen-cxx.so may be: $SCANGEN_CXX_MODULE, else next to the
// program, else in the installed LIBDIR/scangen/.
std::vector<std::string> module_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("SCANGEN_CXX_MODULE")) candidates.push_back(env);
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    const std::string exe(self, static_cast<size_t>(n));
    const std::string dir = exe.substr(0, exe.rfind('/') + 1);
    candidates.push_back(dir + "scangen-cxx.so");
    candidates.push_back(dir + SCANGEN_CXX_MODULE_DIR "/scangen-cxx.so");
  }
  return candidates;
}

bool module_exists() {
  for (const std::string& path : module_candidates())
    if (access(path.c_str(), F_OK) == 0) return true;
  return false;
}

// The front end's entry point `symbol` from scangen-cxx.so, or a UserError
// that says how to get it.
void* front_end(const char* symbol) {
  std::string why;
  for (const std::string& path : module_candidates()) {
    if (access(path.c_str(), F_OK) != 0) continue;
    if (void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      if (void* entry = dlsym(module, symbol)) return entry;
      why = path + " has no " + symbol;
    } else {
      why = dlerror();
    }
  }
  throw UserError{"the C++ front end is not available" + (why.empty() ? std::string() : " (" + why + ")") + ": " +
                  kNoFrontEnd};
}

}  // namespace

dsl::LoadOptions load_options() {
  dsl::LoadOptions options;
  if (!module_exists()) {
    options.no_resolver = std::string("importing a C++ header needs scangen's C++ front end: ") + kNoFrontEnd;
    return options;
  }
  // Loaded only when a file imports.
  options.resolve_imports = [](const std::vector<dsl::CxxHeader>& headers,
                               const std::vector<dsl::CxxOperatorRequest>& requests) {
    dsl::CxxImportResult result;
    try {
      const auto resolve = reinterpret_cast<ImportOperatorsFn>(front_end("scangen_cxx_import_operators_v1"));
      resolve(&headers, &requests, &result);
    } catch (const UserError& e) {
      result.diagnostics = "error: " + e.message + "\n";
      result.errors = 1;
    }
    return result;
  };
  return options;
}

int run_import(const std::vector<std::string>& args) {
  ImportArgs a;
  auto keep = [&](std::string& field) { return [&field](const std::string& v) { field = v; }; };
  cxx::ImportOptions& o = a.options;
  const CommandLine line{
      "import",
      kImportUsage,
      {{{"--op"}, Takes::NextOrEquals, "--op needs the name of a functor or function", keep(a.op)},
       {{"--type"}, Takes::NextOrEquals, "--type needs a type name", keep(a.type)},
       {{"--identity"}, Takes::NextOrEquals, "--identity needs an expression", keep(o.identity)},
       {{"--name"}, Takes::NextOrEquals, "--name needs a scan name", keep(o.name)},
       {{"--level"}, Takes::NextOrEquals, "--level needs a level", keep(o.level)},
       {{"--key-equal"}, Takes::NextOrEquals, "--key-equal needs the name of a key comparison", keep(o.key_equal)},
       {{"--set"},
        Takes::Next,
        "--set needs a setting, 'KEY = VALUE'",
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
  const auto translate = reinterpret_cast<ImportFn>(front_end("scangen_cxx_import_v1"));
  std::string text, diagnostics;
  const int errors = translate(&a.header, &a.type, &a.op, &a.options, &text, &diagnostics);
  if (errors > 0) {
    std::cerr << diagnostics << a.header << ": " << errors << " error" << (errors == 1 ? "" : "s") << "\n";
    return kUserError;
  }
  write_output(a.out, text, {a.header});
  return kOk;
}

}  // namespace scangen::cli
