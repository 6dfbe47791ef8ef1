// Runtime: choosing the backend, compiling a scan (text -> Spec -> Plan ->
// source) through the memory and disk caches (cache.h), and the statistics.
// Each backend's device, build and launch: cuda_backend.cpp, opencl_backend.cpp.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "nvrtc_program.h"
#include "runtime_impl.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/reference/reference.h"

namespace scangen {

using runtime::detail::CacheKey;
using runtime::detail::DiskCache;
using runtime::detail::fail;

namespace runtime::detail {

[[noreturn]] void fail(const std::string& what) { throw Error("scangen: " + what); }

}  // namespace runtime::detail

Runtime::Impl::~Impl() {
  if (cl_queue) {
    // The launches still queued finish first: a program that ends right after
    // its last call must not exit while the driver is still building or
    // running them (PoCL aborted in its kernel compiler at exit). A failure
    // here has nowhere to go; the release below happens either way.
    clFinish(cl_queue);
    clReleaseCommandQueue(cl_queue);
  }
  if (cl_ctx) clReleaseContext(cl_ctx);
  if (cu_context && driver) driver->cuDevicePrimaryCtxRelease(cu_device);
}

Runtime::Runtime(RuntimeOptions options) : impl_(std::make_shared<Impl>()) {
  if (options.backend == Backend::Cuda) {
    impl_->open_cuda(options.cuda_device);
  } else if (options.backend == Backend::OpenCL) {
    impl_->open_opencl(options.opencl_platform, options.opencl_device, options.opencl_build_options);
  } else {
    try {
      impl_->open_cuda(options.cuda_device);
    } catch (const Error& e) {
      impl_->fallback_reason = e.what();
      impl_->open_opencl(options.opencl_platform, options.opencl_device, options.opencl_build_options);
    }
  }
  // Tiered compilation: CUDA only, and only with an NVRTC that builds the fast tier.
  if (impl_->backend == Backend::Cuda &&
      runtime::detail::tiers_wanted(options.jit_tiers, std::getenv("SCANGEN_JIT_TIERS")))
    try {
      impl_->tiers = runtime::detail::nvrtc_has_fast_tier(nvrtc_support::version());
    } catch (const nvrtc_support::Error&) {
      impl_->tiers = false;  // compile() reports NVRTC's failure
    }
  // The tuned build queued once the fast tier's module is loaded, unless SCANGEN_JIT_TUNED_AFTER=0 (then
  // before the fast build starts, the two side by side): quicker to a first result in eleven of twelve
  // comparisons on the H200's host, the twelfth within 1 ms (bench/RESULTS.md, "JIT: the fast tier's direct I/O; the
  // tuned build after").
  if (impl_->tiers) {
    const char* after = std::getenv("SCANGEN_JIT_TUNED_AFTER");
    impl_->tuned_after = !after || runtime::detail::tiers_wanted(std::nullopt, after);
  }
  // SCANGEN_TUNING="raw_tile=1 ...": knobs over the tuning table's entries, checked here.
  if (const char* knobs = std::getenv("SCANGEN_TUNING")) {
    try {
      (void)generator::parse_tuning(knobs, generator::DeviceTuning{});
    } catch (const std::invalid_argument& e) {
      fail(std::string("SCANGEN_TUNING: ") + e.what());
    }
    impl_->tuning = knobs;
  }
  // SCANGEN_JIT_FAST_DIRECT_IO=0: the fast tier from the tuned tier's text (to compare).
  if (const char* direct = std::getenv("SCANGEN_JIT_FAST_DIRECT_IO"))
    impl_->fast_direct_io = runtime::detail::tiers_wanted(std::nullopt, direct);
}

// The tuned compiles still queued run to the end (their disk entries are what
// the next process starts from); a Scan that outlives the Runtime keeps its module.
Runtime::~Runtime() { impl_->worker.finish(); }
Backend Runtime::backend() const { return impl_->backend; }
std::string Runtime::device_name() const { return impl_->device_name; }
std::string Runtime::fallback_reason() const { return impl_->fallback_reason; }
cl_context Runtime::opencl_context() const { return impl_->cl_ctx; }
cl_command_queue Runtime::opencl_queue() const { return impl_->cl_queue; }

CacheStats Runtime::stats() const {
  CacheStats s = impl_->counters->snapshot();
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
        impl_->counters->record_memory_hit(false);
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
  std::error_code size_error;
  const uintmax_t bytes = std::filesystem::file_size(path, size_error);
  if (!size_error && bytes > dsl::kMaxSourceBytes)
    fail("cannot read '" + path + "': " + std::to_string(bytes) + " bytes, more than the " +
         std::to_string(dsl::kMaxSourceBytes) + " (4 MiB) a scan file holds: is it the right file?");
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
  auto st = std::make_shared<Scan::State>();
  st->rt = impl_;
  try {
    // CUDA: planned for the device's architecture and name (the tuning table's entry; an entry for
    // the device comes before its architecture's).
    const bool cuda = rt.backend == Backend::Cuda;
    generator::Target target{rt.backend, cuda ? rt.sm : 0, cuda ? rt.device_name : rt.plan_device};
    target.tuning = rt.tuning;
    st->plan = generator::make_plan(spec, target);
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  generator::EmitOptions eo;
  eo.source_name = spec.name + generator::source_extension(rt.backend);
  const std::string source = generator::emit(st->plan, eo);

  if (rt.backend == Backend::Cuda) {
    rt.compile_cuda(st, source, eo.source_name);  // tiers.cpp
    return Scan(st);
  }
  // OpenCL (one tier). Everything that changes the binary (runtime/README.md, "What is keyed").
  const CacheKey key = rt.opencl_key(source);
  // The memory key adds the context: compiled code belongs to one.
  const std::string memory_key = runtime::detail::memory_key(key, static_cast<const void*>(rt.cl_ctx));

  // A disk entry counts only if the driver builds it (one it refuses, though
  // its checksum holds, is compiled again and replaced); the program built
  // then serves this Scan.
  cl_program from_entry = nullptr;
  DiskCache::Accept accept = [&](const std::vector<uint8_t>& binary) {
    from_entry = rt.cl_build(source, &binary, nullptr);
    return from_entry != nullptr;
  };
  std::shared_ptr<const runtime::detail::CompiledCode> code = rt.memory.get_or_create(memory_key, [&] {
    runtime::detail::CompiledCode c;
    if (auto cached = rt.disk.load(key, accept)) {
      c.bytes = std::move(*cached);
      return std::make_shared<const runtime::detail::CompiledCode>(std::move(c));
    }
    const auto t0 = std::chrono::steady_clock::now();
    clReleaseProgram(rt.cl_build(source, nullptr, &c.bytes));
    rt.counters->record_compile(std::chrono::steady_clock::now() - t0);
    if (!c.bytes.empty()) rt.disk.store(key, c.bytes);
    return std::make_shared<const runtime::detail::CompiledCode>(std::move(c));
  });
  const std::vector<uint8_t>& bytes = code->bytes;
  cl_program prog = from_entry ? from_entry : bytes.empty() ? nullptr : rt.cl_build(source, &bytes, nullptr);
  if (!prog) prog = rt.cl_build(source, nullptr, nullptr);  // the binary was refused: from source
  rt.load_opencl(*st, prog);
  return Scan(st);
}

}  // namespace scangen
