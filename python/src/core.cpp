// scangen._core: the runtime (scangen::Runtime, scangen::Scan) for Python.
// The Python layer (the scangen package) checks arrays, dtypes and shapes;
// this module takes raw pointers and lengths and launches.
#include <CL/cl.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scangen/dsl/adjoint.h"
#include "scangen/dsl/field_arrays.h"
#include "scangen/dsl/spec.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

#include "data.h"
#include "launch.h"
#ifdef SCANGEN_JAX
#include "jax_ffi.h"
#endif

namespace nb = nanobind;
using namespace nb::literals;

namespace {

namespace dsl = scangen::dsl;
using scangen::py::constant_from_bytes;
using scangen::py::data_pointer;
using scangen::py::describe_type;
using scangen::py::dlpack_view;
using scangen::py::rows_shape;
using scangen::py::Shape;
using scangen::py::strided_shape;

using scangen::py::ClBuffer;
using scangen::py::read_back;
using scangen::py::variant_spec;

// One launch at a time, process-wide (launch.h).
std::mutex& launch_mutex = scangen::py::launch_mutex();

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
  // output, seeded by `init` (the bytes of one element; none: the spec's),
  // with the settings of `shape` and `segments` (their spellings in the
  // language: "flat", "rows", "strided"; "none", "flags", "offsets", "keys"),
  // `reverse`, the segments' offset or key type ("" for the spec's) and
  // whether it writes aggregates: the spec text with those settings added.
  std::shared_ptr<Kernel> variant(bool exclusive, const std::optional<nb::bytes>& init, bool reverse,
                                  const std::string& shape, const std::string& segments, const std::string& index_type,
                                  bool aggregate) {
    const dsl::Spec& base = spec();
    if (init && init->size() != base.type.size())
      throw nb::value_error(("init has " + std::to_string(init->size()) + " bytes; the element type '" +
                             base.type.name() + "' has " + std::to_string(base.type.size()))
                                .c_str());
    std::string key(exclusive ? "x" : "i");
    key += (reverse ? "r" : "f") + std::string(aggregate ? "a" : "-") + shape + "/" + segments + "/" + index_type + "/";
    if (init) key.append(init->c_str(), init->size());
    auto it = variants_.find(key);
    if (it != variants_.end()) return it->second;
    dsl::Spec s = variant_spec(base, exclusive, reverse, shape, segments, index_type, aggregate);
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

  // The builds a scan carried across processes takes (scangen.mpi, scangen.dask): with `reduce`, the spec by
  // reduce_then_scan with outputs = aggregate (reduce_host / reduce_cuda: one read of the input); else the
  // spec with outputs = running_total, seeded by a carry from host memory (run_host / run_cuda's `carry`).
  // Neither has init: the carry holds it.
  std::shared_ptr<Kernel> carry_variant(bool reduce, bool exclusive, bool reverse) {
    const std::string key = std::string(reduce ? "R" : "C") + (exclusive ? "x" : "i") + (reverse ? "r" : "f");
    auto it = variants_.find(key);
    if (it != variants_.end()) return it->second;
    dsl::Spec s = spec();
    const std::string who = "scangen: scan '" + s.name + "' across processes: ";
    if (s.convert_takes_index())
      throw scangen::Error(who + "its convert reads the element's index, which a part knows only within itself");
    if (s.convert && s.convert->neighbours >= 0)
      throw scangen::Error(who +
                           "its convert reads prev(...) / next(...), the input beside each element, across "
                           "the parts' ends");
    if (s.has_input_arrays() || s.has_scatter() || s.segments != dsl::Segments::None)
      throw scangen::Error(who + "fused input arrays, fused outputs and segments are not carried across parts yet");
    s.reverse = reverse;
    s.init = nullptr;
    s.aggregate = reduce;
    s.running_total = !reduce;
    s.mode = reduce || !exclusive ? dsl::Mode::Inclusive : dsl::Mode::Exclusive;
    if (reduce) {
      s.algorithm = dsl::Algorithm::ReduceThenScan;
      s.threads = s.items = 0;
    }
    std::shared_ptr<Kernel> k;
    {
      nb::gil_scoped_release unlocked;
      k = std::make_shared<Kernel>(rt_, rt_->compile(s));
    }
    variants_[key] = k;
    return k;
  }

  // The aggregate of n input elements (a carry_variant(true, ...) kernel), as bytes: host arrays through the
  // OpenCL context, or CUDA device memory on a stream.
  nb::bytes reduce_host(uintptr_t in, uint64_t n) const {
    std::string agg(scan_.element_size(), '\0');
    {
      nb::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
      const size_t in_bytes = n * scan_.input_size();
      std::unique_ptr<ClBuffer> bin;
      if (in_bytes)
        bin = std::make_unique<ClBuffer>(rt_->opencl_context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_bytes,
                                         reinterpret_cast<void*>(in));
      scangen::Scan::OpenCLArgs a;
      a.in = bin ? bin->mem : nullptr;
      a.n = n;
      a.host_aggregate = agg.data();
      scan_.reduce(a);
    }
    return nb::bytes(agg.data(), agg.size());
  }
  nb::bytes reduce_cuda(uintptr_t in, uint64_t n, uintptr_t stream, uintptr_t workspace,
                        uint64_t workspace_size) const {
    std::string agg(scan_.element_size(), '\0');
    {
      nb::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
      scangen::Scan::CudaArgs a;
      a.in = reinterpret_cast<const void*>(in);
      a.n = n;
      a.stream = reinterpret_cast<void*>(stream);
      a.workspace = reinterpret_cast<void*>(workspace);
      a.workspace_size = workspace_size;
      a.host_aggregate = agg.data();
      scan_.reduce(a);
    }
    return nb::bytes(agg.data(), agg.size());
  }

  // How many segments `n` keys of host memory at `keys` make, compared as
  // this variant's spec says (key_equal where it has one: the reference's
  // evaluator of it, the segments' count of its aggregates).
  uint64_t key_segments(uintptr_t keys, uint64_t n) const {
    if (n == 0) return 0;
    if (keys == 0) throw nb::value_error("scangen: key_segments: null keys");
    nb::gil_scoped_release unlocked;
    return scangen::ref::ranges_from_keys(spec(), reinterpret_cast<const void*>(keys), n).size();
  }

  // Host arrays through buffers of the Runtime's OpenCL context: `n`
  // elements (flat or segmented), or the span of `shape`; `agg`: the
  // aggregates (agg_count of them), `seg`: the segments' flags, keys or
  // offsets (seg_count segments for offsets).
  void run_host(uintptr_t in, uintptr_t out, uint64_t n, const Shape* shape, uintptr_t agg, uint64_t agg_count,
                uintptr_t seg, uint64_t seg_count, bool check, const std::optional<nb::bytes>& carry) const {
    std::string total = carry_bytes(carry);
    const dsl::Spec& s = spec();
    if (scan_.backend() != scangen::Backend::OpenCL) throw scangen::Error("scangen: run_host needs the OpenCL backend");
    const uint64_t in_count = shape ? shape->span(false) : n, out_count = shape ? shape->span(true) : n;
    if (in_count == 0 && !agg) return;
    const size_t in_bytes = in_count * scan_.input_size(), out_bytes = out_count * scan_.element_size();
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
    cl_context ctx = rt_->opencl_context();
    cl_command_queue q = rt_->opencl_queue();
    auto input = [&](uintptr_t p, size_t bytes) {
      return std::make_unique<ClBuffer>(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                        reinterpret_cast<void*>(p));
    };
    std::unique_ptr<ClBuffer> bin, bseg, bagg;
    if (in_bytes) bin = input(in, in_bytes);
    ClBuffer bout(ctx, CL_MEM_READ_WRITE, out_bytes ? out_bytes : 1, nullptr);
    scangen::Scan::OpenCLArgs a;
    if (shape) static_cast<scangen::Scan::ShapeArgs&>(a) = shape->args;
    a.in = bin ? bin->mem : nullptr;
    (s.has_exclusive() ? a.exclusive : a.inclusive) = bout.mem;
    a.n = shape ? 0 : n;
    if (seg) {
      bseg = input(seg, segment_bytes(n, seg_count));
      (s.segments == dsl::Segments::Flags  ? a.segment_flags
       : s.segments == dsl::Segments::Keys ? a.keys
                                           : a.segment_offsets) = bseg->mem;
      a.segment_count = seg_count;
      a.check_segments = check;
    }
    if (agg) {
      bagg = std::make_unique<ClBuffer>(ctx, CL_MEM_READ_WRITE, agg_count * scan_.element_size() + 1, nullptr);
      (s.segments != dsl::Segments::None ? a.segment_aggregates : a.aggregate) = bagg->mem;
      // Flags and keys: the aggregates' room (the segments counted), which the runtime checks.
      if (s.segments == dsl::Segments::Flags || s.segments == dsl::Segments::Keys) a.segment_count = agg_count;
    }
    if (carry) a.host_running_total = total.data();
    scan_.run(a);
    read_back(q, bout.mem, reinterpret_cast<void*>(out), out_bytes);
    if (agg) read_back(q, bagg->mem, reinterpret_cast<void*>(agg), agg_count * scan_.element_size());
  }

  // CUDA device pointers on a stream (a CUstream as an integer; 0: the
  // default stream) with a workspace of workspace_bytes(n) bytes (0: the
  // Scan's own, which calls on two streams must not use at once); the
  // shape, aggregates and segments as for run_host.
  void run_cuda(uintptr_t in, uintptr_t out, uint64_t n, uintptr_t stream, uintptr_t workspace, uint64_t workspace_size,
                const Shape* shape, uintptr_t agg, uint64_t agg_count, uintptr_t seg, uint64_t seg_count, bool check,
                const std::optional<nb::bytes>& carry) const {
    if (scan_.backend() != scangen::Backend::Cuda) throw scangen::Error("scangen: run_cuda needs the CUDA backend");
    std::string total = carry_bytes(carry);
    const dsl::Spec& s = spec();
    scangen::Scan::CudaArgs a;
    if (shape) static_cast<scangen::Scan::ShapeArgs&>(a) = shape->args;
    a.in = reinterpret_cast<const void*>(in);
    (s.has_exclusive() ? a.exclusive : a.inclusive) = reinterpret_cast<void*>(out);
    a.n = shape ? 0 : n;
    a.stream = reinterpret_cast<void*>(stream);
    a.workspace = reinterpret_cast<void*>(workspace);
    a.workspace_size = workspace_size;
    if (seg || s.segments == dsl::Segments::Offsets) {
      const void* p = reinterpret_cast<const void*>(seg);
      (s.segments == dsl::Segments::Flags  ? a.segment_flags
       : s.segments == dsl::Segments::Keys ? a.keys
                                           : a.segment_offsets) = p;
      a.segment_count = seg_count;
      a.check_segments = check;
    }
    if (agg) (s.segments != dsl::Segments::None ? a.segment_aggregates : a.aggregate) = reinterpret_cast<void*>(agg);
    // Flags and keys: the aggregates' room (the segments counted), which the runtime checks.
    if (agg && (s.segments == dsl::Segments::Flags || s.segments == dsl::Segments::Keys)) a.segment_count = agg_count;
    if (!shape && n == 0 && !agg) return;
    if (carry) a.host_running_total = total.data();  // the call then waits for its stream
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
    scan_.run(a);
  }

  // A carry (run_host / run_cuda of a carry_variant(false, ...) kernel): one element's bytes, checked.
  std::string carry_bytes(const std::optional<nb::bytes>& carry) const {
    if (!carry) return {};
    if (carry->size() != scan_.element_size())
      throw nb::value_error(("carry has " + std::to_string(carry->size()) + " bytes; the element type has " +
                             std::to_string(scan_.element_size()))
                                .c_str());
    return std::string(carry->c_str(), carry->size());
  }

  // The same scan reading its struct input as one array per scalar field
  // (dsl::with_field_arrays: no packing pass), or null where input arrays do
  // not go (then the fields are packed into structs first). Compiled once.
  std::shared_ptr<Kernel> fields() {
    if (!fields_checked_) {
      fields_checked_ = true;
      if (std::optional<dsl::Spec> s = dsl::with_field_arrays(spec())) {
        nb::gil_scoped_release unlocked;
        fields_ = std::make_shared<Kernel>(rt_, rt_->compile(*s));
      }
    }
    return fields_;
  }

  // A fields() kernel on host arrays (OpenCL): `ins`, one per field, n
  // elements each; `out` n elements; `agg` one element (0: none).
  void run_host_fields(const std::vector<uintptr_t>& ins, uintptr_t out, uint64_t n, uintptr_t agg) const {
    const dsl::Spec& s = spec();
    if (scan_.backend() != scangen::Backend::OpenCL) throw scangen::Error("scangen: run_host needs the OpenCL backend");
    if (!s.input_arrays || ins.size() != s.input_arrays->size())
      throw scangen::Error("scangen: run_host_fields needs one array per field of a field-array scan");
    if (n == 0 && !agg) return;
    const size_t out_bytes = n * scan_.element_size();
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
    cl_context ctx = rt_->opencl_context();
    cl_command_queue q = rt_->opencl_queue();
    std::vector<std::unique_ptr<ClBuffer>> buffers;
    scangen::Scan::OpenCLArgs a;
    for (size_t k = 0; k < ins.size(); ++k) {
      const size_t bytes = n * (*s.input_arrays)[k].size();
      buffers.push_back(bytes ? std::make_unique<ClBuffer>(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                                                           reinterpret_cast<void*>(ins[k]))
                              : nullptr);
      a.inputs.push_back(buffers.back() ? buffers.back()->mem : nullptr);
    }
    ClBuffer bout(ctx, CL_MEM_READ_WRITE, out_bytes ? out_bytes : 1, nullptr);
    std::unique_ptr<ClBuffer> bagg;
    (s.has_exclusive() ? a.exclusive : a.inclusive) = bout.mem;
    a.n = n;
    if (agg) {
      bagg = std::make_unique<ClBuffer>(ctx, CL_MEM_READ_WRITE, scan_.element_size(), nullptr);
      a.aggregate = bagg->mem;
    }
    scan_.run(a);
    read_back(q, bout.mem, reinterpret_cast<void*>(out), out_bytes);
    if (agg) read_back(q, bagg->mem, reinterpret_cast<void*>(agg), scan_.element_size());
  }

  // A fields() kernel on CUDA device pointers, one per field (n elements each).
  void run_cuda_fields(const std::vector<uintptr_t>& ins, uintptr_t out, uint64_t n, uintptr_t stream,
                       uintptr_t workspace, uint64_t workspace_size, uintptr_t agg) const {
    if (scan_.backend() != scangen::Backend::Cuda) throw scangen::Error("scangen: run_cuda needs the CUDA backend");
    const dsl::Spec& s = spec();
    scangen::Scan::CudaArgs a;
    for (uintptr_t p : ins) a.inputs.push_back(reinterpret_cast<const void*>(p));
    (s.has_exclusive() ? a.exclusive : a.inclusive) = reinterpret_cast<void*>(out);
    a.n = n;
    a.stream = reinterpret_cast<void*>(stream);
    a.workspace = reinterpret_cast<void*>(workspace);
    a.workspace_size = workspace_size;
    if (agg) a.aggregate = reinterpret_cast<void*>(agg);
    if (n == 0 && !agg) return;
    nb::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex);
    scan_.run(a);
  }

