// The geometry of a call of SG_P (shape = SG_SHAPE): the kernel, its blocks, the workspace, the
// kernel's shape arguments; false for a shape the scan refuses (a row stride below the length, a
// rank out of 1..4, an axis out of range, sizes beyond 64 bits, more than 2^31 - 1 blocks). The
// same rules as scangen's generator::shape_call.
struct SG_NAME(shape_call) {
  int axis_kernel;
  unsigned long long blocks, workspace_bytes, in_span, out_span, aggregates;
  unsigned long long rows, length, in_row_stride, out_row_stride, lanes;
  unsigned long long extent[4], in_stride[4], out_stride[4];
};
SG_LINKAGE bool SG_NAME(shape_mul)(unsigned long long a, unsigned long long b, unsigned long long* out) {
  if (b != 0 && a > ~0ull / b) return false;
  *out = a * b;
  return true;
}
SG_LINKAGE bool SG_NAME(shape_finish)(SG_NAME(shape_call)* c, unsigned long long tiles, unsigned long long statuses) {
  c->blocks = tiles > 0 ? tiles : 1;
  if (c->blocks > 2147483647ull) return false;
  unsigned long long bytes = 0;
  if (!SG_NAME(shape_mul)(statuses > 0 ? statuses : 1, SG_SHAPE_STATUS, &bytes) || bytes > ~0ull - 16) return false;
  c->workspace_bytes = 16 + bytes;
  return true;
}
SG_LINKAGE bool SG_NAME(shape_rows)(SG_NAME(shape_call)* c, unsigned long long rows, unsigned long long length,
                                    unsigned long long in_stride, unsigned long long out_stride) {
  if (in_stride == 0) in_stride = length;
  if (out_stride == 0) out_stride = in_stride;
  if (rows > 1 && (in_stride < length || out_stride < length)) return false;
  unsigned long long n = 0, in_last = 0, out_last = 0;
  if (!SG_NAME(shape_mul)(rows, length, &n)) return false;
  c->axis_kernel = 0;
  c->rows = rows;
  c->length = length;
  c->in_row_stride = in_stride;
  c->out_row_stride = out_stride;
  c->aggregates = rows;
  c->in_span = c->out_span = 0;
  if (n > 0) {
    if (!SG_NAME(shape_mul)(rows - 1, in_stride, &in_last) || !SG_NAME(shape_mul)(rows - 1, out_stride, &out_last))
      return false;
    if (in_last > ~0ull - length || out_last > ~0ull - length) return false;
    c->in_span = in_last + length;
    c->out_span = out_last + length;
  }
  const unsigned long long tiles = n / SG_SHAPE_TILE + (n % SG_SHAPE_TILE != 0 ? 1 : 0);
  return SG_NAME(shape_finish)(c, tiles, tiles);
}
SG_BEGIN(strided)
// Elements from the base that the walk over the four dimensions touches; false on overflow.
SG_LINKAGE bool SG_NAME(shape_span)(const unsigned long long* e, const unsigned long long* s, unsigned long long* span) {
  unsigned long long last = 0;
  for (int d = 0; d < 4; ++d) {
    if (e[d] == 0) {
      *span = 0;
      return true;
    }
    unsigned long long step = 0;
    if (!SG_NAME(shape_mul)(e[d] - 1, s[d], &step) || last > ~0ull - step) return false;
    last += step;
  }
  if (last == ~0ull) return false;
  *span = last + 1;
  return true;
}
// The lines' dimensions (0..2) as one row stride when they lie evenly; 0 when not.
SG_LINKAGE unsigned long long SG_NAME(shape_row_stride)(const unsigned long long* e, const unsigned long long* s) {
  unsigned long long row = 0, next = 0;
  for (int d = 2; d >= 0; --d) {
    if (e[d] <= 1) continue;
    if (row == 0)
      row = s[d];
    else if (s[d] != next)
      return 0;
    next = s[d] * e[d];
  }
  return row == 0 ? e[3] : row;
}
SG_LINKAGE bool SG_NAME(shape_strided)(SG_NAME(shape_call)* c, int rank, const uint64_t* extents,
                                       const uint64_t* in_strides, const uint64_t* out_strides, int axis) {
  if (rank < 1 || rank > 4 || axis < 0 || axis >= rank || extents == nullptr || in_strides == nullptr) return false;
  int k = 3 - (rank - 1);
  for (int d = 0; d < 4; ++d) c->extent[d] = 1, c->in_stride[d] = c->out_stride[d] = 0;
  for (int d = 0; d < rank; ++d) {
    const int to = d == axis ? 3 : k++;
    c->extent[to] = extents[d];
    c->in_stride[to] = in_strides[d];
    c->out_stride[to] = out_strides != nullptr ? out_strides[d] : in_strides[d];
  }
  unsigned long long lines = 0, total = 0;
  if (!SG_NAME(shape_mul)(c->extent[0], c->extent[1], &lines) || !SG_NAME(shape_mul)(lines, c->extent[2], &lines) ||
      !SG_NAME(shape_mul)(lines, c->extent[3], &total))
    return false;
  if (!SG_NAME(shape_span)(c->extent, c->in_stride, &c->in_span) ||
      !SG_NAME(shape_span)(c->extent, c->out_stride, &c->out_span))
    return false;
  const unsigned long long length = c->extent[3];
  const unsigned long long in_row = SG_NAME(shape_row_stride)(c->extent, c->in_stride);
  const unsigned long long out_row = SG_NAME(shape_row_stride)(c->extent, c->out_stride);
  if ((length <= 1 || (c->in_stride[3] == 1 && c->out_stride[3] == 1)) && in_row >= length && out_row >= length) {
    const unsigned long long in_span = c->in_span, out_span = c->out_span;
    if (!SG_NAME(shape_rows)(c, lines, length, in_row, out_row)) return false;
    c->in_span = in_span;
    c->out_span = out_span;
    return true;
  }
  c->axis_kernel = 1;
  c->aggregates = lines;
  unsigned long long lanes = 1;
  while (lanes < lines && lanes < 32 && lanes < SG_SHAPE_THREADS) lanes *= 2;
  c->lanes = lanes;
  const unsigned long long chunk = SG_SHAPE_THREADS / lanes * SG_SHAPE_ITEMS;
  const unsigned long long strips = lines / lanes + (lines % lanes != 0 ? 1 : 0);
  unsigned long long chunks = length / chunk + (length % chunk != 0 ? 1 : 0), tiles = 0, statuses = 0;
  if (chunks == 0) chunks = 1;
  if (!SG_NAME(shape_mul)(strips, chunks, &tiles) || !SG_NAME(shape_mul)(tiles, lanes, &statuses)) return false;
  return SG_NAME(shape_finish)(c, tiles, statuses);
}
SG_END(strided)
