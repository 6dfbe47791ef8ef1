// shape = rows and shape = strided through the runtime on an OpenCL device
// (PoCL here): the sweep of shape_sweep.h, and the shape's argument checks.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime_test_support.h"
#include "opencl_test_support.h"
#include "shape_sweep.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::runtime;
namespace shapes = scangen::test::shapes;

struct OpenCL {
  scangen::Runtime& rt;
  cl_mem upload(const std::vector<uint8_t>& host) {
    if (host.empty()) return nullptr;
    cl_int err = CL_SUCCESS;
    std::vector<uint8_t> copy = host;
    cl_mem m =
        clCreateBuffer(rt.opencl_context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, copy.size(), copy.data(), &err);
    REQUIRE(err == CL_SUCCESS);
    return m;
  }
  std::vector<uint8_t> download(cl_mem m, size_t bytes) {
    std::vector<uint8_t> out(bytes);
    REQUIRE(clEnqueueReadBuffer(rt.opencl_queue(), m, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr) ==
            CL_SUCCESS);
    return out;
  }
  void release(cl_mem m) {
    if (m) clReleaseMemObject(m);
  }
  void run(const scangen::Scan& scan, cl_mem in, cl_mem inc, cl_mem exc, cl_mem agg, const shapes::Case& c) {
    scangen::Scan::OpenCLArgs a;
    a.in = in;
    a.inclusive = inc;
    a.exclusive = exc;
    a.aggregate = agg;
    shapes::set_shape(a, c);
    scan.run(a);
  }
};

void opencl_sweep(const std::string& shape, bool reverse = false) {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  OpenCL b{rt};
  shapes::sweep(b, rt, shape, rng, reverse);
}

}  // namespace

TEST_CASE("shape = rows with reverse = true scans every row from its last element (OpenCL)", "[opencl][shapes]") {
  opencl_sweep("rows", true);
}

TEST_CASE("shape = strided with reverse = true scans every line from its last element (OpenCL)", "[opencl][shapes]") {
  opencl_sweep("strided", true);
}

TEST_CASE("shape = rows scans every row on its own (OpenCL)", "[opencl][shapes]") { opencl_sweep("rows"); }

// mode = both over several tiles, call after call: work-groups that run at
// once must each keep to their own exchange (the rows kernel once wrote its
// two outputs through two inlined-or-not calls of a function holding
// barriers, and PoCL let a tile's outputs take values of another tile's).
TEST_CASE("shape = rows writes both outputs of many tiles call after call (OpenCL)", "[opencl][shapes][stress]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t s0 = seed();
  INFO("seed " << s0 << " (replay with SCANGEN_TEST_SEED=" << s0 << ")");
  std::mt19937_64 rng(s0);
  OpenCL b{rt};
  for (const std::string& text :
       scangen::test::sample_texts(shapes::spec_texts("rows"), "rows, many tiles (OpenCL)", {"mode"})) {
    const scangen::Scan scan = rt.compile(text);
    if (!scan.spec().has_inclusive() || !scan.spec().has_exclusive()) continue;
    const uint64_t tile = scan.plan().tile;
    INFO("scan " << scan.spec().name << " (tile " << tile << ")");
    for (int call = 0; call < 50; ++call) {
      INFO("round " << call + 1);
      for (const shapes::Case& c : {shapes::rows(1, tile + 1), shapes::rows(1000, 3), shapes::rows(7, 3 * tile + 5),
                                    shapes::rows(tile + 1, 2), shapes::rows(4, 2 * tile + 3, 2 * tile + 10)})
        shapes::run_case(b, scan, c, rng);
    }
  }
}

TEST_CASE("shape = strided scans every line along the axis on its own (OpenCL)", "[opencl][shapes]") {
  opencl_sweep("strided");
}

TEST_CASE("a shaped call's bad shape gets a clear error", "[opencl][shapes]") {
  if (!have_opencl()) return;
  TempCache cache;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  OpenCL b{rt};
  const scangen::Scan rows = rt.compile("scan r { type = i32; op = add; level = device; shape = rows; }");
  const scangen::Scan strided = rt.compile("scan s { type = i32; op = add; level = device; shape = strided; }");
  const scangen::Scan flat = rt.compile("scan f { type = i32; op = add; level = device; }");
  cl_mem in = b.upload(std::vector<uint8_t>(4096, 0)), out = b.upload(std::vector<uint8_t>(4096, 0));
  auto expect = [&](const scangen::Scan& scan, const shapes::Case& c, uint64_t n, const std::string& words) {
    scangen::Scan::OpenCLArgs a;
    a.in = in;
    a.inclusive = out;
    a.n = n;
    shapes::set_shape(a, c);
    INFO("shape " << c.name << ", n " << n);
    CHECK_THROWS_WITH(scan.run(a), Catch::Contains(words));
  };
  expect(rows, shapes::rows(4, 10, 9), 0, "row stride (9) is below the row length (10)");
  expect(rows, shapes::rows(4, 10, 10, 3), 0, "outputs' row stride (3) is below the row length (10)");
  expect(rows, shapes::rows(1ull << 33, 1ull << 33), 0, "rows x length overflows 64 bits");
  expect(rows, shapes::rows(4, 10), 40, "leave n at 0");
  expect(rows, shapes::rows(100, 100), 0, "the input buffer has 4096 bytes");
  expect(rows, shapes::strided({2, 2}, {2, 1}, 0), 0, "takes rows, length and row strides");
  expect(strided, shapes::strided({2, 2, 2, 2, 2}, {16, 8, 4, 2, 1}, 0), 0, "1 to 4 dimensions; rank 5");
  expect(strided, shapes::strided({2, 2}, {2, 1}, 2), 0, "the axis 2 is not a dimension of a rank-2 array");
  expect(strided, shapes::strided({1ull << 40, 1ull << 40}, {1, 1}, 0), 0, "overflows 64 bits");
  expect(strided, shapes::rows(2, 2), 0, "takes a strided shape, not rows");
  expect(flat, shapes::rows(2, 2), 0, "has no run-time shape");
  scangen::Scan::OpenCLArgs shape;
  shapes::set_shape(shape, shapes::rows(3, 2 * rows.plan().tile + 1));
  CHECK(rows.workspace_bytes(shape) == 16 + 7 * rows.plan().status_bytes);  // ceil((6 tiles + 3) / tile)
  CHECK_THROWS_WITH(flat.workspace_bytes(shape), Catch::Contains("has no run-time shape"));
  b.release(in);
  b.release(out);
}
