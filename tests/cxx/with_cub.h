// A functor in a header that includes CUB: refused with one clear error at
// the #include, unless the include is left out when scangen reads the header.
#pragma once
#ifdef GUARDED
#ifndef SCANGEN_IMPORT
#include <cub/cub.cuh>
#endif
#else
#include <cub/cub.cuh>
#endif

struct CubStyleMax {
  static constexpr int identity = -2147483647 - 1;
  __host__ __device__ int operator()(const int& a, const int& b) const { return (b > a) ? b : a; }
};
