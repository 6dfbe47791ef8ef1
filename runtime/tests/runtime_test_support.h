// What the runtime's CUDA and OpenCL tests share: a cache directory of the
// test's own, the random seed, and the check of a scan's output against the
// CPU reference.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace scangen::test::runtime {

// A cache directory of the test's own (SCANGEN_CACHE_DIR), the disk cache on.
struct TempCache {
  std::filesystem::path dir;
  TempCache() {
    std::string t = (std::filesystem::temp_directory_path() / "scangen-rt-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    dir = t;
    setenv("SCANGEN_CACHE_DIR", dir.c_str(), 1);
    unsetenv("SCANGEN_CACHE_DISABLE");
  }
  ~TempCache() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    unsetenv("SCANGEN_CACHE_DIR");
  }
  TempCache(const TempCache&) = delete;
  TempCache& operator=(const TempCache&) = delete;
};

// SCANGEN_TEST_SEED, or a fresh one.
inline uint64_t seed() {
  if (const char* s = std::getenv("SCANGEN_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// `got`, the one output of `s` (inclusive or exclusive) for the n inputs
// `in`, is the reference's, element by element.
inline void check_output(const dsl::Spec& s, const std::vector<uint8_t>& in, uint64_t n,
                         const std::vector<uint8_t>& got) {
  const size_t es = s.type.size();
  const auto want = ref::Evaluator(s).scan(in.data(), n);
  const std::vector<uint8_t>& w = s.has_inclusive() ? want.inclusive : want.exclusive;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i)
    if (!ref::values_match(s.type, got.data() + i * es, w.data() + i * es, {})) ++bad;
  INFO("scan '" << s.name << "', n = " << n << ": " << bad << " wrong");
  CHECK(bad == 0);
}

}  // namespace scangen::test::runtime
