// Scan::reduce (the aggregate alone, by a reduce_then_scan plan's reduce and
// spine kernels) and totals in host memory (host_aggregate,
// host_running_total) on OpenCL, against the CPU reference; and what both refuse.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "opencl_test_support.h"

using namespace scangen::test::runtime;

namespace {

const char* kAffine =
    "type A { a: i64, b: i64 }\n"
    "scan affine_reduce { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
    "identity = A { a: 1, b: 0 }; level = device; algorithm = reduce_then_scan; outputs = aggregate; %s }";

std::string affine(const std::string& more) {
  std::string text = kAffine;
  return text.replace(text.find("%s"), 2, more);
}

// n affine maps of a = +1 or -1 (the sums stay exact).
std::vector<uint8_t> maps(uint64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> in(n * 16);
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t a = rng() % 2 ? 1 : -1, b = static_cast<int64_t>(rng() % 2001) - 1000;
    std::memcpy(in.data() + 16 * i, &a, 8);
    std::memcpy(in.data() + 16 * i + 8, &b, 8);
  }
  return in;
}

}  // namespace

TEST_CASE("Scan::reduce gives the aggregate alone in either direction and writes no scan", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t seed = scangen::test::runtime::seed();
  std::mt19937_64 rng(seed);
  for (const char* more : {"", "reverse = true;"}) {
    const scangen::Scan s = rt.compile(affine(more));
    const scangen::ref::Evaluator ref(s.spec());
    for (uint64_t n : {0ull, 1ull, 255ull, 256ull, 257ull, 4095ull, 4097ull, 20001ull}) {
      const std::vector<uint8_t> in = maps(n, rng);
      const scangen::ref::Evaluator::Result want = ref.scan(in.data(), n);
      cl_mem in_buf = buffer(rt, in), agg = buffer(rt, std::vector<uint8_t>(16, 0xAB));
      scangen::Scan::OpenCLArgs a;
      a.in = in_buf;
      a.n = n;
      a.aggregate = agg;
      s.reduce(a);
      CHECK(read(rt, agg, 16) == want.aggregates);
      // The same through host memory.
      std::vector<uint8_t> host(16, 0xAB);
      a.aggregate = nullptr;
      a.host_aggregate = host.data();
      s.reduce(a);
      INFO("n " << n << " " << more << " seed " << seed);
      CHECK(host == want.aggregates);
      clReleaseMemObject(in_buf);
      clReleaseMemObject(agg);
    }
  }
}

TEST_CASE("a host running total seeds a device scan and comes back with its total", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t seed = scangen::test::runtime::seed();
  std::mt19937_64 rng(seed);
  const scangen::Scan s = rt.compile(
      "type A { a: i64, b: i64 }\n"
      "scan affine_total { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b }; "
      "identity = A { a: 1, b: 0 }; level = device; mode = exclusive; outputs = running_total, aggregate; }");
  const scangen::ref::Evaluator ref(s.spec());
  for (uint64_t n : {0ull, 1ull, 4097ull, 20001ull}) {
    const std::vector<uint8_t> in = maps(n, rng), seed_value = maps(1, rng);
    const scangen::ref::Evaluator::Result want = ref.scan(in.data(), n, seed_value.data());
    cl_mem in_buf = buffer(rt, in), out = buffer(rt, std::vector<uint8_t>(n * 16, 0xAB));
    std::vector<uint8_t> total = seed_value, aggregate(16, 0xAB);
    scangen::Scan::OpenCLArgs a;
    a.in = in_buf;
    a.exclusive = out;
    a.n = n;
    a.host_running_total = total.data();
    a.host_aggregate = aggregate.data();
    s.run(a);
    INFO("n " << n << " seed " << seed);
    CHECK(read(rt, out, n * 16) == want.exclusive);
    CHECK(total == want.running_total);
    CHECK(aggregate == want.aggregates);
    clReleaseMemObject(in_buf);
    clReleaseMemObject(out);
  }
}

TEST_CASE("reduce and host totals refuse what they cannot do", "[opencl][runtime]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const scangen::Scan lookback = rt.compile("scan lb { type = i32; op = add; level = device; outputs = aggregate; }");
  const scangen::Scan rts = rt.compile(affine(""));
  cl_mem m = buffer(rt, std::vector<uint8_t>(4096, 0)), agg = buffer(rt, std::vector<uint8_t>(16, 0));
  scangen::Scan::OpenCLArgs a;
  a.in = m;
  a.n = 64;
  a.aggregate = agg;
  CHECK_THROWS_WITH(lookback.reduce(a), Catch::Contains("reduce() takes a flat device scan by reduce_then_scan"));
  a.inclusive = m;
  CHECK_THROWS_WITH(rts.reduce(a), Catch::Contains("the inclusive output must be null"));
  a.inclusive = nullptr;
  int host = 0;
  a.host_aggregate = &host;
  CHECK_THROWS_WITH(rts.reduce(a), Catch::Contains("the aggregate was given twice"));
  const scangen::Scan rows = rt.compile("scan rows { type = i32; op = add; level = device; shape = rows; }");
  scangen::Scan::OpenCLArgs r;
  r.host_aggregate = &host;
  r.rows = 1;
  r.length = 4;
  CHECK_THROWS_WITH(rows.run(r), Catch::Contains("take a flat device scan's one aggregate"));
  clReleaseMemObject(m);
  clReleaseMemObject(agg);
}
