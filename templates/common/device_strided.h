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
// strip and SG_ITEMS consecutive positions from (t / lanes) x SG_ITEMS. When
// the plan stages its I/O, the tile is read and written in striped order
// (element k = i x SG_THREADS + t of the tile, position k / lanes of line
// k % lanes, by thread t) and transposed through the exchange, so that a
// warp's accesses cover 32 consecutive elements of the tile: for the column
// scan of a row-major matrix of w columns, 32 / w consecutive rows (w < 32)
// or 128 consecutive bytes of a row (f32), whatever the width. Without the
// exchange (or with SCANGEN_SHAPE_ELEMENT_IO defined when the file is
// compiled), each thread reads and writes its own items, the threads of a
// warp neighbouring lines at once. Each thread scans its items;
// a scan over the block's threads with a step of `lanes` gives each its
// prefix within the chunk and each line the chunk's total. Across chunks,
// each line of a tile has a status of its own (status line x chunks +
// chunk): its first thread publishes the chunk's total, looks back along
// its line (one thread per line, one predecessor at a time; on OpenCL with
// bounded waits and the fallback of reducing that chunk itself) and
// publishes the inclusive prefix. Ticket order (strip-major) puts every
// chunk after the chunks before it on its line.
//
//   P_axis_kernel(in, outputs..., [aggregates], extent0..3, in_stride0..3, out_stride0..3, lanes, workspace)
//
// grid = max(1, ceil(lines / lanes) x ceil(extent3 / chunk)) blocks of
// SG_THREADS; with more than one, the workspace (16 bytes + a status per
// line of every tile) zeroed before the call.
//
// Needs: common/device_rows.h (the shared layout, the ticket, the empty rows).

// The combine of chunks 0 .. chunk - 1 of a line (statuses from `status0`),
// by one thread.
SG_FN SG_T SG_NAME(sg_line_lookback)(SG_GLOBAL unsigned char* workspace, scangen_u64 status0, scangen_u64 chunk,
                                     const SG_GLOBAL SG_IN* in, scangen_u64 base, scangen_u64 stride,
                                     scangen_u64 length, scangen_u64 depth) {
  SG_T prefix = SG_IDENTITY();
  long long pred = (long long)chunk - 1;
  unsigned int flag = SG_FLAG_INVALID;
  int have = 0;
  while (flag != SG_FLAG_INCLUSIVE) {
    SG_T v = SG_IDENTITY();
    flag = SG_NAME(sg_status_load)(workspace, status0 + (scangen_u64)pred, &v);
#ifdef SG_SPIN
    for (int spin = 0; spin < SG_SPIN && flag == SG_FLAG_INVALID; ++spin)
      flag = SG_NAME(sg_status_load)(workspace, status0 + (scangen_u64)pred, &v);
    if (flag == SG_FLAG_INVALID) {  // the fallback, as in opencl/lookback.cl
      const scangen_u64 from = (scangen_u64)pred * depth;
      const scangen_u64 to = from + depth < length ? from + depth : length;
      v = SG_CONVERT(in[base + from * stride]);
      for (scangen_u64 p = from + 1; p < to; ++p) v = SG_COMBINE(v, SG_CONVERT(in[base + p * stride]));
      mem_fence(CLK_GLOBAL_MEM_FENCE);
      SG_T published = SG_IDENTITY();
      flag = SG_NAME(sg_status_load)(workspace, status0 + (scangen_u64)pred, &published);
      if (flag != SG_FLAG_INVALID)
        v = published;
      else
        flag = pred == 0 ? SG_FLAG_INCLUSIVE : SG_FLAG_AGGREGATE;
    }
#else
    (void)in;
    (void)base;
    (void)stride;
    (void)length;
    (void)depth;
    while (flag == SG_FLAG_INVALID) flag = SG_NAME(sg_status_load)(workspace, status0 + (scangen_u64)pred, &v);
#endif
    prefix = have ? SG_COMBINE(v, prefix) : v;  // the farther chunk first
    have = 1;
    --pred;
  }
  return prefix;
}

// Element offset of line l's first element (dimensions 0..2).
SG_FN scangen_u64 SG_NAME(sg_line_base)(scangen_u64 l, scangen_u64 e1, scangen_u64 e2, scangen_u64 s0,
                                        scangen_u64 s1, scangen_u64 s2) {
  const scangen_u64 i2 = l % e2;
  l /= e2;
  return (l / e1) * s0 + (l % e1) * s1 + i2 * s2;
}

