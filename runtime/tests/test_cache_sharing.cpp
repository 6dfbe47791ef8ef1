// The runtime's compiled-kernel caches shared: several processes on one
// directory, threads on one memory cache (one make per key under
// contention, failures not cached), and the counters.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "cache_test_support.h"

extern char** environ;

using namespace scangen::test::cache;

// ---------------------------------------------------------------------------
// Several processes on one directory

namespace {

pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (error != 0) throw std::runtime_error("posix_spawn failed: " + std::to_string(error));
  return pid;
}

int wait_exit_code(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

TEST_CASE("cache: processes sharing one directory", "[runtime][cache]") {
  TempDir dir;
  const int workers = 4;
  const int iterations = 1500;
  // Roomy: the entries stay; tight: every store evicts.
  const std::uint64_t bound = GENERATE(std::uint64_t{64} << 20, std::uint64_t{40} << 10);
  CAPTURE(bound);
  const std::string child = SCANGEN_CACHE_CHILD;
  const std::string max = std::to_string(bound);

  for (int round = 0; round < 2; ++round) {
    std::vector<pid_t> pids;
    for (int w = 0; w < workers; ++w) {
      pids.push_back(spawn({child, dir.str(), max, "work", std::to_string(w), std::to_string(iterations)}));
    }
    for (int w = 0; w < workers; ++w) {
      CAPTURE(round, w);
      CHECK(wait_exit_code(pids[static_cast<std::size_t>(w)]) == 0);
    }
  }
  CHECK(wait_exit_code(spawn({child, dir.str(), max, "verify", std::to_string(workers)})) == 0);

  // No temporary file is left, and the bound holds.
  std::uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    CHECK(name.size() == 64 + 4);
    total += entry.file_size();
  }
  CHECK(total <= bound);
}

// The stress test: 4 processes of 4 threads each (one cache object per
// process, as a Runtime has) on one directory, roomy and tight.
TEST_CASE("cache: processes of several threads sharing one directory", "[runtime][cache]") {
  TempDir dir;
  const int processes = 4, threads = 4, iterations = 600;
  const std::uint64_t bound = GENERATE(std::uint64_t{64} << 20, std::uint64_t{40} << 10);
  CAPTURE(bound);
  const std::string child = SCANGEN_CACHE_CHILD;
  const std::string max = std::to_string(bound);
  std::vector<pid_t> pids;
  for (int w = 0; w < processes; ++w)
    pids.push_back(
        spawn({child, dir.str(), max, "work", std::to_string(w), std::to_string(iterations), std::to_string(threads)}));
  for (int w = 0; w < processes; ++w) {
    CAPTURE(w);
    CHECK(wait_exit_code(pids[static_cast<std::size_t>(w)]) == 0);
  }
  CHECK(wait_exit_code(spawn({child, dir.str(), max, "verify", std::to_string(processes * threads)})) == 0);
  std::uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().size() == 64 + 4);  // no temporary left
    total += entry.file_size();
  }
  CHECK(total <= bound);
}

// ---------------------------------------------------------------------------
// Memory cache

TEST_CASE("cache: 16 threads asking for one key make it once", "[runtime][cache]") {
  MemoryCache<std::string> cache;
  std::atomic<int> makes{0};
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  const int threads_count = 16;
  std::vector<std::shared_ptr<const std::string>> results(threads_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < threads_count; ++t) {
    threads.emplace_back([&, t] {
      ++ready;
      while (!go) std::this_thread::yield();
      results[static_cast<std::size_t>(t)] = cache.get_or_create("key", [&] {
        ++makes;
        // Hold the make until every other thread waits on it.
        eventually([&] { return cache.stats().snapshot().memory_waits == threads_count - 1; });
        return std::make_shared<const std::string>("value");
      });
    });
  }
  REQUIRE(eventually([&] { return ready == threads_count; }));
  go = true;
  for (auto& thread : threads) thread.join();

  CHECK(makes == 1);
  for (const auto& r : results) {
    REQUIRE(r);
    CHECK(r.get() == results[0].get());
    CHECK(*r == "value");
  }
  auto stats = cache.stats().snapshot();
  CHECK(stats.memory_misses == 1);
  CHECK(stats.memory_hits == threads_count - 1);
  CHECK(stats.memory_waits == threads_count - 1);

  // Later: a plain hit; another key is made separately.
  CHECK(cache.get_or_create("key", [&]() -> std::shared_ptr<const std::string> { throw std::logic_error("no"); }) ==
        results[0]);
  CHECK(cache.find("key") == results[0]);
  CHECK(cache.find("other") == nullptr);
  CHECK(*cache.get_or_create("other", [] { return std::make_shared<const std::string>("second"); }) == "second");
  CHECK(cache.size() == 2);
  stats = cache.stats().snapshot();
  CHECK(stats.memory_misses == 2);
  CHECK(stats.memory_hits == threads_count);
  CHECK(stats.memory_waits == threads_count - 1);

  CHECK(cache.erase("key"));
  CHECK(cache.find("key") == nullptr);
  cache.clear();
  CHECK(cache.size() == 0);
}

