// Host wrappers (scangen/generator/host.h): the header and the definitions
// that let a program call the kernels of an emitted source like functions.
#include "scangen/generator/host.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "c_names.h"
#include "scalar_library.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/preamble.h"

namespace scangen::generator {

using namespace detail;

namespace {

using dsl::Level;
using dsl::Mode;

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string u64(uint64_t v) { return std::to_string(v) + "u"; }

// Everything the wrappers of one scan need to know, from its plan.
struct Scan {
  const Plan* plan = nullptr;
  std::string P, T, In;
  bool device = false;
  bool lookback = false;
  std::string function;              // P_inclusive, P_exclusive, P_inclusive_exclusive
  std::vector<std::string> outputs;  // "out", or "inclusive" and "exclusive"
  std::string aggregate;             // "aggregate" (device), "aggregates" (warp, block), "" without
  bool running_total = false;
  uint64_t per_block = 0;  // elements per block: the tile, or segment x groups per block
  int threads = 0;
  uint64_t ws_base = 0, ws_per_tile = 0;  // workspace bytes: base + tiles x per tile
};

Scan describe_scan(const Plan& p) {
  const dsl::Spec& s = p.spec;
  Scan c;
  c.plan = &p;
  c.P = s.name;
  const PreambleNames names = preamble_names(s);
  c.T = names.value_type;
  c.In = names.input_type;
  c.device = s.level == Level::Device;
  c.lookback = c.device && s.algorithm == dsl::Algorithm::DecoupledLookback;
  switch (s.mode) {
    case Mode::Inclusive:
      c.function = c.P + "_inclusive";
      c.outputs = {"out"};
      break;
    case Mode::Exclusive:
      c.function = c.P + "_exclusive";
      c.outputs = {"out"};
      break;
    case Mode::Both:
      c.function = c.P + "_inclusive_exclusive";
      c.outputs = {"inclusive", "exclusive"};
      break;
  }
  if (s.aggregate) c.aggregate = c.device ? "aggregate" : "aggregates";
  c.running_total = s.running_total;
  c.threads = p.block_threads;
  if (c.device) {
    c.per_block = p.tile;
    const uint64_t one = workspace_bytes(p, 1);
    c.ws_per_tile = workspace_bytes(p, 2 * p.tile) - workspace_bytes(p, p.tile);
    c.ws_base = one - c.ws_per_tile;
  } else {
    c.per_block = p.segment * static_cast<uint64_t>(p.groups_per_block);
  }
  if (c.per_block == 0 || c.threads <= 0) throw std::logic_error("scangen: scan '" + c.P + "' has an empty launch shape");
  return c;
}

const char* mode_words(Mode m) {
  switch (m) {
    case Mode::Inclusive:
      return "inclusive scan";
    case Mode::Exclusive:
      return "exclusive scan";
    case Mode::Both:
      return "inclusive and exclusive scans";
  }
  return "scan";
}

// ---- The types, shared by the CUDA and the OpenCL header ------------------

bool mentions_f64(const dsl::Type& t) {
  for (const dsl::ScalarSlot& slot : dsl::flatten(t))
    if (slot.kind == dsl::ScalarKind::F64) return true;
  return false;
}

// P_T, P_In and their structs with the C layout of the generated source,
// guarded by SCANGEN_TYPES_P: the emitted .cu defines that macro before
// repeating the header, since its preamble defines the same types.
std::string host_types(const Scan& c) {
  const dsl::Spec& s = c.plan->spec;
  const std::string guard = "SCANGEN_TYPES_" + c.P;
  std::string o = "#ifndef " + guard + "\n#define " + guard + "\n";
  o += ScalarLibrary(Backend::Cuda).scalar_typedefs(mentions_f64(s.type) || mentions_f64(s.input));
  std::vector<std::shared_ptr<const dsl::StructType>> structs;
  dsl::collect_structs(s.type, structs);
  dsl::collect_structs(s.input, structs);
  std::set<const dsl::StructType*> seen;
  for (const auto& st : structs) {
    if (!seen.insert(st.get()).second) continue;
    const std::string name = struct_name(c.P, *st);
    const std::vector<std::string> fields = field_names(*st, c.P);
    o += "typedef struct " + name + " {\n";
    for (size_t i = 0; i < fields.size(); ++i)
      o += "  " + c_type(st->fields[i].type, c.P, Form::Storage) + " " + fields[i] + ";  // offset " +
           std::to_string(st->fields[i].offset) + "\n";
    o += "} " + name + ";\n";
    o += "static_assert(sizeof(" + name + ") == " + std::to_string(st->size) + " && alignof(" + name +
         ") == " + std::to_string(st->align) + ", \"" + name + " must have scangen's layout\");\n";
  }
  o += "typedef " + c_type(s.type, c.P, Form::Storage) + " " + c.T + ";\n";
  o += "typedef " + c_type(s.input, c.P, Form::Storage) + " " + c.In + ";\n";
  o += "#endif\n";
  return o;
}

std::string banner(const std::string& title) {
  std::string line = "// ---- " + title + " ";
  if (line.size() < 100) line += std::string(100 - line.size(), '-');
  return line + "\n";
}

std::string scan_summary(const Scan& c) {
  const dsl::Spec& s = c.plan->spec;
  std::string o = "//   " + c.P + ": " + dsl::to_string(s.level) + " level, " + dsl::to_string(s.algorithm) + ", " +
                  dsl::to_string(s.mode);
  if (s.aggregate) o += ", aggregate";
  if (s.running_total) o += ", running total";
  return o + "\n";
}

// Where the results go, for the comments.
std::string output_words(const Scan& c) {
  if (c.outputs.size() != 1) return "inclusive[0 .. n) and exclusive[0 .. n)";
  return c.plan->spec.input == c.plan->spec.type ? "out[0 .. n) (which may be in)" : "out[0 .. n)";
}

std::string workspace_bytes_body(const Scan& c, const std::string& indent) {
  return indent + "if (n < 0) return 0;\n" + indent + "const uint64_t tiles = n == 0 ? 1u : (static_cast<uint64_t>(n) + " +
         u64(c.per_block - 1) + ") / " + u64(c.per_block) + ";\n" + indent +
         "if (tiles > 2147483647u) return 0;\n" + indent + "return static_cast<size_t>(" + u64(c.ws_base) +
         " + tiles * " + u64(c.ws_per_tile) + ");\n";
}

// ---- CUDA -------------------------------------------------------------------

std::string cuda_params(const Scan& c, bool defaults) {
  std::string o = "const " + c.In + "* in";
  for (const std::string& out : c.outputs) o += ", " + c.T + "* " + out;
  if (!c.aggregate.empty()) o += ", " + c.T + "* " + c.aggregate;
  if (c.running_total) o += ", " + c.T + "* running_total";
  o += ", int64_t n";
  if (c.device) o += ", void* workspace, size_t workspace_bytes";
  o += defaults ? ", cudaStream_t stream = 0" : ", cudaStream_t stream";
  return o;
}

std::string cuda_declarations(const Scan& c) {
  const dsl::Spec& s = c.plan->spec;
  std::string o;
  const std::string outs = output_words(c);
  if (c.device) {
    o += "// Bytes of workspace a call of " + c.function + " with n elements needs; 0 when n < 0 or n is more\n"
         "// than one call scans.\n";
    o += "size_t " + c.P + "_workspace_bytes(int64_t n);\n\n";
    o += std::string("// The ") + mode_words(s.mode) + " of in[0 .. n) into " + outs + ", on `stream`";
    o += c.lookback ? " (one launch, decoupled look-back).\n" : " (three launches, reduce then scan).\n";
    if (!c.aggregate.empty()) o += "// *aggregate receives the total of the n elements, without init.\n";
    if (c.running_total)
      o += "// *running_total is the seed of the call and receives the seed combined with the total.\n";
    o += "// workspace: device memory of at least " + c.P +
         "_workspace_bytes(n) bytes, 16-byte aligned (as cudaMalloc\n"
         "// gives), best kept from call to call; it needs no initialisation";
    o += c.lookback ? " (each call zeroes the part it\n// uses, with cudaMemsetAsync on `stream`, before its kernel)"
                    : " (it holds one element per tile)";
    o += ". One workspace serves one call at a\n// time: calls that share a workspace must not run concurrently.\n";
    o += "// Returns cudaErrorInvalidValue, launching nothing, when n < 0, a pointer is null (in and the\n"
         "// outputs may be null when n == 0), the workspace is too small or not 16-byte aligned;\n"
         "// otherwise the status of the launches (cudaGetLastError).\n";
    o += "cudaError_t " + c.function + "(" + cuda_params(c, true) + ");\n";
  } else {
    o += std::string("// The ") + mode_words(s.mode) + " of every segment of " + std::to_string(s.segment_size()) +
         " elements of in[0 .. n), each on its own, into\n// " + outs + ", on `stream`: one launch of " +
         c.plan->entry_kernel + ".\n";
    if (!c.aggregate.empty())
      o += "// aggregates[k] receives the total of segment k: ceil(n / " + std::to_string(s.segment_size()) +
           ") elements.\n";
    if (c.running_total)
      o += "// *running_total is the counter every segment's scan is seeded from and adds its total to.\n";
    o += "// Returns cudaErrorInvalidValue, launching nothing, when n < 0 or a pointer is null with n > 0;\n"
         "// cudaSuccess without a launch when n == 0; otherwise the launch's status (cudaGetLastError).\n";
    o += "cudaError_t " + c.function + "(" + cuda_params(c, true) + ");\n";
  }
  return o;
}

// The argument of a kernel parameter, in the wrapper's terms, by its role.
std::string cuda_argument(const Scan& c, const KernelParam& k) {
  switch (k.role) {
    case ParamRole::Input: return "in";
    case ParamRole::Inclusive: return c.outputs.size() == 1 ? "out" : "inclusive";
    case ParamRole::Exclusive: return c.outputs.size() == 1 ? "out" : "exclusive";
    case ParamRole::Aggregate:
    case ParamRole::Aggregates: return c.aggregate;
    case ParamRole::RunningTotal: return "running_total";
    case ParamRole::Count: return "static_cast<unsigned long long>(n)";
    case ParamRole::Workspace: return "static_cast<unsigned char*>(workspace)";
    case ParamRole::Partials: return "partials";
  }
  throw std::logic_error("scangen: the host wrapper of scan '" + c.P + "' knows no role of parameter '" + k.name + "'");
}

std::string cuda_launch(const Scan& c, const Kernel& k, const std::string& grid, const std::string& indent) {
  std::string args;
  for (const KernelParam& p : k.params) args += (args.empty() ? "" : ", ") + cuda_argument(c, p);
  return indent + k.name + "<<<" + grid + ", " + std::to_string(c.threads) + ", 0, stream>>>(" + args + ");\n";
}

// The checks every wrapper starts with; leaves `const uint64_t blocks`.
std::string cuda_checks(const Scan& c) {
  const bool always = !c.aggregate.empty() || c.running_total;  // n == 0 still writes these
  std::string o = "  if (n < 0) return cudaErrorInvalidValue;\n";
  if (!always || !c.device) o += "  if (n == 0) return cudaSuccess;\n";
  std::string null = "in == nullptr";
  for (const std::string& out : c.outputs) null += " || " + out + " == nullptr";
  if (always && c.device) {
    o += "  if (n > 0 && (" + null + ")) return cudaErrorInvalidValue;\n";
    std::string extra;
    if (!c.aggregate.empty()) extra += c.aggregate + " == nullptr";
    if (c.running_total) extra += (extra.empty() ? "" : " || ") + std::string("running_total == nullptr");
    o += "  if (" + extra + ") return cudaErrorInvalidValue;\n";
  } else {
    if (!c.aggregate.empty()) null += " || " + c.aggregate + " == nullptr";
    if (c.running_total) null += " || running_total == nullptr";
    o += "  if (" + null + ") return cudaErrorInvalidValue;\n";
  }
  if (c.device) {
    o += "  const size_t needed = " + c.P + "_workspace_bytes(n);\n";
    o += "  if (needed == 0 || workspace == nullptr || workspace_bytes < needed ||\n"
         "      reinterpret_cast<uintptr_t>(workspace) % 16u != 0u)\n"
         "    return cudaErrorInvalidValue;\n";
  }
  o += "  const uint64_t blocks = n == 0 ? 1u : (static_cast<uint64_t>(n) + " + u64(c.per_block - 1) + ") / " +
       u64(c.per_block) + ";\n";
  if (!c.device) o += "  if (blocks > 2147483647u) return cudaErrorInvalidValue;\n";
  return o;
}

std::string cuda_definitions(const Scan& c) {
  const Plan& p = *c.plan;
  std::string o = banner("host wrappers of scan '" + c.P + "'");
  const std::string grid = "static_cast<unsigned int>(blocks)";
  if (c.device) {
    o += "size_t " + c.P + "_workspace_bytes(int64_t n) {\n" + workspace_bytes_body(c, "  ") + "}\n\n";
    o += "cudaError_t " + c.function + "(" + cuda_params(c, false) + ") {\n" + cuda_checks(c);
    if (c.lookback) {
      o += "  if (blocks > 1) {  // the ticket and the statuses of its tiles (one tile reads neither)\n"
           "    const cudaError_t zeroed = cudaMemsetAsync(workspace, 0, needed, stream);\n"
           "    if (zeroed != cudaSuccess) return zeroed;\n  }\n";
      o += cuda_launch(c, p.kernels.at(0), grid, "  ");
      o += "  return cudaGetLastError();\n}\n\n";
    } else {
      if (p.kernels.size() != 3) throw std::logic_error("scangen: reduce_then_scan without its three kernels");
      o += "  " + c.T + "* const partials = static_cast<" + c.T + "*>(workspace);\n";
      o += cuda_launch(c, p.kernels[0], grid, "  ");
      o += "  cudaError_t status = cudaGetLastError();\n  if (status != cudaSuccess) return status;\n";
      o += cuda_launch(c, p.kernels[1], "1", "  ");
      o += "  status = cudaGetLastError();\n  if (status != cudaSuccess) return status;\n";
      o += cuda_launch(c, p.kernels[2], grid, "  ");
      o += "  return cudaGetLastError();\n}\n\n";
    }
  } else {
    o += "cudaError_t " + c.function + "(" + cuda_params(c, false) + ") {\n" + cuda_checks(c);
    o += cuda_launch(c, p.kernels.at(0), grid, "  ");
    o += "  return cudaGetLastError();\n}\n";
  }
  return o;
}

std::string cuda_header(const std::vector<Scan>& scans, const std::string& device_source, const HostOptions& o) {
  const std::string guard = "SCANGEN_CUDA_HOST_" + hex(fnv1a(device_source)) + "_H";
  std::string h = "// Generated by scangen: host wrappers of the CUDA scans in " + o.source_name +
                  "; do not edit, edit the .scan file and generate again.\n"
                  "// Include it in host code (any C++ compiler); link the object nvcc makes of " + o.source_name +
                  ",\n// which defines these functions, and the CUDA runtime. In a .cu file that includes " +
                  o.source_name + ",\n// include this header after it, or not at all (it is part of it).\n//\n";
  for (const Scan& c : scans) h += scan_summary(c);
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n#include <stddef.h>\n#include <stdint.h>\n\n"
       "#include <cuda_runtime_api.h>\n";
  for (const Scan& c : scans) {
    h += "\n" + banner("scan '" + c.P + "'" + (c.plan->spec.file.empty() ? "" : " (" + c.plan->spec.file + ")"));
    h += host_types(c) + "\n" + cuda_declarations(c);
  }
  h += "\n#endif  // " + guard + "\n";
  return h;
}

std::string cuda_tail(const std::vector<Scan>& scans, const std::string& header, const HostOptions& o) {
  std::string t = "\n" + banner("host wrappers (" + o.header_name + " declares them)");
  t += "// Host code for nvcc; NVRTC compiles the kernels above without it.\n#ifndef __CUDACC_RTC__\n";
  for (const Scan& c : scans) t += "#define SCANGEN_TYPES_" + c.P + "  // the preamble above defines the types\n";
  t += "// ---- " + o.header_name + ":\n" + header + "// ---- end of " + o.header_name + "\n\n";
  for (const Scan& c : scans) t += "\n" + cuda_definitions(c);
  t += "#endif  // __CUDACC_RTC__\n";
  return t;
}

// ---- OpenCL -----------------------------------------------------------------

// Identical in every generated OpenCL header.
const char* const kOpenclShared = R"text(#ifndef SCANGEN_OPENCL_HOST_V1
#define SCANGEN_OPENCL_HOST_V1
// What every OpenCL header of scangen shares: buffer checks.
inline cl_int scangen_opencl_buffer_size_v1(cl_mem buffer, size_t needed, size_t* size) {
  if (buffer == nullptr) return CL_INVALID_MEM_OBJECT;
  const cl_int status = clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof *size, size, nullptr);
  if (status != CL_SUCCESS) return status;
  return *size < needed ? CL_INVALID_VALUE : CL_SUCCESS;
}
// CL_SUCCESS when `buffer` holds `count` elements of `element_bytes` (any buffer, null included, for none).
inline cl_int scangen_opencl_check_buffer_v1(cl_mem buffer, int64_t count, size_t element_bytes) {
  if (count <= 0) return CL_SUCCESS;
  if (static_cast<uint64_t>(count) > SIZE_MAX / element_bytes) return CL_INVALID_VALUE;
  size_t size = 0;
  return scangen_opencl_buffer_size_v1(buffer, static_cast<size_t>(count) * element_bytes, &size);
}
#endif
)text";

