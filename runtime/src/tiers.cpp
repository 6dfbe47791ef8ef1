// Tiered compilation of CUDA scans (runtime/README.md, "Tiers"): a cold
// compile builds the fast tier (NVRTC's quickest build of the same scan, its
// I/O direct where generator::fast_tier_plan allows),
// hands it to the caller, and queues the tuned build on a background thread,
// which loads it into every Scan waiting for it and stores it in the disk
// cache. A Scan's calls read the module to launch with one atomic load.
#include "tiers.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "runtime_impl.h"
#include "scangen/generator/emit.h"

namespace scangen {

using runtime::detail::CacheKey;
using runtime::detail::CompiledCode;
using runtime::detail::TunedJob;

const char* to_string(Tier t) { return t == Tier::Fast ? "fast" : "tuned"; }

namespace runtime::detail {

bool tiers_wanted(const std::optional<bool>& option, const char* env) {
  if (option) return *option;
  if (!env) return true;
  std::string v(env);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return !(v == "0" || v == "off" || v == "false" || v == "no");
}

bool nvrtc_has_fast_tier(const std::string& nvrtc_version) {
  const size_t dot = nvrtc_version.find('.');
  if (dot == std::string::npos) return false;
  const int major = std::atoi(nvrtc_version.c_str()), minor = std::atoi(nvrtc_version.c_str() + dot + 1);
  return major > 12 || (major == 12 && minor >= 8);
}

// The fast tier: PTX from NVRTC's -Ofast-compile=mid with --minimal (the
// generated source includes no header, so NVRTC's declarations of the
// runtime API, textures and surfaces are not needed), loaded by the
// driver's JIT at -O0: the quickest way to a loaded module of the choices
// measured (bench/RESULTS.md, "JIT: the fast tier of PTX"; a cubin of the
// same options, NVRTC running ptxas, was not quicker to a first result:
// "JIT: the tuned build after the fast one"). The options
// change how NVVM and ptxas optimise, not what the code computes: the
// generated operators round every float operation explicitly (__fadd_rn,
// __fmul_rn, never contracted into an fma) and nothing here allows fast math.
std::vector<std::string> tier_nvrtc_options(Tier tier) {
  if (tier == Tier::Fast) return {"--Ofast-compile=mid", "--minimal"};
  return {};
}

std::string tier_arch(const std::string& arch, Tier tier) {
  if (tier == Tier::Fast && arch.rfind("sm_", 0) == 0) return "compute_" + arch.substr(3);
  return arch;
}

int tier_jit_level(Tier tier) { return tier == Tier::Fast ? 0 : -1; }

std::string tier_key_options(const std::string& arch, Tier tier) {
  std::string s = "--gpu-architecture=" + tier_arch(arch, tier);
  for (const std::string& o : tier_nvrtc_options(tier)) s += " " + o;
  return s;
}

void TierWorker::post(std::function<void()> job) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) {  // no thread any more (the Runtime is going): run it here
    lock.unlock();
    job();
    return;
  }
  jobs_.push_back(std::move(job));
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  wake_.notify_one();
}

void TierWorker::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void TierWorker::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and every queued job done
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();  // build_tuned catches everything
  }
}

}  // namespace runtime::detail

