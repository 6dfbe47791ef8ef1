// Decoupled look-back, CUDA side: tile status words, the ticket, and the
// warp-wide look-back (Merrill & Garland): the first warp reads the
// statuses of 32 predecessors at once, waits until none is empty, combines
// from the nearest INCLUSIVE one (or the whole window) onwards in tile order,
// and moves 32 tiles back while it found none.
//
// Status of a tile, tagged with its flag and the call's epoch (tag =
// epoch << 2 | flag; a tag of another epoch, or flag 0, is not there yet):
//   SG_STATUS_WORD64 (element <= 4 bytes): one 64-bit word, value in the low half;
//   SG_STATUS_WORD128 (element <= 8 bytes): one 16-byte word {value, tag}, stored
//     and loaded with one 16-byte access;
//   SG_STATUS_TAG_THEN_WORDS (larger): a 32-bit tag, then a place for the aggregate and
//     one for the inclusive prefix (each written once per call); the value is
//     written before the tag is released, and read after it is acquired;
//   SG_STATUS_TAGGED_WORDS (larger, the tuning's tagged_words; OpenCL's layout): the
//     two places of 64-bit slots, each a 32-bit word of the value and the tag.
// Workspace: 16 bytes of header (the ticket), then the statuses; the host
// zeroes the header and the statuses of the call's tiles before each call,
// so a status is not there until this call publishes it. Flat scans
// (sg_take_tile_epoch, Plan::epoch_tags) need that only once: their header's
// first 8 bytes are the ticket counter (low half) and the call's epoch (high
// half, SG_EPOCH_MASK), taken with the ticket in one atomic; the last
// ticket's taker resets the counter and advances the epoch, so a status of
// an earlier call carries another epoch and is not taken for one of this
// call. The epoch comes round again after 2^30 calls: the host zeroes the
// workspace again before that (generator::kEpochCallsBeforeZero). Every
// other kernel tags with epoch 0, and its workspace is zeroed for each call.
//
// Needs: SG_STATUS_KIND (one of the four above), SG_STATUS_WORDS (32-bit words per value, tag then words),
// SG_LB_FIRST_POLL_NS, SG_LB_FIRST_POLL_FROM, SG_LB_POLL_NS (sleeps of the
// look-back, see the plan's tuning); SG_LB_STATUS_OPS, how statuses are
// published and read (the tuning's status_ops): SG_LB_OPS_EXCHANGE a status
// is published with an atomic exchange (WORD64; WORD128 on sm_90 and later:
// 128 bits; TAG_THEN_WORDS: its tag), WORD64 read with relaxed loads at GPU
// scope; SG_LB_OPS_RELAXED WORD64 stored with relaxed stores instead;
// SG_LB_OPS_VOLATILE volatile loads and stores for WORD64 and TAG_THEN_WORDS
// (0.89 of a copy for the i32 sum at 2^28 on an H100, 0.99 with the exchange;
// bench/RESULTS.md, "Statuses published by atomic exchange").
#define SG_FLAG_INVALID 0u
#define SG_FLAG_AGGREGATE 1u
#define SG_FLAG_INCLUSIVE 2u
#define SG_EPOCH_MASK 0x3fffffffu

typedef struct {
  unsigned long long tile;
  unsigned int epoch;  // the call's epoch (0 where the workspace is zeroed for each call)
  SG_T prefix;
} SG_NAME(sg_lookback_shared);

typedef union {
  SG_T value;
  unsigned int word[(sizeof(SG_T) + 3) / 4];
} SG_NAME(sg_status_value);

// A ticket; `last` is the call's last one (every block has then taken all of
// its own), whose taker resets the counter for the next call.
SG_FN unsigned long long SG_NAME(sg_take_ticket)(SG_GLOBAL unsigned char* workspace, unsigned long long last) {
  unsigned int* ticket = (unsigned int*)workspace;
  const unsigned int t = atomicAdd(ticket, 1u);
  if ((unsigned long long)t == last) atomicExch(ticket, 0u);
  return t;
}

// By one thread: the block's tile and the call's epoch in `shared` (a call of
// one tile takes no ticket and reads no status: tile 0, epoch 0). The ticket
// and the epoch come from one 64-bit atomic on the header's first word; the
// last ticket's taker (every block has then taken its own, with this epoch)
// writes the next epoch with the counter at 0.
SG_FN void SG_NAME(sg_take_tile_epoch)(SG_LOCAL SG_NAME(sg_lookback_shared) * shared, SG_GLOBAL unsigned char* workspace,
                                       unsigned long long tiles) {
  if (tiles == 1) {
    shared->tile = 0;
    shared->epoch = 0u;
    return;
  }
  unsigned long long* word = (unsigned long long*)workspace;
  const unsigned long long old = atomicAdd(word, 1ull);
  const unsigned long long t = old & 0xffffffffull;
  const unsigned int epoch = (unsigned int)(old >> 32) & SG_EPOCH_MASK;
  if (t == tiles - 1) atomicExch(word, (unsigned long long)((epoch + 1u) & SG_EPOCH_MASK) << 32);
  shared->tile = t;
  shared->epoch = epoch;
}

