// The runtime's OpenCL build options (RuntimeOptions::opencl_build_options,
// SCANGEN_OPENCL_BUILD_OPTIONS): the emitted source's variants
// (docs/generated-code.md §7) give the reference's results, each its own
// binary in the cache; a bad option is the driver's error. On PoCL the
// PTX variants do not build; scripts/gpu-check run-opencl runs the suites on
// NVIDIA's OpenCL with and without them.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <random>

#include "scangen/runtime/runtime.h"

#include "opencl_test_support.h"
#include "runtime_test_support.h"
#include "test_tier.h"

using namespace scangen::test::runtime;

TEST_CASE("the emitted source's variants (build options) give the same results and their own binaries",
          "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  unsetenv("SCANGEN_OPENCL_BUILD_OPTIONS");
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  // Non-commutative operators (affine maps, 2x2 matrices) of 8 and 16 bytes,
  // the one reverse: the look-back's order and its statuses of several words.
  const char* texts[] = {
      "scan d { type = i32; op = add; level = device; }",
      "scan v { type = i64; op = max; level = device; mode = exclusive; }",
      "type AffU { a: u32, b: u32 }\n"
      "scan r { type = AffU; combine(x, y) = AffU { a: y.a * x.a, b: y.a * x.b + y.b };"
      " identity = AffU { a: 1, b: 0 }; level = device; reverse = true; }",
      "type M { a: i32, b: i32, c: i32, d: i32 }\n"
      "scan m { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
      " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = M { a: 1, b: 0, c: 0, d: 1 };"
      " level = device; }",
      "scan b { type = u32; op = add; level = block; threads = 128; items = 4; }"};
  // One element, a tile (i32: 8192, i64: 4096) and around it, whole tiles, and
  // enough tiles (245 of i32) for a look-back over more than one window of 32.
  const uint64_t sizes[] = {1, 4095, 4096, 8193, 3 * 8192, 100003, 2000003};
  // Each a different string of options on every platform, the runtime's own
  // included (so a binary of its own); on NVIDIA's OpenCL: PTX's shuffles,
  // warp look-back and sleep; the same with atomic status reads; the serial
  // look-back; the portable path, and with atomic status reads.
  // The quick tier: the runtime's own options, the atomic status reads (the
  // environment's below) and one of the others, drawn.
  std::vector<std::string> variants = scangen::test::sample_cases(
      std::vector<std::string>{"-DSCANGEN_OPENCL_WARP_LOOKBACK=0",
                               "-DSCANGEN_OPENCL_PTX=0 -DSCANGEN_OPENCL_FIRST_POLL_NS=0",
                               "-DSCANGEN_OPENCL_ATOMIC_STATUS_READS -DSCANGEN_OPENCL_PTX=0"},
      "OpenCL build options", [](const std::string&) { return std::vector<std::string>{"options"}; });
  variants.insert(variants.begin(), {"", "-DSCANGEN_OPENCL_ATOMIC_STATUS_READS"});
  for (const std::string& options : variants) {
    INFO("build options: " << options);
    scangen::RuntimeOptions o;
    o.backend = scangen::Backend::OpenCL;
    o.opencl_build_options = options;
    scangen::Runtime rt(o);
    // The quick tier: the first scan (the environment's check below needs it) and one other, drawn.
    std::vector<std::string> scans = scangen::test::sample_cases(
        std::vector<std::string>(std::begin(texts) + 1, std::end(texts)), "the scans built with '" + options + "'",
        [](const std::string&) { return std::vector<std::string>{"scan"}; });
    scans.insert(scans.begin(), texts[0]);
    for (const std::string& text : scans) {
      scangen::Scan scan = rt.compile(text);
      for (uint64_t n : sizes) check_scan(rt, scan, n, rng);
    }
    // Another variant is another binary: a miss, not the first variant's entry.
    CHECK(rt.stats().misses == scans.size());
  }
  // The environment, where the options say nothing; a bad option is the driver's error, with its log.
  setenv("SCANGEN_OPENCL_BUILD_OPTIONS", "-DSCANGEN_OPENCL_ATOMIC_STATUS_READS", 1);
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    scangen::Scan scan = rt.compile(texts[0]);
    CHECK(rt.stats().disk_hits == 1);  // the entry of the same options given above, not the options-free one
    check_scan(rt, scan, 4097, rng);
  }
  setenv("SCANGEN_OPENCL_BUILD_OPTIONS", "-Dscangen_u64=(", 1);
  {
    scangen::Runtime rt({scangen::Backend::OpenCL});
    CHECK_THROWS_WITH(rt.compile("scan z { type = i32; op = add; level = device; }"),
                      Catch::Contains("clBuildProgram"));
  }
  unsetenv("SCANGEN_OPENCL_BUILD_OPTIONS");
}
