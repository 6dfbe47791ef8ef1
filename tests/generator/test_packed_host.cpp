// templates/cuda/packed.cuh's arithmetic on the host: its reduce and rescan
// of a thread's packed words, compiled as C++ with the CUDA intrinsics it
// uses (__byte_perm, __dp4a, __dp2a_lo) written out from the PTX ISA's
// definitions, against element-by-element wrapping sums, on random words and
// on the words where every carry happens (all ones, 0x80 / 0x8000 lanes).
// The kernel around it (loads, stores, the look-back) is the GPU sweep's.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>

#include "scangen/dsl/types.h"

#include "operator_sweep.h"  // test_seed

namespace {

struct uint4 {
  unsigned int x, y, z, w;
};

// prmt.b32 (default mode): byte i of the result is byte (s >> 4i) & 7 of {b, a}.
unsigned int __byte_perm(unsigned int a, unsigned int b, unsigned int s) {
  const uint64_t ab = (static_cast<uint64_t>(b) << 32) | a;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) r |= static_cast<unsigned int>((ab >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
  return r;
}
// dp4a.u32.u32: the four bytes' products, summed, plus c.
unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int i = 0; i < 4; ++i) c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return c;
}
// dp2a.lo.u32.u32: a's two halves times b's bytes 0 and 1, plus c.
unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
  return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
}

}  // namespace

// The template, once per element type, its other functions (io.h's) unused
// (its #pragma unroll: -Wno-unknown-pragmas, tests/generator/CMakeLists.txt).
#define SG_FN static inline __attribute__((unused))
#define SG_GLOBAL
#define SG_LOCAL
#define SG_BARRIER() ((void)0)
#define SG_THREAD() 0
#define SG_BLOCK_THREADS 32
#define SG_BLOCK_ITEMS (SG_ITEMS * SG_BLOCK_THREADS)
#define SG_LOAD_WORD(p) (*(p))
#define SG_STORE_WORD(p, v) (*(p) = (v))
typedef unsigned long long scangen_u64;
#define SG_DECLARE_IO                                                                  \
  SG_FN int SG_NAME(sg_word_at)(int c, int o, int words) { return c * words + o; }     \
  SG_FN void SG_NAME(sg_load)(const SG_T*, scangen_u64, scangen_u64, SG_T*, SG_T*) {}  \
  SG_FN void SG_NAME(sg_store)(SG_T*, scangen_u64, scangen_u64, const SG_T*, SG_T*) {} \
  SG_FN void SG_NAME(sg_store_both)(SG_T*, SG_T*, scangen_u64, scangen_u64, const SG_T*, const SG_T*, SG_T*) {}

#define SG_NAME(name) b_##name
#define SG_T uint8_t
#define SG_ITEMS 32
#define SG_VEC_IN 2
#define SG_VEC_OUT 2
#define SG_PACK_LANES 4
SG_DECLARE_IO
#include "../../templates/cuda/packed.cuh"
#undef SG_NAME
#undef SG_T
#undef SG_ITEMS
#undef SG_VEC_IN
#undef SG_VEC_OUT
#undef SG_PACK_LANES
#undef SG_PACK_WORDS

#define SG_NAME(name) h_##name
#define SG_T uint16_t
#define SG_ITEMS 24
#define SG_VEC_IN 3
#define SG_VEC_OUT 3
#define SG_PACK_LANES 2
SG_DECLARE_IO
#include "../../templates/cuda/packed.cuh"
#undef SG_NAME
#undef SG_PACK_WORDS

