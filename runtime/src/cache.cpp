#include "cache.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SCANGEN_VERSION
#define SCANGEN_VERSION "unknown"
#endif

namespace fs = std::filesystem;

namespace scangen::runtime::detail {

const char* scangen_version() noexcept { return SCANGEN_VERSION; }

// ---------------------------------------------------------------------------
// SHA-256

namespace {

constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, unsigned n) { return (x >> n) | (x << (32u - n)); }

}  // namespace

Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      buffer_{} {}

void Sha256::compress(const std::uint8_t* block) {
  std::array<std::uint32_t, 64> w;
  for (std::size_t i = 0; i < 16; ++i) {
    w[i] = static_cast<std::uint32_t>(block[4 * i]) << 24 | static_cast<std::uint32_t>(block[4 * i + 1]) << 16 |
           static_cast<std::uint32_t>(block[4 * i + 2]) << 8 | static_cast<std::uint32_t>(block[4 * i + 3]);
  }
  for (std::size_t i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint32_t big_s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const std::uint32_t choose = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + big_s1 + choose + kRoundConstants[i] + w[i];
    const std::uint32_t big_s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = big_s0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  length_ += size;
  if (buffered_ > 0) {
    const std::size_t take = std::min(buffer_.size() - buffered_, size);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < buffer_.size()) return;
    compress(buffer_.data());
    buffered_ = 0;
  }
  for (; size >= 64; p += 64, size -= 64) compress(p);
  if (size > 0) {
    std::memcpy(buffer_.data(), p, size);
    buffered_ = size;
  }
}

Sha256::Digest Sha256::finish() {
  const std::uint64_t bits = length_ * 8;
  buffer_[buffered_++] = 0x80;
  if (buffered_ > 56) {
    std::fill(buffer_.begin() + static_cast<std::ptrdiff_t>(buffered_), buffer_.end(), std::uint8_t{0});
    compress(buffer_.data());
    buffered_ = 0;
  }
  std::fill(buffer_.begin() + static_cast<std::ptrdiff_t>(buffered_), buffer_.begin() + 56, std::uint8_t{0});
  for (unsigned i = 0; i < 8; ++i) buffer_[56 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  compress(buffer_.data());
  buffered_ = 0;

  Digest out;
  for (std::size_t i = 0; i < 8; ++i) {
    for (unsigned j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * j));
  }
  return out;
}

Sha256::Digest Sha256::hash(const void* data, std::size_t size) {
  Sha256 h;
  h.update(data, size);
  return h.finish();
}

std::string to_hex(const std::uint8_t* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * size, '0');
  for (std::size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
  return out;
}

// ---------------------------------------------------------------------------
// Keys

namespace {

void put_u32(std::uint8_t* out, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* out, std::uint64_t v) {
  for (unsigned i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* in) {
  std::uint32_t v = 0;
  for (unsigned i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(in[i]) << (8 * i);
  return v;
}
std::uint64_t get_u64(const std::uint8_t* in) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return v;
}

void hash_length_prefixed(Sha256& h, std::string_view text) {
  std::uint8_t length[8];
  put_u64(length, text.size());
  h.update(length, sizeof length);
  h.update(text);
}

}  // namespace

std::string CacheKey::digest() const {
  Sha256 h;
  hash_length_prefixed(h, "scangen cache key");
  std::uint8_t count[8];
  put_u64(count, parts.size());
  h.update(count, sizeof count);
  for (const auto& [name, value] : parts) {
    hash_length_prefixed(h, name);
    hash_length_prefixed(h, value);
  }
  const Sha256::Digest d = h.finish();
  return to_hex(d.data(), d.size());
}

CacheKey make_kernel_key(std::string source, std::string options, std::string compiler, std::string architecture,
                         std::uint64_t templates_hash) {
  CacheKey key;
  key.add("source", std::move(source))
      .add("options", std::move(options))
      .add("compiler", std::move(compiler))
      .add("architecture", std::move(architecture))
      .add("templates", std::to_string(templates_hash))
      .add("scangen", scangen_version())
      .add("cache-format", std::to_string(kCacheFormatVersion));
  return key;
}

bool is_valid_digest(std::string_view digest) noexcept {
  return digest.size() == 64 && std::all_of(digest.begin(), digest.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string memory_key(const std::string& digest, const void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(context);
  std::uint8_t bytes[sizeof address];
  for (std::size_t i = 0; i < sizeof address; ++i) {
    bytes[i] = static_cast<std::uint8_t>(address >> (8 * (sizeof address - 1 - i)));
  }
  return digest + "@" + to_hex(bytes, sizeof bytes);
}

// ---------------------------------------------------------------------------
// Statistics

CacheStatsSnapshot CacheStats::snapshot() const {
  const auto get = [](const Counter& c) { return c.load(std::memory_order_relaxed); };
  CacheStatsSnapshot s;
  s.memory_hits = get(memory_hits_);
  s.memory_waits = get(memory_waits_);
  s.memory_misses = get(memory_misses_);
  s.disk_hits = get(disk_hits_);
  s.disk_misses = get(disk_misses_);
  s.compiles = get(compiles_);
  s.compile_milliseconds = static_cast<double>(get(compile_nanoseconds_)) / 1e6;
  s.entries_written = get(entries_written_);
  s.evictions = get(evictions_);
  s.corrupt_entries = get(corrupt_entries_);
  s.write_failures = get(write_failures_);
  return s;
}

void CacheStats::reset() {
  for (Counter* c : {&memory_hits_, &memory_waits_, &memory_misses_, &disk_hits_, &disk_misses_, &compiles_,
                     &compile_nanoseconds_, &entries_written_, &evictions_, &corrupt_entries_, &write_failures_}) {
    c->store(0, std::memory_order_relaxed);
  }
}

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
    return "it belongs to user id " + std::to_string(st.st_uid) + ", not to this user (" +
           std::to_string(::geteuid()) + ")";
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
    if (const auto bytes = parse_byte_count(*max); bytes && *bytes > 0) options.max_bytes = *bytes;
  }
  return options;
}

DiskCache::DiskCache(Options options, std::shared_ptr<CacheStats> stats)
    : directory_(std::move(options.directory)),
      max_bytes_(options.max_bytes > 0 ? options.max_bytes : kDefaultMaxBytes),
      stats_(stats ? std::move(stats) : std::make_shared<CacheStats>()) {
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
    if (file_size < kHeaderSize || file_size - kHeaderSize > max_bytes_) return corrupt();

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
    if (get_u32(header + 8) != kCacheFormatVersion || get_u32(header + 12) != kHeaderSize) return corrupt();
    if (std::memcmp(header + 16, digest.data(), 64) != 0) return corrupt();
    const std::uint64_t payload_size = get_u64(header + 80);
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
  put_u32(header + 8, kCacheFormatVersion);
  put_u32(header + 12, kHeaderSize);
  std::memcpy(header + 16, digest.data(), 64);
  put_u64(header + 80, payload.size());
  const Sha256::Digest checksum = Sha256::hash(payload.data(), payload.size());
  std::memcpy(header + 88, checksum.data(), checksum.size());

  try {
    const fs::path dir(directory_);
    fs::path temp;
    int error = write_temp_file(dir, header, kHeaderSize, payload, temp);
    if (error == ENOENT) {  // the directory was removed under us: make it again, once, private
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (!ec && ::chmod(directory_.c_str(), S_IRWXU) != 0) error = errno;
      else error = write_temp_file(dir, header, kHeaderSize, payload, temp);
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
