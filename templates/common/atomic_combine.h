SG_FN SG_T SG_NAME(sg_atomic_combine)(SG_GLOBAL SG_T* counter, SG_T v) {
  return (SG_T)SG_ATOMIC((SG_ATOMIC_POINTER)counter, (SG_ATOMIC_TYPE)v);
}
