// Block level, raking (and raking_memoize when SG_MEMOIZE): every thread
// puts its partial in shared memory; SG_RAKE raking threads (one warp) each
// reduce SG_SEG consecutive partials, scan their totals with a lane scan,
// and write the exclusive prefixes back over their segment; every thread
// reads its own. raking_memoize keeps the segment in registers between the
// two passes instead of reading shared memory twice. A segment of more than
// one slot is followed by SG_PAD unused slots against bank conflicts.
//
// Needs: SG_THREADS, SG_RAKE, SG_SEG (SG_RAKE * SG_SEG >= SG_THREADS),
// SG_PAD, SG_MEMOIZE, SG_LANE_SCRATCH.

#define SG_SLOT(t) ((t) + ((t) / SG_SEG) * SG_PAD)

// Scratch of one block: declare one per block, in shared (CUDA __shared__)
// or local (OpenCL __local) memory.
typedef struct {
  SG_T partials[SG_RAKE * (SG_SEG + SG_PAD)];
  SG_T lanes[SG_LANE_SCRATCH];
  SG_T shared_value[1];
} SG_NAME(temp);

SG_FN SG_T SG_NAME(sg_group_exclusive)(SG_LOCAL SG_NAME(temp)* temp, SG_T partial, SG_T* aggregate) {
  const int tid = SG_THREAD();
  temp->partials[SG_SLOT(tid)] = partial;
  SG_BARRIER();

  const int raking = tid < SG_RAKE;
  const int base = tid * SG_SEG;
  SG_T sum = SG_IDENTITY();
#if SG_MEMOIZE
  SG_T cached[SG_SEG];
#endif
  if (raking) {
#pragma unroll
    for (int j = 0; j < SG_SEG; ++j) {
      if (base + j < SG_THREADS) {
        const SG_T x = temp->partials[SG_SLOT(base + j)];
#if SG_MEMOIZE
        cached[j] = x;
#endif
        sum = j == 0 ? x : SG_COMBINE(sum, x);
      }
    }
  }
  SG_T total = sum;
  const SG_T prefix = SG_NAME(sg_lanes_exclusive)(temp->lanes, tid, SG_RAKE, raking, sum, &total);
  if (raking) {
    SG_T acc = prefix;
#pragma unroll
    for (int j = 0; j < SG_SEG; ++j) {
      if (base + j < SG_THREADS) {
#if SG_MEMOIZE
        const SG_T x = cached[j];
#else
        const SG_T x = temp->partials[SG_SLOT(base + j)];
#endif
        temp->partials[SG_SLOT(base + j)] = acc;
        if (j + 1 < SG_SEG) acc = SG_COMBINE(acc, x);
      }
    }
    if (tid == 0) temp->shared_value[0] = total;
  }
  SG_BARRIER();
  const SG_T result = temp->partials[SG_SLOT(tid)];
  *aggregate = temp->shared_value[0];
  SG_BARRIER();  // the scratch may be reused at once
  return result;
}

SG_FN SG_T SG_NAME(sg_group_broadcast)(SG_LOCAL SG_NAME(temp)* temp, SG_T v, int src) {
  if (SG_THREAD() == src) temp->shared_value[0] = v;
  SG_BARRIER();
  const SG_T r = temp->shared_value[0];
  SG_BARRIER();
  return r;
}

SG_FN int SG_NAME(sg_group_rank)(void) { return SG_THREAD(); }

#undef SG_SLOT
