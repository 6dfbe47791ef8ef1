// The one template mechanism (generator/src/text.h) on small texts, and the
// generated host wrappers and built-ins: no hole left unfilled.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/host.h"
#include "scangen/generator/opencl_builtins.h"
#include "scangen/generator/plan.h"
#include "text.h"

namespace {

using scangen::generator::detail::banner;
using scangen::generator::detail::fill;
using scangen::generator::detail::Holes;

}  // namespace

TEST_CASE("text: a hole is a whole word with a value, other words stay", "[unit]") {
  Holes h;
  h.set("SG_T", "P_T").set("SG_N", "");
  CHECK(fill("SG_T x = (SG_T)y; SG_TX SG_T_y xSG_T SG_U SG_N.", h) == "P_T x = (P_T)y; SG_TX SG_T_y xSG_T SG_U .");
  CHECK(fill("", h).empty());
}

TEST_CASE("text: SG_NAME(word) is the prefix and the word", "[unit]") {
  Holes h;
  CHECK(fill("SG_NAME(inclusive)(x)", h) == "SG_NAME(inclusive)(x)");  // no prefix: kept
  h.names("P_");
  CHECK(fill("SG_NAME(inclusive)(x); SG_NAME() SG_NAME (a) SG_NAME(a b)", h) ==
        "P_inclusive(x); SG_NAME() SG_NAME (a) SG_NAME(a b)");
}

TEST_CASE("text: a section is written once per repetition, with its holes and the enclosing ones", "[unit]") {
  const std::string text =
      "head SG_X\n"
      "SG_BEGIN(item)\n"
      "  SG_NAME(item) SG_V SG_X\n"
      "SG_END(item)\n"
      "list:SG_BEGIN(item) SG_VSG_END(item).\n"
      "tail\n";
  Holes h;
  h.names("p_").set("SG_X", "x");
  CHECK(fill(text, h) == "head x\nlist:.\ntail\n");  // no repetition: left out, with the marker lines
  h.add("item").set("SG_V", "1");
  h.add("item").set("SG_V", "2").set("SG_X", "y");
  CHECK(fill(text, h) == "head x\n  p_item 1 x\n  p_item 2 y\nlist: 1 2.\ntail\n");
}

TEST_CASE("text: when() writes a section once or not at all, also within an enclosing repetition", "[unit]") {
  const std::string text = "SG_BEGIN(a)\n[SG_BEGIN(b)b:SG_VSG_END(b)]\nSG_END(a)\n";
  Holes h;
  h.when("b", true).set("SG_V", "outer");
  h.add("a");                   // finds b around it
  h.add("a").when("b", false);  // none here
  h.add("a").when("b", true).set("SG_V", "inner");
  CHECK(fill(text, h) == "[b:outer]\n[]\n[b:inner]\n");
  // A marker that shares its line with text keeps the line.
  CHECK(fill("x SG_BEGIN(b)\ny\nSG_END(b) z\n", h) == "x \ny\n z\n");
}

TEST_CASE("text: a section must end, and not inside itself", "[unit]") {
  Holes h;
  CHECK_THROWS_AS(fill("SG_BEGIN(a)\nx\n", h), std::logic_error);
  CHECK_THROWS_AS(fill("SG_BEGIN(a) SG_BEGIN(a) SG_END(a) SG_END(a)", h), std::logic_error);
  CHECK_THROWS_AS(fill("SG_BEGIN(a", h), std::logic_error);
}

TEST_CASE("text: a hole alone on its line with a block of lines for value is the block", "[unit]") {
  Holes h;
  h.set("SG_BLOCK", "one\ntwo\n").set("SG_EMPTY", "").set("SG_WORD", "w");
  CHECK(fill("a\nSG_BLOCK\nSG_EMPTY\nSG_WORD\n  SG_BLOCK\nb", h) == "a\none\ntwo\nw\n  one\ntwo\n\nb");
}

TEST_CASE("text: a hole may take its value from the line it lands on", "[unit]") {
  Holes h;
  h.set("SG_HERE", [](long line) { return "line " + std::to_string(line) + "\n"; });
  h.add("s");
  h.add("s");
  CHECK(fill("a\nSG_BEGIN(s)\nx\nSG_HERE\nSG_END(s)\n", h) == "a\nx\nline 3\nx\nline 5\n");
}

