// An imported header that needs an include folder and a definition.
#pragma once
#include "extra.h"

struct Scaled {
  static constexpr int identity = 0;
  int operator()(int x, int y) const { return x + y * EXTRA_SCALE; }
};

#ifdef BROKEN
this does not compile
#endif
