// The fixed-order look-back (deterministic = true with floating-point
// values, decoupled_lookback): every tile's prefix is combined from its
// predecessors' statuses in an order fixed by the tile's index alone, so a
// float scan gives the same bits on every run, in one pass.
//
// The positions of a chain (a flat scan's tiles; the tiles of the rows
// kernel's virtual array; a line's chunks in the axis kernel) publish the
// nodes of a Fenwick tree: position j publishes, once, the combine of
// positions j + 1 - lowbit(j + 1) .. j (lowbit: the lowest set bit of a
// number), its node. Position t's prefix, the combine of positions 0 ..
// t - 1, is the combine of popcount(t) nodes: node i ends at t with its i
// lowest set bits cleared, minus 1 (the nearest, ending at t - 1, first).
// Position t's own node is the combine of the first trailing_ones(t) of
// those (its children) and its own total: a position of even index
// publishes its total at once, the others once their children are there.
// A node's range is fixed and it is written once, so every value read is a
// function of the input; the waits form a tree of depth log2(positions).
//
// The nodes are folded one at a time, the nearest first (acc = node . acc),
// by one thread, the same way on both backends (on CUDA the first warp reads
// them at once, lane i node i). A node is published as soon as its children
// are folded, before the farther nodes are waited for: otherwise every node
// would wait for the one before it, and the tiles would follow one another. With head flags (the rows kernel: INCLUSIVE
// marks a node holding the first element of a row), a node holding a head
// ends the fold: nothing before a head counts.
//
// There is no fallback on OpenCL (no reduction of a stalled tile's input in
// its place: its result would not be the tile's own bits): a work-group
// waits for its predecessors' nodes. Ticket order puts them in work-groups
// that have started; NVIDIA's OpenCL and PoCL run a started work-group to
// its end.
//
// Needs: the backend's look-back (sg_status_store, sg_status_load, the flags).

typedef struct {
  SG_T v;
  int head;  // the fold holds a head: nodes farther back do not count
  int have;  // 0: nothing folded yet (the prefix of position 0)
} SG_NAME(sg_fixed_acc);

// The number of nodes of position t's prefix, and of its children.
SG_FN int SG_NAME(sg_fixed_count)(scangen_u64 t) {
  int c = 0;
  for (; t != 0; t &= t - 1) ++c;
  return c;
}

SG_FN int SG_NAME(sg_fixed_children)(scangen_u64 t) {
  int c = 0;
  for (; (t & 1) != 0; t >>= 1) ++c;
  return c;
}

// The position whose node is node i of position t's prefix.
SG_FN scangen_u64 SG_NAME(sg_fixed_node)(scangen_u64 t, int i) {
  for (; i > 0; --i) t &= t - 1;
  return t - 1;
}

// acc = (v, head) . acc
SG_FN void SG_NAME(sg_fixed_fold)(SG_NAME(sg_fixed_acc) * acc, SG_T v, int head) {
  if (!acc->have) {
    acc->v = v;
    acc->head = head;
    acc->have = 1;
  } else if (!acc->head) {
    acc->v = SG_COMBINE(v, acc->v);
    acc->head = head;
  }
}

// Publishes the node acc . (total, head) at `slot`.
SG_FN void SG_NAME(sg_fixed_publish)(SG_GLOBAL unsigned char* workspace, scangen_u64 slot,
                                     const SG_NAME(sg_fixed_acc) * acc, SG_T total, int head) {
  const int h = head || (acc->have && acc->head);
  const SG_T v = head || !acc->have ? total : SG_COMBINE(acc->v, total);
  SG_NAME(sg_status_store)(workspace, slot, h ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE, v);
}

// The value and head flag of the node at `slot`, waited for.
SG_FN int SG_NAME(sg_fixed_wait)(SG_GLOBAL unsigned char* workspace, scangen_u64 slot, SG_T* v) {
  unsigned int flag = SG_NAME(sg_status_load)(workspace, slot, v);
  while (flag == SG_FLAG_INVALID) {
#ifndef __OPENCL_VERSION__
    if (SG_LB_POLL_NS > 0) __nanosleep(SG_LB_POLL_NS);
#endif
    flag = SG_NAME(sg_status_load)(workspace, slot, v);
  }
  return flag == SG_FLAG_INCLUSIVE;
}

