// Loading and storing a block's elements in the blocked arrangement (thread
// r holds elements r*SG_ITEMS .. r*SG_ITEMS + SG_ITEMS - 1 of the block's
// SG_BLOCK_THREADS * SG_ITEMS). With SG_STAGED_IO the block reads and writes
// global memory in coalesced, striped order (element i*SG_BLOCK_THREADS + r
// by thread r) and transposes through shared memory, padded by one slot in
// 32 against bank conflicts; without it (when the exchange does not fit),
// each thread reads its own items directly.
//
// Needs: SG_BLOCK_THREADS, SG_ITEMS, SG_GROUPS, SG_GROUP_THREADS,
// SG_STAGED_IO, SG_EXCHANGE (elements of the exchange array the kernel
// declares: the padded block and one slot per group; 1 when not staged).
SG_BEGIN(indexed)
//
// convert(v, i) (section `indexed`, Plan::convert_index): every load passes
// convert the element's index in the array too (io_mirror.h's and OpenCL's
// look-back fallback the same). Input arrays have loads of their own
// (io_inputs.h): the section `one_input` holds the loads of the one array.
SG_END(indexed)

#define SG_BLOCK_ITEMS (SG_BLOCK_THREADS * SG_ITEMS)
#define SG_XPAD(i) ((i) + ((i) >> 5))
#undef SG_LOAD_SPLIT  // defined below where sg_words_fetch / sg_words_place exist for this scan

// CUDA, SG_VEC_IN / SG_VEC_OUT > 0: a thread's items fill SG_VEC_IN (inputs)
// or SG_VEC_OUT (outputs) 16-byte words, its chunk. A full block whose first
// element is 16-byte aligned moves whole words both ways: global memory in
// coalesced order (word i*SG_BLOCK_THREADS + r of the block by thread r),
// shared memory a chunk per thread, each chunk's words permuted by an XOR of
// the chunk's index (sg_word_at) so that neither the coalesced side nor the
// chunk side has bank conflicts (16-byte accesses go 8 threads at a time).
// Elements are then packed and unpacked in registers, never one by one
// through shared memory. (The plan gives OpenCL no words: plan.cpp's
// decide_io says why; the text is valid OpenCL C all the same.)
#if SG_VEC_IN
typedef union {
  uint4 v[SG_VEC_IN];
  SG_IN e[SG_ITEMS];
} SG_NAME(sg_chunk_in);
typedef char SG_NAME(sg_chunk_in_fills)[sizeof(SG_IN) * SG_ITEMS == 16 * SG_VEC_IN ? 1 : -1];
#endif
#if SG_VEC_OUT
typedef union {
  uint4 v[SG_VEC_OUT];
  SG_T e[SG_ITEMS];
} SG_NAME(sg_chunk_out);
typedef char SG_NAME(sg_chunk_out_fills)[sizeof(SG_T) * SG_ITEMS == 16 * SG_VEC_OUT ? 1 : -1];
#endif
#if SG_VEC_IN || SG_VEC_OUT || SG_ARRAY_WORDS
// The word helpers, for this file's words and for input arrays' (io_inputs.h).
// SG_STREAMING: the words are read and written once; ask the caches to evict them first.
// (One body for every scan of a file: the macros outlive the scan.)
// The dialect's SG_LOAD_STREAMING / SG_STORE_STREAMING say how (OpenCL: plain).
#define SG_LOAD_WORD(p) (SG_STREAMING ? SG_LOAD_STREAMING(p) : *(p))
#define SG_STORE_WORD(p, v)         \
  do {                              \
    if (SG_STREAMING)               \
      SG_STORE_STREAMING((p), (v)); \
    else                            \
      *(p) = (v);                   \
  } while (0)
// Where word o of chunk c lies, in words, for chunks of `words` words. For
// 8 consecutive chunks (the 8 threads of a chunk-side access) the positions
// fall in 8 different 16-byte bank groups; so do 8 consecutive words of the
// coalesced side, which lie in one chunk (words % 8 == 0) or in 8 / words
// consecutive chunks that share the XOR.
SG_FN int SG_NAME(sg_word_at)(int c, int o, int words) {
  const int x = words % 8 == 0 ? (c & 7) : words == 4 ? ((c >> 1) & 3) : words == 2 ? ((c >> 2) & 1) : 0;
  return c * words + (o ^ x);
}
#endif

SG_BEGIN(forward)
SG_BEGIN(one_input)
// Elements first .. first + SG_BLOCK_ITEMS - 1, this thread's share; the identity past n.
SG_FN void SG_NAME(sg_load_direct)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items) {
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    items[i] = mine + (scangen_u64)i < n ? SG_CONVERT(in[mine + (scangen_u64)i]SG_BEGIN(indexed), mine + (scangen_u64)iSG_END(indexed)) : SG_IDENTITY();
}

