// The runtime on a CUDA GPU: compile, launch and check warp, block and device
// scans, the caches, concurrent compiles and the error paths. Exits 4
// (skipped) where there is no driver or no GPU.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda_support.h"
#include "runtime_test_support.h"
#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

namespace {

namespace fs = std::filesystem;
using scangen::test::cuda::driver;
using namespace scangen::test::runtime;

struct DeviceBuffer {
  CUdeviceptr p = 0;
  explicit DeviceBuffer(size_t bytes) { CU_CHECK(driver().cuMemAlloc(&p, bytes + 16)); }
  ~DeviceBuffer() { driver().cuMemFree(p); }
  void* get() const { return reinterpret_cast<void*>(p); }
};

void check_scan(const scangen::Scan& scan, uint64_t n, std::mt19937_64& rng, void* workspace = nullptr,
                uint64_t workspace_size = 0) {
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
  a.workspace = workspace;
  a.workspace_size = workspace_size;
  scan.run(a);
  CU_CHECK(driver().cuCtxSynchronize());
  std::vector<uint8_t> got(n * es + 1);
  CU_CHECK(driver().cuMemcpyDtoH(got.data(), d_out.p, n * es));
  check_output(s, in, n, got);
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
  for (const char* text :
       {"scan d { type = i32; op = add; level = device; }",
        "scan r { type = u64; op = max; level = device; algorithm = reduce_then_scan; mode = exclusive; }",
        "scan b { type = i64; op = add; level = block; threads = 100; items = 3; }",
        "scan c { type = u32; op = xor; level = warp; algorithm = coalesced; targets = cuda; }",
        "scan w { type = u32; input = u8; op = add; level = warp(8); items = 2; }"}) {
    scangen::Scan scan = rt.compile(text);
    for (uint64_t n : {0ull, 1ull, 4095ull, 1000001ull}) check_scan(scan, n, rng);
  }
}

// Tiles whose exchange passes the 48 KiB of static shared memory a block may
// declare keep it in dynamic shared memory (Plan::dynamic_shared_bytes): the
// runtime allows the bytes and gives them at launch. Before, such tiles read
// and wrote their elements uncoalesced, several times slower; the results
// must be the reference's at awkward sizes either way.
TEST_CASE("CUDA device scans whose exchange is in dynamic shared memory (past 48 KiB)", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  for (const char* text :
       {"scan big32 { type = i32; op = add; level = device; threads = 256; items = 48; }",
        "scan big64 { type = i64; op = add; level = device; threads = 128; items = 48; mode = exclusive; init = 5; }",
        // The affine map in wrapping i32 arithmetic: 8 bytes, not commutative, exact in any grouping.
        "type AffineI { a: i32, b: i32 }\n"
        "scan bigaff { type = AffineI; combine(x, y) = AffineI { a: y.a * x.a, b: y.a * x.b + y.b };"
        " identity = AffineI { a: 1, b: 0 }; level = device; threads = 128; items = 64; }",
        "scan big8 { type = i8; op = add; level = device; threads = 512; items = 128; }"}) {
    INFO(text);
    scangen::Scan scan = rt.compile(text);
    REQUIRE(scan.plan().dynamic_shared_bytes > 48u * 1024u);
    REQUIRE(scan.plan().staged_io);
    const uint64_t tile = scan.plan().tile;
    for (uint64_t n : std::vector<uint64_t>{0, 1, tile - 1, tile, tile + 1, 3 * tile + 5, 1000001, (1u << 22) + 3})
      check_scan(scan, n, rng);
  }
}

// Wrapping sums of 1- and 2-byte integers and f16 sums keep a thread's items packed in
// 32-bit words (templates/cuda/packed.cuh): whole tiles at 16-byte-aligned
// addresses move as words, the partial last tile and arrays at any other
// address element by element, and every tile scans its words. Each mode with
// the aggregate, the arrays at aligned and unaligned element offsets and in
// place, against the reference bit for bit, the bytes around the outputs
// untouched. (The f16 values are -1, 0 and 1, their running sum kept within
// +-1000: every sum of a run of them is exact, in whatever grouping.)
TEST_CASE("CUDA 1- and 2-byte sums in packed words at aligned and unaligned addresses and in place", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  const uint64_t pad = 64;  // elements before and after each array, poisoned
  for (const char* type : {"i8", "u8", "i16", "u16", "f16"})
    for (const char* mode : {"inclusive", "exclusive", "both"}) {
      scangen::Scan scan = rt.compile(std::string("scan p { type = ") + type +
                                      "; op = add; level = device; mode = " + mode + "; outputs = aggregate; }");
      const scangen::dsl::Spec& s = scan.spec();
      const size_t es = s.type.size();
      // Planned for this device's name too: on devices named "...H200..." the f16 sum takes the table's row
      // for them (128 x 64, at least 10 blocks per SM), every other scan here its architecture's.
      const bool h200_row = std::string(type) == "f16" && rt.device_name().find("H200") != std::string::npos;
      INFO(type << ": " << scan.plan().block_threads << " x " << scan.plan().items << ", the table's row for '"
                << scan.plan().tuning.device << "'");
      CHECK(std::string(scan.plan().tuning.device) == (h200_row ? "H200" : ""));
      CHECK(scan.plan().tuning.min_blocks == (h200_row                                                 ? 10
                                              : std::string(type) == "i8" || std::string(type) == "u8" ? 9
                                                                                                       : 0));
      const uint64_t tile = scan.plan().tile;  // the sizes straddle each scan's own tile
      for (uint64_t n : {uint64_t{1}, tile - 1, tile, 3 * tile + 5, uint64_t{1000003}})
        for (const auto& [in_at, out_at] :
             {std::pair<uint64_t, uint64_t>{0, 0}, {1, 0}, {0, 3}, {5, 7}, {3, 3}, {16, 32}})
          for (bool in_place : {false, true}) {
            if (in_place && (s.mode == scangen::dsl::Mode::Both || in_at != out_at)) continue;
            INFO(type << " " << mode << ", n = " << n << ", input at element " << in_at << ", outputs at " << out_at
                      << (in_place ? ", in place" : ""));
            const size_t bytes = (n + 2 * pad) * es;
            std::vector<uint8_t> in(n * es);
            if (type[0] == 'f') {
              int sum = 0;
              for (uint64_t i = 0; i < n; ++i) {
                const int v = sum > 1000 ? -1 : sum < -1000 ? 1 : static_cast<int>(rng() % 3) - 1;
                sum += v;
                const uint16_t h = scangen::dsl::float_to_half_bits(static_cast<float>(v));
                std::memcpy(in.data() + 2 * i, &h, 2);
              }
            } else {
              scangen::ref::fill_random(s.input, in.data(), n, rng);
            }
            DeviceBuffer d_in(bytes), d_inc(bytes), d_exc(bytes), d_agg(es + 32);
            for (const DeviceBuffer* b : {&d_in, &d_inc, &d_exc, &d_agg})
              CU_CHECK(driver().cuMemsetD8(b->p, 0xAB, b == &d_agg ? es + 32 : bytes));
            const CUdeviceptr in_p = d_in.p + (pad + in_at) * es;
            CU_CHECK(driver().cuMemcpyHtoD(in_p, in.data(), in.size()));
            scangen::Scan::CudaArgs a;
            a.in = reinterpret_cast<const void*>(in_p);
            void* out_inc =
                in_place ? reinterpret_cast<void*>(in_p) : reinterpret_cast<void*>(d_inc.p + (pad + out_at) * es);
            void* out_exc =
                in_place ? reinterpret_cast<void*>(in_p) : reinterpret_cast<void*>(d_exc.p + (pad + out_at) * es);
            if (s.has_inclusive()) a.inclusive = out_inc;
            if (s.has_exclusive()) a.exclusive = out_exc;
            a.aggregate = reinterpret_cast<void*>(d_agg.p + 16);
            a.n = n;
            scan.run(a);
            CU_CHECK(driver().cuCtxSynchronize());
            const auto want = scangen::ref::Evaluator(s).scan(in.data(), n);
            auto check_array = [&](const DeviceBuffer& b, uint64_t at, const std::vector<uint8_t>& w) {
              std::vector<uint8_t> got(bytes);
              CU_CHECK(driver().cuMemcpyDtoH(got.data(), b.p, bytes));
              uint64_t bad = 0, poisoned = 0;
              for (uint64_t i = 0; i < n * es; ++i) bad += got[(pad + at) * es + i] != w[i];
              for (uint64_t i = 0; i < (pad + at) * es; ++i) poisoned += got[i] != 0xAB;
              for (uint64_t i = (pad + at + n) * es; i < bytes; ++i) poisoned += got[i] != 0xAB;
              CHECK(bad == 0);
              CHECK(poisoned == 0);
            };
            if (s.has_inclusive()) check_array(in_place ? d_in : d_inc, in_place ? in_at : out_at, want.inclusive);
            if (s.has_exclusive()) check_array(in_place ? d_in : d_exc, in_place ? in_at : out_at, want.exclusive);
            std::vector<uint8_t> agg(es + 32);
            CU_CHECK(driver().cuMemcpyDtoH(agg.data(), d_agg.p, agg.size()));
            CHECK(std::memcmp(agg.data() + 16, want.aggregates.data(), es) == 0);
          }
    }
}

// Several Scans take turns on one workspace of the caller's: look-back scans
// of the three status layouts (4-, 8- and 16-byte elements) and a
// reduce-then-scan. The workspace starts as garbage and holds what the call
// before left: each look-back call zeroes what it uses first; a workspace
// freed and allocated again (often at the same address) works the same.
TEST_CASE("CUDA Scans of several layouts and algorithms take turns on one workspace", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  std::vector<scangen::Scan> scans = {
      rt.compile("scan a { type = i32; op = add; level = device; }"),
      rt.compile("scan b { type = i32; op = add; level = device; mode = exclusive; }"),
      rt.compile("scan l { type = i64; op = add; level = device; }"),
      rt.compile("type M { a: i32, b: i32, c: i32, d: i32 }\n"
                 "scan m { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
                 " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
                 " identity = M { a: 1, b: 0, c: 0, d: 1 }; level = device; }"),
      rt.compile("scan r { type = i32; op = add; level = device; algorithm = reduce_then_scan; }")};
  const uint64_t max_n = (1ull << 22) + 7;
  uint64_t bytes = 0;
  for (const scangen::Scan& s : scans) bytes = std::max(bytes, s.workspace_bytes(max_n));
  for (int round = 0; round < 2; ++round) {  // then freed and allocated again
    INFO("workspace " << round + 1);
    CUdeviceptr ws = 0;
    CU_CHECK(driver().cuMemAlloc(&ws, bytes));
    CU_CHECK(driver().cuMemsetD8(ws, static_cast<unsigned char>(0xA5 + round), bytes));
    // (i32: 127 and 128 tiles of 8192 on either side of generator::kZeroKernelFromTiles, where the
    // workspace is zeroed by the plan's zero kernel instead of a memset, on sm_90 and later.)
    for (uint64_t n : std::vector<uint64_t>{max_n, 5000, 1, 1000001, 65536, 127 * 8192, 127 * 8192 + 1, max_n})
      for (const scangen::Scan& s : scans) check_scan(s, n, rng, reinterpret_cast<void*>(ws), bytes);
    CU_CHECK(driver().cuMemFree(ws));
  }
}

// A Scan's own workspace is zeroed once (Plan::epoch_tags): each call's
// statuses carry its epoch, taken with the ticket, and the statuses an
// earlier call left (more tiles, fewer, other values) must never be taken
// for this call's. Calls of random sizes, many more than one tile and
// across kZeroKernelFromTiles, each checked against the reference, for each
// status layout (4-, 8- and 16-byte elements), packed sums, reverse and
// exclusive scans.
TEST_CASE("CUDA look-back scans in a Scan's own workspace zeroed once over many calls of other sizes",
          "[gpu][runtime]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  std::vector<scangen::Scan> scans = {
      rt.compile("scan a { type = i32; op = add; level = device; }"),
      rt.compile("scan l { type = i64; op = add; level = device; mode = exclusive; }"),
      rt.compile("scan x { type = f32; op = max; level = device; reverse = true; }"),
      rt.compile("scan p { type = u8; op = add; level = device; }"),
      rt.compile("type M { a: i32, b: i32, c: i32, d: i32 }\n"
                 "scan m { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
                 " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
                 " identity = M { a: 1, b: 0, c: 0, d: 1 }; level = device; }")};
  for (const scangen::Scan& s : scans) REQUIRE(s.plan().epoch_tags);
  const std::vector<uint64_t> sizes = {1,
                                       4096,
                                       4097,
                                       8193,
                                       65536,
                                       65537,
                                       1000001,
                                       (1u << 20) * 3 + 1,
                                       127 * 4096 + 5,
                                       128 * 4096 + 1,
                                       (1u << 22) + 7,
                                       12289,
                                       300000};
  for (const scangen::Scan& s : scans) {
    INFO("scan " << s.spec().name);
    std::vector<uint64_t> order;
    for (int k = 0; k < 4; ++k) order.insert(order.end(), sizes.begin(), sizes.end());
    std::shuffle(order.begin(), order.end(), rng);
    for (uint64_t n : order) {
      INFO("n = " << n);
      check_scan(s, n, rng);
    }
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
  a.exclusive = buf.get();  // mode = both writes both: one buffer, or overlapping ones, would keep one
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the inclusive and exclusive outputs are one buffer"));
  a.exclusive = static_cast<char*>(buf.get()) + 64;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the inclusive and exclusive outputs overlap"));
  a.exclusive = static_cast<char*>(buf.get()) + 256;  // 64 elements of 4 bytes: apart
  a.workspace = buf.get();
  a.workspace_size = 8;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("the workspace has 8 bytes"));
  a.workspace = static_cast<char*>(buf.get()) + 4;
  a.workspace_size = 4096;
  CHECK_THROWS_WITH(s.run(a), Catch::Contains("16-byte aligned"));
  // Allocations the driver can size are checked against n before a launch
  // (1024 elements given, 65536 asked for: out-of-bounds writes otherwise).
  {
    DeviceBuffer small_in(1024 * 4), small_out(1024 * 4), big(1 << 20), tiny(16);
    scangen::Scan::CudaArgs b;
    b.in = small_in.get();
    b.inclusive = big.get();
    b.exclusive = static_cast<char*>(big.get()) + (1 << 19);
    b.n = 65536;
    CHECK_THROWS_WITH(s.run(b), Catch::Contains("the input pointer has") &&
                                    Catch::Contains("bytes of its allocation after it, but 65536 elements of i32 (4 "
                                                    "bytes each) need 262144"));
    b.in = big.get();
    b.exclusive = small_out.get();
    CHECK_THROWS_WITH(s.run(b), Catch::Contains("the exclusive pointer has"));
    b.exclusive = static_cast<char*>(big.get()) + (1 << 20) - 1024;  // near the end of its allocation
    CHECK_THROWS_WITH(s.run(b), Catch::Contains("the exclusive pointer has"));
    b.exclusive = static_cast<char*>(big.get()) + (1 << 19);
    b.workspace = tiny.get();  // claims more than its allocation holds
    b.workspace_size = 1 << 20;
    CHECK_THROWS_WITH(s.run(b), Catch::Contains("the workspace pointer has"));
  }
  scangen::Scan::OpenCLArgs o;
  CHECK_THROWS_WITH(s.run(o), Catch::Contains("was compiled for CUDA"));
  CHECK_THROWS_WITH(rt.compile("type B { a: f64, b: f64, c: f64 }\n"
                               "scan e { type = B; combine(x, y) = B { x.a + y.a, x.b + y.b, x.c + y.c }; "
                               "identity = B { 0, 0, 0 }; level = block; threads = 1024; algorithm = hillis_steele; }"),
                    Catch::Contains("shared memory"));
}

