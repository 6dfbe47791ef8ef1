// Shaped and segmented scans of more than 2^32 elements in one call on a
// CUDA GPU (label gpu, tag [large]: scripts/gpu-check; skipped, exit 4,
// where there is no GPU): batched rows (long rows with gaps, and millions of
// short rows), a column scan whose second strip holds one line, a scan
// segmented by offsets, and a select and a partition (fused outputs). u8 sums wrap around, so every element is checked
// exactly by a native loop; the gaps between rows and the outputs past the
// end must keep their poison.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "runtime_test_support.h"

namespace {

using scangen::test::cuda::driver;
using namespace scangen::test::runtime;

constexpr uint8_t kPoison = 0xA5;

// Every buffer has 16 bytes more than asked for, poisoned where it is an
// output: a write past the end is seen.
using Buffer = scangen::test::cuda::DeviceBuffer;

// n random bytes, eight a step of splitmix64 (std::mt19937_64 byte by byte
// takes minutes at these sizes).
std::vector<uint8_t> random_bytes(uint64_t n, uint64_t seed) {
  std::vector<uint8_t> v(n);
  uint64_t x = seed;
  for (uint64_t i = 0; i < n; i += 8) {
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    std::memcpy(v.data() + i, &z, n - i < 8 ? n - i : 8);
  }
  return v;
}

Buffer upload(const std::vector<uint8_t>& host) {
  Buffer b(host.size() + 16);
  CU_CHECK(driver().cuMemcpyHtoD(b.p, host.data(), host.size()));
  return b;
}

Buffer poisoned(uint64_t bytes) {
  Buffer b(bytes + 16);
  CU_CHECK(driver().cuMemsetD8(b.p, kPoison, bytes + 16));
  return b;
}

std::vector<uint8_t> download(const Buffer& b, uint64_t bytes) {
  CU_CHECK(driver().cuCtxSynchronize());
  std::vector<uint8_t> host(bytes + 16);
  CU_CHECK(driver().cuMemcpyDtoH(host.data(), b.p, host.size()));
  return host;
}

// Lines of `length` elements from `first`, `step` elements apart along the
// line and `line_step` apart between lines: out must be the wrapping
// inclusive sums of in, aggregate[line] the line's total. Returns the number
// of wrong elements and where the first is.
struct Lines {
  uint64_t lines, length, first_step, step, line_step;
};
uint64_t count_wrong(const std::vector<uint8_t>& in, const std::vector<uint8_t>& out,
                     const std::vector<uint8_t>& aggregates, const Lines& l, std::string& first) {
  uint64_t bad = 0;
  for (uint64_t line = 0; line < l.lines; ++line) {
    uint8_t sum = 0;
    const uint64_t base = line * l.line_step;
    for (uint64_t j = 0; j < l.length; ++j) {
      const uint64_t at = base + j * l.step;
      sum = static_cast<uint8_t>(sum + in[at]);
      if (out[at] != sum && bad++ == 0)
        first = "line " + std::to_string(line) + " position " + std::to_string(j) + ": " + std::to_string(out[at]) +
                " for " + std::to_string(sum);
    }
    if (aggregates[line] != sum && bad++ == 0) first = "the aggregate of line " + std::to_string(line);
  }
  return bad;
}

void rows_case(scangen::Runtime& rt, uint64_t rows, uint64_t length, uint64_t stride, uint64_t seed) {
  INFO(rows << " rows of " << length << " (stride " << stride << "): " << rows * length << " elements");
  REQUIRE(rows * length > (1ull << 32));
  const scangen::Scan s = rt.compile(
      "scan big_rows { type = u8; op = add; level = device; shape = rows; "
      "outputs = aggregate; }");
  const uint64_t span = (rows - 1) * stride + length;
  const std::vector<uint8_t> in = random_bytes(span, seed);
  const Buffer d_in = upload(in);
  const Buffer d_out = poisoned(span), d_agg = poisoned(rows);
  scangen::Scan::CudaArgs a;
  a.in = d_in.get();
  a.inclusive = d_out.get();
  a.aggregate = d_agg.get();
  a.rows = rows;
  a.length = length;
  a.row_stride = stride;
  s.run(a);
  const std::vector<uint8_t> out = download(d_out, span), agg = download(d_agg, rows);
  std::string first;
  const uint64_t bad = count_wrong(in, out, agg, {rows, length, 0, 1, stride}, first);
  INFO(bad << " wrong; the first: " << first);
  CHECK(bad == 0);
  uint64_t gaps = 0;  // the gaps between rows and the bytes past the end are not written
  for (uint64_t r = 0; r + 1 < rows; ++r)
    for (uint64_t j = length; j < stride; ++j) gaps += out[r * stride + j] != kPoison;
  for (uint64_t j = span; j < out.size(); ++j) gaps += out[j] != kPoison;
  for (uint64_t j = rows; j < agg.size(); ++j) gaps += agg[j] != kPoison;
  CHECK(gaps == 0);
}

}  // namespace