SG_BEGIN(unpacked)
#if SG_STAGED_IO && SG_VEC_IN
// A full, aligned tile's input words: fetched in coalesced order into
// registers (sg_words_fetch), then moved through the exchange to the
// blocked arrangement (sg_words_place). sg_load does both at once; a kernel
// with other waits to make (the search for a tile's first offset)
// fetches first and places after them, the words in flight meanwhile.
SG_FN void SG_NAME(sg_words_fetch)(const SG_GLOBAL SG_IN* in, scangen_u64 first, uint4* v) {
  const SG_GLOBAL uint4* src = (const SG_GLOBAL uint4*)(in + first);
#pragma unroll
  for (int i = 0; i < SG_VEC_IN; ++i) v[i] = SG_LOAD_WORD(src + i * SG_BLOCK_THREADS + SG_THREAD());
}

SG_FN void SG_NAME(sg_words_place)(const uint4* v, scangen_u64 first, SG_T* items, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD();
  SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
#pragma unroll
  for (int i = 0; i < SG_VEC_IN; ++i) {
    const int w = i * SG_BLOCK_THREADS + tid;
    words[SG_NAME(sg_word_at)(w / SG_VEC_IN, w % SG_VEC_IN, SG_VEC_IN)] = v[i];
  }
  SG_BARRIER();
  SG_NAME(sg_chunk_in) u;
#pragma unroll
  for (int o = 0; o < SG_VEC_IN; ++o) u.v[o] = words[SG_NAME(sg_word_at)(tid, o, SG_VEC_IN)];
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i] = SG_CONVERT(u.e[i]SG_BEGIN(indexed), first + (scangen_u64)(tid * SG_ITEMS + i)SG_END(indexed));
  SG_BARRIER();  // the exchange may be reused at once
  (void)first;
}

// Whether sg_load moves the tile from `first` in words.
SG_FN int SG_NAME(sg_words_whole)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n) {
  return first + SG_BLOCK_ITEMS <= n && ((scangen_u64)(in + first) & 15u) == 0;
}
#define SG_LOAD_SPLIT 1
#endif
SG_END(unpacked)

SG_FN void SG_NAME(sg_load)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items,
                            SG_LOCAL SG_T* exchange) {
#if SG_STAGED_IO
  const int tid = SG_THREAD();
SG_BEGIN(unpacked)
#if SG_VEC_IN
  if (first + SG_BLOCK_ITEMS <= n && ((scangen_u64)(in + first) & 15u) == 0) {
    // (sg_words_fetch and sg_words_place in one loop: each word stored as it comes.)
    const SG_GLOBAL uint4* src = (const SG_GLOBAL uint4*)(in + first);
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
#pragma unroll
    for (int i = 0; i < SG_VEC_IN; ++i) {
      const int w = i * SG_BLOCK_THREADS + tid;
      words[SG_NAME(sg_word_at)(w / SG_VEC_IN, w % SG_VEC_IN, SG_VEC_IN)] = SG_LOAD_WORD(src + w);
    }
    SG_BARRIER();
    SG_NAME(sg_chunk_in) u;
#pragma unroll
    for (int o = 0; o < SG_VEC_IN; ++o) u.v[o] = words[SG_NAME(sg_word_at)(tid, o, SG_VEC_IN)];
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) items[i] = SG_CONVERT(u.e[i]SG_BEGIN(indexed), first + (scangen_u64)(tid * SG_ITEMS + i)SG_END(indexed));
    SG_BARRIER();  // the exchange may be reused at once
    return;
  }
