// Name resolution, type checking and defaulting: ast::File -> Specs.
#pragma once

#include <vector>

#include "scangen/dsl/ast.h"
#include "scangen/dsl/diagnostics.h"
#include "scangen/dsl/spec.h"

namespace scangen::dsl {

// Returns one Spec per scan that checked cleanly; every problem goes to `diags`.
std::vector<Spec> check(const ast::File& file, Diagnostics& diags);

}  // namespace scangen::dsl
