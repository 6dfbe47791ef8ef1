// Device level, shape = rows: `rows` rows of `length` elements, row r at
// in + r * in_row_stride (outputs: out_row_stride), each scanned on its own
// from init, in one launch of decoupled look-back.
//
// The rows are read as one virtual array of rows x length elements, element
// g being row g / length, column g % length, cut into tiles of SG_TILE. An
// element of column 0 is a head. A tile scans (head, value) pairs:
// (f, a) . (g, b) = (f | g, g ? b : a . b), so that several short rows share
// a tile, each restarting at its head. Across tiles: a tile that holds a head
// publishes what follows its last head as INCLUSIVE at once (nothing before a
// head matters to the tiles after it); a tile without one publishes its total
// as AGGREGATE, looks back and publishes INCLUSIVE. A tile whose first
// element is not a head looks back with the backend's look-back, which stops
// at the nearest INCLUSIVE status: at the latest, the tile that holds the
// row's head. Outputs and aggregates (one per row, its total without init)
// are written by the tile that holds the element.
//
//   P_rows_kernel(in, outputs..., [aggregates], rows, length, in_row_stride, out_row_stride, workspace)
//
// grid = max(1, ceil(rows x length / SG_TILE)) blocks of SG_THREADS; with
// more than one block, the workspace (16 bytes + a status per block) zeroed
// before the call.
//
// Needs: common/device.h, the backend's look-back (sg_take_ticket,
// sg_status_store, sg_status_load; CUDA: sg_warp_lookback).

typedef struct {
  SG_T v[2][SG_THREADS];
  int f[2][SG_THREADS];
  SG_T carry[32];
  scangen_u64 tile;
} SG_NAME(sg_shape_shared);

// Where virtual element g of rows of `length` lies with a row stride.
SG_FN scangen_u64 SG_NAME(sg_row_at)(scangen_u64 g, scangen_u64 length, scangen_u64 stride) {
SG_BEGIN(forward)
  return stride == length ? g : (g / length) * stride + g % length;
SG_END(forward)
SG_BEGIN(reverse)
  // reverse = true: column c of the virtual array is element length - 1 - c of its row (rows from their ends).
  return (g / length) * stride + (length - 1 - g % length);
SG_END(reverse)
}

// A walk over virtual elements g, g + step, ... of rows of `length`: each
// element's row and column without a 64-bit division a step (one division
// pair when the walk starts).
typedef struct {
  scangen_u64 row, col, drow, dcol;
} SG_NAME(sg_row_walk);

SG_FN SG_NAME(sg_row_walk) SG_NAME(sg_row_walk_start)(scangen_u64 g, scangen_u64 step, scangen_u64 length) {
  SG_NAME(sg_row_walk) w;
  w.row = g / length;
  w.col = g % length;
  w.drow = step / length;
  w.dcol = step % length;
  return w;
}

SG_FN void SG_NAME(sg_row_walk_next)(SG_NAME(sg_row_walk)* w, scangen_u64 length) {
  w->row += w->drow;
  w->col += w->dcol;
  if (w->col >= length) {
    w->col -= length;
    ++w->row;
  }
}

// sg_row_at(g, length, stride) for the walk's element g.
SG_FN scangen_u64 SG_NAME(sg_row_walk_at)(const SG_NAME(sg_row_walk)* w, scangen_u64 g, scangen_u64 length,
                                          scangen_u64 stride) {
SG_BEGIN(forward)
  return stride == length ? g : w->row * stride + w->col;
SG_END(forward)
SG_BEGIN(reverse)
  (void)g;
  return w->row * stride + (length - 1 - w->col);
SG_END(reverse)
}

// sg_row_walk_start where the walk is used: rows end to end (forward) are the
// flat array, so a walk only for convert(v, i)'s place (`place`: the caller
// reads it) takes its divisions; otherwise the walk is left at zero and
// sg_row_walk_at, sg_rows_word_at and sg_row_walk_next run on it unused.
SG_FN SG_NAME(sg_row_walk) SG_NAME(sg_rows_walk)(scangen_u64 g, scangen_u64 step, scangen_u64 length, scangen_u64 stride,
                                                 int place) {
  int needed = 1;
SG_BEGIN(forward)
  needed = stride != length || place;
SG_END(forward)
  (void)stride;
  (void)place;
  if (!needed) {
    SG_NAME(sg_row_walk) w;
    w.row = 0;
    w.col = 0;
    w.drow = 0;
    w.dcol = 0;
    return w;
  }
  return SG_NAME(sg_row_walk_start)(g, step, length);
}

