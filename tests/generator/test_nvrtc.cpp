// The operator preamble of every sweep spec, with its test kernels, compiles
// with NVRTC (no GPU needed) without an error or a warning; several preambles
// share a translation unit; #line directives point compile errors at the
// .scan line of the operator and, after it, back at the generated source.
#include "nvrtc_program.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/preamble.h"

namespace {

using scangen::generator::Backend;

struct NvrtcResult {
  bool ok = false;
  std::string log;
};

// Compiles `source` (named `name`) for compute_90; the log, and whether it compiled.
NvrtcResult compile(const std::string& source, const std::string& name) {
  scangen::nvrtc_support::Compiled c;
  try {
    c = scangen::nvrtc_support::compile(source, name, "compute_90");
  } catch (const scangen::nvrtc_support::Error& e) {
    FAIL(e.what());
  }
  INFO(c.builtins);  // where NVRTC's builtins library could not be loaded, why
  NvrtcResult out{c.status == NVRTC_SUCCESS, c.log};
  if (out.ok) CHECK(!c.code.empty());
  return out;
}

void require_clean_compile(const std::string& source, const std::string& name) {
  NvrtcResult r = compile(source, name);
  INFO("source:\n" << source << "\nNVRTC log:\n" << r.log);
  REQUIRE(r.ok);
  CHECK(r.log.find("warning") == std::string::npos);
}

void compile_each(const std::vector<scangen::test::SweepSpec>& specs) {
  for (const auto& s : specs) {
    SECTION(s.spec.name) {
      require_clean_compile(scangen::test::test_program(s.spec, Backend::Cuda), s.spec.name + ".cu");
    }
  }
}

scangen::dsl::Spec load_one(const std::string& name, const std::string& text) {
  scangen::dsl::Document doc = scangen::dsl::load(name, text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  return doc.specs().at(0);
}

}  // namespace

TEST_CASE("every example's preamble compiles with NVRTC without warnings", "[nvrtc]") {
  compile_each(scangen::test::example_specs());
}

TEST_CASE("every coverage spec's preamble compiles with NVRTC without warnings", "[nvrtc]") {
  compile_each(scangen::test::coverage_specs());
}

TEST_CASE("all preambles compile together in one NVRTC program", "[nvrtc]") {
  std::string source;
  for (const auto& s : scangen::test::example_specs()) source += scangen::test::test_program(s.spec, Backend::Cuda);
  for (const auto& s : scangen::test::coverage_specs()) source += scangen::test::test_program(s.spec, Backend::Cuda);
  require_clean_compile(source, "all.cu");
}

TEST_CASE("NVRTC errors in an operator point at its .scan line, later ones at the generated source", "[nvrtc]") {
  const std::string text =
      "type P { a: i32, b: i32 }\n"
      "scan lines {\n"
      "  type = P;\n"
      "  combine(x, y) {\n"
      "    let s: i32 = x.a * y.a;\n"
      "    return P { a: s, b: x.b + y.b };\n"
      "  }\n"
      "  identity = P { 1, 0 };\n"
      "}\n";
  const scangen::dsl::Spec spec = load_one("lines.scan", text);
  const std::string before = "// line 1\n// line 2\n";  // the preamble starts at line 3
  const std::string preamble = scangen::generator::emit_preamble(spec, Backend::Cuda, {"generated.cu", 3});
  const std::string after = "#error after the preamble\n";
  const long after_line = 3 + std::count(preamble.begin(), preamble.end(), '\n');

  SECTION("an error after the preamble is reported at its line of the generated source") {
    NvrtcResult r = compile(before + preamble + after, "generated.cu");
    INFO(r.log);
    REQUIRE_FALSE(r.ok);
    CHECK(r.log.find("generated.cu(" + std::to_string(after_line) + ")") != std::string::npos);
  }
  SECTION("an error in an operator is reported at its .scan line") {
    // With its guard predefined, the helper that only line 5 (x.a * y.a) uses
    // is left out, so line 5 calls an undefined function.
    NvrtcResult r = compile(before + "#define SCANGEN_HAVE_scangen_mul_i32\n" + preamble, "generated.cu");
    INFO(r.log);
    REQUIRE_FALSE(r.ok);
    CHECK(r.log.find("lines.scan(5): error") != std::string::npos);
    CHECK(r.log.find("lines.scan(6)") == std::string::npos);
  }
}
