#include "scangen/runtime/runtime.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <nvrtc.h>

#include "nvrtc_builtins.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <sstream>
#include <vector>

#include "cache.h"
#include "cuda_driver.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/reference/reference.h"

namespace scangen {

using runtime::detail::CacheKey;
using runtime::detail::describe;
using runtime::detail::DiskCache;
using runtime::detail::Driver;
using runtime::detail::load_driver;
using runtime::detail::MemoryCache;
using dsl::Algorithm;

namespace {


[[noreturn]] void fail(const std::string& what) { throw Error("scangen: " + what); }

std::string cl_error(const char* call, cl_int e) { return std::string(call) + " failed with OpenCL error " + std::to_string(e); }

#define SG_CL(call)                                  \
  do {                                               \
    const cl_int e_ = (call);                        \
    if (e_ != CL_SUCCESS) fail(cl_error(#call, e_)); \
  } while (0)

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

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

// ---- the runtime -----------------------------------------------------------------

struct Runtime::Impl {
  Backend backend = Backend::Cuda;
  std::string device_name, fallback_reason;

  // CUDA
  const Driver* driver = nullptr;
  CUdevice cu_device = 0;
  CUcontext cu_context = nullptr;
  int sm = 0;  // 90 for sm_90

  // OpenCL
  cl_platform_id cl_platform = nullptr;
  cl_device_id cl_dev = nullptr;
  cl_context cl_ctx = nullptr;
  cl_command_queue cl_queue = nullptr;
  bool cl_exact_divide = false;

  // Scans already compiled from a text (and name): the fast path of a
  // memory hit, before any parsing or code generation. Weak: a Scan keeps
  // the runtime alive, not the other way round.
  std::mutex by_text_mutex;
  std::map<std::string, std::weak_ptr<Scan::State>> by_text;

  // The compiled code, by key; the disk cache under it.
  MemoryCache<std::vector<uint8_t>> memory;
  DiskCache disk;
  mutable std::mutex stats_mutex;
  CacheStats stats;

  ~Impl() {
    if (cl_queue) clReleaseCommandQueue(cl_queue);
    if (cl_ctx) clReleaseContext(cl_ctx);
    if (cu_context && driver) driver->cuDevicePrimaryCtxRelease(cu_device);
  }

  void open_cuda(int ordinal) {
    std::string why;
    driver = load_driver(&why);
    if (!driver) fail(why + "; the OpenCL backend (Runtime({Backend::OpenCL})) needs no CUDA driver");
    int count = 0;
    CUresult r = driver->cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS) fail(describe(*driver, "cuDeviceGetCount", r));
    if (count == 0) fail("the CUDA driver sees no GPU; the OpenCL backend (Runtime({Backend::OpenCL})) may have a device");
    if (ordinal < 0 || ordinal >= count)
      fail("CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " present)");
    if ((r = driver->cuDeviceGet(&cu_device, ordinal)) != CUDA_SUCCESS) fail(describe(*driver, "cuDeviceGet", r));
    if ((r = driver->cuDevicePrimaryCtxRetain(&cu_context, cu_device)) != CUDA_SUCCESS)
      fail(describe(*driver, "cuDevicePrimaryCtxRetain", r));
    int major = 0, minor = 0;
    driver->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu_device);
    driver->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu_device);
    sm = major * 10 + minor;
    char name[256] = {};
    driver->cuDeviceGetName(name, sizeof name - 1, cu_device);
    device_name = name;
    backend = Backend::Cuda;
  }

  void make_current() const {
    const CUresult r = driver->cuCtxSetCurrent(cu_context);
    if (r != CUDA_SUCCESS) fail(describe(*driver, "cuCtxSetCurrent", r));
  }

