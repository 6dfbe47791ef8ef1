// A thread's items packed in 32-bit words (Plan::packed_lanes): device scans
// whose operator is the built-in addition of 1- or 2-byte integers or of f16
// (op = add on i8 / u8 / i16 / u16 / f16, the input of the same type, no
// convert). The words move between global memory, shared memory and
// registers as they are (io.h's word path), and are never unpacked on a full
// tile: a thread's reduce and rescan work on SG_PACK_LANES elements of a word
// at once instead of one register and one add per element. The partial last
// tile and unaligned arrays take io.h's element loads and stores, the items
// packed into or unpacked from the words.
//
// Integer sums wrap, so they give the same bits in any grouping:
//   sg_reduce_packed   the thread's total: one dot-product instruction per
//                      word (__dp4a: the four bytes times 1; __dp2a_lo: the
//                      two halves), summed in 32 bits, the element's bits
//                      kept (the sum modulo 2^8 or 2^16)
//   sg_scan_packed     the thread's inclusive and exclusive results from a
//                      prefix, a word at a time:
//     1 byte: the running prefix r in the low byte of each 16-bit half;
//       o = bytes 1 and 3 as halves, t = w - 255 * o = (x0 + x1, x2 + x3) as
//       halves, odd = t * 0x10001 + r = (r + x0 + x1, r + x0 + .. + x3),
//       even = odd - o = (r + x0, r + x0 + x1 + x2): every half below 2^16,
//       so no carry crosses a half; the results are the halves' low bytes.
//     2 bytes: lo = r + w, hi = lo + (w >> 16): their low halves are r + x0
//       and r + x0 + x1 (a carry only goes up, past the bits kept).
//
// f16 sums (SG_PACK_F16) round after every addition, so the grouping shows
// in the last bits; it is fixed by the tile, the same on every run (a
// deterministic scan stays deterministic), and, as in every scan, each
// addition adds the sums of two adjacent runs of elements (never, say, the
// even elements' sum to the odd ones'), so inputs whose runs all sum exactly
// give exact results. Both halves of a word are added at once by
// add.rn.f16x2 (IEEE binary16, rounded to nearest even, subnormals kept: the
// f16 addition of the operator, which computes in float and rounds once,
// gives the same bits for each pair of operands):
//   sg_reduce_packed   with W words, the pair sums of words k and k + W / 2
//                      side by side, (x0 + x1, y0 + y1), added up for k = 0
//                      .. W / 2 - 1 from -0: the first half of the items in
//                      the low halves, the second in the high; then low +
//                      high
//   sg_scan_packed     per word (x0, x1): q = (x0, x1 + x0) = w + (-0, x0),
//                      then (r + x0, r + (x0 + x1)) = (r, r) + q, whose high
//                      half is the next word's r; -0 is the addition's exact
//                      identity (x + -0 = x for every x, -0 and NaN included).
// The exclusive word is the inclusive one moved up an element, r below: each
// exclusive result is the inclusive result before it, bit for bit.
//
// Needs: io.h (sg_load, sg_store, sg_store_both, sg_word_at, SG_LOAD_WORD,
// SG_STORE_WORD), SG_PACK_LANES (4 or 2), SG_PACK_F16 (f16 lanes; only when
// set), SG_VEC_IN == SG_VEC_OUT, SG_T == SG_IN.

#define SG_PACK_WORDS (SG_ITEMS / SG_PACK_LANES)
typedef union {
  uint4 v[SG_VEC_IN];
  unsigned int w[SG_PACK_WORDS];
  SG_T e[SG_ITEMS];
} SG_NAME(sg_packed);
typedef char SG_NAME(sg_packed_fills)[sizeof(SG_T) * SG_ITEMS == 16 * SG_VEC_IN && SG_VEC_IN == SG_VEC_OUT ? 1 : -1];

// Whether elements first .. first + SG_BLOCK_ITEMS - 1 of `a` are all below n, from a 16-byte boundary.
SG_FN int SG_NAME(sg_whole_words)(const SG_GLOBAL SG_T* a, scangen_u64 first, scangen_u64 n) {
  return first + SG_BLOCK_ITEMS <= n && ((unsigned long long)(a + first) & 15u) == 0;
}

