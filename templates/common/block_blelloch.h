// Block level, blelloch: the work-efficient scan over the threads' partials
// (SG_THREADS a power of two): an up-sweep builds a reduction tree in place,
// the root is replaced by the identity, and a down-sweep pushes prefixes to
// the leaves. Node i lives at SG_PADDED(i), one spare slot every
// 2^SG_PAD_SHIFT nodes, so that the strided steps do not pile onto one
// memory bank.
//
// Needs: SG_THREADS, SG_PAD_SHIFT.

#define SG_PADDED(i) ((i) + ((i) >> SG_PAD_SHIFT))

typedef struct {
  SG_T tree[SG_THREADS + (SG_THREADS >> SG_PAD_SHIFT)];
  SG_T shared_value[1];
} SG_NAME(temp);

SG_FN SG_T SG_NAME(sg_group_exclusive)(SG_LOCAL SG_NAME(temp)* temp, SG_T partial, SG_T* aggregate) {
  const int tid = SG_THREAD();
  temp->tree[SG_PADDED(tid)] = partial;
  SG_BARRIER();
  // Up-sweep: node i (a right child) absorbs its left sibling i - d.
  for (int d = 1; d < SG_THREADS; d <<= 1) {
    const int i = (tid + 1) * 2 * d - 1;
    if (i < SG_THREADS) temp->tree[SG_PADDED(i)] = SG_COMBINE(temp->tree[SG_PADDED(i - d)], temp->tree[SG_PADDED(i)]);
    SG_BARRIER();
  }
  if (tid == 0) {
    temp->shared_value[0] = temp->tree[SG_PADDED(SG_THREADS - 1)];
    temp->tree[SG_PADDED(SG_THREADS - 1)] = SG_IDENTITY();
  }
  SG_BARRIER();
  // Down-sweep: a node holds the prefix before its subtree; its left child
  // gets that prefix, its right child the prefix followed by the left sum.
  for (int d = SG_THREADS / 2; d >= 1; d >>= 1) {
    const int i = (tid + 1) * 2 * d - 1;
    if (i < SG_THREADS) {
      const SG_T left = temp->tree[SG_PADDED(i - d)];
      const SG_T prefix = temp->tree[SG_PADDED(i)];
      temp->tree[SG_PADDED(i - d)] = prefix;
      temp->tree[SG_PADDED(i)] = SG_COMBINE(prefix, left);
    }
    SG_BARRIER();
  }
  const SG_T result = temp->tree[SG_PADDED(tid)];
  *aggregate = temp->shared_value[0];
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

#undef SG_PADDED
