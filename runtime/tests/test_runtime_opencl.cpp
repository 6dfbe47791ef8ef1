// The runtime on an OpenCL device (PoCL in CI): compile from text and from a
// file, launch warp, block and device scans on the Runtime's buffers against
// the CPU reference, the caches (memory hit, disk hit in a fresh Runtime),
// and the error paths. Without an OpenCL platform the tests fail, unless
// SCANGEN_ALLOW_NO_OPENCL=1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

#include "cache.h"
#include "opencl_test_support.h"
#include "runtime_test_support.h"
#include "test_tier.h"

namespace {

namespace fs = std::filesystem;
using namespace scangen::test::runtime;

}  // namespace

TEST_CASE("the runtime compiles and runs warp, block and device scans on OpenCL", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  CHECK(rt.backend() == scangen::Backend::OpenCL);
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const char* text :
       {"scan d { type = i32; op = add; level = device; }",
        "scan r { type = u32; op = max; level = device; algorithm = reduce_then_scan; mode = exclusive; }",
        "scan b { type = i64; op = add; level = block; threads = 100; items = 3; }",
        "scan w { type = u32; input = u8; op = add; level = warp(8); items = 2; }"}) {
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : {0ull, 1ull, 4095ull, 100001ull}) check_scan(rt, scan, n, rng);
  }
}

// Several Scans take turns on one workspace of the caller's: look-back scans
// of two status layouts (4-byte and 16-byte elements) and a reduce-then-scan.
// The workspace starts as garbage and holds what the call before left: each
// look-back call zeroes what it uses first, so none sees another's statuses;
// a workspace released and created again works the same.
TEST_CASE("Scans of several layouts and algorithms take turns on one workspace", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  std::vector<scangen::Scan> scans = {
      rt.compile("scan a { type = i32; op = add; level = device; }"),
      rt.compile("scan b { type = i32; op = add; level = device; mode = exclusive; }"),
      rt.compile("type M { a: i32, b: i32, c: i32, d: i32 }\n"
                 "scan m { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
                 " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
                 " identity = M { a: 1, b: 0, c: 0, d: 1 }; level = device; }"),
      rt.compile("scan r { type = i32; op = add; level = device; algorithm = reduce_then_scan; }")};
  const uint64_t max_n = 300007;
  uint64_t bytes = 0;
  for (const scangen::Scan& s : scans) bytes = std::max(bytes, s.workspace_bytes(max_n));
  for (int round = 0; round < 2; ++round) {  // the second: released and created again
    INFO("workspace " << round + 1);
    std::vector<uint8_t> garbage(bytes, static_cast<uint8_t>(0xA5 + round));
    cl_mem ws = buffer(rt, garbage);
    for (uint64_t n : std::vector<uint64_t>{max_n, 5000, 1, 100001, 65536, max_n})
      for (const scangen::Scan& s : scans) check_scan(rt, s, n, rng, nullptr, ws, bytes);
    clReleaseMemObject(ws);
  }
}

// Runtimes made on several threads at once, each the process's first use of
// OpenCL (ctest runs every test case in a process of its own): each finds its
// device and runs a scan.
TEST_CASE("Runtimes made on several threads at once each find the device", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  constexpr int kThreads = 8;
  std::vector<std::string> errors(kThreads);
  std::vector<int32_t> totals(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &errors, &totals] {
      try {
        scangen::Runtime rt({scangen::Backend::OpenCL});
        scangen::Scan scan = rt.compile("scan t { type = i32; op = add; level = device; }");
        std::vector<int32_t> in(10000 + static_cast<size_t>(t), 1), out(in.size(), 0);
        cl_int err = CL_SUCCESS;
        cl_mem d_in = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, in.size() * 4,
                                     in.data(), &err);
        cl_mem d_out = clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE, out.size() * 4, nullptr, &err);
        scangen::Scan::OpenCLArgs a;
        a.in = d_in;
        a.inclusive = d_out;
        a.n = in.size();
        scan.run(a);
        clEnqueueReadBuffer(rt.opencl_queue(), d_out, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr);
        clReleaseMemObject(d_in);
        clReleaseMemObject(d_out);
        totals[static_cast<size_t>(t)] = out.back();
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(t)] = e.what();
      }
    });
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(errors[static_cast<size_t>(t)] == "");
    CHECK(totals[static_cast<size_t>(t)] == 10000 + t);
  }
}

