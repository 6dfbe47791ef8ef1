// Block level, warp_scans: every warp of 32 threads scans its partials with
// a lane scan, the warp totals meet in shared memory, and each thread adds
// the totals of the warps before its own. SG_THREADS is a multiple of 32.
//
// Needs: SG_THREADS, SG_LANE_SCRATCH (elements of lane scratch per warp:
// 32 through memory, 1 with shuffles).

#define SG_WARPS (SG_THREADS / 32)

typedef struct {
  SG_T lanes[SG_WARPS * SG_LANE_SCRATCH];
  SG_T warp_totals[SG_WARPS];
  SG_T shared_value[1];
} SG_NAME(temp);

SG_FN SG_T SG_NAME(sg_group_exclusive)(SG_LOCAL SG_NAME(temp)* temp, SG_T partial, SG_T* aggregate) {
  const int tid = SG_THREAD();
  const int warp = tid / 32, lane = tid % 32;
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
  if (SG_THREAD() == src) temp->shared_value[0] = v;
  SG_BARRIER();
  const SG_T r = temp->shared_value[0];
  SG_BARRIER();
  return r;
}

SG_FN int SG_NAME(sg_group_rank)(void) { return SG_THREAD(); }

#undef SG_WARPS
