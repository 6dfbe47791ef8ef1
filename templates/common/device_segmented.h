// Device level, segmented scan with the segments given at run time, in one
// pass (decoupled look-back). The tiles scan (heads, value) pairs
// (segmented_pair.h): the segment starts among a thread's items are marked
// as the tile loads (flags: the element's byte; keys: its key against the
// one before; offsets: the tile's offsets scattered as head marks), the
// block scans the pairs, the look-back carries the pairs across tiles, and
// each element's value restarts at every start. Outputs are values, each
// segment's scan seeded with init; the last element of each segment writes
// the segment's total (its pair's count names the segment: flags and keys)
// or its index (offsets) in segment_aggregates; with offsets, empty segments
// get the identity there, from the tile holding their position (the last
// tile for those at n, tile 0 when n is 0).
//
// With the exchange (SG_STAGED_IO), flags and keys are read like the inputs,
// coalesced and transposed through shared memory (sg_seg_fetch/place), and
// offsets take one search per tile, by the block, then one coalesced read of
// the tile's offsets (sg_seg_search/scatter). Without it (and in the OpenCL
// look-back's fallback), each thread reads its own: sg_seg_starts. Offsets
// forward without segment aggregates (SG_SEG_HEAD_BITS) take neither: the
// heads kernel, launched before, turns them into a bit per element in the
// workspace, and each thread reads its own bits (sg_seg_head_starts).
//
//   P_scan_kernel(in, [inclusive], [exclusive], [segment_aggregates],
//                 flags | offsets, segment_count | keys, n, workspace)
//   P_seg_heads_kernel(offsets, segment_count, n, workspace)   SG_SEG_HEAD_BITS:
//                 the same grid, launched first; the workspace zeroed before it
//
// grid = max(1, ceil(n / SG_TILE)) blocks of SG_THREADS; the workspace as
// device_lookback.h's. Offsets must hold offsets[0] = 0 <= ... <=
// offsets[segment_count] = n (the caller's duty: the runtime checks them on
// request).
//
// Needs: SG_SEGMENTS (SG_SEGMENTS_FLAGS, _OFFSETS or _KEYS), SG_OFFSET or SG_KEY,
// segmented_pair.h (SG_T is the pair), device.h, the backend's look-back.
SG_BEGIN(reverse)
//
// reverse = true: the tiles scan positions j = 0 .. n - 1, element n - 1 - j
// (io_mirror.h's exact mirror); the segments are read through the mirror and
// start, in scan order, at the last element of each segment of the array
// (flags: where the element after it is flagged; keys: where the key after it
// differs; offsets: the reversed array's, SG_SEG_OFF); the outputs are
// written back through the mirror, the aggregates in the array's segment
// order (offsets: SG_SEG_AGG; flags and keys: sg_seg_flip_aggregates).
SG_END(reverse)

// A thread's segment starts, at its items and at the element after them, as
// bits: start i is bit i % 32 of word i / 32 (a few registers, not one per start).
#define SG_SEG_BITS ((SG_ITEMS + 32) / 32)
#define SG_SEG_AT(s, i) (((s)[(i) >> 5] >> ((i) & 31)) & 1u)
#define SG_SEG_SET(s, i, v) ((s)[(i) >> 5] |= (unsigned int)((v) != 0) << ((i) & 31))
#ifdef __OPENCL_VERSION__
#define SG_SEG_POPC(x) popcount(x)
#else
#define SG_SEG_POPC(x) __popc(x)
#endif

// The starts among a thread's SG_ITEMS items (not the one after them): at
// most SG_ITEMS, so the pair's count needs no saturation.
SG_FN unsigned int SG_NAME(sg_seg_count)(const unsigned int* starts) {
  unsigned int count = 0u;
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) count += SG_SEG_POPC(starts[w] & SG_NAME(sg_bits_below)(w, SG_ITEMS));
  return count;
}

// Clears the start bits of positions lo + i at or past n (i <= SG_ITEMS): one
// 64-bit comparison a thread instead of one an item.
SG_FN void SG_NAME(sg_seg_below)(unsigned int* starts, scangen_u64 lo, scangen_u64 n) {
  const scangen_u64 room = n > lo ? n - lo : 0u;
  const unsigned int left = room < (scangen_u64)(SG_ITEMS + 1) ? (unsigned int)room : (unsigned int)(SG_ITEMS + 1);
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) starts[w] &= SG_NAME(sg_bits_below)(w, left);
}

#if SG_AGGREGATE_OUT
// The thread's items that end a segment (the position after one starts a
// segment, or is n), below n, as bits like the starts'.
SG_FN void SG_NAME(sg_seg_ends)(const unsigned int* starts, scangen_u64 lo, scangen_u64 n, unsigned int* ends) {
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) ends[w] = (starts[w] >> 1) | (w + 1 < SG_SEG_BITS ? starts[w + 1] << 31 : 0u);
  if (n > lo && n - lo <= (scangen_u64)SG_ITEMS) {
    const unsigned int last = (unsigned int)(n - lo) - 1u;
    ends[last >> 5] |= 1u << (last & 31u);
  }
  SG_NAME(sg_seg_below)(ends, lo, n);
}
#endif

#if SG_SEGMENTS == SG_SEGMENTS_FLAGS
#define SG_SEG_PARAMS const SG_GLOBAL unsigned char *flags
#define SG_SEG_ARGS flags
#elif SG_SEGMENTS == SG_SEGMENTS_OFFSETS
#define SG_SEG_PARAMS const SG_GLOBAL SG_OFFSET *offsets, scangen_u64 segment_count
#define SG_SEG_ARGS offsets, segment_count
#else
#define SG_SEG_PARAMS const SG_GLOBAL SG_KEY *keys
#define SG_SEG_ARGS keys
#endif

