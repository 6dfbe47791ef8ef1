// libFuzzer target for the disk cache's entry loader (runtime/src/cache.h):
// whatever bytes lie at an entry's path, DiskCache::load never crashes and
// never returns a payload unless the file is exactly the entry a store of
// that payload writes.
//
// The first byte of an input chooses what is planted:
//   even: the rest of the input, as the file's bytes;
//   odd:  a valid entry of the input's tail (written by DiskCache::store),
//         with one byte of it changed where bytes 1-2 say, by byte 3 (unless
//         byte 3 is 0: the entry unchanged, which must load).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cache.h"

namespace {

using scangen::runtime::detail::CacheKey;
using scangen::runtime::detail::DiskCache;

// The folders this run made, removed when it exits.
std::vector<std::string>& made_dirs() {
  static std::vector<std::string> dirs;
  return dirs;
}

std::string make_dir() {
  std::string pattern = "/tmp/scangen-fuzz-cache-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  if (made_dirs().empty())
    std::atexit([] {
      for (const std::string& d : made_dirs()) {
        std::error_code ec;
        std::filesystem::remove_all(d, ec);
      }
    });
  made_dirs().push_back(pattern);
  return pattern;
}

DiskCache& cache() {
  static DiskCache c([] {
    DiskCache::Options o;
    o.directory = make_dir();
    o.max_bytes = 1 << 20;
    return o;
  }());
  if (!c.enabled()) std::abort();
  return c;
}

DiskCache& reference_cache() {  // where valid entries are written to compare with
  static DiskCache c([] {
    DiskCache::Options o;
    o.directory = make_dir();
    o.max_bytes = 1 << 20;
    return o;
  }());
  return c;
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const std::vector<uint8_t>& bytes) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  static const std::string digest = CacheKey().add("fuzz", "entry").digest();
  DiskCache& c = cache();
  const std::string path = c.entry_path(digest);
  const std::vector<uint8_t> tail(data + 4, data + size);
  bool must_load = false, must_fail = false;
  if (data[0] % 2 == 0) {
    write_all(path, std::vector<uint8_t>(data + 1, data + size));
  } else {
    c.store(digest, tail);
    std::vector<uint8_t> entry = read_all(path);
    if (entry.empty()) std::abort();
    if (data[3] == 0) {
      must_load = true;
    } else {
      entry[((size_t{data[1]} << 8) | data[2]) % entry.size()] ^= data[3];
      must_fail = true;  // every byte of an entry is checked
    }
    write_all(path, entry);
  }
  const auto loaded = c.load(digest);
  if (must_load && (!loaded || *loaded != tail)) std::abort();
  if (must_fail && loaded) std::abort();
  if (loaded) {
    // Only the exact bytes a store of this payload writes.
    reference_cache().store(digest, *loaded);
    if (read_all(reference_cache().entry_path(digest)) != read_all(path)) std::abort();
  }
  return 0;
}
