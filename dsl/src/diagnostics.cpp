#include "scangen/dsl/diagnostics.h"

#include <algorithm>
#include <utility>

namespace scangen::dsl {

void Diagnostics::error(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Error, loc, std::move(message)});
  ++error_count_;
}

void Diagnostics::note(SourceLoc loc, std::string message) {
  diags_.push_back({Severity::Note, loc, std::move(message)});
}

std::string Diagnostics::render(const SourceFile& file, const Diagnostic& d) {
  std::string out = file.name();
  if (d.loc.valid()) out += ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col);
  out += d.severity == Severity::Error ? ": error: " : ": note: ";
  out += d.message;
  out += '\n';
  if (!d.loc.valid()) return out;
  std::string_view line = file.line_text(d.loc.line);
  out += "  ";
  out += line;
  out += "\n  ";
  // Keep tabs so the caret lines up under the same column in a terminal.
  for (int i = 0; i + 1 < d.loc.col && i < static_cast<int>(line.size()); ++i) out += line[i] == '\t' ? '\t' : ' ';
  out += "^\n";
  return out;
}

std::vector<Diagnostic> Diagnostics::sorted() const {
  // Each error with the notes that follow it, ordered by the error's position;
  // the parser and checker run one after the other, the reader wants file order.
  std::vector<std::vector<Diagnostic>> groups;
  for (const Diagnostic& d : diags_) {
    if (d.severity == Severity::Note && !groups.empty()) groups.back().push_back(d);
    else groups.push_back({d});
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
  return out;
}

}  // namespace scangen::dsl
