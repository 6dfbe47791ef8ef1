// The C++ twin of examples/argmax.scan: the running maximum with the index
// where it was first reached (ties keep the earlier index).
//   scangen import examples/cxx/argmax.h --op ArgMaxOp --name running_argmax --level device \
//     --set 'outputs = aggregate'
#pragma once
#include <cmath>
#include <cstdint>

struct ArgMax {
  float value;
  int32_t index;
};

struct ArgMaxOp {
  static constexpr ArgMax identity{-INFINITY, -1};
  __host__ __device__ ArgMax operator()(const ArgMax& x, const ArgMax& y) const {
    if (y.value > x.value) return y;
    return x;
  }
};
