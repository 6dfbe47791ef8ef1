// The head-flag segmented device functions of a warp- or block-level scan
// (head_flags = true). Each thread passes its ITEMS = SG_ITEMS items
// (blocked arrangement, as api.h's functions) and a head flag per item: a
// nonzero heads[i] starts a segment at item i, and the group's first item
// always starts one. Every segment's scan starts again from init:
//
//   P_T P_inclusive_segmented(temp, in, heads, out)        out[i] = init . x_s . ... . x_i
//   P_T P_exclusive_segmented(temp, in, heads, out)        out[i] = init . x_s . ... . x_(i-1)  (init at a start)
//   P_T P_inclusive_exclusive_segmented(temp, in, heads, inc, exc)   both at once
//
// with x_s the first item of item i's segment. With init_applies_to =
// exclusive, init seeds the exclusive results alone. Each returns, to every
// thread, the total of the group's last segment (from its start to the
// group's last item, without init): the carry of a scan that goes on in the
// next group's items. `out` may be `in`; `temp` is a P_seg_temp, the
// scratch of the pairs' group scan.
//
// The scan is that of (heads, value) pairs with segmented_pair.h's operator,
// built from the scan's own (never swapping its operands): the group's
// algorithm instantiated for the pair, under the names P_seg_* (SG_T is the
// pair; SG_VALUE_* are the scan's own).
//
// Needs: segmented_pair.h, the group template for the pair (P_seg_temp,
// P_seg_sg_group_exclusive, P_seg_sg_group_rank), SG_ITEMS, SG_SEEDED.

SG_FN SG_VALUE_T SG_NAME(sg_segmented_scan)(SG_LOCAL SG_NAME(seg_temp)* temp, const SG_VALUE_T* in,
                                            const unsigned char* heads, SG_VALUE_T* inclusive,
                                            SG_VALUE_T* exclusive) {
  const int leader = SG_NAME(seg_sg_group_rank)() == 0;  // its first item starts the group's first segment
  SG_T partial = SG_NAME(seg_make)(leader || heads[0] ? 1u : 0u, in[0]);
#pragma unroll
  for (int i = 1; i < SG_ITEMS; ++i) partial = SG_COMBINE(partial, SG_NAME(seg_make)(heads[i] ? 1u : 0u, in[i]));
  SG_T total;
  // What precedes the thread's items in their segment: the leader's is never used.
  const SG_T prefix = SG_NAME(seg_sg_group_exclusive)(temp, partial, &total);
  SG_VALUE_T acc = prefix.value;
SG_BEGIN(seed_both)
#if SG_SEEDED
  acc = SG_VALUE_COMBINE(SG_VALUE_INIT(), acc);
#endif
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const SG_VALUE_T x = in[i];
    if (heads[i] || (leader && i == 0)) {
      if (exclusive) exclusive[i] = SG_VALUE_INIT();
#if SG_SEEDED
      acc = SG_VALUE_COMBINE(SG_VALUE_INIT(), x);
#else
      acc = x;
#endif
    } else {
      if (exclusive) exclusive[i] = acc;
      acc = SG_VALUE_COMBINE(acc, x);
    }
    if (inclusive) inclusive[i] = acc;
  }
SG_END(seed_both)
SG_BEGIN(seed_exclusive)
  // init_applies_to = exclusive: the inclusive results unseeded, init before each exclusive one.
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const SG_VALUE_T x = in[i];
    if (heads[i] || (leader && i == 0)) {
      if (exclusive) exclusive[i] = SG_VALUE_INIT();
      acc = x;
    } else {
      if (exclusive) exclusive[i] = SG_VALUE_COMBINE(SG_VALUE_INIT(), acc);
      acc = SG_VALUE_COMBINE(acc, x);
    }
    if (inclusive) inclusive[i] = acc;
  }
SG_END(seed_exclusive)
  return total.value;
}

SG_FN SG_VALUE_T SG_NAME(inclusive_segmented)(SG_LOCAL SG_NAME(seg_temp)* temp, const SG_VALUE_T* in,
                                              const unsigned char* heads, SG_VALUE_T* out) {
  return SG_NAME(sg_segmented_scan)(temp, in, heads, out, 0);
}

SG_FN SG_VALUE_T SG_NAME(exclusive_segmented)(SG_LOCAL SG_NAME(seg_temp)* temp, const SG_VALUE_T* in,
                                              const unsigned char* heads, SG_VALUE_T* out) {
  return SG_NAME(sg_segmented_scan)(temp, in, heads, 0, out);
}

SG_FN SG_VALUE_T SG_NAME(inclusive_exclusive_segmented)(SG_LOCAL SG_NAME(seg_temp)* temp, const SG_VALUE_T* in,
                                                        const unsigned char* heads, SG_VALUE_T* inclusive,
                                                        SG_VALUE_T* exclusive) {
  return SG_NAME(sg_segmented_scan)(temp, in, heads, inclusive, exclusive);
}
