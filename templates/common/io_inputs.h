// Input arrays (Plan::input_arrays, `input = T1, T2, ...;` or `input =
// none;`): the loads of a flat, forward device scan whose elements convert
// builds from element i of each array and, when it takes it, i. Each array is
// loaded as io.h loads the one input: coalesced, through the exchange, in
// 16-byte words where a thread's items fill them (section input_array, one
// repetition per array: SG_INPUT_T its type, SG_INPUT_NAME its kernel
// parameter, SG_INPUT_WORDS its words per thread, SG_INPUT_STAGED whether the
// exchange holds it, else each thread reads its own, SG_INPUT_OFFSET its
// bytes' place in the exchange); all arrays side by side where they fit
// (Plan::arrays_together), else one after another. Then each thread converts
// its items in registers. With no array, convert takes the index alone (or
// nothing) and nothing is read.
//
// Needs: common/io.h (SG_BLOCK_ITEMS, SG_XPAD; sg_word_at and SG_LOAD_WORD,
// which it defines where SG_ARRAY_WORDS says some array is read in words).

// The arrays, passed as one value to the loads and the look-back.
typedef struct {
SG_BEGIN(input_array)
  const SG_GLOBAL SG_INPUT_T* SG_INPUT_NAME;
SG_END(input_array)
SG_BEGIN(no_array)
  int none;  // no input array
SG_END(no_array)
} SG_NAME(sg_inputs);

// Element i, converted (OpenCL's look-back fallback reduces a tile with it).
SG_FN SG_T SG_NAME(sg_input_at)(SG_NAME(sg_inputs) in, scangen_u64 i) {
  (void)in;
  (void)i;
  return SG_CONVERT(SG_INPUT_AT);
}

SG_BEGIN(input_array)
#if SG_INPUT_WORDS
// Array SG_INPUT_NAME's words of a full, aligned block (`src`, its first) into
// `words` of the exchange, in coalesced order, each chunk's words permuted as
// io.h's (sg_word_at).
SG_FN void SG_INPUT_PUT(const uint4* src, SG_LOCAL uint4* words) {
  const int tid = SG_THREAD();
#pragma unroll
  for (int i = 0; i < SG_INPUT_WORDS; ++i) {
    const int w = i * SG_BLOCK_THREADS + tid;
    words[SG_NAME(sg_word_at)(w / SG_INPUT_WORDS, w % SG_INPUT_WORDS, SG_INPUT_WORDS)] = SG_LOAD_WORD(src + w);
  }
}

// This thread's chunk of those words, after a barrier: its SG_ITEMS elements.
SG_FN void SG_INPUT_GET(SG_INPUT_T* raw, SG_LOCAL uint4* words) {
  const int tid = SG_THREAD();
  union {
    uint4 v[SG_INPUT_WORDS];
    SG_INPUT_T e[SG_ITEMS];
  } u;
#pragma unroll
  for (int o = 0; o < SG_INPUT_WORDS; ++o) u.v[o] = words[SG_NAME(sg_word_at)(tid, o, SG_INPUT_WORDS)];
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) raw[i] = u.e[i];
}
#endif

SG_END(input_array)
SG_BEGIN(input_array)
// This thread's SG_ITEMS elements of array SG_INPUT_NAME (blocked arrangement) of
// the block's first .. first + SG_BLOCK_ITEMS - 1; those past n are left unset.
SG_FN void SG_INPUT_LOAD(const SG_GLOBAL SG_INPUT_T* in, scangen_u64 first, scangen_u64 n, SG_INPUT_T* raw,
                         SG_LOCAL SG_T* exchange) {
#if SG_INPUT_STAGED
  const int tid = SG_THREAD();
#if SG_INPUT_WORDS
  if (first + SG_BLOCK_ITEMS <= n && ((unsigned long long)(in + first) & 15u) == 0) {
    SG_INPUT_PUT((const uint4*)(in + first), (SG_LOCAL uint4*)exchange);
    SG_BARRIER();
    SG_INPUT_GET(raw, (SG_LOCAL uint4*)exchange);
    SG_BARRIER();  // the exchange may be reused at once
    return;
  }
#endif
  SG_LOCAL SG_INPUT_T* slots = (SG_LOCAL SG_INPUT_T*)exchange;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const int k = i * SG_BLOCK_THREADS + tid;
    if (first + (scangen_u64)k < n) slots[SG_XPAD(k)] = in[first + (scangen_u64)k];
  }
  SG_BARRIER();
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) raw[i] = slots[SG_XPAD(tid * SG_ITEMS + i)];
  SG_BARRIER();  // the exchange may be reused at once
#else
  (void)exchange;
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i)
    if (mine + (scangen_u64)i < n) raw[i] = in[mine + (scangen_u64)i];
#endif
}

SG_END(input_array)
// The block's elements first .. first + SG_BLOCK_ITEMS - 1, this thread's
// share, converted; the identity past n. Section arrays_together (every
// array in words, side by side in the exchange): a full block whose arrays
// are all 16-byte aligned stores every array's words, passes one barrier and
// reads them all back; otherwise, and in section arrays_apart, one array
// after another, each with its barriers.
SG_FN void SG_NAME(sg_load_inputs)(SG_NAME(sg_inputs) in, scangen_u64 first, scangen_u64 n, SG_T* items,
                                   SG_LOCAL SG_T* exchange) {
  (void)in;
  (void)exchange;
SG_BEGIN(input_array)
  SG_INPUT_T SG_INPUT_RAW[SG_ITEMS];
SG_END(input_array)
SG_BEGIN(arrays_together)
  if (first + SG_BLOCK_ITEMS <= n && SG_INPUTS_ALIGNED) {
    SG_LOCAL unsigned char* bytes = (SG_LOCAL unsigned char*)exchange;
SG_BEGIN(input_array)
    SG_INPUT_PUT((const uint4*)(in.SG_INPUT_NAME + first), (SG_LOCAL uint4*)(bytes + SG_INPUT_OFFSET));
SG_END(input_array)
    SG_BARRIER();
SG_BEGIN(input_array)
    SG_INPUT_GET(SG_INPUT_RAW, (SG_LOCAL uint4*)(bytes + SG_INPUT_OFFSET));
SG_END(input_array)
    SG_BARRIER();  // the exchange may be reused at once
  } else {
SG_BEGIN(input_array)
    SG_INPUT_LOAD(in.SG_INPUT_NAME, first, n, SG_INPUT_RAW, exchange);
SG_END(input_array)
  }
SG_END(arrays_together)
SG_BEGIN(arrays_apart)
SG_BEGIN(input_array)
  SG_INPUT_LOAD(in.SG_INPUT_NAME, first, n, SG_INPUT_RAW, exchange);
SG_END(input_array)
SG_END(arrays_apart)
  const scangen_u64 mine = first + (scangen_u64)SG_THREAD() * SG_ITEMS;
#pragma unroll
  for (int i = 0; i < SG_ITEMS; ++i) {
    const scangen_u64 at = mine + (scangen_u64)i;
    (void)at;
    items[i] = at < n ? SG_CONVERT(SG_INPUT_ITEM) : SG_IDENTITY();
  }
}
