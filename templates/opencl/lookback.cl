// Decoupled look-back, OpenCL C 1.2 side, with a fallback against a lack of
// forward progress.
//
// OpenCL promises nothing about work-groups running concurrently: a tile
// whose predecessor's work-group has taken its ticket but is not being run
// could wait forever. So the look-back spins a bounded number of times
// (SG_SPIN reads) on a status that is not there yet, and then the waiting
// work-group reduces the stalled tile's input itself and goes on with that
// total ("decoupled fallback", Smith, Levien & Owens, SPAA 2025). The result
// is the same: a tile's total is a function of its input. Ticket order
// keeps each fallback to tiles that exist.
//
// The look-back is work-item 0's: one predecessor at a time, the farther
// tile's value combined first, until an INCLUSIVE status (or tile 0); a
// stalled tile is reduced by work-item 0 alone, from its input. Where the
// dialect has SG_WARP_LOOKBACK (NVIDIA's PTX), the first warp's instead: 32
// predecessors a read, as on CUDA, a stalled tile reduced by its lane.
SG_BEGIN(tile_prefix)
// Without an input (`in` null: a kernel of the user's own,
// device_tile_prefix.h), its status is waited for.
SG_END(tile_prefix)
//
// Status of a tile: two places, the aggregate's and the inclusive prefix's,
// of SG_STATUS_WORDS 64-bit slots each. A slot holds one 32-bit word of the
// value in its low half and the tag (the flag; 0 before it is written) in its high half, and
// is written with one 64-bit atomic exchange (cl_khr_int64_base_atomics) and
// read with one volatile 64-bit load, which no GPU or CPU splits (with
// SCANGEN_OPENCL_ATOMIC_STATUS_READS defined when the program is built: an
// atomic add of 0, a read-modify-write at the cache that holds the line,
// slower). A place holds its value when every
// one of its words carries its tag: each word vouches for itself, so nothing
// depends on the order in which a GPU makes the writes of another work-group
// visible (OpenCL 1.2's mem_fence orders them only as the writing work-item
// sees them, and a tag read before its value could give a value not yet
// written). Workspace: 16 bytes of header (the ticket), then the statuses;
// the host zeroes the header and the statuses of the call's tiles before
// each call, so a status is not there until this call publishes it.
//
// Where the device sleeps (SG_CAN_SLEEP: NVIDIA's PTX), the look-back sleeps
// SG_LB_FIRST_POLL_NS after publishing the tile's total and before its first
// read, from tile SG_LB_FIRST_POLL_FROM on, as on CUDA (cuda/lookback.cuh:
// the pause paces the work-groups' loads and stores); the build option
// SCANGEN_OPENCL_FIRST_POLL_NS=ns sets another time (0: none).
//
// Needs: SG_TILE, SG_SPIN, SG_STATUS_WORDS, SG_LB_FIRST_POLL_NS, SG_LB_FIRST_POLL_FROM.

#ifdef SCANGEN_OPENCL_ATOMIC_STATUS_READS
#define SG_STATUS_SLOT_READ(p) atom_add((p), (ulong)0)
#else
#define SG_STATUS_SLOT_READ(p) (*(p))
#endif
#define SG_FLAG_INVALID 0u
#define SG_FLAG_AGGREGATE 1u
#define SG_FLAG_INCLUSIVE 2u

typedef struct {
  ulong tile;
  uint epoch;  // always 0: OpenCL's workspace is zeroed for each call
  SG_T prefix;
} SG_NAME(sg_lookback_shared);

typedef union {
  SG_T value;
  uint word[SG_STATUS_WORDS];
} SG_NAME(sg_status_value);

// The CUDA side's wait for the kernel before in the stream (cuda/lookback.cuh): none here.
SG_FN void SG_NAME(sg_wait_prior_grid)(void) {}

// A ticket; `last` is the call's last one (every work-group has then taken
// its own), whose taker resets the counter for the next call.
SG_FN ulong SG_NAME(sg_take_ticket)(SG_GLOBAL unsigned char* workspace, ulong last) {
  volatile __global uint* ticket = (volatile __global uint*)workspace;
  const uint t = atomic_inc(ticket);
  if ((ulong)t == last) atomic_xchg(ticket, 0u);
  return t;
}

// By one work-item: the work-group's tile in `shared` (none taken for a call
// of one tile), epoch 0 (the CUDA side's epochs, cuda/lookback.cuh, are not
// used here: the host zeroes the workspace for each call).
SG_FN void SG_NAME(sg_take_tile_epoch)(SG_LOCAL SG_NAME(sg_lookback_shared) * shared,
                                       SG_GLOBAL unsigned char* workspace, ulong tiles) {
  shared->tile = tiles == 1 ? 0 : SG_NAME(sg_take_ticket)(workspace, tiles - 1);
  shared->epoch = 0u;
}