TEST_CASE("CUDA rows scans of more than 2^32 elements in one call", "[gpu][shapes][large]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  rows_case(rt, 5, (1ull << 30) - 3, (1ull << 30) + 13, s0);  // long rows across tiles, gaps between them
  rows_case(rt, (1ull << 22) + 1, 1025, 1025, s0 + 1);        // millions of short rows, several a tile
}

TEST_CASE("CUDA column scan of more than 2^32 elements in one call", "[gpu][shapes][large]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  // 33 columns: a strip of 32 lines and one of a single line.
  const uint64_t rows = (1ull << 27) + 3, cols = 33, n = rows * cols;
  REQUIRE(n > (1ull << 32));
  const scangen::Scan s = rt.compile(
      "scan big_cols { type = u8; op = add; level = device; shape = strided; "
      "outputs = aggregate; }");
  const std::vector<uint8_t> in = random_bytes(n, s0);
  const Buffer d_in = upload(in);
  const Buffer d_out = poisoned(n), d_agg = poisoned(cols);
  scangen::Scan::CudaArgs a;
  a.in = d_in.get();
  a.inclusive = d_out.get();
  a.aggregate = d_agg.get();
  a.strided.rank = 2;
  a.strided.axis = 0;
  a.strided.extents[0] = rows;
  a.strided.extents[1] = cols;
  a.strided.strides[0] = cols;
  a.strided.strides[1] = 1;
  s.run(a);
  const std::vector<uint8_t> out = download(d_out, n), agg = download(d_agg, cols);
  std::string first;
  const uint64_t bad = count_wrong(in, out, agg, {cols, rows, 0, cols, 1}, first);
  INFO(bad << " wrong; the first: " << first);
  CHECK(bad == 0);
  uint64_t past = 0;
  for (uint64_t j = n; j < out.size(); ++j) past += out[j] != kPoison;
  for (uint64_t j = cols; j < agg.size(); ++j) past += agg[j] != kPoison;
  CHECK(past == 0);
}