// f16 lanes: add.rn.f16x2 written out as the operator's f16 addition (each
// half: the sum of the two halves in float, rounded once to f16).
namespace {
uint16_t add_f16(uint16_t a, uint16_t b) {
  return scangen::dsl::float_to_half_bits(scangen::dsl::half_bits_to_float(a) + scangen::dsl::half_bits_to_float(b));
}
}  // namespace
#define SCANGEN_HAVE_scangen_hadd2
static unsigned int scangen_hadd2(unsigned int a, unsigned int b) {
  return add_f16(static_cast<uint16_t>(a), static_cast<uint16_t>(b)) |
         static_cast<unsigned int>(add_f16(static_cast<uint16_t>(a >> 16), static_cast<uint16_t>(b >> 16))) << 16;
}
#define SG_NAME(name) f_##name
#define SG_PACK_F16 1
SG_DECLARE_IO
#include "../../templates/cuda/packed.cuh"

namespace {

// Element by element: the thread's total, its inclusive and exclusive results from `prefix`.
template <typename T, int N>
void reference(T prefix, const T (&x)[N], T& total, T (&inc)[N], T (&exc)[N]) {
  total = 0;
  for (int i = 0; i < N; ++i) {
    exc[i] = prefix;
    prefix = static_cast<T>(prefix + x[i]);
    inc[i] = prefix;
    total = static_cast<T>(total + x[i]);
  }
}

// The packed reduce and rescan (both outputs, each alone) against `ref`'s
// results, compared by `same`; the count of results that differ.
template <typename Packed, typename T, int N, typename Reduce, typename Scan, typename Ref, typename Same>
int check(const Packed& in, T prefix, Reduce reduce, Scan scan, Ref ref, Same same) {
  T x[N], total, inc[N], exc[N];
  std::memcpy(x, in.e, sizeof x);
  ref(prefix, x, total, inc, exc);
  Packed got_inc, got_exc, got_inc_only, got_exc_only;
  std::memset(&got_inc, 0xAB, sizeof got_inc);
  std::memset(&got_exc, 0xAB, sizeof got_exc);
  scan(prefix, &in, &got_inc, &got_exc);
  scan(prefix, &in, &got_inc_only, nullptr);
  scan(prefix, &in, nullptr, &got_exc_only);
  int bad = same(reduce(&in), total) ? 0 : 1;
  for (int i = 0; i < N; ++i)
    bad += !same(got_inc.e[i], inc[i]) + !same(got_exc.e[i], exc[i]) + !same(got_inc_only.e[i], inc[i]) +
           !same(got_exc_only.e[i], exc[i]);
  return bad;
}

// Wrapping sums: against the element-by-element reference, bit for bit.
template <typename Packed, typename T, int N, typename Reduce, typename Scan>
int check(const Packed& in, T prefix, Reduce reduce, Scan scan) {
  return check<Packed, T, N>(in, prefix, reduce, scan, reference<T, N>, [](T a, T b) { return a == b; });
}

}  // namespace

TEST_CASE("packed words: the reduce and rescan of 1- and 2-byte sums match element by element", "[generator][packed]") {
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  int bad = 0;
  for (int round = 0; round < 20000; ++round) {
    b_sg_packed b;
    h_sg_packed h;
    // Random words, then words of one value: all ones (every carry), 0x80 / 0x8000, zero.
    const int kind = round % 8;
    for (unsigned int& w : b.w)
      w = kind < 5 ? static_cast<unsigned int>(rng()) : kind == 5 ? 0xffffffffu : kind == 6 ? 0x80808080u : 0u;
    for (unsigned int& w : h.w)
      w = kind < 5 ? static_cast<unsigned int>(rng()) : kind == 5 ? 0xffffffffu : kind == 6 ? 0x80008000u : 0u;
    const uint8_t pb = round % 3 == 0 ? 0xffu : static_cast<uint8_t>(rng());
    const uint16_t ph = round % 3 == 0 ? 0xffffu : static_cast<uint16_t>(rng());
    bad += check<b_sg_packed, uint8_t, 32>(b, pb, b_sg_reduce_packed, b_sg_scan_packed);
    bad += check<h_sg_packed, uint16_t, 24>(h, ph, h_sg_reduce_packed, h_sg_scan_packed);
  }
  CHECK(bad == 0);
}

