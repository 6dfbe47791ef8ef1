// Operators and types outside the C++ subset of scangen import, one per
// construct; test_cxx.cpp checks each diagnostic's line, column and message.
#pragma once
#include <cstdint>

struct P { float a; float b; };

struct LoopOp {
  static constexpr P identity{0.0f, 0.0f};
  P operator()(P x, P y) const {
    for (int i = 0; i < 2; ++i) x.a += y.a;
    return x;
  }
};

struct PointerOp {
  static constexpr P identity{0.0f, 0.0f};
  P operator()(const P& x, const P& y) const {
    const float* p = &x.a;
    return P{*p + y.a, x.b};
  }
};

float helper(float a, float b);
struct CallOp {
  static constexpr P identity{0.0f, 0.0f};
  P operator()(P x, P y) const { return P{helper(x.a, y.a), x.b + y.b}; }
};

float g_scale = 2.0f;
struct GlobalOp {
  static constexpr P identity{0.0f, 0.0f};
  P operator()(P x, P y) const { return P{x.a * g_scale, x.b + y.b}; }
};

struct AssignOp {
  static constexpr P identity{0.0f, 0.0f};
  P operator()(P x, P y) const {
    x.a = x.a + y.a;
    return x;
  }
};

struct IncrementOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const { return x + y++; }
};

template <class T>
struct TemplateOp {
  T operator()(T x, T y) const { return x + y; }
};

struct SwitchOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    switch (x) {
      default: return x + y;
    }
  }
};

struct MemberOp {
  float scale;
  static constexpr P identity{0.0f, 0.0f};
  P operator()(P x, P y) const { return P{x.a + y.a * scale, x.b + y.b}; }
};

struct WithBool { float v; bool flag; };
struct BoolOp {
  WithBool operator()(WithBool x, WithBool y) const { return WithBool{x.v + y.v, y.flag}; }
};

struct WithArray { float v[2]; };
struct ArrayOp {
  WithArray operator()(WithArray x, WithArray) const { return x; }
};

struct alignas(16) Wide { float a; };
struct AlignedOp {
  Wide operator()(Wide x, Wide y) const { return Wide{x.a + y.a}; }
};

struct Bits { uint32_t lo : 16; uint32_t hi : 16; };
struct BitFieldOp {
  Bits operator()(Bits x, Bits) const { return x; }
};

struct NoIdentityOp {
  int operator()(int x, int y) const { return x + y; }
};

struct FallsOffOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    if (x > y) return x;
  }
};

struct WhileOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    while (x > y) return x;
    return y;
  }
};

struct ThreeOp {
  static constexpr int identity = 0;
  int operator()(int x, int y, int z) const { return x + y + z; }
};
