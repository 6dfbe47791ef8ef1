// C++ names and constants as .scan text spells them (import's helpers,
// shared by its stages).
#pragma once

#include <string>

#include "clang/AST/Decl.h"
#include "clang/AST/Type.h"

namespace scangen::cxx::detail {

// `s`, or s_ where it is a .scan keyword.
std::string dsl_name(const std::string& s);

// A .scan identifier for a C++ name with template arguments:
// CustomMin<float> -> CustomMin_float, Pair<unsigned int> -> Pair_unsigned_int.
std::string dsl_identifier(const std::string& s);

// `t`'s name with its template arguments, as C++ prints it.
std::string template_name(const clang::NamedDecl* d);

std::string without_spaces(std::string s);

// `t` as C++ code spells it: P, not struct P.
std::string cxx_name(clang::QualType t);

// The shortest decimal text that reads back as `v` (as a float when `single`).
std::string float_text(double v, bool single);

}  // namespace scangen::cxx::detail
