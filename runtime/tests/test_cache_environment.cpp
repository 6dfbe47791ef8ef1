// The runtime's disk cache and where it lives: the directory, the bound and
// the switch from the environment, directories that cannot be made or
// written, a removed directory, threads on one directory. Keys and the
// entries themselves: test_cache.cpp; several processes and the memory
// cache: test_cache_sharing.cpp. Every test works in its own temporary
// directory.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cache_test_support.h"

using namespace scangen::test::cache;

TEST_CASE("cache: the directory, the bound and the switch come from the environment", "[runtime][cache]") {
  CleanEnv clean;
  TempDir dir;

  SECTION("SCANGEN_CACHE_DIR first") {
    ScopedEnv a("SCANGEN_CACHE_DIR", dir.str() + "/explicit");
    ScopedEnv b("XDG_CACHE_HOME", dir.str() + "/xdg");
    ScopedEnv c("HOME", dir.str() + "/home");
    const auto options = DiskCache::Options::from_environment();
    CHECK(options.directory == dir.str() + "/explicit");
    CHECK_FALSE(options.disabled);
    DiskCache cache(options);
    CHECK(cache.enabled());
    CHECK(fs::is_directory(dir.path() / "explicit"));
  }
  SECTION("then $XDG_CACHE_HOME/scangen") {
    ScopedEnv b("XDG_CACHE_HOME", dir.str() + "/xdg");
    ScopedEnv c("HOME", dir.str() + "/home");
    CHECK(DiskCache::Options::from_environment().directory == dir.str() + "/xdg/scangen");
  }
  SECTION("a relative XDG_CACHE_HOME is ignored") {
    ScopedEnv b("XDG_CACHE_HOME", "relative/xdg");
    ScopedEnv c("HOME", dir.str() + "/home");
    CHECK(DiskCache::Options::from_environment().directory == dir.str() + "/home/.cache/scangen");
  }
  SECTION("then $HOME/.cache/scangen") {
    ScopedEnv c("HOME", dir.str() + "/home");
    const auto options = DiskCache::Options::from_environment();
    CHECK(options.directory == dir.str() + "/home/.cache/scangen");
    DiskCache cache(options);
    CHECK(cache.enabled());
    CHECK(fs::is_directory(dir.path() / "home" / ".cache" / "scangen"));
  }
  SECTION("no directory at all: disabled") {
    ScopedEnv c("HOME", std::nullopt);
    const auto options = DiskCache::Options::from_environment();
    CHECK(options.disabled);
    DiskCache cache(options);
    CHECK_FALSE(cache.enabled());
    CHECK_FALSE(cache.disabled_reason().empty());
  }
  SECTION("SCANGEN_CACHE_MAX_BYTES") {
    ScopedEnv a("SCANGEN_CACHE_DIR", dir.str());
    CHECK(DiskCache::Options::from_environment().max_bytes == DiskCache::kDefaultMaxBytes);
    CHECK(DiskCache::kDefaultMaxBytes == 256u << 20);
    const std::vector<std::pair<std::string, std::uint64_t>> cases = {
        {"12345", 12345}, {"64K", 64u << 10}, {"3m", 3u << 20}, {"2GiB", 2ull << 30}};
    for (const auto& [text, bytes] : cases) {
      ScopedEnv m("SCANGEN_CACHE_MAX_BYTES", text);
      CAPTURE(text);
      CHECK(DiskCache::Options::from_environment().max_bytes == bytes);
      CHECK_FALSE(DiskCache::Options::from_environment().disabled);
    }
    // What is no size turns the cache off and says why (it was ignored, silently).
    for (const char* text : {"0", "lots", "abc", "-5", "1e9", "99999999999999999999999", "10T"}) {
      ScopedEnv m("SCANGEN_CACHE_MAX_BYTES", text);
      CAPTURE(text);
      const auto options = DiskCache::Options::from_environment();
      CHECK(options.disabled);
      CHECK_THAT(options.disabled_reason,
                 Catch::Contains(std::string("SCANGEN_CACHE_MAX_BYTES='") + text + "' is not a size"));
      DiskCache cache(options);
      CHECK_FALSE(cache.enabled());
    }
  }
  SECTION("an entry over a small bound is a miss, not a corrupt entry") {
    ScopedEnv a("SCANGEN_CACHE_DIR", dir.str());
    {
      DiskCache writer(DiskCache::Options::from_environment());
      REQUIRE(writer.enabled());
      writer.store(test_key(7), test_payload(7));
    }
    ScopedEnv m("SCANGEN_CACHE_MAX_BYTES", "100");
    auto stats = std::make_shared<scangen::runtime::detail::CacheCounters>();
    DiskCache reader(DiskCache::Options::from_environment(), stats);
    REQUIRE(reader.enabled());
    CHECK_FALSE(reader.load(test_key(7)).has_value());
    CHECK(stats->snapshot().corrupt_entries == 0);
  }
}

