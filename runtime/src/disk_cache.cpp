// The disk cache (cache.h: the entry layout and the trust rules; runtime/README.md).
#include "cache.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace scangen::runtime::detail {

// ---------------------------------------------------------------------------
// Disk cache

namespace {

constexpr char kMagic[8] = {'S', 'C', 'A', 'N', 'G', 'E', 'N', 'K'};
constexpr const char* kEntrySuffix = ".bin";
// Temporary files: made by mkstemp from this prefix and six characters; the
// only files besides entries that clean-up deletes.
constexpr const char* kTempPrefix = ".scangen-tmp-";
// Temporary files older than this were left by a process that died mid-store.
constexpr auto kStaleTempAge = std::chrono::hours(1);

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::optional<std::uint64_t> parse_byte_count(const std::string& text) {
  std::size_t i = 0;
  std::uint64_t value = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
    ++i;
  }
  if (i == 0) return std::nullopt;
  const std::string suffix = lower(text.substr(i));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "b") {
    shift = 0;
  } else if (suffix == "k" || suffix == "kb" || suffix == "kib") {
    shift = 10;
  } else if (suffix == "m" || suffix == "mb" || suffix == "mib") {
    shift = 20;
  } else if (suffix == "g" || suffix == "gb" || suffix == "gib") {
    shift = 30;
  } else {
    return std::nullopt;
  }
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

bool is_entry_name(const std::string& name) {
  const std::size_t suffix = std::strlen(kEntrySuffix);
  return name.size() == 64 + suffix && name.compare(64, suffix, kEntrySuffix) == 0 &&
         is_valid_digest(std::string_view(name).substr(0, 64));
}

