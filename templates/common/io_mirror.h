// Reverse scans (SG_REVERSE): io.h's loads and stores through the mirror, so
// that the scan itself (the group scans, the look-back, the passes of
// reduce_then_scan) runs forward, unchanged, over the elements in scan order.
//
// The mirror: scan-order position j is element sg_mirror_end(n) - 1 - j of
// the array, where sg_mirror_end(n) is n rounded up to whole blocks of
// SG_BLOCK_ITEMS; a position whose element would lie at or past n is the
// identity. Block (tile) b takes positions b*SG_BLOCK_ITEMS ..
// (b+1)*SG_BLOCK_ITEMS - 1, which are one contiguous range of the array,
// blocks lying where a forward scan's blocks lie, the last first: every block
// but the first reads and writes a whole range that starts at a multiple of
// SG_BLOCK_ITEMS (so in the same coalesced, 16-byte words as forward), and
// the first block's identities come before the array's last element, where
// they change nothing. A group's segment is mirrored within the block, so
// the segments of a warp or block scan are a forward scan's segments, each
// scanned from its last element to its first (sg_mirror_segment names the
// segment of the array that scan-order segment s is).
//
// The same mapping serves any kernel that reads a range [0, n) backwards in
// blocks: sg_mirror_first(first, n) is where the block of scan-order
// positions first .. first + SG_BLOCK_ITEMS - 1 starts in the array
// (position first + k is element sg_mirror_first(first, n) + SG_BLOCK_ITEMS
// - 1 - k), computed modulo 2^64: an element index at or past n is padding.
//
SG_BEGIN(mirror_exact)
// Segmented scans mirror the array exactly (sg_mirror_end(n) = n): position
// j is element n - 1 - j, the padding past the scan's end as in a forward
// scan, and the blocks lie where they fall.
//
SG_END(mirror_exact)
// Needs: common/io.h (its helpers, without its four functions).

SG_FN scangen_u64 SG_NAME(sg_mirror_end)(scangen_u64 n) {
SG_BEGIN(mirror_blocks)
  return (n + SG_BLOCK_ITEMS - 1) / SG_BLOCK_ITEMS * SG_BLOCK_ITEMS;
SG_END(mirror_blocks)
SG_BEGIN(mirror_exact)
  return n;  // segmented scans: position j is element n - 1 - j, the padding past the scan's end as forward
SG_END(mirror_exact)
}

SG_FN scangen_u64 SG_NAME(sg_mirror_first)(scangen_u64 first, scangen_u64 n) {
  return SG_NAME(sg_mirror_end)(n) - first - SG_BLOCK_ITEMS;
}

// Whether the block's positions are all elements of the array (n >= SG_BLOCK_ITEMS first: the sum wraps for n = 0).
SG_FN int SG_NAME(sg_mirror_whole)(scangen_u64 first, scangen_u64 n) {
SG_BEGIN(mirror_blocks)
  return n >= SG_BLOCK_ITEMS && SG_NAME(sg_mirror_first)(first, n) + SG_BLOCK_ITEMS <= n;
SG_END(mirror_blocks)
SG_BEGIN(mirror_exact)
  return first + SG_BLOCK_ITEMS <= n;
SG_END(mirror_exact)
}

SG_FN scangen_u64 SG_NAME(sg_mirror_segment)(scangen_u64 s, scangen_u64 n) {
  return SG_NAME(sg_mirror_end)(n) / (SG_GROUP_THREADS * SG_ITEMS) - 1 - s;
}

// Positions first .. first + SG_BLOCK_ITEMS - 1, this thread's share; the identity past the array.
SG_FN void SG_NAME(sg_load_direct)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items) {
  const scangen_u64 last = SG_NAME(sg_mirror_first)(first, n) + SG_BLOCK_ITEMS - 1 - SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    items[i] = last - (scangen_u64)i < n ? SG_CONVERT(in[last - (scangen_u64)i]SG_BEGIN(indexed), last - (scangen_u64)iSG_END(indexed)) : SG_IDENTITY();
}

// Whole blocks as io.h's sg_load, the words read in the same order; thread r
// takes chunk SG_BLOCK_THREADS - 1 - r, its elements last to first.
SG_FN void SG_NAME(sg_load)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items,
                            SG_LOCAL SG_T* exchange) {
#if SG_STAGED_IO
  const int tid = SG_THREAD();
  const scangen_u64 base = SG_NAME(sg_mirror_first)(first, n);
#if SG_VEC_IN
  if (SG_NAME(sg_mirror_whole)(first, n) && ((scangen_u64)(in + base) & 15u) == 0) {
    const SG_GLOBAL uint4* src = (const SG_GLOBAL uint4*)(in + base);
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
#pragma unroll
    for (int i = 0; i < SG_VEC_IN; ++i) {
      const int w = i * SG_BLOCK_THREADS + tid;
      words[SG_NAME(sg_word_at)(w / SG_VEC_IN, w % SG_VEC_IN, SG_VEC_IN)] = SG_LOAD_WORD(src + w);
    }
    SG_BARRIER();
    SG_NAME(sg_chunk_in) u;
#pragma unroll
    for (int o = 0; o < SG_VEC_IN; ++o) u.v[o] = words[SG_NAME(sg_word_at)(SG_BLOCK_THREADS - 1 - tid, o, SG_VEC_IN)];
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) items[i] = SG_CONVERT(u.e[SG_ITEMS - 1 - i]SG_BEGIN(indexed), base + (scangen_u64)((SG_BLOCK_THREADS - 1 - tid) * SG_ITEMS + SG_ITEMS - 1 - i)SG_END(indexed));
    SG_BARRIER();  // the exchange may be reused at once
    return;
  }
