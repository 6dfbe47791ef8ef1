// The C++ twin of examples/discounted_returns.scan: a step v -> a * v + b
// (a = gamma * (1 - done), b = reward), composed with the earlier step (x)
// applied first; the scan runs from the end of the array (reverse = true).
#pragma once

struct Step {
  float a;
  float b;
};

struct StepCompose {
  static constexpr Step identity{1.0f, 0.0f};
  __host__ __device__ Step operator()(const Step& x, const Step& y) const {
    return Step{y.a * x.a, y.a * x.b + y.b};
  }
};
