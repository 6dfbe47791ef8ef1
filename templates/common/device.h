// Device level: what both device algorithms share. A tile is SG_THREADS x
// SG_ITEMS consecutive elements (blocked arrangement), scanned by one block
// with the block algorithm's sg_group_exclusive; the tiles' prefixes come
// from decoupled look-back (device_lookback.h) or from a separate pass
// (device_reduce_then_scan.h). Counts are 64-bit everywhere.
//
// Needs: common/io.h, SG_TILE (= SG_THREADS * SG_ITEMS = SG_BLOCK_ITEMS).

// Word w of a thread's bits for its items (bit i % 32 of word i / 32 for item
// i), cut to the items below `count`: the mask of the segmented kernels'
// starts and ends and of the rows kernel's heads.
SG_FN unsigned int SG_NAME(sg_bits_below)(int w, unsigned int count) {
  const unsigned int from = 32u * (unsigned int)w;
  return count <= from ? 0u : count - from >= 32u ? 0xffffffffu : (1u << (count - from)) - 1u;
}

SG_FN scangen_u64 SG_NAME(sg_tile_count)(scangen_u64 n) {
  const scangen_u64 tiles = (n + SG_TILE - 1) / SG_TILE;
  return tiles > 0 ? tiles : 1;  // n == 0 still writes the aggregate and the running total
}

SG_BEGIN(one_input)
// The tile's total (every thread gets it), read directly: for the OpenCL
// look-back's fallback, which must not disturb the exchange.
SG_FN SG_T SG_NAME(sg_reduce_tile)(SG_LOCAL SG_NAME(temp)* temp, const SG_GLOBAL SG_IN* in, scangen_u64 tile,
                                   scangen_u64 n) {
  SG_T items[SG_ITEMS];
  SG_NAME(sg_load_direct)(in, tile * SG_TILE, n, items);
  SG_T total;
  (void)SG_NAME(sg_group_exclusive)(temp, SG_NAME(sg_reduce_items)(items), &total);
  return total;
}
SG_END(one_input)
