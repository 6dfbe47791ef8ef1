// scangen._core: the runtime (scangen::Runtime, scangen::Scan) for Python.
// The Python layer (scangen/__init__.py) checks arrays, dtypes and shapes;
// this module takes raw pointers and lengths and launches.
#include <CL/cl.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <utility>

#include "scangen/dsl/spec.h"
#include "scangen/runtime/runtime.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

namespace dsl = scangen::dsl;

// A type as Python data: "i32" for a scalar, or (name, [(field, type, offset), ...], size) for a struct.
nb::object describe_type(const dsl::Type& t) {
  if (t.is_scalar()) return nb::str(dsl::to_string(t.scalar_kind()));
  const dsl::StructType& s = t.struct_type();
  nb::list fields;
  for (const dsl::Field& f : s.fields) fields.append(nb::make_tuple(f.name, describe_type(f.type), f.offset));
  return nb::make_tuple(s.name, fields, s.size);
}

// A constant of type t from the bytes of one value (the layout of describe_type).
dsl::ExprPtr constant_from_bytes(const dsl::Type& t, const char* bytes) {
  auto e = std::make_shared<dsl::Expr>();
  e->type = t;
  if (t.is_struct()) {
    e->kind = dsl::ExprKind::Construct;
    for (const dsl::Field& f : t.struct_type().fields) e->args.push_back(constant_from_bytes(f.type, bytes + f.offset));
    return e;
  }
  e->kind = dsl::ExprKind::Literal;
  const dsl::ScalarKind k = t.scalar_kind();
  const size_t size = dsl::scalar_size(k);
  if (k == dsl::ScalarKind::F16) {
    uint16_t h;
    std::memcpy(&h, bytes, 2);
    e->lit.value = dsl::half_bits_to_float(h);
  } else if (k == dsl::ScalarKind::F32) {
    float f;
    std::memcpy(&f, bytes, 4);
    e->lit.value = f;
  } else if (k == dsl::ScalarKind::F64) {
    std::memcpy(&e->lit.value, bytes, 8);
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes, size);  // little-endian hosts
    if (dsl::is_signed(k) && size < 8 && (bits >> (size * 8 - 1)) & 1) bits |= ~uint64_t{0} << (size * 8);
    e->lit.bits = k == dsl::ScalarKind::Bool ? (bits != 0) : bits;
  }
  return e;
}

// ---- DLPack (dlpack.h's ABI, v0.8 and v1.x) ----------------------------------
// The consumer side of the protocol: the Python layer calls
// x.__dlpack__(stream=...) and hands the capsule here; this reads the tensor's
// description. The capsule is not renamed ("used_dltensor"): it stays the
// producer's, which frees the tensor when the capsule goes, so the Python layer
// keeps it alive until the launch is queued.
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: C order
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLPackReadOnly = 1;

// (pointer, device_type, device_id, shape, strides or None, (code, bits, lanes), read_only).
nb::tuple dlpack_view(nb::handle capsule) {
  if (!PyCapsule_CheckExact(capsule.ptr())) throw nb::type_error("scangen: __dlpack__() did not return a capsule");
  const char* name = PyCapsule_GetName(capsule.ptr());
  const std::string kind = name ? name : "";
  const DLTensor* t = nullptr;
  bool read_only = false;
  if (kind == "dltensor") {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (m) t = &m->dl_tensor;
  } else if (kind == "dltensor_versioned") {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
    if (m && m->version.major != 1)
      throw nb::type_error(("scangen: DLPack version " + std::to_string(m->version.major) + "." +
                            std::to_string(m->version.minor) + " is not supported (1.x is)")
                               .c_str());
    if (m) {
      t = &m->dl_tensor;
      read_only = (m->flags & kDLPackReadOnly) != 0;
    }
  } else {
    throw nb::type_error(("scangen: a DLPack capsule named '" + kind +
                          "' (expected 'dltensor' or 'dltensor_versioned'; 'used_dltensor' was consumed already)")
                             .c_str());
  }
  if (!t) throw nb::python_error();
  nb::list shape, strides;
  for (int32_t i = 0; i < t->ndim; ++i) {
    shape.append(t->shape[i]);
    if (t->strides) strides.append(t->strides[i]);
  }
  const uintptr_t ptr = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
  return nb::make_tuple(ptr, t->device.device_type, t->device.device_id, nb::tuple(shape),
                        t->strides ? nb::object(nb::tuple(strides)) : nb::none(),
                        nb::make_tuple(t->dtype.code, t->dtype.bits, t->dtype.lanes), read_only);
}

