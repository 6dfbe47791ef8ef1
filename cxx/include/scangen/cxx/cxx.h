// scangen's C++ front end: an element type and an operator written in C++
// (a struct and a CUB-style functor or a free function in a header), read
// with Clang libTooling and written out as the equivalent .scan text.
//
//   scangen::cxx::ImportOptions o;
//   o.level = "device";
//   std::string scan = scangen::cxx::import("ops.h", "Affine", "AffineOp", o);
//
// The library exists only where scangen was built with Clang 14
// (libclang-cpp14-dev, llvm-14-dev); docs/cxx.md describes the subset of C++
// it translates.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "scangen/dsl/import.h"

namespace scangen::cxx {

struct ImportOptions {
  // The identity as a .scan expression of the type, used when the functor
  // has no `identity` member ("" for none).
  std::string identity;
  // The scan's name; "" for the operator's name.
  std::string name;
  // `level = LEVEL;` when not "" (warp, warp(16), block, device).
  std::string level;
  // Further settings written into the scan block as they are, each
  // followed by ';' ("algorithm = raking", "outputs = aggregate").
  std::vector<std::string> settings;
  // A key comparison (bool eq(K a, K b)) in the header: the scan is by key
  // (`segments = keys; key = K; key_equal(a, b) = ...;`); "" for none.
  std::string key_equal;
  // Extra arguments for Clang: -I, -D, -std...
  std::vector<std::string> clang_args;
  // The scan gives its identity itself: none is looked for or written.
  bool identity_in_spec = false;
  // How else to give the identity, for the message when there is none.
  std::string identity_hint = "pass --identity EXPR";
};

// The header cannot be translated: `diagnostics` holds every problem found,
// each as "file:line:col: error: message", the source line and a caret.
struct ImportError : std::runtime_error {
  ImportError(const std::string& text, int count) : std::runtime_error(text), diagnostics(text), error_count(count) {}
  std::string diagnostics;
  int error_count;
};

// The .scan text of a scan over `type_name` (a scalar type's C++ spelling or
// a struct declared in the header) whose operator is `op_name` (a functor
// struct with operator() or a free function in the header), or an
// ImportError.
std::string import(const std::string& header_path, const std::string& type_name, const std::string& op_name,
                   const ImportOptions& options);

// The resolver of `import "HEADER";` in .scan files (scangen/dsl/import.h):
// the headers parsed once together, then each requested operator translated
// as import() does, with no name, level or settings.
dsl::CxxImportResult import_operators(const std::vector<dsl::CxxHeader>& headers,
                                      const std::vector<dsl::CxxOperatorRequest>& requests);

}  // namespace scangen::cxx
