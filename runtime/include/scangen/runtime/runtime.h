// scangen's runtime: "this scan, now". A Runtime picks a device (a CUDA GPU
// when a driver and a GPU are there, else an OpenCL device such as PoCL on
// the CPU), compiles a scan's generated source through NVRTC or the OpenCL
// driver, caches the result in memory and on disk, and hands back a Scan
// that launches it on the caller's buffers.
//
//   scangen::Runtime rt;                                   // or Runtime({Backend::OpenCL})
//   scangen::Scan sum = rt.compile("scan s { type = i32; op = add; }");
//   sum.inclusive(d_in, d_out, n);                         // CUDA device pointers, default stream
//
// Errors are scangen::Error exceptions whose message names the call, the
// code and, for compile errors, the compiler's log.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"
#include "scangen/generator/plan.h"
#include "scangen/runtime/cache_stats.h"

// The OpenCL handle types, without the OpenCL headers.
typedef struct _cl_mem* cl_mem;
typedef struct _cl_command_queue* cl_command_queue;
typedef struct _cl_context* cl_context;

namespace scangen {

using generator::Backend;

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Tiered compilation (CUDA; runtime/README.md, "Tiers"): which build of a
// scan's kernels a Scan launches. Fast: built for compile speed, serving the
// first calls after a cold compile; Tuned: the optimised build (a disk-cache
// hit, a compile with tiering off, every OpenCL scan).
enum class Tier { Fast, Tuned };
const char* to_string(Tier t);  // "fast", "tuned"

struct RuntimeOptions {
  // The backend to use; none: CUDA when a driver and a GPU are present, else OpenCL.
  std::optional<Backend> backend;
  int cuda_device = 0;       // the CUDA device's ordinal
  int opencl_platform = -1;  // -1: any platform; else only the platform of this index
  // The OpenCL device: "P:D" (platform and device indices, as clinfo -l
  // lists them) or a piece of the platform's or device's name, any case
  // ("nvidia", "pocl", "H100"). Empty: SCANGEN_OPENCL_DEVICE, and without it
  // the first GPU, else the first device of any kind. device_name() says
  // which was taken.
  std::string opencl_device = {};
  // More options for clBuildProgram, after the runtime's own (OpenCL only;
  // part of the cache key). Empty: SCANGEN_OPENCL_BUILD_OPTIONS. The
  // switches the emitted source reads (docs/generated-code.md, "OpenCL
  // variants"), e.g. -DSCANGEN_OPENCL_PTX=0 (the portable path on NVIDIA
  // too: lane scans through local memory, no sleep),
  // -DSCANGEN_OPENCL_ATOMIC_STATUS_READS.
  std::string opencl_build_options = {};
  // Tiered compilation (CUDA): a cold compile hands back a Scan built for
  // compile speed and builds the tuned kernels on a background thread, which
  // replace it when ready (bit-identical results). None: on, unless the
  // environment variable SCANGEN_JIT_TIERS is 0, off, false or no.
  std::optional<bool> jit_tiers = std::nullopt;
};

class Runtime;

// A compiled scan on one device. Copies share the compiled code and the
// managed workspace; a Scan must not be launched from two threads at once,
// and calls that use the managed workspace must not run at once on two
// streams or queues (give each its own workspace).
class Scan {
 public:
  Scan();
  ~Scan();
  Scan(const Scan&);
  Scan& operator=(const Scan&);

  const dsl::Spec& spec() const;
  const generator::Plan& plan() const;
  Backend backend() const;
  // Bytes of workspace a device-level scan of n elements needs (0 otherwise).
  uint64_t workspace_bytes(uint64_t n) const;

  // ---- shape = rows / strided: the run-time shape, which CudaArgs and
  // OpenCLArgs both carry (the spec's shape; n stays 0) ----
  // rows: `rows` rows of `length` elements; input row r at in + r * row_stride
  // elements (0: length), output row r at r * out_row_stride (0: row_stride);
  // aggregate: one element per row. Strides below the length are refused.
  // strided: rank 1..4 extents and strides in elements (out_strides all 0:
  // the input's), the axis scanned; aggregate: one element per line, in
  // row-major order of the other dimensions.
  struct ShapeArgs {
    uint64_t rows = 0;
    uint64_t length = 0;
    uint64_t row_stride = 0;
    uint64_t out_row_stride = 0;
    struct Strided {
      int rank = 0;
      int axis = 0;
      uint64_t extents[4] = {0, 0, 0, 0};
      uint64_t strides[4] = {0, 0, 0, 0};
      uint64_t out_strides[4] = {0, 0, 0, 0};
    } strided;
  };
  // Bytes of workspace a call of a shaped scan with this shape needs; an
  // Error for a flat scan or a shape it refuses.
  uint64_t workspace_bytes(const ShapeArgs& shape) const;

