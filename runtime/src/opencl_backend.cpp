// The OpenCL backend: choosing the device, building a program (from source
// or a cached binary), the cache key of an OpenCL binary, the kernels, and
// Scan::run with OpenCLArgs.
#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cstdlib>

#include "kernel_args.h"
#include "runtime_impl.h"
#include "scangen/generator/emit.h"

namespace scangen {

using runtime::detail::cl_device_string;
using runtime::detail::cl_error;
using runtime::detail::cl_platform_string;
using runtime::detail::fail;

namespace runtime::detail {

std::string cl_error(const char* call, cl_int e) {
  return std::string(call) + " failed with OpenCL error " + std::to_string(e);
}

std::string cl_device_string(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string s(size, '\0');
  if (clGetDeviceInfo(d, what, size, s.data(), nullptr) != CL_SUCCESS) return "?";
  return s.c_str();
}

std::string cl_platform_string(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS) return "?";
  std::string s(size, '\0');
  if (clGetPlatformInfo(p, what, size, s.data(), nullptr) != CL_SUCCESS) return "?";
  return s.c_str();
}

}  // namespace runtime::detail

namespace {

struct Candidate {
  cl_platform_id platform;
  cl_device_id device;
  std::string label;  // "P:D platform / device"
  cl_device_type type;
};

// Every device of every platform (or of the platform of that index).
std::vector<Candidate> list_devices(int platform_index) {
  cl_uint count = 0;
  cl_int e = clGetPlatformIDs(0, nullptr, &count);
  if (e != CL_SUCCESS || count == 0)
    fail("no OpenCL platform (clGetPlatformIDs: " + std::to_string(e) + "); install one, e.g. PoCL for the CPU");
  std::vector<cl_platform_id> platforms(count);
  SG_CL(clGetPlatformIDs(count, platforms.data(), nullptr));
  std::vector<Candidate> all;
  for (cl_uint i = 0; i < count; ++i) {
    if (platform_index >= 0 && static_cast<cl_uint>(platform_index) != i) continue;
    cl_uint n = 0;
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
    std::vector<cl_device_id> devices(n);
    SG_CL(clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr));
    for (cl_uint d = 0; d < n; ++d) {
      cl_device_type type = 0;
      SG_CL(clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, nullptr));
      all.push_back({platforms[i], devices[d],
                     std::to_string(i) + ":" + std::to_string(d) + " " +
                         cl_platform_string(platforms[i], CL_PLATFORM_NAME) + " / " +
                         cl_device_string(devices[d], CL_DEVICE_NAME),
                     type});
    }
  }
  if (all.empty()) fail("no OpenCL platform with a device");
  return all;
}

// The device `selector` names ("P:D" or a piece of a name, any case; from
// `source`), or an error that lists them all.
const Candidate& select_device(const std::vector<Candidate>& all, const std::string& selector,
                               const std::string& source) {
  const auto lower = [](std::string t) {
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return t;
  };
  const bool indices = selector.find_first_not_of("0123456789:") == std::string::npos;
  for (const Candidate& c : all) {
    const std::string index = c.label.substr(0, c.label.find(' '));
    if (indices ? (index == selector || index == selector + ":0")
                : lower(c.label.substr(c.label.find(' ') + 1)).find(lower(selector)) != std::string::npos)
      return c;
  }
  std::string list;
  for (const Candidate& c : all) list += "\n  " + c.label;
  fail("no OpenCL device matches '" + selector + "' (" + source +
       "; give \"P:D\" or a piece of a platform's or device's name); there are:" + list);
}

// A GPU first, then an accelerator, then whatever there is (PoCL's CPU).
const Candidate& default_device(const std::vector<Candidate>& all) {
  for (cl_device_type want : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ACCELERATOR)})
    for (const Candidate& c : all)
      if (c.type & want) return c;
  return all.front();
}

}  // namespace

