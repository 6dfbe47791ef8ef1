// The fused-output specs compiled by NVRTC for sm_90 (test_select_cuda.cpp,
// test_rle_cuda.cpp): the table's plan, and the one whose tile inputs stay in
// shared memory (Plan::raw_tile) where the spec has one, each without a warning.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "nvrtc_program.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"

namespace scangen::test::runtime {

// The raw_tile plans of `text` compiled (0 or 1).
inline int compile_fused_for_sm90(const std::string& file, const std::string& text) {
  scangen::dsl::Document doc = scangen::dsl::load(file, text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  const scangen::dsl::Spec& spec = doc.specs().at(0);
  int raw_tiles = 0;
  for (const char* tuning : {"", "raw_tile=1"}) {
    scangen::generator::Target target{scangen::generator::Backend::Cuda, 90};
    target.tuning = tuning;
    const scangen::generator::Plan plan = scangen::generator::make_plan(spec, target);
    if (*tuning && !plan.raw_tile) continue;
    const scangen::nvrtc_support::Compiled c =
        scangen::nvrtc_support::compile(scangen::generator::emit(plan), spec.name + ".cu", "sm_90");
    INFO(spec.name << " " << tuning << "\n" << c.log << c.builtins);
    REQUIRE(c.status == NVRTC_SUCCESS);
    CHECK(c.log.find("warning") == std::string::npos);
    raw_tiles += plan.raw_tile ? 1 : 0;
  }
  return raw_tiles;
}

}  // namespace scangen::test::runtime
