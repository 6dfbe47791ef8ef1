// Device level, shape = strided, the axis kernel: every line along the
// axis of an N-d array scanned on its own, from init, in one launch. (A
// contiguous axis whose lines lie evenly goes to the rows kernel instead:
// common/device_rows.h; the host decides, generator::shape_call.)
//
// The array is given as four dimensions: 0..2 those of the lines (slowest
// first, extent 1 where the array has fewer), 3 the axis; extents and
// strides in elements, the outputs with strides of their own. Line
// l = (i0 x e1 + i1) x e2 + i2 (row-major over the other dimensions).
//
// A tile is `lanes` lines by a chunk of SG_THREADS / lanes x SG_ITEMS
// positions along the axis: thread t takes line t % lanes of the tile's
// strip and SG_ITEMS consecutive positions from (t / lanes) x SG_ITEMS. A
// tile of 32 lines is read and written that way: a warp's accesses of one
// item are the 32 lines side by side (for the column scan of a row-major
// matrix, 32 consecutive elements of a row). A tile of fewer lines, when the
// plan stages its I/O, is read and written in striped order instead
// (element k = i x SG_THREADS + t of the tile, position k / lanes of line
// k % lanes, by thread t) and transposed through the exchange, so that a
// warp's accesses still cover 32 consecutive elements of the tile (32 /
// lanes consecutive rows of a narrow matrix); without the exchange (or with
// SCANGEN_SHAPE_ELEMENT_IO defined when the file is compiled) every tile is
// read the first way. Each thread scans its items;
// a scan over the block's threads with a step of `lanes` gives each its
// prefix within the chunk and each line the chunk's total. Across chunks,
// each line of a tile has a status of its own, the statuses of a tile side
// by side (status (strip x chunks + chunk) x lanes + lane): the first
// thread of each line publishes the chunk's total, the whole block looks
// back along the tile's lines at once (each thread of a line reading
// another of its predecessors, so that one wait covers SG_THREADS / lanes
// chunks; on OpenCL with bounded waits and the fallback of reducing a chunk
// itself), and the first thread of each line publishes its inclusive
// prefix. Ticket order (strip-major) puts every chunk after the chunks
// before it on its line.
//
//   P_axis_kernel(in, outputs..., [aggregates], extent0..3, in_stride0..3, out_stride0..3, lanes, workspace)
//
// grid = max(1, ceil(lines / lanes) x ceil(extent3 / chunk)) blocks of
// SG_THREADS; with more than one, the workspace (16 bytes + a status per
// line of every tile) zeroed before the call.
//
// Needs: common/device_rows.h (the shared layout, the ticket, the empty rows).

// The status of chunk `pred` of this thread's line (index `slot`), waited
// for; on OpenCL with bounded waits and the fallback of reducing that chunk
// of the line itself (as in opencl/lookback.cl). Returns its flag.
SG_FN unsigned int SG_NAME(sg_axis_status)(SG_GLOBAL unsigned char* workspace, scangen_u64 slot, long long pred,
                                          const SG_GLOBAL SG_IN* in, scangen_u64 base, scangen_u64 stride,
                                          scangen_u64 length, scangen_u64 depth, SG_T* v) {
  unsigned int flag = SG_NAME(sg_status_load)(workspace, slot, v);
#ifdef SG_SPIN
  for (int spin = 0; spin < SG_SPIN && flag == SG_FLAG_INVALID; ++spin)
    flag = SG_NAME(sg_status_load)(workspace, slot, v);
  if (flag == SG_FLAG_INVALID) {
    const scangen_u64 from = (scangen_u64)pred * depth;
    const scangen_u64 to = from + depth < length ? from + depth : length;
    SG_T r = SG_CONVERT(in[base + from * stride]SG_BEGIN(indexed), SG_NAME(sg_place)(from, length)SG_END(indexed));
    for (scangen_u64 p = from + 1; p < to; ++p) r = SG_COMBINE(r, SG_CONVERT(in[base + p * stride]SG_BEGIN(indexed), SG_NAME(sg_place)(p, length)SG_END(indexed)));
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    flag = SG_NAME(sg_status_load)(workspace, slot, v);
    if (flag == SG_FLAG_INVALID) {
      *v = r;
      flag = pred == 0 ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE;
    }
  }
#else
  (void)pred;
  (void)in;
  (void)base;
  (void)stride;
  (void)length;
  (void)depth;
  while (flag == SG_FLAG_INVALID) {
    if (SG_LB_POLL_NS > 0) __nanosleep(SG_LB_POLL_NS);  // as the flat scans' look-back polls
    flag = SG_NAME(sg_status_load)(workspace, slot, v);
  }
#endif
  return flag;
}

