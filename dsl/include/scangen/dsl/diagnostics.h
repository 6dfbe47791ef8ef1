// Diagnostics in the form people know from C compilers:
//   file:line:col: error: message
//     the source line
//          ^
#pragma once

#include <string>
#include <vector>

#include "scangen/dsl/source.h"

namespace scangen::dsl {

enum class Severity { Error, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLoc loc;
  std::string message;
  // `message` is whole diagnostics rendered elsewhere (an imported C++
  // header's, at their own file:line:col), printed as they are; `loc` is
  // where they sort in this file.
  bool rendered = false;
};

class Diagnostics {
 public:
  // Errors kept per file, as compilers stop at a limit: the rest are counted
  // (has_errors, error_count) and render() says how many were left out.
  static constexpr int kMaxErrors = 50;
  // A source line longer than this is echoed as a window around the caret.
  static constexpr int kMaxEchoedLine = 160;

  explicit Diagnostics(const SourceFile& file) : file_(&file) {}

  void error(SourceLoc loc, std::string message);
  // A note attached to the error just reported (for "first defined here").
  void note(SourceLoc loc, std::string message);
  // `errors` errors in another file, already rendered (an imported header's),
  // sorted at `loc`: the import that read it.
  void rendered(SourceLoc loc, std::string text, int errors);

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  // In the order they were reported.
  const std::vector<Diagnostic>& all() const { return diags_; }
  // In file order (each note stays after its error).
  std::vector<Diagnostic> sorted() const;
  const SourceFile& file() const { return *file_; }

  // Every diagnostic, rendered with its source line and a caret.
  std::string render() const;
  static std::string render(const SourceFile& file, const Diagnostic& d);

 private:
  const SourceFile* file_;
  std::vector<Diagnostic> diags_;
  int error_count_ = 0;
  bool dropping_ = false;  // the last error was over the limit: so are its notes
};

}  // namespace scangen::dsl