// Before a kernel reads anything (SG_LB_PDL, the tuning's pdl: 1): the wait
// for the kernel before it in the stream (griddepcontrol.wait, sm_90 and
// later). Launched as a programmatic dependent of the workspace's zeroing
// kernel (P_zero_workspace), the scan's blocks start while that kernel runs
// and wait here for its end; launched otherwise it returns at once.
SG_FN void SG_NAME(sg_wait_prior_grid)() {
#if SG_LB_PDL && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

SG_FN void SG_NAME(sg_status_put)(SG_GLOBAL unsigned char* workspace, unsigned long long tile, unsigned int flag,
                                  SG_T v, unsigned int epoch) {
#ifdef SCANGEN_TEST_SLEEP
  // Race hunting (tests only): about one tile in SCANGEN_TEST_SLEEP sleeps a
  // while before it publishes, so that its successors find it late.
  if (((tile * 2654435761ull) >> 7) % SCANGEN_TEST_SLEEP == 0) __nanosleep(20000);
#endif
  const unsigned int tag = (epoch << 2) | flag;
  SG_NAME(sg_status_value) u;
#pragma unroll
  for (int i = 0; i < (int)((sizeof(SG_T) + 3) / 4); ++i) u.word[i] = 0u;
  u.value = v;
#if SG_STATUS_KIND == SG_STATUS_WORD64
  unsigned long long* s = (unsigned long long*)(workspace + 16) + tile;
  const unsigned long long word = ((unsigned long long)tag << 32) | u.word[0];
#if SG_LB_STATUS_OPS == SG_LB_OPS_EXCHANGE
  atomicExch(s, word);
#elif SG_LB_STATUS_OPS == SG_LB_OPS_RELAXED
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(s), "l"(word) : "memory");
#else
  *(volatile unsigned long long*)s = word;
#endif
#elif SG_STATUS_KIND == SG_STATUS_WORD128
  unsigned long long* s = (unsigned long long*)(workspace + 16) + 2 * tile;
  unsigned long long lo = u.word[0];
  if (sizeof(SG_T) > 4) lo |= (unsigned long long)u.word[(sizeof(SG_T) + 3) / 4 - 1] << 32;
  const unsigned long long hi = tag;
  // One 16-byte access: a reader sees the old word or the new one, never half of each.
#if SG_LB_STATUS_OPS == SG_LB_OPS_EXCHANGE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .b128 sg_old, sg_new;\n\tmov.b128 sg_new, {%1, %2};\n\t"
      "atom.relaxed.gpu.global.exch.b128 sg_old, [%0], sg_new;\n\t}" ::"l"(s),
      "l"(lo), "l"(hi)
      : "memory");
#else
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(s), "l"(lo), "l"(hi) : "memory");
#endif
#elif SG_STATUS_KIND == SG_STATUS_TAGGED_WORDS
  // Each 32-bit word of the value beside the tag in a 64-bit slot of its
  // place (the aggregate's or the inclusive prefix's), each slot published by
  // an atomic exchange: a reader takes a place whose every slot carries its
  // tag, so no fence orders the words and the tag.
  unsigned long long* place =
      (unsigned long long*)(workspace + 16) + tile * (2 * SG_STATUS_WORDS) + (flag == SG_FLAG_INCLUSIVE ? SG_STATUS_WORDS : 0);
#pragma unroll
  for (int i = 0; i < SG_STATUS_WORDS; ++i) atomicExch(place + i, ((unsigned long long)tag << 32) | u.word[i]);
#else
  volatile unsigned int* slot = (volatile unsigned int*)(workspace + 16) + tile * (1 + 2 * SG_STATUS_WORDS);
  // The aggregate and the inclusive prefix have a place each, both written
  // once: a reader that saw one tag never reads a value being overwritten.
  volatile unsigned int* value = slot + 1 + (flag == SG_FLAG_INCLUSIVE ? SG_STATUS_WORDS : 0);
#pragma unroll
  for (int i = 0; i < SG_STATUS_WORDS; ++i) value[i] = u.word[i];
  __threadfence();  // the value before the tag
#if SG_LB_STATUS_OPS == SG_LB_OPS_EXCHANGE
  atomicExch((unsigned int*)slot, tag);
#else
  slot[0] = tag;
#endif
#endif
}