  // ---- CUDA: device pointers and a CUstream (null: the default stream) ----
  // Outputs the spec does not have must be null; those it has must not be.
  // The workspace: null to use one the Scan manages (grown on demand), or
  // the caller's, of workspace_bytes(n) bytes, 16-byte aligned, used by one
  // call at a time. It needs no initialisation: a decoupled look-back call
  // zeroes the part it uses on the call's stream before its kernel, so any
  // number of Scans and generated host wrappers may take turns on it.
  struct CudaArgs : ShapeArgs {
    const void* in = nullptr;
    // Input arrays (`input = T1, T2, ...;`): one device pointer per array, in
    // the spec's order, n elements each, with `in` null; `input = none;`:
    // none. A spec of one input array takes `in` and leaves this empty.
    std::vector<const void*> inputs;
    void* inclusive = nullptr;
    void* exclusive = nullptr;
    void* aggregate = nullptr;      // outputs = aggregate (device: 1 element; else one per segment)
    void* running_total = nullptr;  // outputs = running_total: 1 element, read and written
    // Or in host memory, one element each (a flat device scan), instead of
    // aggregate and running_total: the call copies the running total to the
    // device before its kernels and both back after them, then waits for
    // its stream.
    void* host_aggregate = nullptr;
    void* host_running_total = nullptr;
    // Fused outputs (`scatter(...)`): n elements of scatter_type, not
    // overlapping `in`; only the elements scatter_at selects are written.
    void* scattered = nullptr;
    // More fused outputs (`scatter.NAME(...)`), in the spec's order: each n
    // elements of its scatter_type.NAME, not overlapping `in`.
    std::array<void*, dsl::Spec::kMaxNamedScatter> named_scattered{};
    uint64_t n = 0;
    // The caller's workspace (workspace_bytes(n) bytes, 16-byte aligned), zeroed
    // by each call where it needs it; null: the Scan's own, which every call of
    // this Scan shares, so calls of one Scan on different streams must not run
    // at once (order the streams, or give each stream a workspace of its own).
    void* workspace = nullptr;
    uint64_t workspace_size = 0;
    void* stream = nullptr;

    // Segmented scans (`segments = ...;`): the form's arrays, the others null.
    // Offsets must be offsets[0] = 0 <= ... <= offsets[segment_count] = n: the
    // caller's duty, checked (the offsets copied back, a synchronising call)
    // only with check_segments.
    const void* segment_flags = nullptr;    // segments = flags: n bytes, nonzero starts a segment
    const void* segment_offsets = nullptr;  // segments = offsets: segment_count + 1 of the spec's offset type
    // segments = offsets: the number of segments (less than 2^64 - 1).
    // segments = flags or keys: how many elements segment_aggregates holds;
    // 0 (the default) means n, the most segments a call can make. Less than
    // n costs a synchronising copy of the flags or keys, which are counted:
    // a call that makes more segments than that is refused before it runs.
    uint64_t segment_count = 0;
    const void* keys = nullptr;          // segments = keys: n keys of the spec's key type
    void* segment_aggregates = nullptr;  // outputs = aggregate: one element per segment (not `aggregate`)
    bool check_segments = false;
  };
  void run(const CudaArgs& args) const;
  // The aggregate alone (x0 . x1 . ... . x(n-1), without init; reverse: from
  // x(n-1)), no scan written: one pass over the input. For a flat device scan
  // by reduce_then_scan with outputs = aggregate, whose reduce and spine
  // kernels it launches; args as for run, with inclusive and exclusive null
  // (a running total, where the spec has one, absorbs the aggregate).
  void reduce(const CudaArgs& args) const;

