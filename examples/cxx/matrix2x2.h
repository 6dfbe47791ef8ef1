// The C++ twin of examples/matrix2x2.scan: products of row-major 2x2
// matrices [[a, b], [c, d]], a non-commutative operator.
//   scangen import examples/cxx/matrix2x2.h --op Mat2Product --name matrix_product --level block \
//     --set 'algorithm = warp_scans' --set 'threads = 128' --set 'items = 4'
#pragma once

struct Mat2 {
  float a, b, c, d;
};

struct Mat2Product {
  static constexpr Mat2 identity() { return Mat2{1.0f, 0.0f, 0.0f, 1.0f}; }
  __host__ __device__ Mat2 operator()(const Mat2& x, const Mat2& y) const {
    return Mat2{
        x.a * y.a + x.b * y.c,
        x.a * y.b + x.b * y.d,
        x.c * y.a + x.d * y.c,
        x.c * y.b + x.d * y.d,
    };
  }
};