void Runtime::Impl::open_opencl(int platform_index, std::string selector, std::string extra_options) {
  // One thread at a time asks for platforms and devices and makes a
  // context: some OpenCL implementations (PoCL among them) set their
  // devices up at the first such call and, asked from several threads at
  // once, report none to all but one.
  static std::mutex discovery;
  std::lock_guard<std::mutex> lock(discovery);
  const std::vector<Candidate> all = list_devices(platform_index);
  std::string source = "RuntimeOptions::opencl_device";
  if (selector.empty()) {
    if (const char* env = std::getenv("SCANGEN_OPENCL_DEVICE")) selector = env, source = "SCANGEN_OPENCL_DEVICE";
  }
  const Candidate& chosen = selector.empty() ? default_device(all) : select_device(all, selector, source);
  cl_platform = chosen.platform;
  cl_dev = chosen.device;
  cl_int err = CL_SUCCESS;
  cl_ctx = clCreateContext(nullptr, 1, &cl_dev, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) fail(cl_error("clCreateContext", err));
  cl_queue = clCreateCommandQueue(cl_ctx, cl_dev, 0, &err);
  if (err != CL_SUCCESS) fail(cl_error("clCreateCommandQueue", err));
  cl_device_fp_config fp = 0;
  SG_CL(clGetDeviceInfo(cl_dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr));
  cl_exact_divide = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  if (extra_options.empty())
    if (const char* env = std::getenv("SCANGEN_OPENCL_BUILD_OPTIONS")) extra_options = env;
  // The exact-divide flags where the device divides exactly, then the
  // device's paths of the emitted text (shuffles on NVIDIA) and the caller's.
  cl_options = cl_exact_divide ? generator::compile_options(Backend::OpenCL) : "";
  const std::string paths =
      generator::opencl_build_options(cl_platform_string(cl_platform, CL_PLATFORM_NAME), extra_options);
  cl_options += (cl_options.empty() || paths.empty() ? "" : " ") + paths;
  device_name = cl_device_string(cl_dev, CL_DEVICE_NAME);
  plan_device = (chosen.type & CL_DEVICE_TYPE_CPU) ? "opencl cpu" : "";
  backend = Backend::OpenCL;
}

runtime::detail::CacheKey Runtime::Impl::opencl_key(const std::string& source) const {
  return runtime::detail::make_kernel_key(
      source, cl_options,
      cl_platform_string(cl_platform, CL_PLATFORM_NAME) + " " + cl_platform_string(cl_platform, CL_PLATFORM_VERSION),
      cl_device_string(cl_dev, CL_DEVICE_NAME) + " " + cl_device_string(cl_dev, CL_DEVICE_VERSION) + " " +
          cl_device_string(cl_dev, CL_DRIVER_VERSION),
      generator::templates_hash());
}

cl_program Runtime::Impl::cl_build(const std::string& source, const std::vector<uint8_t>* binary,
                                   std::vector<uint8_t>* out_binary) const {
  cl_int err = CL_SUCCESS;
  cl_program prog = nullptr;
  if (binary) {
    const unsigned char* bin = binary->data();
    const size_t size = binary->size();
    cl_int status = CL_SUCCESS;
    prog = clCreateProgramWithBinary(cl_ctx, 1, &cl_dev, &size, &bin, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
      if (prog) clReleaseProgram(prog);
      return nullptr;  // a binary the driver no longer takes: compile again
    }
  } else {
    const char* text = source.c_str();
    prog = clCreateProgramWithSource(cl_ctx, 1, &text, nullptr, &err);
    if (err != CL_SUCCESS) fail(cl_error("clCreateProgramWithSource", err));
  }
  err = clBuildProgram(prog, 1, &cl_dev, cl_options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(prog, cl_dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size) clGetProgramBuildInfo(prog, cl_dev, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    clReleaseProgram(prog);
    if (binary) return nullptr;
    fail(cl_error("clBuildProgram", err) + "\n" + log.c_str());
  }
  if (out_binary) {
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) == CL_SUCCESS && size > 0) {
      out_binary->resize(size);
      unsigned char* p = out_binary->data();
      if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof p, &p, nullptr) != CL_SUCCESS) out_binary->clear();
    }
  }
  return prog;
}