// The place of `flag` (AGGREGATE or INCLUSIVE) in the status of `tile`.
SG_FN volatile __global ulong* SG_NAME(sg_status_place)(SG_GLOBAL unsigned char* workspace, ulong tile, uint flag) {
  return (volatile __global ulong*)(workspace + 16) + tile * (2 * SG_STATUS_WORDS) +
         (flag == SG_FLAG_INCLUSIVE ? SG_STATUS_WORDS : 0);
}

// Each place is written once per call: a reader that saw a word written
// never sees it change.
SG_FN void SG_NAME(sg_status_store)(SG_GLOBAL unsigned char* workspace, ulong tile, uint flag, SG_T v) {
  SG_NAME(sg_status_value) u;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) u.word[i] = 0u;
  u.value = v;
  volatile __global ulong* place = SG_NAME(sg_status_place)(workspace, tile, flag);
  const ulong tag = (ulong)flag << 32;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) atom_xchg(place + i, tag | (ulong)u.word[i]);
}

// 1 and the value when every word of the place carries its tag.
SG_FN int SG_NAME(sg_status_read)(SG_GLOBAL unsigned char* workspace, ulong tile, uint flag, SG_T* v) {
  volatile __global ulong* place = SG_NAME(sg_status_place)(workspace, tile, flag);
  const uint tag = flag;
  SG_NAME(sg_status_value) u;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) {
    const ulong slot = SG_STATUS_SLOT_READ(place + i);
    if ((uint)(slot >> 32) != tag) return 0;
    u.word[i] = (uint)slot;
  }
  *v = u.value;
  return 1;
}

// The tile's status: INCLUSIVE, AGGREGATE (with *v) or INVALID.
SG_FN uint SG_NAME(sg_status_load)(SG_GLOBAL unsigned char* workspace, ulong tile, SG_T* v) {
  if (SG_NAME(sg_status_read)(workspace, tile, SG_FLAG_INCLUSIVE, v)) return SG_FLAG_INCLUSIVE;
  if (SG_NAME(sg_status_read)(workspace, tile, SG_FLAG_AGGREGATE, v)) return SG_FLAG_AGGREGATE;
  return SG_FLAG_INVALID;
}

SG_BEGIN(counter_by_last_group)
// outputs = running_total, more than one tile: the counter is written back
// by the work-group that finishes last, not by the last tile's. Through the
// fallback the last tile can finish while an earlier work-group has taken
// its ticket but not yet run, nor read the counter as its seed: had the last
// tile written the counter, that work-group would take this call's total for
// its seed. Collective over the work-group, at its end: work-item 0 counts
// the work-group done (the header's second word); the last to count (every
// other work-group has read the seed by then) resets the count and writes
// the seed combined with the last tile's INCLUSIVE status (published: its
// work-group has counted itself done), and no work-group reads the counter
// afterwards. Called by every work-item, whatever the count of tiles (a
// barrier under a condition, even one the same for the whole work-group,
// made PoCL run work-item 0's part for each work-item).
SG_FN void SG_NAME(sg_count_done)(SG_GLOBAL unsigned char* workspace, ulong tiles, SG_T seed,
                                  SG_GLOBAL SG_T* running_total) {
  barrier(CLK_GLOBAL_MEM_FENCE);  // every work-item's read of the seed first
  if (tiles > 1 && SG_THREAD() == 0) {
    volatile __global uint* done = (volatile __global uint*)workspace + 1;
    if ((ulong)atomic_inc(done) == tiles - 1) {
      atomic_xchg(done, 0u);
      SG_T sum = SG_IDENTITY();
      while (!SG_NAME(sg_status_read)(workspace, tiles - 1, SG_FLAG_INCLUSIVE, &sum)) {
      }
      running_total[0] = SG_COMBINE(seed, sum);
    }
  }
}