// The look-back of every line of the tile at once, by the whole block: in
// each round, thread (slice s, lane l) reads the status of chunk
// window - s of line l, so that a round covers `slices` chunks of every line
// with one wait; the first thread of each line then combines its line's
// chunks from the nearest down to the nearest INCLUSIVE one. Rounds go on,
// `slices` chunks farther each, while a line has found none; a line that
// has found one reads no more. Returns, to the threads of slice 0, the
// combine of chunks 0 .. chunk - 1 of their line. Statuses lie tile by
// tile, a tile's lines side by side (`status0`: the first status of this
// strip's chunk 0), so that a round's reads are coalesced. `more`: two ints
// of shared memory, more[0] zero on entry.
SG_FN SG_T SG_NAME(sg_axis_lookback)(SG_LOCAL SG_NAME(sg_shape_shared)* shared, SG_LOCAL int* more,
                                     SG_GLOBAL unsigned char* workspace, scangen_u64 status0, scangen_u64 chunk,
                                     int lanes, int valid, const SG_GLOBAL SG_IN* in, scangen_u64 base,
                                     scangen_u64 stride, scangen_u64 length, scangen_u64 depth) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes, slices = SG_THREADS / lanes;
  SG_T prefix = SG_IDENTITY();
  int have = 0, round = 0, done = !valid;  // done: this thread's line has found its INCLUSIVE status
  long long window = (long long)chunk - 1;  // the nearest chunk of this round
  if (slice == 0) shared->f[1][lane] = 0;     // set by the line's first thread when it has found it
  for (;;) {
    const long long pred = window - slice;
    SG_T v = SG_IDENTITY();
    unsigned int flag = SG_FLAG_INVALID;
    if (!done && pred >= 0)
      flag = SG_NAME(sg_axis_status)(workspace, status0 + (scangen_u64)pred * (scangen_u64)lanes + (scangen_u64)lane,
                                     pred, in, base, stride, length, depth, &v);
    shared->v[0][tid] = v;
    shared->f[0][tid] = (int)flag;
    SG_BARRIER();
    if (tid == 0) more[(round + 1) & 1] = 0;  // read last in the round before this one
    if (slice == 0 && !done) {
      SG_T w = shared->v[0][lane];
      int found = shared->f[0][lane] == (int)SG_FLAG_INCLUSIVE;
      for (int s = 1; s < slices && !found && window - s >= 0; ++s) {
        w = SG_COMBINE(shared->v[0][s * lanes + lane], w);  // the farther chunk first
        found = shared->f[0][s * lanes + lane] == (int)SG_FLAG_INCLUSIVE;
      }
      prefix = have ? SG_COMBINE(w, prefix) : w;
      have = 1;
      if (found)
        shared->f[1][lane] = 1;
      else
        more[round & 1] = 1;
    }
    SG_BARRIER();
    if (!more[round & 1]) break;
    done = done || shared->f[1][lane];  // a line that has found it takes no part in later rounds
    window -= slices;
    ++round;
  }
  return prefix;
}