// An OpenCL buffer released when it goes out of scope.
struct ClBuffer {
  cl_mem mem = nullptr;
  ClBuffer(cl_context ctx, cl_mem_flags flags, size_t bytes, void* host) {
    cl_int err = CL_SUCCESS;
    mem = clCreateBuffer(ctx, flags, bytes, host, &err);
    if (err != CL_SUCCESS)
      throw scangen::Error("scangen: clCreateBuffer of " + std::to_string(bytes) + " bytes failed (OpenCL error " +
                           std::to_string(err) + ")");
  }
  ~ClBuffer() {
    if (mem) clReleaseMemObject(mem);
  }
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
};

// A Scan must not be launched from two threads at once (runtime.h), and
// variants share their compiled code: one launch at a time, the GIL released.
std::mutex launch_mutex;

class Kernel;

// One Runtime: a device and its caches.
class PyRuntime {
 public:
  explicit PyRuntime(const std::optional<std::string>& backend) {
    scangen::RuntimeOptions o;
    if (backend) {
      if (*backend == "cuda")
        o.backend = scangen::Backend::Cuda;
      else if (*backend == "opencl")
        o.backend = scangen::Backend::OpenCL;
      else
        throw nb::value_error(("unknown backend '" + *backend + "' (cuda, opencl)").c_str());
    }
    rt = std::make_shared<scangen::Runtime>(o);
  }
  std::string backend() const { return rt->backend() == scangen::Backend::Cuda ? "cuda" : "opencl"; }
  nb::dict stats() const {
    const scangen::CacheStats s = rt->stats();
    nb::dict d;
    d["memory_hits"] = s.memory_hits;
    d["disk_hits"] = s.disk_hits;
    d["misses"] = s.misses;
    d["compile_ms"] = s.compile_ms;
    d["disk_cache_on"] = s.disk_cache_on;
    d["disk_cache_off_reason"] = s.disk_cache_off_reason;
    return d;
  }
  std::shared_ptr<scangen::Runtime> rt;
};

// A compiled scan and the variants (inclusive / exclusive, init) made from its spec.
class Kernel {
 public:
  Kernel(std::shared_ptr<scangen::Runtime> rt, scangen::Scan scan) : rt_(std::move(rt)), scan_(std::move(scan)) {}

  const dsl::Spec& spec() const { return scan_.spec(); }

  // The scan of this spec that writes only the inclusive (or exclusive)
  // output, seeded by `init` (the bytes of one element; none: the spec's).
  std::shared_ptr<Kernel> variant(bool exclusive, const std::optional<nb::bytes>& init) {
    const dsl::Spec& base = spec();
    if (init && init->size() != base.type.size())
      throw nb::value_error(("init has " + std::to_string(init->size()) + " bytes; the element type '" +
                             base.type.name() + "' has " + std::to_string(base.type.size()))
                                .c_str());
    std::string key(exclusive ? "x" : "i");
    if (init) key.append(init->c_str(), init->size());
    auto it = variants_.find(key);
    if (it != variants_.end()) return it->second;
    dsl::Spec s = base;
    s.mode = exclusive ? dsl::Mode::Exclusive : dsl::Mode::Inclusive;
    s.aggregate = false;
    s.running_total = false;
    if (init) s.init = constant_from_bytes(s.type, init->c_str());
    std::shared_ptr<Kernel> k;
    if (s == base) {
      k = std::make_shared<Kernel>(rt_, scan_);
    } else {
      nb::gil_scoped_release unlocked;
      k = std::make_shared<Kernel>(rt_, rt_->compile(s));
    }
    variants_[key] = k;
    return k;
  }