#if SG_STAGED_IO && !defined(SCANGEN_SHAPE_ELEMENT_IO)
#define SG_AXIS_STAGED 1
#else
#define SG_AXIS_STAGED 0
#endif

// This thread's SG_ITEMS positions start + slice x SG_ITEMS + i of its line
// (`base`, `stride` along the axis), the identity past `length` or off the
// lines (!valid): staged, in striped order through the exchange; else directly.
SG_FN void SG_NAME(sg_axis_load)(const SG_GLOBAL SG_IN* in, scangen_u64 base, scangen_u64 stride, int valid,
                                 scangen_u64 start, scangen_u64 length, int lanes, SG_T* items,
                                 SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes;
#if SG_AXIS_STAGED
  const int slices = SG_THREADS / lanes;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = start + (scangen_u64)(i * slices + slice);
    exchange[SG_XPAD(i * SG_THREADS + tid)] = valid && p < length ? SG_CONVERT(in[base + p * stride]) : SG_IDENTITY();
  }
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) items[i] = exchange[SG_XPAD((slice * SG_ITEMS + i) * lanes + lane)];
  SG_BARRIER();
#else
  (void)exchange;
  (void)lane;
  // Not unrolled: with #pragma unroll here and on the store, PoCL's build of
  // the kernel wrote past the output in the OpenCL shape sweep's column scans
  // (4095 x 2, axis 0).
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 p = start + (scangen_u64)(slice * SG_ITEMS + i);
    items[i] = valid && p < length ? SG_CONVERT(in[base + p * stride]) : SG_IDENTITY();
  }
#endif
}

// This thread's outputs (inclusive or exclusive) from its items and `acc`,
// the line's elements before its first item (`have`: there are some).
SG_FN void SG_NAME(sg_axis_outputs)(const SG_T* items, SG_T acc, int have, int inclusive, SG_T* out) {
#if SG_SEEDED
  const SG_T seed = SG_INIT();
#endif
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    if (!inclusive) {
#if SG_SEEDED
      out[i] = have ? SG_COMBINE(seed, acc) : seed;
#else
      out[i] = have ? acc : SG_IDENTITY();
#endif
    }
    acc = have ? SG_COMBINE(acc, items[i]) : items[i];
    have = 1;
    if (inclusive) {
#if SG_SEEDED
      out[i] = SG_COMBINE(seed, acc);
#else
      out[i] = acc;
#endif
    }
  }
}

