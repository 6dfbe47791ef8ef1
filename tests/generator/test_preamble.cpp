// The text of the operator preamble: what can be checked without a compiler.
#include <algorithm>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "operator_sweep.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/preamble.h"

namespace {

using scangen::generator::Backend;

std::vector<scangen::test::SweepSpec> all_specs() {
  auto specs = scangen::test::example_specs();
  auto more = scangen::test::coverage_specs();
  specs.insert(specs.end(), more.begin(), more.end());
  return specs;
}

scangen::dsl::Spec load_one(const std::string& text) {
  scangen::dsl::Document doc = scangen::dsl::load("t.scan", text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  return doc.specs().at(0);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("backends have names and source extensions", "[generator]") {
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    CHECK((scangen::generator::backend_from_name(scangen::generator::to_string(b)) == b));
  }
  CHECK(std::string(scangen::generator::to_string(Backend::OpenCL)) == "opencl");
  CHECK(std::string(scangen::generator::source_extension(Backend::Cuda)) == ".cu");
  CHECK_FALSE(scangen::generator::backend_from_name("metal"));
  CHECK((scangen::generator::backend_for(scangen::dsl::Target::OpenCL) == Backend::OpenCL));
}

TEST_CASE("preambles include nothing, map operator lines to the .scan file and back", "[generator]") {
  const int first_line = 10;
  for (const auto& s : all_specs()) {
    for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
      const std::string text = scangen::generator::emit_preamble(s.spec, b, {"out.src", first_line});
      INFO(s.spec.name << " for " << scangen::generator::to_string(b) << ":\n" << text);
      CHECK(text.find("#include") == std::string::npos);
      CHECK(text == scangen::generator::emit_preamble(s.spec, b, {"out.src", first_line}));  // deterministic
      const std::vector<std::string> lines = lines_of(text);
      // The combine's first statement is mapped to its line of the .scan
      // file: the combine's own line, or a later one for a { ... } body.
      const auto signature = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) {
        return l.find(" " + s.spec.name + "_combine(") != std::string::npos;
      });
      REQUIRE(signature + 1 < lines.end());
      const std::string prefix = "#line ", file = " \"" + s.spec.file + "\"";
      const std::string& directive = *(signature + 1);
      REQUIRE(directive.rfind(prefix, 0) == 0);
      REQUIRE(directive.size() > file.size());
      CHECK(directive.compare(directive.size() - file.size(), file.size(), file) == 0);
      CHECK(std::stoi(directive.substr(prefix.size())) >= s.spec.combine.loc.line);
      if (s.spec.combine.body->kind != scangen::dsl::ExprKind::Let)
        CHECK(std::stoi(directive.substr(prefix.size())) <= s.spec.combine.body->loc.line);
      int back = 0;
      for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].rfind("#line ", 0) != 0 || lines[i].find("\"out.src\"") == std::string::npos) continue;
        // The directive is line first_line + i; it numbers the next line.
        CHECK(lines[i] == "#line " + std::to_string(first_line + static_cast<int>(i) + 1) + " \"out.src\"");
        ++back;
      }
      CHECK(back >= 2);  // after combine and identity at least
    }
  }
}

TEST_CASE("preambles define the documented names", "[generator]") {
  const scangen::dsl::Spec spec = load_one("scan s { type = u32; input = u8; op = add; }");
  const auto names = scangen::generator::preamble_names(spec);
  CHECK(names.value_type == "s_T");
  CHECK(names.input_type == "s_In");
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    const std::string text = scangen::generator::emit_preamble(spec, b);
    for (const std::string& n :
         {names.value_type, names.input_type, names.combine, names.identity, names.init, names.convert})
      CHECK((text.find(" " + n + "(") != std::string::npos || text.find(" " + n + ";") != std::string::npos));
    // Only the helpers the operator needs.
    CHECK(text.find("scangen_f16_to_f32") == std::string::npos);
    CHECK(text.find("cl_khr_fp64 : enable") == std::string::npos);
  }
}

TEST_CASE("literals are spelled so that each backend reads exactly the value", "[generator]") {
  const scangen::dsl::Spec spec = load_one(
      "type L { a: i64, b: i32, c: u64, d: f32, e: f64, f: f16, g: f32 }\n"
      "scan lits { type = L; combine(x, y) = L { y.a, y.b, y.c, y.d, y.e, y.f * 0.1, y.g };\n"
      "  identity = L { i64.min, i32.min, u64.max, -inf, nan, 0.1, 1e-40 }; }\n");
  const std::string cuda = scangen::generator::emit_preamble(spec, Backend::Cuda);
  const std::string cl = scangen::generator::emit_preamble(spec, Backend::OpenCL);
  CHECK(cuda.find("((scangen_i64)(-9223372036854775807LL - 1))") != std::string::npos);
  CHECK(cl.find("((scangen_i64)(-9223372036854775807L - 1))") != std::string::npos);
  CHECK(cuda.find("((scangen_i32)(-2147483647 - 1))") != std::string::npos);
  CHECK(cuda.find("((scangen_u64)18446744073709551615ULL)") != std::string::npos);
  CHECK(cl.find("((scangen_u64)18446744073709551615UL)") != std::string::npos);
  CHECK(cuda.find("__uint_as_float(0xff800000U)") != std::string::npos);   // -inf
  CHECK(cl.find("as_double(0x7ff8000000000000UL)") != std::string::npos);  // nan
  CHECK(cuda.find("0x1.998p-4f") != std::string::npos);                    // 0.1 rounded to f16, computed in float
  CHECK(cuda.find("((scangen_f16)11878U)") != std::string::npos);          // and stored: its bits, 0x2e66
  CHECK(cl.find("as_float(0x000116c2U)") != std::string::npos);            // a subnormal f32, by its bits
}

TEST_CASE("names that C, CUDA or OpenCL reserve are renamed", "[generator]") {
  for (const auto& s : scangen::test::coverage_specs()) {
    if (s.spec.name != "keyword_names") continue;
    const std::string text = scangen::generator::emit_preamble(s.spec, Backend::OpenCL);
    INFO(text);
    for (const char* n : {"int_;", "float_;", "local_;", "and_;", "NAN_;", "float4_;", "scangen_i32_;"})
      CHECK(text.find(n) != std::string::npos);
    CHECK(text.find("keyword_names_combine(keyword_names_T global_, keyword_names_T half_)") != std::string::npos);
    CHECK(text.find("const bool not_ =") != std::string::npos);
    return;
  }
  FAIL("keyword_names is not among the coverage specs");
}
