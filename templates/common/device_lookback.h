// Device level, decoupled_lookback: one launch. Each block takes a tile id
// from an atomic ticket, so a tile only ever waits on tiles whose blocks
// have started. It scans its tile, publishes the tile's total (AGGREGATE),
// finds its prefix by looking back over its predecessors' statuses (the
// backend's sg_tile_prefix), publishes the prefix and total (INCLUSIVE),
// and writes its outputs.
//
//   P_scan_kernel(in, outputs..., [aggregate], [running_total], n, workspace)
//
// grid = max(1, ceil(n / SG_TILE)) blocks of SG_THREADS. workspace: see the
// plan (sg_workspace_bytes); with more than one tile, its first
// sg_workspace_bytes(n) bytes zeroed before each call (a memset on the same
// stream), so no status of an earlier call, or anything else the memory
// held, is taken for one of this call.

SG_BEGIN(scatter)
// Fused outputs (Plan::scatter): for each output (section `scatter_output`:
// `scattered`, then the named ones), where
// P_scatter_if(x, i, exclusive, inclusive, n, prev, next) holds,
// P_scatter_value(...) is written to element P_scatter_at(...) of the
// output, a position >= n dropped. The input elements are read again (the
// tile has just read them: cache hits), with the one before and the one
// after them for the neighbours (prev, next: the element itself at the
// ends; loads the functions do not read are left out by the compiler).
// Section `scatter_striped` (Plan::scatter_striped, where the exchange holds
// the tile's results): the elements in the striped order, so that a warp's
// writes are coalesced where positions follow elements; else
// (`scatter_own`) each thread its own items, read again through the
// exchange (`scatter_staged`) or directly (`scatter_direct`, in 16-byte
// words where io.h reads words). This runs before the tile's results are
// stored, so they may overwrite the input when nothing reads a neighbour.
SG_FN void SG_NAME(sg_scatter)(const SG_GLOBAL SG_IN* in, scangen_u64 first, scangen_u64 n, SG_T prefix,
                               const SG_T* items, SG_LOCAL SG_T* exchange
SG_BEGIN(scatter_striped)
                               , SG_GLOBAL SG_T* inclusive, SG_GLOBAL SG_T* exclusive
SG_BEGIN(raw_tile)
                               , const SG_LOCAL SG_IN* raw
SG_END(raw_tile)
SG_END(scatter_striped)
SG_BEGIN(scatter_output)
                               , SG_GLOBAL SG_OUT* SG_SCATTERED
SG_END(scatter_output)
                               ) {
SG_BEGIN(scatter_striped)
  // The tile's exclusive results in element order in the exchange (padded),
  // each thread's last inclusive one after them (a thread's inclusive
  // result is its next item's exclusive one, bit for bit); then each
  // element in the striped order: consecutive threads, consecutive
  // elements, so a warp's writes land on consecutive positions where the
  // positions follow the elements (select, partition, run-length encoding),
  // and its reads of the input (again: cache hits) are coalesced. The
  // scan's own results are written here too, so the thread's items are
  // not kept for stores after it.
  SG_LOCAL SG_T* lasts = exchange + SG_XPAD(SG_BLOCK_ITEMS);
SG_BEGIN(raw_tile)
  (void)in;
SG_END(raw_tile)
  const int tid = SG_THREAD();
  SG_T running = prefix;  // as sg_items_from: exclusive, then inclusive
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k) {
    exchange[SG_XPAD(tid * SG_ITEMS + k)] = running;
    running = SG_COMBINE(running, items[k]);
  }
  lasts[tid] = running;
  SG_BARRIER();
