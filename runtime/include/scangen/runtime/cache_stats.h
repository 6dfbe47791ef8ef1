// What the runtime's caches count (Runtime::stats()): one type for the
// runtime's report and for the caches' own counters (runtime/src/cache.h).
#pragma once

#include <cstdint>
#include <string>

namespace scangen {

struct CacheStats {
  uint64_t memory_hits = 0;    // compiles served from memory (those that waited for another thread's included)
  uint64_t memory_waits = 0;   // ... of which waited for another thread's compile of the same scan
  uint64_t memory_misses = 0;  // lookups that went on to the disk cache and the compiler
  uint64_t disk_hits = 0;      // loads that returned an entry
  uint64_t disk_misses = 0;    // loads of an enabled disk cache that returned none (corrupt included)
  uint64_t misses = 0;         // compiled
  double compile_ms = 0;       // total time spent compiling
  uint64_t entries_written = 0;
  uint64_t evictions = 0;        // disk entries this process deleted to stay under the bound
  uint64_t corrupt_entries = 0;  // disk entries found truncated, damaged, not matching their key or refused
  uint64_t write_failures = 0;   // stores that wrote nothing (the disk cache may have turned itself off)
  // The disk cache: on, or off and why (SCANGEN_CACHE_DISABLE, no directory,
  // a directory that cannot be written, or one that is not trusted because it
  // is not this user's or others can write it: runtime/README.md).
  bool disk_cache_on = false;
  std::string disk_cache_off_reason;

  // Tiered compilation (CUDA; runtime/README.md, "Tiers"). A cold compile is
  // first built for compile speed (the fast tier: counted in misses and
  // compile_ms, the compile a caller waits for), then again on a background
  // thread for speed of the kernels (the tuned tier), which replaces it.
  uint64_t fast_compiles = 0;    // cold compiles served first by the fast tier
  uint64_t tuned_compiles = 0;   // background compiles of the tuned tier that succeeded
  double tuned_compile_ms = 0;   // their total time
  uint64_t tuned_failures = 0;   // background compiles or loads that failed (the fast tier stays)
  uint64_t tier_swaps = 0;       // Scans moved from the fast tier's module to the tuned one
  std::string last_tuned_error;  // the last failure's message, or ""
};

}  // namespace scangen
