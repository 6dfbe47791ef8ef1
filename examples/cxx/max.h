// The C++ twin of examples/max.scan: a running maximum of int, which
// scangen recognises as its built-in 'op = max' (identity INT_MIN).
//   scangen import examples/cxx/max.h --op MaxOp --name running_max_i32 --level device
#pragma once
#include <climits>

struct MaxOp {
  static constexpr int identity = INT_MIN;
  __host__ __device__ int operator()(int x, int y) const { return x > y ? x : y; }
};
