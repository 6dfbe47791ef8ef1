// The CPU reference of shape = rows and shape = strided: every row or line
// gathered and scanned on its own with Evaluator::scan (device semantics:
// from init, the aggregate without it), the results placed densely.
#include <cstring>
#include <stdexcept>

#include "scangen/reference/reference.h"

namespace scangen::ref {

Evaluator::Result Evaluator::scan_rows(const void* input, uint64_t rows, uint64_t length, uint64_t row_stride) const {
  const uint64_t strides[2] = {row_stride, 1};
  const uint64_t extents[2] = {rows, length};
  return scan_strided(input, 2, extents, strides, 1);
}

Evaluator::Result Evaluator::scan_strided(const void* input, int rank, const uint64_t* extents, const uint64_t* strides,
                                          int axis) const {
  if (rank < 1 || rank > 4 || axis < 0 || axis >= rank)
    throw std::invalid_argument("reference: a strided shape has rank 1..4 and an axis below it");
  if (spec_.running_total) throw std::invalid_argument("reference: a shaped scan has no running total");
  uint64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= extents[d];
  const uint64_t length = extents[axis];
  uint64_t line_count = 1;  // lines even when the axis is empty (their aggregates)
  for (int d = 0; d < rank; ++d)
    if (d != axis) line_count *= extents[d];
  const size_t is = input_size(), es = element_size();
  const auto* in = static_cast<const uint8_t*>(input);
  Result res;
  if (spec_.has_inclusive()) res.inclusive.resize(total * es);
  if (spec_.has_exclusive()) res.exclusive.resize(total * es);
  std::vector<uint8_t> gathered(length * is);
  for (uint64_t l = 0; l < line_count; ++l) {
    // The line's index over the other dimensions, row-major; its first element.
    uint64_t rest = l, base = 0, dense = 0, dense_axis = 1;
    for (int d = rank - 1; d >= 0; --d) {
      if (d == axis) continue;
      const uint64_t i = rest % extents[d];
      rest /= extents[d];
      base += i * strides[d];
      uint64_t block = 1;  // the dense stride of dimension d
      for (int e = d + 1; e < rank; ++e) block *= extents[e];
      dense += i * block;
    }
    for (int e = axis + 1; e < rank; ++e) dense_axis *= extents[e];
    for (uint64_t p = 0; p < length; ++p)
      std::memcpy(gathered.data() + p * is, in + (base + p * strides[axis]) * is, is);
    const Result line = scan(gathered.data(), length);
    for (uint64_t p = 0; p < length; ++p) {
      const uint64_t at = (dense + p * dense_axis) * es;
      if (spec_.has_inclusive()) std::memcpy(res.inclusive.data() + at, line.inclusive.data() + p * es, es);
      if (spec_.has_exclusive()) std::memcpy(res.exclusive.data() + at, line.exclusive.data() + p * es, es);
    }
    res.aggregates.insert(res.aggregates.end(), line.aggregates.begin(), line.aggregates.end());
  }
  return res;
}

}  // namespace scangen::ref
