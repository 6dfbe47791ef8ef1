// Tiered compilation on a CUDA GPU (runtime/README.md, "Tiers"): a cold
// compile is served by the fast tier, the tuned tier replaces it, both give
// the same bits, calls keep running correctly while the modules are swapped,
// and a Runtime destroyed during a background compile finishes it cleanly.
// Exits 4 (skipped) where there is no driver or no GPU.
#include <stdlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda_support.h"
#include "runtime_test_support.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace {

using scangen::Tier;
using scangen::test::cuda::driver;
using namespace scangen::test::runtime;

scangen::RuntimeOptions tiered(bool on = true) {
  scangen::RuntimeOptions o;
  o.backend = scangen::Backend::Cuda;
  o.jit_tiers = on;
  return o;
}

struct Buffer {
  CUdeviceptr p = 0;
  explicit Buffer(size_t bytes) { CU_CHECK(driver().cuMemAlloc(&p, bytes + 16)); }
  ~Buffer() { driver().cuMemFree(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// One call of `scan` on `in` (n elements), its output poisoned first; the
// output's bytes, and the tier the call used where that is known (the tier
// after the call is Fast: the swap goes one way, so the call's was too).
struct Call {
  std::vector<uint8_t> out;
  bool known_fast = false;
};
Call run_once(const scangen::Scan& scan, const std::vector<uint8_t>& in, uint64_t n) {
  const scangen::dsl::Spec& s = scan.spec();
  const size_t es = s.type.size();
  Buffer d_in(in.size()), d_out(n * es);
  CU_CHECK(driver().cuMemcpyHtoD(d_in.p, in.data(), in.size()));
  CU_CHECK(driver().cuMemsetD8(d_out.p, 0xA5, n * es + 16));
  scangen::Scan::CudaArgs a;
  a.in = reinterpret_cast<void*>(d_in.p);
  (s.has_inclusive() ? a.inclusive : a.exclusive) = reinterpret_cast<void*>(d_out.p);
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  Call c;
  c.known_fast = scan.tier() == Tier::Fast;
  c.out.resize(n * es + 1);
  CU_CHECK(driver().cuMemcpyDtoH(c.out.data(), d_out.p, n * es));
  return c;
}

std::vector<uint8_t> random_input(const scangen::dsl::Spec& s, uint64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> in(n * s.input.size() + 1);
  scangen::ref::fill_random(s.input, in.data(), n, rng);
  return in;
}

// Awkward sizes around the scan's tile.
std::vector<uint64_t> awkward_sizes(const scangen::Scan& s) {
  const uint64_t tile = static_cast<uint64_t>(s.plan().block_threads) * s.plan().items;
  return {1, 0, tile - 1, tile, tile + 1, 3 * tile + 5, (1u << 16) - 1, (1u << 16) + 1, 1000003};
}

const char* const kI32Matrix =
    "type M { a: i32, b: i32, c: i32, d: i32 }\n"
    "scan m { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
    " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = M { a: 1, b: 0, c: 0, d: 1 };"
    " level = device; }";

}  // namespace

TEST_CASE("a CUDA cold compile is served by the fast tier, then by the tuned one, and a disk hit is tuned",
          "[gpu][tiers]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  const std::string text = "scan t { type = i32; op = add; level = device; }";
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  {
    scangen::Runtime rt(tiered());
    scangen::Scan s = rt.compile(text);
    CHECK(s.tier() == Tier::Fast);  // the tuned build takes hundreds of ms more
    const auto in = random_input(s.spec(), 100003, rng);
    check_output(s.spec(), in, 100003, run_once(s, in, 100003).out);
    CHECK(s.wait_tuned() == Tier::Tuned);
    CHECK(s.tier_error().empty());
    CHECK(s.tier() == Tier::Tuned);
    check_output(s.spec(), in, 100003, run_once(s, in, 100003).out);
    const scangen::CacheStats st = rt.stats();
    CHECK(st.misses == 1);
    CHECK(st.fast_compiles == 1);
    CHECK(st.tuned_compiles == 1);
    CHECK(st.tier_swaps == 1);
    CHECK(st.tuned_failures == 0);
    CHECK(st.entries_written == 1);  // the tuned tier only
    // A Scan made from the same spec after the swap starts at the tuned tier.
    CHECK(rt.compile(text).tier() == Tier::Tuned);
  }
  {
    scangen::Runtime rt(tiered());
    scangen::Scan s = rt.compile(text);
    CHECK(rt.stats().disk_hits == 1);
    CHECK(s.tier() == Tier::Tuned);
    CHECK(s.wait_tuned() == Tier::Tuned);
    CHECK(rt.stats().fast_compiles == 0);
  }
  // Tiering off, by the option and by the environment: one compile, tuned.
  for (int how = 0; how < 2; ++how) {
    INFO((how == 0 ? "RuntimeOptions::jit_tiers = false" : "SCANGEN_JIT_TIERS=0"));
    if (how == 1) setenv("SCANGEN_JIT_TIERS", "0", 1);
    scangen::RuntimeOptions o = tiered(false);
    if (how == 1) o.jit_tiers.reset();
    scangen::Runtime rt(o);
    scangen::Scan s = rt.compile("scan off" + std::to_string(how) + " { type = i32; op = add; level = device; }");
    unsetenv("SCANGEN_JIT_TIERS");
    CHECK(s.tier() == Tier::Tuned);
    CHECK(rt.stats().fast_compiles == 0);
    CHECK(rt.stats().misses == 1);
    CHECK(rt.stats().entries_written == 1);
  }
}

TEST_CASE("the fast and the tuned tier give the same bits on a CUDA GPU", "[gpu][tiers]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  // Float scans are deterministic (reduce_then_scan, or the fixed-order look-back): decoupled look-back
  // in any order combines the tiles' totals in an order that depends on timing, so two calls of one tier
  // may differ in their last bits. The look-back scans' fast tier moves its elements directly
  // (generator::fast_tier_plan), the tuned one through the exchange.
  const std::vector<std::string> texts = {
      "scan i { type = i32; op = add; level = device; }",
      "scan fl { type = f32; op = add; level = device; deterministic = true; algorithm = decoupled_lookback; }",
      "type Affine { a: f32, b: f32 }\n"
      "scan affine_lb { type = Affine; combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };"
      " identity = Affine { a: 1.0, b: 0.0 }; level = device; deterministic = true; algorithm = decoupled_lookback; }",
      "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\n"
      "scan mat2_lb { type = Mat2; combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
      " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
      " identity = Mat2 { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; level = device; deterministic = true;"
      " algorithm = decoupled_lookback; }",
      "scan f { type = f32; op = add; level = device; deterministic = true; }",
      "scan fe { type = f32; op = add; level = device; mode = exclusive; deterministic = true; }",
      "type Affine { a: f32, b: f32 }\n"
      "scan affine { type = Affine; combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };"
      " identity = Affine { a: 1.0, b: 0.0 }; level = device; deterministic = true; }",
      "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\n"
      "scan mat2 { type = Mat2; combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
      " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
      " identity = Mat2 { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; level = device; deterministic = true; }",
      kI32Matrix};
  for (const std::string& text : texts) {
    INFO(text);
    scangen::Runtime rt(tiered());  // one per scan: its fast tier is not replaced while the sweep runs
    scangen::Scan s = rt.compile(text);
    std::vector<std::vector<uint8_t>> inputs, fast;
    std::vector<bool> known;
    const std::vector<uint64_t> sizes = awkward_sizes(s);
    for (uint64_t n : sizes) {
      inputs.push_back(random_input(s.spec(), n, rng));
      Call c = run_once(s, inputs.back(), n);
      fast.push_back(std::move(c.out));
      known.push_back(c.known_fast);
    }
    REQUIRE(known.front());  // at least the first call ran on the fast tier
    REQUIRE(s.wait_tuned() == Tier::Tuned);
    int compared = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      INFO("n = " << sizes[i]);
      const std::vector<uint8_t> tuned = run_once(s, inputs[i], sizes[i]).out;
      CHECK(std::memcmp(tuned.data(), fast[i].data(), tuned.size() - 1) == 0);
      if (known[i]) ++compared;
      // Exact types are checked against the CPU too (float sums depend on the order, which both tiers share).
      if (s.spec().type.name() == "i32" || s.spec().type.name() == "M")
        check_output(s.spec(), inputs[i], sizes[i], tuned);
    }
    INFO(compared << " of " << sizes.size() << " sizes ran on the fast tier");
    CHECK(compared > 0);
  }
}

TEST_CASE("calls on many threads stay correct while the tuned tier replaces the fast one (CUDA)", "[gpu][tiers]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt(tiered());
  scangen::dsl::Document doc = scangen::dsl::load("<m>", kI32Matrix);
  REQUIRE(doc.ok());
  const scangen::dsl::Spec& spec = doc.specs().front();
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::atomic<int> wrong{0}, errors{0}, fast_calls{0}, tuned_calls{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        if (driver().cuCtxSetCurrent(driver().context) != CUDA_SUCCESS) throw scangen::Error("cuCtxSetCurrent");
        std::mt19937_64 rng(s0 + static_cast<uint64_t>(t));
        // Each thread its own Scan of the same spec: all wait for one tuned compile.
        scangen::Scan s = rt.compile(spec);
        while (!go) std::this_thread::yield();
        const uint64_t n = 65536 + 4097 * static_cast<uint64_t>(t);
        const std::vector<uint8_t> in = random_input(spec, n, rng);
        const auto want = scangen::ref::Evaluator(spec).scan(in.data(), n).inclusive;
        for (int after = 0, calls = 0; after < 20 && calls < 20000; ++calls) {
          const Tier before = s.tier();
          Buffer d_in(in.size()), d_out(n * 16);
          if (driver().cuMemcpyHtoD(d_in.p, in.data(), in.size()) != CUDA_SUCCESS ||
              driver().cuMemsetD8(d_out.p, 0xA5, n * 16) != CUDA_SUCCESS)
            throw scangen::Error("copy");
          scangen::Scan::CudaArgs a;
          a.in = reinterpret_cast<void*>(d_in.p);
          a.inclusive = reinterpret_cast<void*>(d_out.p);
          a.n = n;
          s.run(a);
          std::vector<uint8_t> got(n * 16);
          if (driver().cuMemcpyDtoH(got.data(), d_out.p, n * 16) != CUDA_SUCCESS) throw scangen::Error("copy back");
          if (std::memcmp(got.data(), want.data(), n * 16) != 0) ++wrong;
          ++(before == Tier::Fast ? fast_calls : tuned_calls);
          if (before == Tier::Tuned) ++after;  // 20 calls after the swap, then stop
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  go = true;
  for (auto& th : threads) th.join();
  INFO(fast_calls << " calls on the fast tier, " << tuned_calls << " on the tuned one");
  CHECK(errors == 0);
  CHECK(wrong == 0);
  CHECK(fast_calls > 0);
  CHECK(tuned_calls >= 8 * 20);
  CHECK(rt.stats().tuned_compiles == 1);
  CHECK(rt.stats().tier_swaps == 8);
}

TEST_CASE("a CUDA Runtime destroyed during a background compile finishes it cleanly", "[gpu][tiers]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  scangen::Scan kept;
  {
    scangen::Runtime rt(tiered());
    kept = rt.compile("scan kept { type = i32; op = add; level = device; }");
    CHECK(kept.tier() == Tier::Fast);
    rt.compile("scan dropped { type = i64; op = add; level = device; }");  // its Scan is gone at once
  }  // waits for both tuned compiles: the disk cache gets them
  CHECK(kept.tier() == Tier::Tuned);
  CHECK(kept.wait_tuned() == Tier::Tuned);
  const auto in = random_input(kept.spec(), 5001, rng);
  check_output(kept.spec(), in, 5001, run_once(kept, in, 5001).out);
  scangen::Runtime again(tiered());
  CHECK(again.compile("scan dropped { type = i64; op = add; level = device; }").tier() == Tier::Tuned);
  CHECK(again.stats().disk_hits == 1);
}

TEST_CASE(
    "the tuned build follows the fast one (or with SCANGEN_JIT_TUNED_AFTER=0 goes beside it) and "
    "replaces it (CUDA)",
    "[gpu][tiers]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const char* after : {"", "1", "0"}) {
    INFO("SCANGEN_JIT_TUNED_AFTER=" << after);
    if (*after)
      setenv("SCANGEN_JIT_TUNED_AFTER", after, 1);
    else
      unsetenv("SCANGEN_JIT_TUNED_AFTER");
    scangen::Runtime rt(tiered());
    unsetenv("SCANGEN_JIT_TUNED_AFTER");
    // Four threads compile one new spec at once: one builds the fast tier and
    // queues the tuned build (after loading it, or before building it); the others share both.
    const std::string text =
        std::string("scan after_") + (*after ? after : "default") + " { type = i32; op = add; level = device; }";
    std::vector<scangen::Scan> scans(4);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < scans.size(); ++t) threads.emplace_back([&, t] { scans[t] = rt.compile(text); });
    for (std::thread& t : threads) t.join();
    const auto in = random_input(scans[0].spec(), 100003, rng);
    for (const scangen::Scan& s : scans) {
      check_output(s.spec(), in, 100003, run_once(s, in, 100003).out);
      CHECK(s.wait_tuned() == Tier::Tuned);
      CHECK(s.tier_error().empty());
      check_output(s.spec(), in, 100003, run_once(s, in, 100003).out);
    }
    const scangen::CacheStats st = rt.stats();
    CHECK(st.fast_compiles == 1);
    CHECK(st.tuned_compiles == 1);
    CHECK(st.tuned_failures == 0);
    CHECK(st.entries_written == 1);
  }
}
