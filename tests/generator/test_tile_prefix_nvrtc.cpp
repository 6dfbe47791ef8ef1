// P_device_tile_ticket and P_device_tile_prefix called from a kernel of the
// tests' own (tile_prefix_specs.h): the CUDA text of the three scans and
// their test kernels compiles with NVRTC for sm_90 (a cubin; no GPU needed)
// without an error or a warning.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cuda_support.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "tile_prefix_specs.h"

TEST_CASE("NVRTC compiles device_tile_prefix called from a kernel of its own", "[nvrtc][device][tile_prefix]") {
  scangen::dsl::Document doc = scangen::dsl::load("tile_prefix.scan", scangen::test::tile_prefix::specs());
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  std::vector<scangen::generator::Plan> plans;
  std::string kernels;
  for (const scangen::dsl::Spec& spec : doc.specs()) {
    plans.push_back(scangen::generator::make_plan(spec, scangen::generator::Backend::Cuda));
    CHECK(plans.back().tile_prefix);
    kernels += scangen::test::tile_prefix::test_kernel(spec.name, true);
  }
  REQUIRE(plans.size() == 3);
  // As the GPU test compiles it: as it is, and with tiles that publish late.
  for (const char* prefix : {"", "#define SCANGEN_TEST_SLEEP 5\n"}) {
    const scangen::nvrtc_support::Compiled c = scangen::test::cuda::nvrtc_compile(
        prefix + scangen::generator::emit(plans) + kernels, "tile_prefix.cu", "sm_90");
    INFO("NVRTC log:\n" << c.log);
    CHECK(!c.code.empty());
    CHECK(c.log.find("warning") == std::string::npos);
  }
}
