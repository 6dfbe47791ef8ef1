// Device level, segmented scan with the segments given at run time, in one
// pass (decoupled look-back). The tiles scan (heads, value) pairs
// (segmented_pair.h): each thread marks the segment starts among its items
// as it loads them (flags: the element's byte; keys: its key against the one
// before; offsets: a binary search of the offsets for its first item, then a
// walk), the block scans the pairs, the look-back carries the pairs across
// tiles, and each element's value restarts at every start. Outputs are
// values, each segment's scan seeded with init; the last element of each
// segment writes the segment's total (its pair's count names the segment:
// flags and keys) or its index (offsets) in segment_aggregates; with offsets,
// empty segments get the identity there, from the thread of the element at
// their position (the last element's thread for those at n; tile 0's first
// thread when n is 0).
//
//   P_scan_kernel(in, [inclusive], [exclusive], [segment_aggregates],
//                 flags | offsets, segment_count | keys, n, workspace)
//
// grid = max(1, ceil(n / SG_TILE)) blocks of SG_THREADS; the workspace as
// device_lookback.h's. Offsets must hold offsets[0] = 0 <= ... <=
// offsets[segment_count] = n (the caller's duty: the runtime checks them on
// request).
//
// Needs: SG_SEGMENTS (1 flags, 2 offsets, 3 keys), SG_OFFSET or SG_KEY,
// segmented_pair.h (SG_T is the pair), device.h, the backend's look-back.

#if SG_SEGMENTS == 1
#define SG_SEG_PARAMS const SG_GLOBAL unsigned char *flags
#define SG_SEG_ARGS flags
#elif SG_SEGMENTS == 2
#define SG_SEG_PARAMS const SG_GLOBAL SG_OFFSET *offsets, scangen_u64 segment_count
#define SG_SEG_ARGS offsets, segment_count
#else
#define SG_SEG_PARAMS const SG_GLOBAL SG_KEY *keys
#define SG_SEG_ARGS keys
#endif

#if SG_SEGMENTS == 2
// The segment of element p < n: the last s with offsets[s] <= p (past the
// empty segments at p).
SG_FN scangen_u64 SG_NAME(sg_seg_find)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 count, scangen_u64 p) {
  scangen_u64 lo = 0, hi = count;  // offsets[lo] <= p < offsets[hi]
  while (hi - lo > 1) {
    const scangen_u64 mid = lo + (hi - lo) / 2;
    if ((scangen_u64)offsets[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}
#endif

// Elements lo .. lo + SG_ITEMS (one past a thread's items, which tells
// whether its last item ends a segment): starts[i] is 1 where element lo + i
// starts a segment (element 0 always; none at n or past it); with offsets,
// segment[i] is the segment of element lo + i (below n).
SG_FN void SG_NAME(sg_seg_starts)(SG_SEG_PARAMS, scangen_u64 lo, scangen_u64 n, unsigned char* starts,
                                  scangen_u64* segment) {
#if SG_SEGMENTS == 2
  scangen_u64 s = lo < n ? SG_NAME(sg_seg_find)(offsets, segment_count, lo) : 0;
#else
  (void)segment;
#endif
#pragma unroll
  for (int i = 0; i <= SG_ITEMS; ++i) {
    const scangen_u64 p = lo + (scangen_u64)i;
    unsigned char start = 0;
    if (p < n) {
#if SG_SEGMENTS == 1
      start = p == 0 || flags[p] != 0;
#elif SG_SEGMENTS == 2
      while ((scangen_u64)offsets[s + 1] <= p) ++s;
      start = (scangen_u64)offsets[s] == p;
      if (i < SG_ITEMS) segment[i] = s;
#else
      start = p == 0 || !(keys[p] == keys[p - 1]);
#endif
    }
    starts[i] = start;
  }
}

#if SG_SEGMENTS == 2 && SG_AGGREGATE_OUT
// The identity for the empty segments this thread answers for: those at the
// position of one of its items, and, with the last element, those at n.
SG_FN void SG_NAME(sg_seg_empty_aggregates)(const SG_GLOBAL SG_OFFSET* offsets, scangen_u64 segment_count,
                                            scangen_u64 lo, scangen_u64 n, const unsigned char* starts,
                                            const scangen_u64* segment, SG_GLOBAL SG_VALUE_T* aggregates) {
  if (n == 0 && lo == 0)
    for (scangen_u64 j = 0; j < segment_count; ++j) aggregates[j] = SG_VALUE_IDENTITY();
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = lo + (scangen_u64)i;
    if (p >= n) break;
    if (starts[i])
      for (scangen_u64 j = segment[i]; j > 0 && (scangen_u64)offsets[j - 1] == p; --j)
        aggregates[j - 1] = SG_VALUE_IDENTITY();
    if (p + 1 == n)
      for (scangen_u64 j = segment[i] + 1; j < segment_count; ++j) aggregates[j] = SG_VALUE_IDENTITY();
  }
}
#endif

#ifdef __OPENCL_VERSION__
// Work-item 0: the pair total of `tile` from its input and its segments,
// alone and in order (the look-back's fallback, opencl/lookback.cl).
SG_FN SG_T SG_NAME(sg_seg_reduce_alone)(const SG_GLOBAL SG_IN* in, SG_SEG_PARAMS, scangen_u64 tile, scangen_u64 n) {
  SG_T sum = SG_IDENTITY();
  const scangen_u64 first = tile * SG_TILE;
  for (scangen_u64 lo = first; lo < first + SG_TILE && lo < n; lo += SG_ITEMS) {
    unsigned char starts[SG_ITEMS + 1];
    scangen_u64 segment[SG_ITEMS];
    SG_NAME(sg_seg_starts)(SG_SEG_ARGS, lo, n, starts, segment);
    for (int i = 0; i < SG_ITEMS && lo + (scangen_u64)i < n; ++i) {
      SG_T x = SG_CONVERT(in[lo + (scangen_u64)i]);
      x.heads = starts[i];
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
      SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_AGGREGATE, total);
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
      SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, SG_COMBINE(prefix, total));
    }
    shared->prefix = prefix;
  }
  SG_BARRIER();
  return shared->prefix;
}
#else
SG_FN SG_T SG_NAME(sg_seg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                       scangen_u64 tile, SG_T total, const SG_GLOBAL SG_IN* in, SG_SEG_PARAMS,
                                       scangen_u64 n) {
  return SG_NAME(sg_tile_prefix)(shared, 0, workspace, tile, total, in, n);
}
#endif