#endif
SG_END(unpacked)
  if (first + SG_BLOCK_ITEMS <= n) {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      exchange[SG_XPAD(k)] = SG_CONVERT(in[first + (scangen_u64)k]SG_BEGIN(indexed), first + (scangen_u64)kSG_END(indexed));
    }
  } else {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      exchange[SG_XPAD(k)] = first + (scangen_u64)k < n ? SG_CONVERT(in[first + (scangen_u64)k]SG_BEGIN(indexed), first + (scangen_u64)kSG_END(indexed)) : SG_IDENTITY();
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
SG_END(one_input)
SG_BEGIN(raw_tile)

// Plan::raw_tile: the tile's input elements read once, in the striped order
// (a warp's loads coalesced), into `raw` (shared memory, padded as the
// exchange is): element e of the tile at SG_RAW_AT(e), the one before the
// tile at SG_RAW_AT(-1) and the one after it at SG_RAW_AT(SG_BLOCK_ITEMS),
// each where it exists. Each thread then converts its own items from there,
// convert's neighbours beside them; the fused outputs (sg_scatter) read the
// same slots, so the input is not read again. The kernel's array has
// SG_RAW_SLOTS of them (the plan's raw_tile_slots).
#define SG_RAW_AT(e) SG_XPAD((e) + 1)
SG_FN void SG_NAME(sg_load_raw)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items,
                                SG_LOCAL SG_IN* raw) {
  const int tid = SG_THREAD();
  if (first + SG_BLOCK_ITEMS <= n) {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      raw[SG_RAW_AT(k)] = in[first + (scangen_u64)k];
    }
  } else {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      if (first + (scangen_u64)k < n) raw[SG_RAW_AT(k)] = in[first + (scangen_u64)k];
    }
  }
  if (tid == 0 && first > 0) raw[SG_RAW_AT(-1)] = in[first - 1];
  if (tid == SG_BLOCK_THREADS - 1 && first + SG_BLOCK_ITEMS < n) raw[SG_RAW_AT(SG_BLOCK_ITEMS)] = in[first + SG_BLOCK_ITEMS];
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int e = tid * SG_ITEMS + i;
    const scangen_u64 g = first + (scangen_u64)e;
    if (g < n) {
      const SG_IN x = raw[SG_RAW_AT(e)];
SG_BEGIN(raw_near)
      items[i] = SG_CONVERT_NEIGHBOURS(x, g, g > 0 ? raw[SG_RAW_AT(e - 1)] : x, g + 1 < n ? raw[SG_RAW_AT(e + 1)] : x);
SG_END(raw_near)
SG_BEGIN(raw_plain)
      items[i] = SG_CONVERT(xSG_BEGIN(indexed), gSG_END(indexed));
SG_END(raw_plain)
    } else {
      items[i] = SG_IDENTITY();
    }
  }
}
SG_END(raw_tile)

SG_FN void SG_NAME(sg_store)(SG_GLOBAL SG_T* out, scangen_u64 first, scangen_u64 n, const SG_T* items,
                             SG_LOCAL SG_T* exchange) {
#if SG_STAGED_IO
  const int tid = SG_THREAD();
SG_BEGIN(unpacked)
#if SG_VEC_OUT
  if (first + SG_BLOCK_ITEMS <= n && ((scangen_u64)(out + first) & 15u) == 0) {
    SG_LOCAL uint4* words = (SG_LOCAL uint4*)exchange;
    SG_NAME(sg_chunk_out) u;
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) u.e[i] = items[i];
#pragma unroll
    for (int o = 0; o < SG_VEC_OUT; ++o) words[SG_NAME(sg_word_at)(tid, o, SG_VEC_OUT)] = u.v[o];
    SG_BARRIER();
    SG_GLOBAL uint4* dst = (SG_GLOBAL uint4*)(out + first);
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
SG_END(unpacked)
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = items[i];
  SG_BARRIER();
  if (first + SG_BLOCK_ITEMS <= n) {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      out[first + (scangen_u64)k] = exchange[SG_XPAD(k)];
    }
  } else {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      if (first + (scangen_u64)k < n) out[first + (scangen_u64)k] = exchange[SG_XPAD(k)];
    }
  }
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    if (mine + (scangen_u64)i < n) out[mine + (scangen_u64)i] = items[i];
#endif
}

// Both scans at once: the inclusive results go through the exchange, and the
// exclusive result of an element is the inclusive result of the one before
// it in its group, or, for a group's first element, that group's seed
// (`exc0`, the exclusive result of the group's first item, passed by every
// thread; rank 0's is the one used). One pass over the exchange instead of two.
SG_FN void SG_NAME(sg_store_both)(SG_GLOBAL SG_T* inclusive, SG_GLOBAL SG_T* exclusive, scangen_u64 first,
                                  scangen_u64 n, const SG_T* inc, const SG_T* exc, SG_LOCAL SG_T* exchange) {
#if SG_STAGED_IO
  const int tid = SG_THREAD();
  const int segment = SG_GROUP_THREADS * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = inc[i];
  if (tid % SG_GROUP_THREADS == 0) exchange[SG_XPAD(SG_BLOCK_ITEMS) + tid / SG_GROUP_THREADS] = exc[0];
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int k = i * SG_BLOCK_THREADS + tid;
    if (first + (scangen_u64)k < n) {
      inclusive[first + (scangen_u64)k] = exchange[SG_XPAD(k)];
      exclusive[first + (scangen_u64)k] =
          k % segment == 0 ? exchange[SG_XPAD(SG_BLOCK_ITEMS) + k / segment] : exchange[SG_XPAD(k - 1)];
    }
  }
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    if (mine + (scangen_u64)i < n) {
      inclusive[mine + (scangen_u64)i] = inc[i];
      exclusive[mine + (scangen_u64)i] = exc[i];
    }
#endif
}
SG_END(forward)
