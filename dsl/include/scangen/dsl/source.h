// A source file held in memory, and positions inside it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scangen::dsl {

// 1-based line and column; {0, 0} means "no position".
struct SourceLoc {
  int line = 0;
  int col = 0;
  bool valid() const { return line > 0; }
};

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // The text of line `line` (1-based) without its newline; empty when out of range.
  std::string_view line_text(int line) const;
  SourceLoc loc_at(size_t offset) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

}  // namespace scangen::dsl