SG_END(counter_by_last_group)
SG_BEGIN(forward)
// Work-item 0: the total of `tile` from its input, alone and in order (the
// fallback; rare, so simple, and free of barriers).
SG_FN SG_T SG_NAME(sg_reduce_alone)(SG_INPUTS in, ulong tile, ulong n) {
  const ulong first = tile * SG_TILE;
  const ulong last = first + SG_TILE < n ? first + SG_TILE : n;
  SG_T sum = SG_IDENTITY();
SG_BEGIN(one_input)
  for (ulong i = first; i < last; ++i) sum = i == first ? SG_CONVERT(in[i]SG_BEGIN(indexed), iSG_END(indexed)) : SG_COMBINE(sum, SG_CONVERT(in[i]SG_BEGIN(indexed), iSG_END(indexed)));
SG_END(one_input)
SG_BEGIN(input_bundle)
  for (ulong i = first; i < last; ++i) sum = i == first ? SG_NAME(sg_input_at)(in, i) : SG_COMBINE(sum, SG_NAME(sg_input_at)(in, i));
SG_END(input_bundle)
  return sum;
}
SG_END(forward)
SG_BEGIN(reverse)
// Work-item 0: the total of `tile` from its input, alone and in scan order
// (the fallback; rare, so simple, and free of barriers): the tile's elements
// through the mirror (io_mirror.h), the last first.
SG_FN SG_T SG_NAME(sg_reduce_alone)(const SG_GLOBAL SG_IN* in, ulong tile, ulong n) {
  const ulong base = SG_NAME(sg_mirror_first)(tile * SG_TILE, n);
  SG_T sum = SG_IDENTITY();
  int started = 0;
  for (ulong k = SG_TILE; k-- > 0;) {
    if (base + k >= n) continue;  // the first tile's positions before the array's last element
    sum = started ? SG_COMBINE(sum, SG_CONVERT(in[base + k]SG_BEGIN(indexed), base + kSG_END(indexed))) : SG_CONVERT(in[base + k]SG_BEGIN(indexed), base + kSG_END(indexed));
    started = 1;
  }
  return sum;
}
SG_END(reverse)

// The fallback, for a status of `pred` still missing after SG_SPIN reads:
// its flag and, in *v, the tile's total reduced from its input (AGGREGATE;
// INCLUSIVE for tile 0), or the status published meanwhile.
SG_BEGIN(tile_prefix)
// Without an input (device_tile_prefix.h), the status is waited for.
SG_END(tile_prefix)
SG_FN uint SG_NAME(sg_status_fallback)(SG_GLOBAL unsigned char* workspace, ulong pred, SG_T* v, SG_INPUTS in,
                                       ulong n) {
  uint flag = SG_FLAG_INVALID;
SG_BEGIN(tile_prefix)
  if (!in) {
    while (flag == SG_FLAG_INVALID) flag = SG_NAME(sg_status_load)(workspace, pred, v);
    return flag;
  }
SG_END(tile_prefix)
  *v = SG_NAME(sg_reduce_alone)(in, pred, n);
  // In place, the stalled tile may have published and begun to write its
  // outputs over the input just read; it publishes its aggregate before it
  // writes anything, so a status still missing after the reduction means the
  // input was untouched. Otherwise the published value stands.
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  SG_T published = SG_IDENTITY();
  flag = SG_NAME(sg_status_load)(workspace, pred, &published);
  if (flag != SG_FLAG_INVALID)
    *v = published;
  else
    flag = pred == 0 ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE;  // tile 0's total is its inclusive prefix
  return flag;
}

// After publishing the tile's total, before the first read: a pause where
// the device sleeps (see above).
SG_FN void SG_NAME(sg_first_poll_pause)(ulong tile) {
#if SG_CAN_SLEEP
#ifdef SCANGEN_OPENCL_FIRST_POLL_NS
  const uint first_sleep = SCANGEN_OPENCL_FIRST_POLL_NS;
#else
  const uint first_sleep = SG_LB_FIRST_POLL_NS;
#endif
  if (first_sleep > 0 && tile >= SG_LB_FIRST_POLL_FROM) SG_SLEEP_NS(first_sleep);
#else
  (void)tile;
#endif
}

#if SG_WARP_LOOKBACK
SG_FN SG_T SG_NAME(sg_lb_shfl_down)(SG_T v, uint delta) {
  SG_NAME(sg_status_value) u;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) u.word[i] = 0u;
  u.value = v;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) u.word[i] = SG_SHFL_DOWN(0xffffffffu, u.word[i], delta);
  return u.value;
}

SG_FN SG_T SG_NAME(sg_lb_shfl_idx)(SG_T v, int src) {
  SG_NAME(sg_status_value) u;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) u.word[i] = 0u;
  u.value = v;
  for (int i = 0; i < SG_STATUS_WORDS; ++i) u.word[i] = SG_SHFL_IDX(0xffffffffu, u.word[i], src);
  return u.value;
}

