// Device level, reduce_then_scan: three launches, no block ever waits on
// another, and every combine happens in an order fixed by n alone, so float
// results are the same bits on every run.
//
//   P_reduce_kernel(in, partials, n)         grid = tiles: partials[t] = total of tile t
//   P_spine_kernel(partials, [aggregate], [running_total], n)
//                                            one block: partials[t] = seed . total of tiles < t
//   P_scan_kernel(in, outputs..., partials, n)
//                                            grid = tiles: each tile scans from partials[t]
//
// tiles = max(1, ceil(n / SG_TILE)); partials holds `tiles` elements (the
// workspace). The seed is init, or the running total read before the spine
// writes it back.

SG_KERNEL SG_BOUNDS(SG_THREADS) void SG_NAME(reduce_kernel)(SG_PARAMS_reduce_kernel) {
  SG_SHARED SG_NAME(temp) temp;
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
  const scangen_u64 tile = SG_BLOCK();
  SG_T items[SG_ITEMS];
  SG_NAME(sg_load)(in, tile * SG_TILE, n, items, exchange);
  SG_T total;
  (void)SG_NAME(sg_group_exclusive)(&temp, SG_NAME(sg_reduce_items)(items), &total);
  if (SG_THREAD() == 0) partials[tile] = total;
}

SG_KERNEL SG_BOUNDS(SG_THREADS) void SG_NAME(spine_kernel)(SG_PARAMS_spine_kernel) {
  SG_SHARED SG_NAME(temp) temp;
  const scangen_u64 tiles = SG_NAME(sg_tile_count)(n);
#if SG_RUNNING_TOTAL
  SG_T carry = running_total[0];
#elif SG_SEEDED
  SG_T carry = SG_INIT();
#else
  SG_T carry = SG_IDENTITY();
#endif
  SG_T sum = SG_IDENTITY();  // the tiles' total, without the seed
  for (scangen_u64 base = 0; base < tiles; base += SG_TILE) {
    SG_T items[SG_ITEMS];
    const scangen_u64 first = base + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) items[i] = first + (scangen_u64)i < tiles ? partials[first + (scangen_u64)i] : SG_IDENTITY();
    SG_T chunk;
    const SG_T prefix = SG_NAME(sg_group_exclusive)(&temp, SG_NAME(sg_reduce_items)(items), &chunk);
    SG_T exc[SG_ITEMS];
    SG_NAME(sg_items_from)(SG_COMBINE(carry, prefix), items, 0, exc);
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i)
      if (first + (scangen_u64)i < tiles) partials[first + (scangen_u64)i] = exc[i];
    carry = SG_COMBINE(carry, chunk);
    sum = SG_COMBINE(sum, chunk);
  }
  if (SG_THREAD() == 0) {
#if SG_AGGREGATE_OUT
    aggregate[0] = sum;
#endif
#if SG_RUNNING_TOTAL
    running_total[0] = carry;
#endif
  }
  (void)sum;
}

SG_KERNEL SG_BOUNDS(SG_THREADS) void SG_NAME(scan_kernel)(SG_PARAMS_scan_kernel) {
  SG_SHARED SG_NAME(temp) temp;
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
  const scangen_u64 tile = SG_BLOCK();
  SG_T items[SG_ITEMS];
  SG_NAME(sg_load)(in, tile * SG_TILE, n, items, exchange);
  SG_T total;
  const SG_T prefix = SG_NAME(sg_group_exclusive)(&temp, SG_NAME(sg_reduce_items)(items), &total);
  (void)total;
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_T inc[SG_ITEMS], exc[SG_ITEMS];
  SG_NAME(sg_items_from)(SG_COMBINE(partials[tile], prefix), items, inc, exc);
  SG_NAME(sg_store_both)(inclusive, exclusive, tile * SG_TILE, n, inc, exc, exchange);
#elif SG_INCLUSIVE_OUT
  SG_T inc[SG_ITEMS];
  SG_NAME(sg_items_from)(SG_COMBINE(partials[tile], prefix), items, inc, 0);
  SG_NAME(sg_store)(inclusive, tile * SG_TILE, n, inc, exchange);
#else
  SG_T exc[SG_ITEMS];
  SG_NAME(sg_items_from)(SG_COMBINE(partials[tile], prefix), items, 0, exc);
  SG_NAME(sg_store)(exclusive, tile * SG_TILE, n, exc, exchange);
#endif
}