  void open_opencl(int platform_index, std::string selector) {
    // One thread at a time asks for platforms and devices and makes a
    // context: some OpenCL implementations (PoCL among them) set their
    // devices up at the first such call and, asked from several threads at
    // once, report none to all but one.
    static std::mutex discovery;
    std::lock_guard<std::mutex> lock(discovery);
    cl_uint count = 0;
    cl_int e = clGetPlatformIDs(0, nullptr, &count);
    if (e != CL_SUCCESS || count == 0)
      fail("no OpenCL platform (clGetPlatformIDs: " + std::to_string(e) + "); install one, e.g. PoCL for the CPU");
    std::vector<cl_platform_id> platforms(count);
    SG_CL(clGetPlatformIDs(count, platforms.data(), nullptr));
    struct Candidate {
      cl_platform_id platform;
      cl_device_id device;
      std::string label;  // "P:D platform / device"
      cl_device_type type;
    };
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
    std::string source = "RuntimeOptions::opencl_device";
    if (selector.empty()) {
      if (const char* env = std::getenv("SCANGEN_OPENCL_DEVICE")) selector = env, source = "SCANGEN_OPENCL_DEVICE";
    }
    const Candidate* chosen = nullptr;
    if (!selector.empty()) {
      const auto lower = [](std::string t) {
        for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return t;
      };
      const bool indices = selector.find_first_not_of("0123456789:") == std::string::npos;
      for (const Candidate& c : all) {
        const std::string index = c.label.substr(0, c.label.find(' '));
        if (indices ? (index == selector || index == selector + ":0")
                    : lower(c.label.substr(c.label.find(' ') + 1)).find(lower(selector)) != std::string::npos) {
          chosen = &c;
          break;
        }
      }
      if (!chosen) {
        std::string list;
        for (const Candidate& c : all) list += "\n  " + c.label;
        fail("no OpenCL device matches '" + selector + "' (" + source +
             "; give \"P:D\" or a piece of a platform's or device's name); there are:" + list);
      }
    } else {
      // A GPU first, then an accelerator, then whatever there is (PoCL's CPU).
      for (cl_device_type want : {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ACCELERATOR),
                                  cl_device_type(CL_DEVICE_TYPE_ALL)}) {
        for (const Candidate& c : all)
          if (c.type & want) {
            chosen = &c;
            break;
          }
        if (chosen) break;
      }
    }
    cl_platform = chosen->platform;
    cl_dev = chosen->device;
    cl_int err = CL_SUCCESS;
    cl_ctx = clCreateContext(nullptr, 1, &cl_dev, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) fail(cl_error("clCreateContext", err));
    cl_queue = clCreateCommandQueue(cl_ctx, cl_dev, 0, &err);
    if (err != CL_SUCCESS) fail(cl_error("clCreateCommandQueue", err));
    cl_device_fp_config fp = 0;
    SG_CL(clGetDeviceInfo(cl_dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr));
    cl_exact_divide = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    device_name = cl_device_string(cl_dev, CL_DEVICE_NAME);
    backend = Backend::OpenCL;
  }

  void count(bool memory_hit, bool disk_hit, double ms) {
    std::lock_guard<std::mutex> lock(stats_mutex);
    if (memory_hit) ++stats.memory_hits;
    else if (disk_hit) ++stats.disk_hits;
    else ++stats.misses;
    stats.compile_ms += ms;
  }

  // What NVRTC compiles for: the device's architecture (a cubin), or PTX for
  // the newest architecture NVRTC knows when the device is newer.
  std::string nvrtc_arch() const {
    int n = 0;
    nvrtcResult r = nvrtcGetNumSupportedArchs(&n);
    if (r != NVRTC_SUCCESS) fail(std::string("nvrtcGetNumSupportedArchs failed: ") + nvrtcGetErrorString(r));
    std::vector<int> archs(static_cast<size_t>(n));
    if ((r = nvrtcGetSupportedArchs(archs.data())) != NVRTC_SUCCESS)
      fail(std::string("nvrtcGetSupportedArchs failed: ") + nvrtcGetErrorString(r));
    const bool known = std::find(archs.begin(), archs.end(), sm) != archs.end();
    int ptx_arch = 0;
    for (int a : archs)
      if (a <= sm) ptx_arch = std::max(ptx_arch, a);
    if (!known && ptx_arch == 0)
      fail("NVRTC cannot compile for sm_" + std::to_string(sm) + " (it knows sm_" + std::to_string(archs.front()) +
           " and newer)");
    return known ? "sm_" + std::to_string(sm) : "compute_" + std::to_string(ptx_arch);
  }

  // NVRTC's options for `arch` (nvrtc_arch()): part of the cache key.
  static std::string nvrtc_option(const std::string& arch) { return "--gpu-architecture=" + arch; }

