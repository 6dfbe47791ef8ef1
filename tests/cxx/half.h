// f16 fields for scangen import (test_cxx.cpp): _Float16 and CUDA's __half,
// which the import reads as half floats. Not a header for the host compiler.
#pragma once
#include <cmath>

// f16: _Float16 and CUDA's __half.
struct Halves {
  _Float16 a;
  __half b;
};
struct HalfOp {
  static constexpr Halves identity{0, -INFINITY};
  Halves operator()(Halves x, Halves y) const { return Halves{x.a + y.a, x.b > y.b ? x.b : y.b}; }
};
