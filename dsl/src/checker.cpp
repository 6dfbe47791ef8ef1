// The checker's entry point: ast::File -> Specs. The checker's parts are
// listed in checker_internal.h.
#include <algorithm>
#include <cctype>
#include <utility>

#include "checker_internal.h"

namespace scangen::dsl {

namespace checking {

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string lower(std::string_view v) {
  std::string out(v);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

// Only a clear winner is suggested: close enough for the name's length, not
// a rewrite of every letter, and no other candidate equally close.
std::string suggest(std::string_view name, const std::vector<std::string>& candidates) {
  // The names a user of C, CUDA, NumPy or PyTorch would write for ours,
  // suggested where they are among the candidates.
  static const std::pair<const char*, const char*> kSynonyms[] = {
      {"sum", "add"},     {"plus", "add"},    {"prod", "mul"},     {"product", "mul"},  {"multiply", "mul"},
      {"times", "mul"},   {"minimum", "min"}, {"maximum", "max"},  {"bitand", "and"},   {"bitor", "or"},
      {"bitxor", "xor"},  {"int", "i32"},     {"int32", "i32"},    {"int32_t", "i32"},  {"unsigned", "u32"},
      {"uint", "u32"},    {"uint32", "u32"},  {"uint32_t", "u32"}, {"long", "i64"},     {"int64", "i64"},
      {"int64_t", "i64"}, {"uint64", "u64"},  {"uint64_t", "u64"}, {"size_t", "u64"},   {"short", "i16"},
      {"int16", "i16"},   {"int16_t", "i16"}, {"uint16", "u16"},   {"uint16_t", "u16"}, {"char", "i8"},
      {"int8", "i8"},     {"int8_t", "i8"},   {"uint8", "u8"},     {"uint8_t", "u8"},   {"uchar", "u8"},
      {"byte", "u8"},     {"float", "f32"},   {"float32", "f32"},  {"double", "f64"},   {"float64", "f64"},
      {"half", "f16"},    {"float16", "f16"}, {"__half", "f16"},   {"long long", "i64"}};
  const std::string lowered = lower(name);
  for (const auto& [from, to] : kSynonyms) {
    if (lowered == from && std::find(candidates.begin(), candidates.end(), to) != candidates.end())
      return std::string("; did you mean '") + to + "'?";
  }
  size_t limit = name.size() <= 2 ? 1 : name.size() <= 5 ? 2 : 3;
  std::string best;
  size_t best_d = limit + 1;
  bool tie = false;
  for (const std::string& c : candidates) {
    size_t d = lower(name) == lower(c) ? 0 : edit_distance(name, c);
    if (d >= name.size() && d > 0) continue;
    if (d < best_d) {
      best_d = d;
      best = c;
      tie = false;
    } else if (d == best_d && c != best) {
      tie = true;
    }
  }
  return best.empty() || tie ? "" : "; did you mean '" + best + "'?";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::vector<std::string> scalar_type_names() {
  std::vector<std::string> out;
#define X(e, name, bytes, f, s) \
  if (ScalarKind::e != ScalarKind::Bool) out.push_back(name);
  SCANGEN_SCALAR_KINDS(X)
#undef X
  return out;
}

std::vector<Spec> Checker::run(const ast::File& file) {
  declare_types(file);
  std::vector<Spec> specs;
  std::map<std::string, SourceLoc> scan_names;
  for (const ast::ScanDecl& scan : file.scans) {
    auto [it, inserted] = scan_names.emplace(scan.name, scan.loc);
    if (!inserted) {
      error(scan.loc, "duplicate scan name '" + scan.name + "'; every scan in a file needs its own name");
      note(it->second, "'" + scan.name + "' was first declared here");
      continue;
    }
    int errors_before = diags_.error_count();
    Spec spec = check_scan(scan);
    // Checks that depend on something already reported (a broken type, say)
    // are skipped quietly, so "no new errors" alone does not mean complete.
    bool complete = spec.type.valid() && spec.input.valid() && spec.combine.body && spec.identity && spec.init &&
                    (spec.input == spec.type || spec.convert);
    if (diags_.error_count() == errors_before && !scan.had_syntax_errors && complete) specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace checking

std::vector<Spec> check(const ast::File& file, Diagnostics& diags) { return checking::Checker(diags).run(file); }

}  // namespace scangen::dsl