// Flags and keys: segment_aggregates must hold n elements, or segment_count
// of them and the call makes no more segments; offsets: segment_count + 1
// must not wrap (test_runtime_opencl.cpp's twin).
TEST_CASE("CUDA segment_aggregates too small for the segments of flags or keys, and segment_count = 2^64 - 1",
          "[gpu][runtime][segmented]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t n = 1000;
  std::vector<uint8_t> keys(n * 4);
  for (uint64_t i = 0; i < n; ++i) {
    const int32_t v = static_cast<int32_t>(i);  // every key different
    std::memcpy(keys.data() + i * 4, &v, 4);
  }
  DeviceBuffer d_in(n * 4), d_out(n * 4), d_flags(n), d_keys(n * 4), d_small(4), d_room(n * 4);
  CU_CHECK(driver().cuMemsetD8(d_in.p, 1, n * 4));
  CU_CHECK(driver().cuMemsetD8(d_flags.p, 1, n));
  CU_CHECK(driver().cuMemcpyHtoD(d_keys.p, keys.data(), keys.size()));
  for (const char* form : {"flags", "keys"}) {
    INFO(form);
    const bool flags = form[0] == 'f';
    scangen::Scan scan =
        rt.compile(std::string("scan seg { type = i32; op = add; outputs = aggregate; segments = ") + form + "; }");
    scangen::Scan::CudaArgs a;
    a.in = d_in.get();
    a.inclusive = d_out.get();
    a.n = n;
    (flags ? a.segment_flags : a.keys) = flags ? d_flags.get() : d_keys.get();
    a.segment_aggregates = d_small.get();  // 20 bytes with DeviceBuffer's slack: room for five segments
    CHECK_THROWS_WITH(scan.run(a), Catch::Contains("the segment_aggregates pointer has 20 bytes"));
    a.segment_count = 1;
    CHECK_THROWS_WITH(scan.run(a),
                      Catch::Contains("make 1000 segments, but segment_aggregates holds segment_count = 1"));
    a.segment_aggregates = d_room.get();
    a.segment_count = 0;
    scan.run(a);
    CU_CHECK(driver().cuCtxSynchronize());
    std::vector<uint8_t> got(n * 4);
    CU_CHECK(driver().cuMemcpyDtoH(got.data(), d_room.p, got.size()));
    CHECK(got == std::vector<uint8_t>(n * 4, 1));  // each segment one element, 0x01010101
  }
  scangen::Scan by_offsets = rt.compile("scan seg { type = i32; op = add; segments = offsets; offset = u32; }");
  scangen::Scan::CudaArgs a;
  a.in = d_in.get();
  a.inclusive = d_out.get();
  a.n = n;
  a.segment_offsets = d_small.get();
  a.segment_count = UINT64_MAX;
  CHECK_THROWS_WITH(by_offsets.run(a), Catch::Contains("segment_count = 18446744073709551615 is too large"));
}