// The part of each header's namespace that does not depend on the scans.
const char* const kOpenclProgram = R"text(struct Program {
  cl_int status = CL_SUCCESS;  // of the build
  std::string log;             // the build log
  cl_program program = nullptr;
  cl_kernel kernels[kKernels] = {};
  std::mutex launch;  // one call at a time sets the kernels' arguments and enqueues them
};
struct Programs {
  std::mutex mutex;
  std::unordered_map<cl_context, Program*> by_context;
};
inline Programs& programs() {
  static Programs* const all = new Programs;  // never destroyed
  return *all;
}
inline void destroy(Program* p) {
  for (cl_kernel k : p->kernels)
    if (k != nullptr) clReleaseKernel(k);
  if (p->program != nullptr) clReleaseProgram(p->program);
  delete p;
}
inline std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return "(no log)";
  std::string log(size, '\0');
  if (size > 0 && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, &log[0], nullptr) != CL_SUCCESS)
    return "(no log)";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}
// Builds source() for every device of `context`, with the options the source
// needs for exact float results where every device offers them.
inline void build(cl_context context, Program& p) {
  cl_uint count = 0;
  p.status = clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES, sizeof count, &count, nullptr);
  std::vector<cl_device_id> devices(count);
  if (p.status == CL_SUCCESS && count > 0)
    p.status = clGetContextInfo(context, CL_CONTEXT_DEVICES, count * sizeof(cl_device_id), devices.data(), nullptr);
  if (p.status != CL_SUCCESS || count == 0) {
    if (p.status == CL_SUCCESS) p.status = CL_INVALID_CONTEXT;
    p.log = "scangen: cannot list the devices of the OpenCL context (error " + std::to_string(p.status) + ")";
    return;
  }
  bool exact = true;
  for (cl_device_id d : devices) {
    cl_device_fp_config fp = 0;
    p.status = clGetDeviceInfo(d, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, nullptr);
    if (p.status != CL_SUCCESS) {
      p.log = "scangen: cannot query CL_DEVICE_SINGLE_FP_CONFIG (error " + std::to_string(p.status) + ")";
      return;
    }
    exact = exact && (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
  }
  const char* text = source().c_str();
  const size_t length = source().size();
  p.program = clCreateProgramWithSource(context, 1, &text, &length, &p.status);
  if (p.status != CL_SUCCESS) {
    p.log = "scangen: clCreateProgramWithSource failed (error " + std::to_string(p.status) + ")";
    return;
  }
  p.status = clBuildProgram(p.program, 0, nullptr, exact ? kExactOptions : "", nullptr, nullptr);
  if (p.status != CL_SUCCESS) {
    p.log = "scangen: building " + std::string(kSourceName) + " failed (error " + std::to_string(p.status) + ")";
    for (cl_device_id d : devices) p.log += "\n" + build_log(p.program, d);
    return;
  }
  for (size_t k = 0; k < kKernels; ++k) {
    p.kernels[k] = clCreateKernel(p.program, kKernelNames[k], &p.status);
    if (p.status != CL_SUCCESS) {
      p.log = "scangen: clCreateKernel(" + std::string(kKernelNames[k]) + ") failed (error " +
              std::to_string(p.status) + ")";
      return;
    }
  }
}
// The program of `context`, built by the first call that needs it.
inline Program* program(cl_context context) {
  Programs& all = programs();
  std::lock_guard<std::mutex> lock(all.mutex);
  Program*& p = all.by_context[context];
  if (p == nullptr) {
    p = new Program;
    build(context, *p);
  }
  return p;
}
inline cl_int build_for(cl_context context, std::string* log) {
  if (context == nullptr) return CL_INVALID_CONTEXT;
  Program* p = program(context);
  if (log != nullptr) *log = p->log;
  return p->status;
}
inline void release(cl_context context) {
  Programs& all = programs();
  Program* p = nullptr;
  {
    std::lock_guard<std::mutex> lock(all.mutex);
    auto it = all.by_context.find(context);
    if (it == all.by_context.end()) return;
    p = it->second;
    all.by_context.erase(it);
  }
  destroy(p);
}
// The built program of the context of `queue`, which must run its commands in order.
inline cl_int program_for(cl_command_queue queue, Program** out) {
  if (queue == nullptr) return CL_INVALID_COMMAND_QUEUE;
  cl_command_queue_properties properties = 0;
  cl_int status = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, nullptr);
  if (status != CL_SUCCESS) return status;
  if ((properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0) return CL_INVALID_COMMAND_QUEUE;
  cl_context context = nullptr;
  status = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof context, &context, nullptr);
  if (status != CL_SUCCESS) return status;
  Program* p = program(context);
  if (p->status != CL_SUCCESS) return p->status;
  *out = p;
  return CL_SUCCESS;
}
struct Arg {
  size_t size;
  const void* value;
};
// Sets the arguments of kernel `k` and enqueues `blocks` work-groups of `threads`.
inline cl_int launch(cl_command_queue queue, Program* p, size_t k, uint64_t blocks, size_t threads,
                     std::initializer_list<Arg> args) {
  std::lock_guard<std::mutex> lock(p->launch);
  cl_uint index = 0;
  for (const Arg& a : args) {
    const cl_int status = clSetKernelArg(p->kernels[k], index++, a.size, a.value);
    if (status != CL_SUCCESS) return status;
  }
  const size_t global = static_cast<size_t>(blocks) * threads;
  return clEnqueueNDRangeKernel(queue, p->kernels[k], 1, nullptr, &global, &threads, 0, nullptr, nullptr);
}
)text";

