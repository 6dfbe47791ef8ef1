// Translates a DSL function (combine, convert) or constant (identity, init)
// into C statements: one `const T name = value;` per let binding, then the
// result. Every expression of the DSL is pure and total (x / 0 is defined), so
// a let may be evaluated before the conditional it sits in.
#pragma once

#include <string>
#include <vector>

#include "scalar_library.h"
#include "scangen/dsl/spec.h"

namespace scangen::generator::detail {

struct Statement {
  dsl::SourceLoc loc;  // the .scan position it came from (for #line), when known
  std::string text;    // one line, without indentation
};

struct FunctionBody {
  std::vector<std::string> params;    // C names of the parameters, in order
  std::vector<Statement> statements;  // the lets, then `return ...;`
};

// The body of DSL function `f` of the scan `prefix`: its parameters under C
// names, its lets, and the return of its result in storage form.
FunctionBody translate_function(const dsl::Function& f, const std::string& prefix, ScalarLibrary& lib);
// A constant expression as the body of a function without parameters.
FunctionBody translate_constant(const dsl::Expr& e, const std::string& prefix, ScalarLibrary& lib);

}  // namespace scangen::generator::detail