// The heads among a thread's SG_ITEMS items without 64-bit arithmetic per
// item: `next`, the items before the next head, and `period`, the items from
// a head to the next, both capped at SG_ITEMS + 1 (past SG_ITEMS a thread's
// items hold one head at most, so the cap never reaches a head).
typedef struct {
  int next, period;
} SG_NAME(sg_row_heads);

// The heads from an item of column `col` of rows of `length`.
SG_FN SG_NAME(sg_row_heads) SG_NAME(sg_row_heads_start)(scangen_u64 col, scangen_u64 length) {
  SG_NAME(sg_row_heads) h;
  const scangen_u64 left = col == 0 ? 0 : length - col;
  h.next = left > (scangen_u64)SG_ITEMS ? SG_ITEMS + 1 : (int)left;
  h.period = length > (scangen_u64)SG_ITEMS ? SG_ITEMS + 1 : (int)length;
  return h;
}

// Whether the item is a head (column 0); then on to the next item. After it,
// next == 0 says the item is the last of its row.
SG_FN int SG_NAME(sg_row_heads_next)(SG_NAME(sg_row_heads)* h) {
  const int head = h->next == 0;
  h->next = (head ? h->period : h->next) - 1;
  return head;
}

// A thread's heads as bits, bit i % 32 of word i / 32 for item i, from an
// item of column `col` of rows of `length` (sg_row_heads' heads): one short
// loop a thread (a trip a head) rather than a countdown an item.
#define SG_ROW_BITS ((SG_ITEMS + 31) / 32)
#define SG_ROW_AT(b, i) (((b)[(i) >> 5] >> ((i) & 31)) & 1u)
SG_FN void SG_NAME(sg_row_head_bits)(scangen_u64 col, scangen_u64 length, unsigned int* bits) {
  const SG_NAME(sg_row_heads) h = SG_NAME(sg_row_heads_start)(col, length);
#pragma unroll
  for (int w = 0; w < SG_ROW_BITS; ++w) {
    unsigned int word = 0u;
    for (int i = h.next; i < SG_ITEMS; i += h.period)
      if ((i >> 5) == w) word |= 1u << (i & 31);
    bits[w] = word;
  }
}

// How many of the SG_ITEMS items from virtual element `mine` lie before n.
SG_FN int SG_NAME(sg_items_before)(scangen_u64 mine, scangen_u64 n) {
  return mine >= n ? 0 : n - mine > (scangen_u64)SG_ITEMS ? SG_ITEMS : (int)(n - mine);
}

SG_BEGIN(indexed)
// convert(v, i): i is the element's place in its row or line (of `length`),
// from its position p in the scan's order: column p of the virtual array, p
// along the axis kernel's line (0 at the first element, with reverse = true too).
SG_FN scangen_u64 SG_NAME(sg_place)(scangen_u64 p, scangen_u64 length) {
SG_BEGIN(forward)
  (void)length;
  return p;
SG_END(forward)
SG_BEGIN(reverse)
  return length - 1 - p;
SG_END(reverse)
}

SG_END(indexed)
#if SG_VEC_IN || SG_VEC_OUT
// CUDA, 16-byte words (common/io.h): whether a full tile (first + SG_TILE <=
// n) of elements of `bytes` bytes moves in whole words between `base` and
// the exchange (`base`: the pointer's address). Rows laid end to end (stride == length) are the flat array;
// with a wider stride a word must hold whole elements of one row: 16 a
// multiple of the element, length and stride multiples of the elements per
// word. Decided per tile; every thread of the block decides alike.
SG_BEGIN(reverse)
// reverse = true: a word holds `per` consecutive elements of one row in
// memory, the virtual elements g .. g + per - 1 of that row backwards (its
// first element is virtual element g + per - 1); so length and stride must be
// multiples of per in every case.
SG_END(reverse)
SG_FN int SG_NAME(sg_rows_words)(unsigned long long base, unsigned bytes, scangen_u64 first, scangen_u64 n,
                                 scangen_u64 length, scangen_u64 stride) {
  if (first + SG_TILE > n || (base & 15u) != 0) return 0;
SG_BEGIN(forward)
  if (stride == length) return 1;
SG_END(forward)
  const scangen_u64 per = 16u / bytes;
  return 16u % bytes == 0 && length % per == 0 && stride % per == 0;
}