  std::vector<uint8_t> nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) const {
    nvrtcResult r = NVRTC_SUCCESS;
    const std::string option = nvrtc_option(arch);
    const std::string& builtins = nvrtc_support::load_builtins();  // "" once loaded
    nvrtcProgram prog;
    if ((r = nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr)) != NVRTC_SUCCESS)
      fail(std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(r));
    const char* options[] = {option.c_str()};
    const nvrtcResult built = nvrtcCompileProgram(prog, 1, options);
    // Every call checked; the program destroyed on every way out.
    const auto check = [&](nvrtcResult result, const char* call) {
      if (result == NVRTC_SUCCESS) return;
      nvrtcDestroyProgram(&prog);
      fail(std::string(call) + " failed: " + nvrtcGetErrorString(result));
    };
    size_t size = 0;
    check(nvrtcGetProgramLogSize(prog, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size) check(nvrtcGetProgramLog(prog, log.data()), "nvrtcGetProgramLog");
    if (built != NVRTC_SUCCESS) {
      nvrtcDestroyProgram(&prog);
      fail(std::string("nvrtcCompileProgram failed: ") + nvrtcGetErrorString(built) + " (" + option + ")\n" +
           log.c_str() + (builtins.empty() ? "" : "\n" + builtins));
    }
    std::vector<uint8_t> code;
    if (arch.rfind("sm_", 0) == 0) {
      check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
      code.resize(size);
      check(nvrtcGetCUBIN(prog, reinterpret_cast<char*>(code.data())), "nvrtcGetCUBIN");
    } else {
      check(nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize");
      code.resize(size);
      check(nvrtcGetPTX(prog, reinterpret_cast<char*>(code.data())), "nvrtcGetPTX");
    }
    nvrtcDestroyProgram(&prog);
    return code;
  }

  std::string cuda_driver_version() const {
    int v = 0;
    const CUresult r = driver->cuDriverGetVersion(&v);
    if (r != CUDA_SUCCESS) fail(describe(*driver, "cuDriverGetVersion", r));
    return std::to_string(v);
  }

  std::string nvrtc_version() const {
    int major = 0, minor = 0;
    const nvrtcResult r = nvrtcVersion(&major, &minor);
    if (r != NVRTC_SUCCESS) fail(std::string("nvrtcVersion failed: ") + nvrtcGetErrorString(r));
    return std::to_string(major) + "." + std::to_string(minor);
  }

  cl_program cl_build(const std::string& source, const std::vector<uint8_t>* binary, std::vector<uint8_t>* out_binary) const {
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
    const std::string options = cl_exact_divide ? generator::compile_options(Backend::OpenCL) : "";
    err = clBuildProgram(prog, 1, &cl_dev, options.c_str(), nullptr, nullptr);
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
};

// ---- a compiled scan ---------------------------------------------------------------

struct Scan::State {
  std::shared_ptr<Runtime::Impl> rt;
  generator::Plan plan;
  // CUDA
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> cu_functions;
  // OpenCL
  cl_program program = nullptr;
  std::map<std::string, cl_kernel> cl_kernels;

  // The managed workspace (a decoupled look-back call zeroes the part it
  // uses before its kernel, in whichever workspace it runs).
  mutable std::mutex mutex;
  mutable CUdeviceptr cu_workspace = 0;
  mutable cl_mem cl_workspace = nullptr;
  mutable uint64_t workspace_size = 0;

  ~State() {
    for (auto& [n, k] : cl_kernels) clReleaseKernel(k);
    if (program) clReleaseProgram(program);
    if (cl_workspace) clReleaseMemObject(cl_workspace);
    if (rt && rt->driver) {
      if (module || cu_workspace) rt->driver->cuCtxSetCurrent(rt->cu_context);
      if (cu_workspace) rt->driver->cuMemFree(cu_workspace);
      if (module) rt->driver->cuModuleUnload(module);
    }
  }

};

Scan::Scan() = default;
Scan::~Scan() = default;
Scan::Scan(const Scan&) = default;
Scan& Scan::operator=(const Scan&) = default;
Scan::Scan(std::shared_ptr<State> s) : s_(std::move(s)) {}

namespace {

const Scan::State& state_of(const std::shared_ptr<Scan::State>& s) {
  if (!s) fail("this Scan is empty (default-constructed); get one from Runtime::compile");
  return *s;
}

}  // namespace

const dsl::Spec& Scan::spec() const { return state_of(s_).plan.spec; }
const generator::Plan& Scan::plan() const { return state_of(s_).plan; }
Backend Scan::backend() const { return state_of(s_).plan.backend; }
uint64_t Scan::workspace_bytes(uint64_t n) const { return generator::workspace_bytes(state_of(s_).plan, n); }
size_t Scan::element_size() const { return state_of(s_).plan.element_bytes; }
size_t Scan::input_size() const { return state_of(s_).plan.input_bytes; }

void Scan::check_sizes(size_t in, size_t t) const {
  const generator::Plan& p = state_of(s_).plan;
  if (in != p.input_bytes || t != p.element_bytes)
    fail("scan '" + p.spec.name + "' takes " + std::to_string(p.input_bytes) + "-byte inputs and " +
         std::to_string(p.element_bytes) + "-byte elements; the pointers given are to " + std::to_string(in) +
         "- and " + std::to_string(t) + "-byte types");
}

namespace {

// The launches of one call, in order: the Plan's kernels and their blocks
// (generator::launch_blocks); refuses an n whose grid one launch cannot take.
std::vector<const generator::Kernel*> plan_launches(const generator::Plan& p, uint64_t n) {
  std::vector<const generator::Kernel*> v;
  for (const generator::Kernel& k : p.kernels) {
    const uint64_t blocks = generator::launch_blocks(p, k, n);
    if (blocks >= (1ull << 31))
      fail("scan '" + p.spec.name + "': " + std::to_string(n) + " elements make " + std::to_string(blocks) +
           " blocks of " + k.name + ", more than one launch takes (2^31 - 1)");
    if (blocks > 0) v.push_back(&k);
  }
  return v;
}

// What the outputs must be, given the plan; `present` says which the caller gave.
void check_outputs(const generator::Plan& p, bool in, bool inc, bool exc, bool agg, bool run, uint64_t n) {
  const generator::Outputs& o = p.outputs;
  const std::string who = "scan '" + p.spec.name + "': ";
  if (n > 0 && !in) fail(who + "the input is null");
  // `even_if_empty`: written even when n == 0 (the aggregate, the running total).
  auto need = [&](bool given, bool wanted, bool even_if_empty, const std::string& name, const std::string& why) {
    if (wanted && !given && (n > 0 || even_if_empty)) fail(who + "the " + name + " output is null, but " + why);
    if (!wanted && given) fail(who + "an " + name + " output was given, but the spec has none (" + why + ")");
  };
  const std::string mode = std::string("mode = ") + dsl::to_string(p.spec.mode);
  need(inc, o.inclusive, false, "inclusive", mode);
  need(exc, o.exclusive, false, "exclusive", mode);
  need(agg, o.aggregate, true, "aggregate", o.aggregate ? "outputs lists aggregate" : "outputs does not list aggregate");
  need(run, o.running_total, true, "running_total",
       o.running_total ? "outputs lists running_total" : "outputs does not list running_total");
}

}  // namespace

void Scan::run(const CudaArgs& a) const {
  const State& st = state_of(s_);
  const generator::Plan& p = st.plan;
  if (p.backend != Backend::Cuda)
    fail("scan '" + p.spec.name + "' was compiled for OpenCL; launch it with OpenCLArgs");
  Runtime::Impl& rt = *st.rt;
  const Driver& d = *rt.driver;
  check_outputs(p, a.in, a.inclusive, a.exclusive, a.aggregate, a.running_total, a.n);
  const std::vector<const generator::Kernel*> launches = plan_launches(p, a.n);  // refuses an n no launch takes
  std::lock_guard<std::mutex> lock(st.mutex);
  rt.make_current();
  // Every pointer to memory the driver allocated (cuMemAlloc, cudaMalloc,
  // managed memory) must hold what the kernels will touch from where it
  // points; the driver cannot size other memory (host-registered or mapped
  // by the virtual memory API): that is the caller's to get right.
  const std::string who = "scan '" + p.spec.name + "': ";
  auto check_range = [&](const void* ptr, const char* what, uint64_t count, uint64_t element, const std::string& type) {
    if (!ptr || count == 0) return;
    if (count > std::numeric_limits<uint64_t>::max() / element)
      fail(who + std::to_string(count) + " " + type + " elements of " + std::to_string(element) +
           " bytes overflow 64 bits");
    CUdeviceptr base = 0;
    size_t size = 0;
    const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(ptr);
    if (d.cuMemGetAddressRange(&base, &size, at) != CUDA_SUCCESS) return;  // not the driver's to size
    const uint64_t room = base + size - at;
    if (room < count * element)
      fail(who + "the " + what + " pointer has " + std::to_string(room) + " bytes of its allocation after it, but " +
           std::to_string(count) + " elements of " + type + " (" + std::to_string(element) + " bytes each) need " +
           std::to_string(count * element));
  };
  {
    const std::string t = p.spec.type.name(), in_t = p.spec.input.name();
    check_range(a.in, "input", a.n, p.input_bytes, in_t);
    check_range(a.inclusive, "inclusive", a.n, p.element_bytes, t);
    check_range(a.exclusive, "exclusive", a.n, p.element_bytes, t);
    check_range(a.aggregate, "aggregate", generator::aggregate_elements(p, a.n), p.element_bytes, t);
    check_range(a.running_total, "running_total", 1, p.element_bytes, t);
    if (a.workspace) check_range(a.workspace, "workspace", generator::workspace_bytes(p, a.n), 1, "workspace byte");
  }
  CUstream stream = static_cast<CUstream>(a.stream);

  CUdeviceptr in = reinterpret_cast<CUdeviceptr>(a.in), inc = reinterpret_cast<CUdeviceptr>(a.inclusive),
              exc = reinterpret_cast<CUdeviceptr>(a.exclusive), agg = reinterpret_cast<CUdeviceptr>(a.aggregate),
              run_total = reinterpret_cast<CUdeviceptr>(a.running_total);
  unsigned long long n = a.n;
  CUdeviceptr ws = 0;
  const uint64_t need = generator::workspace_bytes(p, a.n);
  if (need > 0) {
    if (a.workspace) {
      ws = reinterpret_cast<CUdeviceptr>(a.workspace);
      if (a.workspace_size < need)
        fail("scan '" + p.spec.name + "': the workspace has " + std::to_string(a.workspace_size) + " bytes; " +
             std::to_string(a.n) + " elements need " + std::to_string(need));
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
      }
      ws = st.cu_workspace;
    }
    if (const uint64_t zero = generator::workspace_zero_bytes(p, a.n)) {  // the ticket and the statuses
      const CUresult r = d.cuMemsetD8Async(ws, 0, zero, stream);
      if (r != CUDA_SUCCESS) fail(describe(d, "cuMemsetD8Async (zeroing the workspace's statuses)", r));
    }
  }
  // Every argument by its role in the kernel ABI (generator::ParamRole).
  auto cuda_arg = [&](generator::ParamRole role) -> void* {
    switch (role) {
      case generator::ParamRole::Input: return &in;
      case generator::ParamRole::Inclusive: return &inc;
      case generator::ParamRole::Exclusive: return &exc;
      case generator::ParamRole::Aggregate:
      case generator::ParamRole::Aggregates: return &agg;
      case generator::ParamRole::RunningTotal: return &run_total;
      case generator::ParamRole::Count: return &n;
      case generator::ParamRole::Workspace:
      case generator::ParamRole::Partials: return &ws;
    }
    fail("scan '" + p.spec.name + "': a kernel parameter of no known role");
  };
  for (const generator::Kernel* k : launches) {
    std::vector<void*> params;
    for (const generator::KernelParam& param : k->params) params.push_back(cuda_arg(param.role));
    const uint64_t blocks = generator::launch_blocks(p, *k, a.n);
    const CUresult r = d.cuLaunchKernel(st.cu_functions.at(k->name), static_cast<unsigned int>(blocks), 1, 1,
                                        static_cast<unsigned int>(p.block_threads), 1, 1, 0, stream, params.data(),
                                        nullptr);
    if (r != CUDA_SUCCESS) fail(describe(d, ("cuLaunchKernel (" + k->name + ")").c_str(), r));
  }
}