  uint64_t workspace_bytes(uint64_t n) const { return scan_.workspace_bytes(n); }

  const scangen::Scan& scan() const { return scan_; }

 private:
  // Bytes of the segments' array: n flags or keys, or seg_count + 1 offsets.
  size_t segment_bytes(uint64_t n, uint64_t seg_count) const {
    const dsl::Spec& s = spec();
    if (s.segments == dsl::Segments::Offsets) return (seg_count + 1) * dsl::scalar_size(s.offset);
    return n * (s.segments == dsl::Segments::Keys ? dsl::scalar_size(s.key) : 1);
  }

  std::shared_ptr<scangen::Runtime> rt_;
  scangen::Scan scan_;
  std::map<std::string, std::shared_ptr<Kernel>> variants_;
  bool fields_checked_ = false;
  std::shared_ptr<Kernel> fields_;
};

std::shared_ptr<Kernel> compile_text(PyRuntime& r, const std::string& text, const std::string& name) {
  nb::gil_scoped_release unlocked;
  return std::make_shared<Kernel>(r.rt, r.rt->compile(text, name));
}

std::shared_ptr<Kernel> compile_file(PyRuntime& r, const std::string& path, const std::string& name) {
  nb::gil_scoped_release unlocked;
  return std::make_shared<Kernel>(r.rt, r.rt->compile_file(path, name));
}

