SG_BEGIN(inline)inline SG_END(inline)size_t SG_WORKSPACE_BYTES(int64_t n) {
  if (n < 0) return 0;
  const uint64_t tiles = n == 0 ? 1u : (static_cast<uint64_t>(n) + SG_PER_BLOCK_LESS_ONE) / SG_PER_BLOCK;
  if (tiles > 2147483647u) return 0;
  return static_cast<size_t>(SG_WORKSPACE_BASE + tiles * SG_WORKSPACE_PER_TILE);
}
SG_BEGIN(tile_prefix)

// Bytes of workspace a launch of a kernel of your own with `tiles` tiles needs for
// SG_NAME(device_tile_ticket) and SG_NAME(device_tile_prefix); with more than one tile, zero them
// before each launch. 0 when tiles is more than one launch takes.
SG_BEGIN(inline)inline SG_END(inline)size_t SG_TILE_WORKSPACE_BYTES(uint64_t tiles) {
  if (tiles > 2147483647u) return 0;
  return static_cast<size_t>(SG_WORKSPACE_BASE + (tiles > 0 ? tiles : 1u) * SG_WORKSPACE_PER_TILE);
}
SG_END(tile_prefix)