void Scan::run(const OpenCLArgs& a) const {
  const State& st = state_of(s_);
  const generator::Plan& p = st.plan;
  if (p.backend != Backend::OpenCL)
    fail("scan '" + p.spec.name + "' was compiled for CUDA; launch it with CudaArgs");
  Runtime::Impl& rt = *st.rt;
  check_outputs(p, a.in, a.inclusive, a.exclusive, a.aggregate, a.running_total, a.n);
  const std::vector<const generator::Kernel*> launches = plan_launches(p, a.n);  // refuses an n no launch takes
  // Every buffer holds what the kernels will touch (they do not check).
  const std::string who = "scan '" + p.spec.name + "': ";
  auto check_buffer = [&](cl_mem m, const char* what, uint64_t count, uint64_t element, const std::string& type) {
    if (!m || count == 0) return;
    if (count > std::numeric_limits<uint64_t>::max() / element)
      fail(who + std::to_string(count) + " " + type + " elements of " + std::to_string(element) +
           " bytes overflow 64 bits");
    size_t size = 0;
    SG_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr));
    if (size < count * element)
      fail(who + "the " + what + " buffer has " + std::to_string(size) + " bytes, but " + std::to_string(count) +
           " elements of " + type + " (" + std::to_string(element) + " bytes each) need " +
           std::to_string(count * element));
  };
  const std::string t = p.spec.type.name(), in_t = p.spec.input.name();
  check_buffer(a.in, "input", a.n, p.input_bytes, in_t);
  check_buffer(a.inclusive, "inclusive", a.n, p.element_bytes, t);
  check_buffer(a.exclusive, "exclusive", a.n, p.element_bytes, t);
  check_buffer(a.aggregate, "aggregate", generator::aggregate_elements(p, a.n), p.element_bytes, t);
  check_buffer(a.running_total, "running_total", 1, p.element_bytes, t);
  std::lock_guard<std::mutex> lock(st.mutex);
  cl_command_queue queue = a.queue ? a.queue : rt.cl_queue;
  // The commands of one call depend on each other (the zeroing of the
  // statuses, then up to three kernels): each waits on the one before, so
  // an out-of-order queue runs them in order too, and a barrier after the
  // last holds back what the caller queues next.
  cl_event last = nullptr;
  struct EventGuard {
    cl_event& e;
    ~EventGuard() {
      if (e) clReleaseEvent(e);
    }
  } last_guard{last};
  auto after_last = [&](const char* call, auto enqueue) {
    cl_event next = nullptr;
    const cl_int err = enqueue(last ? 1u : 0u, last ? &last : nullptr, &next);
    if (err != CL_SUCCESS) fail(cl_error(call, err));
    if (last) clReleaseEvent(last);
    last = next;
  };
  const cl_ulong n = a.n;
  cl_mem ws = nullptr;
  const uint64_t need = generator::workspace_bytes(p, a.n);
  if (need > 0) {
    if (a.workspace) {
      ws = a.workspace;
      size_t size = 0;
      SG_CL(clGetMemObjectInfo(ws, CL_MEM_SIZE, sizeof size, &size, nullptr));
      if (size < need)
        fail("scan '" + p.spec.name + "': the workspace buffer has " + std::to_string(size) + " bytes; " +
             std::to_string(a.n) + " elements need " + std::to_string(need));
    } else {
      if (st.workspace_size < need) {
        const uint64_t grown = std::max<uint64_t>(need, st.workspace_size * 2);
        if (st.cl_workspace) clReleaseMemObject(st.cl_workspace);
        st.cl_workspace = nullptr;
        st.workspace_size = 0;
        cl_int err = CL_SUCCESS;
        st.cl_workspace = clCreateBuffer(rt.cl_ctx, CL_MEM_READ_WRITE, grown, nullptr, &err);
        if (err != CL_SUCCESS) fail(cl_error("clCreateBuffer (the scan's workspace)", err));
        st.workspace_size = grown;
      }
      ws = st.cl_workspace;
    }
    if (const uint64_t zero = generator::workspace_zero_bytes(p, a.n)) {  // the ticket and the statuses
      const cl_uchar zero_byte = 0;  // OpenCL 1.2's clEnqueueFillBuffer
      after_last("clEnqueueFillBuffer (zeroing the workspace's statuses)",
                 [&](cl_uint waits, const cl_event* wait, cl_event* done) {
                   return clEnqueueFillBuffer(queue, ws, &zero_byte, 1, 0, zero, waits, wait, done);
                 });
    }
  }
  // Every argument by its role in the kernel ABI (generator::ParamRole).
  auto opencl_arg = [&](generator::ParamRole role) -> std::pair<size_t, const void*> {
    switch (role) {
      case generator::ParamRole::Input: return {sizeof(cl_mem), &a.in};
      case generator::ParamRole::Inclusive: return {sizeof(cl_mem), &a.inclusive};
      case generator::ParamRole::Exclusive: return {sizeof(cl_mem), &a.exclusive};
      case generator::ParamRole::Aggregate:
      case generator::ParamRole::Aggregates: return {sizeof(cl_mem), &a.aggregate};
      case generator::ParamRole::RunningTotal: return {sizeof(cl_mem), &a.running_total};
      case generator::ParamRole::Count: return {sizeof n, &n};
      case generator::ParamRole::Workspace:
      case generator::ParamRole::Partials: return {sizeof(cl_mem), &ws};
    }
    fail("scan '" + p.spec.name + "': a kernel parameter of no known role");
  };
  for (const generator::Kernel* k : launches) {
    cl_kernel kernel = st.cl_kernels.at(k->name);
    cl_uint i = 0;
    for (const generator::KernelParam& param : k->params) {
      const auto [size, value] = opencl_arg(param.role);
      SG_CL(clSetKernelArg(kernel, i++, size, value));
    }
    const size_t local = static_cast<size_t>(p.block_threads);
    const size_t global = static_cast<size_t>(generator::launch_blocks(p, *k, a.n)) * local;
    after_last("clEnqueueNDRangeKernel", [&](cl_uint waits, const cl_event* wait, cl_event* done) {
      return clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, waits, wait, done);
    });
  }
  if (last) SG_CL(clEnqueueBarrierWithWaitList(queue, 1, &last, nullptr));
}

