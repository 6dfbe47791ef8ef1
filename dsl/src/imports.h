// `import "HEADER";`: the scans' imported operators resolved into the parse
// tree before checking (dsl/import.h).
#pragma once

#include <string>
#include <vector>

#include "scangen/dsl/ast.h"
#include "scangen/dsl/diagnostics.h"
#include "scangen/dsl/import.h"
#include "scangen/dsl/source.h"

namespace scangen::dsl {

// Replaces each scan's `combine = NAME;` with the resolver's translation (its
// type declarations join the file's), reporting what goes wrong to `diags`;
// a scan whose operator could not be imported is left out. Returns the
// files the resolver read.
std::vector<std::string> resolve_imports(ast::File& file, const SourceFile& source, Diagnostics& diags,
                                         const LoadOptions& options);

}  // namespace scangen::dsl