// io.h's sg_load, the items left in their words.
SG_FN void SG_NAME(sg_load_packed)(const SG_GLOBAL SG_T* in, scangen_u64 first, scangen_u64 n,
                                   SG_NAME(sg_packed) * p, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  if (SG_NAME(sg_whole_words)(in, first, n)) {
    const uint4* src = (const uint4*)(in + first);
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
#pragma unroll
    for (int i = 0; i < SG_VEC_IN; ++i) {
      const unsigned int w = (unsigned int)(i * SG_BLOCK_THREADS + tid);  // unsigned: / and % by shifts
      words[SG_NAME(sg_word_at)((int)(w / SG_VEC_IN), (int)(w % SG_VEC_IN), SG_VEC_IN)] = SG_LOAD_WORD(src + w);
    }
    SG_BARRIER();
#pragma unroll
    for (int o = 0; o < SG_VEC_IN; ++o) p->v[o] = words[SG_NAME(sg_word_at)(tid, o, SG_VEC_IN)];
    SG_BARRIER();  // the exchange may be reused at once
    return;
  }
  SG_T items[SG_ITEMS];
  SG_NAME(sg_load)(in, first, n, items, exchange);
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) p->e[i] = items[i];
}

// One array's words out through the exchange (io.h's sg_store word path).
SG_FN void SG_NAME(sg_store_words)(SG_GLOBAL SG_T* out, scangen_u64 first, const SG_NAME(sg_packed) * p,
                                   SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
#pragma unroll
  for (int o = 0; o < SG_VEC_OUT; ++o) words[SG_NAME(sg_word_at)(tid, o, SG_VEC_OUT)] = p->v[o];
  SG_BARRIER();
  uint4* dst = (uint4*)(out + first);
#pragma unroll
  for (int i = 0; i < SG_VEC_OUT; ++i) {
    const unsigned int w = (unsigned int)(i * SG_BLOCK_THREADS + tid);
    const uint4 word = words[SG_NAME(sg_word_at)((int)(w / SG_VEC_OUT), (int)(w % SG_VEC_OUT), SG_VEC_OUT)];
    SG_STORE_WORD(dst + w, word);
  }
  SG_BARRIER();  // the exchange may be reused at once
}

// io.h's sg_store of packed items.
SG_FN void SG_NAME(sg_store_packed)(SG_GLOBAL SG_T* out, scangen_u64 first, scangen_u64 n,
                                    const SG_NAME(sg_packed) * p, SG_LOCAL SG_T* exchange) {
  if (SG_NAME(sg_whole_words)(out, first, n)) {
    SG_NAME(sg_store_words)(out, first, p, exchange);
    return;
  }
  SG_T items[SG_ITEMS];
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i] = p->e[i];
  SG_NAME(sg_store)(out, first, n, items, exchange);
}

// io.h's sg_store_both of packed items: on a full tile with both arrays
// aligned, each array's words in turn.
SG_FN void SG_NAME(sg_store_both_packed)(SG_GLOBAL SG_T* inclusive, SG_GLOBAL SG_T* exclusive, scangen_u64 first,
                                         scangen_u64 n, const SG_NAME(sg_packed) * inc,
                                         const SG_NAME(sg_packed) * exc, SG_LOCAL SG_T* exchange) {
  if (SG_NAME(sg_whole_words)(inclusive, first, n) && SG_NAME(sg_whole_words)(exclusive, first, n)) {
    SG_NAME(sg_store_words)(inclusive, first, inc, exchange);
    SG_NAME(sg_store_words)(exclusive, first, exc, exchange);
    return;
  }
  SG_T i_items[SG_ITEMS], e_items[SG_ITEMS];
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    i_items[i] = inc->e[i];
    e_items[i] = exc->e[i];
  }
  SG_NAME(sg_store_both)(inclusive, exclusive, first, n, i_items, e_items, exchange);
}