// `text` as C++ raw string literals of at most ~4000 bytes, cut after a
// newline where there is one: an array initialiser.
std::string raw_string_parts(const std::string& text) {
  std::string delim = "scangen_cl";
  while (text.find(")" + delim + "\"") != std::string::npos) delim += "_";
  std::string o;
  size_t start = 0;
  constexpr size_t kPart = 4000;
  while (start < text.size()) {
    size_t end = std::min(text.size(), start + kPart);
    if (end < text.size()) {
      const size_t nl = text.rfind('\n', end - 1);
      if (nl != std::string::npos && nl >= start) end = nl + 1;
    }
    o += "      R\"" + delim + "(" + text.substr(start, end - start) + ")" + delim + "\",\n";
    start = end;
  }
  if (o.empty()) o = "      \"\",\n";
  return o;
}

std::string opencl_params(const Scan& c) {
  std::string o = "cl_command_queue queue, cl_mem in";
  for (const std::string& out : c.outputs) o += ", cl_mem " + out;
  if (!c.aggregate.empty()) o += ", cl_mem " + c.aggregate;
  if (c.running_total) o += ", cl_mem running_total";
  o += ", int64_t n";
  if (c.device) o += ", cl_mem workspace";
  return o;
}

std::string opencl_argument(const Scan& c, const KernelParam& k) {
  auto mem = [](const std::string& v) { return "{sizeof(cl_mem), &" + v + "}"; };
  switch (k.role) {
    case ParamRole::Input: return mem("in");
    case ParamRole::Inclusive: return mem(c.outputs.size() == 1 ? "out" : "inclusive");
    case ParamRole::Exclusive: return mem(c.outputs.size() == 1 ? "out" : "exclusive");
    case ParamRole::Aggregate:
    case ParamRole::Aggregates: return mem(c.aggregate);
    case ParamRole::RunningTotal: return mem("running_total");
    case ParamRole::Count: return "{sizeof count, &count}";
    case ParamRole::Workspace:
    case ParamRole::Partials: return mem("workspace");
  }
  throw std::logic_error("scangen: the host wrapper of scan '" + c.P + "' knows no role of parameter '" + k.name + "'");
}

