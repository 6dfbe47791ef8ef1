// Lane scans through local memory (OpenCL C 1.2, which has no shuffles). A
// lane group is `lanes` consecutive work-items; `lane` is a work-item's index
// in it and scratch holds `lanes` elements, one array per group. The
// functions hold work-group barriers: EVERY work-item of the work-group calls
// them, with the same `lanes`; those outside any group pass participates = 0
// and get their value back.
//
// Needs: SG_T, SG_COMBINE, SG_IDENTITY, SG_NAME. Left out where
// common/lanes_shfl.h, before it, defines the same functions with shuffles
// (SG_SHUFFLES and the plan's SG_SHFL_WORDS).
#if !(SG_SHUFFLES && SG_SHFL_WORDS)

SG_FN SG_T SG_NAME(sg_lanes_exclusive)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       SG_T* aggregate) {
  SG_T inclusive = v;
  for (int d = 1; d < lanes; d <<= 1) {
    if (participates) scratch[lane] = inclusive;
    barrier(CLK_LOCAL_MEM_FENCE);
    SG_T t = inclusive;
    if (participates && lane >= d) t = scratch[lane - d];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (participates && lane >= d) inclusive = SG_COMBINE(t, inclusive);
  }
  if (participates) scratch[lane] = inclusive;
  barrier(CLK_LOCAL_MEM_FENCE);
  SG_T below = SG_IDENTITY();
  if (participates) {
    *aggregate = scratch[lanes - 1];
    if (lane > 0) below = scratch[lane - 1];
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // the scratch may be reused at once
  return participates ? below : v;
}

SG_FN SG_T SG_NAME(sg_lanes_broadcast)(SG_LOCAL SG_T* scratch, int lane, int lanes, int participates, SG_T v,
                                       int src) {
  (void)lanes;
  if (participates && lane == src) scratch[0] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  const SG_T r = participates ? scratch[0] : v;
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

SG_FN int SG_NAME(sg_lanes_rank)(int lane, int lanes) {
  (void)lanes;
  return lane;
}
#endif
