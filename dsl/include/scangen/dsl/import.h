// `import "ops.h";` in a .scan file: the operator of a scan taken from C++.
//
//   import "ops.h" with "-Iinclude";
//   scan s { type = Affine; combine = AffineOp; level = device; }
//
// The parser records each import (ast::File::imports); before checking,
// load() asks an ImportResolver to translate every `combine = NAME;` of the
// file's scans, and puts the translated type declarations and operator
// items in their place. The dsl library knows no C++: the resolver is
// scangen's C++ front end (cxx/, Clang libTooling), given by the program
// that loads the file (LoadOptions); without one, an import is an error at
// its line and column that says how to get it. docs/cxx.md describes it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "scangen/dsl/source.h"

namespace scangen::dsl {

// One `import "HEADER" [with "ARG", ...];`.
struct CxxHeader {
  std::string path;               // as written, resolved against the .scan file's folder
  std::vector<std::string> args;  // for Clang; a relative -I is resolved the same way
};

// One scan's `combine = NAME;` (or `combine = "ns::NAME";`), or its
// `key_equal = NAME;`: a comparison of two keys, `bool eq(K a, K b)`.
struct CxxOperatorRequest {
  std::string op;                 // the functor, function or lambda variable
  bool identity_in_spec = false;  // the scan gives `identity = ...;` itself
  bool key_equal = false;         // `key_equal = NAME;`: the text is `key = K; key_equal(a, b) = ...;`
};

// What the resolver made of one request: `text` is .scan text, the type
// declarations and one `scan _ { type = T; combine(x, y) ...; identity = ...; }`
// (or `op = add;`); else `not_found` (reported at the request in the .scan
// file) or `diagnostics` (rendered at their place in the header, with the
// source line and caret) with `errors` errors.
struct CxxOperatorResult {
  std::string text;
  std::string not_found;
  std::string diagnostics;
  int errors = 0;
};

struct CxxImportResult {
  std::vector<CxxOperatorResult> operators;  // one per request, in order
  std::vector<std::string> files_read;       // every file the C++ compiler read (for depfiles)
  std::string diagnostics;                   // the headers do not compile: rendered, `errors` of them
  int errors = 0;
};

using ImportResolver =
    std::function<CxxImportResult(const std::vector<CxxHeader>&, const std::vector<CxxOperatorRequest>&)>;

struct LoadOptions {
  // Translates imported C++ operators; empty where none is available.
  ImportResolver resolve_imports;
  // What an import says when there is no resolver; "" for the default, which
  // names the scangen program's C++ front end.
  std::string no_resolver;
};

}  // namespace scangen::dsl
