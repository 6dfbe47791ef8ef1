// shape = rows / strided: the kernels of a run-time shape, and a call's
// geometry (ShapeCall): which kernel, how many blocks, the workspace, and the
// values of the shape roles of the kernel ABI.
//
// rows: the rows are laid end to end as one virtual array of rows x length
// elements, cut into tiles of Plan::tile; an element that starts a row is a
// segment head. A tile scans its elements as (head, value) pairs, so many
// short rows share a tile; a tile that holds a head publishes the part after
// its last head as its INCLUSIVE status at once, so the look-back of a long
// row's later tiles stops at the row's first tile.
//
// strided: every line along the axis; a tile is `lanes` lines (threads
// across the lines: consecutive threads read consecutive lines, which for a
// column scan of a row-major matrix are consecutive addresses) by a chunk
// of block_threads / lanes x items positions along the axis. Each line of a
// chunk publishes its total as a status of its own (a vector of statuses
// per tile), and the chunk's first positions look back along their line.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "plan_steps.h"

namespace scangen::generator {

namespace detail {

namespace {

using R = ParamRole;
constexpr uint64_t kMaxU64 = std::numeric_limits<uint64_t>::max();
constexpr int kMaxLanes = 32;  // lines per tile of the axis kernel (the carries it keeps in shared memory)

KernelParam u64(R role, const std::string& name, const std::string& meaning, int dim = 0) {
  KernelParam k{role, "u64", name, meaning};
  k.dim = dim;
  return k;
}

// in, the outputs, aggregates: what every shape kernel takes first.
std::vector<KernelParam> data_params(const Plan& p, const std::string& what) {
  const std::string T = p.names.value_type;
  std::vector<KernelParam> v = {{R::Input, "const " + p.names.input_type + "*", "in", "the input " + what}};
  if (p.outputs.inclusive) v.push_back({R::Inclusive, T + "*", "inclusive", "the inclusive scan, " + what});
  if (p.outputs.exclusive) v.push_back({R::Exclusive, T + "*", "exclusive", "the exclusive scan, " + what});
  if (p.outputs.aggregate)
    v.push_back({R::Aggregates, T + "*", "aggregates", "one element per row or line: its total, without init"});
  return v;
}

KernelParam workspace_param(const Plan& p) {
  return {R::Workspace, "unsigned char*", "workspace",
          std::to_string(kWorkspaceHeader) + " + statuses x " + std::to_string(p.status_bytes) +
              " bytes; zeroed before a call of more than one tile"};
}

Kernel rows_kernel(const Plan& p) {
  Kernel k{p.spec.name + "_rows_kernel", "max(1, ceil(rows x length / " + std::to_string(p.tile) + ")) blocks",
           Grid::Shaped, data_params(p, "rows")};
  k.params.push_back(u64(R::Rows, "rows", "the rows"));
  k.params.push_back(u64(R::Length, "length", "elements per row"));
  k.params.push_back(u64(R::InRowStride, "in_row_stride", "elements from an input row to the next (>= length)"));
  k.params.push_back(u64(R::OutRowStride, "out_row_stride", "elements from an output row to the next (>= length)"));
  k.params.push_back(workspace_param(p));
  return k;
}

Kernel axis_kernel(const Plan& p) {
  Kernel k{p.spec.name + "_axis_kernel", "max(1, ceil(lines / lanes) x ceil(axis extent / chunk)) blocks", Grid::Shaped,
           data_params(p, "array")};
  for (int d = 0; d < 4; ++d)
    k.params.push_back(u64(R::Extent, "extent" + std::to_string(d),
                           d < 3 ? "a dimension of the lines (0: slowest)" : "the scanned axis' extent", d));
  for (int d = 0; d < 4; ++d)
    k.params.push_back(u64(R::InStride, "in_stride" + std::to_string(d), "the input's stride of that dimension", d));
  for (int d = 0; d < 4; ++d)
    k.params.push_back(u64(R::OutStride, "out_stride" + std::to_string(d), "the outputs' stride", d));
  k.params.push_back(u64(R::AxisLanes, "lanes", "lines per tile: a power of two <= 32 dividing the block"));
  k.params.push_back(workspace_param(p));
  return k;
}

[[noreturn]] void bad(const Plan& p, const std::string& why) {
  throw std::invalid_argument("scan '" + p.spec.name + "': " + why);
}

uint64_t mul(const Plan& p, uint64_t a, uint64_t b, const char* what) {
  if (b != 0 && a > kMaxU64 / b) bad(p, std::string(what) + " overflows 64 bits");
  return a * b;
}

uint64_t add(const Plan& p, uint64_t a, uint64_t b, const char* what) {
  if (a > kMaxU64 - b) bad(p, std::string(what) + " overflows 64 bits");
  return a + b;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// Elements from the base that a dimension walk may touch: 1 + sum (e - 1) x s.
uint64_t span(const Plan& p, const uint64_t* extent, const uint64_t* stride, int dims) {
  uint64_t last = 0;
  for (int d = 0; d < dims; ++d) {
    if (extent[d] == 0) return 0;
    last = add(p, last, mul(p, extent[d] - 1, stride[d], "the array's extent in memory"), "the array's extent");
  }
  return add(p, last, 1, "the array's extent");
}

void finish(const Plan& p, ShapeCall& c, uint64_t tiles, uint64_t statuses) {
  c.blocks = std::max<uint64_t>(1, tiles);
  if (c.blocks >= (1ull << 31))
    bad(p, "the shape makes " + std::to_string(c.blocks) + " blocks, more than one launch takes (2^31 - 1)");
  c.workspace_bytes = add(p, kWorkspaceHeader, mul(p, std::max<uint64_t>(1, statuses), p.status_bytes, "the workspace"),
                          "the workspace");
  c.zero_bytes = c.blocks > 1 ? c.workspace_bytes : 0;
}

void rows_call(const Plan& p, ShapeCall& c, uint64_t rows, uint64_t length, uint64_t in_stride, uint64_t out_stride) {
  if (rows > 1 && in_stride < length)
    bad(p, "the input's row stride (" + std::to_string(in_stride) + ") is below the row length (" +
               std::to_string(length) + "): rows would overlap");
  if (rows > 1 && out_stride < length)
    bad(p, "the outputs' row stride (" + std::to_string(out_stride) + ") is below the row length (" +
               std::to_string(length) + "): rows would overlap");
  const uint64_t n = mul(p, rows, length, "rows x length");
  c.kernel = &p.kernels.front();
  c.rows = rows;
  c.length = length;
  c.in_row_stride = in_stride;
  c.out_row_stride = out_stride;
  c.aggregates = rows;
  if (n > 0) {
    c.in_span = add(p, mul(p, rows - 1, in_stride, "the rows' extent"), length, "the rows' extent");
    c.out_span = add(p, mul(p, rows - 1, out_stride, "the rows' extent"), length, "the rows' extent");
  }
  const uint64_t tiles = ceil_div(n, p.tile);
  finish(p, c, tiles, tiles);
}

// The strides of the lines' dimensions (0..2) as one row stride, when the
// lines lie evenly (each slower dimension's stride is the faster one's
// times its extent, dimensions of extent 1 aside); 0 when they do not.
uint64_t even_row_stride(const uint64_t* extent, const uint64_t* stride, uint64_t length) {
  uint64_t row = 0, next = 0;  // the stride of the fastest dimension, and what the next slower one must have
  for (int d = 2; d >= 0; --d) {
    if (extent[d] <= 1) continue;
    if (row == 0) {
      row = stride[d];
    } else if (stride[d] != next) {
      return 0;
    }
    next = stride[d] * extent[d];  // no overflow: the span was checked
  }
  return row == 0 ? length : row;
}

void strided_call(const Plan& p, ShapeCall& c, const RunShape& s) {
  if (s.rank < 1 || s.rank > 4)
    bad(p, "a strided shape has 1 to 4 dimensions; rank " + std::to_string(s.rank) + " was given");
  if (s.axis < 0 || s.axis >= s.rank)
    bad(p, "the axis " + std::to_string(s.axis) + " is not a dimension of a rank-" + std::to_string(s.rank) +
               " array (0 .. " + std::to_string(s.rank - 1) + ")");
  bool out_given = false;
  for (int d = 0; d < s.rank; ++d) out_given = out_given || s.out_strides[d] != 0;
  // Dimensions 0..2: the others, in order, after extents of 1; 3: the axis.
  int k = 3 - (s.rank - 1);
  for (int d = 0; d < 3; ++d) c.extent[d] = 1;
  for (int d = 0; d < s.rank; ++d) {
    const int to = d == s.axis ? 3 : k++;
    c.extent[to] = s.extents[d];
    c.in_stride[to] = s.in_strides[d];
    c.out_stride[to] = out_given ? s.out_strides[d] : s.in_strides[d];
  }
  const uint64_t lines = mul(p, mul(p, c.extent[0], c.extent[1], "the lines"), c.extent[2], "the lines");
  const uint64_t length = c.extent[3];
  mul(p, lines, length, "the array's elements");
  c.in_span = span(p, c.extent, c.in_stride, 4);
  c.out_span = span(p, c.extent, c.out_stride, 4);
  c.aggregates = lines;
  // A contiguous axis with evenly laid lines: the rows kernel.
  const uint64_t in_row = even_row_stride(c.extent, c.in_stride, length);
  const uint64_t out_row = even_row_stride(c.extent, c.out_stride, length);
  const bool contiguous =
      (length <= 1 || (c.in_stride[3] == 1 && c.out_stride[3] == 1)) && in_row >= length && out_row >= length;
  if (contiguous) {
    rows_call(p, c, lines, length, in_row, out_row);
    return;
  }
  c.kernel = &p.kernels.back();
  uint64_t lanes = 1;
  while (lanes < lines && lanes < static_cast<uint64_t>(std::min(kMaxLanes, p.block_threads))) lanes *= 2;
  c.lanes = lanes;
  const uint64_t chunk = static_cast<uint64_t>(p.block_threads) / lanes * static_cast<uint64_t>(p.items);
  const uint64_t strips = ceil_div(lines, lanes), chunks = std::max<uint64_t>(1, ceil_div(length, chunk));
  finish(p, c, mul(p, strips, chunks, "the tiles"),
         mul(p, mul(p, strips, lanes, "the statuses"), chunks, "the statuses"));
}

}  // namespace

void decide_shape(Plan& p) {
  p.shape = p.spec.shape;
  if (p.shape == dsl::Shape::Flat) return;
  if (p.level != dsl::Level::Device || p.status == StatusLayout::None)
    fail(p.spec, std::string("shape = ") + dsl::to_string(p.shape) + " needs a device-level decoupled_lookback scan");
  const size_t t = static_cast<size_t>(p.block_threads);
  // Two buffers of thread totals and head flags, the axis kernel's carries, the tile id.
  p.shape_shared_bytes = 2 * t * (p.element_bytes + 4) + kMaxLanes * p.element_bytes + 16;
  p.block_shared_bytes += p.shape_shared_bytes;
  // CUDA: at least 3 blocks of 256 an SM (__launch_bounds__) for the shape kernels of 4-byte elements with
  // one output and no aggregates: 80 registers a thread instead of 93 - 102 (bench/RESULTS.md, 2026-11-27,
  // f32 on the H100: reverse rows +10 %, columns +4 - 7 %, deterministic rows +8 - 20 %, forward rows alike).
  // Two outputs take 255 registers, aggregates 123 (axis) - 202 (rows) for f32 (ptxas, sm_90); that bound would
  // spill 180 - 1660 bytes of them.
  // A tuning row of the shape's own (batched rows: 128 threads, at least 8 blocks) gives its bound, under
  // the same conditions.
  const dsl::Spec& s = p.spec;
  if (p.backend == Backend::Cuda && p.element_bytes == 4 && p.input_bytes <= 4 && s.mode != dsl::Mode::Both &&
      !s.aggregate) {
    if (p.block_threads == 256) p.shape_min_blocks = 3;
    // The fixed-order look-back's rows kernel spills at 8 blocks of 128 (64 registers): 6 for it (80).
    if (p.shape == dsl::Shape::Rows && p.block_threads == 128 && p.tuning.min_blocks > 0)
      p.shape_min_blocks = s.deterministic ? std::min(p.tuning.min_blocks, 6) : p.tuning.min_blocks;
  }
  p.min_blocks = 0;  // the flat kernel's bound: no flat kernel here
}

void shape_kernels(Plan& p) {
  if (p.shape == dsl::Shape::Flat) return;
  p.kernels = {rows_kernel(p)};
  if (p.shape == dsl::Shape::Strided) p.kernels.push_back(axis_kernel(p));
  p.entry_kernel = p.kernels.back().name;
  p.entry_params = p.kernels.back().params;
}

}  // namespace detail

ShapeCall shape_call(const Plan& p, const RunShape& s) {
  if (p.shape == dsl::Shape::Flat) detail::bad(p, "the scan has no run-time shape (shape = flat); call it with n");
  ShapeCall c;
  if (p.shape == dsl::Shape::Rows) {
    if (s.rank != 0) detail::bad(p, "a rows scan takes rows, length and row strides, not a strided shape");
    const uint64_t in = s.in_row_stride ? s.in_row_stride : s.length;
    detail::rows_call(p, c, s.rows, s.length, in, s.out_row_stride ? s.out_row_stride : in);
  } else {
    if (s.rows != 0 || s.length != 0) detail::bad(p, "a strided scan takes a strided shape, not rows");
    detail::strided_call(p, c, s);
  }
  return c;
}

uint64_t ShapeCall::value(const KernelParam& p) const {
  switch (p.role) {
    case ParamRole::Rows:
      return rows;
    case ParamRole::Length:
      return length;
    case ParamRole::InRowStride:
      return in_row_stride;
    case ParamRole::OutRowStride:
      return out_row_stride;
    case ParamRole::Extent:
      return extent[p.dim & 3];
    case ParamRole::InStride:
      return in_stride[p.dim & 3];
    case ParamRole::OutStride:
      return out_stride[p.dim & 3];
    case ParamRole::AxisLanes:
      return lanes;
    default:
      throw std::logic_error(std::string("scangen: parameter role '") + to_string(p.role) + "' is not a shape's");
  }
}

uint64_t launch_blocks(const Plan& plan, const Kernel& kernel, const RunShape& shape) {
  const ShapeCall c = shape_call(plan, shape);
  return c.kernel == &kernel ? c.blocks : 0;
}

uint64_t workspace_bytes(const Plan& plan, const RunShape& shape) { return shape_call(plan, shape).workspace_bytes; }

uint64_t workspace_zero_bytes(const Plan& plan, const RunShape& shape) { return shape_call(plan, shape).zero_bytes; }

}  // namespace scangen::generator
