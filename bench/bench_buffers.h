// The size of device_bench's three buffers (input, scangen's output, CUB's
// output), host code only, so that the unit tests can check it without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>

namespace scangen::bench {

// The element count of device_bench's largest correctness check.
constexpr uint64_t kLargestCheck = (1ull << 24) + 3;

struct BufferPlan {
  uint64_t bytes = 0;   // each buffer
  bool enough = false;  // the correctness checks fit
  bool shrunk = false;  // smaller than the largest timed size needs: larger sizes are skipped
};

// For the cases run, whose largest element has `elem_bytes` bytes, timed up
// to 2^max_log2n elements and checked up to kLargestCheck: each buffer holds
// both, or at most a third of free memory less `reserve`, in whole MiB.
inline BufferPlan plan_buffers(uint64_t elem_bytes, int max_log2n, uint64_t free_mem, uint64_t reserve) {
  BufferPlan p;
  const uint64_t checks = kLargestCheck * elem_bytes;
  const uint64_t need = std::max<uint64_t>(checks, (uint64_t{1} << max_log2n) * elem_bytes);
  const uint64_t room = free_mem > reserve ? (free_mem - reserve) / 3 / (1u << 20) * (1u << 20) : 0;
  p.bytes = std::min(need, room);
  p.enough = p.bytes >= checks;
  p.shrunk = p.bytes < need;
  return p;
}

}  // namespace scangen::bench