#if defined(SG_PACK_F16) && !defined(SCANGEN_HAVE_scangen_hadd2)
#define SCANGEN_HAVE_scangen_hadd2
// Two f16 additions at once, each half of a with the same half of b.
static __device__ __forceinline__ __attribute__((unused)) unsigned int scangen_hadd2(unsigned int a, unsigned int b) {
  unsigned int d;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
#endif

// The thread's total (api.h's sg_reduce_items).
SG_FN SG_T SG_NAME(sg_reduce_packed)(const SG_NAME(sg_packed) * p) {
#if defined(SG_PACK_F16)
  unsigned int s = 0x80008000u;  // -0 in each half
#pragma unroll
  for (int k = 0; k < SG_PACK_WORDS / 2; ++k) {  // (SG_PACK_WORDS is even: whole 16-byte words)
    const unsigned int a = p->w[k], b = p->w[k + SG_PACK_WORDS / 2];
    s = scangen_hadd2(s, scangen_hadd2(__byte_perm(a, b, 0x5410u), __byte_perm(a, b, 0x7632u)));
  }
  return (SG_T)(scangen_hadd2(s, s >> 16) & 0xffffu);
#else
  unsigned int s[2] = {0u, 0u};  // two chains of dot products
#pragma unroll
  for (int k = 0; k < SG_PACK_WORDS; ++k)
#if SG_PACK_LANES == 4
    s[k & 1] = __dp4a(p->w[k], 0x01010101u, s[k & 1]);
#else
    s[k & 1] = __dp2a_lo(p->w[k], 0x00000101u, s[k & 1]);
#endif
  return (SG_T)(s[0] + s[1]);
#endif
}

// The thread's items scanned from `prefix` (api.h's sg_items_from); either output may be null.
SG_FN void SG_NAME(sg_scan_packed)(SG_T prefix, const SG_NAME(sg_packed) * in, SG_NAME(sg_packed) * inclusive,
                                   SG_NAME(sg_packed) * exclusive) {
#if defined(SG_PACK_F16)
  unsigned int r = __byte_perm((unsigned int)prefix, 0u, 0x1010u);  // the prefix in both halves
#pragma unroll
  for (int k = 0; k < SG_PACK_WORDS; ++k) {
    const unsigned int w = in->w[k];
    const unsigned int q = scangen_hadd2(w, __byte_perm(w, 0x8000u, 0x1054u));  // (x0 + -0, x1 + x0)
    const unsigned int x = scangen_hadd2(r, q);
    if (inclusive) inclusive->w[k] = x;
    if (exclusive) exclusive->w[k] = __byte_perm(x, r, 0x1054u);
    r = __byte_perm(x, 0u, 0x3232u);
  }
#elif SG_PACK_LANES == 4
  unsigned int r = __byte_perm((unsigned int)prefix, 0u, 0x4040u);  // the prefix's byte in each half
#pragma unroll
  for (int k = 0; k < SG_PACK_WORDS; ++k) {
    const unsigned int w = in->w[k];
    const unsigned int o = __byte_perm(w, 0u, 0x4341u);  // x1, x3
    const unsigned int odd = (w - 255u * o) * 0x10001u + r;
    const unsigned int even = odd - o;
    const unsigned int x = __byte_perm(even, odd, 0x6240u);
    if (inclusive) inclusive->w[k] = x;
    if (exclusive) exclusive->w[k] = __byte_perm(x, r, 0x2104u);
    r = __byte_perm(odd, 0u, 0x4242u);
  }
#else
  unsigned int r = (unsigned int)prefix;  // its low half
#pragma unroll
  for (int k = 0; k < SG_PACK_WORDS; ++k) {
    const unsigned int w = in->w[k];
    const unsigned int lo = r + w, hi = lo + (w >> 16);
    const unsigned int x = __byte_perm(lo, hi, 0x5410u);
    if (inclusive) inclusive->w[k] = x;
    if (exclusive) exclusive->w[k] = __byte_perm(x, r, 0x1054u);
    r = hi;
  }
#endif
}
