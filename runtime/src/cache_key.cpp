#include "cache.h"

// The cache's key (SHA-256 over named parts), the memory key and the
// counters; the disk cache is in disk_cache.cpp.
#include <algorithm>
#include <cstring>

#ifndef SCANGEN_VERSION
#define SCANGEN_VERSION "unknown"
#endif

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

void put_le(std::uint8_t* out, std::uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}

std::uint64_t get_le(const std::uint8_t* in, unsigned bytes) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
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

void hash_length_prefixed(Sha256& h, std::string_view text) {
  std::uint8_t length[8];
  put_le(length, text.size(), sizeof length);
  h.update(length, sizeof length);
  h.update(text);
}

}  // namespace

std::string CacheKey::digest() const {
  Sha256 h;
  hash_length_prefixed(h, "scangen cache key");
  std::uint8_t count[8];
  put_le(count, parts.size(), sizeof count);
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
  return digest.size() == 64 && std::all_of(digest.begin(), digest.end(),
                                            [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
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

CacheStats CacheCounters::snapshot() const {
  const auto get = [](const Counter& c) { return c.load(std::memory_order_relaxed); };
  CacheStats s;
  s.memory_hits = get(memory_hits_);
  s.memory_waits = get(memory_waits_);
  s.memory_misses = get(memory_misses_);
  s.disk_hits = get(disk_hits_);
  s.disk_misses = get(disk_misses_);
  s.misses = get(compiles_);
  s.compile_ms = static_cast<double>(get(compile_nanoseconds_)) / 1e6;
  s.entries_written = get(entries_written_);
  s.evictions = get(evictions_);
  s.corrupt_entries = get(corrupt_entries_);
  s.write_failures = get(write_failures_);
  s.fast_compiles = get(fast_compiles_);
  s.tuned_compiles = get(tuned_compiles_);
  s.tuned_compile_ms = static_cast<double>(get(tuned_compile_nanoseconds_)) / 1e6;
  s.tuned_failures = get(tuned_failures_);
  s.tier_swaps = get(tier_swaps_);
  std::lock_guard<std::mutex> lock(error_mutex_);
  s.last_tuned_error = last_tuned_error_;
  return s;
}

void CacheCounters::reset() {
  for (Counter* c : {&memory_hits_, &memory_waits_, &memory_misses_, &disk_hits_, &disk_misses_, &compiles_,
                     &compile_nanoseconds_, &entries_written_, &evictions_, &corrupt_entries_, &write_failures_,
                     &fast_compiles_, &tuned_compiles_, &tuned_compile_nanoseconds_, &tuned_failures_, &tier_swaps_}) {
    c->store(0, std::memory_order_relaxed);
  }
  std::lock_guard<std::mutex> lock(error_mutex_);
  last_tuned_error_.clear();
}

}  // namespace scangen::runtime::detail