// The combine of the tiles before `tile` (not 0), by the 32 work-items of
// the first warp, as cuda/lookback.cuh's sg_warp_lookback: lane l reads the
// status of tile end - l, the lanes spin while any status is missing (at
// most SG_SPIN rounds, then those still missing take the fallback), combine
// from the nearest INCLUSIVE one (or the whole window) in tile order, and
// move 32 tiles back while they found none.
SG_FN SG_T SG_NAME(sg_warp_lookback)(SG_GLOBAL unsigned char* workspace, ulong tile, SG_INPUTS in, ulong n) {
  const int lane = SG_THREAD() & 31;
  SG_T prefix = SG_IDENTITY();
  int have = 0;
  long end = (long)tile - 1;  // the nearest tile of the window
  for (;;) {
    const long pred = end - lane;
    SG_T v = SG_IDENTITY();
    uint flag = SG_FLAG_INCLUSIVE;  // before tile 0: nothing, and the look-back stops
    if (pred >= 0) flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
    for (int spin = 0; spin < SG_SPIN && SG_BALLOT(0xffffffffu, flag == SG_FLAG_INVALID); ++spin)
      if (flag == SG_FLAG_INVALID) flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
    if (flag == SG_FLAG_INVALID) flag = SG_NAME(sg_status_fallback)(workspace, (ulong)pred, &v, in, n);
    const uint inclusive = SG_BALLOT(0xffffffffu, flag == SG_FLAG_INCLUSIVE);
    const int stop = inclusive ? 31 - (int)clz(inclusive & (0u - inclusive)) : 31;
    // Lanes stop .. 0 in tile order, the farthest (highest lane) first.
    for (int d = 1; d < 32; d <<= 1) {
      const SG_T farther = SG_NAME(sg_lb_shfl_down)(v, (uint)d);
      if ((lane & (2 * d - 1)) == 0 && lane + d <= stop) v = SG_COMBINE(farther, v);
    }
    const SG_T window = SG_NAME(sg_lb_shfl_idx)(v, 0);
    prefix = have ? SG_COMBINE(window, prefix) : window;
    have = 1;
    if (inclusive) return prefix;
    end -= 32;
  }
}
#endif

SG_BEGIN(any_order)
// Collective over the work-group: publishes the tile's status and returns the
// combine of the tiles before it (the identity for tile 0, which the caller
// does not combine). With SG_WARP_LOOKBACK the first warp looks back;
// otherwise work-item 0 walks back one predecessor at a time. Either way no
// barrier inside the walk: a loop of barriers whose trip count depends on
// other work-groups is where compilers that turn a work-group into loops
// (PoCL's among them) go wrong.
SG_FN SG_T SG_NAME(sg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_LOCAL SG_NAME(temp)* temp,
                                   SG_GLOBAL unsigned char* workspace, ulong tile, SG_T total,
                                   SG_INPUTS in, ulong n) {
  (void)temp;
#if SG_WARP_LOOKBACK
  if (SG_THREAD() < 32) {
    SG_T prefix = SG_IDENTITY();
    if (tile == 0) {
      if (SG_THREAD() == 0) SG_NAME(sg_status_store)(workspace, 0, SG_FLAG_INCLUSIVE, total);
    } else {
      if (SG_THREAD() == 0) SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_AGGREGATE, total);
      SG_NAME(sg_first_poll_pause)(tile);
      prefix = SG_NAME(sg_warp_lookback)(workspace, tile, in, n);
      if (SG_THREAD() == 0) SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, SG_COMBINE(prefix, total));
    }
    if (SG_THREAD() == 0) shared->prefix = prefix;
  }
#else
  if (SG_THREAD() == 0) {
    SG_T prefix = SG_IDENTITY();
    if (tile == 0) {
      SG_NAME(sg_status_store)(workspace, 0, SG_FLAG_INCLUSIVE, total);
    } else {
      SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_AGGREGATE, total);
      SG_NAME(sg_first_poll_pause)(tile);
      long pred = (long)tile - 1;
      uint flag = SG_FLAG_INVALID;
      int have = 0;
      while (flag != SG_FLAG_INCLUSIVE) {
        SG_T v = SG_IDENTITY();
        flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
        for (int spin = 0; spin < SG_SPIN && flag == SG_FLAG_INVALID; ++spin)
          flag = SG_NAME(sg_status_load)(workspace, (ulong)pred, &v);
        if (flag == SG_FLAG_INVALID) flag = SG_NAME(sg_status_fallback)(workspace, (ulong)pred, &v, in, n);
        prefix = have ? SG_COMBINE(v, prefix) : v;  // the farther tile first
        have = 1;
        --pred;
      }
      SG_NAME(sg_status_store)(workspace, tile, SG_FLAG_INCLUSIVE, SG_COMBINE(prefix, total));
    }
    shared->prefix = prefix;
  }
#endif
  SG_BARRIER();
  return shared->prefix;
}
SG_END(any_order)