// A thread's words tid, tid + SG_THREADS, ... of the tile from virtual
// element `first` (elements of `bytes` bytes): a walk over their first
// virtual elements, one division pair for all of them (a division a word
// took registers enough to keep the kernel to 2 blocks an SM).
// Rows end to end (forward) need no walk: no division then.
SG_FN SG_NAME(sg_row_walk) SG_NAME(sg_rows_words_walk)(scangen_u64 first, unsigned bytes, scangen_u64 length,
                                                       scangen_u64 stride) {
  const scangen_u64 per = bytes < 16u ? 16u / bytes : 1u;
  return SG_NAME(sg_rows_walk)(first + (scangen_u64)SG_THREAD() * per, (scangen_u64)SG_THREADS * per, length, stride,
                               0);
}

// Where word k of the tile from virtual element `first` lies, in words from
// the base (`w`: the walk at that word): rows end to end are the flat array
// (elements of any size); otherwise its elements are those of columns
// col .. col + per - 1 of its row (reverse = true: stored from element
// length - col - per of the row on, backwards).
SG_FN scangen_u64 SG_NAME(sg_rows_word_at)(const SG_NAME(sg_row_walk)* w, int k, scangen_u64 first, unsigned bytes,
                                           scangen_u64 length, scangen_u64 stride) {
  const scangen_u64 per = bytes < 16u ? 16u / bytes : 1u;
SG_BEGIN(forward)
  if (stride == length) return first * bytes / 16u + (scangen_u64)k;
  return (w->row * stride + w->col) / per;
SG_END(forward)
SG_BEGIN(reverse)
  (void)k;
  (void)first;
  return (w->row * stride + (length - w->col - per)) / per;
SG_END(reverse)
}

// Element i of a thread's words (in memory order) is its item i (reverse =
// true: i - i % per + per - 1 - i % per, each word's elements backwards;
// per is 16 / size, 0 for elements over 16 bytes, which take no words).
SG_FN int SG_NAME(sg_word_item)(int i, int per) {
SG_BEGIN(forward)
  (void)per;
  return i;
SG_END(forward)
SG_BEGIN(reverse)
  if (per <= 1) return i;
  return i - i % per + per - 1 - i % per;
SG_END(reverse)
}
#endif

// Elements first .. first + SG_TILE - 1 of the virtual array (n elements),
// this thread's SG_ITEMS in the blocked arrangement; the identity past n.
// Staged through the exchange (coalesced reads along the rows) when the plan
// stages its I/O, in 16-byte words where sg_rows_words allows (CUDA; not
// with SCANGEN_SHAPE_ELEMENT_IO defined when the file is compiled, which
// keeps element I/O to compare with).
SG_FN void SG_NAME(sg_rows_load)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, scangen_u64 length,
                                 scangen_u64 stride, SG_T* items, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