// ---- Runtime -----------------------------------------------------------------------

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_shared<Impl>()) {
  if (options.backend == Backend::Cuda) {
    impl_->open_cuda(options.cuda_device);
  } else if (options.backend == Backend::OpenCL) {
    impl_->open_opencl(options.opencl_platform, options.opencl_device);
  } else {
    try {
      impl_->open_cuda(options.cuda_device);
    } catch (const Error& e) {
      impl_->fallback_reason = e.what();
      impl_->open_opencl(options.opencl_platform, options.opencl_device);
    }
  }
}

Runtime::~Runtime() = default;
Backend Runtime::backend() const { return impl_->backend; }
std::string Runtime::device_name() const { return impl_->device_name; }
std::string Runtime::fallback_reason() const { return impl_->fallback_reason; }
cl_context Runtime::opencl_context() const { return impl_->cl_ctx; }
cl_command_queue Runtime::opencl_queue() const { return impl_->cl_queue; }

CacheStats Runtime::stats() const {
  CacheStats s;
  {
    std::lock_guard<std::mutex> lock(impl_->stats_mutex);
    s = impl_->stats;
  }
  s.disk_cache_on = impl_->disk.enabled();
  s.disk_cache_off_reason = impl_->disk.disabled_reason();
  return s;
}

Scan Runtime::compile(const std::string& scan_text, const std::string& name) {
  const std::string text_key = name + '\0' + scan_text;
  {
    std::lock_guard<std::mutex> lock(impl_->by_text_mutex);
    auto it = impl_->by_text.find(text_key);
    if (it != impl_->by_text.end()) {
      if (std::shared_ptr<Scan::State> st = it->second.lock()) {
        impl_->count(true, false, 0);
        return Scan(std::move(st));
      }
    }
  }
  Scan scan = compile_text(scan_text, name);
  std::lock_guard<std::mutex> lock(impl_->by_text_mutex);
  impl_->by_text[text_key] = scan.s_;
  return scan;
}

