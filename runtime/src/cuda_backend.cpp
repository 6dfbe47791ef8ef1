// The CUDA backend: the device (libcuda through cuda_driver.h), NVRTC
// (nvrtc_program.h), the cache key of a CUDA binary, loading a module, and
// Scan::run with CudaArgs.
#include <algorithm>
#include <cstdint>

#include "nvrtc_program.h"
#include "kernel_args.h"
#include "runtime_impl.h"
#include "tiers.h"
#include "scangen/generator/emit.h"

namespace scangen {

using runtime::detail::describe;
using runtime::detail::Driver;
using runtime::detail::fail;

void Runtime::Impl::open_cuda(int ordinal) {
  std::string why;
  driver = runtime::detail::load_driver(&why);
  if (!driver) fail(why + "; the OpenCL backend (Runtime({Backend::OpenCL})) needs no CUDA driver");
  int count = 0;
  CUresult r = driver->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) fail(describe(*driver, "cuDeviceGetCount", r));
  if (count == 0)
    fail("the CUDA driver sees no GPU; the OpenCL backend (Runtime({Backend::OpenCL})) may have a device");
  if (ordinal < 0 || ordinal >= count)
    fail("CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " present)");
  if ((r = driver->cuDeviceGet(&cu_device, ordinal)) != CUDA_SUCCESS) fail(describe(*driver, "cuDeviceGet", r));
  if ((r = driver->cuDevicePrimaryCtxRetain(&cu_context, cu_device)) != CUDA_SUCCESS)
    fail(describe(*driver, "cuDevicePrimaryCtxRetain", r));
  int major = 0, minor = 0;
  if ((r = driver->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu_device)) !=
          CUDA_SUCCESS ||
      (r = driver->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu_device)) !=
          CUDA_SUCCESS)
    fail(describe(*driver, "cuDeviceGetAttribute (compute capability)", r));
  sm = major * 10 + minor;
  // The name also picks the tuning table's rows for a device (generator::Target::device).
  char name[256] = {};
  if ((r = driver->cuDeviceGetName(name, sizeof name - 1, cu_device)) != CUDA_SUCCESS)
    fail(describe(*driver, "cuDeviceGetName", r));
  device_name = name;
  backend = Backend::Cuda;
}

void Runtime::Impl::make_current() const {
  const CUresult r = driver->cuCtxSetCurrent(cu_context);
  if (r != CUDA_SUCCESS) fail(describe(*driver, "cuCtxSetCurrent", r));
}

std::string Runtime::Impl::nvrtc_arch() const {
  std::vector<int> archs;
  try {
    archs = nvrtc_support::supported_archs();
  } catch (const nvrtc_support::Error& e) {
    fail(e.what());
  }
  const bool known = std::find(archs.begin(), archs.end(), sm) != archs.end();
  int ptx_arch = 0;
  for (int a : archs)
    if (a <= sm) ptx_arch = std::max(ptx_arch, a);
  if (!known && ptx_arch == 0)
    fail("NVRTC cannot compile for sm_" + std::to_string(sm) + " (it knows sm_" + std::to_string(archs.front()) +
         " and newer)");
  return known ? "sm_" + std::to_string(sm) : "compute_" + std::to_string(ptx_arch);
}

runtime::detail::CacheKey Runtime::Impl::cuda_key(const std::string& source, const std::string& arch, Tier tier) const {
  std::string nvrtc_version, driver_version;
  try {
    nvrtc_version = nvrtc_support::version();
  } catch (const nvrtc_support::Error& e) {
    fail(e.what());
  }
  if (arch.rfind("compute_", 0) == 0) {  // PTX is compiled by the driver when loaded: its version counts too
    int v = 0;
    const CUresult r = driver->cuDriverGetVersion(&v);
    if (r != CUDA_SUCCESS) fail(describe(*driver, "cuDriverGetVersion", r));
    driver_version = " driver " + std::to_string(v);
  }
  return runtime::detail::make_kernel_key(source, runtime::detail::tier_key_options(arch, tier),
                                          "nvrtc " + nvrtc_version, "sm_" + std::to_string(sm) + driver_version,
                                          generator::templates_hash());
}

