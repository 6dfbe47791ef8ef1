// The runtime's compiled-kernel caches: the key (a SHA-256 digest over named
// parts), a thread-safe in-memory cache that makes each key once, an on-disk
// cache shared between processes, and the statistics both report into.
//
// A lookup in the runtime goes: memory (key = digest + context) -> disk (key =
// digest) -> compile, and stores back on the way out. The two caches do not
// call each other; the runtime composes them inside MemoryCache's `make`.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scangen/runtime/cache_stats.h"

namespace scangen::runtime::detail {

using scangen::CacheStats;

// Version of the cache's formats: the make-up of a kernel key and the layout
// of a disk entry. Bump it when either changes; old entries then miss.
inline constexpr std::uint32_t kCacheFormatVersion = 1;

// The scangen version this library was built as (the build's PROJECT_VERSION).
const char* scangen_version() noexcept;

// ---------------------------------------------------------------------------
// Hashing

// SHA-256 (FIPS 180-4), incremental.
class Sha256 {
 public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // The digest of everything given so far; the object is spent afterwards.
  Digest finish();

  static Digest hash(const void* data, std::size_t size);
  static Digest hash(std::string_view text) { return hash(text.data(), text.size()); }

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_;
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes
};

// Little-endian integers of `bytes` bytes (the disk entry's header, the key's lengths).
void put_le(std::uint8_t* out, std::uint64_t value, unsigned bytes);
std::uint64_t get_le(const std::uint8_t* in, unsigned bytes);

// Lower-case hex.
std::string to_hex(const std::uint8_t* data, std::size_t size);

// The key of a compiled kernel: named parts, hashed in order.
struct CacheKey {
  std::vector<std::pair<std::string, std::string>> parts;

  CacheKey& add(std::string name, std::string value) {
    parts.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  // 64 lower-case hex digits: SHA-256 over the parts, each name and value
  // length-prefixed, so that no two different part lists share an encoding.
  std::string digest() const;
};

// The key of one kernel, the one place it is made: the generated source, the
// compile options, the compiler (NVRTC version, or OpenCL platform name and
// version), the device ("sm_90", plus the driver version where the driver
// compiles PTX; an OpenCL device's name, version and driver version), the
// embedded templates' hash, the scangen version and kCacheFormatVersion.
CacheKey make_kernel_key(std::string source, std::string options, std::string compiler, std::string architecture,
                         std::uint64_t templates_hash = 0);

// True for a 64-digit lower-case hex string (what CacheKey::digest gives).
bool is_valid_digest(std::string_view digest) noexcept;

// The memory cache's key: the digest plus the context (CUcontext,
// cl_context) the binary is loaded into, as an opaque pointer value.
std::string memory_key(const std::string& digest, const void* context);
inline std::string memory_key(const CacheKey& key, const void* context) { return memory_key(key.digest(), context); }

// ---------------------------------------------------------------------------
// Statistics

// Thread-safe counters; one object may be shared by a MemoryCache and a
// DiskCache (the runtime shares one). snapshot() fills the fields of
// scangen::CacheStats it counts (all but the disk cache's state).
class CacheCounters {
 public:
  void record_memory_hit(bool waited) {
    add(memory_hits_);
    if (waited) add(memory_waits_);
  }
  void record_memory_miss() { add(memory_misses_); }
  void record_disk_hit() { add(disk_hits_); }
  void record_disk_miss() { add(disk_misses_); }
  void record_compile(std::chrono::nanoseconds time) {
    add(compiles_);
    add(compile_nanoseconds_, time.count() > 0 ? static_cast<std::uint64_t>(time.count()) : 0);
  }
  void record_entry_written() { add(entries_written_); }
  void record_eviction() { add(evictions_); }
  void record_corrupt_entry() { add(corrupt_entries_); }
  void record_write_failure() { add(write_failures_); }
  // Tiered compilation (runtime/README.md, "Tiers").
  void record_fast_compile() { add(fast_compiles_); }
  void record_tuned_compile(std::chrono::nanoseconds time) {
    add(tuned_compiles_);
    add(tuned_compile_nanoseconds_, time.count() > 0 ? static_cast<std::uint64_t>(time.count()) : 0);
  }
  void record_tier_swap() { add(tier_swaps_); }
  void record_tuned_failure(const std::string& why) {
    add(tuned_failures_);
    std::lock_guard<std::mutex> lock(error_mutex_);
    last_tuned_error_ = why;
  }