#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS
SG_BEGIN(reverse)
// reverse = true: scan-order segment s is segment count - 1 - s of the array,
// and its offsets are the reversed array's: n - offsets[count - s], with
// n = offsets[count] (SG_SEG_OFF); its aggregate goes to SG_SEG_AGG(count, s).
#define SG_SEG_OFF(o, count, s) ((o)[count] - (o)[(count) - (s)])
#define SG_SEG_AGG(count, s) ((count) - 1 - (s))
SG_END(reverse)
// The segment of element p < n: the last s with offsets[s] <= p (past the
// empty segments at p).
SG_FN scangen_u64 SG_NAME(sg_seg_find)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 count, scangen_u64 p) {
  scangen_u64 lo = 0, hi = count;  // offsets[lo] <= p < offsets[hi]
  while (hi - lo > 1) {
    const scangen_u64 mid = lo + (hi - lo) / 2;
    if ((scangen_u64)SG_BEGIN(forward)offsets[mid]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, count, mid)SG_END(reverse) <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}
#endif

// Elements lo .. lo + SG_ITEMS (one past a thread's items, which tells
// whether its last item ends a segment): start i is set where element lo + i
// starts a segment (element 0 always; none at n or past it); with offsets,
// segment[i] is the segment of element lo + i (below n).
SG_FN void SG_NAME(sg_seg_starts)(SG_SEG_PARAMS, scangen_u64 lo, scangen_u64 n, unsigned int* starts,
                                  scangen_u64* segment) {
#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS
  scangen_u64 s = lo < n ? SG_NAME(sg_seg_find)(offsets, segment_count, lo) : 0;
#else
  (void)segment;
#endif
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) starts[w] = 0u;
#pragma unroll
  for (int i = 0; i <= SG_ITEMS; ++i) {
    const scangen_u64 p = lo + (scangen_u64)i;
    unsigned char start = 0;
    if (p < n) {
#if SG_SEGMENTS == SG_SEGMENTS_FLAGS
      start = p == 0 || flags[SG_BEGIN(forward)pSG_END(forward)SG_BEGIN(reverse)n - pSG_END(reverse)] != 0;
#elif SG_SEGMENTS == SG_SEGMENTS_OFFSETS
      while ((scangen_u64)SG_BEGIN(forward)offsets[s + 1]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, segment_count, s + 1)SG_END(reverse) <= p) ++s;
      start = (scangen_u64)SG_BEGIN(forward)offsets[s]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, segment_count, s)SG_END(reverse) == p;
      if (i < SG_ITEMS) segment[i] = s;
#else
      start = p == 0 || !(SG_BEGIN(key_c_equal)keys[SG_BEGIN(forward)pSG_END(forward)SG_BEGIN(reverse)n - 1 - pSG_END(reverse)] == keys[SG_BEGIN(forward)p - 1SG_END(forward)SG_BEGIN(reverse)n - pSG_END(reverse)]SG_END(key_c_equal)SG_BEGIN(key_equal)SG_NAME(key_equal)(SG_BEGIN(forward)keys[p - 1], keys[p]SG_END(forward)SG_BEGIN(reverse)keys[n - 1 - p], keys[n - p]SG_END(reverse))SG_END(key_equal));
#endif
    }
    SG_SEG_SET(starts, i, start);
  }
}

SG_BEGIN(head_bits)
// Offsets as bits (forward, without segment aggregates: Plan::Segmented::head_bits). The workspace
// holds, after the tiles' statuses, a bit per element: bit p % 32 of word p / 32 is set where
// element p starts a segment. P_seg_heads_kernel sets them, one launch before the scan kernel, into
// words the host zeroed; each thread of the scan then reads its starts from them as the flags form
// reads its bytes, with no search of the offsets and no marks in shared memory.
SG_FN SG_GLOBAL unsigned int* SG_NAME(sg_seg_head_words)(SG_GLOBAL unsigned char* workspace, scangen_u64 tiles) {
  return (SG_GLOBAL unsigned int*)(workspace + 16 + tiles * SG_SEG_STATUS_BYTES);
}

// A thread's run of SG_SEG_HEAD_RUN consecutive offsets, all loaded first (in flight together),
// then OR-ed into the words they fall in, a word at a time. The offsets are nondecreasing, so only
// the first and the last word a run touches may hold bits of other runs: those take an atomic OR,
// and the words between, this run's alone, a plain store. (Offsets that are not nondecreasing, the
// caller's duty, may then lose starts: wrong results, never a write outside the words of positions
// below n.) Positions at or past n set nothing.
#define SG_SEG_HEAD_RUN 8
#ifdef __OPENCL_VERSION__
#define SG_SEG_ATOMIC_OR(p, v) atomic_or((volatile __global unsigned int*)(p), (v))
#else
#define SG_SEG_ATOMIC_OR(p, v) atomicOr((p), (v))
#endif
SG_KERNEL SG_BOUNDS(SG_THREADS)
void SG_NAME(seg_heads_kernel)(SG_PARAMS_seg_heads_kernel) {
  const scangen_u64 tiles = SG_NAME(sg_tile_count)(n);  // the grid: one block a tile
  SG_GLOBAL unsigned int* const words = SG_NAME(sg_seg_head_words)(workspace, tiles);
  const scangen_u64 stride = tiles * (scangen_u64)SG_THREADS * SG_SEG_HEAD_RUN;
  for (scangen_u64 s0 = (SG_BLOCK() * SG_THREADS + (scangen_u64)SG_THREAD()) * SG_SEG_HEAD_RUN; s0 < segment_count;
       s0 += stride) {
    scangen_u64 o[SG_SEG_HEAD_RUN];
#pragma unroll
    for (int j = 0; j < SG_SEG_HEAD_RUN; ++j) o[j] = s0 + (scangen_u64)j < segment_count ? (scangen_u64)offsets[s0 + (scangen_u64)j] : n;
    scangen_u64 word = 0;
    unsigned int bits = 0u;
    int first = 1;  // the word held is the run's first
#pragma unroll
    for (int j = 0; j < SG_SEG_HEAD_RUN; ++j) {
      if (o[j] >= n) continue;
      if (bits != 0u && (o[j] >> 5) != word) {
        if (first)
          SG_SEG_ATOMIC_OR(words + word, bits);
        else
          words[word] = bits;
        first = 0;
        bits = 0u;
      }
      word = o[j] >> 5;
      bits |= 1u << (unsigned int)(o[j] & 31u);
    }
    if (bits != 0u) SG_SEG_ATOMIC_OR(words + word, bits);
  }
}
#undef SG_SEG_ATOMIC_OR
#undef SG_SEG_HEAD_RUN

// Elements lo .. lo + SG_ITEMS of the head bits as starts (sg_seg_starts' meaning): element 0
// always starts, none at n or past it.
SG_FN void SG_NAME(sg_seg_head_starts)(const SG_GLOBAL unsigned int* words, scangen_u64 lo, scangen_u64 n,
                                       unsigned int* starts) {
  const scangen_u64 q = lo >> 5;
  const scangen_u64 have = (n + 31u) >> 5;  // the words holding elements below n
#if SG_ITEMS % 32 == 0
  // lo is a multiple of 32 (tiles and threads start at multiples of SG_ITEMS): whole words.
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) starts[w] = q + (scangen_u64)w < have ? words[q + (scangen_u64)w] : 0u;
#else
  const unsigned int r = (unsigned int)(lo & 31u);
  unsigned int got[SG_SEG_BITS + 1];
#pragma unroll
  for (int w = 0; w <= SG_SEG_BITS; ++w) got[w] = q + (scangen_u64)w < have ? words[q + (scangen_u64)w] : 0u;
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) starts[w] = r == 0u ? got[w] : (got[w] >> r) | (got[w + 1] << (32u - r));
#endif
  if (lo == 0) starts[0] |= 1u;
  SG_NAME(sg_seg_below)(starts, lo, n);
}
SG_END(head_bits)

