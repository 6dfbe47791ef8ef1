// P_device_tile_ticket and P_device_tile_prefix (templates/common/
// device_tile_prefix.h) on a CUDA GPU, called from the test kernel of
// tile_prefix_specs.h: the 4-, 8- and 16-byte scans take the three status
// layouts of the CUDA look-back; one, two and many tiles, random data (the
// seed printed on failure), outputs poisoned, launch after launch on one
// workspace (garbage before the first, zeroed before each launch of more
// than one tile), and once more with SCANGEN_TEST_SLEEP, which makes some
// tiles publish late. Exits 4 (skipped) where there is no GPU.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "tile_prefix_specs.h"

namespace {

namespace tp = scangen::test::tile_prefix;
using scangen::test::cuda::driver;
using scangen::test::cuda::Module;

using scangen::test::cuda::DeviceBuffer;

template <typename T>
std::vector<T> read(const DeviceBuffer& b, size_t count) {
  std::vector<T> v(count);
  if (count > 0) CU_CHECK(driver().cuMemcpyDtoH(v.data(), b.p, count * sizeof(T)));
  return v;
}

// One launch of test kernel `k` over n random elements; the first mismatch, or empty.
template <typename T>
std::string launch_and_check(const Module& m, const std::string& P, const tp::TestKernel& k,
                             const DeviceBuffer& workspace, size_t ws_bytes, uint64_t n, std::mt19937_64& rng) {
  const uint64_t tiles = tp::tiles_of(n);
  std::vector<T> in(n);
  for (T& v : in) v = tp::random_value<T>(rng);
  DeviceBuffer d_in(n * sizeof(T)), d_inc(n * sizeof(T)), d_texc(tiles * sizeof(T)), d_tinc(tiles * sizeof(T));
  if (n > 0) CU_CHECK(driver().cuMemcpyHtoD(d_in.p, in.data(), n * sizeof(T)));
  if (n > 0) CU_CHECK(driver().cuMemsetD8(d_inc.p, 0xAB, n * sizeof(T)));
  CU_CHECK(driver().cuMemsetD8(d_texc.p, 0xAB, tiles * sizeof(T)));
  CU_CHECK(driver().cuMemsetD8(d_tinc.p, 0xAB, tiles * sizeof(T)));
  if (tiles > 1) CU_CHECK(driver().cuMemsetD8(workspace.p, 0, ws_bytes));  // the one rule of the workspace
  unsigned n32 = static_cast<unsigned>(n), tiles32 = static_cast<unsigned>(tiles);
  CUdeviceptr ws = workspace.p;
  void* args[] = {&d_in.p, &d_inc.p, &d_texc.p, &d_tinc.p, &n32, &tiles32, &ws};
  CU_CHECK(driver().cuLaunchKernel(m.function(P + k.suffix), tiles32, 1, 1, static_cast<unsigned>(k.threads), 1, 1, 0,
                                   nullptr, args, nullptr));
  CU_CHECK(driver().cuCtxSynchronize());
  return tp::compare(in, read<T>(d_inc, n), read<T>(d_texc, tiles), read<T>(d_tinc, tiles));
}

template <typename T>
void check_scan(const Module& m, const scangen::generator::Plan& plan, uint64_t seed) {
  const std::string& P = plan.spec.name;
  uint64_t most = 1;
  for (uint64_t n : tp::sizes()) most = std::max(most, tp::tiles_of(n));
  DeviceBuffer workspace(16 + most * plan.status_bytes);
  CU_CHECK(driver().cuMemsetD8(workspace.p, 0x5C, 16 + most * plan.status_bytes));  // garbage
  std::mt19937_64 rng(seed);
  for (uint64_t n : tp::sizes()) {
    const uint64_t tiles = tp::tiles_of(n);
    for (const tp::TestKernel& k : tp::test_kernels()) {
      INFO(P << k.suffix << ", n = " << n << " (" << tiles << " tiles), seed " << seed
             << " (SCANGEN_TEST_SEED replays it)");
      CHECK(launch_and_check<T>(m, P, k, workspace, 16 + tiles * plan.status_bytes, n, rng) == "");
    }
  }
}

void run_all(const std::string& prefix) {
  scangen::dsl::Document doc = scangen::dsl::load("tile_prefix.scan", tp::specs());
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  std::vector<scangen::generator::Plan> plans;
  std::string kernels;
  for (const scangen::dsl::Spec& spec : doc.specs()) {
    plans.push_back(scangen::generator::make_plan(spec, scangen::generator::Backend::Cuda));
    kernels += tp::test_kernel(spec.name, true);
  }
  REQUIRE(plans.size() == 3);
  const Module m(prefix + scangen::generator::emit(plans) + kernels, "tile_prefix.cu");
  std::cout << "GPU: " << driver().name << "\n";
  const uint64_t seed = scangen::test::test_seed();
  check_scan<int32_t>(m, plans[0], seed);
  check_scan<tp::Aff>(m, plans[1], seed + 1);
  check_scan<tp::Mat>(m, plans[2], seed + 2);
}

}  // namespace

TEST_CASE("CUDA: device_tile_prefix from a kernel of its own, 1, 2 and many tiles, workspace reused",
          "[gpu][device][tile_prefix]") {
  run_all("");
}

TEST_CASE("CUDA: device_tile_prefix with tiles that publish late (SCANGEN_TEST_SLEEP)", "[gpu][device][tile_prefix]") {
  run_all("#define SCANGEN_TEST_SLEEP 5\n");
}
