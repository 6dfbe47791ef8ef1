// JAX's XLA FFI handlers of scangen's scans (jax_ffi.h), compiled against the
// headers jaxlib ships (jax.ffi.include_dir()).
#include "jax_ffi.h"

#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "launch.h"
#include "xla/ffi/api/ffi.h"

// CUDA's stream type, as driver_types.h declares it (the same typedef; no CUDA header needed to name it).
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

namespace ffi = xla::ffi;

namespace scangen::py {

namespace {

// A variant and the Runtime it was compiled by (whose OpenCL context its buffers belong to).
struct Compiled {
  std::shared_ptr<scangen::Runtime> rt;
  scangen::Scan scan;
};

// A registered spec and the variants of it compiled for the handlers.
struct Entry {
  explicit Entry(dsl::Spec s) : spec(std::move(s)) {}
  const dsl::Spec spec;
  std::mutex mutex;  // held while a variant compiles: a second caller waits for it
  std::map<std::tuple<int, bool, bool, bool>, Compiled> variants;
};

std::mutex registry_mutex;
std::vector<std::unique_ptr<Entry>> registry;   // handle h: registry[h - 1]
std::shared_ptr<scangen::Runtime> runtimes[2];  // OpenCL, CUDA

int slot(scangen::Backend b) { return b == scangen::Backend::Cuda ? 1 : 0; }

Entry& entry(int64_t handle) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  if (handle < 1 || static_cast<uint64_t>(handle) > registry.size())
    throw scangen::Error("scangen: no compiled scan has the JAX handle " + std::to_string(handle) + " in this process");
  return *registry[handle - 1];
}

std::shared_ptr<scangen::Runtime> runtime_for(scangen::Backend b) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::shared_ptr<scangen::Runtime>& rt = runtimes[slot(b)];
  if (!rt) {
    scangen::RuntimeOptions o;
    o.backend = b;
    rt = std::make_shared<scangen::Runtime>(o);
  }
  return rt;
}

// One call's lines: n elements in rows of `length` (flat where there is one row, or where the call says
// `flat`: the lines laid end to end are scanned as one, the spec separating them itself, as the backward
// scans do with their flag on each line's last element).
struct Lines {
  uint64_t n = 0, rows = 0, length = 0;
  scangen::Scan::ShapeArgs shape() const {
    scangen::Scan::ShapeArgs s;
    s.rows = rows;
    s.length = length;
    return s;
  }
};

Lines lines_of(const dsl::Spec& spec, const ffi::AnyBuffer& x, const ffi::AnyBuffer& y, int64_t length, bool flat) {
  const size_t in_size = spec.input.size(), out_size = spec.type.size();
  Lines l;
  if (in_size == 0 || x.size_bytes() % in_size)
    throw scangen::Error("scangen: the JAX call's input has " + std::to_string(x.size_bytes()) +
                         " bytes, not a whole number of " + std::to_string(in_size) + "-byte elements");
  l.n = x.size_bytes() / in_size;
  if (y.size_bytes() != l.n * out_size)
    throw scangen::Error("scangen: the JAX call's output has " + std::to_string(y.size_bytes()) + " bytes; " +
                         std::to_string(l.n) + " elements of " + std::to_string(out_size) + " bytes need " +
                         std::to_string(l.n * out_size));
  if (l.n == 0) return l;
  if (length <= 0 || l.n % static_cast<uint64_t>(length))
    throw scangen::Error("scangen: the JAX call's " + std::to_string(l.n) + " elements are not lines of " +
                         std::to_string(length));
  l.length = flat ? l.n : static_cast<uint64_t>(length);
  l.rows = l.n / l.length;
  return l;
}

// The variant of the entry's spec for a call: its backend, mode, direction and shape; compiled once.
Compiled variant(Entry& e, scangen::Backend b, bool exclusive, bool reverse, bool rows) {
  std::lock_guard<std::mutex> lock(e.mutex);
  const auto key = std::make_tuple(slot(b), exclusive, reverse, rows);
  auto it = e.variants.find(key);
  if (it != e.variants.end()) return it->second;
  const dsl::Spec s = variant_spec(e.spec, exclusive, reverse, rows ? "rows" : "flat", "none", "", false);
  Compiled c{runtime_for(b), {}};
  c.scan = c.rt->compile(s);
  e.variants.emplace(key, c);
  return c;
}

// The runtime's errors (and any other exception) as the FFI's, with their message: never a crash.
template <typename F>
ffi::Error guarded(F&& f) {
  try {
    f();
    return ffi::Error::Success();
  } catch (const std::exception& ex) {
    return ffi::Error(ffi::ErrorCode::kInternal, ex.what());
  } catch (...) {
    return ffi::Error(ffi::ErrorCode::kInternal, "scangen: an unknown error in the JAX handler");
  }
}