namespace {

// The tuned build a compile made, until it is queued: before the fast build
// starts (tuned_after: once the fast tier's module is loaded). Queued on
// every path out of compile_cuda, exceptions included, since Scans waiting
// for it (this one and other threads') wait for it to settle.
struct TunedQueue {
  runtime::detail::TierWorker& worker;
  Runtime::Impl* rt;
  std::shared_ptr<TunedJob> job;
  void now() {
    if (!job) return;
    std::shared_ptr<TunedJob> j = std::move(job);  // job is null from here: posted once
    worker.post([rt = rt, j] { rt->build_tuned(j); });
  }
  ~TunedQueue() { now(); }
};

// The code of a memory-cache miss: the disk cache's tuned tier, else the
// first tier's build (the fast one when tiers are on, its tuned build then
// handed to `queue`).
std::shared_ptr<const CompiledCode> first_code(Runtime::Impl& rt, const Scan::State& st, const std::string& source,
                                               const std::string& name, const std::string& arch, const CacheKey& key,
                                               TunedQueue& queue) {
  if (auto cached = rt.disk.load(key))
    return std::make_shared<const CompiledCode>(CompiledCode{std::move(*cached), Tier::Tuned, nullptr});
  const Tier first = rt.tiers ? Tier::Fast : Tier::Tuned;
  std::shared_ptr<TunedJob> job;
  if (first == Tier::Fast) {
    job = std::make_shared<TunedJob>();
    job->source = source;
    job->name = name;
    job->arch = arch;
    job->key = key;
    queue.job = job;
    if (!rt.tuned_after) queue.now();
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint8_t> bytes;
  try {
    // The fast tier's text: the same scan with direct I/O where its plan allows it
    // (generator::fast_tier_plan: the same kernels, parameters and bits, less to compile).
    std::string fast_source;
    if (first == Tier::Fast && rt.fast_direct_io) {
      generator::EmitOptions eo;
      eo.source_name = name;
      fast_source = generator::emit(generator::fast_tier_plan(st.plan), eo);
    }
    bytes = rt.nvrtc_compile(fast_source.empty() ? source : fast_source, name, runtime::detail::tier_arch(arch, first),
                             first);
  } catch (...) {
    if (!job) throw;
    // The fast tier's build failed: the tuned one decides (its error, the
    // same source's, is the one to report if it fails too).
    queue.now();
    std::unique_lock<std::mutex> lock(job->mutex);
    job->done.wait(lock, [&] { return job->status != TunedJob::Status::Pending; });
    if (job->status == TunedJob::Status::Failed) throw;
    return std::make_shared<const CompiledCode>(CompiledCode{*job->bytes, Tier::Tuned, nullptr});
  }
  CompiledCode c{std::move(bytes), first, job};
  rt.counters->record_compile(std::chrono::steady_clock::now() - t0);
  if (first == Tier::Tuned)
    rt.disk.store(key, c.bytes);
  else
    rt.counters->record_fast_compile();
  return std::make_shared<const CompiledCode>(std::move(c));
}

// Loads `code` into `st`: the tuned tier, or the fast one with `st` waiting
// for its tuned build (moved at once when that is built already).
void load_code(Runtime::Impl& rt, const std::shared_ptr<Scan::State>& st, const CompiledCode& code) {
  if (code.tier == Tier::Tuned || !code.job) {
    st->cu_tuned = rt.load_cuda(st->plan, code.bytes, Tier::Tuned);
    st->cu_current.store(st->cu_tuned.get(), std::memory_order_release);
    return;
  }
  st->cu_fast = rt.load_cuda(st->plan, code.bytes, Tier::Fast);
  st->cu_current.store(st->cu_fast.get(), std::memory_order_release);
  st->job = code.job;
  TunedJob& job = *code.job;
  std::shared_ptr<const std::vector<uint8_t>> ready;
  {
    std::lock_guard<std::mutex> lock(job.mutex);
    if (job.status == TunedJob::Status::Pending) {
      job.scans.push_back(st);  // the worker moves it to the tuned tier
      return;                   // (the caller's queue, left after the lock, starts the tuned build if not yet)
    }
    if (job.status == TunedJob::Status::Failed) {
      st->tier_error = job.error;
      return;
    }
    ready = job.bytes;
  }
  rt.install_tuned(*st, *ready);  // built already: this State moves at once
}

}  // namespace

void Runtime::Impl::compile_cuda(const std::shared_ptr<Scan::State>& st, const std::string& source,
                                 const std::string& name) {
  const std::string arch = nvrtc_arch();
  // The scan's identity in both caches is the tuned tier's key: the disk
  // cache holds the tuned tier only (a hit goes straight to it).
  const CacheKey key = cuda_key(source, arch, Tier::Tuned);
  const std::string mkey = runtime::detail::memory_key(key, static_cast<const void*>(cu_context));
  TunedQueue queue{worker, this, nullptr};
  std::shared_ptr<const CompiledCode> code =
      memory.get_or_create(mkey, [&] { return first_code(*this, *st, source, name, arch, key, queue); });
  load_code(*this, st, *code);
}

void Runtime::Impl::build_tuned(const std::shared_ptr<TunedJob>& job) {
  std::shared_ptr<const std::vector<uint8_t>> bytes;
  std::string error;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    bytes = std::make_shared<const std::vector<uint8_t>>(nvrtc_compile(job->source, job->name, job->arch, Tier::Tuned));
    counters->record_tuned_compile(std::chrono::steady_clock::now() - t0);
    disk.store(job->key, *bytes);
  } catch (const std::exception& e) {
    error = std::string("the tuned tier's compile failed (the fast tier stays): ") + e.what();
  } catch (...) {
    error = "the tuned tier's compile failed (the fast tier stays) with an unknown exception";
  }
  std::vector<std::weak_ptr<Scan::State>> scans;
  {
    std::lock_guard<std::mutex> lock(job->mutex);
    job->status = bytes ? TunedJob::Status::Ready : TunedJob::Status::Failed;
    job->bytes = bytes;
    job->error = error;
    scans.swap(job->scans);
    for (const auto& w : scans)
      if (auto st = w.lock(); st && !bytes) st->tier_error = error;
  }
  if (!bytes) {
    counters->record_tuned_failure(error);
    job->done.notify_all();
    return;
  }
  for (const auto& w : scans) {
    std::shared_ptr<Scan::State> st = w.lock();
    if (st) install_tuned(*st, *bytes);
    // The last owner may be this thread: State's destructor unloads on its context.
  }
  {
    std::lock_guard<std::mutex> lock(job->mutex);
    job->settled = true;
  }
  job->done.notify_all();
}