#pragma unroll
  for (int c = 0; c < SG_ITEMS; ++c) {
    const int e = c * SG_BLOCK_THREADS + tid;
    const scangen_u64 i = first + (scangen_u64)e;
    if (i < n) {
SG_BEGIN(raw_tile)
      // The tile's inputs as the loads left them in shared memory (Plan::raw_tile).
      const SG_IN x = raw[SG_RAW_AT(e)];
      const SG_IN prev = i > 0 ? raw[SG_RAW_AT(e - 1)] : x;      // in[i - 1], or x at 0
      const SG_IN next = i + 1 < n ? raw[SG_RAW_AT(e + 1)] : x;  // in[i + 1], or x at n - 1
SG_END(raw_tile)
SG_BEGIN(raw_none)
      const SG_IN x = in[i];
      const SG_IN prev = i > 0 ? in[i - 1] : x;      // in[i - 1], or x at 0
      const SG_IN next = i + 1 < n ? in[i + 1] : x;  // in[i + 1], or x at n - 1
SG_END(raw_none)
      const SG_T before = exchange[SG_XPAD(e)];
      const SG_T after = e % SG_ITEMS == SG_ITEMS - 1 ? lasts[e / SG_ITEMS] : exchange[SG_XPAD(e + 1)];
      // The scan's own results (where their arrays are not null), after x is read: in place is safe.
      if (inclusive != 0) inclusive[i] = after;
      if (exclusive != 0) exclusive[i] = before;
      SG_NAME(sg_scatter_element)(x, i, before, after, n, prev, nextSG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
    }
  }
  SG_BARRIER();  // the stores reuse the exchange
SG_END(scatter_striped)
SG_BEGIN(scatter_own)
  SG_T inc[SG_ITEMS], exc[SG_ITEMS];
  SG_NAME(sg_items_from)(prefix, items, inc, exc);
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
  // xs[k + 1] is element mine + k; xs[0] and xs[SG_ITEMS + 1] the ones beside them (each read once).
  SG_IN xs[SG_ITEMS + 2];
SG_BEGIN(scatter_staged)
  SG_LOCAL SG_IN* raw = (SG_LOCAL SG_IN*)exchange;
  const int tid = SG_THREAD();
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k) {
    const int e = k * SG_BLOCK_THREADS + tid;
    if (first + (scangen_u64)e < n) raw[SG_XPAD(e)] = in[first + (scangen_u64)e];
  }
  SG_BARRIER();
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k)
    if (mine + (scangen_u64)k < n) xs[k + 1] = raw[SG_XPAD(tid * SG_ITEMS + k)];
  if (mine < n) {
    // The elements beside the thread's: the exchange's, or the tile's neighbours in global memory.
    xs[0] = tid > 0 ? raw[SG_XPAD(tid * SG_ITEMS - 1)] : mine > 0 ? in[mine - 1] : xs[1];
    xs[SG_ITEMS + 1] = mine + SG_ITEMS >= n                ? xs[1]  // unread: past n
                       : tid + 1 < SG_BLOCK_THREADS ? raw[SG_XPAD(tid * SG_ITEMS + SG_ITEMS)]
                                                    : in[mine + SG_ITEMS];
  }
  SG_BARRIER();  // the stores reuse the exchange
SG_END(scatter_staged)
SG_BEGIN(scatter_direct)
  (void)exchange;
#if SG_VEC_IN
  // A full, aligned block: the thread's elements in its 16-byte words (io.h's chunk), a quarter of the loads.
  if (first + SG_BLOCK_ITEMS <= n && ((unsigned long long)(in + first) & 15u) == 0) {
    SG_NAME(sg_chunk_in) u;
    const uint4* src = (const uint4*)(in + mine);
#pragma unroll
    for (int o = 0; o < SG_VEC_IN; ++o) u.v[o] = src[o];
#pragma unroll
    for (int k = 0; k < SG_ITEMS; ++k) xs[k + 1] = u.e[k];
  } else
#endif
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k)
    if (mine + (scangen_u64)k < n) xs[k + 1] = in[mine + (scangen_u64)k];
  if (mine < n) {
    xs[0] = mine > 0 ? in[mine - 1] : xs[1];
    xs[SG_ITEMS + 1] = mine + SG_ITEMS < n ? in[mine + SG_ITEMS] : xs[1];  // unread when past n
  }
SG_END(scatter_direct)
#pragma unroll
  for (int k = 0; k < SG_ITEMS; ++k) {
    const scangen_u64 i = mine + (scangen_u64)k;
    if (i < n) {
      const SG_IN x = xs[k + 1];
      const SG_IN prev = xs[k];                            // in[i - 1], or x at 0
      const SG_IN next = i + 1 < n ? xs[k + 2] : x;        // in[i + 1], or x at n - 1
      SG_NAME(sg_scatter_element)(x, i, exc[k], inc[k], n, prev, nextSG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
    }
  }
SG_END(scatter_own)
}