#ifdef __OPENCL_VERSION__
// By one thread (OpenCL; CUDA has the warp's version below): publishes the
// node of position t of the chain whose position j has its status at
// base + j x stride (its total `total`, `head` when it holds a head), and
// returns t's prefix (have = 0 for t = 0).
SG_FN SG_NAME(sg_fixed_acc)
    SG_NAME(sg_fixed_chain)(SG_GLOBAL unsigned char* workspace, scangen_u64 base, scangen_u64 stride, scangen_u64 t,
                            SG_T total, int head) {
  const int children = SG_NAME(sg_fixed_children)(t);
  SG_NAME(sg_fixed_acc) acc;
  acc.v = total;
  acc.head = 0;
  acc.have = 0;
  int published = children == 0 || head;
  if (published) SG_NAME(sg_fixed_publish)(workspace, base + t * stride, &acc, total, head);
  int i = 0;
  for (scangen_u64 at = t; at != 0 && !acc.head; at &= at - 1, ++i) {
    SG_T v = total;
    const int h = SG_NAME(sg_fixed_wait)(workspace, base + (at - 1) * stride, &v);
    SG_NAME(sg_fixed_fold)(&acc, v, h);
    if (!published && (i + 1 == children || acc.head)) {
      SG_NAME(sg_fixed_publish)(workspace, base + t * stride, &acc, total, head);
      published = 1;
    }
  }
  return acc;
}

#else
// The same by the 32 lanes of a warp (every lane calls; lane 0 publishes and
// gets the prefix): lane i reads node i of a window of at most 32 at once
// (the children's windows before the others'), then lane 0 folds them in
// order.
SG_FN SG_NAME(sg_fixed_acc)
    SG_NAME(sg_fixed_chain_warp)(SG_GLOBAL unsigned char* workspace, scangen_u64 base, scangen_u64 stride,
                                 scangen_u64 t, SG_T total, int head) {
  const int lane = SG_THREAD() & 31;
  const int children = SG_NAME(sg_fixed_children)(t), count = SG_NAME(sg_fixed_count)(t);
  SG_NAME(sg_fixed_acc) acc;
  acc.v = total;
  acc.head = 0;
  acc.have = 0;
  int published = children == 0 || head;
  if (published && lane == 0) SG_NAME(sg_fixed_publish)(workspace, base + t * stride, &acc, total, head);
  // The children first, in windows of their own: the node is published as soon as they are folded, without
  // waiting for the farther nodes (else each node would wait for its whole prefix, one tile after another).
  for (int w = 0, end = 0; w < count && !__shfl_sync(0xffffffffu, acc.head, 0); w = end) {
    const int last = w < children ? children : count;
    end = w + 32 < last ? w + 32 : last;
    SG_T v = total;
    int h = 0;
    if (w + lane < end)
      h = SG_NAME(sg_fixed_wait)(workspace, base + SG_NAME(sg_fixed_node)(t, w + lane) * stride, &v);
    for (int i = w; i < end; ++i) {
      const SG_T vi = SG_NAME(sg_lb_shfl_idx)(v, i - w);
      const int hi = __shfl_sync(0xffffffffu, h, i - w);
      if (lane == 0) {
        SG_NAME(sg_fixed_fold)(&acc, vi, hi);
        if (!published && (i + 1 == children || acc.head)) {
          SG_NAME(sg_fixed_publish)(workspace, base + t * stride, &acc, total, head);
          published = 1;
        }
      }
    }
  }
  return acc;
}
#endif

// Collective over the block: publishes the tile's node and returns the
// combine of the tiles before it (the identity for tile 0, which the caller
// does not combine). `temp`, `in` and `n` are the any-order look-back's
// (its fallback's); unused here.
SG_FN SG_T SG_NAME(sg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_LOCAL SG_NAME(temp)* temp,
                                   SG_GLOBAL unsigned char* workspace, scangen_u64 tile, SG_T total,
                                   SG_INPUTS in, scangen_u64 n) {
  (void)temp;
  (void)in;
  (void)n;
#ifndef __OPENCL_VERSION__
  if (SG_THREAD() < 32) {
    const SG_NAME(sg_fixed_acc) acc = SG_NAME(sg_fixed_chain_warp)(workspace, 0, 1, tile, total, 0);
    if (SG_THREAD() == 0) shared->prefix = acc.have ? acc.v : SG_IDENTITY();
  }
#else
  if (SG_THREAD() == 0) {
    const SG_NAME(sg_fixed_acc) acc = SG_NAME(sg_fixed_chain)(workspace, 0, 1, tile, total, 0);
    shared->prefix = acc.have ? acc.v : SG_IDENTITY();
  }
#endif
  SG_BARRIER();
  return shared->prefix;
}
