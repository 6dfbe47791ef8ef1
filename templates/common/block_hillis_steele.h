// Block level, hillis_steele: the classic double-buffered scan over the
// threads' partials in shared/local memory, log2(SG_THREADS) steps of one
// barrier each; any thread count.
//
// Needs: SG_THREADS.

typedef struct {
  SG_T buffer[2 * SG_THREADS];
  SG_T shared_value[1];
} SG_NAME(temp);

SG_FN SG_T SG_NAME(sg_group_exclusive)(SG_LOCAL SG_NAME(temp)* temp, SG_T partial, SG_T* aggregate) {
  const int tid = SG_THREAD();
  int from = 0;
  temp->buffer[tid] = partial;
  SG_BARRIER();
  for (int d = 1; d < SG_THREADS; d <<= 1) {
    const int to = SG_THREADS - from;
    SG_T x = temp->buffer[from + tid];
    if (tid >= d) x = SG_COMBINE(temp->buffer[from + tid - d], x);
    temp->buffer[to + tid] = x;
    SG_BARRIER();
    from = to;
  }
  const SG_T result = tid > 0 ? temp->buffer[from + tid - 1] : SG_IDENTITY();
  *aggregate = temp->buffer[from + SG_THREADS - 1];
  SG_BARRIER();  // the scratch may be reused at once
  return result;
}

SG_FN SG_T SG_NAME(sg_group_broadcast)(SG_LOCAL SG_NAME(temp)* temp, SG_T v, int src) {
  if (SG_THREAD() == src) temp->shared_value[0] = v;
  SG_BARRIER();
  const SG_T r = temp->shared_value[0];
  SG_BARRIER();
  return r;
}

SG_FN int SG_NAME(sg_group_rank)(void) { return SG_THREAD(); }