Scan Runtime::compile_text(const std::string& scan_text, const std::string& name) {
  dsl::Document doc = dsl::load("<scan text>", scan_text);
  if (!doc.ok()) fail("the scan text has errors:\n" + doc.diagnostics().render());
  if (!name.empty()) {
    const dsl::Spec* s = doc.find(name);
    if (!s) fail("no scan named '" + name + "' in the text");
    return compile(*s);
  }
  if (doc.specs().size() != 1)
    fail("the text holds " + std::to_string(doc.specs().size()) + " scans; name the one to compile");
  return compile(doc.specs().front());
}

Scan Runtime::compile_file(const std::string& path, const std::string& name) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot read '" + path + "': " + std::strerror(errno));
  if (std::filesystem::is_directory(path)) fail("cannot read '" + path + "': it is a directory, not a .scan file");
  std::ostringstream ss;
  ss << f.rdbuf();
  dsl::Document doc = dsl::load(path, ss.str());
  if (!doc.ok()) fail(path + " has errors:\n" + doc.diagnostics().render());
  if (!name.empty()) {
    const dsl::Spec* s = doc.find(name);
    if (!s) fail("no scan named '" + name + "' in " + path);
    return compile(*s);
  }
  if (doc.specs().size() != 1)
    fail(path + " holds " + std::to_string(doc.specs().size()) + " scans; name the one to compile");
  return compile(doc.specs().front());
}