SG_BEGIN(fixed_order)
// The fixed-order look-back (common/lookback_fixed.h) of every line of the
// tile at once, by the whole block: a line's chunks are a chain (chunk j's
// node at status0 + j x lanes + lane). In each round thread (slice s, lane
// l) reads node w + s of line l's prefix, then the line's first thread folds
// the round's nodes in order and publishes the chunk's node once its
// children are folded (a chunk of even index: at once). The rounds are the
// same in every thread (the chunk is the tile's). Returns, to the threads of
// slice 0, the combine of chunks 0 .. chunk - 1 of their line (the identity
// for chunk 0; a line of one chunk publishes nothing). No fallback on OpenCL.
SG_FN SG_T SG_NAME(sg_axis_fixed)(SG_LOCAL SG_NAME(sg_shape_shared)* shared, SG_GLOBAL unsigned char* workspace,
                                  scangen_u64 status0, scangen_u64 chunks, scangen_u64 chunk, int lanes, int valid,
                                  SG_T total) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes, slices = SG_THREADS / lanes;
  const int children = SG_NAME(sg_fixed_children)(chunk), count = SG_NAME(sg_fixed_count)(chunk);
  const scangen_u64 base = status0 + (scangen_u64)lane, stride = (scangen_u64)lanes;
  SG_NAME(sg_fixed_acc) acc;
  acc.v = total;
  acc.head = 0;
  acc.have = 0;
  if (slice == 0 && valid && children == 0 && chunks > 1) SG_NAME(sg_fixed_publish)(workspace, base + chunk * stride, &acc, total, 0);
  // The children's rounds first: a chunk's node is published before the farther nodes are waited for.
  for (int w = 0, end = 0; w < count; w = end) {
    const int last = w < children ? children : count;
    end = w + slices < last ? w + slices : last;
    SG_T v = total;
    if (valid && w + slice < end)
      (void)SG_NAME(sg_fixed_wait)(workspace, base + SG_NAME(sg_fixed_node)(chunk, w + slice) * stride, &v);
    shared->v[0][tid] = v;
    SG_BARRIER();
    if (slice == 0 && valid) {
      for (int i = w; i < end; ++i) {
        SG_NAME(sg_fixed_fold)(&acc, shared->v[0][(i - w) * lanes + lane], 0);
        if (i + 1 == children) SG_NAME(sg_fixed_publish)(workspace, base + chunk * stride, &acc, total, 0);
      }
    }
    SG_BARRIER();
  }
  return acc.have ? acc.v : SG_IDENTITY();
}
SG_END(fixed_order)

// a / b and a % b (*r), in 32 bits where both fit (a 64-bit division is a
// long sequence of instructions on the GPU, run by every thread).
SG_FN scangen_u64 SG_NAME(sg_divmod)(scangen_u64 a, scangen_u64 b, scangen_u64* r) {
  if (((a | b) >> 32) == 0) {
    const unsigned int q = (unsigned int)a / (unsigned int)b;
    *r = (scangen_u64)((unsigned int)a - q * (unsigned int)b);
    return (scangen_u64)q;
  }
  const scangen_u64 q = a / b;
  *r = a - q * b;
  return q;
}

// Line l's indices along dimensions 0..2 (i[0] slowest), found once for the
// input's and the outputs' bases (sg_line_base).
SG_FN void SG_NAME(sg_line_index)(scangen_u64 l, scangen_u64 e1, scangen_u64 e2, scangen_u64* i) {
  l = SG_NAME(sg_divmod)(l, e2, &i[2]);
  i[0] = SG_NAME(sg_divmod)(l, e1, &i[1]);
}

// Element offset of the first element of the line of indices i (sg_line_index).
SG_FN scangen_u64 SG_NAME(sg_line_base)(const scangen_u64* i, scangen_u64 s0, scangen_u64 s1, scangen_u64 s2) {
  return i[0] * s0 + i[1] * s1 + i[2] * s2;
}

#if SG_STAGED_IO && !defined(SCANGEN_SHAPE_ELEMENT_IO)
#define SG_AXIS_STAGED 1
#else
#define SG_AXIS_STAGED 0
#endif
// The element I/O's loops: unrolled on CUDA; not on OpenCL, where with
// #pragma unroll on both PoCL's build of the kernel wrote past the output in
// the OpenCL shape sweep's column scans (4095 x 2, axis 0).
#ifdef __OPENCL_VERSION__
#define SG_AXIS_UNROLL
#else
#define SG_AXIS_UNROLL _Pragma("unroll")
#endif

#if SG_AXIS_STAGED
// A thread's SG_ITEMS items from the exchange of a staged narrow tile (lanes
// < 32), where sg_axis_load left them: position slice x SG_ITEMS + i of line
// `lane` at (slice x SG_ITEMS + i) x lanes + lane.
SG_FN void SG_NAME(sg_axis_take_staged)(int lanes, SG_T* items, SG_LOCAL const SG_T* exchange) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i] = exchange[SG_XPAD((slice * SG_ITEMS + i) * lanes + lane)];
}
#endif

