// Test tiers. `bash scripts/test` runs the quick tier: every sweep keeps a
// seeded random sample of its cases in which every value of every dimension
// the sweep has (shape, segments, reverse, fused output, level, algorithm,
// mode, type class: spec_features) appears
// at least once, so that every kind of kernel is still built and run on
// every run; their combinations are drawn, so that run after run every case
// is. `bash scripts/test --full` (SCANGEN_TEST_FULL=1) keeps every case;
// scripts/gpu-check always does.
//
// The seed is SCANGEN_TEST_SEED where it is set (scripts/test sets it and
// prints it in its summary), else a fresh one per process; the same seed
// draws the same sample and the same random inputs (operator_sweep.h's
// test_seed reads the same variable).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/dsl/spec.h"

namespace scangen::test {

// Whether every case runs (SCANGEN_TEST_FULL set, and not to 0).
inline bool full_tier() {
  const char* e = std::getenv("SCANGEN_TEST_FULL");
  return e != nullptr && *e != '\0' && std::strcmp(e, "0") != 0;
}

// SCANGEN_TEST_SEED, or one fresh seed for the whole process.
inline uint64_t tier_seed() {
  static const uint64_t seed = [] {
    if (const char* s = std::getenv("SCANGEN_TEST_SEED")) return static_cast<uint64_t>(std::strtoull(s, nullptr, 0));
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}

// FNV-1a: a sweep's and a class's own stream of the seed, the same on every
// platform (std::hash is not).
inline uint64_t tier_hash(const std::string& s, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The type class of a scan's element: what the kernels treat differently.
inline const char* type_class(const dsl::Type& t) {
  if (t.is_struct()) return "struct";
  switch (t.scalar_kind()) {
    case dsl::ScalarKind::F16:
      return "f16";
    case dsl::ScalarKind::F32:
    case dsl::ScalarKind::F64:
      return "float";
    default:
      return dsl::scalar_size(t.scalar_kind()) < 4 ? "narrow int" : "int";
  }
}

// What a spec is, dimension by dimension ("mode=both", "type=struct", ...):
// the dimensions every run covers. Its options (init, aggregates, running
// totals, a converted input) are left to the draw.
inline std::vector<std::string> spec_features(const dsl::Spec& s) {
  std::vector<std::string> f = {
      std::string("shape=") + dsl::to_string(s.shape),
      std::string("segments=") + dsl::to_string(s.segments) + (s.head_flags ? "+head_flags" : ""),
      std::string("reverse=") + (s.reverse ? "yes" : "no"),
      std::string("scatter=") + (s.has_scatter() || !s.scatter_named.empty() ? "yes" : "no"),
      std::string("level=") + dsl::to_string(s.level),
      std::string("algorithm=") + dsl::to_string(s.algorithm),
      std::string("mode=") + dsl::to_string(s.mode),
      std::string("type=") + type_class(s.type),
  };
  return f;
}

// The features of a scan given as text (its first scan), and the first word
// of its name (select_, partition_, ...: what the sweeps name their kinds
// by). Text that does not load is a feature of its own, so that the sweep
// still runs it and reports why.
inline std::vector<std::string> text_features(const std::string& text) {
  const dsl::Document doc = dsl::load("sample.scan", text);
  if (!doc.ok() || doc.specs().empty()) return {text};
  const dsl::Spec& s = doc.specs().front();
  std::vector<std::string> f = spec_features(s);
  f.push_back("kind=" + s.name.substr(0, s.name.find('_')));
  return f;
}

// In the quick tier, a sample in which every feature of `cases`
// (features_of(case): a list of strings) appears at least once, and at
// least `at_least` cases: the cases are taken in an order drawn with the
// seed, each kept where it brings a feature not yet kept. They stay in their
// first order. In the full tier, all. Prints one line saying what it kept,
// so that a log shows the sample.
template <class Case, class FeaturesOf>
std::vector<Case> sample_cases(std::vector<Case> cases, const std::string& sweep, FeaturesOf features_of,
                               size_t at_least = 1) {
  if (full_tier() || cases.empty()) return cases;
  std::vector<size_t> order(cases.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(tier_hash(sweep, tier_seed()));
  std::shuffle(order.begin(), order.end(), rng);
  std::set<std::string> covered;
  std::vector<bool> keep(cases.size(), false);
  size_t kept_count = 0;
  for (size_t i : order) {
    bool brings = false;
    for (const std::string& f : features_of(cases[i])) brings |= covered.insert(f).second;
    if (brings || kept_count < at_least) {
      keep[i] = true;
      ++kept_count;
    }
  }
  std::vector<Case> kept;
  for (size_t i = 0; i < cases.size(); ++i)
    if (keep[i]) kept.push_back(std::move(cases[i]));
  std::printf(
      "quick tier: %s keeps %zu of %zu cases (every one of %zu features), seed %llu; "
      "SCANGEN_TEST_FULL=1 runs all\n",
      sweep.c_str(), kept.size(), cases.size(), covered.size(), static_cast<unsigned long long>(tier_seed()));
  std::fflush(stdout);
  return kept;
}

// Only the features of the named dimensions ("mode", "type", ...), for a
// sweep whose every case costs much: it covers those every run, the rest
// over runs.
inline std::vector<std::string> only_dimensions(const std::vector<std::string>& features,
                                                const std::vector<std::string>& dimensions) {
  std::vector<std::string> out;
  for (const std::string& f : features)
    for (const std::string& d : dimensions)
      if (f.compare(0, d.size() + 1, d + "=") == 0) out.push_back(f);
  return out;
}

// The same for spec texts, by text_features (all of them, or those of
// `dimensions`).
inline std::vector<std::string> sample_texts(std::vector<std::string> texts, const std::string& sweep,
                                             const std::vector<std::string>& dimensions = {}) {
  return sample_cases(std::move(texts), sweep, [&](const std::string& t) {
    return dimensions.empty() ? text_features(t) : only_dimensions(text_features(t), dimensions);
  });
}

// The same for anything with a spec (ScanCase, SweepSpec, ...).
template <class Case>
std::vector<Case> sample_spec_cases(std::vector<Case> cases, const std::string& sweep, size_t at_least = 1) {
  return sample_cases(
      std::move(cases), sweep, [](const Case& c) { return spec_features(c.spec); }, at_least);
}

}  // namespace scangen::test