// Segmented scans through Scan::run on CUDA: offsets (checked), flags and
// keys, forward and reverse (with C's == and with a key_equal), against the reference.
TEST_CASE("segmented scans run through Scan::run on a CUDA GPU", "[gpu][runtime][segmented]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  const uint64_t n = 1000003;
  std::vector<uint8_t> in(n * 4);
  scangen::ref::fill_random(scangen::dsl::Type::scalar(scangen::dsl::ScalarKind::I32), in.data(), n, rng);
  std::vector<uint64_t> offsets = {0};  // segments of 0 .. 40 elements
  while (offsets.back() < n) offsets.push_back(std::min<uint64_t>(n, offsets.back() + rng() % 41));
  const uint64_t count = offsets.size() - 1;
  std::vector<uint8_t> flags(n, 0), keys(n * 4);
  for (uint64_t s = 0; s < count; ++s)
    for (uint64_t i = offsets[s]; i < offsets[s + 1]; ++i) {
      flags[i] = i == offsets[s] ? 7 : 0;
      const int32_t key = static_cast<int32_t>(s);
      std::memcpy(keys.data() + i * 4, &key, 4);
    }
  DeviceBuffer d_in(in.size()), d_out(n * 4), d_agg(count * 4), d_offsets(offsets.size() * 8), d_flags(n),
      d_keys(keys.size());
  CU_CHECK(driver().cuMemcpyHtoD(d_in.p, in.data(), in.size()));
  CU_CHECK(driver().cuMemcpyHtoD(d_offsets.p, offsets.data(), offsets.size() * 8));
  CU_CHECK(driver().cuMemcpyHtoD(d_flags.p, flags.data(), n));
  CU_CHECK(driver().cuMemcpyHtoD(d_keys.p, keys.data(), keys.size()));
  for (const char* form : {"segments = offsets; offset = u64;", "segments = flags;", "segments = keys;",
                           "segments = keys; key_equal(a, b) = a / 3 == b / 3;"})
    for (const char* order : {"", " reverse = true;"})                // reverse: every segment from its last element
      for (const char* tile : {"", " threads = 256; items = 48;"}) {  // the second's exchange in dynamic shared memory
        INFO(form << order << tile);
        scangen::Scan scan =
            rt.compile(std::string("scan seg { type = i32; op = add; init = 2; outputs = aggregate; ") + form + order +
                       tile + " }");
        if (*tile) REQUIRE(scan.plan().dynamic_shared_bytes > 48u * 1024u);
        CU_CHECK(driver().cuMemsetD8(d_out.p, 0xA5, n * 4));  // poisoned: each run writes every result anew
        CU_CHECK(driver().cuMemsetD8(d_agg.p, 0xA5, count * 4));
        scangen::Scan::CudaArgs a;
        a.in = d_in.get();
        a.inclusive = d_out.get();
        a.segment_aggregates = d_agg.get();
        a.n = n;
        std::vector<scangen::ref::Evaluator::Range> ranges;
        switch (scan.spec().segments) {
          case scangen::dsl::Segments::Offsets:
            a.segment_offsets = d_offsets.get();
            a.segment_count = count;
            a.check_segments = true;
            ranges = scangen::ref::ranges_from_offsets(offsets, n);
            break;
          case scangen::dsl::Segments::Flags:
            a.segment_flags = d_flags.get();
            ranges = scangen::ref::ranges_from_flags(flags.data(), n);
            break;
          default:
            a.keys = d_keys.get();
            ranges = scangen::ref::ranges_from_keys(scan.spec(), keys.data(), n);
            break;
        }
        if (scan.spec().segments != scangen::dsl::Segments::Offsets) a.segment_count = ranges.size();  // the room
        scan.run(a);
        CU_CHECK(driver().cuCtxSynchronize());
        const auto want = scangen::ref::Evaluator(scan.spec()).scan_ranges(in.data(), n, ranges);
        std::vector<uint8_t> got(n * 4), agg(ranges.size() * 4);
        CU_CHECK(driver().cuMemcpyDtoH(got.data(), d_out.p, got.size()));
        CU_CHECK(driver().cuMemcpyDtoH(agg.data(), d_agg.p, agg.size()));
        CHECK(got == want.inclusive);
        CHECK(agg == want.aggregates);
      }
}