TEST_CASE("CUDA scan segmented by offsets of more than 2^32 elements in one call", "[gpu][shapes][large]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  const uint64_t n = (1ull << 32) + 77;
  // One segment of 2^31 + 5 elements first, then random lengths 0 .. 2000
  // (empty segments among them); one of them spans 2^32.
  std::vector<uint64_t> offsets = {0, (1ull << 31) + 5};
  uint64_t x = s0;
  while (offsets.back() < n) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    offsets.push_back(std::min<uint64_t>(n, offsets.back() + (x >> 33) % 2001));
  }
  const uint64_t count = offsets.size() - 1;
  const scangen::Scan s = rt.compile(
      "scan big_segments { type = u8; op = add; level = device; "
      "segments = offsets; offset = u64; outputs = aggregate; }");
  const std::vector<uint8_t> in = random_bytes(n, s0 + 2);
  const Buffer d_in = upload(in);
  Buffer d_offsets(offsets.size() * 8 + 16);
  CU_CHECK(driver().cuMemcpyHtoD(d_offsets.p, offsets.data(), offsets.size() * 8));
  const Buffer d_out = poisoned(n), d_agg = poisoned(count);
  scangen::Scan::CudaArgs a;
  a.in = d_in.get();
  a.inclusive = d_out.get();
  a.segment_aggregates = d_agg.get();
  a.n = n;
  a.segment_offsets = d_offsets.get();
  a.segment_count = count;
  a.check_segments = true;
  s.run(a);
  const std::vector<uint8_t> out = download(d_out, n), agg = download(d_agg, count);
  uint64_t bad = 0;
  std::string first;
  for (uint64_t g = 0; g < count; ++g) {
    uint8_t sum = 0;
    for (uint64_t i = offsets[g]; i < offsets[g + 1]; ++i) {
      sum = static_cast<uint8_t>(sum + in[i]);
      if (out[i] != sum && bad++ == 0) first = "element " + std::to_string(i) + " of segment " + std::to_string(g);
    }
    if (agg[g] != sum && bad++ == 0) first = "the aggregate of segment " + std::to_string(g);
  }
  INFO(count << " segments; " << bad << " wrong; the first: " << first);
  CHECK(bad == 0);
  uint64_t past = 0;
  for (uint64_t j = n; j < out.size(); ++j) past += out[j] != kPoison;
  for (uint64_t j = count; j < agg.size(); ++j) past += agg[j] != kPoison;
  CHECK(past == 0);
}

// Fused outputs past 2^32: a select (and a partition) of 2^32 + 77 bytes,
// the positions and the count u64, checked element by element against a
// native loop; the select leaves the rest of its output poisoned.
TEST_CASE("CUDA select and partition of more than 2^32 elements in one call", "[gpu][select][large]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  const uint64_t n = (1ull << 32) + 77;
  const std::vector<uint8_t> in = random_bytes(n, s0);
  const Buffer d_in = upload(in);
  std::vector<uint8_t> kept, partitioned(n);
  kept.reserve(n / 2 + n / 8);
  uint64_t rejected = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (in[i] < 100)
      kept.push_back(in[i]);
    else
      partitioned[n - 1 - rejected++] = in[i];
  }
  std::memcpy(partitioned.data(), kept.data(), kept.size());
  const char* const specs[] = {
      "scan big_select { input = u8; type = u64; convert(x) = x < 100 ? 1 : 0; op = add; mode = exclusive;"
      " outputs = aggregate; scatter_if(x) = x < 100; scatter_at(x, i, before) = before; scatter(x) = x; }",
      "scan big_partition { input = u8; type = u64; convert(x) = x < 100 ? 1 : 0; op = add; mode = exclusive;"
      " outputs = aggregate; scatter_at(x, i, before, after, n) = x < 100 ? before : n - 1 - (i - before);"
      " scatter(x) = x; }"};
  for (const char* text : specs) {
    INFO(text);
    const scangen::Scan s = rt.compile(text);
    const Buffer d_out = poisoned(n), d_count = poisoned(8);
    scangen::Scan::CudaArgs a;
    a.in = d_in.get();
    a.scattered = d_out.get();
    a.aggregate = d_count.get();
    a.n = n;
    s.run(a);
    const std::vector<uint8_t> out = download(d_out, n), count = download(d_count, 8);
    uint64_t got = 0;
    std::memcpy(&got, count.data(), 8);
    CHECK(got == kept.size());
    const bool select = std::strstr(text, "scatter_if") != nullptr;
    const std::vector<uint8_t>& want = select ? kept : partitioned;
    uint64_t bad = 0, first = 0;
    for (uint64_t i = 0; i < want.size(); ++i)
      if (out[i] != want[i] && bad++ == 0) first = i;
    INFO(kept.size() << " kept; " << bad << " wrong; the first at " << first);
    CHECK(bad == 0);
    uint64_t past = 0;  // the select's unused outputs and every byte past n keep their poison
    for (uint64_t j = want.size(); j < out.size(); ++j) past += out[j] != kPoison;
    CHECK(past == 0);
    CHECK(std::count(count.begin() + 8, count.end(), kPoison) == 16);
  }
}
