// The C++ twin of examples/affine.scan: the map v -> a*v + b, composed with
// the earlier map (x) applied first, as a CUB-style functor.
//   scangen import examples/cxx/affine.h --op AffineOp --name affine_recurrence --level device
#pragma once

struct Affine {
  float a;
  float b;
};

struct AffineOp {
  static constexpr Affine identity{1.0f, 0.0f};
  __host__ __device__ Affine operator()(const Affine& x, const Affine& y) const {
    return Affine{y.a * x.a, y.a * x.b + y.b};
  }
};
