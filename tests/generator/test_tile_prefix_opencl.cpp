// P_device_tile_ticket and P_device_tile_prefix (templates/common/
// device_tile_prefix.h) on an OpenCL device (PoCL in CI), called from a test
// kernel of the tests' own: one, two and many tiles, partial last tiles, a
// sum and two operators that do not commute, random data (the seed printed on
// failure), outputs poisoned, and launch after launch on one workspace (zeroed
// before each launch of more than one tile, never for one tile) against
// loops on the CPU.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "opencl_support.h"
#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "tile_prefix_specs.h"

namespace {

namespace cl = scangen::test::cl;
namespace tp = scangen::test::tile_prefix;
using scangen::generator::Backend;

constexpr unsigned char kPoison = 0xAB;

cl::Buffer buffer(cl::Session& s, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl::Buffer b(clCreateBuffer(s.context(), CL_MEM_READ_WRITE, bytes > 0 ? bytes : 1, nullptr, &err));
  CL_CHECK(err);
  return b;
}

void fill(cl::Session& s, const cl::Buffer& b, unsigned char byte, size_t bytes) {
  CL_CHECK(clEnqueueFillBuffer(s.queue(), b.get(), &byte, 1, 0, bytes, 0, nullptr, nullptr));
}

template <typename T>
std::vector<T> read(cl::Session& s, const cl::Buffer& b, size_t count) {
  std::vector<T> v(count);
  if (count > 0)
    CL_CHECK(clEnqueueReadBuffer(s.queue(), b.get(), CL_TRUE, 0, count * sizeof(T), v.data(), 0, nullptr, nullptr));
  return v;
}

// One launch of test kernel `k` over n random elements on `workspace`; the
// description of the first mismatch, or empty.
template <typename T>
std::string launch_and_check(cl::Session& s, const std::string& P, const tp::TestKernel& tk,
                             const cl::Buffer& workspace, size_t ws_bytes, uint64_t n, std::mt19937_64& rng) {
  const uint64_t tiles = tp::tiles_of(n);
  std::vector<T> in(n);
  for (T& v : in) v = tp::random_value<T>(rng);
  cl::Buffer d_in = buffer(s, n * sizeof(T)), d_inc = buffer(s, n * sizeof(T));
  cl::Buffer d_texc = buffer(s, tiles * sizeof(T)), d_tinc = buffer(s, tiles * sizeof(T));
  if (n > 0)
    CL_CHECK(clEnqueueWriteBuffer(s.queue(), d_in.get(), CL_TRUE, 0, n * sizeof(T), in.data(), 0, nullptr, nullptr));
  if (n > 0) fill(s, d_inc, kPoison, n * sizeof(T));
  fill(s, d_texc, kPoison, tiles * sizeof(T));
  fill(s, d_tinc, kPoison, tiles * sizeof(T));
  if (tiles > 1) fill(s, workspace, 0, ws_bytes);  // the one rule of the workspace
  cl::Kernel k = s.kernel(P + tk.suffix);
  const cl_uint n32 = static_cast<cl_uint>(n), tiles32 = static_cast<cl_uint>(tiles);
  const cl_mem args[] = {d_in.get(), d_inc.get(), d_texc.get(), d_tinc.get()};
  for (cl_uint i = 0; i < 4; ++i) CL_CHECK(clSetKernelArg(k.get(), i, sizeof(cl_mem), &args[i]));
  CL_CHECK(clSetKernelArg(k.get(), 4, sizeof n32, &n32));
  CL_CHECK(clSetKernelArg(k.get(), 5, sizeof tiles32, &tiles32));
  const cl_mem ws = workspace.get();
  CL_CHECK(clSetKernelArg(k.get(), 6, sizeof ws, &ws));
  const size_t local = static_cast<size_t>(tk.threads), global = tiles * local;
  CL_CHECK(clEnqueueNDRangeKernel(s.queue(), k.get(), 1, nullptr, &global, &local, 0, nullptr, nullptr));
  const std::vector<T> inc = read<T>(s, d_inc, n), texc = read<T>(s, d_texc, tiles), tinc = read<T>(s, d_tinc, tiles);
  return tp::compare(in, inc, texc, tinc);
}

// Launches over each of `sizes` in turn on one workspace, poisoned first.
template <typename T>
void check_scan(cl::Session& s, const scangen::generator::Plan& plan, const std::vector<uint64_t>& sizes,
                uint64_t seed) {
  const std::string& P = plan.spec.name;
  uint64_t most = 1;
  for (uint64_t n : sizes) most = std::max(most, tp::tiles_of(n));
  REQUIRE(plan.tile == tp::kTile);
  REQUIRE(plan.tile_prefix);
  cl::Buffer workspace = buffer(s, 16 + most * plan.status_bytes);
  fill(s, workspace, 0x5C, 16 + most * plan.status_bytes);  // garbage: a launch of one tile needs no zeroing
  std::mt19937_64 rng(seed);
  for (uint64_t n : sizes) {
    const uint64_t tiles = tp::tiles_of(n);
    const size_t ws_bytes = 16 + tiles * plan.status_bytes;
    // The host wrappers' P_device_tile_workspace_bytes: the scan's workspace for as many elements.
    REQUIRE(ws_bytes == scangen::generator::workspace_bytes(plan, tiles * plan.tile));
    for (const tp::TestKernel& k : tp::test_kernels()) {
      INFO(P << k.suffix << ", n = " << n << " (" << tiles << " tiles), seed " << seed
             << " (SCANGEN_TEST_SEED replays it)");
      CHECK(launch_and_check<T>(s, P, k, workspace, ws_bytes, n, rng) == "");
    }
  }
}

}  // namespace

TEST_CASE("OpenCL: device_tile_prefix from a kernel of its own, 1, 2 and many tiles, workspace reused",
          "[opencl][device][tile_prefix]") {
  cl::Device device = cl::device_or_skip();
  if (!device.id) return;
  scangen::dsl::Document doc = scangen::dsl::load("tile_prefix.scan", tp::specs());
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  std::vector<scangen::generator::Plan> plans;
  std::string kernels;
  for (const scangen::dsl::Spec& spec : doc.specs()) {
    plans.push_back(scangen::generator::make_plan(spec, Backend::OpenCL));
    kernels += tp::test_kernel(spec.name, false);
  }
  REQUIRE(plans.size() == 3);
  cl::Session s(device);
  s.build(scangen::generator::emit(plans) + kernels, scangen::generator::compile_options(Backend::OpenCL),
          "tile_prefix.cl");
  const uint64_t seed = scangen::test::test_seed();
  const std::vector<uint64_t> sizes = tp::sizes();
  check_scan<int32_t>(s, plans[0], sizes, seed);
  check_scan<tp::Aff>(s, plans[1], sizes, seed + 1);
  check_scan<tp::Mat>(s, plans[2], sizes, seed + 2);
}
