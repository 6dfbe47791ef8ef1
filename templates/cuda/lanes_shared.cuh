// Lane scans through shared memory (CUDA): any element size. The group and
// the calling rules are those of common/lanes_shfl.h; scratch holds `lanes`
// elements, one array per group. Synchronised with __syncwarp over the
// group's lanes only.
//
// Needs: SG_T, SG_COMBINE, SG_IDENTITY, SG_NAME.

SG_FN unsigned int SG_NAME(sg_group_mask)(int lane, int lanes) {
  const unsigned int first = (threadIdx.x & 31u) - (unsigned int)lane;
  return (lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u)) << first;
}

SG_FN SG_T SG_NAME(sg_lanes_exclusive)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       SG_T* aggregate) {
  if (!participates) return v;
  const unsigned int mask = SG_NAME(sg_group_mask)(lane, lanes);
  SG_T inclusive = v;
#pragma unroll
  for (int d = 1; d < lanes; d <<= 1) {
    scratch[lane] = inclusive;
    __syncwarp(mask);
    const SG_T t = scratch[lane >= d ? lane - d : lane];
    __syncwarp(mask);
    if (lane >= d) inclusive = SG_COMBINE(t, inclusive);
  }
  scratch[lane] = inclusive;
  __syncwarp(mask);
  *aggregate = scratch[lanes - 1];
  const SG_T below = scratch[lane > 0 ? lane - 1 : 0];
  __syncwarp(mask);  // the scratch may be reused at once
  return lane == 0 ? SG_IDENTITY() : below;
}

SG_FN SG_T SG_NAME(sg_lanes_broadcast)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       int src) {
  if (!participates) return v;
  const unsigned int mask = SG_NAME(sg_group_mask)(lane, lanes);
  if (lane == src) scratch[0] = v;
  __syncwarp(mask);
  const SG_T r = scratch[0];
  __syncwarp(mask);
  return r;
}

SG_FN int SG_NAME(sg_lanes_rank)(int lane, int lanes) {
  (void)lanes;
  return lane;
}