  CacheStats snapshot() const;
  void reset();

 private:
  using Counter = std::atomic<std::uint64_t>;
  static void add(Counter& c, std::uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }

  Counter memory_hits_{0}, memory_waits_{0}, memory_misses_{0}, disk_hits_{0}, disk_misses_{0};
  Counter compiles_{0}, compile_nanoseconds_{0}, entries_written_{0}, evictions_{0}, corrupt_entries_{0};
  Counter write_failures_{0};
  Counter fast_compiles_{0}, tuned_compiles_{0}, tuned_compile_nanoseconds_{0}, tuned_failures_{0}, tier_swaps_{0};
  mutable std::mutex error_mutex_;
  std::string last_tuned_error_;
};

// Reports the time from its construction to its destruction as one compile
// (also when the compile throws).
class ScopedCompileTimer {
 public:
  explicit ScopedCompileTimer(CacheCounters& stats) : stats_(stats), start_(std::chrono::steady_clock::now()) {}
  ~ScopedCompileTimer() { stats_.record_compile(std::chrono::steady_clock::now() - start_); }
  ScopedCompileTimer(const ScopedCompileTimer&) = delete;
  ScopedCompileTimer& operator=(const ScopedCompileTimer&) = delete;

 private:
  CacheCounters& stats_;
  std::chrono::steady_clock::time_point start_;
};

// ---------------------------------------------------------------------------
// Memory cache

// Values by key, each made once: threads asking for a key that is being made
// wait for that make and share its value. A make that throws is not cached:
// its exception goes to the caller and to every thread waiting on it, and the
// next request makes the value again. `make` must not ask this cache for the
// key it is making (that would wait on itself).
template <class V>
class MemoryCache {
 public:
  using Value = std::shared_ptr<const V>;
  using Make = std::function<Value()>;

  explicit MemoryCache(std::shared_ptr<CacheCounters> stats = nullptr)
      : stats_(stats ? std::move(stats) : std::make_shared<CacheCounters>()) {}

  MemoryCache(const MemoryCache&) = delete;
  MemoryCache& operator=(const MemoryCache&) = delete;

  // The value for `key`, made by `make` if no thread has made it yet. A make
  // returning null counts as a failure (std::logic_error).
  Value get_or_create(const std::string& key, const Make& make) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) {
      std::shared_future<Value> future = it->second.future;
      lock.unlock();
      const bool ready = future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
      stats_->record_memory_hit(!ready);
      return future.get();  // rethrows the maker's exception
    }
    std::promise<Value> promise;
    const std::uint64_t id = ++next_id_;
    entries_.emplace(key, Entry{promise.get_future().share(), id});
    lock.unlock();
    stats_->record_memory_miss();

    Value value;
    try {
      value = make();
      if (!value) throw std::logic_error("scangen runtime cache: make returned no value for key " + key);
    } catch (...) {
      {
        // Forget the failure first, so that the next request retries.
        std::lock_guard<std::mutex> guard(mutex_);
        if (auto it = entries_.find(key); it != entries_.end() && it->second.id == id) entries_.erase(it);
      }
      promise.set_exception(std::current_exception());
      throw;
    }
    promise.set_value(value);
    return value;
  }

  // The finished value for `key`, or null (absent, or still being made).
  Value find(const std::string& key) const {
    std::shared_future<Value> future;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      auto it = entries_.find(key);
      if (it == entries_.end()) return nullptr;
      future = it->second.future;
    }
    if (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
    try {
      return future.get();
    } catch (...) {
      return nullptr;
    }
  }

  // Forgets `key` (a make in flight still hands its value to its waiters).
  bool erase(const std::string& key) {
    std::lock_guard<std::mutex> guard(mutex_);
    return entries_.erase(key) > 0;
  }
  void clear() {
    std::lock_guard<std::mutex> guard(mutex_);
    entries_.clear();
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return entries_.size();
  }

