// What the module's launches share: OpenCL buffers of the Runtime's context,
// the one-launch-at-a-time lock, and the variants of a spec (mode, direction,
// shape, segments) that the Python calls and the JAX handlers compile.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "scangen/dsl/spec.h"
#include "scangen/runtime/runtime.h"

namespace scangen::py {

// An OpenCL buffer released when it goes out of scope.
struct ClBuffer {
  cl_mem mem = nullptr;
  ClBuffer(cl_context ctx, cl_mem_flags flags, size_t bytes, void* host);
  ~ClBuffer();
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
};

// `bytes` of the buffer m read into host memory at `to` (a blocking read; nothing for 0 bytes).
void read_back(cl_command_queue q, cl_mem m, void* to, size_t bytes);

// A Scan must not be launched from two threads at once (runtime.h), and
// variants share their compiled code: one launch at a time, process-wide
// (the Python calls with the GIL released, and the JAX handlers).
std::mutex& launch_mutex();

// The spec `base` as a variant writes it: only the inclusive (or exclusive)
// output, `reverse`, the shape and segments of their spellings in the
// language ("flat", "rows", "strided"; "none", "flags", "offsets", "keys"),
// the segments' offset or key type ("" for the spec's) and whether it writes
// aggregates; init as the spec has it.
dsl::Spec variant_spec(const dsl::Spec& base, bool exclusive, bool reverse, const std::string& shape,
                       const std::string& segments, const std::string& index_type, bool aggregate);

}  // namespace scangen::py