TEST_CASE("the runtime caches compiled code in memory and on disk", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  const std::string text = "scan c { type = i64; op = add; level = device; }";
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    rt.compile(text);
    CHECK(rt.stats().misses == 1);
    rt.compile(text);
    CHECK(rt.stats().memory_hits == 1);
    CHECK(rt.stats().compile_ms > 0);
  }
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    scangen::Scan s = rt.compile(text);
    CHECK(rt.stats().disk_hits == 1);
    CHECK(rt.stats().misses == 0);
    std::mt19937_64 rng(1);
    check_scan(rt, s, 5000, rng);  // the program built from the cached binary runs
  }
  setenv("SCANGEN_CACHE_DISABLE", "1", 1);
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    rt.compile(text);
    CHECK(rt.stats().misses == 1);
  }
  unsetenv("SCANGEN_CACHE_DISABLE");
}

TEST_CASE("an entry the OpenCL driver refuses is compiled again and replaced", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  const std::string text = "scan c { type = i32; op = add; level = device; }";
  { scangen::Runtime({scangen::Backend::OpenCL}).compile(text); }
  // The entry's payload swapped for bytes no driver loads, under a checksum
  // that holds.
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(cache.dir))
    if (e.path().extension() == ".bin") entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  scangen::runtime::detail::DiskCache::Options options;
  options.directory = cache.dir.string();
  scangen::runtime::detail::DiskCache(options).store(entries[0].stem().string(), std::vector<uint8_t>(4096, 0x5a));
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    scangen::Scan s = rt.compile(text);
    CHECK(rt.stats().disk_hits == 0);
    CHECK(rt.stats().misses == 1);
    std::mt19937_64 rng(2);
    check_scan(rt, s, 3000, rng);
  }
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    rt.compile(text);
    CHECK(rt.stats().disk_hits == 1);  // replaced: a hit again
    CHECK(rt.stats().misses == 0);
  }
}

TEST_CASE("the runtime says why its disk cache is off", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    CHECK(rt.stats().disk_cache_on);
    CHECK(rt.stats().disk_cache_off_reason.empty());
  }
  fs::permissions(cache.dir, fs::perms::all);  // writable by everyone: a planted entry would be used
  scangen::Runtime rt({scangen::Backend::OpenCL});
  CHECK_FALSE(rt.stats().disk_cache_on);
  INFO(rt.stats().disk_cache_off_reason);
  CHECK(rt.stats().disk_cache_off_reason.find("not trusted") != std::string::npos);
}

TEST_CASE("buffers too small for n are refused before a launch", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const std::vector<uint8_t> small(1024 * 4, 0), big(65536 * 4, 0);
  cl_mem s = buffer(rt, small), b = buffer(rt, big), b2 = buffer(rt, big);
  scangen::Scan device = rt.compile("scan d { type = i32; op = add; level = device; }");
  scangen::Scan::OpenCLArgs a;
  a.n = 65536;
  a.in = b;
  a.inclusive = s;  // 1024 elements for 65536: the kernel would write far past its end
  CHECK_THROWS_WITH(device.run(a), Catch::Contains("the inclusive buffer has 4096 bytes, but 65536 elements of i32 "
                                                   "(4 bytes each) need 262144"));
  a.inclusive = b2;
  a.in = s;
  CHECK_THROWS_WITH(device.run(a), Catch::Contains("the input buffer has 4096 bytes"));
  a.in = b;
  CHECK_NOTHROW(device.run(a));
  // Block level: one aggregate per segment; u8 input, u32 elements.
  scangen::Scan block = rt.compile(
      "scan k { type = u32; input = u8; op = add; level = block; threads = 64; items = 4; outputs = aggregate; }");
  scangen::Scan::OpenCLArgs k;
  k.n = 65536;  // 256 segments of 256
  k.in = s;     // 4096 bytes of u8: too few
  k.inclusive = b;
  k.aggregate = s;
  CHECK_THROWS_WITH(block.run(k), Catch::Contains("the input buffer has 4096 bytes, but 65536 elements of u8"));
  k.in = b2;
  CHECK_NOTHROW(block.run(k));  // 256 aggregates of 4 bytes fit in 4096
  k.n = 65536 * 4;              // 1024 segments: 4096 bytes of aggregates fit exactly; the input does
  k.inclusive = nullptr;
  CHECK_THROWS_WITH(block.run(k), Catch::Contains("the inclusive output is null"));
  // Counts no launch takes are refused with the limit, before any size
  // arithmetic could wrap.
  a.n = std::numeric_limits<uint64_t>::max() - 5;
  CHECK_THROWS_WITH(device.run(a), Catch::Contains("more than one launch takes (2^31 - 1)"));
  k.n = std::numeric_limits<uint64_t>::max() / 2;
  k.inclusive = b;
  CHECK_THROWS_WITH(block.run(k), Catch::Contains("more than one launch takes (2^31 - 1)"));
  for (cl_mem m : {s, b, b2}) clReleaseMemObject(m);
}

