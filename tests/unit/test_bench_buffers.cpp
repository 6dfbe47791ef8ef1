// device_bench's buffer sizes (bench/bench_buffers.h).
#include <catch2/catch.hpp>

#include "bench_buffers.h"

using scangen::bench::kLargestCheck;
using scangen::bench::plan_buffers;

namespace {
constexpr uint64_t kGiB = 1ull << 30;
}  // namespace

TEST_CASE("device_bench: buffers for one case of 1-byte elements up to 2^28 fit its checks", "[unit]") {
  // `device_bench --only sum_i8 --max-log2n 28` on a 139 GiB GPU: the checks need 2^24 + 3 bytes of
  // i8, not 16 bytes an element (it was refused as "not enough free GPU memory").
  const auto p = plan_buffers(1, 28, 139 * kGiB, kGiB);
  CHECK(p.enough);
  CHECK_FALSE(p.shrunk);
  CHECK(p.bytes == (1ull << 28));
  // Small sizes only: the buffers still hold the checks.
  const auto small = plan_buffers(1, 12, 139 * kGiB, kGiB);
  CHECK(small.enough);
  CHECK(small.bytes == kLargestCheck);
}

TEST_CASE("device_bench: buffers shrink to a third of free memory, and refuse below the checks", "[unit]") {
  // 2^30 2x2 matrices of f32 (16 bytes) on 80 GiB: 16 GiB each fits.
  const auto big = plan_buffers(16, 30, 79 * kGiB, kGiB);
  CHECK(big.enough);
  CHECK_FALSE(big.shrunk);
  // On 13 GiB free: 4 GiB each, larger sizes skipped, whole MiB.
  const auto shrunk = plan_buffers(16, 30, 13 * kGiB, kGiB);
  CHECK(shrunk.enough);
  CHECK(shrunk.shrunk);
  CHECK(shrunk.bytes == 4 * kGiB);
  CHECK(shrunk.bytes % (1u << 20) == 0);
  // Less than the checks need: refused.
  const auto tiny = plan_buffers(16, 30, kGiB + 300 * (1ull << 20), kGiB);
  CHECK_FALSE(tiny.enough);
  CHECK(plan_buffers(1, 10, 0, kGiB).bytes == 0);
}
