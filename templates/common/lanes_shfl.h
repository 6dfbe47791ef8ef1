// Lane scans with register shuffles. A lane group is `lanes` (<= 32)
// consecutive threads of one warp starting at a lane that is a multiple of
// `lanes` or at lane 0; `lane` is a thread's index in it. Every thread of the
// group calls with participates != 0; other threads may call with 0 and get
// their value back (there is no barrier inside).
//
// The dialect's shuffles: SG_LANE_ID() (the thread's lane in its warp of 32),
// SG_SHFL_UP(mask, word, delta), SG_SHFL_IDX(mask, word, lane) on 32-bit
// words. CUDA: always; OpenCL: where SG_SHUFFLES (the runtime built the
// program with SCANGEN_OPENCL_PTX=1: NVIDIA's warps of 32), with
// opencl/lanes_local.cl, the fallback, after it.
//
// Needs: SG_T, SG_COMBINE, SG_IDENTITY, SG_NAME, SG_SHFL_WORDS (32-bit words
// per element, 1..8).
#if SG_SHUFFLES

typedef union {
  SG_T value;
  unsigned int word[SG_SHFL_WORDS];
} SG_NAME(sg_words);

// The lanes of this thread's group as a shuffle mask.
SG_FN unsigned int SG_NAME(sg_group_mask)(int lane, int lanes) {
  const unsigned int first = SG_LANE_ID() - (unsigned int)lane;
  return (lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u)) << first;
}

// v of the lane `delta` below this one (this lane's own v where there is none).
SG_FN SG_T SG_NAME(sg_shfl_up)(unsigned int mask, SG_T v, unsigned int delta) {
  SG_NAME(sg_words) u;
#pragma unroll
  for (int i = 0; i < SG_SHFL_WORDS; ++i) u.word[i] = 0u;
  u.value = v;
#pragma unroll
  for (int i = 0; i < SG_SHFL_WORDS; ++i) u.word[i] = SG_SHFL_UP(mask, u.word[i], delta);
  return u.value;
}

// v of the warp lane `src` (0..31).
SG_FN SG_T SG_NAME(sg_shfl_idx)(unsigned int mask, SG_T v, int src) {
  SG_NAME(sg_words) u;
#pragma unroll
  for (int i = 0; i < SG_SHFL_WORDS; ++i) u.word[i] = 0u;
  u.value = v;
#pragma unroll
  for (int i = 0; i < SG_SHFL_WORDS; ++i) u.word[i] = SG_SHFL_IDX(mask, u.word[i], src);
  return u.value;
}

// Kogge-Stone: exclusive prefix of v over the group (the identity at lane
// 0); *aggregate receives the combine of all lanes. scratch is unused.
SG_FN SG_T SG_NAME(sg_lanes_exclusive)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       SG_T* aggregate) {
  (void)scratch;
  if (!participates) return v;
  const unsigned int mask = SG_NAME(sg_group_mask)(lane, lanes);
  SG_T inclusive = v;
#pragma unroll
  for (int d = 1; d < lanes; d <<= 1) {
    const SG_T t = SG_NAME(sg_shfl_up)(mask, inclusive, (unsigned int)d);
    if (lane >= d) inclusive = SG_COMBINE(t, inclusive);
  }
  const int first = (int)SG_LANE_ID() - lane;
  *aggregate = SG_NAME(sg_shfl_idx)(mask, inclusive, first + lanes - 1);
  const SG_T below = SG_NAME(sg_shfl_up)(mask, inclusive, 1u);
  return lane == 0 ? SG_IDENTITY() : below;
}

// v of the group's lane `src`.
SG_FN SG_T SG_NAME(sg_lanes_broadcast)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       int src) {
  (void)scratch;
  if (!participates) return v;
  const int first = (int)SG_LANE_ID() - lane;
  return SG_NAME(sg_shfl_idx)(SG_NAME(sg_group_mask)(lane, lanes), v, first + src);
}

// This thread's rank in the group.
SG_FN int SG_NAME(sg_lanes_rank)(int lane, int lanes) {
  (void)lanes;
  return lane;
}
#endif
