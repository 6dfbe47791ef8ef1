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

struct DoLoopOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    do {
      return x + y;
    } while (false);
  }
};

struct GotoOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    goto done;
  done:
    return x + y;
  }
};

struct StaticLocalOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    static int calls = 0;
    return x + y + calls;
  }
};

struct NonConstRefOp {
  static constexpr int identity = 0;
  int operator()(int& x, int y) const { return x + y; }
};

struct PointerParamOp {
  static constexpr int identity = 0;
  int operator()(const int* x, int y) const { return *x + y; }
};

struct WithMethod {
  float v;
  float twice() const { return v + v; }
};
struct MemberCallOp {
  static constexpr WithMethod identity{0.0f};
  WithMethod operator()(WithMethod x, WithMethod y) const { return WithMethod{x.twice() + y.v}; }
};

struct V2 { float a; float b; };
inline V2 operator+(V2 x, V2 y) { return V2{x.a + y.a, x.b + y.b}; }
struct OverloadedOp {
  static constexpr V2 identity{0.0f, 0.0f};
  V2 operator()(V2 x, V2 y) const { return x + y; }
};

struct LambdaInsideOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    auto add = [](int a, int b) { return a + b; };
    return add(x, y);
  }
};

struct Virtual {
  float v;
  virtual ~Virtual() = default;
};
struct VirtualOp {
  Virtual operator()(Virtual x, Virtual) const { return x; }
};

union Either { float f; int i; };
struct UnionOp {
  Either operator()(Either x, Either) const { return x; }
};

struct Base { float v; };
struct Derived : Base { float w; };
struct BaseOp {
  Derived operator()(Derived x, Derived) const { return x; }
};

struct IfConstexprOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    if constexpr (sizeof(int) == 4) return x + y;
    return x;
  }
};

struct IfInitOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    if (int s = x + y; s > 0) return s;
    return 0;
  }
};

struct CommaOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const { return (x, y); }
};

struct Config { static constexpr float scale = 2.0f; static float offset; };
struct StaticMemberOp {
  static constexpr float identity = 0.0f;
  float operator()(float x, float y) const { return x + y * Config::offset; }
};

enum class Color : int { red, green };
struct WithEnum { Color c; float v; };
struct EnumOp {
  WithEnum operator()(WithEnum x, WithEnum) const { return x; }
};

struct Built {
  float a;
  float b;
  constexpr Built(float a_, float b_) : a(a_), b(b_) {}
};
struct ConstructorOp {
  Built operator()(Built x, Built y) const { return Built(x.a + y.a, x.b + y.b); }
};

struct ThrowOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    if (x < 0) throw 1;
    return x + y;
  }
};

struct __attribute__((packed)) Packed { uint8_t tag; float v; };
struct PackedOp {
  Packed operator()(Packed x, Packed) const { return x; }
};

struct LongDoubleOp {
  static constexpr long double identity = 0;
  long double operator()(long double x, long double y) const { return x + y; }
};

struct RefReturnOp {
  static constexpr P identity{0.0f, 0.0f};
  const P& operator()(const P& x, const P&) const { return x; }
};

template <class T>
T template_add(T x, T y) { return x + y; }

struct NoBodyOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const;
};

int printf(const char*, ...);
struct PrintOp {
  static constexpr int identity = 0;
  int operator()(int x, int y) const {
    printf("%d\n", x);
    return x + y;
  }
};

struct Big { float v; };
struct ManyOperatorsOp {
  static constexpr Big identity{0.0f};
  Big operator()(Big x, Big y) const { return Big{x.v + y.v}; }
  Big operator()(Big x) const { return x; }
};

template <class T>
struct TemplateLoopOp {
  static constexpr T identity = 0;
  T operator()(T x, T y) const {
    for (;;) return x + y;
  }
};

// A key comparison that returns int, and one of struct keys.
struct IntEqual {
  int operator()(int a, int b) const { return a == b; }
};
struct StructKeys {
  bool operator()(Big a, Big b) const { return a.v == b.v; }
};