Scan Runtime::compile(const dsl::Spec& spec) {
  Impl& rt = *impl_;
  // The operator check of `scangen check`, as on every path that makes a kernel.
  if (const std::string refusal = ref::refuse_operator(spec); !refusal.empty()) fail(refusal);
  generator::Plan plan;
  try {
    // CUDA: planned for the device's architecture (the tuning table's entry).
    plan = generator::make_plan(spec, generator::Target{rt.backend, rt.backend == Backend::Cuda ? rt.sm : 0});
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  generator::EmitOptions eo;
  eo.source_name = spec.name + generator::source_extension(rt.backend);
  const std::string source = generator::emit(plan, eo);

  // Everything that changes the binary (runtime/README.md, "What is keyed").
  const std::string cuda_arch = rt.backend == Backend::Cuda ? rt.nvrtc_arch() : "";
  const CacheKey key = rt.backend == Backend::Cuda
                           ? runtime::detail::make_kernel_key(
                                 source, Impl::nvrtc_option(cuda_arch), "nvrtc " + rt.nvrtc_version(),
                                 "sm_" + std::to_string(rt.sm) +
                                     // PTX is compiled by the driver when loaded: its version counts too
                                     (cuda_arch.rfind("compute_", 0) == 0 ? " driver " + rt.cuda_driver_version() : ""),
                                 generator::templates_hash())
                           : runtime::detail::make_kernel_key(
                                 source, rt.cl_exact_divide ? generator::compile_options(Backend::OpenCL) : "",
                                 cl_platform_string(rt.cl_platform, CL_PLATFORM_NAME) + " " +
                                     cl_platform_string(rt.cl_platform, CL_PLATFORM_VERSION),
                                 cl_device_string(rt.cl_dev, CL_DEVICE_NAME) + " " +
                                     cl_device_string(rt.cl_dev, CL_DEVICE_VERSION) + " " +
                                     cl_device_string(rt.cl_dev, CL_DRIVER_VERSION),
                                 generator::templates_hash());
  const std::string digest = key.digest();
  // The memory key adds the context: compiled code belongs to one.
  const std::string memory_key =
      digest + "@" + std::to_string(rt.backend == Backend::Cuda ? reinterpret_cast<uint64_t>(rt.cu_context)
                                                                : reinterpret_cast<uint64_t>(rt.cl_ctx));

  bool made = false, from_disk = false;
  double ms = 0;
  // OpenCL: a disk entry counts only if the driver builds it (one it refuses,
  // though its checksum holds, is compiled again and replaced); the program
  // built then serves this Scan.
  cl_program from_entry = nullptr;
  DiskCache::Accept accept;
  if (rt.backend == Backend::OpenCL) {
    accept = [&](const std::vector<uint8_t>& binary) {
      from_entry = rt.cl_build(source, &binary, nullptr);
      return from_entry != nullptr;
    };
  }
  std::shared_ptr<const std::vector<uint8_t>> code = rt.memory.get_or_create(memory_key, [&] {
    made = true;
    if (auto cached = rt.disk.load(key, accept)) {
      from_disk = true;
      return std::make_shared<const std::vector<uint8_t>>(std::move(*cached));
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<uint8_t> bytes;
    if (rt.backend == Backend::Cuda) {
      bytes = rt.nvrtc_compile(source, eo.source_name, cuda_arch);
    } else {
      cl_program prog = rt.cl_build(source, nullptr, &bytes);
      clReleaseProgram(prog);
    }
    ms = ms_since(t0);
    if (!bytes.empty()) rt.disk.store(key, bytes);
    return std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  });
  rt.count(!made, from_disk, ms);

  auto st = std::make_shared<Scan::State>();
  st->rt = impl_;
  st->plan = plan;
  std::vector<std::string> kernels;
  for (const generator::Kernel& k : plan.kernels) kernels.push_back(k.name);
  if (rt.backend == Backend::Cuda) {
    rt.make_current();
    std::vector<uint8_t> image = *code;
    image.push_back(0);  // PTX is text: terminate it
    CUresult r = rt.driver->cuModuleLoadData(&st->module, image.data());
    if (r != CUDA_SUCCESS) fail(describe(*rt.driver, "cuModuleLoadData", r));
    for (const std::string& k : kernels) {
      CUfunction fn;
      if ((r = rt.driver->cuModuleGetFunction(&fn, st->module, k.c_str())) != CUDA_SUCCESS)
        fail(describe(*rt.driver, ("cuModuleGetFunction (" + k + ")").c_str(), r));
      st->cu_functions[k] = fn;
    }
  } else {
    cl_program prog = from_entry ? from_entry : code->empty() ? nullptr : rt.cl_build(source, code.get(), nullptr);
    if (!prog) prog = rt.cl_build(source, nullptr, nullptr);  // the binary was refused: from source
    st->program = prog;
    for (const std::string& k : kernels) {
      cl_int err = CL_SUCCESS;
      cl_kernel kernel = clCreateKernel(prog, k.c_str(), &err);
      if (err != CL_SUCCESS) fail(cl_error(("clCreateKernel (" + k + ")").c_str(), err));
      st->cl_kernels[k] = kernel;
    }
  }
  return Scan(st);
}

}  // namespace scangen