#if SG_STAGED_IO && SG_SEGMENTS != SG_SEGMENTS_OFFSETS
// Flags and keys, staged: the tile's marks (flag bytes or keys) are read in
// coalesced, striped order, then transposed through the exchange to the
// blocked arrangement, where each thread compares its own in registers. With
// SG_SEG_WORDS, a full tile whose first mark is 16-byte aligned moves 16-byte
// words (permuted in the exchange as sg_load's), fetched before the inputs so
// that both reads are in flight at once; other tiles (and OpenCL) move one
// mark per padded slot.
#if SG_SEGMENTS == SG_SEGMENTS_FLAGS
#define SG_MARK_T unsigned char
#else
#define SG_MARK_T SG_KEY
#endif
typedef char SG_NAME(sg_seg_marks_fit)[sizeof(SG_MARK_T) * SG_BLOCK_ITEMS <= sizeof(SG_T) * SG_EXCHANGE ? 1 : -1];

// What a thread fetches before the inputs: its striped words (with
// SG_SEG_WORDS, when `words`; else its striped marks), and at the tile's
// edges the mark before it (keys) and the one after it.
typedef struct {
#if SG_SEG_WORDS
  uint4 v[SG_SEG_WORDS];
  int words;
#else
  SG_MARK_T e[SG_ITEMS];
#endif
  SG_MARK_T before, after;
} SG_NAME(sg_seg_fetched);

SG_FN void SG_NAME(sg_seg_fetch)(const SG_GLOBAL SG_MARK_T* marks, scangen_u64 first, scangen_u64 n,
                                 SG_NAME(sg_seg_fetched) * f) {
  const int tid = SG_THREAD();
  const scangen_u64 end = first + SG_BLOCK_ITEMS;
  f->before = f->after = (SG_MARK_T)0;
  if (tid == 0 && first > 0) f->before = marks[SG_BEGIN(forward)first - 1SG_END(forward)SG_BEGIN(reverse)n - firstSG_END(reverse)];
  if (tid == SG_BLOCK_THREADS - 1 && end < n) f->after = marks[SG_BEGIN(forward)endSG_END(forward)SG_BEGIN(reverse)n - 1 - endSG_END(reverse)];
#if SG_SEG_WORDS
  f->words = end <= n && ((unsigned long long)(marks + first) & 15u) == 0;
  if (f->words) {
    const uint4* src = (const uint4*)(marks + first);
#pragma unroll
    for (int i = 0; i < SG_SEG_WORDS; ++i) f->v[i] = SG_LOAD_WORD(src + i * SG_BLOCK_THREADS + tid);
  }
#else
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = first + (scangen_u64)(i * SG_BLOCK_THREADS + tid);
    f->e[i] = p < n ? marks[SG_BEGIN(forward)pSG_END(forward)SG_BEGIN(reverse)n - 1 - pSG_END(reverse)] : (SG_MARK_T)0;
  }
#endif
}

// The starts of the thread's items and the one after them from its marks
// `e` in order, the mark before them (keys) and the one after them.
SG_FN void SG_NAME(sg_seg_compare)(const SG_MARK_T* e, SG_MARK_T before, SG_MARK_T after, scangen_u64 first,
                                   scangen_u64 n, unsigned int* starts) {
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) starts[w] = 0u;
  // Each position's mark alone; then position 0 starts, and positions at or
  // past n do not (sg_seg_below: one comparison, not one an item).
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
#if SG_SEGMENTS == SG_SEGMENTS_FLAGS
    SG_SEG_SET(starts, i, SG_BEGIN(forward)e[i]SG_END(forward)SG_BEGIN(reverse)(i == 0 ? before : e[i - 1])SG_END(reverse) != 0);
#else
    SG_SEG_SET(starts, i, !(SG_BEGIN(key_c_equal)e[i] == (i == 0 ? before : e[i - 1])SG_END(key_c_equal)SG_BEGIN(key_equal)SG_BEGIN(forward)SG_NAME(key_equal)(i == 0 ? before : e[i - 1], e[i])SG_END(forward)SG_BEGIN(reverse)SG_NAME(key_equal)(e[i], i == 0 ? before : e[i - 1])SG_END(reverse)SG_END(key_equal)));
#endif
  }
#if SG_SEGMENTS == SG_SEGMENTS_FLAGS
SG_BEGIN(forward)
  (void)before;
  SG_SEG_SET(starts, SG_ITEMS, after != 0);
SG_END(forward)
SG_BEGIN(reverse)
  (void)after;  // reverse: element n - 1 - p ends a segment where the element after it starts one
  SG_SEG_SET(starts, SG_ITEMS, e[SG_ITEMS - 1] != 0);
SG_END(reverse)
#else
  SG_SEG_SET(starts, SG_ITEMS, !(SG_BEGIN(key_c_equal)after == e[SG_ITEMS - 1]SG_END(key_c_equal)SG_BEGIN(key_equal)SG_BEGIN(forward)SG_NAME(key_equal)(e[SG_ITEMS - 1], after)SG_END(forward)SG_BEGIN(reverse)SG_NAME(key_equal)(after, e[SG_ITEMS - 1])SG_END(reverse)SG_END(key_equal)));
#endif
  if (mine == 0) starts[0] |= 1u;
  SG_NAME(sg_seg_below)(starts, mine, n);
}

// The striped marks `striped` through the exchange, one per padded slot, to
// the thread's starts.
SG_FN void SG_NAME(sg_seg_slots)(const SG_MARK_T* striped, SG_MARK_T before, SG_MARK_T after, scangen_u64 first,
                                 scangen_u64 n, unsigned int* starts, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  SG_LOCAL SG_MARK_T* staged = (SG_LOCAL SG_MARK_T*)exchange;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) staged[SG_XPAD(i * SG_BLOCK_THREADS + tid)] = striped[i];
  SG_BARRIER();
  SG_MARK_T e[SG_ITEMS];
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) e[i] = staged[SG_XPAD(tid * SG_ITEMS + i)];
  if (tid > 0) before = staged[SG_XPAD(tid * SG_ITEMS - 1)];
  if (tid < SG_BLOCK_THREADS - 1) after = staged[SG_XPAD((tid + 1) * SG_ITEMS)];
  SG_BARRIER();  // the exchange may be reused at once
  SG_NAME(sg_seg_compare)(e, before, after, first, n, starts);
}

#if SG_SEG_WORDS
typedef union {
  uint4 v[SG_SEG_WORDS];
  SG_MARK_T e[SG_ITEMS];
} SG_NAME(sg_seg_chunk);
#endif