#if SG_STAGED_IO
#if SG_VEC_IN && !defined(SCANGEN_SHAPE_ELEMENT_IO)
  if (SG_NAME(sg_rows_words)((unsigned long long)in, sizeof(SG_IN), first, n, length, stride)) {
    const SG_GLOBAL uint4* src = (const SG_GLOBAL uint4*)in;
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
    SG_NAME(sg_row_walk) walk = SG_NAME(sg_rows_words_walk)(first, sizeof(SG_IN), length, stride);
#pragma unroll
    for (int i = 0; i < SG_VEC_IN; ++i) {
      const int w = i * SG_THREADS + tid;
      const scangen_u64 at = SG_NAME(sg_rows_word_at)(&walk, w, first, sizeof(SG_IN), length, stride);
      SG_NAME(sg_row_walk_next)(&walk, length);
      words[SG_NAME(sg_word_at)(w / SG_VEC_IN, w % SG_VEC_IN, SG_VEC_IN)] = SG_LOAD_WORD(src + at);
    }
    SG_BARRIER();
    SG_NAME(sg_chunk_in) u;
#pragma unroll
    for (int o = 0; o < SG_VEC_IN; ++o) u.v[o] = words[SG_NAME(sg_word_at)(tid, o, SG_VEC_IN)];
SG_BEGIN(indexed)
    SG_NAME(sg_row_walk) at = SG_NAME(sg_row_walk_start)(first + (scangen_u64)(tid * SG_ITEMS), 1, length);
SG_END(indexed)
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      items[i] = SG_CONVERT(u.e[SG_NAME(sg_word_item)(i, (int)(16u / sizeof(SG_IN)))]SG_BEGIN(indexed), SG_NAME(sg_place)(at.col, length)SG_END(indexed));
SG_BEGIN(indexed)
      SG_NAME(sg_row_walk_next)(&at, length);
SG_END(indexed)
    }
    SG_BARRIER();
    return;
  }
#endif
  SG_NAME(sg_row_walk) walk = SG_NAME(sg_rows_walk)(first + (scangen_u64)tid, SG_THREADS, length, stride, 0SG_BEGIN(indexed) + 1SG_END(indexed));
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int k = i * SG_THREADS + tid;
    const scangen_u64 g = first + (scangen_u64)k;
    exchange[SG_XPAD(k)] =
        g < n ? SG_CONVERT(in[SG_NAME(sg_row_walk_at)(&walk, g, length, stride)]SG_BEGIN(indexed), SG_NAME(sg_place)(walk.col, length)SG_END(indexed))
              : SG_IDENTITY();
    SG_NAME(sg_row_walk_next)(&walk, length);
  }
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i] = exchange[SG_XPAD(tid * SG_ITEMS + i)];
  SG_BARRIER();
#else
  (void)exchange;
  SG_NAME(sg_row_walk) walk = SG_NAME(sg_rows_walk)(first + (scangen_u64)(tid * SG_ITEMS), 1, length, stride, 0SG_BEGIN(indexed) + 1SG_END(indexed));
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 g = first + (scangen_u64)(tid * SG_ITEMS + i);
    items[i] = g < n ? SG_CONVERT(in[SG_NAME(sg_row_walk_at)(&walk, g, length, stride)]SG_BEGIN(indexed), SG_NAME(sg_place)(walk.col, length)SG_END(indexed))
                     : SG_IDENTITY();
    SG_NAME(sg_row_walk_next)(&walk, length);
  }
#endif
}

// This thread's inclusive (`inclusive`) or exclusive outputs, from its items
// and `acc`, the row's elements before its first item.
SG_FN void SG_NAME(sg_rows_outputs)(const SG_T* items, SG_T acc, const unsigned int* heads, int inclusive,
                                    SG_T* out) {
#if SG_SEEDED
  const SG_T seed = SG_INIT();
#endif
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int head = SG_ROW_AT(heads, i);
    if (!inclusive) {
#if SG_SEEDED
      out[i] = head ? seed : SG_COMBINE(seed, acc);
#else
      out[i] = head ? SG_IDENTITY() : acc;
#endif
    }
    acc = head ? items[i] : SG_COMBINE(acc, items[i]);
    if (inclusive) {
#if SG_SEEDED
      out[i] = SG_COMBINE(seed, acc);
#else
      out[i] = acc;
#endif
    }
  }
}