TEST_CASE("an out-of-order queue runs a call's kernels in order", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  cl_device_id device = nullptr;
  REQUIRE(clGetCommandQueueInfo(rt.opencl_queue(), CL_QUEUE_DEVICE, sizeof device, &device, nullptr) == CL_SUCCESS);
  cl_command_queue_properties supported = 0;
  REQUIRE(clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, nullptr) == CL_SUCCESS);
  if (!(supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    WARN("skipped: this OpenCL device has no out-of-order queues");
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_command_queue queue =
      clCreateCommandQueue(rt.opencl_context(), device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  REQUIRE(err == CL_SUCCESS);
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  // Three kernels a call (reduce, spine, scan), and a zeroed workspace before the look-back.
  for (const char* text : {"scan r { type = i32; op = add; level = device; algorithm = reduce_then_scan; }",
                           "scan l { type = i64; op = add; level = device; }"}) {
    scangen::Scan scan = rt.compile(text);
    for (int call = 0; call < 5; ++call) check_scan(rt, scan, 300001, rng, queue);
  }
  clReleaseCommandQueue(queue);
}

TEST_CASE("the OpenCL device is chosen by index or by name, and a wrong choice lists the devices",
          "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  unsetenv("SCANGEN_OPENCL_DEVICE");
  scangen::Runtime first({scangen::Backend::OpenCL});
  const std::string name = first.device_name();
  REQUIRE_FALSE(name.empty());
  scangen::RuntimeOptions by_index;
  by_index.backend = scangen::Backend::OpenCL;
  by_index.opencl_device = "0:0";
  CHECK_NOTHROW(scangen::Runtime(by_index));
  // A piece of the device's name, in another case.
  scangen::RuntimeOptions by_name = by_index;
  std::string piece = name.substr(0, std::min<size_t>(name.size(), 6));
  for (char& c : piece) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  by_name.opencl_device = piece;
  CHECK(scangen::Runtime(by_name).device_name() == name);
  scangen::RuntimeOptions wrong = by_index;
  wrong.opencl_device = "no-such-device-anywhere";
  CHECK_THROWS_WITH(scangen::Runtime(wrong), Catch::Contains("no OpenCL device matches 'no-such-device-anywhere'") &&
                                                 Catch::Contains("there are:") && Catch::Contains(name));
  wrong.opencl_device = "7:3";
  CHECK_THROWS_WITH(scangen::Runtime(wrong), Catch::Contains("no OpenCL device matches '7:3'"));
  // The environment, where the options say nothing.
  setenv("SCANGEN_OPENCL_DEVICE", "no-such-device-anywhere", 1);
  CHECK_THROWS_WITH(scangen::Runtime({scangen::Backend::OpenCL}), Catch::Contains("SCANGEN_OPENCL_DEVICE"));
  setenv("SCANGEN_OPENCL_DEVICE", "0:0", 1);
  CHECK(scangen::Runtime({scangen::Backend::OpenCL}).device_name() == name);
  unsetenv("SCANGEN_OPENCL_DEVICE");
}

TEST_CASE("by default the runtime takes a GPU over the CPU", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  unsetenv("SCANGEN_OPENCL_DEVICE");
  cl_uint count = 0;
  REQUIRE(clGetPlatformIDs(0, nullptr, &count) == CL_SUCCESS);
  std::vector<cl_platform_id> platforms(count);
  REQUIRE(clGetPlatformIDs(count, platforms.data(), nullptr) == CL_SUCCESS);
  std::string gpu;
  for (cl_platform_id p : platforms) {
    cl_device_id d = nullptr;
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, &n) == CL_SUCCESS && n > 0) {
      char name[256] = {};
      REQUIRE(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name - 1, name, nullptr) == CL_SUCCESS);
      gpu = name;
      break;
    }
  }
  if (gpu.empty()) {
    WARN("skipped: no OpenCL GPU here (scripts/gpu-check run-opencl runs this on one)");
    return;
  }
  CHECK(scangen::Runtime({scangen::Backend::OpenCL}).device_name() == gpu);
}