std::string opencl_launch(const Scan& c, const std::string& ns, size_t kernel_index, const Kernel& k,
                          const std::string& blocks) {
  std::string args;
  for (const KernelParam& p : k.params) args += (args.empty() ? "" : ", ") + opencl_argument(c, p);
  return ns + "::launch(queue, program, " + std::to_string(kernel_index) + ", " + blocks + ", " +
         std::to_string(c.threads) + ", {" + args + "})";
}

std::string opencl_functions(const Scan& c, const std::string& ns, size_t first_kernel) {
  const Plan& p = *c.plan;
  const dsl::Spec& s = p.spec;
  std::string o;
  const std::string outs = output_words(c);
  o += "// Builds the program that holds " + c.P + " for every device of `context`, unless a call did already\n"
       "// (once per context; thread-safe). Returns CL_SUCCESS or the error, with the build log in *log.\n";
  o += "inline cl_int " + c.P + "_build(cl_context context, std::string* log = nullptr) {\n  return " + ns +
       "::build_for(context, log);\n}\n\n";
  o += "// Releases the program the wrappers keep for `context` (which keeps the context alive); the next\n"
       "// call builds it again. Call it when no call on that context is running.\n";
  o += "inline void " + c.P + "_release(cl_context context) { " + ns + "::release(context); }\n\n";
  if (c.device) {
    o += "// Bytes of workspace a call of " + c.function + " with n elements needs; 0 when n < 0 or n is more\n"
         "// than one call scans.\n";
    // Named for its backend: the CUDA wrappers' P_workspace_bytes has the same
    // parameters and another tile, and a program may include both headers.
    o += "inline size_t " + c.P + "_opencl_workspace_bytes(int64_t n) {\n" + workspace_bytes_body(c, "  ") + "}\n\n";
    o += std::string("// The ") + mode_words(s.mode) + " of in[0 .. n) into " + outs + ", enqueued on `queue`";
    o += c.lookback ? " (one kernel, decoupled look-back).\n" : " (three kernels, reduce then scan).\n";
    if (!c.aggregate.empty()) o += "// aggregate receives the total of the n elements, without init (one element).\n";
    if (c.running_total)
      o += "// running_total (one element) is the seed of the call and receives the seed combined with the total.\n";
    o += "// workspace: a buffer of at least " + c.P + "_opencl_workspace_bytes(n) bytes, best kept from call to\n"
         "// call; it needs no initialisation";
    o += c.lookback ? " (each call zeroes the part it uses, with clEnqueueFillBuffer, before its\n// kernel)"
                    : " (it holds one element per tile)";
    o += ". One workspace serves one call at a time.\n";
  } else {
    o += std::string("// The ") + mode_words(s.mode) + " of every segment of " + std::to_string(s.segment_size()) +
         " elements of in[0 .. n), each on its own, into\n// " + outs + ", enqueued on `queue`: one launch of " +
         p.entry_kernel + ".\n";
    if (!c.aggregate.empty())
      o += "// aggregates[k] receives the total of segment k: ceil(n / " + std::to_string(s.segment_size()) +
           ") elements.\n";
    if (c.running_total)
      o += "// running_total (one element) is the counter every segment's scan is seeded from and adds its total to.\n";
  }
  o += "// The queue must run its commands in order. Builds the program at the first call for the\n"
       "// queue's context. Returns CL_INVALID_VALUE for n < 0 or a buffer too small for n,\n"
       "// CL_INVALID_MEM_OBJECT for a missing buffer, CL_INVALID_COMMAND_QUEUE for an out-of-order queue,\n"
       "// the build's error (" + c.P + "_build gives the log), or the status of the enqueues.\n";
  o += "inline cl_int " + c.function + "(" + opencl_params(c) + ") {\n";
  const bool always = c.device && (!c.aggregate.empty() || c.running_total);
  o += "  if (n < 0) return CL_INVALID_VALUE;\n";
  if (!always) o += "  if (n == 0) return CL_SUCCESS;\n";
  o += "  const uint64_t blocks = n == 0 ? 1u : (static_cast<uint64_t>(n) + " + u64(c.per_block - 1) + ") / " +
       u64(c.per_block) + ";\n";
  o += "  if (blocks > 2147483647u) return CL_INVALID_VALUE;\n";
  o += "  cl_int status = scangen_opencl_check_buffer_v1(in, n, sizeof(" + c.In + "));\n";
  for (const std::string& out : c.outputs)
    o += "  if (status == CL_SUCCESS) status = scangen_opencl_check_buffer_v1(" + out + ", n, sizeof(" + c.T + "));\n";
  if (!c.aggregate.empty()) {
    // Warp and block scans: one aggregate per segment, ceil(n / segment).
    const std::string segments =
        c.device ? "1" : "(n + " + std::to_string(p.segment - 1) + ") / " + std::to_string(p.segment);
    o += "  if (status == CL_SUCCESS) status = scangen_opencl_check_buffer_v1(" + c.aggregate + ", " + segments +
         ", sizeof(" + c.T + "));\n";
  }
  if (c.running_total)
    o += "  if (status == CL_SUCCESS) status = scangen_opencl_check_buffer_v1(running_total, 1, sizeof(" + c.T +
         "));\n";
  if (c.device) {
    o += "  size_t workspace_size = 0;\n";
    o += "  if (status == CL_SUCCESS) status = scangen_opencl_buffer_size_v1(workspace, " + c.P +
         "_opencl_workspace_bytes(n), &workspace_size);\n";
  }
  o += "  " + ns + "::Program* program = nullptr;\n";
  o += "  if (status == CL_SUCCESS) status = " + ns + "::program_for(queue, &program);\n";
  o += "  if (status != CL_SUCCESS) return status;\n";
  if (c.lookback) {
    o += "  if (blocks > 1) {  // the ticket and the statuses of its tiles, before the kernel (one tile reads neither)\n";
    o += "    const cl_uchar zero = 0;\n";
    o += "    status = clEnqueueFillBuffer(queue, workspace, &zero, 1, 0, " + c.P +
         "_opencl_workspace_bytes(n), 0, nullptr, nullptr);\n";
    o += "    if (status != CL_SUCCESS) return status;\n  }\n";
  }
  o += "  const cl_ulong count = static_cast<cl_ulong>(n);\n";
  if (c.device && !c.lookback) {
    if (p.kernels.size() != 3) throw std::logic_error("scangen: reduce_then_scan without its three kernels");
    o += "  status = " + opencl_launch(c, ns, first_kernel, p.kernels[0], "blocks") + ";\n";
    o += "  if (status != CL_SUCCESS) return status;\n";
    o += "  status = " + opencl_launch(c, ns, first_kernel + 1, p.kernels[1], "1") + ";\n";
    o += "  if (status != CL_SUCCESS) return status;\n";
    o += "  return " + opencl_launch(c, ns, first_kernel + 2, p.kernels[2], "blocks") + ";\n}\n";
  } else {
    o += "  return " + opencl_launch(c, ns, first_kernel, p.kernels.at(0), "blocks") + ";\n}\n";
  }
  return o;
}