// This thread's SG_ITEMS positions start + slice x SG_ITEMS + i of its line
// (`base`, `stride` along the axis), the identity past `length` or off the
// lines (!valid): staged, in striped order through the exchange; else directly.
// A thread off the lines is given a line's `base` all the same (the last
// line's), and reads it, its values unused: every address made is one of
// the array's, whichever branch a compiler takes it down. (PoCL made the
// loads of the full-chunk branch for a thread off the lines, whose base was
// 0, when that branch depended on `valid`: the reverse column scan read
// before the array and crashed.)
SG_FN void SG_NAME(sg_axis_load)(const SG_GLOBAL SG_IN* in, scangen_u64 base, scangen_u64 stride, int valid,
                                 scangen_u64 start, scangen_u64 length, int lanes, SG_T* items,
                                 SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes;
  // The chunk lies wholly in the line (the same in every thread of the tile): no checks, one address step an item.
  const int full = start + (scangen_u64)(SG_THREADS / lanes * SG_ITEMS) <= length;
#if SG_AXIS_STAGED
  if (lanes < 32) {  // else a warp's reads of an item are 32 lines side by side either way
    const int slices = SG_THREADS / lanes;
    if (full) {
      const SG_GLOBAL SG_IN* src = in + (scangen_i64)(base + (start + (scangen_u64)slice) * stride);
      const scangen_u64 step = (scangen_u64)slices * stride;
#pragma unroll
      for (int i = 0; i < SG_ITEMS; ++i) {
        const SG_T x = SG_CONVERT(src[(scangen_i64)((scangen_u64)i * step)]SG_BEGIN(indexed), SG_NAME(sg_place)(start + (scangen_u64)(i * slices + slice), length)SG_END(indexed));
        exchange[SG_XPAD(i * SG_THREADS + tid)] = valid ? x : SG_IDENTITY();
      }
    } else {
#pragma unroll
      for (int i = 0; i < SG_ITEMS; ++i) {
        const scangen_u64 p = start + (scangen_u64)(i * slices + slice);
        // A position past the line reads the line's last element instead (its value unused), so that
        // the load may be made unconditionally (PoCL did, and read before the array in reverse).
        const scangen_u64 q = p < length ? p : length - 1;
        const SG_T x = SG_CONVERT(in[base + q * stride]SG_BEGIN(indexed), SG_NAME(sg_place)(q, length)SG_END(indexed));
        exchange[SG_XPAD(i * SG_THREADS + tid)] = valid && p < length ? x : SG_IDENTITY();
      }
    }
    SG_BARRIER();
    SG_NAME(sg_axis_take_staged)(lanes, items, exchange);
    SG_BARRIER();
    return;
  }
#endif
  (void)exchange;
  (void)lane;
  if (full) {
    const SG_GLOBAL SG_IN* src = in + (scangen_i64)(base + (start + (scangen_u64)(slice * SG_ITEMS)) * stride);
    SG_AXIS_UNROLL
    for (int i = 0; i < SG_ITEMS; ++i) {
      const SG_T x = SG_CONVERT(src[(scangen_i64)((scangen_u64)i * stride)]SG_BEGIN(indexed), SG_NAME(sg_place)(start + (scangen_u64)(slice * SG_ITEMS + i), length)SG_END(indexed));
      items[i] = valid ? x : SG_IDENTITY();
    }
    return;
  }
  SG_AXIS_UNROLL
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = start + (scangen_u64)(slice * SG_ITEMS + i);
    const scangen_u64 q = p < length ? p : length - 1;  // as above
    const SG_T x = SG_CONVERT(in[base + q * stride]SG_BEGIN(indexed), SG_NAME(sg_place)(q, length)SG_END(indexed));
    items[i] = valid && p < length ? x : SG_IDENTITY();
  }
}