TEST_CASE("the README's JIT snippet runs as written on OpenCL", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t n = 100003;
  std::vector<int32_t> host(n);
  for (uint64_t i = 0; i < n; ++i) host[i] = static_cast<int32_t>(i % 7) - 3;
  std::vector<uint8_t> bytes(n * 4);
  std::memcpy(bytes.data(), host.data(), bytes.size());
  cl_mem d_in = buffer(rt, bytes), d_out = buffer(rt, std::vector<uint8_t>(n * 4, 0xAB));
  // As README.md shows it:
  scangen::Scan sum = rt.compile("scan s { type = i32; op = add; level = device; }");
  sum.inclusive(d_in, d_out, n);
  const std::vector<uint8_t> got = read(rt, d_out, n * 4);
  int32_t want = 0;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) {
    want += host[i];
    int32_t g = 0;
    std::memcpy(&g, got.data() + i * 4, 4);
    if (g != want) ++bad;
  }
  CHECK(bad == 0);
  // The spec has no exclusive output: said, not crashed.
  CHECK_THROWS_WITH(sum.exclusive(d_in, d_out, n), Catch::Contains("the inclusive output is null"));
  clReleaseMemObject(d_in);
  clReleaseMemObject(d_out);
}

TEST_CASE("the runtime's errors say what is wrong", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  CHECK_THROWS_WITH(rt.compile("scan s { type = i32; op = add"), Catch::Contains("the scan text has errors"));
  CHECK_THROWS_WITH(rt.compile("scan a { type = i32; op = add; } scan b { type = i32; op = max; }"),
                    Catch::Contains("name the one to compile"));
  // A non-associative operator makes no kernel, unless the spec says it knows better; a wrong identity
  // makes none either way, and the refusal of an integer operator suggests no setting.
  CHECK_THROWS_WITH(rt.compile("scan minus { type = i32; combine(x, y) = x - y; identity = 0; level = device; }"),
                    Catch::Contains("no kernel is made from it") && !Catch::Contains("assume_associative"));
  CHECK_THROWS_WITH(rt.compile("scan minus { type = i32; combine(x, y) = x - y; identity = 0; level = block; "
                               "assume_associative = true; }"),
                    Catch::Contains("is not an identity"));
  CHECK_NOTHROW(
      rt.compile("scan guarded { type = i32; combine(x, y) = x == 0 ? y : y == 0 ? x : x - y; "
                 "identity = 0; level = block; assume_associative = true; }"));
  CHECK_THROWS_WITH(rt.compile_file("/no/such/file.scan"),
                    Catch::Contains("cannot read '/no/such/file.scan': No such file or directory"));
  CHECK_THROWS_WITH(rt.compile_file(cache.dir.string()), Catch::Contains("it is a directory"));
  {  // A file far larger than a scan file (sparse: nothing is written) is refused before it is read.
    const std::filesystem::path big = cache.dir / "big.scan";
    std::ofstream(big).put('#');
    std::filesystem::resize_file(big, uint64_t{5} << 30);
    CHECK_THROWS_WITH(rt.compile_file(big.string()), Catch::Contains("bytes, more than the 4194304 (4 MiB)"));
    CHECK_THROWS_WITH(rt.compile(std::string(scangen::dsl::kMaxSourceBytes + 1, ' ')),
                      Catch::Contains("a scan file holds at most 4194304"));
    std::filesystem::remove(big);
  }
  CHECK_THROWS_WITH(rt.compile("scan w { type = u32; op = add; level = warp; algorithm = coalesced; targets = cuda; }"),
                    Catch::Contains("does not list target 'opencl'"));
  scangen::Scan s = rt.compile("scan s { type = i32; op = add; level = device; mode = both; outputs = aggregate; }");
  std::vector<uint8_t> data(64 * 4, 0);
  cl_mem m = buffer(rt, data), o = buffer(rt, data), agg = buffer(rt, data);
  scangen::Scan::OpenCLArgs a;
  a.in = m;
  a.inclusive = o;
  a.n = 64;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the exclusive output is null"));
  a.exclusive = o;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the aggregate output is null"));
  a.aggregate = agg;
  a.running_total = agg;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the spec has none"));
  a.running_total = nullptr;
  a.in = nullptr;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the input is null"));
  a.in = m;
  a.workspace = m;  // 256 bytes: too small for 2^20 elements
  a.n = 1 << 20;
  const std::vector<uint8_t> big((1 << 20) * 4, 0);
  cl_mem big_in = buffer(rt, big), big_inc = buffer(rt, big), big_exc = buffer(rt, big);
  a.in = big_in, a.inclusive = big_inc, a.exclusive = big_exc;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the workspace buffer has"));
  for (cl_mem b : {big_in, big_inc, big_exc}) clReleaseMemObject(b);
  scangen::Scan::CudaArgs c;
  CHECK_THROWS_WITH(s.run(c), Catch::Contains("was compiled for OpenCL"));
  int x = 0;
  double y = 0;
  CHECK_THROWS_WITH(s.inclusive(&x, &y, 1), Catch::Contains("8-byte types"));
  scangen::Scan empty;
  CHECK_THROWS_WITH(empty.spec(), Catch::Contains("empty"));
  clReleaseMemObject(m);
  clReleaseMemObject(o);
  clReleaseMemObject(agg);
}

