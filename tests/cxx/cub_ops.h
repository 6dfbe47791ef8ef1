// CUB-style functors, written for scangen's tests after the custom scan
// operators CUB's documentation shows: a custom min, an affine composition,
// a 2x2 matrix product, an arg-max that keeps its index and a segmented sum
// of (flag, value) pairs. cub_ops.scan imports them; test_cub_ops.cpp runs
// every scan end to end (PoCL in CTest, a CUDA GPU under scripts/gpu-check)
// against the CPU reference, and also includes this header as host C++, as
// a CUB user's code would, to check the functors themselves.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#ifndef __host__  // nvcc and the import define them; a host compiler does not
#define __host__
#define __device__
#define __forceinline__ inline
#endif

// CUB's "CustomMin", as a class template (named CustomMin<float> ...).
template <typename T>
struct CustomMin {
  static constexpr T identity =
      std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const { return (b < a) ? b : a; }
};

// The map v -> a * v + b modulo 2^32; x is applied first, then y. Not
// commutative.
struct AffineU32 {
  uint32_t a;
  uint32_t b;
};
struct AffineCompose {
  static constexpr AffineU32 identity{1u, 0u};
  __host__ __device__ AffineU32 operator()(const AffineU32& x, const AffineU32& y) const {
    return AffineU32{y.a * x.a, y.a * x.b + y.b};
  }
};

// Row-major 2x2 matrices of integers modulo 2^32, multiplied x * y. Not
// commutative.
struct Mat2U32 {
  uint32_t m00, m01, m10, m11;
};
struct Mat2Multiply {
  static constexpr Mat2U32 identity() { return Mat2U32{1u, 0u, 0u, 1u}; }
  __host__ __device__ Mat2U32 operator()(const Mat2U32& x, const Mat2U32& y) const {
    const uint32_t m00 = x.m00 * y.m00 + x.m01 * y.m10;
    const uint32_t m01 = x.m00 * y.m01 + x.m01 * y.m11;
    return Mat2U32{m00, m01, x.m10 * y.m00 + x.m11 * y.m10, x.m10 * y.m01 + x.m11 * y.m11};
  }
};

// CUB's ArgMax over key-value pairs: the largest value, and of equal
// values the smallest index.
struct IndexedValue {
  int32_t index;
  float value;
};
struct ArgMaxWithIndex {
  static constexpr IndexedValue identity{std::numeric_limits<int32_t>::max(), -INFINITY};
  __host__ __device__ IndexedValue operator()(const IndexedValue& a, const IndexedValue& b) const {
    if (b.value > a.value) return b;
    if (a.value > b.value) return a;
    return b.index < a.index ? b : a;
  }
};

// A segmented sum as one operator on (flag, value) pairs: a set flag starts
// a segment. The 7 bytes of padding after the flag are part of the layout.
struct FlaggedValue {
  uint8_t flag;
  uint64_t value;
};
struct SegmentedSumPair {
  static constexpr FlaggedValue identity{0, 0};
  __host__ __device__ FlaggedValue operator()(const FlaggedValue& x, const FlaggedValue& y) const {
    if (y.flag) return y;
    return FlaggedValue{x.flag, x.value + y.value};
  }
};
