// Warp level: a logical warp of SG_WIDTH lanes (threads SG_WIDTH*k ..
// SG_WIDTH*k + SG_WIDTH - 1 of a 1-D block) is the group. The lane scan that
// does the work (shuffles, shared or local memory, active lanes) comes from
// the backend's lanes_*.
//
// Needs: SG_WIDTH, SG_LANE_SCRATCH (elements of scratch per logical warp).

// Scratch of one logical warp: declare one per logical warp, in shared
// (CUDA __shared__) or local (OpenCL __local) memory.
typedef struct {
  SG_T lanes[SG_LANE_SCRATCH];
} SG_NAME(temp);

SG_FN int SG_NAME(sg_lane)(void) { return SG_THREAD() % SG_WIDTH; }

// Exclusive prefix of each thread's partial within the group; *aggregate
// receives the group's total.
SG_FN SG_T SG_NAME(sg_group_exclusive)(SG_LOCAL SG_NAME(temp)* temp, SG_T partial, SG_T* aggregate) {
  return SG_NAME(sg_lanes_exclusive)(temp->lanes, SG_NAME(sg_lane)(), SG_WIDTH, 1, partial, aggregate);
}

// v of the group member of rank `src`.
SG_FN SG_T SG_NAME(sg_group_broadcast)(SG_LOCAL SG_NAME(temp)* temp, SG_T v, int src) {
  return SG_NAME(sg_lanes_broadcast)(temp->lanes, SG_NAME(sg_lane)(), SG_WIDTH, 1, v, src);
}

SG_FN int SG_NAME(sg_group_rank)(void) { return SG_NAME(sg_lanes_rank)(SG_NAME(sg_lane)(), SG_WIDTH); }