  // Typed shorthands; they check that In and T have the spec's sizes.
  template <typename In, typename T>
  void inclusive(const In* in, T* out, uint64_t n, void* stream = nullptr) const {
    check_sizes(sizeof(In), sizeof(T));
    CudaArgs a;
    a.in = in;
    a.inclusive = out;
    a.n = n;
    a.stream = stream;
    run(a);
  }
  template <typename In, typename T>
  void exclusive(const In* in, T* out, uint64_t n, void* stream = nullptr) const {
    check_sizes(sizeof(In), sizeof(T));
    CudaArgs a;
    a.in = in;
    a.exclusive = out;
    a.n = n;
    a.stream = stream;
    run(a);
  }
  // The same on OpenCL, with buffers (their sizes are checked against n and
  // the spec's types) and a queue (null: the Runtime's).
  void inclusive(cl_mem in, cl_mem out, uint64_t n, cl_command_queue queue = nullptr) const {
    OpenCLArgs a;
    a.in = in;
    a.inclusive = out;
    a.n = n;
    a.queue = queue;
    run(a);
  }
  void exclusive(cl_mem in, cl_mem out, uint64_t n, cl_command_queue queue = nullptr) const {
    OpenCLArgs a;
    a.in = in;
    a.exclusive = out;
    a.n = n;
    a.queue = queue;
    run(a);
  }

  // ---- OpenCL: buffers and a queue of the Runtime's context ----
  struct OpenCLArgs : ShapeArgs {
    cl_mem in = nullptr;
    std::vector<cl_mem> inputs;  // input arrays: as for CudaArgs
    cl_mem inclusive = nullptr;
    cl_mem exclusive = nullptr;
    cl_mem aggregate = nullptr;
    cl_mem running_total = nullptr;
    // In host memory instead: as for CudaArgs (the call waits for its queue).
    void* host_aggregate = nullptr;
    void* host_running_total = nullptr;
    cl_mem scattered = nullptr;  // fused outputs: as for CudaArgs
    std::array<cl_mem, dsl::Spec::kMaxNamedScatter> named_scattered{};
    uint64_t n = 0;
    cl_mem workspace = nullptr;  // null: managed by the Scan; else as for CudaArgs
    uint64_t workspace_size = 0;
    cl_command_queue queue = nullptr;  // null: the Runtime's queue

    // Segmented scans: as for CudaArgs.
    cl_mem segment_flags = nullptr;
    cl_mem segment_offsets = nullptr;
    uint64_t segment_count = 0;
    cl_mem keys = nullptr;
    cl_mem segment_aggregates = nullptr;
    bool check_segments = false;
  };
  void run(const OpenCLArgs& args) const;
  void reduce(const OpenCLArgs& args) const;  // as reduce(CudaArgs)

  // The sizes of the element and input types (sizeof P_T, P_In).
  size_t element_size() const;
  size_t input_size() const;

  // Tiered compilation (runtime/README.md, "Tiers"): the tier the next call
  // launches (a call in flight keeps the module it started with); waiting
  // until the tuned tier serves, or will not (its compile failed, or tiering
  // is off): the tier then, with why the tuned one did not come in
  // tier_error() ("" when it did).
  Tier tier() const;
  Tier wait_tuned() const;
  std::string tier_error() const;

  struct State;  // the compiled code and the managed workspace

 private:
  friend class Runtime;
  explicit Scan(std::shared_ptr<State> s);
  void check_sizes(size_t in, size_t t) const;
  std::shared_ptr<State> s_;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  Backend backend() const;
  std::string device_name() const;
  // Why the default went to OpenCL (no driver, no GPU), or "".
  std::string fallback_reason() const;

  // From the text of a .scan file: the scan called `name`, or the only one.
  Scan compile(const std::string& scan_text, const std::string& name = "");
  // From a .scan file on disk.
  Scan compile_file(const std::string& path, const std::string& name = "");
  // From a checked Spec (e.g. built in C++ and checked by dsl::load).
  Scan compile(const dsl::Spec& spec);

  CacheStats stats() const;

  // OpenCL: the context and queue the Runtime made (create buffers in it).
  cl_context opencl_context() const;
  cl_command_queue opencl_queue() const;

  struct Impl;

 private:
  Scan compile_text(const std::string& scan_text, const std::string& name);
  std::shared_ptr<Impl> impl_;
};

}  // namespace scangen