void Runtime::Impl::load_opencl(Scan::State& st, cl_program program) const {
  st.program = program;
  for (const generator::Kernel& k : st.plan.kernels) {
    cl_int err = CL_SUCCESS;
    cl_kernel kernel = clCreateKernel(program, k.name.c_str(), &err);
    if (err != CL_SUCCESS) fail(cl_error(("clCreateKernel (" + k.name + ")").c_str(), err));
    st.cl_kernels[k.name] = kernel;
  }
}

namespace {

// Every buffer holds what the kernels will touch (they do not check).
void check_buffers(const generator::Plan& p, const Scan::OpenCLArgs& a, const runtime::detail::Call& call) {
  runtime::detail::check_input_arrays(p, a.in != nullptr, std::vector<const void*>(a.inputs.begin(), a.inputs.end()),
                                      a.inclusive, a.exclusive, a.n);
  runtime::detail::for_each_buffer(
      p, a, call, [&](cl_mem m, const std::string& what, uint64_t count, uint64_t element, const std::string& type) {
        if (!m || count == 0) return;
        runtime::detail::check_no_overflow(p, count, element, type);
        size_t size = 0;
        SG_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr));
        if (size < count * element)
          fail("scan '" + p.spec.name + "': the " + what + " buffer has " + std::to_string(size) + " bytes, but " +
               std::to_string(count) + " elements of " + type + " (" + std::to_string(element) + " bytes each) need " +
               std::to_string(count * element));
      });
}

// Checked mode: the offsets read back (a blocking read) and checked. Flags
// and keys with a segment_aggregates of fewer than n elements, in every mode:
// read back and counted.
void check_offsets(const generator::Plan& p, const Scan::OpenCLArgs& a, cl_command_queue queue) {
  const dsl::Segments form = p.segmented.form;
  if (a.segment_aggregates && a.n > 0 && (form == dsl::Segments::Flags || form == dsl::Segments::Keys)) {
    const uint64_t capacity = runtime::detail::segment_aggregates_capacity(p, a.segment_count, a.n);
    if (capacity >= a.n) return;
    std::vector<unsigned char> bytes(a.n * (form == dsl::Segments::Flags ? 1 : p.segmented.key_bytes));
    SG_CL(clEnqueueReadBuffer(queue, form == dsl::Segments::Flags ? a.segment_flags : a.keys, CL_TRUE, 0, bytes.size(),
                              bytes.data(), 0, nullptr, nullptr));
    runtime::detail::check_segments_fit(p, bytes, a.n, capacity);
    return;
  }
  if (!a.check_segments || form != dsl::Segments::Offsets) return;
  std::vector<unsigned char> bytes((a.segment_count + 1) * p.segmented.offset_bytes);
  SG_CL(clEnqueueReadBuffer(queue, a.segment_offsets, CL_TRUE, 0, bytes.size(), bytes.data(), 0, nullptr, nullptr));
  runtime::detail::check_offsets(p, bytes, a.segment_count, a.n);
}

// The commands of one call depend on each other (the zeroing of the
// statuses, then up to three kernels). An in-order queue runs them in order
// as they are: no events, no barrier (each event and the barrier cost the
// driver time, about a third of a small call's on NVIDIA's OpenCL). On an
// out-of-order queue each waits on the one before, and a barrier after the
// last holds back what the caller queues next.
class EventChain {
 public:
  explicit EventChain(cl_command_queue queue) {
    cl_command_queue_properties props = 0;
    SG_CL(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr));
    in_order_ = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
  }
  EventChain(const EventChain&) = delete;
  EventChain& operator=(const EventChain&) = delete;
  ~EventChain() {
    if (last_) clReleaseEvent(last_);
  }
  // enqueue(waits, wait list, done event): a clEnqueue call.
  template <class Enqueue>
  void then(const char* call, Enqueue enqueue) {
    if (in_order_) {
      const cl_int err = enqueue(0u, nullptr, nullptr);
      if (err != CL_SUCCESS) fail(cl_error(call, err));
      return;
    }
    cl_event next = nullptr;
    const cl_int err = enqueue(last_ ? 1u : 0u, last_ ? &last_ : nullptr, &next);
    if (err != CL_SUCCESS) fail(cl_error(call, err));
    if (last_) clReleaseEvent(last_);
    last_ = next;
  }
  void barrier(cl_command_queue queue) {
    if (last_) SG_CL(clEnqueueBarrierWithWaitList(queue, 1, &last_, nullptr));
  }

 private:
  bool in_order_ = false;
  cl_event last_ = nullptr;
};

