// Segmented scans: the pair the tiles scan, (heads, value), where heads
// counts the segment starts of the pair's range. The segmented operator is
// built from the scan's own (SG_VALUE_COMBINE, x the earlier element):
//
//   combine((ha, a), (hb, b)) = (ha + hb, hb ? b : a . b)
//
// associative whenever the scan's operator is; its identity is (0, identity).
// The count saturates at 2^32 - 1, which keeps it associative and nonzero
// wherever a start lies in the range.
//
// Needs: SG_VALUE_T, SG_VALUE_COMBINE, SG_VALUE_IDENTITY, SG_VALUE_INIT,
// SG_VALUE_CONVERT, SG_IN.

typedef struct {
  SG_VALUE_T value;
  unsigned int heads;
} SG_NAME(seg);

SG_FN SG_NAME(seg) SG_NAME(seg_make)(unsigned int heads, SG_VALUE_T value) {
  SG_NAME(seg) r;
  r.value = value;
  r.heads = heads;
  return r;
}

SG_FN SG_NAME(seg) SG_NAME(seg_combine)(SG_NAME(seg) x, SG_NAME(seg) y) {
  const unsigned int sum = x.heads + y.heads;
  return SG_NAME(seg_make)(sum < x.heads ? 0xffffffffu : sum,
                           y.heads ? y.value : SG_VALUE_COMBINE(x.value, y.value));
}

SG_FN SG_NAME(seg) SG_NAME(seg_identity)(void) { return SG_NAME(seg_make)(0u, SG_VALUE_IDENTITY()); }

// Seeds only the scans that the kernel does not use (api.h's); the kernel
// restarts each segment at SG_VALUE_INIT itself.
SG_FN SG_NAME(seg) SG_NAME(seg_init)(void) { return SG_NAME(seg_make)(0u, SG_VALUE_INIT()); }

// An input element, not yet known to start a segment (with convert(v, i),
// its index in the array too).
SG_FN SG_NAME(seg) SG_NAME(seg_convert)(SG_IN vSG_BEGIN(indexed), scangen_u64 iSG_END(indexed)) {
  return SG_NAME(seg_make)(0u, SG_VALUE_CONVERT(vSG_BEGIN(indexed), iSG_END(indexed)));
}
