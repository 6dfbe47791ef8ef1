SG_BEGIN(inline)inline SG_END(inline)size_t SG_WORKSPACE_BYTES(int64_t n) {
  if (n < 0) return 0;
  const uint64_t tiles = n == 0 ? 1u : (static_cast<uint64_t>(n) + SG_PER_BLOCK_LESS_ONE) / SG_PER_BLOCK;
  if (tiles > 2147483647u) return 0;
  return static_cast<size_t>(SG_WORKSPACE_BASE + tiles * SG_WORKSPACE_PER_TILE);
}
