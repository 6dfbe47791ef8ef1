// What both consumer programs check the generated scans against: the input
// data and the CPU loops.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

namespace consumer {

// Affine maps a * x + b with a = +-1 and small integer b: every result is an
// integer below 2^24, exact in f32 whatever the order of the combines.
template <typename Affine>
std::vector<Affine> affine_input(int64_t n, uint32_t seed) {
  std::vector<Affine> v(static_cast<size_t>(n));
  uint32_t s = seed;
  for (Affine& x : v) {
    s = s * 1664525u + 1013904223u;
    x.a = (s >> 31) != 0 ? 1.0f : -1.0f;
    x.b = static_cast<float>(static_cast<int>((s >> 8) % 17u) - 8);
  }
  return v;
}

// The inclusive scan, combine(x, y) = { y.a * x.a, y.a * x.b + y.b }, x the earlier.
template <typename Affine>
std::vector<Affine> affine_scan(const std::vector<Affine>& in) {
  std::vector<Affine> out(in.size());
  Affine acc{1.0f, 0.0f};
  for (size_t i = 0; i < in.size(); ++i) {
    acc = Affine{in[i].a * acc.a, in[i].a * acc.b + in[i].b};
    out[i] = acc;
  }
  return out;
}

inline std::vector<int> int_input(int64_t n, uint32_t seed) {
  std::vector<int> v(static_cast<size_t>(n));
  uint32_t s = seed;
  for (int& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<int>(s >> 20) - 2048;
  }
  return v;
}

// The inclusive sum of every segment of `segment` elements, each on its own.
inline std::vector<int> segmented_sum(const std::vector<int>& in, size_t segment) {
  std::vector<int> out(in.size());
  int acc = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (i % segment == 0) acc = 0;
    acc += in[i];
    out[i] = acc;
  }
  return out;
}

// The index of the first difference, or -1.
template <typename T, typename Eq>
int64_t first_difference(const std::vector<T>& got, const std::vector<T>& want, Eq eq) {
  for (size_t i = 0; i < want.size(); ++i)
    if (!eq(got[i], want[i])) return static_cast<int64_t>(i);
  return -1;
}

struct Failures {
  int count = 0;
  void expect(bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "FAILED: %s\n", what);
      ++count;
    }
  }
};

}  // namespace consumer
