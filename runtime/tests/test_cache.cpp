// The runtime's compiled-kernel caches: keys and the disk cache's entries
// (round trip, damaged entries, eviction, stale temporaries, ownership and
// permissions, entries the backend refuses). The environment, unusable
// directories and threads: test_cache_environment.cpp; several processes and
// the memory cache: test_cache_sharing.cpp. Every test works in its own
// temporary directory.
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

// ---------------------------------------------------------------------------
// Hashing and keys

TEST_CASE("cache: SHA-256 matches the FIPS 180-4 examples", "[runtime][cache]") {
  CHECK(sha_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                "mnopqrstnopqrstu") == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  const std::string million(1000000, 'a');
  CHECK(sha_hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

  // Fed in pieces of every size from 1 to 130 bytes: the same digest.
  std::string text;
  for (int i = 0; i < 1000; ++i) text.push_back(static_cast<char>(i * 13));
  const std::string whole = sha_hex(text);
  for (std::size_t piece = 1; piece <= 130; ++piece) {
    Sha256 h;
    for (std::size_t at = 0; at < text.size(); at += piece) h.update(std::string_view(text).substr(at, piece));
    const auto d = h.finish();
    CHECK(to_hex(d.data(), d.size()) == whole);
  }
}

TEST_CASE("cache: a key's digest depends on every part and on their order", "[runtime][cache]") {
  const CacheKey base = make_kernel_key("__global__ void k() {}", "-arch=sm_90 -std=c++17", "nvrtc 12.4", "sm_90");
  REQUIRE(base.parts.size() == 7);
  const std::string digest = base.digest();
  CHECK(is_valid_digest(digest));

  SECTION("equal parts, equal digests") {
    CHECK(make_kernel_key("__global__ void k() {}", "-arch=sm_90 -std=c++17", "nvrtc 12.4", "sm_90").digest() ==
          digest);
    CacheKey copy = base;
    CHECK(copy.digest() == digest);
  }
  SECTION("changing any one part's value changes the digest") {
    std::set<std::string> digests{digest};
    for (std::size_t i = 0; i < base.parts.size(); ++i) {
      CacheKey changed = base;
      changed.parts[i].second += " ";
      CHECK(changed.digest() != digest);
      changed = base;
      changed.parts[i].second = "";
      CHECK(changed.digest() != digest);
      digests.insert(changed.digest());
    }
    CHECK(digests.size() == base.parts.size() + 1);
  }
  SECTION("changing a part's name changes the digest") {
    for (std::size_t i = 0; i < base.parts.size(); ++i) {
      CacheKey changed = base;
      changed.parts[i].first += "x";
      CHECK(changed.digest() != digest);
    }
  }
  SECTION("each input of make_kernel_key counts") {
    CHECK(make_kernel_key("__global__ void k() {} ", "-arch=sm_90 -std=c++17", "nvrtc 12.4", "sm_90").digest() !=
          digest);
    CHECK(make_kernel_key("__global__ void k() {}", "-arch=sm_90", "nvrtc 12.4", "sm_90").digest() != digest);
    CHECK(make_kernel_key("__global__ void k() {}", "-arch=sm_90 -std=c++17", "nvrtc 12.5", "sm_90").digest() !=
          digest);
    CHECK(make_kernel_key("__global__ void k() {}", "-arch=sm_90 -std=c++17", "nvrtc 12.4", "sm_80").digest() !=
          digest);
    CHECK(make_kernel_key("__global__ void k() {}", "-arch=sm_90 -std=c++17", "nvrtc 12.4", "sm_90 driver 13000")
              .digest() != digest);
    CHECK(make_kernel_key("__global__ void k() {}", "-arch=sm_90 -std=c++17", "nvrtc 12.4", "sm_90", 42).digest() !=
          digest);
  }
  SECTION("the templates, the scangen version (the build's) and the format version are parts") {
    CHECK(base.parts[4] == std::make_pair(std::string("templates"), std::string("0")));
    CHECK(base.parts[5] == std::make_pair(std::string("scangen"), std::string(scangen_version())));
    CHECK(std::string(scangen_version()) == SCANGEN_TEST_PROJECT_VERSION);
    CHECK(base.parts[6] == std::make_pair(std::string("cache-format"), std::to_string(kCacheFormatVersion)));
  }
  SECTION("order matters") {
    CacheKey swapped = base;
    std::swap(swapped.parts[0], swapped.parts[1]);
    CHECK(swapped.digest() != digest);
    CacheKey a, b;
    a.add("x", "1").add("y", "2");
    b.add("y", "2").add("x", "1");
    CHECK(a.digest() != b.digest());
  }
  SECTION("where one part ends and the next begins matters") {
    CacheKey a, b, c, d, e;
    a.add("ab", "c");
    b.add("a", "bc");
    c.add("a", "b").add("c", "");
    d.add("a", "b");
    e.add("a", "b").add("", "");
    const std::set<std::string> digests{a.digest(), b.digest(), c.digest(),
                                        d.digest(), e.digest(), CacheKey{}.digest()};
    CHECK(digests.size() == 6);
  }
}

TEST_CASE("cache: the memory key adds the context", "[runtime][cache]") {
  int contexts[2];
  const CacheKey key = test_key(1);
  CHECK(memory_key(key, &contexts[0]) == memory_key(key, &contexts[0]));
  CHECK(memory_key(key, &contexts[0]) != memory_key(key, &contexts[1]));
  CHECK(memory_key(key, nullptr) != memory_key(test_key(2), nullptr));
  CHECK(memory_key(key, nullptr).rfind(key.digest(), 0) == 0);
}

// ---------------------------------------------------------------------------
// Disk cache

TEST_CASE("cache: disk round trip", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir));
  REQUIRE(cache.enabled());
  CHECK(cache.disabled_reason().empty());
  CHECK(cache.directory() == dir.str());

  CHECK_FALSE(cache.load(test_key(1)));  // unknown key
  const auto payload = test_payload(1, 5000);
  cache.store(test_key(1), payload);
  CHECK(fs::exists(cache.entry_path(test_key(1).digest())));
  const auto loaded = cache.load(test_key(1));
  REQUIRE(loaded);
  CHECK(*loaded == payload);
  CHECK_FALSE(cache.load(test_key(2)));

  // An empty payload is a payload.
  cache.store(test_key(3), {});
  const auto empty = cache.load(test_key(3));
  REQUIRE(empty);
  CHECK(empty->empty());

  // A second store replaces the entry.
  const auto other = test_payload(9, 77);
  cache.store(test_key(1), other);
  CHECK(cache.load(test_key(1)) == other);

  // Another cache object on the same directory sees the entries.
  DiskCache second(options_for(dir));
  CHECK(second.load(test_key(1)) == other);

  // Nothing but the entries is left behind.
  CHECK(entry_names(dir) == std::set<std::string>{test_key(1).digest() + ".bin", test_key(3).digest() + ".bin"});

  const auto stats = cache.stats().snapshot();
  CHECK(stats.disk_hits == 3);
  CHECK(stats.disk_misses == 2);
  CHECK(stats.entries_written == 3);
  CHECK(stats.corrupt_entries == 0);
  CHECK(stats.evictions == 0);
  CHECK(stats.write_failures == 0);

  // Not a digest: a miss, nothing written, no path outside the directory.
  CHECK_FALSE(cache.load(std::string("../../etc/passwd")));
  cache.store(std::string("../escape"), payload);
  CHECK_FALSE(fs::exists(dir.path().parent_path() / "escape.bin"));
}