TEST_CASE("text: a banner line is padded as banner() writes one", "[unit]") {
  Holes h;
  h.set("SG_P", "affine");
  CHECK(fill("// ---- scan 'SG_P' ----\n", h) == banner("scan 'affine'"));
  CHECK(banner("scan 'affine'").size() == 101);
  const std::string longer(120, 'x');
  h.set("SG_P", longer);
  CHECK(fill("// ---- SG_P ----", h) + "\n" == banner(longer));
  CHECK(fill("// ---- not a banner\n", h) == "// ---- not a banner\n");
}

TEST_CASE("text: the host wrappers and the built-ins leave no hole unfilled", "[unit]") {
  namespace gen = scangen::generator;
  const scangen::dsl::Document doc = scangen::dsl::load("w.scan", R"(
type Pair { lo: i32, hi: f64 }
scan dev { type = i64; op = add; level = device; mode = both; outputs = aggregate, running_total; }
scan rts { type = Pair; combine(x, y) = Pair { lo: x.lo + y.lo, hi: x.hi + y.hi };
           identity = Pair { lo: 0, hi: 0.0 }; level = device; algorithm = reduce_then_scan; }
scan blk { type = u32; op = max; level = block; outputs = aggregate, running_total; }
scan wrp { type = f32; op = add; level = warp(16); mode = exclusive; }
)");
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  for (const gen::Backend b : {gen::Backend::Cuda, gen::Backend::OpenCL}) {
    std::vector<gen::Plan> plans;
    for (const scangen::dsl::Spec& s : doc.specs()) plans.push_back(gen::make_plan(s, b));
    const std::string source = gen::emit(plans);
    const gen::HostCode host = gen::emit_host(plans, source);
    for (const std::string& text : {host.header, host.source_tail}) {
      CHECK(text.find("SG_BEGIN") == std::string::npos);
      CHECK(text.find("SG_END") == std::string::npos);
      if (b == gen::Backend::Cuda) CHECK(text.find("SG_") == std::string::npos);  // the OpenCL header holds the source
    }
    CHECK(source.find("SG_BEGIN") == std::string::npos);
  }
  const std::string builtins = gen::emit_opencl_builtins();
  CHECK(builtins.find("SG_") == std::string::npos);
  CHECK(builtins.find("scangen_wg_scan_max(half x, bool inclusive") != std::string::npos);
}

TEST_CASE("text: the OpenCL wrappers set a fused output as a buffer, a shape's numbers as cl_ulong", "[unit]") {
  namespace gen = scangen::generator;
  const scangen::dsl::Document doc = scangen::dsl::load("f.scan", R"(
scan sel { input = i32; type = u32; convert(x) = x < 0 ? 1 : 0; op = add; mode = exclusive; outputs = aggregate;
           scatter_if(x) = x < 0; scatter_at(x, i, before) = u64(before); scatter(x) = x; }
scan grp { input = i32; type = u32; convert(x) = x < 0 ? 1 : 0; op = add; level = block; threads = 64;
           scatter_if(x) = x < 0; scatter_at(x, i, before) = u64(before); scatter.idx(x, i) = i; scatter_type.idx = u64;
           scatter_at.idx(x, i) = i;
           scatter(x) = x; }
scan rws { type = f32; op = add; level = device; shape = rows; }
)");
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  std::vector<gen::Plan> plans;
  for (const scangen::dsl::Spec& s : doc.specs()) plans.push_back(gen::make_plan(s, gen::Backend::OpenCL));
  const std::string header = gen::emit_host(plans, gen::emit(plans)).header;
  for (const char* buffer : {"{sizeof(cl_mem), &scattered}", "{sizeof(cl_mem), &idx}"}) {
    INFO(buffer);
    CHECK(header.find(buffer) != std::string::npos);
  }
  CHECK(header.find("{sizeof(cl_ulong), &scattered}") == std::string::npos);
  CHECK(header.find("{sizeof(cl_ulong), &idx}") == std::string::npos);
  CHECK(header.find("{sizeof(cl_ulong), &") != std::string::npos);  // the rows scan's shape
}