TEST_CASE("cache: a failed make reaches every waiter and is not cached", "[runtime][cache]") {
  auto stats = std::make_shared<CacheCounters>();
  MemoryCache<int> cache(stats);
  std::atomic<int> makes{0};
  std::atomic<int> failures{0};
  std::atomic<int> other_errors{0};
  const int threads_count = 16;
  std::vector<std::thread> threads;
  for (int t = 0; t < threads_count; ++t) {
    threads.emplace_back([&] {
      try {
        cache.get_or_create("key", [&]() -> std::shared_ptr<const int> {
          ++makes;
          eventually([&] { return stats->snapshot().memory_waits == threads_count - 1; });
          throw std::runtime_error("compile error: line 1");
        });
      } catch (const std::runtime_error& e) {
        if (std::string(e.what()) == "compile error: line 1") {
          ++failures;
        } else {
          ++other_errors;
        }
      } catch (...) {
        ++other_errors;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(makes == 1);
  CHECK(failures == threads_count);
  CHECK(other_errors == 0);
  CHECK(cache.size() == 0);
  CHECK(cache.find("key") == nullptr);

  // The next request makes it again.
  const auto value = cache.get_or_create("key", [&] {
    ++makes;
    return std::make_shared<const int>(42);
  });
  REQUIRE(value);
  CHECK(*value == 42);
  CHECK(makes == 2);
  CHECK(cache.get_or_create("key", [&] {
    ++makes;
    return std::make_shared<const int>(0);
  }) == value);
  CHECK(makes == 2);

  // A make that returns nothing is a failure too.
  CHECK_THROWS_AS(cache.get_or_create("null", [] { return std::shared_ptr<const int>(); }), std::logic_error);
  CHECK(cache.find("null") == nullptr);
  CHECK(*cache.get_or_create("null", [] { return std::make_shared<const int>(7); }) == 7);
}

TEST_CASE("cache: compile time goes into the statistics", "[runtime][cache]") {
  CacheCounters stats;
  {
    ScopedCompileTimer timer(stats);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stats.record_compile(std::chrono::milliseconds(5));
  auto snapshot = stats.snapshot();
  CHECK(snapshot.misses == 2);
  CHECK(snapshot.compile_ms >= 25.0);
  CHECK(snapshot.compile_ms < 5000.0);
  stats.reset();
  snapshot = stats.snapshot();
  CHECK(snapshot.misses == 0);
  CHECK(snapshot.compile_ms == 0.0);
}

TEST_CASE("cache: the runtime's path through both caches", "[runtime][cache]") {
  // memory (digest + context) -> disk (digest) -> compile, as the runtime uses them.
  TempDir dir;
  auto stats = std::make_shared<CacheCounters>();
  MemoryCache<std::vector<std::uint8_t>> memory(stats);
  int compiles = 0;
  const auto get = [&](DiskCache& disk, const CacheKey& key, const void* context) {
    const std::string digest = key.digest();
    return memory.get_or_create(memory_key(digest, context), [&] {
      if (auto binary = disk.load(digest)) return std::make_shared<const std::vector<std::uint8_t>>(std::move(*binary));
      ScopedCompileTimer timer(*stats);
      ++compiles;
      auto binary = test_payload(compiles, 4096);
      disk.store(digest, binary);
      return std::make_shared<const std::vector<std::uint8_t>>(std::move(binary));
    });
  };
  const CacheKey key = make_kernel_key("source", "-O3", "nvrtc 12.4", "sm_90");
  int context_a = 0, context_b = 0;
  {
    DiskCache disk(options_for(dir), stats);
    const auto first = get(disk, key, &context_a);
    CHECK(get(disk, key, &context_a) == first);      // memory hit
    const auto second = get(disk, key, &context_b);  // another context: from disk, no compile
    CHECK(second != first);
    CHECK(*second == *first);
    CHECK(compiles == 1);
  }
  memory.clear();
  {
    DiskCache disk(options_for(dir), stats);  // "the next run"
    get(disk, key, &context_a);
    CHECK(compiles == 1);
  }
  const auto s = stats->snapshot();
  CHECK(s.memory_misses == 3);
  CHECK(s.memory_hits == 1);
  CHECK(s.disk_misses == 1);
  CHECK(s.disk_hits == 2);
  CHECK(s.misses == 1);
  CHECK(s.entries_written == 1);
}