// The fetched marks to the thread's starts (after sg_load: the exchange is free).
SG_FN void SG_NAME(sg_seg_place)(const SG_GLOBAL SG_MARK_T* marks, const SG_NAME(sg_seg_fetched) * f,
                                 scangen_u64 first, scangen_u64 n, unsigned int* starts, SG_LOCAL SG_T* exchange) {
#if SG_SEG_WORDS
  const int tid = SG_THREAD();
  if (f->words) {
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
#pragma unroll
    for (int i = 0; i < SG_SEG_WORDS; ++i) {
      const int w = i * SG_BLOCK_THREADS + tid;
      words[SG_NAME(sg_word_at)(w / SG_SEG_WORDS, w % SG_SEG_WORDS, SG_SEG_WORDS)] = f->v[i];
    }
    SG_BARRIER();
    SG_NAME(sg_seg_chunk) u;
#pragma unroll
    for (int o = 0; o < SG_SEG_WORDS; ++o) u.v[o] = words[SG_NAME(sg_word_at)(tid, o, SG_SEG_WORDS)];
    SG_MARK_T before = f->before, after = f->after;
    if (tid > 0) {  // the last mark of the thread before
      const int at = SG_NAME(sg_word_at)(tid - 1, SG_SEG_WORDS - 1, SG_SEG_WORDS);
      before = ((const SG_LOCAL SG_MARK_T*)(words + at))[16 / sizeof(SG_MARK_T) - 1];
    }
    if (tid < SG_BLOCK_THREADS - 1)  // the first mark of the thread after
      after = ((const SG_LOCAL SG_MARK_T*)(words + SG_NAME(sg_word_at)(tid + 1, 0, SG_SEG_WORDS)))[0];
    SG_BARRIER();  // the exchange may be reused at once
    SG_NAME(sg_seg_compare)(u.e, before, after, first, n, starts);
    return;
  }
  SG_MARK_T striped[SG_ITEMS];  // a partial or unaligned tile: read now
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = first + (scangen_u64)(i * SG_BLOCK_THREADS + tid);
    striped[i] = p < n ? marks[p] : (SG_MARK_T)0;
  }
  SG_NAME(sg_seg_slots)(striped, f->before, f->after, first, n, starts, exchange);
#else
  (void)marks;
  SG_NAME(sg_seg_slots)(f->e, f->before, f->after, first, n, starts, exchange);
#endif
}
#undef SG_MARK_T
#endif

#if SG_STAGED_IO && SG_SEGMENTS == SG_SEGMENTS_OFFSETS
// Offsets, staged: one search per tile, by the whole block, then the tile's
// offsets read cooperatively and scattered into the exchange as head marks
// (a byte per position, padded by a word in 32 against bank conflicts) and,
// with aggregates, the segment that ends at each position (its index from
// the tile's first segment, base). Empty segments get their identity there
// and then, from the tile holding their position (the last tile: those at n).
#define SG_HPAD(k) ((k) + (((k) >> 7) << 2))
#define SG_HEAD_BYTES ((SG_HPAD(SG_BLOCK_ITEMS) + 16) / 16 * 16)
#define SG_SEG_BATCH 8
typedef char SG_NAME(sg_seg_marks_fit)[SG_HEAD_BYTES + 4 * SG_BLOCK_ITEMS <= sizeof(SG_T) * SG_EXCHANGE ? 1 : -1];

// The last segment s with offsets[s] < first (0 for the first tile): each
// round the block's probes cut [lo, hi) into SG_BLOCK_THREADS parts and the
// thread whose part holds it narrows the range (invariant offsets[lo] <
// first <= offsets[hi]); `range` is 4 words of shared memory, two rounds'.
SG_FN scangen_u64 SG_NAME(sg_seg_search)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 count, scangen_u64 first,
                                         SG_LOCAL scangen_u64* range) {
  scangen_u64 lo = 0, hi = count;
  if (first == 0) return 0;
  const scangen_u64 tid = (scangen_u64)SG_THREAD();
  for (int round = 0; round < 64 && hi - lo > 1; ++round) {
    const scangen_u64 step = (hi - lo + SG_BLOCK_THREADS - 1) / SG_BLOCK_THREADS;
    const scangen_u64 a = lo + tid * step, b = a + step < hi ? a + step : hi;
    if (a < hi && (tid == 0 || (scangen_u64)SG_BEGIN(forward)offsets[a]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, count, a)SG_END(reverse) < first) && (b == hi || (scangen_u64)SG_BEGIN(forward)offsets[b]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, count, b)SG_END(reverse) >= first)) {
      range[2 * (round & 1)] = a;
      range[2 * (round & 1) + 1] = b;
    }
    SG_BARRIER();
    const scangen_u64 l = range[2 * (round & 1)], h = range[2 * (round & 1) + 1];
    if (!(lo <= l && l < h && h <= hi)) break;  // offsets out of order (the caller's duty): stop, in bounds
    lo = l;
    hi = h;
  }
  return lo;
}

// The tile's heads and ends from its segments base, base + 1, ... (those
// with offsets below min(first + SG_TILE, n) + 1).
SG_FN void SG_NAME(sg_seg_scatter)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 count, scangen_u64 base,
                                   scangen_u64 first, scangen_u64 n, SG_LOCAL unsigned char* marks,
                                   SG_GLOBAL SG_VALUE_T* aggregates) {
  const int tid = SG_THREAD();
  SG_LOCAL unsigned int* words = (SG_LOCAL unsigned int*)marks;
  for (int w = tid; w < SG_HEAD_BYTES / 4; w += SG_BLOCK_THREADS) words[w] = 0u;
  SG_BARRIER();
  const scangen_u64 end = first + SG_BLOCK_ITEMS;
  const scangen_u64 bound = (end < n ? end : n) + 1;
#if SG_AGGREGATE_OUT
  SG_LOCAL unsigned int* ends = (SG_LOCAL unsigned int*)(marks + SG_HEAD_BYTES);
#endif
  // SG_SEG_BATCH offsets a thread at a time, all read before any is used
  // (a tile of segments of length 1 takes SG_ITEMS / SG_SEG_BATCH rounds).
  for (scangen_u64 c = base;; c += SG_SEG_BATCH * SG_BLOCK_THREADS) {
    SG_OFFSET o[SG_SEG_BATCH], o2[SG_SEG_BATCH];  // past the segments: 0, 0
#pragma unroll
    for (int j = 0; j < SG_SEG_BATCH; ++j) {
      const scangen_u64 s = c + (scangen_u64)(j * SG_BLOCK_THREADS + tid);
      o[j] = s < count ? SG_BEGIN(forward)offsets[s]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, count, s)SG_END(reverse) : (SG_OFFSET)0;
      o2[j] = s < count ? SG_BEGIN(forward)offsets[s + 1]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, count, s + 1)SG_END(reverse) : (SG_OFFSET)0;
    }
    const scangen_u64 next = c + SG_SEG_BATCH * SG_BLOCK_THREADS;
    const int more = next < count && (scangen_u64)SG_BEGIN(forward)offsets[next]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, count, next)SG_END(reverse) < bound;
