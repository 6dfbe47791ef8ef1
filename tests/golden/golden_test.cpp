// Golden files of emitted source: for each spec and each backend one of its
// scans lists, the text `scangen emit SPEC --target T` writes must equal
// EXPECTED/<spec>.<cu|cl> byte for byte.
//
//   scangen_golden_test --root DIR --expected DIR [--actual DIR] SPEC...
//   scangen_golden_test --root DIR --expected DIR --stale SPEC...
//
// SPEC is a path relative to --root and is given to the loader as it is, so
// the #line directives in the text do not depend on where the tree lives.
// The first form compares (on a mismatch it prints the first differing lines
// and, with --actual, writes the emitted text there); the second fails when
// EXPECTED holds a file that no SPEC produces, or two SPECs share a name.
// With SCANGEN_UPDATE_GOLDEN=1 in the environment both forms rewrite (or
// remove) the files instead and say so.
//
// Exit status: 0 all match (or were updated), 1 a mismatch, 2 an error.

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/backend.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"

namespace fs = std::filesystem;
using scangen::generator::Backend;

namespace {

constexpr Backend kBackends[] = {Backend::Cuda, Backend::OpenCL};

struct Error {
  std::string message;
};

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error{"cannot read '" + path.string() + "'"};
  return ss.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw Error{"cannot write '" + path.string() + "'"};
}

bool update_mode() {
  const char* v = std::getenv("SCANGEN_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

// The golden file name of `spec` for `backend`: the spec's stem and the
// backend's extension.
std::string golden_name(const std::string& spec, Backend backend) {
  return fs::path(spec).stem().string() + scangen::generator::source_extension(backend);
}

// What `scangen emit SPEC --target backend` writes: every scan of the file
// that lists the backend, in one text; nullopt when none lists it.
std::optional<std::string> emit_for(const scangen::dsl::Document& doc, Backend backend) {
  std::vector<scangen::generator::Plan> plans;
  for (const scangen::dsl::Spec& spec : doc.specs()) {
    bool listed = false;
    for (scangen::dsl::Target t : spec.targets) listed = listed || scangen::generator::backend_for(t) == backend;
    if (!listed) continue;
    try {
      plans.push_back(scangen::generator::make_plan(spec, backend));
    } catch (const std::invalid_argument& e) {
      throw Error{doc.file().name() + ": " + e.what()};
    }
  }
  if (plans.empty()) return std::nullopt;
  return scangen::generator::emit(plans);
}

std::vector<std::string> split_lines(const std::string& text) {
  // Each line keeps its '\n', so that a missing final newline is a difference.
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    const size_t stop = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, stop - start));
    start = stop;
  }
  return lines;
}

// One line of an edit script: ' ' both, '-' expected only, '+' actual only.
struct Edit {
  char kind;
  size_t a;  // line index in expected (' ' and '-')
  size_t b;  // line index in actual (' ' and '+')
};

// A shortest edit script between a and b (LCS over the lines between their
// common prefix and suffix; one block of changes where that would be large).
std::vector<Edit> diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;

  std::vector<Edit> script;
  for (size_t i = 0; i < pre; ++i) script.push_back({' ', i, i});
  if (n * m <= 4'000'000) {
    // lcs[i][j]: the LCS of a[pre+i ..] and b[pre+j ..] within the middle.
    std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        script.push_back({' ', pre + i++, pre + j++});
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        script.push_back({'-', pre + i++, pre + j});
      } else {
        script.push_back({'+', pre + i, pre + j++});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) script.push_back({'-', pre + i, pre});
    for (size_t j = 0; j < m; ++j) script.push_back({'+', pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) script.push_back({' ', pre + n + k, pre + m + k});
  return script;
}

// The first hunks of a unified diff of expected -> actual, with line numbers,
// at most `max_lines` lines of them.
std::string diff_excerpt(const std::string& expected_name, const std::string& expected, const std::string& actual,
                         size_t max_lines = 60) {
  const std::vector<std::string> a = split_lines(expected), b = split_lines(actual);
  const std::vector<Edit> script = diff_lines(a, b);
  constexpr size_t kContext = 3;

  std::ostringstream out;
  out << "--- " << expected_name << " (expected)\n+++ emitted\n";
  size_t printed = 0, hunks = 0, k = 0;
  bool cut = false;
  while (k < script.size()) {
    while (k < script.size() && script[k].kind == ' ') ++k;
    if (k == script.size()) break;
    // A hunk: from kContext lines before this change to kContext lines after
    // the last change that is at most 2 * kContext lines from the next.
    const size_t begin = k >= kContext ? k - kContext : 0;
    size_t end = k, last_change = k;
    while (end < script.size()) {
      if (script[end].kind != ' ')
        last_change = end;
      else if (end - last_change > 2 * kContext)
        break;
      ++end;
    }
    end = std::min(script.size(), last_change + 1 + kContext);
    size_t a_count = 0, b_count = 0;
    for (size_t i = begin; i < end; ++i) {
      if (script[i].kind != '+') ++a_count;
      if (script[i].kind != '-') ++b_count;
    }
    out << "@@ -" << script[begin].a + 1 << "," << a_count << " +" << script[begin].b + 1 << "," << b_count << " @@\n";
    for (size_t i = begin; i < end; ++i) {
      if (printed == max_lines) {
        cut = true;
        break;
      }
      const Edit& e = script[i];
      const std::string& line = e.kind == '+' ? b[e.b] : a[e.a];
      out << e.kind << line;
      if (line.empty() || line.back() != '\n') out << "\n\\ No newline at end of file\n";
      ++printed;
    }
    ++hunks;
    if (cut) break;
    k = end;
  }
  size_t changed = 0;
  for (const Edit& e : script) changed += e.kind != ' ';
  if (cut) out << "... (diff cut after " << max_lines << " lines; " << changed << " lines differ in all)\n";
  if (hunks == 0) out << "(the texts differ, but not line by line)\n";
  return out.str();
}

