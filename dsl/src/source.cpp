#include "scangen/dsl/source.h"

#include <algorithm>

namespace scangen::dsl {

SourceFile::SourceFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string_view SourceFile::line_text(int line) const {
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_);
  std::string_view result = view.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

SourceLoc SourceFile::loc_at(size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line = static_cast<int>(it - line_starts_.begin());
  return {line, static_cast<int>(offset - line_starts_[line - 1]) + 1};
}

}  // namespace scangen::dsl