// The flag of `tile` (SG_FLAG_INVALID while it has published nothing in the
// call of `epoch`), and its value.
SG_FN unsigned int SG_NAME(sg_status_get)(SG_GLOBAL unsigned char* workspace, unsigned long long tile, SG_T* v,
                                          unsigned int epoch) {
  SG_NAME(sg_status_value) u;
#pragma unroll
  for (int i = 0; i < (int)((sizeof(SG_T) + 3) / 4); ++i) u.word[i] = 0u;
  unsigned int tag;
#if SG_STATUS_KIND == SG_STATUS_WORD64
#if SG_LB_STATUS_OPS != SG_LB_OPS_VOLATILE
  unsigned long long w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];"
               : "=l"(w)
               : "l"((unsigned long long*)(workspace + 16) + tile)
               : "memory");
#else
  const unsigned long long w = *((volatile unsigned long long*)(workspace + 16) + tile);
#endif
  tag = (unsigned int)(w >> 32);
  u.word[0] = (unsigned int)w;
#elif SG_STATUS_KIND == SG_STATUS_WORD128
  unsigned long long lo, hi;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];"
               : "=l"(lo), "=l"(hi)
               : "l"((unsigned long long*)(workspace + 16) + 2 * tile)
               : "memory");
  tag = (unsigned int)hi;
  u.word[0] = (unsigned int)lo;
  if (sizeof(SG_T) > 4) u.word[(sizeof(SG_T) + 3) / 4 - 1] = (unsigned int)(lo >> 32);
#elif SG_STATUS_KIND == SG_STATUS_TAGGED_WORDS
  // The inclusive prefix where its every slot carries its tag, else the
  // aggregate where its every slot does, else nothing yet.
  const unsigned long long* status = (const unsigned long long*)(workspace + 16) + tile * (2 * SG_STATUS_WORDS);
  tag = SG_FLAG_INVALID;
  for (unsigned int want = SG_FLAG_INCLUSIVE; want >= SG_FLAG_AGGREGATE && tag == SG_FLAG_INVALID; --want) {
    const unsigned long long* place = status + (want == SG_FLAG_INCLUSIVE ? SG_STATUS_WORDS : 0);
    unsigned int all = 1u;
#pragma unroll
    for (int i = 0; i < SG_STATUS_WORDS; ++i) {
      unsigned long long w;
      asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(place + i) : "memory");
      all &= (unsigned int)(w >> 32) == ((epoch << 2) | want) ? 1u : 0u;
      u.word[i] = (unsigned int)w;
    }
    if (all) tag = (epoch << 2) | want;
  }
#else
  const volatile unsigned int* slot = (volatile unsigned int*)(workspace + 16) + tile * (1 + 2 * SG_STATUS_WORDS);
  tag = slot[0];
  __threadfence();  // the tag before the value
  const volatile unsigned int* value =
      slot + 1 + (tag == ((epoch << 2) | SG_FLAG_INCLUSIVE) ? SG_STATUS_WORDS : 0);
#pragma unroll
  for (int i = 0; i < SG_STATUS_WORDS; ++i) u.word[i] = value[i];
#endif
  *v = u.value;
  return (tag >> 2) == epoch ? (tag & 3u) : SG_FLAG_INVALID;
}

// The same in a workspace zeroed for each call (epoch 0).
SG_FN void SG_NAME(sg_status_store)(SG_GLOBAL unsigned char* workspace, unsigned long long tile, unsigned int flag,
                                    SG_T v) {
  SG_NAME(sg_status_put)(workspace, tile, flag, v, 0u);
}
SG_FN unsigned int SG_NAME(sg_status_load)(SG_GLOBAL unsigned char* workspace, unsigned long long tile, SG_T* v) {
  return SG_NAME(sg_status_get)(workspace, tile, v, 0u);
}

// An element through a warp shuffle of all 32 lanes, 32-bit word by word:
// `how` 0 from the lane `arg` above (down), 1 from the lane `arg` below (up),
// 2 from lane `arg` (a constant at every call, so one shuffle a word remains).
SG_FN SG_T SG_NAME(sg_lb_shfl)(SG_T v, int how, unsigned int arg) {
  SG_NAME(sg_status_value) u;
#pragma unroll
  for (int i = 0; i < (int)((sizeof(SG_T) + 3) / 4); ++i) u.word[i] = 0u;
  u.value = v;
#pragma unroll
  for (int i = 0; i < (int)((sizeof(SG_T) + 3) / 4); ++i)
    u.word[i] = how == 0   ? __shfl_down_sync(0xffffffffu, u.word[i], arg)
                : how == 1 ? __shfl_up_sync(0xffffffffu, u.word[i], arg)
                           : __shfl_sync(0xffffffffu, u.word[i], (int)arg);
  return u.value;
}

