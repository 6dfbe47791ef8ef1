// The runtime's insides, shared by its files: runtime.cpp (Runtime, compile
// and the caches), cuda_backend.cpp and opencl_backend.cpp (each backend's
// device, build and launch), scan.cpp (Scan and the argument checks).
#pragma once

#include "scangen/runtime/runtime.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache.h"
#include "cuda_driver.h"
#include "tiers.h"

namespace scangen {

namespace runtime::detail {

[[noreturn]] void fail(const std::string& what);  // throws Error("scangen: " + what)

// "clBuildProgram failed with OpenCL error -11".
std::string cl_error(const char* call, cl_int e);

#define SG_CL(call)                                                                                      \
  do {                                                                                                   \
    const cl_int e_ = (call);                                                                            \
    if (e_ != CL_SUCCESS) scangen::runtime::detail::fail(scangen::runtime::detail::cl_error(#call, e_)); \
  } while (0)

std::string cl_device_string(cl_device_id d, cl_device_info what);
std::string cl_platform_string(cl_platform_id p, cl_platform_info what);

// The launches of one call, in order: the Plan's kernels that get blocks
// (generator::launch_blocks); refuses an n whose grid one launch cannot take.
std::vector<const generator::Kernel*> plan_launches(const generator::Plan& p, uint64_t n);

// What the outputs must be, given the spec; the flags say which the caller gave.
void check_outputs(const generator::Plan& p, bool in, bool inc, bool exc, bool agg, bool run, uint64_t n);
// Input arrays (Plan::input_arrays): one non-null array per array of the
// spec (`given`: which are non-null) and no `in`; otherwise none.
// No output is one of them (`arrays`: their pointers or buffers).
void check_input_arrays(const generator::Plan& p, bool in, const std::vector<const void*>& arrays,
                        const void* inclusive, const void* exclusive, uint64_t n);
// Fused outputs: `fused` (1 + dsl::Spec::kMaxNamedScatter pointers: scattered,
// then the named ones) given exactly for the spec's fused outputs, none the input.
void check_scattered(const generator::Plan& p, const void* const* fused, const void* in, uint64_t n);
// prev(x) / next(x): the input is read beside each element, so no output may be the input.
void check_neighbours_not_in_place(const generator::Plan& p, const void* in, const void* inc, const void* exc);
// mode = both writes both outputs: buffers that are one, or overlap, would
// keep only one of them. A buffer is a range [begin, begin + bytes) of its
// memory `root` (CUDA: the device's address space; OpenCL: the buffer a
// sub-buffer was made from); a null root is a buffer not given.
void check_outputs_apart(const generator::Plan& p, const void* inc_root, uint64_t inc_begin, const void* exc_root,
                         uint64_t exc_begin, uint64_t bytes);

// Segmented scans: the segment arrays the form needs are given and no
// other; `aggregate` (the plain output) is not given to a segmented scan, nor
// `segment_aggregates` to another.
void check_segment_args(const generator::Plan& p, bool flags, bool offsets, bool keys, bool aggregate,
                        bool segment_aggregates, uint64_t n, uint64_t segment_count);
// How many elements segment_aggregates must hold: segments = offsets,
// segment_count; flags and keys (whose segments the host does not know),
// segment_count where the caller gives it, else n, the most a call makes.
uint64_t segment_aggregates_capacity(const generator::Plan& p, uint64_t segment_count, uint64_t n);
// Flags and keys with a segment_aggregates of fewer than n elements: the
// flags or keys (as copied back, n of them) must make at most `capacity`
// segments, else the kernel would write past the buffer.
void check_segments_fit(const generator::Plan& p, const std::vector<unsigned char>& bytes, uint64_t n,
                        uint64_t capacity);
// Checked mode: the offsets (as copied back, `count` + 1 of the plan's
// offset type) are 0 first, nondecreasing and n last.
void check_offsets(const generator::Plan& p, const std::vector<unsigned char>& bytes, uint64_t count, uint64_t n);

// Refuses count x element when it overflows 64 bits.
void check_no_overflow(const generator::Plan& p, uint64_t count, uint64_t element, const std::string& type);

// ---- tiered compilation (tiers.cpp; runtime/README.md, "Tiers") ----

// The tuned tier's compile of one scan, on the background thread; the Scans
// (States) served by the fast tier meanwhile wait for it here.
struct TunedJob {
  enum class Status { Pending, Ready, Failed };
  std::string source, name, arch;  // what NVRTC compiles
  CacheKey key;                    // the tuned tier's disk entry

  std::mutex mutex;
  std::condition_variable done;  // status left Pending, or settled
  Status status = Status::Pending;
  bool settled = false;  // Ready, and every State registered here has its tuned module (or the error)
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // Ready: the tuned binary
  std::string error;                                  // Failed: why
  std::vector<std::weak_ptr<Scan::State>> scans;      // Pending: the States to move to the tuned tier
};

// What the memory cache keeps of a compiled scan: the binary and its tier,
// and for the fast tier the tuned compile that will replace it.
struct CompiledCode {
  std::vector<uint8_t> bytes;
  Tier tier = Tier::Tuned;
  std::shared_ptr<TunedJob> job;
};

// One background thread, started on the first job; runs jobs in order.
// finish() runs every job queued and joins (the Runtime's destructor).
class TierWorker {
 public:
  TierWorker() = default;
  ~TierWorker() { finish(); }
  TierWorker(const TierWorker&) = delete;
  TierWorker& operator=(const TierWorker&) = delete;
  void post(std::function<void()> job);
  void finish();

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

// One loaded CUDA module and its kernels, by name.
struct CudaModule {
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> functions;
  Tier tier = Tier::Tuned;
};

// One call of a plan: the kernels it launches with their blocks, the
// elements each buffer must hold, the workspace, and the values of the
// shape roles (shape = rows / strided; generator::shape_call, whose refusals
// become Errors).
struct Call {
  std::vector<std::pair<const generator::Kernel*, uint64_t>> launches;
  uint64_t elements = 0;  // the scanned elements (null checks)
  uint64_t in_count = 0, out_count = 0, aggregate_count = 0;
  uint64_t workspace_bytes = 0, zero_bytes = 0;
  generator::ShapeCall shape;
};
Call plan_call(const generator::Plan& p, uint64_t n, const generator::RunShape* shape);

// The generator's RunShape of the caller's shape.
inline generator::RunShape to_run_shape(const Scan::ShapeArgs& a) {
  generator::RunShape out;
  out.rows = a.rows;
  out.length = a.length;
  out.in_row_stride = a.row_stride;
  out.out_row_stride = a.out_row_stride;
  out.rank = a.strided.rank;
  out.axis = a.strided.axis;
  for (int d = 0; d < 4; ++d) {
    out.extents[d] = a.strided.extents[d];
    out.in_strides[d] = a.strided.strides[d];
    out.out_strides[d] = a.strided.out_strides[d];
  }
  return out;
}

// The RunShape of CudaArgs or OpenCLArgs; null for a flat scan (which must
// then give no shape).
template <class Args>
const generator::RunShape* run_shape(const generator::Plan& p, const Args& a, generator::RunShape& out) {
  const bool any = a.rows || a.length || a.row_stride || a.out_row_stride || a.strided.rank;
  if (p.shape == dsl::Shape::Flat) {
    if (any)
      fail("scan '" + p.spec.name + "' has no run-time shape (shape = flat): give n, not rows or a strided shape");
    return nullptr;
  }
  if (a.n != 0)
    fail("scan '" + p.spec.name + "' has shape = " + dsl::to_string(p.shape) + ": give " +
         (p.shape == dsl::Shape::Rows ? "rows and length" : "strided") + " and leave n at 0");
  out = to_run_shape(a);
  return &out;
}

// Scan::reduce: an error unless the plan has a reduce (a flat device scan by
// reduce_then_scan with outputs = aggregate) and the call writes no scan.
void check_reduce(const generator::Plan& p, bool inclusive, bool exclusive);
// The launches of a reduce: the call's, but for the kernel that writes the scan.
void keep_reduce_launches(Call& call);

// What both backends' run (and, with `reduce`, reduce) check first of CudaArgs
// or OpenCLArgs, and the call's launches.
template <class Args>
Call checked_call(const generator::Plan& p, const Args& a, bool reduce) {
  check_segment_args(p, a.segment_flags, a.segment_offsets, a.keys, a.aggregate, a.segment_aggregates, a.n,
                     a.segment_count);
  if (reduce) check_reduce(p, a.inclusive, a.exclusive);
  generator::RunShape shape;
  Call call = plan_call(p, a.n, run_shape(p, a, shape));
  if (reduce) keep_reduce_launches(call);
  check_outputs(p, a.in || p.input_arrays, reduce ? p.outputs.inclusive : a.inclusive != nullptr,
                reduce ? p.outputs.exclusive : a.exclusive != nullptr,
                p.segmented.on() ? a.segment_aggregates != nullptr : a.aggregate != nullptr, a.running_total,
                call.elements);
  // The fused outputs (scattered, then the named ones) against the spec, and the input not overwritten
  // where the scan reads neighbours.
  std::array<const void*, 1 + dsl::Spec::kMaxNamedScatter> fused = {a.scattered};
  std::copy(a.named_scattered.begin(), a.named_scattered.end(), fused.begin() + 1);
  check_scattered(p, fused.data(), a.in, call.elements);
  check_neighbours_not_in_place(p, a.in, a.inclusive, a.exclusive);
  return call;
}

// The bytes of the call's inclusive (or exclusive) output; UINT64_MAX where that overflows.
inline uint64_t out_bytes(const generator::Plan& p, const Call& call) {
  return call.out_count > UINT64_MAX / p.element_bytes ? UINT64_MAX : call.out_count * p.element_bytes;
}

}  // namespace runtime::detail

struct Runtime::Impl {
  Backend backend = Backend::Cuda;
  std::string device_name, fallback_reason;
  // What plans are made for (generator::Target::device): CUDA, the device's
  // name; OpenCL, "opencl cpu" on a CPU device (the tuning table's row for
  // CPUs), else "".
  std::string plan_device;

  // CUDA
  const runtime::detail::Driver* driver = nullptr;
  CUdevice cu_device = 0;
  CUcontext cu_context = nullptr;
  int sm = 0;  // 90 for sm_90

  // OpenCL
  cl_platform_id cl_platform = nullptr;
  cl_device_id cl_dev = nullptr;
  cl_context cl_ctx = nullptr;
  cl_command_queue cl_queue = nullptr;
  bool cl_exact_divide = false;
  // Every program's clBuildProgram options: the exact-divide flags, the
  // device's paths (SCANGEN_OPENCL_PTX on NVIDIA), the caller's (open_opencl).
  std::string cl_options;

  // Scans already compiled from a text (and name): the fast path of a
  // memory hit, before any parsing or code generation. Weak: a Scan keeps
  // the runtime alive, not the other way round.
  std::mutex by_text_mutex;
  std::map<std::string, std::weak_ptr<Scan::State>> by_text;

  // The compiled code, by key; the disk cache under it; both count into one
  // set of counters (stats()).
  std::shared_ptr<runtime::detail::CacheCounters> counters = std::make_shared<runtime::detail::CacheCounters>();
  runtime::detail::MemoryCache<runtime::detail::CompiledCode> memory{counters};
  runtime::detail::DiskCache disk{runtime::detail::DiskCache::Options::from_environment(), counters};

  // Tiered compilation (CUDA): on, and the thread that builds the tuned tiers.
  bool tiers = false;
  // Whether a cold compile queues the tuned build once the fast tier's
  // module is loaded (the default) instead of before the fast build starts
  // (SCANGEN_JIT_TUNED_AFTER=0): the fast build then has the host to itself.
  bool tuned_after = false;
  // The fast tier built from the scan's text with direct I/O (generator::fast_tier_plan);
  // SCANGEN_JIT_FAST_DIRECT_IO=0: from the tuned tier's text.
  bool fast_direct_io = true;
  // SCANGEN_TUNING: knobs over the tuning table's entry of every device scan this runtime plans (generator
  // tuning.h's parse_tuning form, for experiments); empty: the table's.
  std::string tuning;
  runtime::detail::TierWorker worker;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();

  // ---- CUDA (cuda_backend.cpp) ----
  void open_cuda(int ordinal);
  void make_current() const;
  // What NVRTC compiles for: the device's architecture (a cubin), or PTX for
  // the newest architecture NVRTC knows when the device is newer.
  std::string nvrtc_arch() const;
  runtime::detail::CacheKey cuda_key(const std::string& source, const std::string& arch, Tier tier) const;
  std::vector<uint8_t> nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch,
                                     Tier tier) const;
  std::unique_ptr<runtime::detail::CudaModule> load_cuda(const generator::Plan& plan, const std::vector<uint8_t>& code,
                                                         Tier tier) const;

  // ---- tiered compilation (tiers.cpp) ----
  // Compiles (or finds) the CUDA binary of `source` and loads it into `st`:
  // through the memory and disk caches, the fast tier first on a cold compile.
  void compile_cuda(const std::shared_ptr<Scan::State>& st, const std::string& source, const std::string& name);
  void build_tuned(const std::shared_ptr<runtime::detail::TunedJob>& job);  // on the worker
  void install_tuned(Scan::State& st, const std::vector<uint8_t>& bytes);

  // ---- OpenCL (opencl_backend.cpp) ----
  void open_opencl(int platform_index, std::string selector, std::string build_options);
  runtime::detail::CacheKey opencl_key(const std::string& source) const;
  // Builds `source`, or `binary` when given (null when the driver refuses
  // the binary); `out_binary`, when given, receives the program's binary.
  cl_program cl_build(const std::string& source, const std::vector<uint8_t>* binary,
                      std::vector<uint8_t>* out_binary) const;
  void load_opencl(Scan::State& st, cl_program program) const;
};

// ---- a compiled scan ----
struct Scan::State {
  std::shared_ptr<Runtime::Impl> rt;
  generator::Plan plan;
  // CUDA: the module a call launches (read once per call: a call keeps the
  // module it started with), and the modules of the tiers, which stay loaded
  // while the State lives; the tuned compile a fast-tier State waits for.
  std::atomic<const runtime::detail::CudaModule*> cu_current{nullptr};
  std::unique_ptr<runtime::detail::CudaModule> cu_fast, cu_tuned;
  std::shared_ptr<runtime::detail::TunedJob> job;
  std::string tier_error;  // why the tuned tier did not come (under job->mutex)
  // OpenCL
  cl_program program = nullptr;
  std::map<std::string, cl_kernel> cl_kernels;

  // The managed workspace (a decoupled look-back call zeroes the part it
  // uses before its kernel, in whichever workspace it runs).
  mutable std::mutex mutex;
  mutable CUdeviceptr cu_workspace = 0;
  mutable cl_mem cl_workspace = nullptr;
  mutable uint64_t workspace_size = 0;
  // CUDA, Plan::epoch_tags: the calls of more than one tile on cu_workspace
  // since it was last zeroed whole (0: not since it was allocated); such a
  // plan's calls zero it only then (generator::workspace_epoch_zero).
  mutable uint64_t workspace_epoch_calls = 0;
  // Calls with their totals in host memory (host_aggregate,
  // host_running_total): the two elements' device copies (CUDA: one
  // allocation, the running total at totals_offset; OpenCL: two buffers),
  // used by one such call at a time (staging_mutex).
  mutable std::mutex staging_mutex;
  mutable CUdeviceptr cu_totals = 0;
  mutable cl_mem cl_totals[2] = {nullptr, nullptr};

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State();
};

namespace runtime::detail {
// The state of a Scan, or an error for an empty one.
const Scan::State& state_of(const std::shared_ptr<Scan::State>& s);
// Totals in host memory: an error unless the plan is a flat device scan with
// those outputs and the call gives each in one place only.
void check_host_totals(const generator::Plan& p, bool agg, bool host_agg, bool run, bool host_run);
// Where the running total lies in the staging buffer (the aggregate at 0).
inline uint64_t totals_offset(const generator::Plan& p) { return (p.element_bytes + 15) / 16 * 16; }
}  // namespace runtime::detail

}  // namespace scangen
