// The runtime on a CUDA GPU: compile, launch and check warp, block and device
// scans, the caches, concurrent compiles and the error paths. Exits 4
// (skipped) where there is no driver or no GPU.
#include <stdlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda_support.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace {

namespace fs = std::filesystem;
using scangen::test::cuda::driver;

struct TempCache {
  fs::path dir;
  TempCache() {
    std::string t = (fs::temp_directory_path() / "scangen-rtc-XXXXXX").string();
    REQUIRE(mkdtemp(t.data()) != nullptr);
    dir = t;
    setenv("SCANGEN_CACHE_DIR", dir.c_str(), 1);
  }
  ~TempCache() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

uint64_t seed() {
  if (const char* s = std::getenv("SCANGEN_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

struct DeviceBuffer {
  CUdeviceptr p = 0;
  explicit DeviceBuffer(size_t bytes) { CU_CHECK(driver().cuMemAlloc(&p, bytes + 16)); }
  ~DeviceBuffer() { driver().cuMemFree(p); }
  void* get() const { return reinterpret_cast<void*>(p); }
};

void check_scan(const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng) {
  const scangen::dsl::Spec& s = scan.spec();
  std::vector<uint8_t> in(n * s.input.size() + 1);
  scangen::ref::fill_random(s.input, in.data(), n, rng);
  const size_t es = s.type.size();
  DeviceBuffer d_in(in.size()), d_out(n * es);
  CU_CHECK(driver().cuMemcpyHtoD(d_in.p, in.data(), in.size()));
  scangen::Scan::CudaArgs a;
  a.in = d_in.get();
  (s.has_inclusive() ? a.inclusive : a.exclusive) = d_out.get();
  a.n = n;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  std::vector<uint8_t> got(n * es + 1);
  CU_CHECK(driver().cuMemcpyDtoH(got.data(), d_out.p, n * es));
  const auto want = scangen::ref::Evaluator(s).scan(in.data(), n);
  const std::vector<uint8_t>& w = s.has_inclusive() ? want.inclusive : want.exclusive;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i)
    if (!scangen::ref::values_match(s.type, got.data() + i * es, w.data() + i * es, {})) ++bad;
  INFO("scan '" << s.name << "', n = " << n << ": " << bad << " wrong");
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("the runtime compiles and runs scans on a CUDA GPU", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  CHECK(rt.backend() == scangen::Backend::Cuda);
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const char* text : {"scan d { type = i32; op = add; level = device; }",
                           "scan r { type = u64; op = max; level = device; algorithm = reduce_then_scan; mode = exclusive; }",
                           "scan b { type = i64; op = add; level = block; threads = 100; items = 3; }",
                           "scan c { type = u32; op = xor; level = warp; algorithm = coalesced; targets = cuda; }",
                           "scan w { type = u32; input = u8; op = add; level = warp(8); items = 2; }"}) {
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : {0ull, 1ull, 4095ull, 1000001ull}) check_scan(scan, n, rng);
  }
}

TEST_CASE("the CUDA runtime caches, and compiles once for many threads", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none
  TempCache cache;
  const std::string text = "scan c { type = i64; op = add; level = device; }";
  {
    scangen::Runtime rt({scangen::Backend::Cuda});
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int i = 0; i < 8; ++i)
      threads.emplace_back([&] {
        rt.compile(text);
        ++ok;
      });
    for (auto& t : threads) t.join();
    CHECK(ok == 8);
    CHECK(rt.stats().misses == 1);
    CHECK(rt.stats().memory_hits == 7);
  }
  {
    scangen::Runtime rt({scangen::Backend::Cuda});
    scangen::Scan s = rt.compile(text);
    CHECK(rt.stats().disk_hits == 1);
    std::mt19937_64 rng(7);
    check_scan(s, 100000, rng);
  }
}

TEST_CASE("the CUDA runtime's errors say what is wrong", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);  // exits 4 (skipped) where there is none
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  scangen::Scan s = rt.compile("scan s { type = i32; op = add; level = device; mode = both; }");
  DeviceBuffer buf(1 << 20);
  scangen::Scan::CudaArgs a;
  a.in = buf.get();
  a.inclusive = buf.get();
  a.n = 64;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the exclusive output is null"));
  a.exclusive = buf.get();
  a.workspace = buf.get();
  a.workspace_size = 8;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the workspace has 8 bytes"));
  a.workspace = static_cast<char*>(buf.get()) + 4;
  a.workspace_size = 4096;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("16-byte aligned"));
  scangen::Scan::OpenCLArgs o;
  CHECK_THROWS_WITH(s.run(o), Catch::Contains("was compiled for CUDA"));
  CHECK_THROWS_WITH(rt.compile("type B { a: f64, b: f64, c: f64 }\n"
                               "scan e { type = B; combine(x, y) = B { x.a + y.a, x.b + y.b, x.c + y.c }; "
                               "identity = B { 0, 0, 0 }; level = block; threads = 1024; algorithm = hillis_steele; }"),
                    Catch::Contains("shared memory"));
}