// The outputs (`outputs` of them: out0, then out1; inclusive first), each
// computed right before it is written. One call site and a loop of a fixed
// trip count for both: a function holding barriers that is called twice may
// be left out of line, and PoCL then runs its barriers wrong (a work-group
// read another one's exchange: the outputs of `mode = both` got values of
// other tiles).
SG_FN void SG_NAME(sg_rows_store)(SG_GLOBAL SG_T* out0, SG_GLOBAL SG_T* out1, int outputs, scangen_u64 first,
                                  scangen_u64 n, scangen_u64 length, scangen_u64 stride, const SG_T* items, SG_T acc,
                                  const unsigned int* heads, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  SG_T values[SG_ITEMS];
  for (int o = 0; o < outputs; ++o) {
    SG_GLOBAL SG_T* out = o == 0 ? out0 : out1;
    SG_NAME(sg_rows_outputs)(items, acc, heads, SG_INCLUSIVE_OUT && o == 0, values);
#if SG_STAGED_IO && SG_VEC_OUT && !defined(SCANGEN_SHAPE_ELEMENT_IO)
    if (SG_NAME(sg_rows_words)((unsigned long long)out, sizeof(SG_T), first, n, length, stride)) {
      SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
      SG_NAME(sg_chunk_out) u;
#pragma unroll
      for (int i = 0; i < SG_ITEMS; ++i) u.e[SG_NAME(sg_word_item)(i, (int)(16u / sizeof(SG_T)))] = values[i];
#pragma unroll
      for (int w = 0; w < SG_VEC_OUT; ++w) words[SG_NAME(sg_word_at)(tid, w, SG_VEC_OUT)] = u.v[w];
      SG_BARRIER();
      SG_GLOBAL uint4* dst = (SG_GLOBAL uint4*)out;
      SG_NAME(sg_row_walk) walk = SG_NAME(sg_rows_words_walk)(first, sizeof(SG_T), length, stride);
#pragma unroll
      for (int i = 0; i < SG_VEC_OUT; ++i) {
        const int w = i * SG_THREADS + tid;
        const uint4 word = words[SG_NAME(sg_word_at)(w / SG_VEC_OUT, w % SG_VEC_OUT, SG_VEC_OUT)];
        SG_STORE_WORD(dst + SG_NAME(sg_rows_word_at)(&walk, w, first, sizeof(SG_T), length, stride), word);
        SG_NAME(sg_row_walk_next)(&walk, length);
      }
      SG_BARRIER();
      continue;
    }
#endif
#if SG_STAGED_IO
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = values[i];
    SG_BARRIER();
    SG_NAME(sg_row_walk) walk = SG_NAME(sg_rows_walk)(first + (scangen_u64)tid, SG_THREADS, length, stride, 0);
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_THREADS + tid;
      const scangen_u64 g = first + (scangen_u64)k;
      if (g < n) out[SG_NAME(sg_row_walk_at)(&walk, g, length, stride)] = exchange[SG_XPAD(k)];
      SG_NAME(sg_row_walk_next)(&walk, length);
    }
    SG_BARRIER();
#else
    (void)exchange;
    SG_NAME(sg_row_walk) walk = SG_NAME(sg_rows_walk)(first + (scangen_u64)(tid * SG_ITEMS), 1, length, stride, 0);
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const scangen_u64 g = first + (scangen_u64)(tid * SG_ITEMS + i);
      if (g < n) out[SG_NAME(sg_row_walk_at)(&walk, g, length, stride)] = values[i];
      SG_NAME(sg_row_walk_next)(&walk, length);
    }
#endif
  }
}

// The block's ticket (none for a call of one block, which touches no
// workspace), in shared->tile for every thread.
SG_FN scangen_u64 SG_NAME(sg_shape_ticket)(SG_LOCAL SG_NAME(sg_shape_shared)* shared,
                                           SG_GLOBAL unsigned char* workspace, scangen_u64 tiles) {
  if (SG_THREAD() == 0) shared->tile = tiles == 1 ? 0 : SG_NAME(sg_take_ticket)(workspace, tiles - 1);
  SG_BARRIER();
  return shared->tile;
}