TEST_CASE("cache: a damaged entry is a miss, and the next store rewrites it", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir));
  REQUIRE(cache.enabled());
  const CacheKey key = test_key(1);
  const auto payload = test_payload(1, 3000);
  cache.store(key, payload);
  const std::string path = cache.entry_path(key.digest());
  const auto good = read_file(path);
  REQUIRE(good.size() == DiskCache::kHeaderSize + payload.size());

  std::vector<std::uint8_t> bad = good;
  SECTION("truncated payload") { bad.resize(good.size() - 1); }
  SECTION("truncated header") { bad.resize(DiskCache::kHeaderSize / 2); }
  SECTION("empty file") { bad.clear(); }
  SECTION("header only") { bad.resize(DiskCache::kHeaderSize); }
  SECTION("a flipped payload byte") { bad[DiskCache::kHeaderSize + 1234] ^= 0x10; }
  SECTION("a flipped checksum byte") { bad[100] ^= 0x01; }
  SECTION("wrong magic") { bad[0] = 'X'; }
  SECTION("wrong format version") { bad[8] = static_cast<std::uint8_t>(kCacheFormatVersion + 1); }
  SECTION("wrong header size") { bad[12] = 0x7f; }
  SECTION("header claims a larger size") { bad[80] = static_cast<std::uint8_t>(bad[80] + 1); }
  SECTION("header claims a smaller size") { bad[80] = static_cast<std::uint8_t>(bad[80] - 1); }
  SECTION("header claims a huge size") { bad[87] = 0xff; }
  SECTION("extra bytes at the end") { bad.push_back(0); }
  SECTION("another key's entry under this key's name") {
    const CacheKey other = test_key(2);
    cache.store(other, payload);
    bad = read_file(cache.entry_path(other.digest()));
  }
  write_file(path, bad);

  CHECK_FALSE(cache.load(key));
  CHECK_FALSE(cache.load(key));  // still a miss, still no crash
  CHECK(cache.stats().snapshot().corrupt_entries == 2);
  CHECK(cache.enabled());

  cache.store(key, payload);
  CHECK(read_file(path) == good);
  const auto loaded = cache.load(key);
  REQUIRE(loaded);
  CHECK(*loaded == payload);
  CHECK(cache.stats().snapshot().corrupt_entries == 2);
}

