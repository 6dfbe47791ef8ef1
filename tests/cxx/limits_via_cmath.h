// A header that uses <limits> having included only <cmath>, which includes
// it in C++17 through its special functions: the import's first parse
// leaves those out (docs/cxx.md, "Cost") and must parse it again in full.
#pragma once
#include <cmath>

struct LowestMax {
  static constexpr float identity = -std::numeric_limits<float>::infinity();
  float operator()(float x, float y) const { return fmaxf(x, y); }
};