std::string opencl_header(const std::vector<Scan>& scans, const std::string& device_source, const HostOptions& o) {
  const std::string id = hex(fnv1a(device_source));
  const std::string guard = "SCANGEN_OPENCL_HOST_" + id + "_H";
  const std::string ns = "scangen_opencl_" + id;
  std::string h = "// Generated by scangen: host wrappers of the OpenCL scans in " + o.source_name +
                  ", whose source is\n// embedded here; do not edit, edit the .scan file and generate again. "
                  "C++11 or later; link OpenCL.\n//\n";
  for (const Scan& c : scans) h += scan_summary(c);
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += "#ifndef CL_TARGET_OPENCL_VERSION\n#define CL_TARGET_OPENCL_VERSION 120\n#endif\n#include <CL/cl.h>\n\n";
  h += "#include <stddef.h>\n#include <stdint.h>\n\n#include <initializer_list>\n#include <mutex>\n#include <string>\n"
       "#include <unordered_map>\n#include <vector>\n\n";
  h += kOpenclShared;
  for (const Scan& c : scans) {
    h += "\n" + banner("the types of scan '" + c.P + "'");
    h += host_types(c);
  }

  h += "\n" + banner("the program") + "namespace " + ns + " {\n\n";
  h += "// " + o.source_name + ", the OpenCL C source the kernels are built from.\n";
  h += "inline const std::string& source() {\n  static const char* const parts[] = {\n" +
       raw_string_parts(device_source) +
       "  };\n  static const std::string text = [] {\n    std::string s;\n    for (const char* part : parts) s += part;\n"
       "    return s;\n  }();\n  return text;\n}\n\n";
  h += "const char* const kSourceName = \"" + c_string_escape(o.source_name) + "\";\n";
  h += "// The build options for float results exact to the bit (docs/generated-code.md, compiler options).\n";
  h += "const char* const kExactOptions = \"" + c_string_escape(compile_options(Backend::OpenCL)) + "\";\n";
  std::vector<std::string> kernels;
  for (const Scan& c : scans)
    for (const Kernel& k : c.plan->kernels) kernels.push_back(k.name);
  h += "const size_t kKernels = " + std::to_string(kernels.size()) + ";\n";
  h += "const char* const kKernelNames[kKernels] = {";
  for (size_t i = 0; i < kernels.size(); ++i) h += (i ? ", \"" : "\"") + kernels[i] + "\"";
  h += "};\n";
  h += "\n";
  h += kOpenclProgram;
  h += "\n}  // namespace " + ns + "\n";

  size_t first = 0;
  for (const Scan& c : scans) {
    h += "\n" + banner("scan '" + c.P + "'" + (c.plan->spec.file.empty() ? "" : " (" + c.plan->spec.file + ")"));
    h += opencl_functions(c, ns, first);
    first += c.plan->kernels.size();
  }
  h += "\n#endif  // " + guard + "\n";
  return h;
}

}  // namespace

HostCode emit_host(const std::vector<Plan>& plans, const std::string& device_source, const HostOptions& options) {
  if (plans.empty()) throw std::invalid_argument("scangen: no scans to wrap");
  const Backend backend = plans.front().backend;
  std::vector<Scan> scans;
  for (const Plan& p : plans) {
    if (p.backend != backend) throw std::invalid_argument("scangen: the scans of one source must share a backend");
    scans.push_back(describe_scan(p));
  }
  HostOptions o = options;
  if (o.source_name.empty()) o.source_name = plans.front().spec.name + source_extension(backend);
  if (o.header_name.empty())
    o.header_name = plans.front().spec.name + (backend == Backend::Cuda ? "_cuda.h" : "_opencl.h");
  HostCode code;
  if (backend == Backend::Cuda) {
    code.header = cuda_header(scans, device_source, o);
    code.source_tail = cuda_tail(scans, code.header, o);
  } else {
    code.header = opencl_header(scans, device_source, o);
  }
  return code;
}

}  // namespace scangen::generator