TEST_CASE("cache: an entry that is a directory is a miss", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir));
  const CacheKey key = test_key(1);
  fs::create_directory(cache.entry_path(key.digest()));
  CHECK_FALSE(cache.load(key));
  cache.store(key, test_payload(1));  // cannot replace a directory: nothing kept, no throw
  CHECK_FALSE(cache.load(key));
  CHECK(cache.stats().snapshot().write_failures == 1);
}

TEST_CASE("cache: over the bound, the least recently used entries go", "[runtime][cache]") {
  TempDir dir;
  const std::size_t payload_size = 1000;
  const std::uint64_t entry_size = DiskCache::kHeaderSize + payload_size;
  DiskCache cache(options_for(dir, 5 * entry_size));  // room for five
  REQUIRE(cache.enabled());

  // A file of someone else's in the directory is neither counted nor deleted.
  write_file((dir.path() / "README").string(), std::vector<std::uint8_t>(10 * entry_size, 'x'));

  const auto store = [&](int i) {
    cache.store(test_key(i), test_payload(i, payload_size));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // distinct modification times
  };
  for (int i = 0; i < 5; ++i) store(i);
  CHECK(cache.stats().snapshot().evictions == 0);
  for (int i = 0; i < 5; ++i) CHECK(fs::exists(cache.entry_path(test_key(i).digest())));

  store(5);  // 0 is the oldest
  CHECK_FALSE(fs::exists(cache.entry_path(test_key(0).digest())));
  CHECK(cache.stats().snapshot().evictions == 1);

  // A hit makes 1 the most recent: storing 6 and 7 removes 2 and 3 instead.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(cache.load(test_key(1)));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  store(6);
  store(7);
  CHECK(fs::exists(cache.entry_path(test_key(1).digest())));
  CHECK_FALSE(fs::exists(cache.entry_path(test_key(2).digest())));
  CHECK_FALSE(fs::exists(cache.entry_path(test_key(3).digest())));
  for (int i : {1, 4, 5, 6, 7}) CHECK(cache.load(test_key(i)) == test_payload(i, payload_size));
  CHECK(cache.stats().snapshot().evictions == 3);
  CHECK(fs::exists(dir.path() / "README"));
  CHECK(directory_bytes(dir) - 10 * entry_size <= 5 * entry_size);

  // Larger entries: as many of the oldest go as it takes.
  cache.store(test_key(100), test_payload(100, 3 * entry_size - DiskCache::kHeaderSize));
  CHECK(directory_bytes(dir) - 10 * entry_size <= 5 * entry_size);
  CHECK(cache.load(test_key(100)));
  CHECK(cache.stats().snapshot().evictions == 6);

  // A payload that could never fit is not written.
  cache.store(test_key(200), test_payload(200, 5 * entry_size));
  CHECK_FALSE(cache.load(test_key(200)));
  CHECK(cache.load(test_key(100)));
}

TEST_CASE("cache: stale temporary files are cleaned up, fresh ones are left", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir, 1 << 20));
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  const fs::path stale = dir.path() / ".scangen-tmp-a1B2c3";
  const fs::path fresh = dir.path() / ".scangen-tmp-d4E5f6";
  // Other programs' files, however old and however named like temporaries,
  // are theirs.
  const fs::path foreign = dir.path() / ".0123-dead.tmp";
  const fs::path foreign_like = dir.path() / ".scangen-tmp-notmine.txt";
  for (const fs::path& p : {stale, fresh, foreign, foreign_like}) write_file(p.string(), {1, 2, 3});
  for (const fs::path& p : {stale, foreign, foreign_like}) fs::last_write_time(p, two_hours_ago);
  cache.store(test_key(1), test_payload(1));
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(fresh));
  CHECK(fs::exists(foreign));
  CHECK(fs::exists(foreign_like));
}

