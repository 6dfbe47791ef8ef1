// The public device functions of a warp- or block-level scan, built on the
// level's sg_group_exclusive. With P the scan's name and ITEMS = SG_ITEMS,
// each thread holds ITEMS consecutive elements (blocked arrangement: thread
// r of the group holds elements r*ITEMS .. r*ITEMS + ITEMS - 1 of the
// group's segment). Every thread of the group calls, with the group's
// scratch (P_temp).
//
//   P_T P_inclusive(temp, in, out)              out[i] = init . x0 . ... . xi
//   P_T P_exclusive(temp, in, out)              out[i] = init . x0 . ... . x(i-1)
//   P_T P_inclusive_exclusive(temp, in, inc, exc)   both at once
//   P_T P_reduce(temp, in)                      the group's total
//   P_T P_broadcast(temp, v, src)               v of the group member of rank src
//
// Each returns the group's total (x0 . ... . xlast, without init) to every
// thread. `out` may be `in`. With outputs = running_total:
//
//   P_T P_inclusive_update(temp, in, out, counter)
//   P_T P_exclusive_update(temp, in, out, counter)
//   P_T P_inclusive_exclusive_update(temp, in, inc, exc, counter)
//
// combine the group's total into *counter atomically and seed the scan with
// the counter's old value instead of init (cooperative groups'
// exclusive_scan_update).
SG_BEGIN(group_scatter)
//
// With fused outputs (scatter, scatter_at, scatter_if; section
// `group_scatter`, each output a `scatter_output`):
//
//   P_T P_scatter(temp, x, index, n, inclusive, exclusive, scattered...)
//   P_T P_scatter_update(temp, x, index, n, inclusive, exclusive, counter, scattered...)
//
// x: the thread's ITEMS input elements (of P_In), elements index ..
// index + ITEMS - 1 of an array of n; those at or past n are the identity
// in the scan and write nothing. They are converted and scanned as
// P_inclusive_exclusive (P_inclusive_exclusive_update) scans; then where
// P_scatter_if(x, i, exclusive, inclusive, n) holds, P_scatter_value(...)
// goes to element P_scatter_at(...) of each output (a position >= n
// dropped). inclusive, exclusive: the thread's ITEMS results, or null.
SG_END(group_scatter)
//
// Needs: SG_ITEMS, SG_SEEDED (1 when init is not the identity), SG_GROUP_UPDATE
// (1 for the *_update functions).

SG_FN SG_T SG_NAME(sg_reduce_items)(const SG_T* in) {
  SG_T p = in[0];
#pragma unroll
  for (int i = 1; i < SG_ITEMS; ++i) p = SG_COMBINE(p, in[i]);
  return p;
}

// The thread's items scanned from `prefix`; either output may be null.
SG_FN void SG_NAME(sg_items_from)(SG_T prefix, const SG_T* in, SG_T* inclusive, SG_T* exclusive) {
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const SG_T x = in[i];
    if (exclusive) exclusive[i] = prefix;
    prefix = SG_COMBINE(prefix, x);
    if (inclusive) inclusive[i] = prefix;
  }
}

SG_BEGIN(seed_exclusive)
// init_applies_to = exclusive: the thread's items scanned from `prefix`
// (unseeded), init combined before each exclusive result alone, as rocPRIM's
// warp_scan::scan seeds its exclusive output only.
SG_FN void SG_NAME(sg_items_seed_exclusive)(SG_T prefix, const SG_T* in, SG_T* inclusive, SG_T* exclusive) {
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const SG_T x = in[i];
    if (exclusive) exclusive[i] = SG_COMBINE(SG_INIT(), prefix);
    prefix = SG_COMBINE(prefix, x);
    if (inclusive) inclusive[i] = prefix;
  }
}

SG_END(seed_exclusive)
SG_BEGIN(scatter_any)
// One element's fused outputs (section `scatter_any`, each output a
// `scatter_output`): where P_scatter_if(x, i, before, after, n, prev, next)
// holds, P_scatter_value(...) goes to element P_scatter_at(...) of the
// output, a position >= n dropped. (device_lookback.h's passes and
// P_scatter's items call it.)
SG_FN void SG_NAME(sg_scatter_element)(SG_IN x, scangen_u64 i, SG_T before, SG_T after, scangen_u64 n, SG_IN prev,
                                       SG_IN next
SG_BEGIN(scatter_output)
                                       , SG_GLOBAL SG_OUT* SG_SCATTERED
SG_END(scatter_output)
                                       ) {
SG_BEGIN(scatter_output)
  if (SG_SCATTER_IF(x, i, before, after, n, prev, next)) {
    const scangen_u64 at = SG_SCATTER_AT(x, i, before, after, n, prev, next);
    if (at < n) SG_SCATTERED[at] = SG_SCATTER_VALUE(x, i, before, after, n, prev, next);
  }
SG_END(scatter_output)
}

SG_END(scatter_any)
SG_FN SG_T SG_NAME(sg_scan)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* inclusive, SG_T* exclusive) {
  SG_T aggregate;
  SG_T prefix = SG_NAME(sg_group_exclusive)(temp, SG_NAME(sg_reduce_items)(in), &aggregate);
SG_BEGIN(seed_both)
#if SG_SEEDED
  prefix = SG_COMBINE(SG_INIT(), prefix);
#endif
  SG_NAME(sg_items_from)(prefix, in, inclusive, exclusive);
SG_END(seed_both)
SG_BEGIN(seed_exclusive)
  SG_NAME(sg_items_seed_exclusive)(prefix, in, inclusive, exclusive);
SG_END(seed_exclusive)
  return aggregate;
}

