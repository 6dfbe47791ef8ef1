// scangen's DSL front end: text -> tokens -> ast::File -> Specs.
//
//   auto doc = scangen::dsl::load("sum.scan", text);
//   if (!doc.ok()) std::cerr << doc.diagnostics().render();
//   for (const Spec& s : doc.specs()) ...
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scangen/dsl/ast.h"
#include "scangen/dsl/checker.h"
#include "scangen/dsl/diagnostics.h"
#include "scangen/dsl/import.h"
#include "scangen/dsl/parser.h"
#include "scangen/dsl/source.h"
#include "scangen/dsl/spec.h"
#include "scangen/dsl/types.h"

namespace scangen::dsl {

// A parsed and checked .scan file. Movable; owns its source text.
class Document {
 public:
  bool ok() const { return !diags_->has_errors(); }
  const SourceFile& file() const { return *file_; }
  const Diagnostics& diagnostics() const { return *diags_; }
  const ast::File& ast() const { return ast_; }
  const std::vector<Spec>& specs() const { return specs_; }
  // The scan called `name`, or null.
  const Spec* find(std::string_view name) const;
  // The files an `import` read (the headers and what they include), for a
  // build's dependencies; empty without imports.
  const std::vector<std::string>& imported_files() const { return imported_files_; }

 private:
  friend Document load(std::string name, std::string text, const LoadOptions& options);
  std::unique_ptr<SourceFile> file_;
  std::unique_ptr<Diagnostics> diags_;
  ast::File ast_;
  std::vector<Spec> specs_;
  std::vector<std::string> imported_files_;
};

// The most bytes a scan file may hold. A scan is a few KB; a file past this
// is refused before it is parsed (and the CLI and the runtime do not read
// one past it at all), so that a wrong file given by mistake costs nothing.
constexpr size_t kMaxSourceBytes = size_t{4} << 20;  // 4 MiB

// Parses and checks `text`; `name` is used in diagnostics and #line directives.
// Text of more than kMaxSourceBytes is refused with one error, unparsed.
Document load(std::string name, std::string text);
// The same, with a resolver for `import "HEADER";` (dsl/import.h); `name`
// is also the folder an import's relative path starts from.
Document load(std::string name, std::string text, const LoadOptions& options);

}  // namespace scangen::dsl