TEST_CASE("cache: SCANGEN_CACHE_DISABLE=1 turns the disk cache off", "[runtime][cache]") {
  CleanEnv clean;
  TempDir dir;
  ScopedEnv a("SCANGEN_CACHE_DIR", dir.str());
  {
    DiskCache writer(DiskCache::Options::from_environment());
    REQUIRE(writer.enabled());
    writer.store(test_key(1), test_payload(1));
  }
  const auto before = entry_names(dir);
  REQUIRE(before.size() == 1);

  ScopedEnv b("SCANGEN_CACHE_DISABLE", "1");
  DiskCache cache;  // from the environment
  CHECK_FALSE(cache.enabled());
  CHECK(cache.disabled_reason().find("SCANGEN_CACHE_DISABLE") != std::string::npos);
  CHECK_FALSE(cache.load(test_key(1)));  // there, but not looked at
  for (int i = 2; i < 10; ++i) cache.store(test_key(i), test_payload(i));
  CHECK(entry_names(dir) == before);
  const auto stats = cache.stats().snapshot();
  CHECK(stats.disk_hits == 0);
  CHECK(stats.entries_written == 0);

  for (const char* off : {"0", "false", "OFF"}) {
    ScopedEnv c("SCANGEN_CACHE_DISABLE", off);
    CHECK(DiskCache().enabled());
  }
  ScopedEnv d("SCANGEN_CACHE_DISABLE", "yes");
  CHECK_FALSE(DiskCache().enabled());
}

TEST_CASE("cache: a directory that cannot be made or written disables the disk cache", "[runtime][cache]") {
  TempDir dir;
  const auto check_disabled = [](DiskCache& cache, const std::string& mention) {
    CHECK_FALSE(cache.enabled());
    const std::string reason = cache.disabled_reason();
    INFO(reason);
    CHECK_FALSE(reason.empty());
    CHECK(reason.find('\n') == std::string::npos);
    CHECK(reason.find(mention) != std::string::npos);
    CHECK_NOTHROW(cache.store(test_key(1), test_payload(1)));
    CHECK_FALSE(cache.load(test_key(1)));
  };

  SECTION("below a regular file") {
    write_file((dir.path() / "file").string(), {1});
    DiskCache::Options options;
    options.directory = (dir.path() / "file" / "cache").string();
    DiskCache cache(options);
    check_disabled(cache, options.directory);
  }
  SECTION("a regular file") {
    write_file((dir.path() / "file").string(), {1});
    DiskCache::Options options;
    options.directory = (dir.path() / "file").string();
    DiskCache cache(options);
    check_disabled(cache, options.directory);
  }
  SECTION("an existing directory without write permission") {
    // Permissions do not stop root; /proc refuses new files to everyone.
    std::string unwritable = (dir.path() / "read-only").string();
    if (geteuid() == 0) {
      unwritable = "/proc";
    } else {
      fs::create_directory(unwritable);
      fs::permissions(unwritable, fs::perms::owner_read | fs::perms::owner_exec);
    }
    DiskCache::Options options;
    options.directory = unwritable;
    DiskCache cache(options);
    check_disabled(cache, unwritable);
  }
  SECTION("a directory that becomes unwritable later") {
    if (geteuid() == 0) return;  // root writes anyway
    const std::string path = (dir.path() / "later").string();
    DiskCache::Options options;
    options.directory = path;
    DiskCache cache(options);
    REQUIRE(cache.enabled());
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_exec);
    cache.store(test_key(1), test_payload(1));
    check_disabled(cache, path);
    CHECK(cache.stats().snapshot().write_failures >= 1);
  }
}

TEST_CASE("cache: a removed directory is made again on the next store", "[runtime][cache]") {
  TempDir dir;
  const fs::path path = dir.path() / "cache";
  DiskCache::Options options;
  options.directory = path.string();
  DiskCache nested(options);
  REQUIRE(nested.enabled());
  fs::remove_all(path);
  CHECK_FALSE(nested.load(test_key(1)));
  nested.store(test_key(1), test_payload(1));
  CHECK(nested.enabled());
  CHECK(nested.load(test_key(1)) == test_payload(1));
}

TEST_CASE("cache: threads storing and loading the same keys", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir, 10 * (DiskCache::kHeaderSize + 4000)));  // a third of the keys
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) {
        const int k = (i * 7 + t) % 30;
        if (i % 3 == 0) {
          cache.store(test_key(k), test_payload(k, 1000 + static_cast<std::size_t>(k) * 100));
        } else if (const auto loaded = cache.load(test_key(k))) {
          if (*loaded != test_payload(k, 1000 + static_cast<std::size_t>(k) * 100)) ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(wrong == 0);
  const auto stats = cache.stats().snapshot();
  CHECK(stats.corrupt_entries == 0);
  CHECK(stats.write_failures == 0);
  CHECK(stats.evictions > 0);
  CHECK(cache.enabled());
}
