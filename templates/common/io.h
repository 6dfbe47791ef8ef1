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

#define SG_BLOCK_ITEMS (SG_BLOCK_THREADS * SG_ITEMS)
#define SG_XPAD(i) ((i) + ((i) >> 5))

// CUDA, SG_VEC_IN / SG_VEC_OUT > 0: a full block whose first element is
// 16-byte aligned moves 16 bytes per thread and access (SG_VEC_IN inputs,
// SG_VEC_OUT outputs), still in coalesced order.
#if SG_VEC_IN
typedef union {
  uint4 v;
  SG_IN e[SG_VEC_IN];
} SG_NAME(sg_vec_in);
#endif
#if SG_VEC_OUT
typedef union {
  uint4 v;
  SG_T e[SG_VEC_OUT];
} SG_NAME(sg_vec_out);
#endif

// Elements first .. first + SG_BLOCK_ITEMS - 1, this thread's share; the identity past n.
SG_FN void SG_NAME(sg_load_direct)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items) {
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    items[i] = mine + (scangen_u64)i < n ? SG_CONVERT(in[mine + (scangen_u64)i]) : SG_IDENTITY();
}

SG_FN void SG_NAME(sg_load)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T* items,
                            SG_LOCAL SG_T* exchange) {
#if SG_STAGED_IO
  const int tid = SG_THREAD();
#if SG_VEC_IN
  if (first + SG_BLOCK_ITEMS <= n && ((unsigned long long)(in + first) & 15u) == 0) {
    const uint4* src = (const uint4*)(in + first);
#pragma unroll
    for (int i = 0; i < SG_ITEMS / SG_VEC_IN; ++i) {
      const int w = i * SG_BLOCK_THREADS + tid;
      SG_NAME(sg_vec_in) u;
      u.v = src[w];
#pragma unroll
      for (int j = 0; j < SG_VEC_IN; ++j) exchange[SG_XPAD(w * SG_VEC_IN + j)] = SG_CONVERT(u.e[j]);
    }
  } else
#endif
  if (first + SG_BLOCK_ITEMS <= n) {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      exchange[SG_XPAD(k)] = SG_CONVERT(in[first + (scangen_u64)k]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const int k = i * SG_BLOCK_THREADS + tid;
      exchange[SG_XPAD(k)] = first + (scangen_u64)k < n ? SG_CONVERT(in[first + (scangen_u64)k]) : SG_IDENTITY();
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
#if SG_STAGED_IO
  const int tid = SG_THREAD();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD(tid * SG_ITEMS + i)] = items[i];
  SG_BARRIER();
#if SG_VEC_OUT
  if (first + SG_BLOCK_ITEMS <= n && ((unsigned long long)(out + first) & 15u) == 0) {
    uint4* dst = (uint4*)(out + first);
#pragma unroll
    for (int i = 0; i < SG_ITEMS / SG_VEC_OUT; ++i) {
      const int w = i * SG_BLOCK_THREADS + tid;
      SG_NAME(sg_vec_out) u;
#pragma unroll
      for (int j = 0; j < SG_VEC_OUT; ++j) u.e[j] = exchange[SG_XPAD(w * SG_VEC_OUT + j)];
      dst[w] = u.v;
    }
  } else
#endif
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
