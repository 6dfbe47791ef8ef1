// A struct called __half, as cuda_fp16.h declares it when other CUDA headers
// (CUB's) need it: the import cannot read it as a half float, and refuses it.
#pragma once
struct __half {
  unsigned short x;
};
struct WithHalf {
  __half h;
  float v;
};
struct HalfStructOp {
  static constexpr WithHalf identity{{0}, 0.0f};
  WithHalf operator()(WithHalf x, WithHalf y) const { return WithHalf{x.h, x.v + y.v}; }
};
