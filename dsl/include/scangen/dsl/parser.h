// Recursive-descent parser: tokens -> ast::File. Reports every syntax error it
// can find in one run, recovering at the next `;` or `}`.
#pragma once

#include "scangen/dsl/ast.h"
#include "scangen/dsl/diagnostics.h"
#include "scangen/dsl/source.h"

namespace scangen::dsl {

ast::File parse(const SourceFile& file, Diagnostics& diags);

}  // namespace scangen::dsl