SG_END(scatter)
#if SG_MIN_BLOCKS > 0
SG_KERNEL SG_BOUNDS_MIN(SG_THREADS, SG_MIN_BLOCKS)
#else
SG_KERNEL SG_BOUNDS(SG_THREADS)
#endif
void SG_NAME(scan_kernel)(SG_PARAMS_scan_kernel) {
  SG_SHARED SG_NAME(temp) temp;
  SG_SHARED SG_NAME(sg_lookback_shared) shared;
#ifdef SG_DYNAMIC_EXCHANGE
  // CUDA: an exchange past the 48 KiB a block may declare, in the dynamic
  // shared memory its launch gives (Plan::dynamic_shared_bytes).
  extern __shared__ SG_ALIGN16 unsigned char sg_dynamic_shared[];
  SG_T* const exchange = (SG_T*)sg_dynamic_shared;
#else
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
#endif
SG_BEGIN(raw_tile)
  SG_SHARED SG_IN raw_tile[SG_RAW_SLOTS];  // the tile's inputs (Plan::raw_tile)
SG_END(raw_tile)
  const scangen_u64 tiles = SG_NAME(sg_tile_count)(n);
  SG_NAME(sg_wait_prior_grid)();
  // One tile takes no ticket: a call of one tile touches no workspace
  // memory it reads, and the host zeroes nothing for it. The ticket brings
  // the call's epoch (CUDA; the backend's look-back), which tags the statuses.
  if (SG_THREAD() == 0) SG_NAME(sg_take_tile_epoch)(&shared, workspace, tiles);
  SG_BARRIER();
  const scangen_u64 tile = shared.tile;
#if SG_RUNNING_TOTAL
SG_BEGIN(counter_by_last_tile)
  // Read before this tile publishes anything: the last tile writes it back
  // only after every tile has published.
SG_END(counter_by_last_tile)
SG_BEGIN(counter_by_last_group)
  // Read before this work-group counts itself done (sg_count_done): the
  // counter is written back only after every work-group has.
SG_END(counter_by_last_group)
  const SG_T seed = running_total[0];
#elif SG_SEEDED
  const SG_T seed = SG_INIT();
#endif

SG_BEGIN(unpacked)
  SG_T items[SG_ITEMS];
SG_BEGIN(one_input)
SG_BEGIN(raw_tile)
  SG_NAME(sg_load_raw)(in, tile * SG_TILE, n, items, raw_tile);
SG_END(raw_tile)
SG_BEGIN(raw_none)
  SG_NAME(sg_load)(in, tile * SG_TILE, n, items, exchange);
SG_END(raw_none)
SG_END(one_input)
SG_BEGIN(input_bundle)
  // The input arrays (io_inputs.h), for the loads and the look-back.
  const SG_NAME(sg_inputs) in = {SG_INPUT_LIST};
  SG_NAME(sg_load_inputs)(in, tile * SG_TILE, n, items, exchange);
SG_END(input_bundle)
  SG_T total;
  SG_T prefix = SG_NAME(sg_group_exclusive)(&temp, SG_NAME(sg_reduce_items)(items), &total);
SG_END(unpacked)
SG_BEGIN(packed)
  // The items stay in their 32-bit words (cuda/packed.cuh).
  SG_NAME(sg_packed) items;
  SG_NAME(sg_load_packed)(in, tile * SG_TILE, n, &items, exchange);
  SG_T total;
  SG_T prefix = SG_NAME(sg_group_exclusive)(&temp, SG_NAME(sg_reduce_packed)(&items), &total);
SG_END(packed)
  // The tiles before this one, without the seed (tile 0: none).
  const SG_T before = SG_NAME(sg_tile_prefix)(&shared, &temp, workspace, tile, total, in, n);
  if (tile > 0) prefix = SG_COMBINE(before, prefix);
#if SG_RUNNING_TOTAL || SG_SEEDED
  prefix = SG_COMBINE(seed, prefix);
#endif
SG_BEGIN(scatter_striped)
  // The fused outputs and the scan's own results in one pass (null arrays: not written).
  SG_GLOBAL SG_T* own_inclusive = 0;
  SG_GLOBAL SG_T* own_exclusive = 0;
#if SG_INCLUSIVE_OUT
  own_inclusive = inclusive;
#endif
#if SG_EXCLUSIVE_OUT
  own_exclusive = exclusive;
#endif
  SG_NAME(sg_scatter)(in, tile * SG_TILE, n, prefix, items, exchange, own_inclusive, own_exclusiveSG_BEGIN(raw_tile), raw_tileSG_END(raw_tile)SG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
SG_END(scatter_striped)
SG_BEGIN(scatter_own)
  SG_NAME(sg_scatter)(in, tile * SG_TILE, n, prefix, items, exchangeSG_BEGIN(scatter_output), SG_SCATTEREDSG_END(scatter_output));
  // The scan's own results are written unless their arrays are null (the
  // fused output instead of them); the pointers are the same in every thread.
#if SG_INCLUSIVE_OUT
  if (inclusive != 0) {
#else
  if (exclusive != 0) {
#endif
SG_END(scatter_own)
SG_BEGIN(own_stores)

SG_BEGIN(unpacked)
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_T inc[SG_ITEMS], exc[SG_ITEMS];
  SG_NAME(sg_items_from)(prefix, items, inc, exc);
  SG_NAME(sg_store_both)(inclusive, exclusive, tile * SG_TILE, n, inc, exc, exchange);
#elif SG_INCLUSIVE_OUT
  SG_T inc[SG_ITEMS];
  SG_NAME(sg_items_from)(prefix, items, inc, 0);
  SG_NAME(sg_store)(inclusive, tile * SG_TILE, n, inc, exchange);
#else
  SG_T exc[SG_ITEMS];
  SG_NAME(sg_items_from)(prefix, items, 0, exc);
  SG_NAME(sg_store)(exclusive, tile * SG_TILE, n, exc, exchange);
#endif
SG_END(unpacked)
SG_BEGIN(packed)
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_NAME(sg_packed) inc, exc;
  SG_NAME(sg_scan_packed)(prefix, &items, &inc, &exc);
  SG_NAME(sg_store_both_packed)(inclusive, exclusive, tile * SG_TILE, n, &inc, &exc, exchange);
#elif SG_INCLUSIVE_OUT
  SG_NAME(sg_packed) inc;
  SG_NAME(sg_scan_packed)(prefix, &items, &inc, 0);
  SG_NAME(sg_store_packed)(inclusive, tile * SG_TILE, n, &inc, exchange);
#else
  SG_NAME(sg_packed) exc;
  SG_NAME(sg_scan_packed)(prefix, &items, 0, &exc);
  SG_NAME(sg_store_packed)(exclusive, tile * SG_TILE, n, &exc, exchange);
#endif
SG_END(packed)
SG_END(own_stores)
SG_BEGIN(scatter_own)
  }
SG_END(scatter_own)

#if SG_AGGREGATE_OUT || SG_RUNNING_TOTAL
  if (tile == tiles - 1 && SG_THREAD() == 0) {
    const SG_T sum = tile > 0 ? SG_COMBINE(before, total) : total;
#if SG_AGGREGATE_OUT
    aggregate[0] = sum;
#endif
#if SG_RUNNING_TOTAL
SG_BEGIN(counter_by_last_tile)
    running_total[0] = SG_COMBINE(seed, sum);
SG_END(counter_by_last_tile)
SG_BEGIN(counter_by_last_group)
    if (tiles == 1) running_total[0] = SG_COMBINE(seed, sum);  // one work-group: none to overtake
SG_END(counter_by_last_group)
#endif
  }
#endif
SG_BEGIN(counter_by_last_group)
#if SG_RUNNING_TOTAL
  SG_NAME(sg_count_done)(workspace, tiles, seed, running_total);
#endif
SG_END(counter_by_last_group)
}
SG_BEGIN(zero_kernel)

// CUDA, Plan::zero_kernel: the workspace zeroed for a call (its first
// `words` 8-byte words: the ticket and the tiles' statuses) by a kernel in
// place of the host's memset. It lets the scan kernel, launched as its
// programmatic dependent, start at once (griddepcontrol.launch_dependents);
// the scan waits for its end (sg_wait_prior_grid) before it reads anything.
SG_KERNEL SG_BOUNDS(256)
void SG_NAME(zero_workspace)(scangen_u64 words, SG_GLOBAL unsigned long long* workspace) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const scangen_u64 step = (scangen_u64)gridDim.x * blockDim.x;
  for (scangen_u64 i = (scangen_u64)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += step) workspace[i] = 0ull;
}
SG_END(zero_kernel)