std::vector<uint8_t> Runtime::Impl::nvrtc_compile(const std::string& source, const std::string& name,
                                                  const std::string& arch, Tier tier) const {
  nvrtc_support::Compiled c;
  try {
    c = nvrtc_support::compile(source, name, arch, runtime::detail::tier_nvrtc_options(tier));
  } catch (const nvrtc_support::Error& e) {
    fail(e.what());
  }
  if (c.status != NVRTC_SUCCESS)
    fail(nvrtc_support::describe("nvrtcCompileProgram", c.status) + " (" + c.option + ")\n" + c.log +
         (c.builtins.empty() ? "" : "\n" + c.builtins));
  return std::vector<uint8_t>(c.code.begin(), c.code.end());
}

std::unique_ptr<runtime::detail::CudaModule> Runtime::Impl::load_cuda(const generator::Plan& plan,
                                                                      const std::vector<uint8_t>& code,
                                                                      Tier tier) const {
  make_current();
  std::vector<uint8_t> image = code;
  image.push_back(0);  // PTX is text: terminate it
  auto m = std::make_unique<runtime::detail::CudaModule>();
  m->tier = tier;
  CUresult r = CUDA_SUCCESS;
  const int level = runtime::detail::tier_jit_level(tier);
  if (level < 0) {
    r = driver->cuModuleLoadData(&m->module, image.data());
    if (r != CUDA_SUCCESS) fail(describe(*driver, "cuModuleLoadData", r));
  } else {
    // PTX for the driver's JIT at `level`, its log kept for an error.
    std::vector<char> log(8192, '\0');
    CUjit_option opt[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* val[] = {reinterpret_cast<void*>(static_cast<uintptr_t>(level)), log.data(),
                   reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
    r = driver->cuModuleLoadDataEx(&m->module, image.data(), 3, opt, val);
    if (r != CUDA_SUCCESS)
      fail(describe(*driver, ("cuModuleLoadDataEx (PTX, JIT -O" + std::to_string(level) + ")").c_str(), r) +
           (log[0] ? "\n" + std::string(log.data()) : ""));
  }
  for (const generator::Kernel& k : plan.kernels) {
    CUfunction fn;
    if ((r = driver->cuModuleGetFunction(&fn, m->module, k.name.c_str())) != CUDA_SUCCESS) {
      driver->cuModuleUnload(m->module);
      fail(describe(*driver, ("cuModuleGetFunction (" + k.name + ")").c_str(), r));
    }
    if (k.dynamic_shared_bytes > 0 &&  // past 48 KiB a kernel's dynamic shared memory must be allowed first
        (r = driver->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(k.dynamic_shared_bytes))) != CUDA_SUCCESS) {
      driver->cuModuleUnload(m->module);
      fail(describe(*driver,
                    ("cuFuncSetAttribute (" + k.name + ", " + std::to_string(k.dynamic_shared_bytes) +
                     " bytes of dynamic shared memory)")
                        .c_str(),
                    r));
    }
    m->functions[k.name] = fn;
  }
  if (!plan.zero_kernel.empty()) {  // the workspace's zeroing kernel (Plan::zero_kernel)
    CUfunction fn;
    if ((r = driver->cuModuleGetFunction(&fn, m->module, plan.zero_kernel.c_str())) != CUDA_SUCCESS) {
      driver->cuModuleUnload(m->module);
      fail(describe(*driver, ("cuModuleGetFunction (" + plan.zero_kernel + ")").c_str(), r));
    }
    m->functions[plan.zero_kernel] = fn;
  }
  return m;
}

namespace {

// Every pointer to memory the driver allocated (cuMemAlloc, cudaMalloc,
// managed memory) must hold what the kernels will touch from where it
// points; the driver cannot size other memory (host-registered or mapped by
// the virtual memory API): that is the caller's to get right.
void check_ranges(const Driver& d, const generator::Plan& p, const Scan::CudaArgs& a,
                  const runtime::detail::Call& call) {
  runtime::detail::check_input_arrays(p, a.in != nullptr, a.inputs, a.inclusive, a.exclusive, a.n);
  auto check_range = [&](const void* ptr, const std::string& what, uint64_t count, uint64_t element,
                         const std::string& type) {
    if (!ptr || count == 0) return;
    runtime::detail::check_no_overflow(p, count, element, type);
    CUdeviceptr base = 0;
    size_t size = 0;
    const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(ptr);
    if (d.cuMemGetAddressRange(&base, &size, at) != CUDA_SUCCESS) return;  // not the driver's to size
    const uint64_t room = base + size - at;
    if (room < count * element)
      fail("scan '" + p.spec.name + "': the " + what + " pointer has " + std::to_string(room) +
           " bytes of its allocation after it, but " + std::to_string(count) + " elements of " + type + " (" +
           std::to_string(element) + " bytes each) need " + std::to_string(count * element));
  };
  runtime::detail::for_each_buffer(p, a, call, check_range);
  if (a.workspace) check_range(a.workspace, "workspace", call.workspace_bytes, 1, "workspace byte");
}

// Checked mode: the offsets copied back and checked. Flags and keys with a
// segment_aggregates of fewer than n elements, in every mode: copied back
// (after the stream's work) and counted.
void check_offsets(const Driver& d, const generator::Plan& p, const Scan::CudaArgs& a) {
  const dsl::Segments form = p.segmented.form;
  if (a.segment_aggregates && a.n > 0 && (form == dsl::Segments::Flags || form == dsl::Segments::Keys)) {
    const uint64_t capacity = runtime::detail::segment_aggregates_capacity(p, a.segment_count, a.n);
    if (capacity >= a.n) return;
    std::vector<unsigned char> bytes(a.n * (form == dsl::Segments::Flags ? 1 : p.segmented.key_bytes));
    const void* from = form == dsl::Segments::Flags ? a.segment_flags : a.keys;
    CUresult r = d.cuStreamSynchronize(static_cast<CUstream>(a.stream));
    if (r != CUDA_SUCCESS) fail(describe(d, "cuStreamSynchronize (before the segments are counted)", r));
    r = d.cuMemcpyDtoH(bytes.data(), reinterpret_cast<CUdeviceptr>(from), bytes.size());
    if (r != CUDA_SUCCESS) fail(describe(d, "cuMemcpyDtoH (the segment flags or keys, to count the segments)", r));
    runtime::detail::check_segments_fit(p, bytes, a.n, capacity);
    return;
  }
  if (!a.check_segments || p.segmented.form != dsl::Segments::Offsets) return;
  std::vector<unsigned char> bytes((a.segment_count + 1) * p.segmented.offset_bytes);
  CUresult r = d.cuStreamSynchronize(static_cast<CUstream>(a.stream));  // the offsets may be the stream's work
  if (r != CUDA_SUCCESS) fail(describe(d, "cuStreamSynchronize (before the segment offsets are checked)", r));
  r = d.cuMemcpyDtoH(bytes.data(), reinterpret_cast<CUdeviceptr>(a.segment_offsets), bytes.size());
  if (r != CUDA_SUCCESS) fail(describe(d, "cuMemcpyDtoH (the segment offsets, to check them)", r));
  runtime::detail::check_offsets(p, bytes, a.segment_count, a.n);
}

// The call's workspace (the caller's, or the Scan's, grown on demand), its
// statuses zeroed on `stream` where the call needs it (by a memset, or, with
// `by_kernel`, by the plan's zero kernel that the caller launches); 0 when
// it needs none. The Scan's own workspace under a plan with epoch_tags is
// zeroed whole only when it is new and every kEpochCallsBeforeZero calls
// (its statuses carry the call's epoch; a caller's workspace is zeroed for
// each call, as the caller may run other scans in it between two calls).
CUdeviceptr workspace(const Scan::State& st, const Scan::CudaArgs& a, const runtime::detail::Call& call,
                      CUstream stream, bool by_kernel) {
  const generator::Plan& p = st.plan;
  const Driver& d = *st.rt->driver;
  const uint64_t need = call.workspace_bytes;
  if (need == 0) return 0;
  CUdeviceptr ws = 0;
  if (a.workspace) {
    ws = reinterpret_cast<CUdeviceptr>(a.workspace);
    if (a.workspace_size < need)
      fail("scan '" + p.spec.name + "': the workspace has " + std::to_string(a.workspace_size) + " bytes; " +
           (call.shape.kernel ? std::string("the shape needs ") : std::to_string(a.n) + " elements need ") +
           std::to_string(need));
    if (ws % 16 != 0) fail("scan '" + p.spec.name + "': the workspace must be 16-byte aligned");
  } else {
    if (st.workspace_size < need) {
      const uint64_t grown = std::max<uint64_t>(need, st.workspace_size * 2);
      if (st.cu_workspace) d.cuMemFree(st.cu_workspace);
      st.cu_workspace = 0;
      st.workspace_size = 0;
      const CUresult r = d.cuMemAlloc(&st.cu_workspace, grown);
      if (r != CUDA_SUCCESS) fail(describe(d, "cuMemAlloc (the scan's workspace)", r));
      st.workspace_size = grown;
      st.workspace_epoch_calls = 0;
    }
    ws = st.cu_workspace;
  }
  uint64_t zero = by_kernel ? 0 : call.zero_bytes;  // the ticket and the statuses
  if (!a.workspace && p.epoch_tags && call.zero_bytes != 0)
    zero = generator::workspace_epoch_call(p, a.n, st.workspace_epoch_calls) ? st.workspace_size : 0;
  if (zero != 0) {
    const CUresult r = d.cuMemsetD8Async(ws, 0, zero, stream);
    if (r != CUDA_SUCCESS) fail(describe(d, "cuMemsetD8Async (zeroing the workspace's statuses)", r));
  }
  return ws;
}

// The plan's workspace-zeroing kernel over the first zero_kernel_words(p, n) words of *ws.
void launch_zero_kernel(const Driver& d, const runtime::detail::CudaModule& module, const generator::Plan& p,
                        uint64_t n, CUdeviceptr* ws, CUstream stream) {
  unsigned long long words = generator::zero_kernel_words(p, n);
  void* zero_params[] = {&words, ws};
  const CUresult r = d.cuLaunchKernel(module.functions.at(p.zero_kernel),
                                      static_cast<unsigned int>(generator::zero_kernel_blocks(p, n)), 1, 1, 256, 1, 1,
                                      0, stream, zero_params, nullptr);
  if (r != CUDA_SUCCESS) fail(describe(d, ("cuLaunchKernel (" + p.zero_kernel + ")").c_str(), r));
}

// One kernel of the call; `dependent`: as the zero kernel's programmatic dependent, which it overlaps.
void launch_scan_kernel(const Driver& d, const runtime::detail::CudaModule& module, const generator::Plan& p,
                        const generator::Kernel& k, uint64_t blocks, std::vector<void*>& params, CUstream stream,
                        bool dependent) {
  if (dependent) {
    CUlaunchAttribute attribute{};
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig config{};
    config.gridDimX = static_cast<unsigned int>(blocks);
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = static_cast<unsigned int>(p.block_threads);
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = static_cast<unsigned int>(k.dynamic_shared_bytes);
    config.hStream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    const CUresult r = d.cuLaunchKernelEx(&config, module.functions.at(k.name), params.data(), nullptr);
    if (r != CUDA_SUCCESS)
      fail(describe(d, ("cuLaunchKernelEx (" + k.name + ", a programmatic dependent launch)").c_str(), r));
    return;
  }
  const CUresult r = d.cuLaunchKernel(
      module.functions.at(k.name), static_cast<unsigned int>(blocks), 1, 1, static_cast<unsigned int>(p.block_threads),
      1, 1, static_cast<unsigned int>(k.dynamic_shared_bytes), stream, params.data(), nullptr);
  if (r != CUDA_SUCCESS) fail(describe(d, ("cuLaunchKernel (" + k.name + ")").c_str(), r));
}

}  // namespace

// Scan::run passes the input arrays' pointers (CudaArgs::inputs) to the launch as they lie.
static_assert(sizeof(const void*) == sizeof(CUdeviceptr), "a device pointer is a CUdeviceptr's 64 bits");

namespace {

// Scan::run, and with `reduce` Scan::reduce: the checks, then the launches.
void run_cuda(const Scan::State& st, const Scan::CudaArgs& a, bool reduce) {
  const generator::Plan& p = st.plan;
  Runtime::Impl& rt = *st.rt;
  const Driver& d = *rt.driver;
  const runtime::detail::Call call = runtime::detail::checked_call(p, a, reduce);
  static const char kDevice = 0;  // one address space: every pointer a range of it
  runtime::detail::check_outputs_apart(p, a.inclusive ? &kDevice : nullptr, reinterpret_cast<uintptr_t>(a.inclusive),
                                       a.exclusive ? &kDevice : nullptr, reinterpret_cast<uintptr_t>(a.exclusive),
                                       runtime::detail::out_bytes(p, call));
  // The tier's module, read once: every launch of this call uses it.
  const runtime::detail::CudaModule& module = *st.cu_current.load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(st.mutex);
  rt.make_current();
  check_ranges(d, p, a, call);
  check_offsets(d, p, a);
  CUstream stream = static_cast<CUstream>(a.stream);
  // From kZeroKernelFromTiles tiles on sm_90 and later: the workspace zeroed by the plan's kernel, which
  // the scan kernel overlaps (a programmatic dependent launch), instead of a memset.
  // Not for the Scan's own workspace under epoch tags: that is zeroed once (see workspace()).
  const bool by_kernel = !(p.epoch_tags && !a.workspace) && generator::zero_by_kernel(p, a.n, rt.sm);
  runtime::detail::KernelArgs<Scan::CudaArgs, CUdeviceptr> args(p, a, call, workspace(st, a, call, stream, by_kernel));
  if (by_kernel) launch_zero_kernel(d, module, p, a.n, args.workspace(), stream);
  for (const auto& [k, blocks] : call.launches) {
    std::vector<void*> params;
    for (const generator::KernelParam& param : k->params) params.push_back(const_cast<void*>(args(param).second));
    // by_kernel: the one kernel of a look-back scan, as the zero kernel's programmatic dependent
    launch_scan_kernel(d, module, p, *k, blocks, params, stream, by_kernel);
  }
}

// A call with host_aggregate or host_running_total: through the State's
// staging buffer on the device, then back, waiting for the stream.
void run_cuda_host_totals(const Scan::State& st, const Scan::CudaArgs& a, bool reduce) {
  const generator::Plan& p = st.plan;
  const Driver& d = *st.rt->driver;
  runtime::detail::check_host_totals(p, a.aggregate, a.host_aggregate, a.running_total, a.host_running_total);
  std::lock_guard<std::mutex> lock(st.staging_mutex);
  const uint64_t at_total = runtime::detail::totals_offset(p), bytes = p.element_bytes;
  {
    std::lock_guard<std::mutex> state_lock(st.mutex);
    st.rt->make_current();
    if (!st.cu_totals) {
      const CUresult r = d.cuMemAlloc(&st.cu_totals, 2 * at_total);
      if (r != CUDA_SUCCESS) fail(describe(d, "cuMemAlloc (the device copies of the host totals)", r));
    }
  }
  CUstream stream = static_cast<CUstream>(a.stream);
  Scan::CudaArgs b = a;
  b.host_aggregate = b.host_running_total = nullptr;
  if (a.host_aggregate) b.aggregate = reinterpret_cast<void*>(st.cu_totals);
  if (a.host_running_total) {
    b.running_total = reinterpret_cast<void*>(st.cu_totals + at_total);
    const CUresult r = d.cuMemcpyHtoDAsync(st.cu_totals + at_total, a.host_running_total, bytes, stream);
    if (r != CUDA_SUCCESS) fail(describe(d, "cuMemcpyHtoDAsync (the running total to the device)", r));
  }
  run_cuda(st, b, reduce);
  if (a.host_aggregate) {
    const CUresult r = d.cuMemcpyDtoHAsync(a.host_aggregate, st.cu_totals, bytes, stream);
    if (r != CUDA_SUCCESS) fail(describe(d, "cuMemcpyDtoHAsync (the aggregate to the host)", r));
  }
  if (a.host_running_total) {
    const CUresult r = d.cuMemcpyDtoHAsync(a.host_running_total, st.cu_totals + at_total, bytes, stream);
    if (r != CUDA_SUCCESS) fail(describe(d, "cuMemcpyDtoHAsync (the running total to the host)", r));
  }
  const CUresult r = d.cuStreamSynchronize(stream);
  if (r != CUDA_SUCCESS) fail(describe(d, "cuStreamSynchronize (after the scan, for its host totals)", r));
}

const Scan::State& cuda_state(const std::shared_ptr<Scan::State>& s) {
  const Scan::State& st = runtime::detail::state_of(s);
  if (st.plan.backend != Backend::Cuda)
    fail("scan '" + st.plan.spec.name + "' was compiled for OpenCL; launch it with OpenCLArgs");
  return st;
}

}  // namespace

void Scan::run(const CudaArgs& a) const {
  const State& st = cuda_state(s_);
  if (a.host_aggregate || a.host_running_total) return run_cuda_host_totals(st, a, false);
  run_cuda(st, a, false);
}

void Scan::reduce(const CudaArgs& a) const {
  const State& st = cuda_state(s_);
  if (a.host_aggregate || a.host_running_total) return run_cuda_host_totals(st, a, true);
  run_cuda(st, a, true);
}

}  // namespace scangen