SG_FN SG_T SG_NAME(inclusive)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* out) {
  return SG_NAME(sg_scan)(temp, in, out, 0);
}

SG_FN SG_T SG_NAME(exclusive)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* out) {
  return SG_NAME(sg_scan)(temp, in, 0, out);
}

SG_FN SG_T SG_NAME(inclusive_exclusive)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* inclusive,
                                        SG_T* exclusive) {
  return SG_NAME(sg_scan)(temp, in, inclusive, exclusive);
}

SG_FN SG_T SG_NAME(reduce)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in) {
  SG_T aggregate;
  (void)SG_NAME(sg_group_exclusive)(temp, SG_NAME(sg_reduce_items)(in), &aggregate);
  return aggregate;
}

SG_FN SG_T SG_NAME(broadcast)(SG_LOCAL SG_NAME(temp)* temp, SG_T v, int src) {
  return SG_NAME(sg_group_broadcast)(temp, v, src);
}

#if SG_GROUP_UPDATE
SG_FN SG_T SG_NAME(sg_scan_update)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* inclusive, SG_T* exclusive,
                                   SG_GLOBAL SG_T* counter) {
  SG_T aggregate;
  const SG_T prefix = SG_NAME(sg_group_exclusive)(temp, SG_NAME(sg_reduce_items)(in), &aggregate);
  SG_T old = SG_IDENTITY();
#ifndef __OPENCL_VERSION__
  // CUDA: the lanes here before the update meet again after it. A
  // compare-and-swap loop may leave them apart, and the coalesced lanes'
  // broadcast takes the lanes active at the time it runs.
  const unsigned int together = __activemask();
#endif
  if (SG_NAME(sg_group_rank)() == 0) old = SG_NAME(sg_atomic_combine)(counter, aggregate);
#ifndef __OPENCL_VERSION__
  __syncwarp(together);
#endif
  old = SG_NAME(sg_group_broadcast)(temp, old, 0);
  SG_NAME(sg_items_from)(SG_COMBINE(old, prefix), in, inclusive, exclusive);
  return aggregate;
}

SG_FN SG_T SG_NAME(inclusive_update)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* out,
                                     SG_GLOBAL SG_T* counter) {
  return SG_NAME(sg_scan_update)(temp, in, out, 0, counter);
}

SG_FN SG_T SG_NAME(exclusive_update)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* out,
                                     SG_GLOBAL SG_T* counter) {
  return SG_NAME(sg_scan_update)(temp, in, 0, out, counter);
}

SG_FN SG_T SG_NAME(inclusive_exclusive_update)(SG_LOCAL SG_NAME(temp)* temp, const SG_T* in, SG_T* inclusive,
                                               SG_T* exclusive, SG_GLOBAL SG_T* counter) {
  return SG_NAME(sg_scan_update)(temp, in, inclusive, exclusive, counter);
}
#endif
SG_BEGIN(group_scatter)

// The thread's input elements to its items: the identity at or past n.
SG_FN void SG_NAME(sg_scatter_load)(const SG_IN* x, scangen_u64 index, scangen_u64 n, SG_T* items) {
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k) items[k] = index + (scangen_u64)k < n ? SG_CONVERT(x[k]) : SG_IDENTITY();
}

// The fused outputs of the thread's elements, and its results where asked
// for. (prev and next are the element itself: no neighbours here.)
SG_FN void SG_NAME(sg_scatter_items)(const SG_IN* x, scangen_u64 index, scangen_u64 n, const SG_T* inc,
                                     const SG_T* exc, SG_T* inclusive, SG_T* exclusive
SG_BEGIN(scatter_output)
                                     , SG_GLOBAL SG_OUT* SG_SCATTERED
SG_END(scatter_output)
                                     ) {
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k) {
    if (inclusive) inclusive[k] = inc[k];
    if (exclusive) exclusive[k] = exc[k];
    const scangen_u64 i = index + (scangen_u64)k;
    if (i < n) SG_NAME(sg_scatter_element)(x[k], i, exc[k], inc[k], n, x[k], x[k]SG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
  }
}

SG_FN SG_T SG_NAME(scatter)(SG_LOCAL SG_NAME(temp)* temp, const SG_IN* x, scangen_u64 index, scangen_u64 n,
                            SG_T* inclusive, SG_T* exclusive
SG_BEGIN(scatter_output)
                            , SG_GLOBAL SG_OUT* SG_SCATTERED
SG_END(scatter_output)
                            ) {
  SG_T items[SG_ITEMS], inc[SG_ITEMS], exc[SG_ITEMS];
  SG_NAME(sg_scatter_load)(x, index, n, items);
  const SG_T total = SG_NAME(sg_scan)(temp, items, inc, exc);
  SG_NAME(sg_scatter_items)(x, index, n, inc, exc, inclusive, exclusiveSG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
  return total;
}

#if SG_GROUP_UPDATE
SG_FN SG_T SG_NAME(scatter_update)(SG_LOCAL SG_NAME(temp)* temp, const SG_IN* x, scangen_u64 index, scangen_u64 n,
                                   SG_T* inclusive, SG_T* exclusive, SG_GLOBAL SG_T* counter
SG_BEGIN(scatter_output)
                                   , SG_GLOBAL SG_OUT* SG_SCATTERED
SG_END(scatter_output)
                                   ) {
  SG_T items[SG_ITEMS], inc[SG_ITEMS], exc[SG_ITEMS];
  SG_NAME(sg_scatter_load)(x, index, n, items);
  const SG_T total = SG_NAME(sg_scan_update)(temp, items, inc, exc, counter);
  SG_NAME(sg_scatter_items)(x, index, n, inc, exc, inclusive, exclusiveSG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
  return total;
}
#endif
SG_END(group_scatter)