namespace {

// The f16 grouping packed.cuh documents, element by element: for each word
// (x0, x1) from the running r, (r + x0, r + (x0 + x1)); the exclusive results
// the inclusive ones moved up one; the total L + H, L the running sum from -0
// of the first 6 words' pair sums (x0 + x1), H that of the last 6 words'.
constexpr uint16_t kNegZero = 0x8000;
void f16_reference(uint16_t prefix, const uint16_t (&x)[24], uint16_t& total, uint16_t (&inc)[24],
                   uint16_t (&exc)[24]) {
  uint16_t r = prefix;
  uint16_t sums[2] = {kNegZero, kNegZero};
  for (int k = 0; k < 12; ++k) {
    exc[2 * k] = r;
    inc[2 * k] = add_f16(r, x[2 * k]);
    exc[2 * k + 1] = inc[2 * k];
    inc[2 * k + 1] = add_f16(r, add_f16(x[2 * k], x[2 * k + 1]));
    r = inc[2 * k + 1];
    sums[k / 6] = add_f16(sums[k / 6], add_f16(x[2 * k], x[2 * k + 1]));
  }
  total = add_f16(sums[0], sums[1]);
}

// Element by element in f16, the total from -0: what every grouping gives where all sums are exact.
void f16_sequential(uint16_t prefix, const uint16_t (&x)[24], uint16_t& total, uint16_t (&inc)[24],
                    uint16_t (&exc)[24]) {
  total = kNegZero;
  for (int i = 0; i < 24; ++i) {
    exc[i] = prefix;
    prefix = add_f16(prefix, x[i]);
    inc[i] = prefix;
    total = add_f16(total, x[i]);
  }
}

uint16_t f16_bits(float f) { return scangen::dsl::float_to_half_bits(f); }

// The same bits, or both NaN: which operand's payload a NaN result carries
// follows the order of the operands on the host (the GPU's f16 additions
// return one canonical NaN).
bool same_f16(uint16_t a, uint16_t b) {
  auto nan = [](uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0; };
  return a == b || (nan(a) && nan(b));
}

}  // namespace

// The f16 lanes' grouping differs from the element-by-element scan's in the
// last bits only: checked here against that grouping bit for bit (the lanes'
// order and the prmt selectors), on random halves, on every special value
// (-0, infinities, NaN, subnormals; a NaN is any NaN), and on small integers, which every
// grouping adds exactly, against the element-by-element sum.
TEST_CASE("packed words: the reduce and rescan of f16 sums follow their grouping, bit for bit", "[generator][packed]") {
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const uint16_t specials[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0xfbff};
  int bad = 0, integer_bad = 0;
  for (int round = 0; round < 20000; ++round) {
    f_sg_packed in;
    const int kind = round % 4;
    for (uint16_t& e : in.e) {
      if (kind == 0) e = static_cast<uint16_t>(rng());                                    // any bits, NaNs included
      if (kind == 1) e = specials[rng() % (sizeof specials / sizeof specials[0])];        // special values
      if (kind == 2) e = f16_bits(static_cast<float>(static_cast<int>(rng() % 17) - 8));  // small integers
      if (kind == 3) e = rng() % 2 ? kNegZero : 0;                                        // signed zeros
    }
    const uint16_t prefix = kind == 2   ? f16_bits(static_cast<float>(static_cast<int>(rng() % 201) - 100))
                            : kind == 3 ? (rng() % 2 ? kNegZero : 0)
                                        : static_cast<uint16_t>(rng());
    bad += check<f_sg_packed, uint16_t, 24>(in, prefix, f_sg_reduce_packed, f_sg_scan_packed, f16_reference, same_f16);
    if (kind == 2)  // exact in any grouping: the element-by-element sums, bit for bit
      integer_bad += check<f_sg_packed, uint16_t, 24>(in, prefix, f_sg_reduce_packed, f_sg_scan_packed, f16_sequential,
                                                      [](uint16_t a, uint16_t b) { return a == b; });
  }
  CHECK(bad == 0);
  CHECK(integer_bad == 0);
}
