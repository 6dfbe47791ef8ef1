// Runs one error case: a .scan file whose comments state the diagnostics the
// front end must report, one per line:
//
//   # error: LINE:COL: text that the message contains
//
// The test passes when the errors reported are exactly these (same count,
// each at its position, each containing its text). Notes are not compared.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"

namespace {

struct Expected {
  int line = 0;
  int col = 0;
  std::string text;
  bool matched = false;
};

std::vector<Expected> expectations(const std::string& text) {
  std::vector<Expected> out;
  std::istringstream in(text);
  std::string line;
  const std::string tag = "# error: ";
  while (std::getline(in, line)) {
    size_t at = line.find(tag);
    if (at == std::string::npos) continue;
    Expected e;
    std::string rest = line.substr(at + tag.size());
    size_t c1 = rest.find(':');
    size_t c2 = rest.find(':', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos) continue;
    e.line = std::stoi(rest.substr(0, c1));
    e.col = std::stoi(rest.substr(c1 + 1, c2 - c1 - 1));
    e.text = rest.substr(c2 + 1);
    while (!e.text.empty() && e.text.front() == ' ') e.text.erase(e.text.begin());
    while (!e.text.empty() && (e.text.back() == ' ' || e.text.back() == '\r')) e.text.pop_back();
    out.push_back(e);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: scangen_error_case FILE.scan\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::vector<Expected> expected = expectations(ss.str());
  if (expected.empty()) {
    std::cerr << argv[1] << ": states no '# error: LINE:COL: text' expectation\n";
    return 1;
  }
  scangen::dsl::Document doc = scangen::dsl::load(argv[1], ss.str());
  bool ok = true;
  for (const scangen::dsl::Diagnostic& d : doc.diagnostics().all()) {
    if (d.severity != scangen::dsl::Severity::Error) continue;
    bool found = false;
    for (Expected& e : expected) {
      if (!e.matched && e.line == d.loc.line && e.col == d.loc.col && d.message.find(e.text) != std::string::npos) {
        e.matched = found = true;
        break;
      }
    }
    if (!found) {
      std::cerr << "unexpected diagnostic:\n" << scangen::dsl::Diagnostics::render(doc.file(), d);
      ok = false;
    }
  }
  for (const Expected& e : expected) {
    if (!e.matched) {
      std::cerr << "missing diagnostic: " << e.line << ":" << e.col << ": ... " << e.text << " ...\n";
      ok = false;
    }
  }
  if (!ok) {
    std::cerr << "\nall diagnostics:\n" << doc.diagnostics().render();
    return 1;
  }
  std::cout << "ok: " << expected.size() << " expected error(s) reported\n";
  return 0;
}