#pragma unroll
    for (int j = 0; j < SG_SEG_BATCH; ++j) {
      const scangen_u64 s = c + (scangen_u64)(j * SG_BLOCK_THREADS + tid);
      (void)s;  // (read with segment_aggregates only)
      const scangen_u64 a = (scangen_u64)o[j], b = (scangen_u64)o2[j];
      if (a < bound && b > a) {
        if (a >= first) marks[SG_HPAD((int)(a - first))] = 1;
#if SG_AGGREGATE_OUT  // (only sg_seg_ended reads the ends)
        if (b - 1 >= first && b - 1 < end)  // 0xffffffff: too far from base, sg_seg_ended searches
          ends[b - 1 - first] = s - base < 0xffffffffu ? (unsigned int)(s - base) : 0xffffffffu;
#endif
      }
#if SG_AGGREGATE_OUT
      if (s < count && a == b && a >= first && (a < end || (a == n && end >= n))) aggregates[SG_BEGIN(forward)sSG_END(forward)SG_BEGIN(reverse)SG_SEG_AGG(count, s)SG_END(reverse)] = SG_VALUE_IDENTITY();
#else
      (void)aggregates;
#endif
    }
    if (!more) break;
  }
  SG_BARRIER();
}

#if SG_AGGREGATE_OUT
// The segment that ends at element p of the tile (the last of it).
SG_FN scangen_u64 SG_NAME(sg_seg_ended)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 count, scangen_u64 base,
                                        scangen_u64 first, scangen_u64 p, const SG_LOCAL unsigned char* marks) {
  const unsigned int rel = ((const SG_LOCAL unsigned int*)(marks + SG_HEAD_BYTES))[p - first];
  return rel != 0xffffffffu ? base + rel : SG_NAME(sg_seg_find)(offsets, count, p);
}
#endif

// The starts of the thread's items and the one after them, from the marks.
SG_FN void SG_NAME(sg_seg_heads)(const SG_LOCAL unsigned char* marks, scangen_u64 first, scangen_u64 n,
                                 unsigned int* starts) {
  const int k0 = SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int w = 0; w < SG_SEG_BITS; ++w) starts[w] = 0u;
#if SG_ITEMS % 4 == 0
  const SG_LOCAL unsigned int* words = (const SG_LOCAL unsigned int*)marks;
#pragma unroll
  for (int j = 0; j < SG_ITEMS / 4; ++j) {
    const int w = k0 / 4 + j;
    // Bit 0 of each of the word's four marks, gathered by one product: the
    // bit of byte b lands at bit 21 + b, where no other term of it does, and
    // no two terms share a bit (so no carries). Four items never straddle a
    // word of starts (32 is a multiple of 4).
    const unsigned int four = words[w + (w >> 5)] & 0x01010101u;
    starts[(4 * j) >> 5] |= (((four * 0x00204081u) >> 21) & 15u) << ((4 * j) & 31);
  }
#else
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) SG_SEG_SET(starts, i, marks[SG_HPAD(k0 + i)]);
#endif
  SG_SEG_SET(starts, SG_ITEMS, marks[SG_HPAD(k0 + SG_ITEMS)]);
  SG_NAME(sg_seg_below)(starts, first + (scangen_u64)k0, n);  // none at n or past it
}
#endif

#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS && SG_AGGREGATE_OUT && !SG_STAGED_IO
// The identity for the empty segments this thread answers for: those at the
// position of one of its items, and, with the last element, those at n.
SG_FN void SG_NAME(sg_seg_empty_aggregates)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 segment_count,
                                            scangen_u64 lo, scangen_u64 n, const unsigned int* starts,
                                            const scangen_u64* segment, SG_GLOBAL SG_VALUE_T* aggregates) {
  if (n == 0 && lo == 0)
    for (scangen_u64 j = 0; j < segment_count; ++j) aggregates[j] = SG_VALUE_IDENTITY();
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = lo + (scangen_u64)i;
    if (p >= n) break;
    if (SG_SEG_AT(starts, i))
      for (scangen_u64 j = segment[i]; j > 0 && (scangen_u64)SG_BEGIN(forward)offsets[j - 1]SG_END(forward)SG_BEGIN(reverse)SG_SEG_OFF(offsets, segment_count, j - 1)SG_END(reverse) == p; --j)
        aggregates[SG_BEGIN(forward)j - 1SG_END(forward)SG_BEGIN(reverse)SG_SEG_AGG(segment_count, j - 1)SG_END(reverse)] = SG_VALUE_IDENTITY();
    if (p + 1 == n)
      for (scangen_u64 j = segment[i] + 1; j < segment_count; ++j) aggregates[SG_BEGIN(forward)jSG_END(forward)SG_BEGIN(reverse)SG_SEG_AGG(segment_count, j)SG_END(reverse)] = SG_VALUE_IDENTITY();
  }
}
#endif

SG_BEGIN(any_order)
// A tile that holds a segment start publishes its total as its inclusive
// prefix at once, before its own look-back: nothing before the tile changes
// its values from that start on, so its successors stop their look-back
// there rather than at the tiles whose look-back is done (with tiles
// arriving every few ns, tens to hundreds of tiles back). Its count of starts
// is then its own, not the array's so far: not where the count names the
// segments (flags and keys with segment_aggregates).
#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS || !SG_AGGREGATE_OUT
#define SG_SEG_PUBLISH_EARLY(total) ((total).heads != 0u)
#else
#define SG_SEG_PUBLISH_EARLY(total) 0
#endif
#ifdef __OPENCL_VERSION__
// Work-item 0: the pair total of `tile` from its input and its segments,
// alone and in order (the look-back's fallback, opencl/lookback.cl).
SG_FN SG_T SG_NAME(sg_seg_reduce_alone)(const SG_GLOBAL SG_IN* in, SG_SEG_PARAMS, scangen_u64 tile, scangen_u64 n) {
  SG_T sum = SG_IDENTITY();
  const scangen_u64 first = tile * SG_TILE;
  for (scangen_u64 lo = first; lo < first + SG_TILE && lo < n; lo += SG_ITEMS) {
    unsigned int starts[SG_SEG_BITS];
    scangen_u64 segment[SG_ITEMS];
    SG_NAME(sg_seg_starts)(SG_SEG_ARGS, lo, n, starts, segment);
    for (int i = 0; i < SG_ITEMS && lo + (scangen_u64)i < n; ++i) {
      const scangen_u64 at = SG_BEGIN(forward)lo + (scangen_u64)iSG_END(forward)SG_BEGIN(reverse)n - 1 - (lo + (scangen_u64)i)SG_END(reverse);
      SG_T x = SG_CONVERT(in[at]SG_BEGIN(indexed), atSG_END(indexed));
      x.heads = SG_SEG_AT(starts, i);
      sum = SG_COMBINE(sum, x);
    }
  }
  return sum;
}