struct Options {
  fs::path root, expected, actual;
  bool stale = false;
  std::vector<std::string> specs;
};

// Compares (or updates) the golden files of one spec; true when they match.
bool check_spec(const Options& o, const std::string& spec, bool update) {
  const std::optional<std::string> text = read_file(o.root / spec);
  if (!text) throw Error{"cannot read '" + (o.root / spec).string() + "'"};
  const scangen::dsl::Document doc = scangen::dsl::load(spec, *text);
  if (!doc.ok()) throw Error{"'" + spec + "' does not check:\n" + doc.diagnostics().render()};

  bool ok = true;
  for (Backend backend : kBackends) {
    const std::string name = golden_name(spec, backend);
    const fs::path path = o.expected / name;
    const std::optional<std::string> emitted = emit_for(doc, backend);
    const std::optional<std::string> expected = read_file(path);
    const std::string shown = o.expected.filename().string() + "/" + name;
    if (!emitted) {
      if (!expected) continue;
      if (update) {
        fs::remove(path);
        std::cout << "removed " << path.string() << " (" << spec << " no longer lists " << to_string(backend) << ")\n";
      } else {
        std::cout << "FAIL " << shown << ": no scan of " << spec << " lists " << to_string(backend)
                  << ", but the golden file exists\n";
        ok = false;
      }
      continue;
    }
    if (expected == emitted) {
      std::cout << "ok   " << shown << " (" << spec << ", " << to_string(backend) << ")\n";
      continue;
    }
    if (update) {
      write_file(path, *emitted);
      std::cout << (expected ? "updated " : "created ") << path.string() << "\n";
      continue;
    }
    ok = false;
    if (!expected) {
      std::cout << "FAIL " << shown << ": missing (" << spec << ", " << to_string(backend) << ")\n";
    } else {
      std::cout << "FAIL " << shown << ": the emitted text of " << spec << " for " << to_string(backend) << " differs\n"
                << diff_excerpt(shown, *expected, *emitted);
    }
    if (!o.actual.empty()) {
      write_file(o.actual / name, *emitted);
      std::cout << "  emitted text written to " << (o.actual / name).string() << "\n";
    }
  }
  return ok;
}

// Fails on golden files that no spec produces (and on two specs of one name).
bool check_stale(const Options& o, bool update) {
  std::map<std::string, std::string> owner;  // stem -> spec
  bool ok = true;
  for (const std::string& spec : o.specs) {
    const std::string stem = fs::path(spec).stem().string();
    auto [it, fresh] = owner.emplace(stem, spec);
    if (!fresh) {
      std::cout << "FAIL " << spec << " and " << it->second << " would share the golden files " << stem
                << ".*; rename one\n";
      ok = false;
    }
  }
  std::set<std::string> known;
  for (const auto& [stem, spec] : owner)
    for (Backend backend : kBackends) known.insert(stem + scangen::generator::source_extension(backend));
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(o.expected))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    if (known.count(f.filename().string())) continue;
    if (update) {
      fs::remove(f);
      std::cout << "removed " << f.string() << " (no spec produces it)\n";
    } else {
      std::cout << "FAIL " << f.string() << ": no spec produces it (remove it, or run with SCANGEN_UPDATE_GOLDEN=1)\n";
      ok = false;
    }
  }
  if (ok)
    std::cout << "ok   " << o.expected.string() << ": every file belongs to one of " << o.specs.size() << " specs\n";
  return ok;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error{a + " needs a value"};
      return argv[++i];
    };
    if (a == "--root")
      o.root = value();
    else if (a == "--expected")
      o.expected = value();
    else if (a == "--actual")
      o.actual = value();
    else if (a == "--stale")
      o.stale = true;
    else if (a.size() > 1 && a[0] == '-')
      throw Error{"unknown option '" + a + "'"};
    else
      o.specs.push_back(a);
  }
  if (o.root.empty() || o.expected.empty() || o.specs.empty())
    throw Error{"usage: scangen_golden_test --root DIR --expected DIR [--actual DIR] [--stale] SPEC..."};
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const bool update = update_mode();
    bool ok = true;
    if (o.stale) {
      ok = check_stale(o, update);
    } else {
      for (const std::string& spec : o.specs) ok = check_spec(o, spec, update) && ok;
    }
    if (!ok)
      std::cout << "\nIf the change is intended, refresh the golden files: SCANGEN_UPDATE_GOLDEN=1 ctest -R '^golden/' "
                   "(tests/golden/README.md)\n";
    return ok ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "scangen_golden_test: error: " << e.message << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scangen_golden_test: error: " << e.what() << "\n";
    return 2;
  }
}
