// Lane scans over the active lanes (CUDA), like cooperative groups'
// coalesced_group: of the group's `lanes` lanes, those that make the call
// together (__activemask) scan, in lane order; a lane's rank is the number of
// active lanes below it. Shuffles move the element word by word.
//
// Needs: SG_T, SG_COMBINE, SG_IDENTITY, SG_NAME, SG_SHFL_WORDS.

typedef union {
  SG_T value;
  unsigned int word[SG_SHFL_WORDS];
} SG_NAME(sg_words);

SG_FN SG_T SG_NAME(sg_shfl_idx)(unsigned int mask, SG_T v, int src) {
  SG_NAME(sg_words) u;
#pragma unroll
  for (int i = 0; i < SG_SHFL_WORDS; ++i) u.word[i] = 0u;
  u.value = v;
#pragma unroll
  for (int i = 0; i < SG_SHFL_WORDS; ++i) u.word[i] = __shfl_sync(mask, u.word[i], src);
  return u.value;
}

// The active lanes of this thread's group.
SG_FN unsigned int SG_NAME(sg_active_mask)(int lane, int lanes) {
  const unsigned int first = (threadIdx.x & 31u) - (unsigned int)lane;
  return __activemask() & ((lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u)) << first);
}

// The warp lane of the mask's set bit of rank `rank` (0 = lowest).
SG_FN int SG_NAME(sg_lane_of_rank)(unsigned int mask, int rank) {
  for (int i = 0; i < rank; ++i) mask &= mask - 1u;
  return __ffs((int)mask) - 1;
}

SG_FN SG_T SG_NAME(sg_lanes_exclusive)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       SG_T* aggregate) {
  (void)scratch;
  if (!participates) return v;
  const unsigned int mask = SG_NAME(sg_active_mask)(lane, lanes);
  const int me = (int)(threadIdx.x & 31u);
  const int rank = __popc(mask & ((1u << me) - 1u));
  const int count = __popc(mask);
  SG_T inclusive = v;
  for (int d = 1; d < count; d <<= 1) {
    const int src = rank >= d ? SG_NAME(sg_lane_of_rank)(mask, rank - d) : me;
    const SG_T t = SG_NAME(sg_shfl_idx)(mask, inclusive, src);
    if (rank >= d) inclusive = SG_COMBINE(t, inclusive);
  }
  *aggregate = SG_NAME(sg_shfl_idx)(mask, inclusive, 31 - __clz((int)mask));
  const SG_T below = SG_NAME(sg_shfl_idx)(mask, inclusive, rank > 0 ? SG_NAME(sg_lane_of_rank)(mask, rank - 1) : me);
  return rank == 0 ? SG_IDENTITY() : below;
}

// v of the active lane of rank `src`.
SG_FN SG_T SG_NAME(sg_lanes_broadcast)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       int src) {
  (void)scratch;
  if (!participates) return v;
  const unsigned int mask = SG_NAME(sg_active_mask)(lane, lanes);
  return SG_NAME(sg_shfl_idx)(mask, v, SG_NAME(sg_lane_of_rank)(mask, src));
}

SG_FN int SG_NAME(sg_lanes_rank)(int lane, int lanes) {
  const unsigned int mask = SG_NAME(sg_active_mask)(lane, lanes);
  return __popc(mask & ((1u << (threadIdx.x & 31u)) - 1u));
}
