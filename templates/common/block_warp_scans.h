// Block level, warp_scans (and a logical warp of more than 32 lanes): every
// warp of 32 threads scans its partials with a lane scan, the warp totals
// meet in shared memory, and each thread adds the totals of the warps before
// its own. The group is SG_GROUP_THREADS threads (a multiple of 32): the
// block, or a logical warp of SG_WIDTH lanes (several may share a block),
// each with its own scratch. The barriers are the block's: every thread of
// the block calls, all of its groups at once.
//
// Needs: SG_GROUP_THREADS, SG_WIDTH at warp level only, SG_LANE_SCRATCH
// (elements of lane scratch per warp: 32 through memory, 1 with shuffles).

#define SG_WARPS (SG_GROUP_THREADS / 32)

typedef struct {
  SG_T lanes[SG_WARPS * SG_LANE_SCRATCH];
  SG_T warp_totals[SG_WARPS];
  SG_T shared_value[1];
} SG_NAME(temp);

// This thread's rank in its group: in its logical warp at warp level (SG_WIDTH,
// whatever the block size of the kernel that calls), else the thread index.
SG_FN int SG_NAME(sg_group_rank)(void) {
#ifdef SG_WIDTH
  return SG_THREAD() % SG_WIDTH;
#else
  return SG_THREAD();
#endif
}

SG_FN SG_T SG_NAME(sg_group_exclusive)(SG_LOCAL SG_NAME(temp)* temp, SG_T partial, SG_T* aggregate) {
  const int rank = SG_NAME(sg_group_rank)();
  const int warp = rank / 32, lane = rank % 32;
  SG_T warp_total = partial;
  const SG_T prefix =
      SG_NAME(sg_lanes_exclusive)(temp->lanes + warp * SG_LANE_SCRATCH, lane, 32, 1, partial, &warp_total);
  if (lane == 0) temp->warp_totals[warp] = warp_total;
  SG_BARRIER();
  // total = warps 0 .. SG_WARPS-1; before = warps 0 .. warp-1 (warp > 0).
  SG_T total = temp->warp_totals[0];
  SG_T before = total;
#pragma unroll
  for (int w = 1; w < SG_WARPS; ++w) {
    if (w == warp) before = total;
    total = SG_COMBINE(total, temp->warp_totals[w]);
  }
  SG_BARRIER();  // the scratch may be reused at once
  *aggregate = total;
  return warp == 0 ? prefix : SG_COMBINE(before, prefix);
}

SG_FN SG_T SG_NAME(sg_group_broadcast)(SG_LOCAL SG_NAME(temp)* temp, SG_T v, int src) {
  if (SG_NAME(sg_group_rank)() == src) temp->shared_value[0] = v;
  SG_BARRIER();
  const SG_T r = temp->shared_value[0];
  SG_BARRIER();
  return r;
}

#undef SG_WARPS