// Loads the tuned binary into `st` on the runtime's context (load_cuda makes
// it current on this thread) and publishes it: the next call launches it,
// calls in flight finish on the fast module, which stays loaded.
void Runtime::Impl::install_tuned(Scan::State& st, const std::vector<uint8_t>& bytes) {
  try {
    st.cu_tuned = load_cuda(st.plan, bytes, Tier::Tuned);
    st.cu_current.store(st.cu_tuned.get(), std::memory_order_release);
    counters->record_tier_swap();
  } catch (const std::exception& e) {
    const std::string why = std::string("loading the tuned tier failed (the fast tier stays): ") + e.what();
    counters->record_tuned_failure(why);
    std::lock_guard<std::mutex> lock(st.job->mutex);
    st.tier_error = why;
  }
}

using runtime::detail::state_of;

Tier Scan::tier() const {
  const State& st = state_of(s_);
  const runtime::detail::CudaModule* m = st.cu_current.load(std::memory_order_acquire);
  return m ? m->tier : Tier::Tuned;  // OpenCL: one tier
}

Tier Scan::wait_tuned() const {
  const State& st = state_of(s_);
  if (st.job) {
    std::unique_lock<std::mutex> lock(st.job->mutex);
    st.job->done.wait(lock, [&] {
      return st.job->status == TunedJob::Status::Failed || st.job->settled || !st.tier_error.empty() ||
             (st.cu_current.load(std::memory_order_acquire)->tier == Tier::Tuned);
    });
  }
  return tier();
}

std::string Scan::tier_error() const {
  const State& st = state_of(s_);
  if (!st.job) return "";
  std::lock_guard<std::mutex> lock(st.job->mutex);
  return st.tier_error;
}

}  // namespace scangen