TEST_CASE("cache: the directory must be this user's and writable by no one else", "[runtime][cache]") {
  TempDir dir;
  SECTION("a directory it makes is private, and so are its entries") {
    DiskCache::Options options;
    options.directory = (dir.path() / "new" / "scangen").string();
    DiskCache cache(options);
    REQUIRE(cache.enabled());
    CHECK((fs::status(options.directory).permissions() & fs::perms::all) == fs::perms::owner_all);
    cache.store(test_key(1), test_payload(1));
    CHECK((fs::status(cache.entry_path(test_key(1).digest())).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write));
  }
  SECTION("writable by others (a shared /tmp folder)") {
    const std::string shared = (dir.path() / "shared").string();
    fs::create_directory(shared);
    fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
    DiskCache::Options options;
    options.directory = shared;
    DiskCache cache(options);
    CHECK_FALSE(cache.enabled());
    INFO(cache.disabled_reason());
    CHECK(cache.disabled_reason().find("not trusted") != std::string::npos);
    CHECK(cache.disabled_reason().find("mode 1777") != std::string::npos);
    // Nothing is read from it, not even a valid entry someone planted.
    DiskCache::Options own = options_for(dir);
    own.directory = (dir.path() / "own").string();
    DiskCache writer(own);
    writer.store(test_key(2), test_payload(2));
    fs::copy_file(writer.entry_path(test_key(2).digest()), cache.entry_path(test_key(2).digest()));
    CHECK_FALSE(cache.load(test_key(2)));
  }
  SECTION("writable by its group") {
    const std::string group = (dir.path() / "group").string();
    fs::create_directory(group);
    fs::permissions(group, fs::perms::owner_all | fs::perms::group_all);
    DiskCache::Options options;
    options.directory = group;
    DiskCache cache(options);
    CHECK_FALSE(cache.enabled());
    CHECK(cache.disabled_reason().find("mode 0770") != std::string::npos);
  }
  SECTION("owned by another user") {
    if (geteuid() != 0) {
      WARN("skipped: only root can give a directory to another user here");
      return;
    }
    const std::string theirs = (dir.path() / "theirs").string();
    fs::create_directory(theirs);
    fs::permissions(theirs, fs::perms::owner_all);
    REQUIRE(chown(theirs.c_str(), 12345, 12345) == 0);
    DiskCache::Options options;
    options.directory = theirs;
    DiskCache cache(options);
    CHECK_FALSE(cache.enabled());
    CHECK(cache.disabled_reason().find("belongs to user id 12345") != std::string::npos);
  }
}

TEST_CASE("cache: only a regular file of this user's is an entry", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir));
  REQUIRE(cache.enabled());
  const std::string digest = test_key(1).digest();
  const std::string entry = cache.entry_path(digest);
  // A valid entry elsewhere, to point at or copy.
  TempDir other;
  DiskCache elsewhere(options_for(other));
  elsewhere.store(test_key(1), test_payload(1));
  const std::string valid = elsewhere.entry_path(digest);
  REQUIRE(elsewhere.load(test_key(1)));

  SECTION("a FIFO is skipped at once, not waited on") {
    REQUIRE(mkfifo(entry.c_str(), 0600) == 0);
    auto result = std::async(std::launch::async, [&] { return cache.load(test_key(1)).has_value(); });
    REQUIRE(result.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    CHECK_FALSE(result.get());
    // and a store replaces it with an entry
    cache.store(test_key(1), test_payload(1));
    CHECK(cache.load(test_key(1)));
  }
  SECTION("a symbolic link is not followed") {
    fs::create_symlink(valid, entry);
    CHECK_FALSE(cache.load(test_key(1)));
    CHECK(cache.stats().snapshot().corrupt_entries == 1);
  }
  SECTION("a file of another user's is not read") {
    if (geteuid() != 0) {
      WARN("skipped: only root can give a file to another user here");
      return;
    }
    fs::copy_file(valid, entry);
    REQUIRE(cache.load(test_key(1)));
    REQUIRE(chown(entry.c_str(), 12345, 12345) == 0);
    CHECK_FALSE(cache.load(test_key(1)));
  }
  SECTION("a file larger than the bound is not read: a miss, not a corrupt entry (a valid entry is not damaged)") {
    DiskCache small(options_for(dir, 100));
    fs::copy_file(valid, entry);
    CHECK_FALSE(small.load(test_key(1)));
    CHECK(small.stats().snapshot().corrupt_entries == 0);
    CHECK(small.stats().snapshot().disk_misses == 1);
  }
}

TEST_CASE("cache: an entry the backend refuses is a miss, and the next store replaces it", "[runtime][cache]") {
  TempDir dir;
  DiskCache cache(options_for(dir));
  cache.store(test_key(1), test_payload(1));
  const auto refuse = [](const std::vector<std::uint8_t>&) { return false; };
  const auto take = [](const std::vector<std::uint8_t>&) { return true; };
  CHECK_FALSE(cache.load(test_key(1), refuse));
  auto s = cache.stats().snapshot();
  CHECK(s.disk_hits == 0);
  CHECK(s.disk_misses == 1);
  CHECK(s.corrupt_entries == 1);
  CHECK(cache.load(test_key(1), take));
  CHECK(cache.stats().snapshot().disk_hits == 1);
}