// The Kernel's description of its spec: names, types, identity, operator,
// mode, direction, backend, the carry across parts.
void describe_kernel(nb::class_<Kernel>& k) {
  k.def_prop_ro("name", [](const Kernel& k) { return k.spec().name; })
      .def_prop_ro("spec_text", [](const Kernel& k) { return k.spec().to_string(); })
      .def_prop_ro("type", [](const Kernel& k) { return describe_type(k.spec().type); })
      .def_prop_ro("input", [](const Kernel& k) { return describe_type(k.spec().input); })
      .def_prop_ro("level", [](const Kernel& k) { return std::string(dsl::to_string(k.spec().level)); })
      .def_prop_ro("identity",
                   [](const Kernel& k) {
                     // The operator's identity, as bytes of one element.
                     const scangen::ref::Evaluator ev(k.spec());
                     std::string bytes(k.spec().type.size(), '\0');
                     ev.identity(bytes.data());
                     return nb::bytes(bytes.data(), bytes.size());
                   })
      .def(
          "carry",
          [](const Kernel& k, const nb::bytes& aggregates, uint64_t part, const std::optional<nb::bytes>& init,
             bool reverse) {
            // Across processes: the carry of part `part` of those whose aggregates lie one after the other
            // in `aggregates`: init (the spec's where none) combined, on the host with the spec's operator,
            // with the aggregates of the parts before it (after it, reverse); and the total of them all.
            const dsl::Spec& s = k.spec();
            const size_t e = s.type.size();
            if (aggregates.size() % e != 0 || part >= aggregates.size() / e)
              throw nb::value_error("carry: the aggregates are not whole elements, or the part is past them");
            if (init && init->size() != e) throw nb::value_error("carry: init is not one element");
            dsl::Spec directed = s;
            directed.reverse = reverse;
            std::string carry(e, '\0'), sum(e, '\0');
            scangen::ref::Evaluator(directed).carry(aggregates.c_str(), aggregates.size() / e, part,
                                                    init ? init->c_str() : nullptr, carry.data(), sum.data());
            return nb::make_tuple(nb::bytes(carry.data(), e), nb::bytes(sum.data(), e));
          },
          "aggregates"_a, "part"_a, "init"_a.none() = nb::none(), "reverse"_a = false)
      .def_prop_ro("op",
                   [](const Kernel& k) {
                     // The built-in operator of a scan of its own element type from the identity
                     // ("" otherwise).
                     const dsl::Spec& s = k.spec();
                     return s.op && !s.convert && !s.has_input_arrays() && !s.init ? std::string(dsl::to_string(*s.op))
                                                                                   : std::string();
                   })
      .def_prop_ro("mode", [](const Kernel& k) { return std::string(dsl::to_string(k.spec().mode)); })
      .def_prop_ro("reverse", [](const Kernel& k) { return k.spec().reverse; })
      .def_prop_ro("backend", [](const Kernel& k) {
        return std::string(k.scan().backend() == scangen::Backend::Cuda ? "cuda" : "opencl");
      });
}

