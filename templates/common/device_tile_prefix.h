// Device level, decoupled_lookback: the look-back for kernels of the user's
// own (CUB's TilePrefixCallbackOp). A launch of the user's kernel cuts its
// work into `tiles` tiles, one per block at a time; each block
//
//   tile = P_device_tile_ticket(&tt, workspace, tiles);    its tile, in the order blocks start
//   ... the tile's aggregate, from its own data ...
//   exclusive = P_device_tile_prefix(&tt, workspace, tile, aggregate, &inclusive);
//
// with `tt` a P_device_tile_temp in shared (__local) memory. Both are
// collective over the block (every thread calls, in uniform control flow;
// CUDA: 1-D blocks whose first warp is whole). P_device_tile_prefix
// publishes the tile's aggregate, looks back over its predecessors with the
// scan's own look-back (the backend's sg_tile_prefix), publishes the
// inclusive prefix, and returns to every thread the combine of the tiles
// before this one (the identity for tile 0; init is not in it), and, where
// `inclusive` is not null, that combined with `aggregate`. Every tile of
// the launch calls both, once. The workspace is the scan's own: 16 bytes
// of header (the ticket), then one status per tile; more than one tile: its
// first P_device_tile_workspace_bytes(tiles) bytes zeroed before each
// launch, as for P_scan_kernel. On OpenCL a missing status is waited for
// (there is no input to reduce in its place): a tile waits only on tiles
// whose work-groups have taken their tickets, which the device must run
// to completion.

typedef SG_NAME(sg_lookback_shared) SG_NAME(device_tile_temp);

SG_FN scangen_u64 SG_NAME(device_tile_ticket)(SG_LOCAL SG_NAME(device_tile_temp)* temp,
                                              SG_GLOBAL unsigned char* workspace, scangen_u64 tiles) {
  // One tile takes no ticket: a launch of one tile reads nothing of the workspace.
  // Epoch 0: the caller zeroes the workspace before each launch.
  if (SG_THREAD() == 0) {
    temp->tile = tiles <= 1 ? 0 : SG_NAME(sg_take_ticket)(workspace, tiles - 1);
    temp->epoch = 0u;
  }
  SG_BARRIER();
  return temp->tile;
}

SG_FN SG_T SG_NAME(device_tile_prefix)(SG_LOCAL SG_NAME(device_tile_temp)* temp, SG_GLOBAL unsigned char* workspace,
                                       scangen_u64 tile, SG_T aggregate, SG_T* inclusive) {
  // The identity for tile 0.
  const SG_T before = SG_NAME(sg_tile_prefix)(temp, 0, workspace, tile, aggregate, 0, 0);
  if (inclusive) *inclusive = tile > 0 ? SG_COMBINE(before, aggregate) : aggregate;
  return before;
}