// The outputs (`outputs` of them: out0, then out1; inclusive first), each
// computed right before it is written, from one call site (see sg_rows_store).
SG_FN void SG_NAME(sg_axis_store)(SG_GLOBAL SG_T* out0, SG_GLOBAL SG_T* out1, int outputs, scangen_u64 base,
                                  scangen_u64 stride, int valid, scangen_u64 start, scangen_u64 length, int lanes,
                                  const SG_T* items, SG_T acc, int have, SG_LOCAL SG_T* exchange) {
  const int tid = SG_THREAD(), lane = tid % lanes, slice = tid / lanes;
  SG_T values[SG_ITEMS];
  for (int o = 0; o < outputs; ++o) {
    SG_GLOBAL SG_T* out = o == 0 ? out0 : out1;
    SG_NAME(sg_axis_outputs)(items, acc, have, SG_INCLUSIVE_OUT && o == 0, values);
#if SG_AXIS_STAGED
    const int slices = SG_THREADS / lanes;
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) exchange[SG_XPAD((slice * SG_ITEMS + i) * lanes + lane)] = values[i];
    SG_BARRIER();
#pragma unroll
    for (int i = 0; i < SG_ITEMS; ++i) {
      const scangen_u64 p = start + (scangen_u64)(i * slices + slice);
      if (valid && p < length) out[base + p * stride] = exchange[SG_XPAD(i * SG_THREADS + tid)];
    }
    SG_BARRIER();
#else
    (void)exchange;
    (void)lane;
    for (int i = 0; i < SG_ITEMS; ++i) {  // not unrolled: see sg_axis_load
      const scangen_u64 p = start + (scangen_u64)(slice * SG_ITEMS + i);
      if (valid && p < length) out[base + p * stride] = values[i];
    }
#endif
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

SG_KERNEL SG_BOUNDS(SG_THREADS) void SG_NAME(axis_kernel)(
    const SG_GLOBAL SG_IN* in,
#if SG_INCLUSIVE_OUT
    SG_GLOBAL SG_T* inclusive,
#endif
#if SG_EXCLUSIVE_OUT
    SG_GLOBAL SG_T* exclusive,
#endif
#if SG_AGGREGATE_OUT
    SG_GLOBAL SG_T* aggregates,
#endif
    scangen_u64 extent0, scangen_u64 extent1, scangen_u64 extent2, scangen_u64 extent3, scangen_u64 in_stride0,
    scangen_u64 in_stride1, scangen_u64 in_stride2, scangen_u64 in_stride3, scangen_u64 out_stride0,
    scangen_u64 out_stride1, scangen_u64 out_stride2, scangen_u64 out_stride3, scangen_u64 lanes,
    SG_GLOBAL unsigned char* workspace) {
  SG_SHARED SG_NAME(sg_shape_shared) shared;
  SG_SHARED SG_ALIGN16 SG_T exchange[SG_EXCHANGE];
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
  const scangen_u64 strip = tile / chunks, chunk = tile % chunks;
  const int tid = SG_THREAD(), lane = tid % L, slice = tid / L;
  const scangen_u64 line = strip * lanes + (scangen_u64)lane;
  const int valid = line < lines;
SG_BEGIN(reverse)
  // reverse = true: position p of a line is its element length - 1 - p, the line read from its last element
  // with a step of -stride (unsigned: base + p x step wraps to the element's offset).
  const scangen_u64 in_last = (length - 1) * in_stride3, out_last = (length - 1) * out_stride3;
  in_stride3 = (scangen_u64)0 - in_stride3;
  out_stride3 = (scangen_u64)0 - out_stride3;
SG_END(reverse)
  const scangen_u64 in_base = valid ? SG_NAME(sg_line_base)(line, extent1, extent2, in_stride0, in_stride1, in_stride2)SG_BEGIN(reverse) + in_lastSG_END(reverse) : 0;
  SG_T items[SG_ITEMS];
  SG_NAME(sg_axis_load)(in, in_base, in_stride3, valid, chunk * depth, length, L, items, exchange);
  SG_T sum = items[0];
#pragma unroll
  for (int i = 1; i < SG_ITEMS; ++i) sum = SG_COMBINE(sum, items[i]);
  // The threads' totals scanned along each line (a step of `lanes`).
  shared.v[0][tid] = sum;
  SG_BARRIER();
  int src = 0;
  for (int d = 1; d < SG_THREADS; d <<= 1) {
    SG_T v = shared.v[src][tid];
    if (d < slices && slice >= d) v = SG_COMBINE(shared.v[src][tid - d * L], v);
    shared.v[1 - src][tid] = v;
    src = 1 - src;
    SG_BARRIER();
  }
  if (slice == 0 && chunks > 1) {
    const SG_T total = shared.v[src][(slices - 1) * L + lane];
    const scangen_u64 status0 = line * chunks;
    if (chunk == 0) {
      SG_NAME(sg_status_store)(workspace, status0, SG_FLAG_INCLUSIVE, total);
    } else {
      SG_NAME(sg_status_store)(workspace, status0 + chunk, SG_FLAG_AGGREGATE, total);
      const SG_T carry = SG_NAME(sg_line_lookback)(workspace, status0, chunk, in, in_base, in_stride3, length, depth);
      SG_NAME(sg_status_store)(workspace, status0 + chunk, SG_FLAG_INCLUSIVE, SG_COMBINE(carry, total));
      shared.carry[lane] = carry;
    }
  }
  SG_BARRIER();
  int have = chunk > 0;
  SG_T acc = have ? shared.carry[lane] : SG_IDENTITY();
  if (slice > 0) {
    const SG_T before = shared.v[src][tid - L];
    acc = have ? SG_COMBINE(acc, before) : before;
    have = 1;
  }
  const scangen_u64 out_base =
      valid ? SG_NAME(sg_line_base)(line, extent1, extent2, out_stride0, out_stride1, out_stride2)SG_BEGIN(reverse) + out_lastSG_END(reverse) : 0;
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