SG_BEGIN(fixed_order)
// deterministic = true, CUDA: this thread's items again after the
// fixed-order look-back, so that they are not held in registers across it
// (80 registers a thread at 3 blocks an SM spilled them): from the exchange
// where the load left them there (the staged narrow tiles), else from the
// array (the tile's own elements, read a moment before; no tile writes them
// but this one, later). OpenCL holds them: PoCL's build of the kernel with
// this reload gave wrong items in the narrow tiles (the OpenCL shape sweep's
// deterministic scans of 2 - 5 columns), NVIDIA's did not.
#ifndef __OPENCL_VERSION__
SG_FN void SG_NAME(sg_axis_reload)(const SG_GLOBAL SG_IN* in, scangen_u64 base, scangen_u64 stride, int valid,
                                   scangen_u64 start, scangen_u64 length, int lanes, SG_T* items,
                                   SG_LOCAL SG_T* exchange) {
#if SG_AXIS_STAGED
  if (lanes < 32) {  // the exchange as sg_axis_load left it
    SG_NAME(sg_axis_take_staged)(lanes, items, exchange);
    return;
  }
#endif
  SG_NAME(sg_axis_load)(in, base, stride, valid, start, length, lanes, items, exchange);
}
#endif

SG_END(fixed_order)
// The output (inclusive or exclusive) of the thread's next item `x`, from
// `acc`, the line's elements before it (`have`: there are some), which it
// then advances past `x`.
SG_FN SG_T SG_NAME(sg_axis_next)(SG_T x, SG_T* acc, int* have, int inclusive) {
#if SG_SEEDED
  const SG_T seed = SG_INIT();
  SG_T v = *have ? SG_COMBINE(seed, *acc) : seed;
#else
  SG_T v = *have ? *acc : SG_IDENTITY();
#endif
  *acc = *have ? SG_COMBINE(*acc, x) : x;
  *have = 1;
  if (inclusive) {
#if SG_SEEDED
    v = SG_COMBINE(seed, *acc);
#else
    v = *acc;
#endif
  }
  return v;
}

// The outputs (`outputs` of them: out0, then out1; inclusive first), each
// element computed right before it is written, from one call site (see sg_rows_store).
SG_FN void SG_NAME(sg_axis_store)(SG_GLOBAL SG_T* out0, SG_GLOBAL SG_T* out1, int outputs, scangen_u64 base,
                                  scangen_u64 stride, int valid, scangen_u64 start, scangen_u64 length, int lanes,
                                  const SG_T* items, SG_T acc, int have, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes;
  const int full = start + (scangen_u64)(SG_THREADS / lanes * SG_ITEMS) <= length;  // as in sg_axis_load
  for (int o = 0; o < outputs; ++o) {
    SG_GLOBAL SG_T* out = o == 0 ? out0 : out1;
    const int inclusive = SG_INCLUSIVE_OUT && o == 0;
    SG_T a = acc;  // each output computed as it is written: no array of them held
    int h = have;
#if SG_AXIS_STAGED
    if (lanes < 32) {  // as in sg_axis_load
      const int slices = SG_THREADS / lanes;
#pragma unroll
      for (int i = 0; i < SG_ITEMS; ++i)
        exchange[SG_XPAD((slice * SG_ITEMS + i) * lanes + lane)] = SG_NAME(sg_axis_next)(items[i], &a, &h, inclusive);
      SG_BARRIER();
      if (full) {
        SG_GLOBAL SG_T* dst = out + (scangen_i64)(base + (start + (scangen_u64)slice) * stride);
        const scangen_u64 step = (scangen_u64)slices * stride;
        if (valid) {
#pragma unroll
          for (int i = 0; i < SG_ITEMS; ++i) dst[(scangen_i64)((scangen_u64)i * step)] = exchange[SG_XPAD(i * SG_THREADS + tid)];
        }
      } else {
#pragma unroll
        for (int i = 0; i < SG_ITEMS; ++i) {
          const scangen_u64 p = start + (scangen_u64)(i * slices + slice);
          if (valid && p < length) out[base + p * stride] = exchange[SG_XPAD(i * SG_THREADS + tid)];
        }
      }
      SG_BARRIER();
      continue;
    }
#endif
    (void)exchange;
    (void)lane;
    // A thread off the lines stores nothing: one branch around its loop
    // rather than a condition on every store (which became a branch an item).
    if (!valid) continue;
    if (full) {
      SG_GLOBAL SG_T* dst = out + (scangen_i64)(base + (start + (scangen_u64)(slice * SG_ITEMS)) * stride);
      SG_AXIS_UNROLL
      for (int i = 0; i < SG_ITEMS; ++i)
        dst[(scangen_i64)((scangen_u64)i * stride)] = SG_NAME(sg_axis_next)(items[i], &a, &h, inclusive);
      continue;
    }
    SG_AXIS_UNROLL
    for (int i = 0; i < SG_ITEMS; ++i) {
      const scangen_u64 p = start + (scangen_u64)(slice * SG_ITEMS + i);
      const SG_T v = SG_NAME(sg_axis_next)(items[i], &a, &h, inclusive);
      if (p < length) out[base + p * stride] = v;
    }
  }
}