#endif
  // Element base + k of the array is scan-order position first + SG_BLOCK_ITEMS - 1 - k.
  if (SG_NAME(sg_mirror_whole)(first, n)) {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      exchange[SG_XPAD(SG_BLOCK_ITEMS - 1 - k)] = SG_CONVERT(in[base + (scangen_u64)k]SG_BEGIN(indexed), base + (scangen_u64)kSG_END(indexed));
    }
  } else {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      exchange[SG_XPAD(SG_BLOCK_ITEMS - 1 - k)] =
          base + (scangen_u64)k < n ? SG_CONVERT(in[base + (scangen_u64)k]SG_BEGIN(indexed), base + (scangen_u64)kSG_END(indexed)) : SG_IDENTITY();
    }
  }
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i] = exchange[SG_XPAD(tid * SG_ITEMS + i)];
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  SG_NAME(sg_load_direct)(in, first, n, items);
#endif
}

SG_FN void SG_NAME(sg_store)(SG_GLOBAL SG_T* out, scangen_u64 first, scangen_u64 n, const SG_T* items,
                             SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  const scangen_u64 base = SG_NAME(sg_mirror_first)(first, n);
#if SG_STAGED_IO
#if SG_VEC_OUT
  if (SG_NAME(sg_mirror_whole)(first, n) && ((scangen_u64)(out + base) & 15u) == 0) {
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
    SG_NAME(sg_chunk_out) u;
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) u.e[i] = items[SG_ITEMS - 1 - i];
#pragma unroll
    for (int o = 0; o < SG_VEC_OUT; ++o) words[SG_NAME(sg_word_at)(SG_BLOCK_THREADS - 1 - tid, o, SG_VEC_OUT)] = u.v[o];
    SG_BARRIER();
    SG_GLOBAL uint4* dst = (SG_GLOBAL uint4*)(out + base);
#pragma unroll
    for (int i = 0; i < SG_VEC_OUT; ++i) {
      const int w = i * SG_BLOCK_THREADS + tid;
      const uint4 word = words[SG_NAME(sg_word_at)(w / SG_VEC_OUT, w % SG_VEC_OUT, SG_VEC_OUT)];
      SG_STORE_WORD(dst + w, word);
    }
    SG_BARRIER();  // the exchange may be reused at once
    return;
  }
#endif
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = items[i];
  SG_BARRIER();
  if (SG_NAME(sg_mirror_whole)(first, n)) {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      out[base + (scangen_u64)k] = exchange[SG_XPAD(SG_BLOCK_ITEMS - 1 - k)];
    }
  } else {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      if (base + (scangen_u64)k < n) out[base + (scangen_u64)k] = exchange[SG_XPAD(SG_BLOCK_ITEMS - 1 - k)];
    }
  }
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  const scangen_u64 last = base + SG_BLOCK_ITEMS - 1 - tid * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    if (last - (scangen_u64)i < n) out[last - (scangen_u64)i] = items[i];
#endif
}

// io.h's sg_store_both through the mirror: position L's exclusive result is
// position L - 1's inclusive one, or its group's seed.
SG_FN void SG_NAME(sg_store_both)(SG_GLOBAL SG_T* inclusive, SG_GLOBAL SG_T* exclusive, scangen_u64 first,
                                  scangen_u64 n, const SG_T* inc, const SG_T* exc, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  const scangen_u64 base = SG_NAME(sg_mirror_first)(first, n);
#if SG_STAGED_IO
  const int segment = SG_GROUP_THREADS * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = inc[i];
  if (tid % SG_GROUP_THREADS == 0) exchange[SG_XPAD(SG_BLOCK_ITEMS) + tid / SG_GROUP_THREADS] = exc[0];
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int k = i * SG_BLOCK_THREADS + tid;
    const int at = SG_BLOCK_ITEMS - 1 - k;
    if (base + (scangen_u64)k < n) {
      inclusive[base + (scangen_u64)k] = exchange[SG_XPAD(at)];
      exclusive[base + (scangen_u64)k] =
          at % segment == 0 ? exchange[SG_XPAD(SG_BLOCK_ITEMS) + at / segment] : exchange[SG_XPAD(at - 1)];
    }
  }
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  const scangen_u64 last = base + SG_BLOCK_ITEMS - 1 - tid * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    if (last - (scangen_u64)i < n) {
      inclusive[last - (scangen_u64)i] = inc[i];
      exclusive[last - (scangen_u64)i] = exc[i];
    }
#endif
}
