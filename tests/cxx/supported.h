// Operators inside the C++ subset of scangen import (test_cxx.cpp).
#pragma once
#include <cmath>
#include <cstdint>

// int8_t arithmetic is promoted to int, then converted back, as C++ does.
struct SumI8 {
  static constexpr int8_t identity = 0;
  int8_t operator()(int8_t x, int8_t y) const { return x + y; }
};

struct Seg { uint32_t flag; float value; };
struct SegmentedSum {
  static constexpr Seg identity{0u, 0.0f};
  Seg operator()(const Seg& x, const Seg& y) const {
    const bool starts = y.flag != 0;
    auto sum = x.value + y.value;
    return Seg{x.flag | y.flag, starts ? y.value : sum};
  }
};

struct MinMax { float lo; float hi; };
inline MinMax min_max(MinMax x, MinMax y) {
  return MinMax{fminf(x.lo, y.lo), std::fmax(x.hi, y.hi)};
}

// An identity on the command line; a lambda held by a variable.
inline constexpr auto add_u64 = [](uint64_t x, uint64_t y) { return x + y; };

struct Clamp {
  static constexpr double identity = 0.0;
  double operator()(double x, double y) const {
    const double s = x + y * 2;
    if (s > 100.0) {
      return 100.0;
    } else if (s < -100.0) {
      return -100.0;
    }
    return s;
  }
};

// Nested structs with padding: Clang's layout and scangen's agree.
struct Inner { uint8_t flag; double value; uint16_t count; };
struct Outer { uint8_t tag; Inner inner; float h; };
struct OuterOp {
  static constexpr Outer identity{0, {0, 0.0, 0}, 0.0f};
  Outer operator()(const Outer& x, const Outer& y) const {
    return Outer{uint8_t(x.tag | y.tag),
                 Inner{uint8_t(x.inner.flag | y.inner.flag), x.inner.value + y.inner.value,
                       static_cast<uint16_t>(x.inner.count + y.inner.count)},
                 x.h + y.h};
  }
};

// Integers used as conditions.
struct Truthy {
  static constexpr int identity = 0;
  int operator()(int x, int y) const { return !x || (x & y) ? y : x + y; }
};

// Class templates, named with their arguments (CustomMin<float>).
template <typename T>
struct CustomMin {
  static constexpr T identity = INFINITY;
  T operator()(const T& a, const T& b) const { return (b < a) ? b : a; }
};
template <typename T>
struct Pair {
  T lo;
  T hi;
};
template <typename T>
struct PairSum {
  static constexpr Pair<T> identity{0, 0};
  Pair<T> operator()(Pair<T> x, Pair<T> y) const { return Pair<T>{x.lo + y.lo, x.hi + y.hi}; }
};

// Key comparisons (`key_equal = NAME;` with `segments = keys;`): keys in one
// decade are one segment; floats within 0.5 of each other.
struct SameDecade {
  bool operator()(int a, int b) const { return a / 10 == b / 10; }
};
inline bool close_keys(float a, float b) { return fabsf(a - b) <= 0.5f; }
// A comparison with a local: the key_equal of `scangen import --key-equal`
// is a body with a let.
struct NearKeys {
  bool operator()(float a, float b) const {
    const float d = a - b;
    return d <= 0.5f && d >= -0.5f;
  }
};