// Scan::reduce and totals in host memory on CUDA (test_reduce_opencl.cpp has the OpenCL side).
TEST_CASE("CUDA Scan::reduce and host totals match the reference", "[gpu][runtime]") {
  INFO("GPU: " << driver().name);
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::Cuda});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  const std::string affine =
      "type A { a: f64, b: f64 }\n"
      "scan %N { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
      "identity = A { a: 1.0, b: 0.0 }; level = device; %S }";
  auto text = [&](const std::string& name, const std::string& settings) {
    std::string t = affine;
    t.replace(t.find("%N"), 2, name);
    return t.replace(t.find("%S"), 2, settings);
  };
  // a = +1 or -1 and integer b: every sum exact in f64.
  auto maps = [&](uint64_t n) {
    std::vector<double> v(2 * n);
    for (uint64_t i = 0; i < n; ++i) v[2 * i] = rng() % 2 ? 1.0 : -1.0, v[2 * i + 1] = double(rng() % 2001) - 1000;
    return v;
  };
  const scangen::Scan red =
      rt.compile(text("red", "algorithm = reduce_then_scan; outputs = aggregate; reverse = true;"));
  const scangen::Scan run = rt.compile(text("run", "mode = exclusive; outputs = running_total;"));
  for (uint64_t n : {0ull, 1ull, 4097ull, 3000001ull}) {
    INFO("n " << n);
    const std::vector<double> in = maps(n), carry = maps(1);
    DeviceBuffer d_in(n * 16), d_out(n * 16), d_agg(16);
    if (n) CU_CHECK(driver().cuMemcpyHtoD(d_in.p, in.data(), n * 16));
    scangen::Scan::CudaArgs a;
    a.in = d_in.get();
    a.n = n;
    a.aggregate = d_agg.get();
    red.reduce(a);
    std::vector<uint8_t> got(16), want_agg = scangen::ref::Evaluator(red.spec()).scan(in.data(), n).aggregates;
    CU_CHECK(driver().cuCtxSynchronize());
    CU_CHECK(driver().cuMemcpyDtoH(got.data(), d_agg.p, 16));
    CHECK(got == want_agg);
    a.aggregate = nullptr;
    a.host_aggregate = got.data();
    std::fill(got.begin(), got.end(), 0xAB);
    red.reduce(a);
    CHECK(got == want_agg);
    scangen::Scan::CudaArgs b;
    b.in = d_in.get();
    b.exclusive = d_out.get();
    b.n = n;
    std::vector<uint8_t> total(16);
    std::memcpy(total.data(), carry.data(), 16);
    b.host_running_total = total.data();
    run.run(b);  // waits for its stream: the results are there
    const scangen::ref::Evaluator::Result want = scangen::ref::Evaluator(run.spec()).scan(in.data(), n, carry.data());
    std::vector<uint8_t> out(n * 16);
    if (n) CU_CHECK(driver().cuMemcpyDtoH(out.data(), d_out.p, n * 16));
    CHECK(out == want.exclusive);
    CHECK(total == want.running_total);
  }
}