// A thread's results out, both scans in one pass: inc[] its inclusive
// values; the exclusive value of an element is init at a segment's start,
// else the inclusive value of the element before it (for the thread's first
// item, `exc0`; the tile's first element takes thread 0's). Either output may
// be null. Staged: the pairs (inclusive value, start) go through the exchange.
SG_FN void SG_NAME(sg_seg_store)(SG_GLOBAL SG_VALUE_T* inclusive, SG_GLOBAL SG_VALUE_T* exclusive, scangen_u64 first,
                                 scangen_u64 n, const SG_VALUE_T* inc, const unsigned char* starts, SG_VALUE_T exc0,
                                 SG_LOCAL SG_T* exchange) {
#if SG_STAGED_IO
  const int tid = SG_THREAD();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = SG_NAME(seg_make)(starts[i], inc[i]);
  if (tid == 0) exchange[SG_XPAD(SG_BLOCK_ITEMS)] = SG_NAME(seg_make)(0u, exc0);
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int k = i * SG_BLOCK_THREADS + tid;
    if (first + (scangen_u64)k < n) {
      const SG_T e = exchange[SG_XPAD(k)];
      if (inclusive) inclusive[first + (scangen_u64)k] = e.value;
      if (exclusive)
        exclusive[first + (scangen_u64)k] =
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
      if (inclusive) inclusive[p] = inc[i];
      if (exclusive) exclusive[p] = starts[i] ? SG_VALUE_INIT() : before;
    }
    before = inc[i];
  }
#endif
}

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
void SG_NAME(scan_kernel)(const SG_GLOBAL SG_IN* in,
#if SG_INCLUSIVE_OUT
                          SG_GLOBAL SG_VALUE_T* inclusive,
#endif
#if SG_EXCLUSIVE_OUT
                          SG_GLOBAL SG_VALUE_T* exclusive,
#endif
#if SG_AGGREGATE_OUT
                          SG_GLOBAL SG_VALUE_T* segment_aggregates,
#endif
                          SG_SEG_PARAMS, scangen_u64 n, SG_GLOBAL unsigned char* workspace) {
  SG_SHARED SG_NAME(temp) temp;
  SG_SHARED SG_NAME(sg_lookback_shared) shared;
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
  const scangen_u64 tiles = SG_NAME(sg_tile_count)(n);
  if (SG_THREAD() == 0) shared.tile = tiles == 1 ? 0 : SG_NAME(sg_take_ticket)(workspace, tiles - 1);
  SG_BARRIER();
  const scangen_u64 tile = shared.tile;
  const scangen_u64 first = tile * SG_TILE;
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;

  SG_T items[SG_ITEMS];
  SG_NAME(sg_load)(in, first, n, items, exchange);
  unsigned char starts[SG_ITEMS + 1];
  scangen_u64 segment[SG_ITEMS];
  SG_NAME(sg_seg_starts)(SG_SEG_ARGS, mine, n, starts, segment);
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i].heads = starts[i];
  SG_T total;
  SG_T prefix = SG_NAME(sg_group_exclusive)(&temp, SG_NAME(sg_reduce_items)(items), &total);
  const SG_T before = SG_NAME(sg_seg_tile_prefix)(&shared, workspace, tile, total, in, SG_SEG_ARGS, n);
  if (tile > 0) prefix = SG_COMBINE(before, prefix);

  // The value before the thread's first item (its exclusive result unless the item starts a segment).
  const SG_VALUE_T exc0 = SG_SEG_SEED(prefix.value);
  SG_VALUE_T inc[SG_ITEMS];
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    prefix = SG_COMBINE(prefix, items[i]);
    inc[i] = SG_SEG_SEED(prefix.value);
#if SG_AGGREGATE_OUT
    // The last element of its segment writes the segment's total.
    const scangen_u64 p = mine + (scangen_u64)i;
    if (p < n && (p + 1 == n || starts[i + 1]))
#if SG_SEGMENTS == 2
      segment_aggregates[segment[i]] = prefix.value;
#else
      segment_aggregates[prefix.heads - 1u] = prefix.value;
#endif
#endif
  }
#if SG_SEGMENTS == 2 && SG_AGGREGATE_OUT
  SG_NAME(sg_seg_empty_aggregates)(offsets, segment_count, mine, n, starts, segment, segment_aggregates);
#endif
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_NAME(sg_seg_store)(inclusive, exclusive, first, n, inc, starts, exc0, exchange);
#elif SG_INCLUSIVE_OUT
  SG_NAME(sg_seg_store)(inclusive, 0, first, n, inc, starts, exc0, exchange);
#else
  SG_NAME(sg_seg_store)(0, exclusive, first, n, inc, starts, exc0, exchange);
#endif
}

#undef SG_SEG_SEED
#undef SG_SEG_PARAMS
#undef SG_SEG_ARGS
