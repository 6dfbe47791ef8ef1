// The C++ twins of the sums among the examples (prefix_sum, batched_rows,
// column_scan, opencl_spec_example, segmented_offsets, scan_by_key_equal,
// u8_sum_u32): float, int and unsigned additions with identity 0, which
// scangen recognises as its built-in 'op = add'.
#pragma once
#include <cstdint>

struct SumF32 {
  static constexpr float identity = 0.0f;
  __host__ __device__ float operator()(float x, float y) const { return x + y; }
};

struct SumI32 {
  static constexpr int32_t identity = 0;
  __host__ __device__ int32_t operator()(int32_t x, int32_t y) const { return x + y; }
};

struct SumU32 {
  static constexpr uint32_t identity = 0;
  __host__ __device__ uint32_t operator()(uint32_t x, uint32_t y) const { return x + y; }
};

// scan_by_key_equal's keys: the same segment where they agree modulo 16
// (CUB's EqualityOpT), imported with `key_equal = SameModulo16;`.
struct SameModulo16 {
  bool operator()(uint32_t a, uint32_t b) const { return a % 16 == b % 16; }
};
