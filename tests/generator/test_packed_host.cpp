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

template <typename Packed, typename T, int N, typename Reduce, typename Scan>
int check(const Packed& in, T prefix, Reduce reduce, Scan scan) {
  T x[N], total, inc[N], exc[N];
  std::memcpy(x, in.e, sizeof x);
  reference(prefix, x, total, inc, exc);
  Packed got_inc, got_exc, got_inc_only, got_exc_only;
  std::memset(&got_inc, 0xAB, sizeof got_inc);
  std::memset(&got_exc, 0xAB, sizeof got_exc);
  scan(prefix, &in, &got_inc, &got_exc);
  scan(prefix, &in, &got_inc_only, nullptr);
  scan(prefix, &in, nullptr, &got_exc_only);
  int bad = reduce(&in) == total ? 0 : 1;
  for (int i = 0; i < N; ++i)
    bad += (got_inc.e[i] != inc[i]) + (got_exc.e[i] != exc[i]) + (got_inc_only.e[i] != inc[i]) +
           (got_exc_only.e[i] != exc[i]);
  return bad;
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