// mode = both writes both outputs: one buffer for both, or sub-buffers of one
// that overlap, would keep only one; sub-buffers apart are two buffers.
TEST_CASE("mode = both refuses one buffer, or overlapping sub-buffers, for both outputs", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  scangen::Scan s = rt.compile("scan s { type = i32; op = add; level = device; mode = both; }");
  const uint64_t n = 1000;  // 4000 bytes an output
  std::vector<uint8_t> data(n * 4);
  for (uint64_t i = 0; i < n; ++i) data[4 * i] = static_cast<uint8_t>(i % 7);
  cl_mem in = buffer(rt, data), out = buffer(rt, std::vector<uint8_t>(16384, 0xAB));
  scangen::Scan::OpenCLArgs a;
  a.in = in;
  a.n = n;
  a.inclusive = a.exclusive = out;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the inclusive and exclusive outputs are one buffer"));
  // Sub-buffers of `out` (offsets multiples of 1024 bytes, any device's base alignment): `overlapping`
  // holds bytes 1024 - 9215, `first` 4096 - 8191.
  cl_int err = CL_SUCCESS;
  auto sub = [&](size_t offset, size_t size) {
    cl_buffer_region r{offset, size};
    cl_mem m = clCreateSubBuffer(out, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    REQUIRE(err == CL_SUCCESS);
    return m;
  };
  cl_mem first = sub(4096, 4096), second = sub(8192, 4096), overlapping = sub(1024, 8192);
  a.inclusive = first;
  a.exclusive = overlapping;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the inclusive and exclusive outputs overlap"));
  a.exclusive = first;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("are one buffer"));
  a.exclusive = second;  // apart: both written
  s.run(a);
  const std::vector<uint8_t> inc = read(rt, first, n * 4), exc = read(rt, second, n * 4);
  int32_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    int32_t got_exc = 0, got_inc = 0;
    std::memcpy(&got_exc, exc.data() + 4 * i, 4);
    CHECK(got_exc == sum);
    sum += static_cast<int32_t>(i % 7);
    std::memcpy(&got_inc, inc.data() + 4 * i, 4);
    CHECK(got_inc == sum);
  }
  for (cl_mem m : {first, second, overlapping, in, out}) clReleaseMemObject(m);
}

TEST_CASE("without a CUDA driver the default runtime says why it chose OpenCL", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt;
  if (rt.backend() == scangen::Backend::OpenCL) {
    CHECK_FALSE(rt.fallback_reason().empty());
    CHECK_THROWS_WITH(scangen::Runtime({scangen::Backend::Cuda}), Catch::Contains("OpenCL backend"));
  } else {
    WARN("a CUDA GPU is present: the default runtime uses it");
  }
}

TEST_CASE("SCANGEN_TUNING: a bad knob is refused when the Runtime is made, a good one plans the scans",
          "[opencl][runtime]") {
  if (!have_opencl()) return;
  const char* before = std::getenv("SCANGEN_TUNING");
  const std::string kept = before ? before : "";
  setenv("SCANGEN_TUNING", "speed=1", 1);
  CHECK_THROWS_WITH(scangen::Runtime({scangen::Backend::OpenCL}),
                    Catch::Contains("SCANGEN_TUNING: tuning: unknown knob 'speed'"));
  setenv("SCANGEN_TUNING", "items=4", 1);
  {
    TempCache cache;
    scangen::Runtime rt({scangen::Backend::OpenCL});
    CHECK(rt.compile("scan s { type = i32; op = add; level = device; }").plan().items == 4);
  }
  if (before)
    setenv("SCANGEN_TUNING", kept.c_str(), 1);
  else
    unsetenv("SCANGEN_TUNING");
}