// The inclusive segmented scan of the threads' (flag, value) pairs, in place
// in shared->v / f; returns the buffer that holds it. Every thread calls it.
#if !defined(__OPENCL_VERSION__) && SG_THREADS % 32 == 0
// CUDA: each warp scans its pairs by shuffles; then a thread whose pair holds
// no head combines the totals of the warps before it, the nearest first,
// until one holds a head. Two barriers (one per step of the shared-memory
// scan below: eight for 256 threads). The element's shuffle is the
// look-back's (cuda/lookback.cuh).
SG_FN int SG_NAME(sg_segmented_threads)(SG_LOCAL SG_NAME(sg_shape_shared)* shared, int flag, SG_T value) {
  const int tid = SG_THREAD();
  const int lane = tid & 31, warp = tid >> 5;
  int f = flag;
  SG_T v = value;
#pragma unroll
  for (unsigned int d = 1; d < 32; d <<= 1) {
    const SG_T up = SG_NAME(sg_lb_shfl_up)(v, d);
    const int up_flag = __shfl_up_sync(0xffffffffu, f, d);
    if (lane >= (int)d && !f) {
      v = SG_COMBINE(up, v);
      f = up_flag;
    }
  }
  shared->f[0][tid] = f;
  shared->v[0][tid] = v;
  SG_BARRIER();
  for (int w = warp - 1; w >= 0 && !f; --w) {
    v = SG_COMBINE(shared->v[0][w * 32 + 31], v);
    f = shared->f[0][w * 32 + 31];
  }
  shared->f[1][tid] = f;
  shared->v[1][tid] = v;
  SG_BARRIER();
  return 1;
}
#else
SG_FN int SG_NAME(sg_segmented_threads)(SG_LOCAL SG_NAME(sg_shape_shared)* shared, int flag, SG_T value) {
  const int tid = SG_THREAD();
  shared->f[0][tid] = flag;
  shared->v[0][tid] = value;
  SG_BARRIER();
  int src = 0;
  for (int d = 1; d < SG_THREADS; d <<= 1) {
    int f = shared->f[src][tid];
    SG_T v = shared->v[src][tid];
    if (tid >= d && !f) {
      v = SG_COMBINE(shared->v[src][tid - d], v);
      f = shared->f[src][tid - d];
    }
    shared->f[1 - src][tid] = f;
    shared->v[1 - src][tid] = v;
    src = 1 - src;
    SG_BARRIER();
  }
  return src;
}
#endif

SG_BEGIN(any_order)
#ifdef SG_SPIN
// OpenCL: the total after the last head of a tile (*head: it has one), from
// its input, by one work-item (the look-back's fallback).
SG_FN SG_T SG_NAME(sg_rows_reduce_alone)(const SG_GLOBAL SG_IN* in, scangen_u64 tile, scangen_u64 n,
                                         scangen_u64 length, scangen_u64 stride, int* head) {
  const scangen_u64 first = tile * SG_TILE;
  const scangen_u64 last = first + SG_TILE < n ? first + SG_TILE : n;
  SG_T sum = SG_IDENTITY();
  *head = 0;
  for (scangen_u64 g = first; g < last; ++g) {
    const SG_T x = SG_CONVERT(in[SG_NAME(sg_row_at)(g, length, stride)]SG_BEGIN(indexed), SG_NAME(sg_place)(g % length, length)SG_END(indexed));
    const int h = g % length == 0;
    sum = h || g == first ? x : SG_COMBINE(sum, x);
    *head = *head || h;
  }
  return sum;
}
#endif

// The combine of the row's elements in the tiles before `tile` (whose first
// element is not a head), by work-item 0 (OpenCL, one predecessor at a time,
// bounded waits and the fallback) or the first warp (CUDA); in shared->carry[0].
SG_FN void SG_NAME(sg_rows_lookback)(SG_LOCAL SG_NAME(sg_shape_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                     scangen_u64 tile, const SG_GLOBAL SG_IN* in, scangen_u64 n, scangen_u64 length,
                                     scangen_u64 stride) {
#ifdef SG_SPIN
  if (SG_THREAD() == 0) {
    SG_T prefix = SG_IDENTITY();
    long pred = (long)tile - 1;
    uint flag = SG_FLAG_INVALID;
    int have = 0;
    while (flag != SG_FLAG_INCLUSIVE) {
      SG_T v = SG_IDENTITY();
      flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
      for (int spin = 0; spin < SG_SPIN && flag == SG_FLAG_INVALID; ++spin)
        flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
      if (flag == SG_FLAG_INVALID) {  // the fallback, as in opencl/lookback.cl
        int head = 0;
        v = SG_NAME(sg_rows_reduce_alone)(in, (ulong)pred, n, length, stride, &head);
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        SG_T published = SG_IDENTITY();
        flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &published);
        if (flag != SG_FLAG_INVALID)
          v = published;
        else
          flag = head ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE;
      }
      prefix = have ? SG_COMBINE(v, prefix) : v;
      have = 1;
      --pred;
    }
    shared->carry[0] = prefix;
  }
#else
  (void)in;
  (void)n;
  (void)length;
  (void)stride;
  if (SG_THREAD() < 32) {
    const SG_T prefix = SG_NAME(sg_warp_lookback)(workspace, tile);
    if (SG_THREAD() == 0) shared->carry[0] = prefix;
  }
#endif
  SG_BARRIER();
}