// The call's workspace (the caller's, or the Scan's, grown on demand), its
// statuses zeroed first where the call needs it; null when it needs none.
cl_mem workspace(const Scan::State& st, const Scan::OpenCLArgs& a, const runtime::detail::Call& call,
                 cl_command_queue queue, EventChain& chain) {
  const generator::Plan& p = st.plan;
  const uint64_t need = call.workspace_bytes;
  if (need == 0) return nullptr;
  cl_mem ws = nullptr;
  if (a.workspace) {
    ws = a.workspace;
    size_t size = 0;
    SG_CL(clGetMemObjectInfo(ws, CL_MEM_SIZE, sizeof size, &size, nullptr));
    if (size < need)
      fail("scan '" + p.spec.name + "': the workspace buffer has " + std::to_string(size) + " bytes; " +
           (call.shape.kernel ? std::string("the shape needs ") : std::to_string(a.n) + " elements need ") +
           std::to_string(need));
  } else {
    if (st.workspace_size < need) {
      const uint64_t grown = std::max<uint64_t>(need, st.workspace_size * 2);
      if (st.cl_workspace) clReleaseMemObject(st.cl_workspace);
      st.cl_workspace = nullptr;
      st.workspace_size = 0;
      cl_int err = CL_SUCCESS;
      st.cl_workspace = clCreateBuffer(st.rt->cl_ctx, CL_MEM_READ_WRITE, grown, nullptr, &err);
      if (err != CL_SUCCESS) fail(cl_error("clCreateBuffer (the scan's workspace)", err));
      st.workspace_size = grown;
    }
    ws = st.cl_workspace;
  }
  if (const uint64_t zero = call.zero_bytes) {  // the ticket and the statuses
    const cl_uchar zero_byte = 0;               // OpenCL 1.2's clEnqueueFillBuffer
    chain.then("clEnqueueFillBuffer (zeroing the workspace's statuses)",
               [&](cl_uint waits, const cl_event* wait, cl_event* done) {
                 return clEnqueueFillBuffer(queue, ws, &zero_byte, 1, 0, zero, waits, wait, done);
               });
  }
  return ws;
}

// Where a buffer lies: the buffer it was made from (a sub-buffer's,
// CL_MEM_ASSOCIATED_MEMOBJECT) and its offset there, so that outputs that
// overlap through sub-buffers are seen; a null buffer has a null root.
struct MemRange {
  const void* root = nullptr;
  uint64_t offset = 0;
};
MemRange mem_range(cl_mem m, const char* what) {
  if (!m) return {};
  cl_mem parent = nullptr;
  cl_int err = clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, nullptr);
  if (err != CL_SUCCESS)
    fail(std::string("clGetMemObjectInfo(CL_MEM_ASSOCIATED_MEMOBJECT) of the ") + what +
         " buffer failed with OpenCL error " + std::to_string(err) + " (is it a buffer of this context?)");
  if (!parent) return {m, 0};
  size_t offset = 0;
  err = clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof offset, &offset, nullptr);
  if (err != CL_SUCCESS)
    fail(std::string("clGetMemObjectInfo(CL_MEM_OFFSET) of the ") + what + " sub-buffer failed with OpenCL error " +
         std::to_string(err));
  return {parent, offset};
}

