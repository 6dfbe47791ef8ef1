#include "scangen/dsl/diagnostics.h"

#include <algorithm>
#include <utility>

namespace scangen::dsl {

void Diagnostics::error(SourceLoc loc, std::string message) {
  dropping_ = error_count_ >= kMaxErrors;
  if (!dropping_) diags_.push_back({Severity::Error, loc, std::move(message)});
  ++error_count_;
}

void Diagnostics::note(SourceLoc loc, std::string message) {
  if (!dropping_) diags_.push_back({Severity::Note, loc, std::move(message)});
}

void Diagnostics::rendered(SourceLoc loc, std::string text, int errors) {
  dropping_ = error_count_ >= kMaxErrors;
  if (!dropping_) diags_.push_back({Severity::Error, loc, std::move(text), true});
  error_count_ += errors > 0 ? errors : 1;
}

std::string Diagnostics::render(const SourceFile& file, const Diagnostic& d) {
  if (d.rendered) return d.message;
  std::string out = file.name();
  if (d.loc.valid()) out += ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col);
  out += d.severity == Severity::Error ? ": error: " : ": note: ";
  out += d.message;
  out += '\n';
  if (!d.loc.valid()) return out;
  std::string_view line = file.line_text(d.loc.line);
  int caret = d.loc.col - 1;  // in `line`
  // A long line: a window around the caret, "..." where it was cut, so that
  // the output grows with the number of errors, not with the line's length.
  std::string before, after;
  if (line.size() > static_cast<size_t>(kMaxEchoedLine)) {
    const int half = kMaxEchoedLine / 2;
    const int first = std::max(0, std::min(caret - half, static_cast<int>(line.size()) - kMaxEchoedLine));
    if (first > 0) before = "...";
    if (static_cast<size_t>(first + kMaxEchoedLine) < line.size()) after = "...";
    line = line.substr(static_cast<size_t>(first), static_cast<size_t>(kMaxEchoedLine));
    caret -= first;
  }
  out += "  " + before;
  out += line;
  out += after + "\n  ";
  out += std::string(before.size(), ' ');
  // Keep tabs so the caret lines up under the same column in a terminal.
  for (int i = 0; i < caret && i < static_cast<int>(line.size()); ++i) out += line[i] == '\t' ? '\t' : ' ';
  out += "^\n";
  return out;
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  // Each error with the notes that follow it, ordered by the error's position;
  // the parser and checker run one after the other, the reader wants file order.
  std::vector<std::vector<Diagnostic>> groups;
  for (const Diagnostic& d : diags_) {
    if (d.severity == Severity::Note && !groups.empty())
      groups.back().push_back(d);
    else
      groups.push_back({d});
  }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a[0].loc.line, a[0].loc.col) < std::make_pair(b[0].loc.line, b[0].loc.col);
  });
  std::vector<Diagnostic> out;
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

std::string Diagnostics::render() const {
  std::string out;
  for (const Diagnostic& d : sorted()) out += render(*file_, d);
  const int left_out = error_count_ - std::min(error_count_, kMaxErrors);
  if (left_out > 0) {
    out += file_->name() + ": error: too many errors: " + std::to_string(left_out) + " more not shown (the first " +
           std::to_string(kMaxErrors) + " are above; fix them first)\n";
  }
  return out;
}

}  // namespace scangen::dsl
