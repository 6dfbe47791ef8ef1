// The C++ twin of examples/segmented_sum.scan: a segmented sum as one
// operator on (flag, value) pairs; a set flag starts a new segment.
#pragma once
#include <cstdint>

struct Seg {
  uint32_t flag;
  float value;
};

struct SegmentedSum {
  static constexpr Seg identity{0u, 0.0f};
  __host__ __device__ Seg operator()(const Seg& x, const Seg& y) const {
    const bool starts = y.flag != 0;
    return Seg{x.flag | y.flag, starts ? y.value : x.value + y.value};
  }
};
