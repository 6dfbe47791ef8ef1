// What the cache tests share: a temporary directory, scoped environment
// variables, keys and payloads, files, and waiting for a condition.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cache.h"

namespace scangen::test::cache {

namespace fs = std::filesystem;
using namespace scangen::runtime::detail;

// A fresh directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "scangen-cache-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      std::error_code ignored;
      if (it->is_directory(ignored)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// All the cache's variables unset, so that no test sees the user's settings
// or touches the user's cache.
struct CleanEnv {
  ScopedEnv dir{"SCANGEN_CACHE_DIR", std::nullopt};
  ScopedEnv disable{"SCANGEN_CACHE_DISABLE", std::nullopt};
  ScopedEnv max{"SCANGEN_CACHE_MAX_BYTES", std::nullopt};
  ScopedEnv xdg{"XDG_CACHE_HOME", std::nullopt};
};

inline DiskCache::Options options_for(const TempDir& dir, std::uint64_t max_bytes = DiskCache::kDefaultMaxBytes) {
  DiskCache::Options options;
  options.directory = dir.str();
  options.max_bytes = max_bytes;
  return options;
}

inline CacheKey test_key(int i) {
  CacheKey key;
  key.add("test", "key " + std::to_string(i));
  return key;
}

inline std::vector<std::uint8_t> test_payload(int i, std::size_t size = 1000) {
  std::vector<std::uint8_t> payload(size);
  for (std::size_t j = 0; j < size; ++j)
    payload[j] = static_cast<std::uint8_t>(j * 31 + static_cast<std::size_t>(i) * 7);
  return payload;
}

inline std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::set<std::string> entry_names(const TempDir& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.insert(entry.path().filename().string());
  return names;
}

inline std::uint64_t directory_bytes(const TempDir& dir) {
  std::uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) total += entry.file_size();
  return total;
}

inline std::string sha_hex(std::string_view text) {
  const auto d = Sha256::hash(text);
  return to_hex(d.data(), d.size());
}

// Waits (up to 10 s) until `done` holds.
template <class F>
inline bool eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace scangen::test::cache