// opencl/lookback.cl's sg_tile_prefix, with the fallback reducing a stalled
// tile's pairs (its segments included).
SG_FN SG_T SG_NAME(sg_seg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                       scangen_u64 tile, SG_T total, const SG_GLOBAL SG_IN* in, SG_SEG_PARAMS,
                                       scangen_u64 n) {
  if (SG_THREAD() == 0) {
    SG_T prefix = SG_IDENTITY();
    if (tile == 0) {
      SG_NAME(sg_status_store)(workspace, 0, SG_FLAG_INCLUSIVE, total);
    } else {
      const int early = SG_SEG_PUBLISH_EARLY(total);
      SG_NAME(sg_status_store)(workspace, tile, early ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE, total);
      long pred = (long)tile - 1;
      uint flag = SG_FLAG_INVALID;
      int have = 0;
      while (flag != SG_FLAG_INCLUSIVE) {
        SG_T v = SG_IDENTITY();
        flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
        for (int spin = 0; spin < SG_SPIN && flag == SG_FLAG_INVALID; ++spin)
          flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
        if (flag == SG_FLAG_INVALID) {  // the fallback; see opencl/lookback.cl
          v = SG_NAME(sg_seg_reduce_alone)(in, SG_SEG_ARGS, (ulong)pred, n);
          mem_fence(CLK_GLOBAL_MEM_FENCE);
          SG_T published = SG_IDENTITY();
          flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &published);
          if (flag != SG_FLAG_INVALID)
            v = published;
          else
            flag = pred == 0 ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE;
        }
        prefix = have ? SG_COMBINE(v, prefix) : v;  // the farther tile first
        have = 1;
        --pred;
      }
      if (!early) SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, SG_COMBINE(prefix, total));
    }
    shared->prefix = prefix;
  }
  SG_BARRIER();
  return shared->prefix;
}
#else
// cuda/lookback.cuh's sg_tile_prefix, a tile holding a start publishing early.
SG_FN SG_T SG_NAME(sg_seg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                       scangen_u64 tile, SG_T total, const SG_GLOBAL SG_IN* in, SG_SEG_PARAMS,
                                       scangen_u64 n) {
  if (tile > 0 && SG_SEG_PUBLISH_EARLY(total)) {  // the same for the whole block: total is the block's
    if (SG_THREAD() < 32) {
      const unsigned int epoch = shared->epoch;
      if (SG_THREAD() == 0) SG_NAME(sg_status_put)(workspace, tile, SG_FLAG_INCLUSIVE, total, epoch);
      if (SG_LB_FIRST_POLL_NS > 0 && tile >= SG_LB_FIRST_POLL_FROM) __nanosleep(SG_LB_FIRST_POLL_NS);
      const SG_T prefix = SG_NAME(sg_warp_lookback_epoch)(workspace, tile, epoch);
      if (SG_THREAD() == 0) shared->prefix = prefix;
    }
    SG_BARRIER();
    return shared->prefix;
  }
  return SG_NAME(sg_tile_prefix)(shared, 0, workspace, tile, total, in, n);
}
#endif
#undef SG_SEG_PUBLISH_EARLY
SG_END(any_order)
SG_BEGIN(fixed_order)
// The fixed-order look-back (common/lookback_fixed.h) on both backends: no fallback.
SG_FN SG_T SG_NAME(sg_seg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                       scangen_u64 tile, SG_T total, const SG_GLOBAL SG_IN* in, SG_SEG_PARAMS,
                                       scangen_u64 n) {
  return SG_NAME(sg_tile_prefix)(shared, 0, workspace, tile, total, in, n);
}
SG_END(fixed_order)

#if SG_SEG_VEC_OUT
typedef union {
  uint4 v[SG_SEG_VEC_OUT];
  SG_VALUE_T e[SG_ITEMS];
} SG_NAME(sg_seg_chunk_out);

// A full tile's values out in 16-byte words, coalesced (out + first 16-byte
// aligned), through the exchange as sg_store's.
SG_FN void SG_NAME(sg_seg_store_words)(SG_GLOBAL SG_VALUE_T* out, scangen_u64 first, const SG_VALUE_T* values,
                                       SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
  SG_NAME(sg_seg_chunk_out) u;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) u.e[i] = values[i];
#pragma unroll
  for (int o = 0; o < SG_SEG_VEC_OUT; ++o) words[SG_NAME(sg_word_at)(tid, o, SG_SEG_VEC_OUT)] = u.v[o];
  SG_BARRIER();
  uint4* dst = (uint4*)(out + first);
#pragma unroll
  for (int i = 0; i < SG_SEG_VEC_OUT; ++i) {
    const int w = i * SG_BLOCK_THREADS + tid;
    const uint4 word = words[SG_NAME(sg_word_at)(w / SG_SEG_VEC_OUT, w % SG_SEG_VEC_OUT, SG_SEG_VEC_OUT)];
    SG_STORE_WORD(dst + w, word);
  }
  SG_BARRIER();  // the exchange may be reused at once
}
#endif