// The CPU: the input copied into a buffer of the OpenCL Runtime's context, scanned, read back into XLA's output.
ffi::Error scan_cpu(ffi::AnyBuffer x, ffi::Result<ffi::AnyBuffer> y, int64_t handle, bool exclusive, bool reverse,
                    int64_t length, bool flat) {
  return guarded([&] {
    Entry& e = entry(handle);
    const Lines l = lines_of(e.spec, x, *y, length, flat);
    if (l.n == 0) return;
    const Compiled c = variant(e, scangen::Backend::OpenCL, exclusive, reverse, l.rows > 1);
    const scangen::Scan& scan = c.scan;
    const std::shared_ptr<scangen::Runtime>& rt = c.rt;
    const size_t in_bytes = l.n * scan.input_size(), out_bytes = l.n * scan.element_size();
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex());
    ClBuffer in(rt->opencl_context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_bytes, x.untyped_data());
    ClBuffer out(rt->opencl_context(), CL_MEM_READ_WRITE, out_bytes, nullptr);
    scangen::Scan::OpenCLArgs a;
    if (l.rows > 1)
      static_cast<scangen::Scan::ShapeArgs&>(a) = l.shape();
    else
      a.n = l.n;
    a.in = in.mem;
    (scan.spec().has_exclusive() ? a.exclusive : a.inclusive) = out.mem;
    scan.run(a);
    read_back(rt->opencl_queue(), out.mem, y->untyped_data(), out_bytes);
  });
}

// CUDA: XLA's device buffers, on XLA's stream, with a workspace from XLA's scratch allocator. The CUDA
// runtime's context must be the device's primary context, the one XLA uses.
ffi::Error scan_cuda(cudaStream_t stream, ffi::ScratchAllocator scratch, ffi::AnyBuffer x,
                     ffi::Result<ffi::AnyBuffer> y, int64_t handle, bool exclusive, bool reverse, int64_t length,
                     bool flat) {
  return guarded([&] {
    Entry& e = entry(handle);
    const Lines l = lines_of(e.spec, x, *y, length, flat);
    if (l.n == 0) return;
    const Compiled c = variant(e, scangen::Backend::Cuda, exclusive, reverse, l.rows > 1);
    const scangen::Scan& scan = c.scan;
    scangen::Scan::CudaArgs a;
    if (l.rows > 1)
      static_cast<scangen::Scan::ShapeArgs&>(a) = l.shape();
    else
      a.n = l.n;
    a.in = x.untyped_data();
    (scan.spec().has_exclusive() ? a.exclusive : a.inclusive) = y->untyped_data();
    a.stream = stream;
    const uint64_t ws = l.rows > 1 ? scan.workspace_bytes(l.shape()) : scan.workspace_bytes(l.n);
    if (ws) {
      const std::optional<void*> p = scratch.Allocate(ws, 16);
      if (!p) throw scangen::Error("scangen: XLA's scratch allocator gave no " + std::to_string(ws) + " bytes");
      a.workspace = *p;
      a.workspace_size = ws;
    }
    std::lock_guard<std::mutex> one_at_a_time(launch_mutex());
    scan.run(a);
  });
}

XLA_FFI_DEFINE_HANDLER(scan_cpu_handler, scan_cpu,
                       ffi::Ffi::Bind()
                           .Arg<ffi::AnyBuffer>()
                           .Ret<ffi::AnyBuffer>()
                           .Attr<int64_t>("handle")
                           .Attr<bool>("exclusive")
                           .Attr<bool>("reverse")
                           .Attr<int64_t>("length")
                           .Attr<bool>("flat"));

XLA_FFI_DEFINE_HANDLER(scan_cuda_handler, scan_cuda,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::PlatformStream<cudaStream_t>>()
                           .Ctx<ffi::ScratchAllocator>()
                           .Arg<ffi::AnyBuffer>()
                           .Ret<ffi::AnyBuffer>()
                           .Attr<int64_t>("handle")
                           .Attr<bool>("exclusive")
                           .Attr<bool>("reverse")
                           .Attr<int64_t>("length")
                           .Attr<bool>("flat"));

}  // namespace

int64_t jax_register(const dsl::Spec& spec) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (size_t i = 0; i < registry.size(); ++i)
    if (registry[i]->spec == spec) return static_cast<int64_t>(i + 1);
  registry.push_back(std::make_unique<Entry>(spec));
  return static_cast<int64_t>(registry.size());
}

void jax_use_runtime(std::shared_ptr<scangen::Runtime> rt) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  std::shared_ptr<scangen::Runtime>& held = runtimes[slot(rt->backend())];
  if (!held) held = std::move(rt);
}

nanobind::dict jax_targets() {
  nanobind::dict d;
  d["cpu"] = nanobind::capsule(reinterpret_cast<void*>(scan_cpu_handler));
  d["CUDA"] = nanobind::capsule(reinterpret_cast<void*>(scan_cuda_handler));
  return d;
}

}  // namespace scangen::py