// Scan::run, and with `reduce` Scan::reduce: the checks, then the launches.
void run_opencl(const Scan::State& st, const Scan::OpenCLArgs& a, bool reduce) {
  const generator::Plan& p = st.plan;
  const runtime::detail::Call call = runtime::detail::checked_call(p, a, reduce);
  {
    const MemRange inc = mem_range(a.inclusive, "inclusive"), exc = mem_range(a.exclusive, "exclusive");
    runtime::detail::check_outputs_apart(p, inc.root, inc.offset, exc.root, exc.offset,
                                         runtime::detail::out_bytes(p, call));
  }
  check_buffers(p, a, call);
  std::lock_guard<std::mutex> lock(st.mutex);
  cl_command_queue queue = a.queue ? a.queue : st.rt->cl_queue;
  check_offsets(p, a, queue);
  EventChain chain(queue);
  const cl_mem ws = workspace(st, a, call, queue, chain);
  runtime::detail::KernelArgs<Scan::OpenCLArgs, cl_mem> args(p, a, call, ws);
  for (const auto& [k, blocks] : call.launches) {
    cl_kernel kernel = st.cl_kernels.at(k->name);
    cl_uint i = 0;
    for (const generator::KernelParam& param : k->params) {
      const auto [size, value] = args(param);
      SG_CL(clSetKernelArg(kernel, i++, size, value));
    }
    const size_t local = static_cast<size_t>(p.block_threads);
    const size_t global = static_cast<size_t>(blocks) * local;
    chain.then("clEnqueueNDRangeKernel", [&](cl_uint waits, const cl_event* wait, cl_event* done) {
      return clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, waits, wait, done);
    });
  }
  chain.barrier(queue);
}

// A call with host_aggregate or host_running_total: through the State's
// staging buffer, written before the call and read after it (blocking).
void run_opencl_host_totals(const Scan::State& st, const Scan::OpenCLArgs& a, bool reduce) {
  const generator::Plan& p = st.plan;
  runtime::detail::check_host_totals(p, a.aggregate, a.host_aggregate, a.running_total, a.host_running_total);
  std::lock_guard<std::mutex> lock(st.staging_mutex);
  const size_t bytes = p.element_bytes;
  for (cl_mem& m : st.cl_totals)
    if (!m) {
      cl_int err = CL_SUCCESS;
      m = clCreateBuffer(st.rt->cl_ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
      if (err != CL_SUCCESS) fail(cl_error("clCreateBuffer (the device copies of the host totals)", err));
    }
  cl_command_queue queue = a.queue ? a.queue : st.rt->cl_queue;
  Scan::OpenCLArgs b = a;
  b.host_aggregate = b.host_running_total = nullptr;
  cl_mem agg = st.cl_totals[0], total = st.cl_totals[1];
  if (a.host_aggregate) b.aggregate = agg;
  if (a.host_running_total) {
    b.running_total = total;
    SG_CL(clEnqueueWriteBuffer(queue, total, CL_TRUE, 0, bytes, a.host_running_total, 0, nullptr, nullptr));
  }
  run_opencl(st, b, reduce);  // on an out-of-order queue it ends with a barrier: the reads come after it
  if (a.host_aggregate)
    SG_CL(clEnqueueReadBuffer(queue, agg, CL_TRUE, 0, bytes, a.host_aggregate, 0, nullptr, nullptr));
  if (a.host_running_total)
    SG_CL(clEnqueueReadBuffer(queue, total, CL_TRUE, 0, bytes, a.host_running_total, 0, nullptr, nullptr));
}

const Scan::State& opencl_state(const std::shared_ptr<Scan::State>& s) {
  const Scan::State& st = runtime::detail::state_of(s);
  if (st.plan.backend != Backend::OpenCL)
    fail("scan '" + st.plan.spec.name + "' was compiled for CUDA; launch it with CudaArgs");
  return st;
}

}  // namespace

void Scan::run(const OpenCLArgs& a) const {
  const State& st = opencl_state(s_);
  if (a.host_aggregate || a.host_running_total) return run_opencl_host_totals(st, a, false);
  run_opencl(st, a, false);
}

void Scan::reduce(const OpenCLArgs& a) const {
  const State& st = opencl_state(s_);
  if (a.host_aggregate || a.host_running_total) return run_opencl_host_totals(st, a, true);
  run_opencl(st, a, true);
}

}  // namespace scangen