bool is_temp_name(const std::string& name) {
  const std::size_t prefix = std::strlen(kTempPrefix);
  if (name.size() != prefix + 6 || name.compare(0, prefix, kTempPrefix) != 0) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

std::string errno_text(int error) { return std::strerror(error); }

void touch(const fs::path& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // best effort
}

// Writes all of `size` bytes; an errno value on failure.
int write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

// Writes `header` and `payload` into a new temporary file in `dir` (mkstemp:
// readable and writable by this user alone) and puts its path in `path`. On
// failure, an errno value (or EIO) and no file.
int write_temp_file(const fs::path& dir, const std::uint8_t* header, std::size_t header_size,
                    const std::vector<std::uint8_t>& payload, fs::path& path) {
  std::string name = (dir / (std::string(kTempPrefix) + "XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return errno != 0 ? errno : EIO;
  path = name;
  int error = write_all(fd, header, header_size);
  if (error == 0 && !payload.empty()) error = write_all(fd, payload.data(), payload.size());
  if (::close(fd) != 0 && error == 0) error = errno != 0 ? errno : EIO;
  if (error != 0) ::unlink(name.c_str());
  return error;
}

// Why a directory may not hold the cache, or "" when it may: only a
// directory that belongs to this user and that no one else can write is
// trusted (anyone who can write it could plant an entry whose checksum holds).
std::string untrusted_reason(const std::string& directory) {
  struct stat st {};
  if (::stat(directory.c_str(), &st) != 0) return "cannot stat it: " + std::string(std::strerror(errno));
  if (st.st_uid != ::geteuid()) {
    return "it belongs to user id " + std::to_string(st.st_uid) + ", not to this user (" + std::to_string(::geteuid()) +
           ")";
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("its group or other users can write it (mode ") + mode + ")";
  }
  return "";
}

}  // namespace

DiskCache::Options DiskCache::Options::from_environment() {
  Options options;
  if (const auto disable = environment("SCANGEN_CACHE_DISABLE")) {
    const std::string value = lower(*disable);
    if (value != "0" && value != "false" && value != "no" && value != "off") {
      options.disabled = true;
      options.disabled_reason = "disabled by SCANGEN_CACHE_DISABLE=" + *disable;
    }
  }
  if (const auto dir = environment("SCANGEN_CACHE_DIR")) {
    options.directory = *dir;
  } else if (const auto xdg = environment("XDG_CACHE_HOME"); xdg && fs::path(*xdg).is_absolute()) {
    options.directory = (fs::path(*xdg) / "scangen").string();
  } else if (const auto home = environment("HOME")) {
    options.directory = (fs::path(*home) / ".cache" / "scangen").string();
  } else if (!options.disabled) {
    options.disabled = true;
    options.disabled_reason = "no cache directory: none of SCANGEN_CACHE_DIR, XDG_CACHE_HOME and HOME is set";
  }
  if (const auto max = environment("SCANGEN_CACHE_MAX_BYTES")) {
    // A value that is no size turns the disk cache off, saying why (Runtime::stats, scangen cache), rather than
    // being ignored.
    if (const auto bytes = parse_byte_count(*max); bytes && *bytes > 0) {
      options.max_bytes = *bytes;
    } else if (!options.disabled) {
      options.disabled = true;
      options.disabled_reason = "SCANGEN_CACHE_MAX_BYTES='" + *max +
                                "' is not a size: give a whole number of bytes, optionally with K, M or G "
                                "(256M), greater than 0";
    }
  }
  return options;
}

DiskCache::DiskCache(Options options, std::shared_ptr<CacheCounters> stats)
    : directory_(std::move(options.directory)),
      max_bytes_(options.max_bytes > 0 ? options.max_bytes : kDefaultMaxBytes),
      stats_(stats ? std::move(stats) : std::make_shared<CacheCounters>()) {
  if (options.disabled) {
    disable(options.disabled_reason.empty() ? "disabled" : options.disabled_reason);
    return;
  }
  if (directory_.empty()) {
    disable("no cache directory given");
    return;
  }
  const fs::path dir(directory_);
  std::error_code ec;
  const bool existed = fs::exists(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) {
    disable("cannot create the cache directory '" + directory_ + "': " + ec.message());
    return;
  }
  if (!fs::is_directory(dir, ec)) {
    disable("the cache path '" + directory_ + "' is not a directory");
    return;
  }
  // A directory made here is this user's alone.
  if (!existed && ::chmod(directory_.c_str(), S_IRWXU) != 0) {
    disable("cannot make the cache directory '" + directory_ + "' private (chmod 0700): " + errno_text(errno));
    return;
  }
  if (const std::string why = untrusted_reason(directory_); !why.empty()) {
    disable("the cache directory '" + directory_ + "' is not trusted, so the disk cache is off: " + why +
            "; use a directory of your own (SCANGEN_CACHE_DIR, or unset it for ~/.cache/scangen)");
    return;
  }
  // Can we create files here? (Permissions alone do not tell: root, ACLs,
  // read-only mounts.)
  fs::path probe;
  const std::uint8_t byte = 0;
  if (const int error = write_temp_file(dir, &byte, 1, {}, probe); error != 0) {
    disable("cannot write into the cache directory '" + directory_ + "': " + errno_text(error));
    return;
  }
  fs::remove(probe, ec);
  enabled_.store(true, std::memory_order_release);
}

void DiskCache::disable(std::string reason) {
  for (char& c : reason) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  {
    std::lock_guard<std::mutex> guard(reason_mutex_);
    if (reason_.empty()) reason_ = std::move(reason);
  }
  enabled_.store(false, std::memory_order_release);
}

std::string DiskCache::disabled_reason() const {
  if (enabled()) return {};
  std::lock_guard<std::mutex> guard(reason_mutex_);
  return reason_;
}

std::string DiskCache::entry_path(const std::string& digest) const {
  return (fs::path(directory_) / (digest + kEntrySuffix)).string();
}

std::optional<std::vector<std::uint8_t>> DiskCache::load(const std::string& digest, const Accept& accept) {
  if (!enabled()) return std::nullopt;
  if (!is_valid_digest(digest)) {
    stats_->record_disk_miss();
    return std::nullopt;
  }
  const auto corrupt = [&]() -> std::optional<std::vector<std::uint8_t>> {
    stats_->record_corrupt_entry();
    stats_->record_disk_miss();
    return std::nullopt;
  };
  struct Fd {
    int fd;
    ~Fd() {
      if (fd >= 0) ::close(fd);
    }
  };
  try {
    const fs::path path = entry_path(digest);
    // Never through a symbolic link, never blocking (a FIFO planted at the
    // path opens at once and is refused below).
    Fd file{::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
    if (file.fd < 0) {
      if (errno == ENOENT) {
        stats_->record_disk_miss();
        return std::nullopt;
      }
      return corrupt();  // a link (ELOOP), or unreadable: not an entry we wrote
    }
    // Only a regular file of this user's, of a size an entry can have. The
    // size is that of the file opened (a concurrent store replaces the
    // directory entry, not this file).
    struct stat st {};
    if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) return corrupt();
    const auto file_size = static_cast<std::uint64_t>(st.st_size);
    if (file_size < kHeaderSize) return corrupt();
    if (file_size - kHeaderSize > max_bytes_) {  // an entry over this process's bound: a miss, not corruption
      stats_->record_disk_miss();
      return std::nullopt;
    }

    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(file_size) + 1);  // one more: it must not grow
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(file.fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return corrupt();
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got != file_size) return corrupt();  // shrank or grew under us: not the file we measured
    const std::uint8_t* header = bytes.data();
    if (std::memcmp(header, kMagic, sizeof kMagic) != 0) return corrupt();
    if (get_le(header + 8, 4) != kCacheFormatVersion || get_le(header + 12, 4) != kHeaderSize) return corrupt();
    if (std::memcmp(header + 16, digest.data(), 64) != 0) return corrupt();
    const std::uint64_t payload_size = get_le(header + 80, 8);
    if (payload_size != file_size - kHeaderSize) return corrupt();
    std::vector<std::uint8_t> payload(bytes.begin() + static_cast<std::ptrdiff_t>(kHeaderSize),
                                      bytes.begin() + static_cast<std::ptrdiff_t>(file_size));
    const Sha256::Digest checksum = Sha256::hash(payload.data(), payload.size());
    if (std::memcmp(header + 88, checksum.data(), checksum.size()) != 0) return corrupt();
    // The backend's word: an entry it cannot load is no hit (the caller
    // compiles, and its store replaces the entry).
    if (accept && !accept(payload)) return corrupt();

    touch(path);
    stats_->record_disk_hit();
    return payload;
  } catch (...) {  // std::bad_alloc, say: nothing to return, nothing to throw
    stats_->record_disk_miss();
    return std::nullopt;
  }
}

void DiskCache::store(const std::string& digest, const std::vector<std::uint8_t>& payload) {
  if (!enabled()) return;
  if (!is_valid_digest(digest) || payload.size() > max_bytes_ || max_bytes_ - payload.size() < kHeaderSize) {
    stats_->record_write_failure();  // could never be kept
    return;
  }
  std::uint8_t header[kHeaderSize] = {};
  std::memcpy(header, kMagic, sizeof kMagic);
  put_le(header + 8, kCacheFormatVersion, 4);
  put_le(header + 12, kHeaderSize, 4);
  std::memcpy(header + 16, digest.data(), 64);
  put_le(header + 80, payload.size(), 8);
  const Sha256::Digest checksum = Sha256::hash(payload.data(), payload.size());
  std::memcpy(header + 88, checksum.data(), checksum.size());

  try {
    const fs::path dir(directory_);
    fs::path temp;
    int error = write_temp_file(dir, header, kHeaderSize, payload, temp);
    if (error == ENOENT) {  // the directory was removed under us: make it again, once, private
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (!ec && ::chmod(directory_.c_str(), S_IRWXU) != 0)
        error = errno;
      else
        error = write_temp_file(dir, header, kHeaderSize, payload, temp);
    }
    if (error != 0) {
      stats_->record_write_failure();
      disable("cannot write into the cache directory '" + directory_ + "': " + errno_text(error));
      return;
    }
    touch(temp);  // a fine-grained mtime for the LRU order
    std::error_code ec;
    fs::rename(temp, entry_path(digest), ec);
    if (ec) {
      stats_->record_write_failure();
      std::error_code ignored;
      fs::remove(temp, ignored);
      return;
    }
    stats_->record_entry_written();
    evict_if_needed();
  } catch (const std::exception&) {
    stats_->record_write_failure();  // std::bad_alloc from a path, say: nothing kept
  }
}

void DiskCache::evict_if_needed() {
  struct Entry {
    fs::file_time_type modified;
    std::uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  const auto now = fs::file_time_type::clock::now();

  std::error_code ec;
  fs::directory_iterator it(directory_, ec);
  const fs::directory_iterator end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    const std::string name = path.filename().string();
    std::error_code entry_ec;  // entries vanish under a concurrent eviction: skip them
    if (is_entry_name(name)) {
      const std::uint64_t size = fs::file_size(path, entry_ec);
      if (entry_ec) continue;
      const fs::file_time_type modified = fs::last_write_time(path, entry_ec);
      if (entry_ec) continue;
      entries.push_back({modified, size, path});
      total += size;
    } else if (is_temp_name(name)) {
      const fs::file_time_type modified = fs::last_write_time(path, entry_ec);
      if (!entry_ec && now - modified > kStaleTempAge) fs::remove(path, entry_ec);
    }
  }
  if (total <= max_bytes_) return;

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.modified != b.modified ? a.modified < b.modified : a.path < b.path;
  });
  for (const Entry& entry : entries) {
    if (total <= max_bytes_) break;
    std::error_code remove_ec;
    if (fs::remove(entry.path, remove_ec)) stats_->record_eviction();
    total -= entry.size;  // gone either way (or another process took it)
  }
}

}  // namespace scangen::runtime::detail