// A thread's results out, both scans in one pass: inc[] its inclusive
// values; the exclusive value of an element is init at a segment's start,
// else the inclusive value of the element before it (for the thread's first
// item, `exc0`; the tile's first element takes thread 0's). Either output may
// be null. Staged: the pairs (inclusive value, start) go through the exchange;
// a full tile with SG_SEG_VEC_OUT writes 16-byte words of values instead,
// each output in turn, the exclusive values made in registers.
SG_FN void SG_NAME(sg_seg_store)(SG_GLOBAL SG_VALUE_T* inclusive, SG_GLOBAL SG_VALUE_T* exclusive, scangen_u64 first,
                                 scangen_u64 n, const SG_VALUE_T* inc, const unsigned int* starts, SG_VALUE_T exc0,
                                 SG_LOCAL SG_T* exchange) {
#if SG_SEG_VEC_OUT
  if (first + SG_BLOCK_ITEMS <= n && ((unsigned long long)(inclusive + first) & 15u) == 0 &&
      ((unsigned long long)(exclusive + first) & 15u) == 0) {  // a null output is aligned
    if (inclusive) SG_NAME(sg_seg_store_words)(inclusive, first, inc, exchange);
    if (exclusive) {
      SG_VALUE_T exc[SG_ITEMS];
#pragma unroll
      for (int i = 0; i < SG_ITEMS; ++i)
        exc[i] = SG_SEG_AT(starts, i) ? SG_VALUE_INIT() : i == 0 ? exc0 : inc[i - 1];
      SG_NAME(sg_seg_store_words)(exclusive, first, exc, exchange);
    }
    return;
  }
#endif
#if SG_STAGED_IO
  const int tid = SG_THREAD();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    exchange[SG_XPAD(tid * SG_ITEMS + i)] = SG_NAME(seg_make)(SG_SEG_AT(starts, i), inc[i]);
  if (tid == 0) exchange[SG_XPAD(SG_BLOCK_ITEMS)] = SG_NAME(seg_make)(0u, exc0);
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int k = i * SG_BLOCK_THREADS + tid;
    if (first + (scangen_u64)k < n) {
      const SG_T e = exchange[SG_XPAD(k)];
      if (inclusive) inclusive[SG_BEGIN(forward)first + (scangen_u64)kSG_END(forward)SG_BEGIN(reverse)n - 1 - (first + (scangen_u64)k)SG_END(reverse)] = e.value;
      if (exclusive)
        exclusive[SG_BEGIN(forward)first + (scangen_u64)kSG_END(forward)SG_BEGIN(reverse)n - 1 - (first + (scangen_u64)k)SG_END(reverse)] =
            e.heads ? SG_VALUE_INIT() : exchange[k == 0 ? SG_XPAD(SG_BLOCK_ITEMS) : SG_XPAD(k - 1)].value;
    }
  }
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
  SG_VALUE_T before = exc0;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = mine + (scangen_u64)i;
    if (p < n) {
      if (inclusive) inclusive[SG_BEGIN(reverse)n - 1 - SG_END(reverse)p] = inc[i];
      if (exclusive) exclusive[SG_BEGIN(reverse)n - 1 - SG_END(reverse)p] = SG_SEG_AT(starts, i) ? SG_VALUE_INIT() : before;
    }
    before = inc[i];
  }
#endif
}

SG_BEGIN(reverse)
#if SG_SEGMENTS != SG_SEGMENTS_OFFSETS && SG_AGGREGATE_OUT
// reverse = true, flags and keys: the segment count is known only at the
// end, so scan-order segment t's aggregate goes to aggregates[t] (the
// array's segments last first), and the block that finishes last reverses
// aggregates[0 .. count) in place. The workspace header holds the blocks
// done (bytes 4..7, back to 0 after the call, like the ticket) and the count
// (bytes 8..15, from the last tile); a call of one tile flips alone.
SG_FN void SG_NAME(sg_seg_flip_aggregates)(SG_GLOBAL SG_VALUE_T* aggregates, SG_GLOBAL unsigned char* workspace,
                                           scangen_u64 tile, scangen_u64 tiles, scangen_u64 count,
                                           SG_LOCAL scangen_u64* flip) {
  const int tid = SG_THREAD();
  // Every thread's aggregates before the block counts itself done (barriers
  // unconditional: see opencl/lookback.cl's sg_count_done on PoCL).
#ifdef __OPENCL_VERSION__
  barrier(CLK_GLOBAL_MEM_FENCE);
#else
  __threadfence();
  SG_BARRIER();
#endif
  if (tid == 0) {
    scangen_u64 last = count;
    if (tiles > 1) {
#ifdef __OPENCL_VERSION__
      volatile __global ulong* total = (volatile __global ulong*)(workspace + 8);
      if (tile == tiles - 1) *total = count;
      mem_fence(CLK_GLOBAL_MEM_FENCE);
      const ulong done = (ulong)atomic_inc((volatile __global uint*)(workspace + 4));
      if (done == tiles - 1) atomic_xchg((volatile __global uint*)(workspace + 4), 0u);
      mem_fence(CLK_GLOBAL_MEM_FENCE);
#else
      volatile unsigned long long* total = (volatile unsigned long long*)(workspace + 8);
      if (tile == tiles - 1) *total = count;
      __threadfence();
      const unsigned long long done = atomicAdd((unsigned int*)(workspace + 4), 1u);
      if (done == tiles - 1) atomicExch((unsigned int*)(workspace + 4), 0u);
      __threadfence();
#endif
      last = done == tiles - 1 ? *total : ~(scangen_u64)0;
    }
    *flip = last;
  }
  SG_BARRIER();
  const scangen_u64 c = *flip;
  if (c == ~(scangen_u64)0) return;  // not the last block
#ifdef __OPENCL_VERSION__
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#else
  __threadfence();
#endif
  for (scangen_u64 i = (scangen_u64)tid; i < c / 2; i += SG_BLOCK_THREADS) {
    const SG_VALUE_T a = aggregates[i], b = aggregates[c - 1 - i];
    aggregates[i] = b;
    aggregates[c - 1 - i] = a;
  }
}
#endif

SG_END(reverse)
#if SG_SEEDED
#define SG_SEG_SEED(v) SG_VALUE_COMBINE(SG_VALUE_INIT(), (v))
#else
#define SG_SEG_SEED(v) (v)
#endif