SG_END(any_order)
SG_BEGIN(fixed_order)
// The fixed-order look-back (common/lookback_fixed.h) over the tiles of the
// virtual array, a tile's node being its (head, total) pair: publishes the
// tile's node (at once where the tile holds a head) and, where its first
// element is not a head, puts the combine of the row's elements in the
// tiles before it in shared->carry[0]. No fallback on OpenCL.
SG_FN void SG_NAME(sg_rows_fixed)(SG_LOCAL SG_NAME(sg_shape_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                  scangen_u64 tiles, scangen_u64 tile, SG_T total, int head, int first_head) {
#ifdef SG_SPIN
  if (SG_THREAD() == 0) {
    if (first_head) {
      if (tiles > 1) SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, total);
      shared->carry[0] = SG_IDENTITY();
    } else {
      shared->carry[0] = SG_NAME(sg_fixed_chain)(workspace, 0, 1, tile, total, head).v;
    }
  }
#else
  if (SG_THREAD() < 32) {
    if (first_head) {
      if (SG_THREAD() == 0 && tiles > 1) SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, total);
      if (SG_THREAD() == 0) shared->carry[0] = SG_IDENTITY();
    } else {
      const SG_NAME(sg_fixed_acc) acc = SG_NAME(sg_fixed_chain_warp)(workspace, 0, 1, tile, total, head);
      if (SG_THREAD() == 0) shared->carry[0] = acc.v;
    }
  }
#endif
  SG_BARRIER();
}
SG_END(fixed_order)

// Every row's aggregate is the identity (rows of no element).
SG_FN void SG_NAME(sg_empty_rows)(SG_GLOBAL SG_T* aggregates, scangen_u64 rows) {
  if (SG_BLOCK() != 0) return;
  for (scangen_u64 r = (scangen_u64)SG_THREAD(); r < rows; r += SG_THREADS) aggregates[r] = SG_IDENTITY();
}

#if SG_AGGREGATE_OUT
// The totals of the rows whose last element is one of this thread's items.
SG_FN void SG_NAME(sg_rows_aggregates)(SG_GLOBAL SG_T* aggregates, const SG_T* items, SG_T acc, scangen_u64 mine,
                                       scangen_u64 n, scangen_u64 length) {
  SG_NAME(sg_row_heads) h = SG_NAME(sg_row_heads_start)(mine % length, length);
  const int valid = SG_NAME(sg_items_before)(mine, n);
  scangen_u64 row = mine / length;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int head = SG_NAME(sg_row_heads_next)(&h);
    if (head && i > 0) ++row;
    acc = head ? items[i] : SG_COMBINE(acc, items[i]);
    if (h.next == 0 && i < valid) aggregates[row] = acc;
  }
}
#endif