// The Kernel's variants, launches, workspaces and backward scan.
void launch_kernel(nb::class_<Kernel>& k) {
  k.def("variant", &Kernel::variant, "exclusive"_a, "init"_a = nb::none(), "reverse"_a = false, "shape"_a = "flat",
        "segments"_a = "none", "index_type"_a = "", "aggregate"_a = false)
      .def("run_host", &Kernel::run_host, "in_ptr"_a, "out_ptr"_a, "n"_a, "shape"_a.none() = nb::none(), "agg"_a = 0,
           "agg_count"_a = 0, "seg"_a = 0, "seg_count"_a = 0, "check"_a = false, "carry"_a = nb::none())
      .def("carry_variant", &Kernel::carry_variant, "reduce"_a, "exclusive"_a = false, "reverse"_a = false)
      .def("reduce_host", &Kernel::reduce_host, "in_ptr"_a, "n"_a)
      .def("reduce_cuda", &Kernel::reduce_cuda, "in_ptr"_a, "n"_a, "stream"_a, "workspace"_a = 0,
           "workspace_size"_a = 0)
      .def(
          "adjoint",
          [](const Kernel& k, bool reverse) {
            // The backward scan of the scan run forward (reverse = false) or from the end: its text,
            // its scan's name, its float type and the float scalars of the element (x.a.b) whose
            // gradients it gives, in order.
            scangen::dsl::Spec spec = k.spec();
            spec.reverse = reverse;
            scangen::dsl::Adjoint a = scangen::dsl::adjoint(spec);
            std::vector<std::string> leaves;
            for (const scangen::dsl::Leaf& l : a.leaves) leaves.push_back(l.name);
            return nb::make_tuple(a.text, a.name, a.float_type, leaves);
          },
          "reverse"_a)
      .def_prop_ro("has_key_equal", [](const Kernel& k) { return k.spec().key_equal.has_value(); })
      .def("key_segments", &Kernel::key_segments, "keys"_a, "n"_a)
      .def("workspace_bytes", &Kernel::workspace_bytes, "n"_a)
      .def("fields", &Kernel::fields)
      .def("run_host_fields", &Kernel::run_host_fields, "ins"_a, "out_ptr"_a, "n"_a, "agg"_a = 0)
      .def("run_cuda_fields", &Kernel::run_cuda_fields, "ins"_a, "out_ptr"_a, "n"_a, "stream"_a, "workspace"_a = 0,
           "workspace_size"_a = 0, "agg"_a = 0)
      .def("shape_workspace_bytes", [](const Kernel& k, const Shape& s) { return k.scan().workspace_bytes(s.args); })
      .def("run_cuda", &Kernel::run_cuda, "in_ptr"_a, "out_ptr"_a, "n"_a, "stream"_a, "workspace"_a = 0,
           "workspace_size"_a = 0, "shape"_a.none() = nb::none(), "agg"_a = 0, "agg_count"_a = 0, "seg"_a = 0,
           "seg_count"_a = 0, "check"_a = false, "carry"_a = nb::none());
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
    } catch (const scangen::dsl::DerivativeError& e) {
      PyErr_SetString(scan_error, e.what());
    }
  });

  m.def(
      "dlpack_view", &dlpack_view, "capsule"_a,
      "(pointer, device_type, device_id, shape, strides or None, (code, bits, lanes), read_only) of a DLPack capsule");

  m.def("data_pointer", &data_pointer, "array"_a,
        "the address of a contiguous buffer's memory (a C-contiguous NumPy array's data), 0 where there is none");

  nb::class_<PyRuntime>(m, "Runtime")
      .def(nb::init<const std::optional<std::string>&>(), "backend"_a = nb::none())
      .def_prop_ro("backend", &PyRuntime::backend)
      .def_prop_ro("device_name", [](const PyRuntime& r) { return r.rt->device_name(); })
      .def_prop_ro("fallback_reason", [](const PyRuntime& r) { return r.rt->fallback_reason(); })
      .def("stats", &PyRuntime::stats)
      .def("compile", &compile_text, "text"_a, "name"_a = "")
      .def("compile_file", &compile_file, "path"_a, "name"_a = "");

  nb::class_<Kernel> kernel(m, "Kernel");
  describe_kernel(kernel);
  launch_kernel(kernel);

  nb::class_<Shape>(m, "Shape")
      .def_prop_ro("span", [](const Shape& s) { return s.span(false); })
      .def_prop_ro("out_span", [](const Shape& s) { return s.span(true); });
#ifdef SCANGEN_JAX
  // JAX's FFI handlers (jax_ffi.h): the scangen package registers them with jax.ffi and calls them.
  m.attr("jax_ffi") = true;
  m.def(
      "jax_register", [](const Kernel& k) { return scangen::py::jax_register(k.spec()); }, "kernel"_a,
      "the handle of a kernel's spec for the JAX handlers' `handle` attribute");
  m.def(
      "jax_use_runtime", [](const PyRuntime& r) { scangen::py::jax_use_runtime(r.rt); }, "runtime"_a,
      "the Runtime the JAX handlers of its backend use (where they have none yet)");
  m.def("jax_targets", &scangen::py::jax_targets, "the handlers: {'cpu': capsule, 'CUDA': capsule}");
#else
  m.attr("jax_ffi") = false;
#endif
  m.def("rows_shape", &rows_shape, "rows"_a, "length"_a, "row_stride"_a = 0, "out_row_stride"_a = 0);
  m.def("strided_shape", &strided_shape, "axis"_a, "extents"_a, "strides"_a, "out_strides"_a);
}
