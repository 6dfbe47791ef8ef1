SG_BEGIN(atomic_native)
SG_FN SG_T SG_NAME(sg_atomic_combine)(SG_GLOBAL SG_T* counter, SG_T v) {
  return (SG_T)SG_ATOMIC((SG_ATOMIC_POINTER)counter, (SG_ATOMIC_TYPE)v);
}
SG_END(atomic_native)
SG_BEGIN(atomic_cas)
// Any operator on an element of 4 or 8 bytes (cooperative groups'
// *_scan_update on a cuda::atomic<T>): the counter's bits are swapped for
// those of counter . v, from the value last seen, until no other group
// changed them in between. Returns the value combined with.
typedef union {
  SG_T t;
  SG_ATOMIC_TYPE w;
} SG_NAME(sg_counter_bits);
typedef char SG_NAME(sg_counter_bits_fit)[sizeof(SG_T) == sizeof(SG_ATOMIC_TYPE) ? 1 : -1];

SG_FN SG_T SG_NAME(sg_atomic_combine)(SG_GLOBAL SG_T* counter, SG_T v) {
  SG_ATOMIC_POINTER word = (SG_ATOMIC_POINTER)counter;
  SG_NAME(sg_counter_bits) seen, next;
  seen.w = *word;
  for (;;) {
    next.w = seen.w;  // every byte set (padding too) before the element is
    next.t = SG_COMBINE(seen.t, v);
    const SG_ATOMIC_TYPE was = SG_ATOMIC(word, seen.w, next.w);
    if (was == seen.w) return seen.t;
    seen.w = was;
  }
}
SG_END(atomic_cas)