// The shape kernels' launch bounds: SG_SHAPE_MIN_BLOCKS blocks an SM at least
// (the plan's; 0: none), or SCANGEN_SHAPE_MIN_BLOCKS where it is defined when
// the file is compiled (to compare; 0: none). (Undefined first: several
// generated files may share a translation unit.)
#undef SG_SHAPE_MIN_BLOCKS_USED
#undef SG_SHAPE_BOUNDS
#if defined(SCANGEN_SHAPE_MIN_BLOCKS)
#define SG_SHAPE_MIN_BLOCKS_USED SCANGEN_SHAPE_MIN_BLOCKS
#else
#define SG_SHAPE_MIN_BLOCKS_USED SG_SHAPE_MIN_BLOCKS
#endif
#if SG_SHAPE_MIN_BLOCKS_USED > 0
#define SG_SHAPE_BOUNDS SG_BOUNDS_MIN(SG_THREADS, SG_SHAPE_MIN_BLOCKS_USED)
#else
#define SG_SHAPE_BOUNDS SG_BOUNDS(SG_THREADS)
#endif
SG_KERNEL SG_SHAPE_BOUNDS void SG_NAME(rows_kernel)(SG_PARAMS_rows_kernel) {
  SG_SHARED SG_NAME(sg_shape_shared) shared;
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
  const scangen_u64 n = rows * length;
  if (n == 0) {
#if SG_AGGREGATE_OUT
    SG_NAME(sg_empty_rows)(aggregates, rows);
#endif
    return;
  }
  const scangen_u64 tiles = SG_NAME(sg_tile_count)(n);
  const scangen_u64 tile = SG_NAME(sg_shape_ticket)(&shared, workspace, tiles);
  const scangen_u64 first = tile * SG_TILE;
  SG_T items[SG_ITEMS];
  SG_NAME(sg_rows_load)(in, first, n, length, in_row_stride, items, exchange);

  // This thread's pair: whether its items hold a head, and what follows the last one.
  const int tid = SG_THREAD();
  const scangen_u64 mine = first + (scangen_u64)(tid * SG_ITEMS);
  const scangen_u64 col0 = mine % length;
  // The heads of its items as bits (all of them, for the outputs), and those of its elements before n.
  unsigned int heads[SG_ROW_BITS];
  SG_NAME(sg_row_head_bits)(col0, length, heads);
  int flag = 0;
  SG_T sum = items[0];
  {
    const int valid = SG_NAME(sg_items_before)(mine, n);
    unsigned int live[SG_ROW_BITS];
#pragma unroll
    for (int w = 0; w < SG_ROW_BITS; ++w) {
      live[w] = heads[w] & SG_NAME(sg_bits_below)(w, (unsigned int)valid);
      flag |= live[w] != 0u;
    }
#pragma unroll
    for (int i = 1; i < SG_ITEMS; ++i) sum = SG_ROW_AT(live, i) ? items[i] : SG_COMBINE(sum, items[i]);
  }
  const int buf = SG_NAME(sg_segmented_threads)(&shared, flag, sum);
  const int tile_head = shared.f[buf][SG_THREADS - 1];
  const SG_T tile_sum = shared.v[buf][SG_THREADS - 1];
  const int first_head = first % length == 0;
  SG_T carry = SG_IDENTITY();
SG_BEGIN(any_order)
  if (tiles > 1 && tid == 0)
    SG_NAME(sg_status_store)(workspace, tile, tile_head ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE, tile_sum);
  SG_WARP_CONVERGE();  // no barrier follows at once (cuda/lookback.cuh, sg_tile_prefix)
  if (!first_head) {
    SG_NAME(sg_rows_lookback)(&shared, workspace, tile, in, n, length, in_row_stride);
    carry = shared.carry[0];
    if (tid == 0 && !tile_head) SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, SG_COMBINE(carry, tile_sum));
    SG_WARP_CONVERGE();
  }
SG_END(any_order)
SG_BEGIN(fixed_order)
  // Called by every tile, one or many (a barrier under a condition, even one the same for the whole
  // work-group, made PoCL leave out work-item 0's part).
  SG_NAME(sg_rows_fixed)(&shared, workspace, tiles, tile, tile_sum, tile_head, first_head);
  carry = shared.carry[0];
SG_END(fixed_order)
  // The row's elements before this thread's first item (unused when that item is a head).
  SG_T acc = carry;
  if (tid > 0) {
    const SG_T before = shared.v[buf][tid - 1];
    acc = shared.f[buf][tid - 1] || first_head ? before : SG_COMBINE(carry, before);
  }
#if SG_AGGREGATE_OUT
  SG_NAME(sg_rows_aggregates)(aggregates, items, acc, mine, n, length);
#endif
#if SG_INCLUSIVE_OUT
  SG_GLOBAL SG_T* const out0 = inclusive;
#else
  SG_GLOBAL SG_T* const out0 = exclusive;
#endif
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_GLOBAL SG_T* const out1 = exclusive;
#else
  SG_GLOBAL SG_T* const out1 = out0;
#endif
  SG_NAME(sg_rows_store)(out0, out1, SG_INCLUSIVE_OUT + SG_EXCLUSIVE_OUT, first, n, length, out_row_stride, items, acc,
                         heads, exchange);
}
#undef SG_ROW_BITS
#undef SG_ROW_AT