#if SG_AGGREGATE_OUT
// The line's total, by the thread that holds its last position.
SG_FN void SG_NAME(sg_axis_aggregate)(SG_GLOBAL SG_T* aggregates, scangen_u64 line, const SG_T* items, SG_T acc,
                                      int have, scangen_u64 pos, scangen_u64 length) {
  if (pos >= length || length - pos > SG_ITEMS) return;
  for (int i = 0; i < SG_ITEMS; ++i) {
    acc = have ? SG_COMBINE(acc, items[i]) : items[i];
    have = 1;
    if (pos + (scangen_u64)i + 1 == length) aggregates[line] = acc;
  }
}
#endif

SG_KERNEL SG_SHAPE_BOUNDS void SG_NAME(axis_kernel)(SG_PARAMS_axis_kernel) {
  SG_SHARED SG_NAME(sg_shape_shared) shared;
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
SG_BEGIN(any_order)
  SG_SHARED int more[2];  // the look-back's rounds
SG_END(any_order)
  const scangen_u64 lines = extent0 * extent1 * extent2, length = extent3;
  if (lines == 0 || length == 0) {
#if SG_AGGREGATE_OUT
    SG_NAME(sg_empty_rows)(aggregates, lines);
#endif
    return;
  }
  const int L = (int)lanes, slices = SG_THREADS / (int)lanes;
  const scangen_u64 depth = (scangen_u64)slices * SG_ITEMS;
  const scangen_u64 chunks = (length + depth - 1) / depth, strips = (lines + lanes - 1) / lanes;
  const scangen_u64 tile = SG_NAME(sg_shape_ticket)(&shared, workspace, strips * chunks);
  scangen_u64 chunk = 0;
  const scangen_u64 strip = SG_NAME(sg_divmod)(tile, chunks, &chunk);
  const int tid = SG_THREAD(), lane = tid % L, slice = tid / L;
  const scangen_u64 line = strip * lanes + (scangen_u64)lane;
  const int valid = line < lines;
SG_BEGIN(reverse)
  // reverse = true: position p of a line is its element length - 1 - p, the line read from its last element
  // with a step of -stride (unsigned: base + p x step wraps to the element's offset; a pointer moves by that
  // sum or step taken as signed, never by a wrapped unsigned one, whose pointer arithmetic PoCL's compiler
  // took at its word and read outside the array).
  const scangen_u64 in_last = (length - 1) * in_stride3, out_last = (length - 1) * out_stride3;
  in_stride3 = (scangen_u64)0 - in_stride3;
  out_stride3 = (scangen_u64)0 - out_stride3;
SG_END(reverse)
  // A thread off the lines takes the last line's bases (see sg_axis_load).
  const scangen_u64 line_at = valid ? line : lines - 1;
  scangen_u64 index[3];
  SG_NAME(sg_line_index)(line_at, extent1, extent2, index);
  const scangen_u64 in_base = SG_NAME(sg_line_base)(index, in_stride0, in_stride1, in_stride2)SG_BEGIN(reverse) + in_lastSG_END(reverse);
  SG_T items[SG_ITEMS];
  SG_NAME(sg_axis_load)(in, in_base, in_stride3, valid, chunk * depth, length, L, items, exchange);
  SG_T sum = items[0];
#pragma unroll
  for (int i = 1; i < SG_ITEMS; ++i) sum = SG_COMBINE(sum, items[i]);
  // The threads' totals scanned along each line (a step of `lanes`): this
  // thread's elements of the chunk before its items, and the line's chunk
  // total. With 8 slices or fewer, each thread folds the slices' totals of its
  // line in order itself (one barrier); else a scan by doubling steps.
  shared.v[0][tid] = sum;
  SG_BARRIER();
  // (The barriers are in a loop the same in every thread, not under a
  // condition: see the fixed-order look-back below.)
  const int doubling = slices > 8;
  int src = 0;
  for (int d = 1; doubling && d < slices; d <<= 1) {
    SG_T v = shared.v[src][tid];
    if (slice >= d) v = SG_COMBINE(shared.v[src][tid - d * L], v);
    shared.v[1 - src][tid] = v;
    src = 1 - src;
    SG_BARRIER();
  }
  SG_T before = SG_IDENTITY(), total;
  if (doubling) {
    if (slice > 0) before = shared.v[src][tid - L];
    total = shared.v[src][(slices - 1) * L + lane];
  } else {
    total = shared.v[0][lane];
    for (int s = 1; s < slices; ++s) {
      if (s == slice) before = total;
      total = SG_COMBINE(total, shared.v[0][s * L + lane]);
    }
  }
  // Then the shared buffers are free for the look-back.
SG_BEGIN(any_order)
  if (tid == 0) more[0] = 0;
SG_END(any_order)
  SG_BARRIER();
SG_BEGIN(fixed_order)
  {
    // Every tile, one chunk or many (a barrier under a condition, even one the same for the whole work-group,
    // made PoCL leave out parts of a work-group); statuses as below.
    const SG_T carry = SG_NAME(sg_axis_fixed)(&shared, workspace, strip * chunks * lanes, chunks, chunk, L, valid, total);
    if (slice == 0 && valid) shared.carry[lane] = carry;
    SG_BARRIER();
  }
#ifndef __OPENCL_VERSION__
  SG_NAME(sg_axis_reload)(in, in_base, in_stride3, valid, chunk * depth, length, L, items, exchange);
#endif
SG_END(fixed_order)
SG_BEGIN(any_order)
  if (chunks > 1) {
    // Statuses tile by tile, the tile's lines side by side: (strip x chunks + chunk) x lanes + lane.
    const scangen_u64 status0 = strip * chunks * lanes;
    if (slice == 0 && valid)
      SG_NAME(sg_status_store)(workspace, status0 + chunk * lanes + (scangen_u64)lane,
                               chunk == 0 ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE, total);
    if (chunk > 0) {  // the same in every thread of the tile
#ifdef SCANGEN_AXIS_ABLATE_LOOKBACK
      const SG_T carry = SG_IDENTITY();  // measurements only: wrong results
#else
      const SG_T carry = SG_NAME(sg_axis_lookback)(&shared, more, workspace, status0, chunk, L, valid, in, in_base,
                                                   in_stride3, length, depth);
#endif
      if (slice == 0 && valid) {
        SG_NAME(sg_status_store)(workspace, status0 + chunk * lanes + (scangen_u64)lane, SG_FLAG_INCLUSIVE,
                                 SG_COMBINE(carry, total));
        shared.carry[lane] = carry;
      }
      SG_BARRIER();
    }
  }
SG_END(any_order)
  int have = chunk > 0;
  SG_T acc = have ? shared.carry[lane] : SG_IDENTITY();
  if (slice > 0) {
    acc = have ? SG_COMBINE(acc, before) : before;
    have = 1;
  }
  const scangen_u64 out_base =
      SG_NAME(sg_line_base)(index, out_stride0, out_stride1, out_stride2)SG_BEGIN(reverse) + out_lastSG_END(reverse);
#if SG_AGGREGATE_OUT
  if (valid)
    SG_NAME(sg_axis_aggregate)(aggregates, line, items, acc, have, chunk * depth + (scangen_u64)slice * SG_ITEMS,
                               length);
#endif
#if SG_INCLUSIVE_OUT
  SG_GLOBAL SG_T* const out0 = inclusive;
#else
  SG_GLOBAL SG_T* const out0 = exclusive;
#endif
#if SG_INCLUSIVE_OUT && SG_EXCLUSIVE_OUT
  SG_GLOBAL SG_T* const out1 = exclusive;
#else
  SG_GLOBAL SG_T* const out1 = out0;
#endif
  SG_NAME(sg_axis_store)(out0, out1, SG_INCLUSIVE_OUT + SG_EXCLUSIVE_OUT, out_base, out_stride3, valid, chunk * depth,
                         length, L, items, acc, have, exchange);
}
#undef SG_AXIS_STAGED
#undef SG_AXIS_UNROLL
#undef SG_SHAPE_MIN_BLOCKS_USED
#undef SG_SHAPE_BOUNDS