  // Host arrays through buffers of the Runtime's OpenCL context.
  void run_host(uintptr_t in, uintptr_t out, uint64_t n) const {
    const dsl::Spec& s = spec();
    if (scan_.backend() != scangen::Backend::OpenCL) throw scangen::Error("scangen: run_host needs the OpenCL backend");
    if (n == 0) return;
    const size_t in_bytes = n * scan_.input_size(), out_bytes = n * scan_.element_size();
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
    cl_context ctx = rt_->opencl_context();
    cl_command_queue q = rt_->opencl_queue();
    ClBuffer bin(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_bytes, reinterpret_cast<void*>(in));
    ClBuffer bout(ctx, CL_MEM_READ_WRITE, out_bytes, nullptr);
    scangen::Scan::OpenCLArgs a;
    a.in = bin.mem;
    (s.has_exclusive() ? a.exclusive : a.inclusive) = bout.mem;
    a.n = n;
    scan_.run(a);
    const cl_int err =
        clEnqueueReadBuffer(q, bout.mem, CL_TRUE, 0, out_bytes, reinterpret_cast<void*>(out), 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      throw scangen::Error("scangen: clEnqueueReadBuffer failed (OpenCL error " + std::to_string(err) + ")");
  }

  // CUDA device pointers on a stream (a CUstream as an integer; 0: the
  // default stream) with a workspace of workspace_bytes(n) bytes (0: the
  // Scan's own, which calls on two streams must not use at once).
  void run_cuda(uintptr_t in, uintptr_t out, uint64_t n, uintptr_t stream, uintptr_t workspace,
                uint64_t workspace_size) const {
    if (scan_.backend() != scangen::Backend::Cuda) throw scangen::Error("scangen: run_cuda needs the CUDA backend");
    if (n == 0) return;
    scangen::Scan::CudaArgs a;
    a.in = reinterpret_cast<const void*>(in);
    (spec().has_exclusive() ? a.exclusive : a.inclusive) = reinterpret_cast<void*>(out);
    a.n = n;
    a.stream = reinterpret_cast<void*>(stream);
    a.workspace = reinterpret_cast<void*>(workspace);
    a.workspace_size = workspace_size;
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
    scan_.run(a);
  }

  uint64_t workspace_bytes(uint64_t n) const { return scan_.workspace_bytes(n); }

  const scangen::Scan& scan() const { return scan_; }

 private:
  std::shared_ptr<scangen::Runtime> rt_;
  scangen::Scan scan_;
  std::map<std::string, std::shared_ptr<Kernel>> variants_;
};

std::shared_ptr<Kernel> compile_text(PyRuntime& r, const std::string& text, const std::string& name) {
  nb::gil_scoped_release unlocked;
  return std::make_shared<Kernel>(r.rt, r.rt->compile(text, name));
}

std::shared_ptr<Kernel> compile_file(PyRuntime& r, const std::string& path, const std::string& name) {
  nb::gil_scoped_release unlocked;
  return std::make_shared<Kernel>(r.rt, r.rt->compile_file(path, name));
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "scangen's runtime for Python (use the scangen package, not this module)";
  static PyObject* scan_error = PyErr_NewExceptionWithDoc(
      "scangen.ScanError",
      "An error reported by scangen, with its text: diagnostics of .scan text carry file:line:col and a caret "
      "under the mistake; runtime errors name the call and the code.",
      PyExc_ValueError, nullptr);  // kept for the process's life
  m.attr("ScanError") = nb::borrow(scan_error);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const scangen::Error& e) {
      PyErr_SetString(scan_error, e.what());
    }
  });

  m.def(
      "dlpack_view", &dlpack_view, "capsule"_a,
      "(pointer, device_type, device_id, shape, strides or None, (code, bits, lanes), read_only) of a DLPack capsule");

  nb::class_<PyRuntime>(m, "Runtime")
      .def(nb::init<const std::optional<std::string>&>(), "backend"_a = nb::none())
      .def_prop_ro("backend", &PyRuntime::backend)
      .def_prop_ro("device_name", [](const PyRuntime& r) { return r.rt->device_name(); })
      .def_prop_ro("fallback_reason", [](const PyRuntime& r) { return r.rt->fallback_reason(); })
      .def("stats", &PyRuntime::stats)
      .def("compile", &compile_text, "text"_a, "name"_a = "")
      .def("compile_file", &compile_file, "path"_a, "name"_a = "");

  nb::class_<Kernel>(m, "Kernel")
      .def_prop_ro("name", [](const Kernel& k) { return k.spec().name; })
      .def_prop_ro("spec_text", [](const Kernel& k) { return k.spec().to_string(); })
      .def_prop_ro("type", [](const Kernel& k) { return describe_type(k.spec().type); })
      .def_prop_ro("input", [](const Kernel& k) { return describe_type(k.spec().input); })
      .def_prop_ro("level", [](const Kernel& k) { return std::string(dsl::to_string(k.spec().level)); })
      .def_prop_ro("mode", [](const Kernel& k) { return std::string(dsl::to_string(k.spec().mode)); })
      .def_prop_ro(
          "backend",
          [](const Kernel& k) { return std::string(k.scan().backend() == scangen::Backend::Cuda ? "cuda" : "opencl"); })
      .def("variant", &Kernel::variant, "exclusive"_a, "init"_a = nb::none())
      .def("run_host", &Kernel::run_host, "in_ptr"_a, "out_ptr"_a, "n"_a)
      .def("workspace_bytes", &Kernel::workspace_bytes, "n"_a)
      .def("run_cuda", &Kernel::run_cuda, "in_ptr"_a, "out_ptr"_a, "n"_a, "stream"_a, "workspace"_a = 0,
           "workspace_size"_a = 0);
}
