// What the module's launches share (launch.h).
#include "launch.h"

#include <optional>
#include <stdexcept>

namespace scangen::py {

ClBuffer::ClBuffer(cl_context ctx, cl_mem_flags flags, size_t bytes, void* host) {
  cl_int err = CL_SUCCESS;
  mem = clCreateBuffer(ctx, flags, bytes, host, &err);
  if (err != CL_SUCCESS)
    throw scangen::Error("scangen: clCreateBuffer of " + std::to_string(bytes) + " bytes failed (OpenCL error " +
                         std::to_string(err) + ")");
}

ClBuffer::~ClBuffer() {
  if (mem) clReleaseMemObject(mem);
}

void read_back(cl_command_queue q, cl_mem m, void* to, size_t bytes) {
  if (bytes == 0) return;
  const cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, to, 0, nullptr, nullptr);
  if (err != CL_SUCCESS)
    throw scangen::Error("scangen: clEnqueueReadBuffer failed (OpenCL error " + std::to_string(err) + ")");
}

std::mutex& launch_mutex() {
  static std::mutex m;
  return m;
}

dsl::Spec variant_spec(const dsl::Spec& base, bool exclusive, bool reverse, const std::string& shape,
                       const std::string& segments, const std::string& index_type, bool aggregate) {
  dsl::Spec s = base;
  s.mode = exclusive ? dsl::Mode::Exclusive : dsl::Mode::Inclusive;
  s.aggregate = aggregate;
  s.running_total = false;
  s.reverse = reverse;
  const std::optional<dsl::Shape> sh = dsl::shape_from_name(shape);
  const std::optional<dsl::Segments> seg = dsl::segments_from_name(segments);
  if (!sh || !seg) throw std::invalid_argument("unknown shape '" + shape + "' or segments '" + segments + "'");
  s.shape = *sh;
  s.segments = *seg;
  if (!index_type.empty()) {
    const std::optional<dsl::ScalarKind> k = dsl::scalar_kind_from_name(index_type);
    if (!k) throw std::invalid_argument("unknown offset or key type '" + index_type + "'");
    (*seg == dsl::Segments::Offsets ? s.offset : s.key) = *k;
  }
  // deterministic = true with floats: a flat scan's reduce_then_scan has no shaped or segmented kernel; the
  // decoupled look-back's fixed-order look-back gives the same bits on every run too.
  if (s.deterministic && s.algorithm == dsl::Algorithm::ReduceThenScan && s.combines_floats() &&
      (s.shape != dsl::Shape::Flat || s.segments != dsl::Segments::None))
    s.algorithm = dsl::Algorithm::DecoupledLookback;
  return s;
}

}  // namespace scangen::py
