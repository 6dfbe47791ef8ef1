// A functor in a header that includes <cuda_runtime.h>: the import finds the
// CUDA toolkit's headers itself (docs/cxx.md, "CUDA headers").
#pragma once
#include <cuda_runtime.h>

struct Sum2 {
  float x, y;
};
struct Sum2Op {
  static constexpr Sum2 identity{0.0f, 0.0f};
  __host__ __device__ __forceinline__ Sum2 operator()(const Sum2& a, const Sum2& b) const {
    return Sum2{a.x + b.x, a.y + b.y};
  }
};