SG_FN SG_T SG_NAME(sg_lb_shfl_down)(SG_T v, unsigned int delta) { return SG_NAME(sg_lb_shfl)(v, 0, delta); }
SG_FN SG_T SG_NAME(sg_lb_shfl_up)(SG_T v, unsigned int delta) { return SG_NAME(sg_lb_shfl)(v, 1, delta); }
SG_FN SG_T SG_NAME(sg_lb_shfl_idx)(SG_T v, int src) { return SG_NAME(sg_lb_shfl)(v, 2, (unsigned int)src); }

// The combine of the tiles before `tile` (not called for tile 0), by the 32
// lanes of the first warp, from the statuses of the call of `epoch`.
SG_FN SG_T SG_NAME(sg_warp_lookback_epoch)(SG_GLOBAL unsigned char* workspace, unsigned long long tile,
                                           unsigned int epoch) {
  const int lane = SG_THREAD() & 31;
  SG_T prefix = SG_IDENTITY();
  int have = 0;
  long long end = (long long)tile - 1;  // the nearest tile of the window; lane l reads end - l
  for (;;) {
    const long long pred = end - lane;
    SG_T v = SG_IDENTITY();
    unsigned int flag = SG_FLAG_INCLUSIVE;  // before tile 0: nothing, and the look-back stops
    if (pred >= 0) flag = SG_NAME(sg_status_get)(workspace, (unsigned long long)pred, &v, epoch);
    while (__any_sync(0xffffffffu, flag == SG_FLAG_INVALID)) {
      if (flag == SG_FLAG_INVALID) {
        if (SG_LB_POLL_NS > 0) __nanosleep(SG_LB_POLL_NS);
        flag = SG_NAME(sg_status_get)(workspace, (unsigned long long)pred, &v, epoch);
      }
    }
    const unsigned int inclusive = __ballot_sync(0xffffffffu, flag == SG_FLAG_INCLUSIVE);
    const int stop = inclusive ? __ffs((int)inclusive) - 1 : 31;
    // Lanes stop .. 0 in tile order, the farthest (highest lane) first.
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const SG_T farther = SG_NAME(sg_lb_shfl_down)(v, (unsigned int)d);
      if ((lane & (2 * d - 1)) == 0 && lane + d <= stop) v = SG_COMBINE(farther, v);
    }
    const SG_T window = SG_NAME(sg_lb_shfl_idx)(v, 0);
    prefix = have ? SG_COMBINE(window, prefix) : window;
    have = 1;
    if (inclusive) return prefix;
    end -= 32;
  }
}

// The same in a workspace zeroed for each call (epoch 0).
SG_FN SG_T SG_NAME(sg_warp_lookback)(SG_GLOBAL unsigned char* workspace, unsigned long long tile) {
  return SG_NAME(sg_warp_lookback_epoch)(workspace, tile, 0u);
}

SG_BEGIN(any_order)
// Collective over the block: publishes the tile's status and returns the
// combine of the tiles before it (the identity for tile 0, which the caller
// does not combine).
SG_FN SG_T SG_NAME(sg_tile_prefix)(SG_LOCAL SG_NAME(sg_lookback_shared)* shared, SG_LOCAL SG_NAME(temp)* temp,
                                   SG_GLOBAL unsigned char* workspace, unsigned long long tile, SG_T total,
                                   SG_INPUTS in, unsigned long long n) {
  (void)temp;
  (void)in;
  (void)n;
  const unsigned int epoch = shared->epoch;
  if (tile == 0) {
    if (SG_THREAD() == 0) SG_NAME(sg_status_put)(workspace, 0, SG_FLAG_INCLUSIVE, total, epoch);
    // No barrier follows here (cuda/dialect.cuh's SG_WARP_CONVERGE: the
    // segmented look-back with randomly sleeping tiles failed without it).
    SG_WARP_CONVERGE();
    return SG_IDENTITY();
  }
  if (SG_THREAD() < 32) {
    if (SG_THREAD() == 0) SG_NAME(sg_status_put)(workspace, tile, SG_FLAG_AGGREGATE, total, epoch);
    // The predecessors' statuses are seldom there at once: give them time
    // rather than read them again and again.
    // Not for the first tiles (SG_LB_FIRST_POLL_FROM): they start together,
    // and a small scan is all latency.
    if (SG_LB_FIRST_POLL_NS > 0 && tile >= SG_LB_FIRST_POLL_FROM) __nanosleep(SG_LB_FIRST_POLL_NS);
    const SG_T prefix = SG_NAME(sg_warp_lookback_epoch)(workspace, tile, epoch);
    if (SG_THREAD() == 0) {
      SG_NAME(sg_status_put)(workspace, tile, SG_FLAG_INCLUSIVE, SG_COMBINE(prefix, total), epoch);
      shared->prefix = prefix;
    }
  }
  SG_BARRIER();
  return shared->prefix;
}
SG_END(any_order)
