// A second (third, ...) process for the disk cache tests: stores and loads
// keys in one cache directory and checks every payload it loads.
//
//   scangen_runtime_cache_child DIR MAX_BYTES work WORKER ITERATIONS [THREADS]
//     random stores and loads of keys shared by all workers and of keys only
//     this worker writes; exits 1 on a wrong payload, 2 if an entry was found
//     corrupt (a reader must never see a half-written file). With THREADS,
//     that many threads share one cache object, each a worker of its own
//     (WORKER x THREADS + t).
//   scangen_runtime_cache_child DIR MAX_BYTES verify WORKERS
//     loads every key once and checks what it finds.
//
// A payload names its key, writer and iteration, and its body is a function
// of those, so a payload that is torn, mixed or filed under the wrong key is
// caught.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cache.h"

namespace {

using scangen::runtime::detail::CacheKey;
using scangen::runtime::detail::DiskCache;

constexpr int kSharedKeys = 12;
constexpr int kPrivateKeys = 6;

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t seed_of(const std::string& text) {
  const auto digest = scangen::runtime::detail::Sha256::hash(text);
  return scangen::runtime::detail::get_le(digest.data(), 8);
}

std::string key_name(bool shared, int worker, int index) {
  return shared ? "shared-" + std::to_string(index) : "private-" + std::to_string(worker) + "-" + std::to_string(index);
}

CacheKey key_of(const std::string& name) {
  CacheKey key;
  key.add("test-key", name);
  return key;
}

std::vector<std::uint8_t> make_payload(const std::string& key, int writer, int iteration) {
  const std::string head = key + "|" + std::to_string(writer) + "|" + std::to_string(iteration) + "|";
  std::uint64_t state = seed_of(head);
  const std::size_t body = static_cast<std::size_t>(splitmix(state) % 12000);
  std::vector<std::uint8_t> payload(head.begin(), head.end());
  payload.reserve(head.size() + body);
  for (std::size_t i = 0; i < body; ++i) payload.push_back(static_cast<std::uint8_t>(splitmix(state)));
  return payload;
}

// True if `payload` is one that some writer stored for `key`.
bool well_formed(const std::string& key, const std::vector<std::uint8_t>& payload) {
  const std::string text(payload.begin(), payload.end());
  const std::size_t a = text.find('|');
  if (a == std::string::npos || text.compare(0, a, key) != 0) return false;
  const std::size_t b = text.find('|', a + 1);
  if (b == std::string::npos) return false;
  const std::size_t c = text.find('|', b + 1);
  if (c == std::string::npos) return false;
  const int writer = std::atoi(text.substr(a + 1, b - a - 1).c_str());
  const int iteration = std::atoi(text.substr(b + 1, c - b - 1).c_str());
  return make_payload(key, writer, iteration) == payload;
}

DiskCache open_cache(const char* dir, const char* max_bytes) {
  DiskCache::Options options;
  options.directory = dir;
  options.max_bytes = std::strtoull(max_bytes, nullptr, 10);
  return DiskCache(options);
}

int work_as(DiskCache& cache, int worker, int iterations) {
  std::map<std::string, std::vector<std::uint8_t>> last_private;  // what this worker stored last
  std::uint64_t state = seed_of("worker " + std::to_string(worker));
  int loads = 0, hits = 0, stores = 0;
  for (int i = 0; i < iterations; ++i) {
    const bool shared = splitmix(state) % 2 == 0;
    const int index = static_cast<int>(splitmix(state) % (shared ? kSharedKeys : kPrivateKeys));
    const std::string name = key_name(shared, worker, index);
    const CacheKey key = key_of(name);
    if (splitmix(state) % 2 == 0) {
      std::vector<std::uint8_t> payload = make_payload(name, worker, i);
      cache.store(key, payload);
      ++stores;
      if (!shared) last_private[name] = std::move(payload);
      continue;
    }
    ++loads;
    const auto loaded = cache.load(key);
    if (!loaded) continue;
    ++hits;
    if (!well_formed(name, *loaded)) {
      std::fprintf(stderr, "worker %d: wrong payload for %s (%zu bytes)\n", worker, name.c_str(), loaded->size());
      return 1;
    }
    // A key only this worker writes holds what it stored last (an earlier
    // run's payload before its first store).
    if (const auto it = last_private.find(name); it != last_private.end() && it->second != *loaded) {
      std::fprintf(stderr, "worker %d: %s is not the payload stored last\n", worker, name.c_str());
      return 1;
    }
  }
  std::printf("worker %d: %d stores, %d loads, %d hits\n", worker, stores, loads, hits);
  return 0;
}

int work(const char* dir, const char* max_bytes, int worker, int iterations, int threads) {
  DiskCache cache = open_cache(dir, max_bytes);
  if (!cache.enabled()) {
    std::fprintf(stderr, "worker %d: cache disabled: %s\n", worker, cache.disabled_reason().c_str());
    return 3;
  }
  std::vector<int> results(static_cast<std::size_t>(threads), 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(
        [&, t] { results[static_cast<std::size_t>(t)] = work_as(cache, worker * threads + t, iterations); });
  for (std::thread& th : pool) th.join();
  const auto stats = cache.stats().snapshot();
  std::printf("process %d (%d threads): %llu evictions, %llu corrupt, %llu write failures\n", worker, threads,
              static_cast<unsigned long long>(stats.evictions), static_cast<unsigned long long>(stats.corrupt_entries),
              static_cast<unsigned long long>(stats.write_failures));
  for (int r : results)
    if (r != 0) return r;
  if (stats.corrupt_entries != 0 || stats.write_failures != 0 || !cache.enabled()) return 2;
  return 0;
}

int verify(const char* dir, const char* max_bytes, int workers) {
  DiskCache cache = open_cache(dir, max_bytes);
  if (!cache.enabled()) return 3;
  int found = 0;
  const auto check = [&](const std::string& name) {
    const auto loaded = cache.load(key_of(name));
    if (!loaded) return true;
    ++found;
    return well_formed(name, *loaded);
  };
  for (int k = 0; k < kSharedKeys; ++k) {
    if (!check(key_name(true, 0, k))) return 1;
  }
  for (int w = 0; w < workers; ++w) {
    for (int k = 0; k < kPrivateKeys; ++k) {
      if (!check(key_name(false, w, k))) return 1;
    }
  }
  std::printf("verify: %d entries found, all well formed\n", found);
  return cache.stats().snapshot().corrupt_entries == 0 ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc == 6 || argc == 7) && std::string(argv[3]) == "work") {
    return work(argv[1], argv[2], std::atoi(argv[4]), std::atoi(argv[5]), argc == 7 ? std::atoi(argv[6]) : 1);
  }
  if (argc == 5 && std::string(argv[3]) == "verify") return verify(argv[1], argv[2], std::atoi(argv[4]));
  std::fprintf(stderr, "usage: %s DIR MAX_BYTES work WORKER ITERATIONS [THREADS] | DIR MAX_BYTES verify WORKERS\n",
               argv[0]);
  return 64;
}