#if SG_MIN_BLOCKS > 0
SG_KERNEL SG_BOUNDS_MIN(SG_THREADS, SG_MIN_BLOCKS)
#else
SG_KERNEL SG_BOUNDS(SG_THREADS)
#endif
void SG_NAME(scan_kernel)(SG_PARAMS_scan_kernel) {
  SG_SHARED SG_NAME(temp) temp;
  SG_SHARED SG_NAME(sg_lookback_shared) shared;
#ifdef SG_DYNAMIC_EXCHANGE
  // CUDA: an exchange past the 48 KiB a block may declare, in the dynamic
  // shared memory its launch gives (Plan::dynamic_shared_bytes).
  extern __shared__ SG_ALIGN16 unsigned char sg_dynamic_shared[];
  SG_T* const exchange = (SG_T*)sg_dynamic_shared;
#else
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
#endif
#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS && SG_STAGED_IO && !SG_SEG_HEAD_BITS
  SG_SHARED scangen_u64 seg_range[4];
#endif
SG_BEGIN(reverse)
#if SG_SEGMENTS != SG_SEGMENTS_OFFSETS && SG_AGGREGATE_OUT
  SG_SHARED scangen_u64 seg_flip;
#endif
SG_END(reverse)
  const scangen_u64 tiles = SG_NAME(sg_tile_count)(n);
  if (SG_THREAD() == 0) {  // epoch 0: the host zeroes the workspace for each call
    shared.tile = tiles == 1 ? 0 : SG_NAME(sg_take_ticket)(workspace, tiles - 1);
    shared.epoch = 0u;
  }
  SG_BARRIER();
  const scangen_u64 tile = shared.tile;
  const scangen_u64 first = tile * SG_TILE;
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
  (void)mine;

  SG_T items[SG_ITEMS];
  unsigned int starts[SG_SEG_BITS];
  scangen_u64 segment[SG_ITEMS];
#if SG_SEG_HEAD_BITS
  (void)segment;
  // The starts' words first, in flight while the inputs load (sg_load's barriers come after).
  SG_NAME(sg_seg_head_starts)(SG_NAME(sg_seg_head_words)(workspace, tiles), mine, n, starts);
  SG_NAME(sg_load)(in, first, n, items, exchange);
#elif SG_STAGED_IO && SG_SEGMENTS != SG_SEGMENTS_OFFSETS
  (void)segment;
  SG_NAME(sg_seg_fetched) fetched;
  SG_NAME(sg_seg_fetch)(SG_SEG_ARGS, first, n, &fetched);
  SG_NAME(sg_load)(in, first, n, items, exchange);
  SG_NAME(sg_seg_place)(SG_SEG_ARGS, &fetched, first, n, starts, exchange);
#elif SG_STAGED_IO
  (void)segment;
  SG_LOCAL unsigned char* marks = (SG_LOCAL unsigned char*)exchange;
#ifdef SG_LOAD_SPLIT
  // A full tile's input words are fetched first and stay in flight during the search.
  uint4 pending[SG_VEC_IN];
  const int whole = SG_NAME(sg_words_whole)(in, first, n);
  if (whole) SG_NAME(sg_words_fetch)(in, first, pending);
  const scangen_u64 base = SG_NAME(sg_seg_search)(offsets, segment_count, first, seg_range);
  if (whole)
    SG_NAME(sg_words_place)(pending, first, items, exchange);
  else
    SG_NAME(sg_load)(in, first, n, items, exchange);
#else
  const scangen_u64 base = SG_NAME(sg_seg_search)(offsets, segment_count, first, seg_range);
  SG_NAME(sg_load)(in, first, n, items, exchange);
#endif
#if SG_AGGREGATE_OUT
  SG_NAME(sg_seg_scatter)(offsets, segment_count, base, first, n, marks, segment_aggregates);
#else
  SG_NAME(sg_seg_scatter)(offsets, segment_count, base, first, n, marks, 0);
#endif
  SG_NAME(sg_seg_heads)(marks, first, n, starts);
#else
  SG_NAME(sg_load)(in, first, n, items, exchange);
  SG_NAME(sg_seg_starts)(SG_SEG_ARGS, mine, n, starts, segment);
#endif
  // The thread's pair: its value restarted at each start (seg_combine's
  // value, item by item in the same order), its count the starts' population
  // count (seg_combine's sum, which cannot saturate within a thread).
  SG_T own = items[0];
#pragma unroll
  for (int i = 1; i < SG_ITEMS; ++i)
    own.value = SG_SEG_AT(starts, i) ? items[i].value : SG_VALUE_COMBINE(own.value, items[i].value);
  own.heads = SG_NAME(sg_seg_count)(starts);
  SG_T total;
  SG_T prefix = SG_NAME(sg_group_exclusive)(&temp, own, &total);
  const SG_T before = SG_NAME(sg_seg_tile_prefix)(&shared, workspace, tile, total, in, SG_SEG_ARGS, n);
  if (tile > 0) prefix = SG_COMBINE(before, prefix);

  // The value before the thread's first item (its exclusive result unless the item starts a segment).
  const SG_VALUE_T exc0 = SG_SEG_SEED(prefix.value);
  SG_VALUE_T inc[SG_ITEMS];
#if SG_AGGREGATE_OUT
  unsigned int ending[SG_SEG_BITS];
  SG_NAME(sg_seg_ends)(starts, mine, n, ending);
#endif
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    SG_T x = items[i];
    x.heads = SG_SEG_AT(starts, i);
    prefix = SG_COMBINE(prefix, x);
    inc[i] = SG_SEG_SEED(prefix.value);
#if SG_AGGREGATE_OUT
    // The last element of its segment writes the segment's total.
    if (SG_SEG_AT(ending, i))
#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS && SG_STAGED_IO
      segment_aggregates[SG_BEGIN(forward)SG_NAME(sg_seg_ended)(offsets, segment_count, base, first, mine + (scangen_u64)i, marks)SG_END(forward)SG_BEGIN(reverse)SG_SEG_AGG(segment_count, SG_NAME(sg_seg_ended)(offsets, segment_count, base, first, mine + (scangen_u64)i, marks))SG_END(reverse)] = prefix.value;
#elif SG_SEGMENTS == SG_SEGMENTS_OFFSETS
      segment_aggregates[SG_BEGIN(forward)segment[i]SG_END(forward)SG_BEGIN(reverse)SG_SEG_AGG(segment_count, segment[i])SG_END(reverse)] = prefix.value;
#else
      segment_aggregates[prefix.heads - 1u] = prefix.value;
#endif
#endif
  }
#if SG_SEGMENTS == SG_SEGMENTS_OFFSETS && SG_AGGREGATE_OUT && SG_STAGED_IO
  SG_BARRIER();  // the ends are read: the exchange may be reused
#elif SG_SEGMENTS == SG_SEGMENTS_OFFSETS && SG_AGGREGATE_OUT
  SG_NAME(sg_seg_empty_aggregates)(offsets, segment_count, mine, n, starts, segment, segment_aggregates);
#endif
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_NAME(sg_seg_store)(inclusive, exclusive, first, n, inc, starts, exc0, exchange);
#elif SG_INCLUSIVE_OUT
  SG_NAME(sg_seg_store)(inclusive, 0, first, n, inc, starts, exc0, exchange);
#else
  SG_NAME(sg_seg_store)(0, exclusive, first, n, inc, starts, exc0, exchange);
#endif
SG_BEGIN(reverse)
#if SG_SEGMENTS != SG_SEGMENTS_OFFSETS && SG_AGGREGATE_OUT
  SG_NAME(sg_seg_flip_aggregates)(segment_aggregates, workspace, tile, tiles,
                                  (scangen_u64)(tile > 0 ? before.heads + total.heads : total.heads), &seg_flip);
#endif
SG_END(reverse)
}

#undef SG_SEG_SEED
#undef SG_SEG_BITS
#undef SG_SEG_AT
#undef SG_SEG_SET
#undef SG_SEG_POPC
#ifdef SG_HPAD
#undef SG_HPAD
#undef SG_HEAD_BYTES
#undef SG_SEG_BATCH
#endif
#undef SG_SEG_PARAMS
#undef SG_SEG_ARGS
SG_BEGIN(reverse)
#ifdef SG_SEG_OFF
#undef SG_SEG_OFF
#undef SG_SEG_AGG
#endif
SG_END(reverse)
