// The array-level entry kernel of a warp- or block-level scan: each group
// (logical warp or block) scans its segment of SG_GROUP_THREADS * SG_ITEMS
// consecutive elements; the last segment may be short. Launch it with
// SG_BLOCK_THREADS threads per block (SG_GROUPS groups each) and
// ceil(segments / SG_GROUPS) blocks, 1-D (OpenCL: the kernel requires that
// work-group size).
//
//   P_scan_kernel(in, [out | inclusive, exclusive], [aggregates], [running_total], n)
//
// in: n elements of P_In; out: n elements of P_T (may be `in` when the types
// agree); aggregates: one element per segment; running_total: one element,
// the counter (read, combined with every segment's total, written).
//
// Needs: common/io.h, SG_IN, SG_CONVERT, SG_GROUPS, SG_GROUP_THREADS, SG_BLOCK_THREADS,
// SG_INCLUSIVE_OUT, SG_EXCLUSIVE_OUT, SG_AGGREGATE_OUT, SG_RUNNING_TOTAL.

SG_KERNEL SG_BOUNDS(SG_BLOCK_THREADS) void SG_NAME(scan_kernel)(SG_PARAMS_scan_kernel) {
  SG_SHARED SG_NAME(temp) temp[SG_GROUPS];
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
  const int tid = SG_THREAD();
  const int group = tid / SG_GROUP_THREADS;
  // The block's segments are consecutive: its first element, and this thread's items in order.
  const scangen_u64 block_first = SG_BLOCK() * (scangen_u64)SG_BLOCK_ITEMS;

SG_BEGIN(group_scatter)
  // Fused outputs: the public P_scatter (P_scatter_update) on the thread's
  // input elements, read directly before any store (in place is safe); both
  // results of every item kept for the scan's own arrays, which may be null.
  const scangen_u64 mine = block_first + (scangen_u64)(tid * SG_ITEMS);
  SG_IN xs[SG_ITEMS];
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k)
    if (mine + (scangen_u64)k < n) xs[k] = in[mine + (scangen_u64)k];  // the others are not read
  SG_T inc[SG_ITEMS], exc[SG_ITEMS];
#if SG_RUNNING_TOTAL
  const SG_T total = SG_NAME(scatter_update)(&temp[group], xs, mine, n, inc, exc, running_total
SG_BEGIN(scatter_output)
                                             , SG_SCATTERED
SG_END(scatter_output)
                                             );
#else
  const SG_T total = SG_NAME(scatter)(&temp[group], xs, mine, n, inc, exc
SG_BEGIN(scatter_output)
                                      , SG_SCATTERED
SG_END(scatter_output)
                                      );
#endif
#if SG_INCLUSIVE_OUT
  if (inclusive != 0) {
#else
  if (exclusive != 0) {
#endif
SG_END(group_scatter)
SG_BEGIN(group_plain)
  SG_T items[SG_ITEMS];
  SG_NAME(sg_load)(in, block_first, n, items, exchange);

#if SG_INCLUSIVE_OUT
  SG_T inc[SG_ITEMS];
#endif
#if SG_EXCLUSIVE_OUT
  SG_T exc[SG_ITEMS];
#endif
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
#define SG_OUTS inc, exc
#elif SG_INCLUSIVE_OUT
#define SG_OUTS inc, 0
#else
#define SG_OUTS 0, exc
#endif
#if SG_RUNNING_TOTAL
  // Groups past the end combine the identity: harmless to the counter.
  const SG_T total = SG_NAME(sg_scan_update)(&temp[group], items, SG_OUTS, running_total);
#else
  const SG_T total = SG_NAME(sg_scan)(&temp[group], items, SG_OUTS);
#endif
#undef SG_OUTS
SG_END(group_plain)

#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
SG_BEGIN(seed_both)
  SG_NAME(sg_store_both)(inclusive, exclusive, block_first, n, inc, exc, exchange);
SG_END(seed_both)
SG_BEGIN(seed_exclusive)
  // The exclusive results are seeded and the inclusive ones not: neither is the other shifted.
  SG_NAME(sg_store)(inclusive, block_first, n, inc, exchange);
  SG_NAME(sg_store)(exclusive, block_first, n, exc, exchange);
SG_END(seed_exclusive)
#elif SG_INCLUSIVE_OUT
  SG_NAME(sg_store)(inclusive, block_first, n, inc, exchange);
#else
  SG_NAME(sg_store)(exclusive, block_first, n, exc, exchange);
#endif
SG_BEGIN(group_scatter)
  }
SG_END(group_scatter)
#if SG_AGGREGATE_OUT
  const scangen_u64 segment = SG_BLOCK() * SG_GROUPS + (scangen_u64)group;
SG_BEGIN(forward)
  if (tid % SG_GROUP_THREADS == 0 && segment * (scangen_u64)(SG_GROUP_THREADS * SG_ITEMS) < n) aggregates[segment] = total;
SG_END(forward)
SG_BEGIN(reverse)
  // Scan-order segment `segment` is segment `mirrored` of the array (io_mirror.h).
  const scangen_u64 mirrored = SG_NAME(sg_mirror_segment)(segment, n);
  if (tid % SG_GROUP_THREADS == 0 && mirrored * (scangen_u64)(SG_GROUP_THREADS * SG_ITEMS) < n)
    aggregates[mirrored] = total;
SG_END(reverse)
#else
  (void)total;
#endif
}