  CacheCounters& stats() const { return *stats_; }
  const std::shared_ptr<CacheCounters>& shared_stats() const { return stats_; }

 private:
  struct Entry {
    std::shared_future<Value> future;
    std::uint64_t id;  // tells a failed make's entry from a newer one under the same key
  };

  std::shared_ptr<CacheCounters> stats_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::uint64_t next_id_ = 0;
};

// ---------------------------------------------------------------------------
// Disk cache

// One file per key, `<digest>.bin`, in one directory that several processes
// may share:
//
//   offset  size  field
//        0     8  magic "SCANGENK"
//        8     4  format version (kCacheFormatVersion), little-endian
//       12     4  header size (120), little-endian
//       16    64  the key's digest, hex
//       80     8  payload size, little-endian
//       88    32  SHA-256 of the payload
//      120     -  payload
//
// Trust: the directory must belong to this user and be writable by no one
// else, or the cache is off (a directory it creates is made 0700); an entry is
// read only when it is a regular file of this user's, opened without
// following links and without blocking, no larger than the bound allows.
// A store writes a temporary file in the directory (mkstemp: mode 0600, named
// .scangen-tmp-XXXXXX) and renames it over the entry, so that a reader sees
// the old entry or the new one, never a part.
// An entry that does not check out is a miss (counted as corrupt); the next
// store replaces it. After each store, if the entries (`*.bin` files named by
// a digest; nothing else in the directory is touched but scangen's own
// temporary files older than an hour) add up to more than the
// bound, the least recently used ones (by modification time; a hit touches
// its entry) are deleted until they fit. load and store never throw: a
// directory that cannot be created or written disables the cache, with a
// one-line reason.
class DiskCache {
 public:
  static constexpr std::uint64_t kDefaultMaxBytes = 256ull << 20;
  static constexpr std::size_t kHeaderSize = 120;

  struct Options {
    std::string directory;  // empty: disabled
    std::uint64_t max_bytes = kDefaultMaxBytes;
    bool disabled = false;
    std::string disabled_reason;  // when disabled

    // SCANGEN_CACHE_DISABLE (anything but empty, 0, false, no, off) turns the
    // cache off. The directory: SCANGEN_CACHE_DIR, else
    // $XDG_CACHE_HOME/scangen (an absolute XDG_CACHE_HOME), else
    // $HOME/.cache/scangen. SCANGEN_CACHE_MAX_BYTES: a byte count, optionally
    // with a K, M or G suffix (binary); unset, 0 or unreadable: the default.
    static Options from_environment();
  };

  explicit DiskCache(Options options, std::shared_ptr<CacheCounters> stats = nullptr);
  DiskCache() : DiskCache(Options::from_environment()) {}

  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  // Decides whether the backend can use an entry's payload (an OpenCL
  // driver may refuse a binary whose checksum holds); a refused entry is a
  // miss, counted as corrupt, which the caller's next store replaces.
  using Accept = std::function<bool(const std::vector<std::uint8_t>&)>;

  std::optional<std::vector<std::uint8_t>> load(const CacheKey& key, const Accept& accept = {}) {
    return load(key.digest(), accept);
  }
  void store(const CacheKey& key, const std::vector<std::uint8_t>& payload) { store(key.digest(), payload); }
  // The same, by a digest already computed (an invalid digest is a miss / stores nothing).
  std::optional<std::vector<std::uint8_t>> load(const std::string& digest, const Accept& accept = {});
  void store(const std::string& digest, const std::vector<std::uint8_t>& payload);

  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  std::string disabled_reason() const;
  std::string directory() const { return directory_; }
  std::uint64_t max_bytes() const { return max_bytes_; }
  // Where the entry for a digest lives.
  std::string entry_path(const std::string& digest) const;

  CacheCounters& stats() const { return *stats_; }
  const std::shared_ptr<CacheCounters>& shared_stats() const { return stats_; }

 private:
  void disable(std::string reason);
  void evict_if_needed();

  std::string directory_;
  std::uint64_t max_bytes_;
  std::shared_ptr<CacheCounters> stats_;
  std::atomic<bool> enabled_{false};
  mutable std::mutex reason_mutex_;
  std::string reason_;
};

}  // namespace scangen::runtime::detail
