// The templates' #if decided at emit time (generator/src/conditionals.h):
// what the known macros decide goes, what the device compiler decides stays.
#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "conditionals.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"

namespace {

using scangen::generator::detail::Conditionals;

std::string resolved(const std::string& text, const std::vector<std::pair<std::string, std::string>>& constants) {
  Conditionals c;
  c.define(constants);
  return c.resolve(text);
}

}  // namespace

TEST_CASE("conditionals: the plan's constants decide an #if, its taken branch stays alone", "[unit][conditionals]") {
  const std::string text =
      "a\n#if SG_X == 2\nb\n#elif SG_Y\nc\n#else\nd\n#endif\ne\n#ifdef SG_Z\nf\n#endif\n#ifndef SG_Z\ng\n#endif\n";
  CHECK(resolved(text, {{"SG_X", "2"}, {"SG_Y", "1"}}) == "a\nb\ne\ng\n");
  CHECK(resolved(text, {{"SG_X", "(1 + 0)"}, {"SG_Y", "1"}}) == "a\nc\ne\ng\n");
  CHECK(resolved(text, {{"SG_X", "3"}, {"SG_Y", "0"}, {"SG_Z", ""}}) == "a\nd\ne\nf\n");
  // An SG_ name never defined reads as 0, as the preprocessor reads it.
  CHECK(resolved("#if SG_NONE\nx\n#else\ny\n#endif\n", {}) == "y\n");
  // Nested chains inside a dropped branch go with it; inside a taken one they are decided too.
  CHECK(resolved("#if SG_A\n#if SG_B\nx\n#endif\n#else\n#if SG_B\ny\n#else\nz\n#endif\n#endif\n",
                 {{"SG_A", "1"}, {"SG_B", "0"}}) == "");
  CHECK(resolved("#if SG_A\n#if SG_B\nx\n#endif\n#else\n#if SG_B\ny\n#else\nz\n#endif\n#endif\n",
                 {{"SG_A", "0"}, {"SG_B", "0"}}) == "z\n");
  // Comments and continuation lines in a directive.
  CHECK(resolved("#if SG_A /* on */ && \\\n    SG_B // both\nx\n#endif\n", {{"SG_A", "1"}, {"SG_B", "1"}}) == "x\n");
}

TEST_CASE("conditionals: what the device compiler knows stays, and so do the macros it chooses",
          "[unit][conditionals]") {
  // __CUDA_ARCH__ is the compiler's: the chain stays, its branches decided inside.
  const std::string arch = "#ifdef __CUDA_ARCH__\n#if SG_A\nx\n#endif\ny\n#endif\n";
  CHECK(resolved(arch, {{"SG_A", "0"}}) == "#ifdef __CUDA_ARCH__\ny\n#endif\n");
  // A known side decides && and || alone; otherwise the condition stays whole.
  CHECK(resolved("#if SG_A && __CUDA_ARCH__ >= 900\nx\n#endif\n", {{"SG_A", "0"}}) == "");
  CHECK(resolved("#if SG_A && __CUDA_ARCH__ >= 900\nx\n#endif\n", {{"SG_A", "1"}}) ==
        "#if SG_A && __CUDA_ARCH__ >= 900\nx\n#endif\n");
  CHECK(resolved("#if SG_A || defined(__OPENCL_VERSION__)\nx\n#endif\n", {{"SG_A", "1"}}) == "x\n");
  // A macro defined under the compiler's condition is the compiler's from there on.
  Conditionals c;
  c.read("#ifdef __OPENCL_VERSION__\n#define SG_W 1\n#else\n#define SG_W 0\n#endif\n#define SG_V 3\n");
  CHECK(c.resolve("#if SG_W\nx\n#endif\n") == "#if SG_W\nx\n#endif\n");
  CHECK(c.resolve("#if SG_V == 3\nx\n#endif\n") == "x\n");
  // Defined and undefined by the text itself, in order; a function-like macro is defined, with no value.
  CHECK(c.resolve("#define SG_U 1\n#if SG_U\nx\n#endif\n#undef SG_U\n#if SG_U\ny\n#endif\n") ==
        "#define SG_U 1\nx\n#undef SG_U\n");
  CHECK(c.resolve("#define SG_F(k) (k)\n#ifdef SG_F\nx\n#endif\n#if SG_F(1)\ny\n#endif\n") ==
        "#define SG_F(k) (k)\nx\n#if SG_F(1)\ny\n#endif\n");
  // Constants undefined after their part read as undefined.
  c.define({{"SG_P", "1"}});
  c.undefine({{"SG_P", "1"}});
  CHECK(c.resolve("#ifdef SG_P\nx\n#endif\n") == "");
}

TEST_CASE("conditionals: an emitted scan holds no #if on its plan's constants", "[unit][conditionals]") {
  const std::regex plan_if(R"(#\s*(if|elif|ifdef|ifndef)\b[^\n]*\bSG_)");
  for (const char* text : {"scan s { type = i32; op = add; level = device; segments = offsets; }",
                           "scan s { type = f32; op = max; level = device; algorithm = reduce_then_scan; }",
                           "scan s { type = i32; op = add; level = block; }"}) {
    CAPTURE(text);
    scangen::dsl::Document doc = scangen::dsl::load("t.scan", text);
    REQUIRE(doc.ok());
    for (const auto backend : {scangen::generator::Backend::Cuda, scangen::generator::Backend::OpenCL}) {
      const scangen::generator::Target target{backend, backend == scangen::generator::Backend::Cuda ? 90 : 0};
      const std::string source = scangen::generator::emit(scangen::generator::make_plan(doc.specs().at(0), target));
      // What remains reads the compiler's own macros: the architecture, and the dialect's choices by
      // device (CUDA's shuffles and the look-back's PDL and status operations by architecture; OpenCL's
      // sleep and warp look-back by platform).
      std::sregex_iterator it(source.begin(), source.end(), plan_if), end;
      for (; it != end; ++it) {
        const size_t at = static_cast<size_t>(it->position());
        const std::string line = source.substr(at, source.find('\n', at) - at);
        CAPTURE(line);
        CHECK((line.find("__CUDA_ARCH__") != std::string::npos || line.find("__OPENCL") != std::string::npos ||
               line.find("SG_SHUFFLES") != std::string::npos || line.find("SG_LB_PDL") != std::string::npos ||
               line.find("SG_LB_STATUS_OPS") != std::string::npos || line.find("SG_CAN_SLEEP") != std::string::npos ||
               line.find("SG_WARP_LOOKBACK") != std::string::npos));
      }
    }
  }
}
