// The kernel ABI is written once: the Plan lists every kernel's parameters
// with their roles, and the runtime and the host wrappers bind arguments from
// that list. These tests hold the templates to it: every kernel of every
// sweep case (warp, block and device level, both device algorithms, every
// mode, aggregates, running totals, u8 -> u32 input, the segmented scans, fused outputs, input arrays) is emitted for
// CUDA and OpenCL, the text is run through the C preprocessor (the template's #if choices resolved), and the kernel's
// parameter names, in order, must be the Plan's.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "scan_sweep.h"
#include "segmented_sweep.h"
#include "scangen/generator/emit.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/plan.h"

namespace {

namespace fs = std::filesystem;
using scangen::generator::Backend;
using scangen::generator::Plan;

// `text` after the host compiler's preprocessor (SCANGEN_TEST_CXX).
std::string preprocess(const std::string& text, const std::string& defines) {
  const fs::path dir = fs::temp_directory_path();
  const fs::path in = dir / ("scangen-abi-" + std::to_string(::getpid()) + ".c");
  const fs::path out = dir / ("scangen-abi-" + std::to_string(::getpid()) + ".i");
  std::ofstream(in) << text;
  const std::string command =
      std::string(SCANGEN_TEST_CXX) + " -E -P -x c " + defines + " " + in.string() + " -o " + out.string() + " 2>&1";
  const int rc = std::system(command.c_str());
  std::stringstream ss;
  ss << std::ifstream(out).rdbuf();
  fs::remove(in);
  fs::remove(out);
  INFO("command: " << command);
  REQUIRE(rc == 0);
  return ss.str();
}

// The parameter names of the definition of `kernel` in preprocessed text.
std::vector<std::string> parameter_names(const std::string& text, const std::string& kernel) {
  const std::regex definition("void\\s+" + kernel + "\\s*\\(([^)]*)\\)\\s*\\{");
  std::smatch m;
  if (!std::regex_search(text, m, definition)) return {"<no definition of " + kernel + ">"};
  std::vector<std::string> names;
  std::stringstream list(m[1].str());
  std::string param;
  const std::regex last_word("([A-Za-z_][A-Za-z_0-9]*)\\s*$");
  while (std::getline(list, param, ',')) {
    std::smatch w;
    names.push_back(std::regex_search(param, w, last_word) ? w[1].str() : "<" + param + ">");
  }
  return names;
}

// The kernels of shape = rows and shape = strided, every mode, with and
// without aggregates and init.
std::vector<scangen::dsl::Spec> shape_specs() {
  std::vector<scangen::dsl::Spec> specs;
  for (const char* shape : {"rows", "strided"})
    for (const char* mode : {"inclusive", "exclusive", "both"})
      for (const char* extra : {"", " outputs = aggregate; init = 3;"}) {
        const std::string text = std::string("scan s { type = i32; input = u8; op = add; level = device; shape = ") +
                                 shape + "; mode = " + mode + ";" + extra + " }";
        scangen::dsl::Document doc = scangen::dsl::load("shape.scan", text);
        INFO(doc.diagnostics().render());
        REQUIRE(doc.ok());
        specs.push_back(doc.specs().at(0));
      }
  return specs;
}

// Fused outputs (scatter): every mode, with and without the aggregate, with
// and without two named outputs (scatter.NAME: a parameter each, in order).
std::vector<scangen::dsl::Spec> scatter_specs() {
  std::vector<scangen::dsl::Spec> specs;
  const std::string named =
      " scatter_at.lengths(x, i) = i; scatter.lengths(x) = next(x); scatter_at.heads(x, i) = i;"
      " scatter_type.heads = u8; scatter.heads(x) = x != prev(x) ? 1 : 0;";
  for (const char* mode : {"inclusive", "exclusive", "both"})
    for (const std::string& extra :
         std::vector<std::string>{"", " outputs = aggregate;", named, " outputs = aggregate;" + named}) {
      const std::string text = std::string("scan s { type = u32; input = i16; convert(x) = x > 0 ? 1 : 0; op = add; ") +
                               "scatter_if(x) = x > 0; scatter_at(x, i, e) = u64(e); scatter(x) = x; mode = " + mode +
                               ";" + extra + " }";
      scangen::dsl::Document doc = scangen::dsl::load("scatter.scan", text);
      INFO(doc.diagnostics().render());
      REQUIRE(doc.ok());
      specs.push_back(doc.specs().at(0));
    }
  return specs;
}

// Input arrays: several (struct of arrays, with the index) and none, every mode.
std::vector<scangen::dsl::Spec> input_array_specs() {
  std::vector<scangen::dsl::Spec> specs;
  for (const char* mode : {"inclusive", "exclusive", "both"})
    for (const char* input : {"input = u8, f32, u64; convert(a, b, c, i) = u32(a) + u32(b) + u32(c) + u32(i);",
                              "input = none; convert(i) = u32(i);"}) {
      const std::string text =
          std::string("scan s { type = u32; op = add; ") + input + " mode = " + mode + "; outputs = aggregate; }";
      scangen::dsl::Document doc = scangen::dsl::load("arrays.scan", text);
      INFO(doc.diagnostics().render());
      REQUIRE(doc.ok());
      specs.push_back(doc.specs().at(0));
    }
  return specs;
}

void check_backend(Backend backend) {
  std::vector<scangen::test::ScanCase> cases = scangen::test::scan_cases(backend);
  for (scangen::test::ScanCase& c : scangen::test::device_cases(backend)) cases.push_back(std::move(c));
  for (scangen::test::ScanCase& c : scangen::test::segmented_cases(backend)) cases.push_back(std::move(c));
  for (const scangen::dsl::Spec& s : shape_specs()) cases.push_back(scangen::test::ScanCase{s, "int"});
  for (const scangen::dsl::Spec& s : scatter_specs()) cases.push_back(scangen::test::ScanCase{s, "int"});
  for (const scangen::dsl::Spec& s : input_array_specs()) cases.push_back(scangen::test::ScanCase{s, "int"});
  int kernels = 0;
  for (const scangen::test::ScanCase& c : cases) {
    const Plan plan = scangen::generator::make_plan(c.spec, backend);
    const std::string text = preprocess(scangen::generator::emit(plan), "-D__CUDACC_RTC__");
    for (const scangen::generator::Kernel& k : plan.kernels) {
      std::vector<std::string> want;
      for (const scangen::generator::KernelParam& p : k.params) want.push_back(p.name);
      INFO("scan:\n" << c.spec.to_string() << "kernel " << k.name);
      CHECK(parameter_names(text, k.name) == want);
      ++kernels;
    }
  }
  CHECK(kernels > 100);
}

}  // namespace

TEST_CASE("CUDA kernels declare the parameters the Plan lists, in its order", "[unit][abi]") {
  check_backend(Backend::Cuda);
}
TEST_CASE("OpenCL kernels declare the parameters the Plan lists, in its order", "[unit][abi]") {
  check_backend(Backend::OpenCL);
}
