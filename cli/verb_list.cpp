// `scangen list [GROUP]`: what a .scan file may name, a line on each.
#include <iostream>
#include <sstream>

#include "cli.h"
#include "scangen/generator/emit.h"

namespace scangen::cli {

namespace {

const char* const kListUsage =
    "usage: scangen list [types|operators|functions|levels|algorithms|modes|targets]\n"
    "\n"
    "Prints what a .scan file may name, with a line on each: element types, built-in\n"
    "operators (op = ...), math functions, levels, algorithms, modes and targets; all of\n"
    "them, or one group.\n";

// `s` padded with spaces to `w` columns, or followed by one space.
std::string pad(std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s + " "; }

void list_types(std::ostream& o) {
#define X(e, name, bytes, is_float_, is_signed_)                                                                  \
  {                                                                                                               \
    const dsl::ScalarKind k = dsl::ScalarKind::e;                                                                 \
    std::string what =                                                                                            \
        k == dsl::ScalarKind::Bool                                                                                \
            ? "truth value of conditions (not an element or field type)"                                          \
            : std::string(bytes == 1 ? "1 byte" : std::to_string(bytes) + " bytes") + ", " +                      \
                  (is_float_ ? (k == dsl::ScalarKind::F16 ? "IEEE binary16, computed in f32" : "IEEE float")      \
                             : (is_signed_ ? "signed integer, wraps around" : "unsigned integer, wraps around")); \
    o << "  " << pad(name, 18) << what << "\n";                                                                   \
  }
  SCANGEN_SCALAR_KINDS(X)
#undef X
  o << "  " << pad("type S { ... }", 18) << "a struct of fields of these types and of other structs, C layout\n";
}

void list_operators(std::ostream& o) {
#define X(e, s, integer_only) \
  o << "  " << pad(s, 18) << (integer_only ? "integer types" : "integer and float types") << "\n";
  SCANGEN_BUILTIN_OPS(X)
#undef X
}

void list_functions(std::ostream& o) {
#define X(e, s, arity, floats_only)                                                             \
  o << "  "                                                                                     \
    << pad(std::string(s) + "(" +                                                               \
               (arity == 1   ? "x"                                                              \
                : arity == 2 ? "x, y"                                                           \
                             : "x, y, z") +                                                     \
               ")",                                                                             \
           18)                                                                                  \
    << (std::string(s) == "select" ? "x, y of one type (scalar or struct), z a bool: z ? y : x" \
        : floats_only              ? "float types"                                              \
                                   : "integer and float types")                                              \
    << "\n";
  SCANGEN_MATH_FNS(X)
#undef X
}

void list_levels(std::ostream& o) {
#define X(e, s, d) o << "  " << pad(s, 18) << d << "\n";
  SCANGEN_LEVELS(X)
#undef X
}

void list_algorithms(std::ostream& o) {
#define X(e, s, level, d)                                                                                      \
  {                                                                                                            \
    const dsl::Level l = dsl::Level::level;                                                                    \
    const bool is_default = dsl::default_algorithm(l) == dsl::Algorithm::e;                                    \
    o << "  " << pad(std::string(s) + (is_default ? " *" : ""), 21) << pad(dsl::to_string(l), 7) << d << "\n"; \
  }
  SCANGEN_ALGORITHMS(X)
#undef X
}

void list_modes(std::ostream& o) {
#define X(e, s)                                                                                      \
  o << "  " << pad(s, 18)                                                                            \
    << (dsl::Mode::e == dsl::Mode::Inclusive   ? "element k gets init . x0 . ... . xk (the default)" \
        : dsl::Mode::e == dsl::Mode::Exclusive ? "element k gets init . x0 . ... . x(k-1)"           \
                                               : "both, into two outputs")                           \
    << "\n";
  SCANGEN_MODES(X)
#undef X
}

void list_targets(std::ostream& o) {
#define X(e, s)                                                                                                        \
  {                                                                                                                    \
    const generator::Backend b = generator::backend_for(dsl::Target::e);                                               \
    o << "  " << pad(s, 18) << (b == generator::Backend::Cuda ? "CUDA C++ for nvcc or NVRTC" : "OpenCL C 1.2") << " (" \
      << generator::source_extension(b) << ")\n";                                                                      \
  }
  SCANGEN_TARGETS(X)
#undef X
}

struct Group {
  const char* name;
  const char* heading;  // shown when every group is listed
  void (*print)(std::ostream&);
};

const Group kGroups[] = {
    {"types", "types (type = ..., struct fields, input = ...):", list_types},
    {"operators", "operators (op = ...; sets combine, identity and init):", list_operators},
    {"functions", "functions (in combine, identity, init and convert expressions):", list_functions},
    {"levels", "levels (level = ...):", list_levels},
    {"algorithms", "algorithms (algorithm = ...), by level; * marks the level's default:", list_algorithms},
    {"modes", "modes (mode = ...):", list_modes},
    {"targets", "targets (targets = ...; both by default):", list_targets},
};

}  // namespace

int run_list(const std::vector<std::string>& args) {
  std::string only;
  const CommandLine line{"list", kListUsage, {}, [&](const std::string& word) {
                           if (!only.empty())
                             throw UserError{std::string("list takes at most one group\n") + kListUsage};
                           only = word;
                         }};
  if (!parse_command_line(line, args)) return kOk;
  bool known = only.empty();
  std::string names;
  for (const Group& g : kGroups) {
    known = known || only == g.name;
    names += (names.empty() ? "" : ", ") + std::string(g.name);
  }
  if (!known) throw UserError{"unknown group '" + only + "' (groups: " + names + ")"};
  std::ostringstream o;
  bool first = true;
  for (const Group& g : kGroups) {
    if (!only.empty() && only != g.name) continue;
    if (only.empty()) o << (first ? "" : "\n") << g.heading << "\n";
    first = false;
    g.print(o);
  }
  std::cout << o.str();
  return kOk;
}

}  // namespace scangen::cli
