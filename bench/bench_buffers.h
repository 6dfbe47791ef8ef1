// The size of device_bench's three buffers (input, scangen's output, CUB's
// output), host code only, so that the unit tests can check it without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>

namespace scangen::bench {

struct BufferPlan {
  uint64_t bytes = 0;     // each buffer
  bool enough = false;    // the correctness checks fit
  bool shrunk = false;    // smaller than the largest timed size needs: larger sizes are skipped
};

// largest: the bytes of the largest timed size of any case run (2^max_log2n
// elements); checks: the bytes of the largest correctness check of any case
// run (its element count times that case's element size); each buffer takes
// at most a third of free memory less `reserve`, in whole MiB.
inline BufferPlan plan_buffers(uint64_t largest, uint64_t checks, uint64_t free_mem, uint64_t reserve) {
  BufferPlan p;
  const uint64_t need = std::max(largest, checks);
  const uint64_t room = free_mem > reserve ? (free_mem - reserve) / 3 / (1u << 20) * (1u << 20) : 0;
  p.bytes = std::min(need, room);
  p.enough = p.bytes >= checks;
  p.shrunk = p.bytes < need;
  return p;
}

}  // namespace scangen::bench
