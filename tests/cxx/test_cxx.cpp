// scangen::cxx: C++ headers imported as .scan text. The C++ twins of the
// examples must give the same resolved spec as the .scan originals, and each
// construct outside the subset a diagnostic at its file:line:col.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "scangen/cxx/cxx.h"
#include "scangen/dsl/dsl.h"
#include "scangen/reference/reference.h"
#include "supported.h"

namespace {

using scangen::cxx::ImportError;
using scangen::cxx::ImportOptions;

const std::string kExamples = SCANGEN_EXAMPLES_DIR;
const std::string kHere = SCANGEN_CXX_TESTS_DIR;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The resolved spec of every scan in `text`, which must check cleanly.
std::string resolved(const std::string& name, const std::string& text) {
  scangen::dsl::Document doc = scangen::dsl::load(name, text);
  INFO(text << doc.diagnostics().render());
  REQUIRE(doc.ok());
  std::string s;
  for (const scangen::dsl::Spec& spec : doc.specs()) s += spec.to_string();
  return s;
}

std::string import_twin(const std::string& header, const std::string& op, const std::string& name,
                        const std::string& level, std::vector<std::string> settings = {}) {
  ImportOptions o;
  o.name = name;
  o.level = level;
  o.settings = std::move(settings);
  return scangen::cxx::import(kExamples + "/cxx/" + header, "", op, o);
}

// The diagnostics of importing `op` from unsupported.h.
std::string refused(const std::string& op, const std::string& type = "") {
  try {
    scangen::cxx::import(kHere + "/unsupported.h", type, op, ImportOptions{});
  } catch (const ImportError& e) {
    return e.diagnostics;
  }
  FAIL("importing " << op << " did not fail");
  return "";
}

}  // namespace

TEST_CASE("C++ twins of the examples give the same resolved spec", "[cxx]") {
  struct Twin {
    const char* scan;
    const char* header;
    const char* op;
    const char* name;
    const char* level;
    std::vector<std::string> settings;
  };
  const Twin twins[] = {
      {"affine.scan", "affine.h", "AffineOp", "affine_recurrence", "device", {}},
      {"max.scan", "max.h", "MaxOp", "running_max_i32", "device", {}},
      {"matrix2x2.scan",
       "matrix2x2.h",
       "Mat2Product",
       "matrix_product",
       "block",
       {"algorithm = warp_scans", "threads = 128", "items = 4"}},
      {"argmax.scan", "argmax.h", "ArgMaxOp", "running_argmax", "device", {"outputs = aggregate"}},
  };
  for (const Twin& t : twins) {
    SECTION(t.scan) {
      const std::string text = import_twin(t.header, t.op, t.name, t.level, t.settings);
      CHECK(resolved("imported.scan", text) == resolved(t.scan, read(kExamples + "/" + t.scan)));
    }
  }
}

TEST_CASE("the imported text of a functor", "[cxx]") {
  const std::string text = import_twin("affine.h", "AffineOp", "", "");
  CHECK(text ==
        "type Affine { a: f32, b: f32 }\n"
        "\n"
        "scan AffineOp {\n"
        "  type = Affine;\n"
        "  combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };\n"
        "  identity = Affine { a: 1.0, b: 0.0 };\n"
        "}\n");
}

TEST_CASE("C++ conversions, locals, if/else, math functions and lambdas", "[cxx]") {
  const std::string h = kHere + "/supported.h";
  SECTION("int8_t is promoted to int and converted back") {
    const std::string t = scangen::cxx::import(h, "int8_t", "SumI8", ImportOptions{});
    CHECK(t.find("combine(x, y) = i8(i32(x) + i32(y));") != std::string::npos);
    resolved("sum_i8.scan", t);
  }
  SECTION("local constants become lets") {
    const std::string t = scangen::cxx::import(h, "Seg", "SegmentedSum", ImportOptions{});
    CHECK(t.find("let starts: bool = y.flag != 0;") != std::string::npos);
    CHECK(t.find("let sum: f32 = x.value + y.value;") != std::string::npos);
    CHECK(t.find("return Seg { flag: x.flag | y.flag, value: starts ? y.value : sum };") != std::string::npos);
    resolved("seg.scan", t);
  }
  SECTION("a free function with fminf and std::fmax, the identity given") {
    ImportOptions o;
    o.identity = "MinMax { lo: inf, hi: -inf }";
    const std::string t = scangen::cxx::import(h, "MinMax", "min_max", o);
    CHECK(t.find("combine(x, y) = MinMax { lo: fmin(x.lo, y.lo), hi: fmax(x.hi, y.hi) };") != std::string::npos);
    resolved("minmax.scan", t);
  }
  SECTION("a lambda that is the built-in add") {
    ImportOptions o;
    o.identity = "0";
    CHECK(scangen::cxx::import(h, "uint64_t", "add_u64", o).find("combine(x, y) = x + y;") != std::string::npos);
  }
  SECTION("integers as conditions") {
    const std::string t = scangen::cxx::import(h, "int", "Truthy", ImportOptions{});
    CHECK(t.find("combine(x, y) = !(x != 0) || ((x & y) != 0) ? y : x + y;") != std::string::npos);
    resolved("truthy.scan", t);
  }
  SECTION("if / else if / return as ?:") {
    const std::string t = scangen::cxx::import(h, "", "Clamp", ImportOptions{});
    CHECK(t.find("return s > 100.0 ? 100.0 : s < -100.0 ? -100.0 : s;") != std::string::npos);
    CHECK(t.find("let s: f64 = x + y * 2.0;") != std::string::npos);
    resolved("clamp.scan", t);
  }
}

TEST_CASE("struct layout: Clang's record layout is scangen's", "[cxx]") {
  const std::string t = scangen::cxx::import(kHere + "/supported.h", "Outer", "OuterOp", ImportOptions{});
  CHECK(t.find("type Inner { flag: u8, value: f64, count: u16 }\ntype Outer { tag: u8, inner: Inner, h: f32 }") == 0);
  const std::string spec = resolved("outer.scan", t);
  // The layout scangen computed, and the host compiler's for the same header.
  CHECK(spec.find("type Inner { flag: u8, value: f64, count: u16 }  # size 24, align 8, offsets 0 8 16") !=
        std::string::npos);
  CHECK(spec.find("type Outer { tag: u8, inner: Inner, h: f32 }  # size 40, align 8, offsets 0 8 32") !=
        std::string::npos);
  CHECK(sizeof(Inner) == 24);
  CHECK(offsetof(Inner, value) == 8);
  CHECK(offsetof(Inner, count) == 16);
  CHECK(sizeof(Outer) == 40);
  CHECK(offsetof(Outer, inner) == 8);
  CHECK(offsetof(Outer, h) == 32);
}

TEST_CASE("constructs outside the subset are refused at their file:line:col", "[cxx]") {
  struct Case {
    const char* op;
    const char* where;
    const char* message;
  };
  const Case cases[] = {
      {"LoopOp", "unsupported.h:11:5", "loops are not supported"},
      {"PointerOp", "unsupported.h:19:18", "pointers and references are not supported"},
      {"CallOp", "unsupported.h:27:43", "calls to other functions are not supported ('helper')"},
      {"GlobalOp", "unsupported.h:33:49", "'g_scale' is a global or static variable"},
      {"AssignOp", "unsupported.h:39:9", "assignments are not supported"},
      {"IncrementOp", "unsupported.h:46:52", "'++' and '--' are not supported"},
      {"TemplateOp", "unsupported.h:50:8", "is a template: name a class template with its arguments"},
      {"SwitchOp", "unsupported.h:57:5", "switch is not supported"},
      {"MemberOp", "unsupported.h:66:55", "members of the functor are not supported"},
      {"BoolOp", "unsupported.h:69:33", "'bool' cannot be an element or field type"},
      {"ArrayOp", "unsupported.h:74:26", "arrays are not supported"},
      {"AlignedOp", "unsupported.h:79:20", "has size 16 and alignment 16 in C++ but 4 and 4"},
      {"BitFieldOp", "unsupported.h:84:24", "bit-fields are not supported"},
      {"NoIdentityOp", "unsupported.h:90:7", "no identity"},
      {"FallsOffOp", "unsupported.h:97:3", "can reach its end without returning"},
      {"WhileOp", "unsupported.h:103:5", "loops are not supported"},
      {"ThreeOp", "unsupported.h:110:7", "the operator takes 3 parameters"},
      {"DoLoopOp", "unsupported.h:116:5", "loops are not supported"},
      {"GotoOp", "unsupported.h:125:5", "goto and labels are not supported"},
      {"StaticLocalOp", "unsupported.h:134:16", "static local variables keep state between calls"},
      {"NonConstRefOp", "unsupported.h:141:23", "a parameter by non-const reference could be modified"},
      {"PointerParamOp", "unsupported.h:146:29", "pointer parameters are not supported"},
      {"MemberCallOp", "unsupported.h:155:81", "member function calls are not supported"},
      {"OverloadedOp", "unsupported.h:162:46", "overloaded operators are not supported"},
      {"LambdaInsideOp", "unsupported.h:168:16", "lambdas inside the operator are not supported"},
      {"VirtualOp", "unsupported.h:173:8", "virtual functions are not supported"},
      {"UnionOp", "unsupported.h:183:10", "unions are not supported"},
      {"BaseOp", "unsupported.h:187:8", "base classes are not supported"},
      {"IfConstexprOp", "unsupported.h:195:5", "'if constexpr' is not supported"},
      {"IfInitOp", "unsupported.h:203:5", "an if with an initializer"},
      {"CommaOp", "unsupported.h:210:49", "the comma operator is not supported"},
      {"StaticMemberOp", "unsupported.h:216:69", "'offset' is a global or static variable"},
      {"EnumOp", "unsupported.h:220:25", "enums are not supported"},
      {"ConstructorOp", "unsupported.h:231:53", "constructors are not supported"},
      {"ThrowOp", "unsupported.h:237:16", "exceptions are not supported"},
      {"PackedOp", "unsupported.h:242:60", "field 'v' is at offset 1 in C++ but 4 in scangen's layout"},
      {"LongDoubleOp", "unsupported.h:249:15", "'long double' is not supported"},
      {"RefReturnOp", "unsupported.h:254:12", "the operator returns a reference"},
      {"template_add", "unsupported.h:258:3", "is a function template: function templates are not supported"},
      {"NoBodyOp", "unsupported.h:262:7", "the operator has no body in the header"},
      {"PrintOp", "unsupported.h:269:5", "calls to other functions are not supported ('printf')"},
      {"ManyOperatorsOp", "unsupported.h:278:7", "the functor has more than one operator()"},
      {"TemplateLoopOp<int>", "unsupported.h:285:5", "loops are not supported"},
      {"TemplateOp<NoSuch>", "unsupported.h:297:28", "use of undeclared identifier 'NoSuch'"},
  };
  for (const Case& c : cases) {
    SECTION(c.op) {
      const std::string d = refused(c.op);
      INFO(d);
      CHECK(d.find(kHere + "/" + c.where + ": error: ") == 0);
      CHECK(d.find(c.message) != std::string::npos);
      CHECK(d.find("\n  ") != std::string::npos);  // the source line
      CHECK(d.find("^\n") != std::string::npos);   // and the caret
    }
  }
}

TEST_CASE("the wrong --type, an unknown operator and a C++ syntax error", "[cxx]") {
  CHECK(refused("AssignOp", "float").find("the operator combines 'P', not 'float' (--type)") != std::string::npos);
  CHECK(refused("NoSuchOp").find("no functor or function named 'NoSuchOp'") != std::string::npos);
  try {
    scangen::cxx::import(kHere + "/test_cxx.cpp", "", "x", ImportOptions{});
    FAIL("a file Clang cannot parse was imported");
  } catch (const ImportError& e) {
    CHECK(e.diagnostics.find("error:") != std::string::npos);
  }
}

// A header that cannot be read: the system's reason (it said only "cannot read the file").
TEST_CASE("a header that cannot be read is refused with the system's reason", "[cxx]") {
  auto why = [](const std::string& path) {
    try {
      scangen::cxx::import(path, "int", "Op", ImportOptions{});
    } catch (const ImportError& e) {
      return e.diagnostics;
    }
    return std::string("imported");
  };
  const std::string dir = std::filesystem::temp_directory_path() / ("scangen_cxx_read_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/sub");
  std::filesystem::create_symlink(dir + "/loop_b", dir + "/loop_a");
  std::filesystem::create_symlink(dir + "/loop_a", dir + "/loop_b");
  CHECK_THAT(why(dir + "/missing.h"), Catch::Contains("cannot read the file: No such file or directory"));
  CHECK_THAT(why(dir + "/sub"), Catch::Contains("cannot read the file: Is a directory"));
  CHECK_THAT(why(dir + "/loop_a"), Catch::Contains("cannot read the file: Too many levels of symbolic links"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a header that needs what the first parse leaves out of <cmath>", "[cxx]") {
  const std::string t = scangen::cxx::import(kHere + "/limits_via_cmath.h", "float", "LowestMax", ImportOptions{});
  CHECK(t.find("op = fmax;") != std::string::npos);  // fmaxf ignores a NaN, as fmax does (max propagates one)
}

TEST_CASE("class templates named with their arguments, and f16", "[cxx]") {
  const std::string h = kHere + "/supported.h";
  SECTION("a functor class template") {
    const std::string t = scangen::cxx::import(h, "float", "CustomMin<float>", ImportOptions{});
    CHECK(t ==
          "scan CustomMin_float {\n"
          "  type = f32;\n"
          "  combine(a, b) = (b < a) ? b : a;\n"
          "  identity = inf;\n"
          "}\n");
    resolved("custom_min.scan", t);
  }
  SECTION("an element that is a class template's specialization") {
    const std::string t = scangen::cxx::import(h, "", "PairSum<int>", ImportOptions{});
    CHECK(t.find("type Pair_int { lo: i32, hi: i32 }") == 0);
    CHECK(t.find("combine(x, y) = Pair_int { lo: x.lo + y.lo, hi: x.hi + y.hi };") != std::string::npos);
    resolved("pair_sum.scan", t);
  }
  SECTION("_Float16 and __half fields are f16, with half arithmetic") {
    const std::string t = scangen::cxx::import(kHere + "/half.h", "", "HalfOp", ImportOptions{});
    CHECK(t.find("type Halves { a: f16, b: f16 }") == 0);
    CHECK(t.find("combine(x, y) = Halves { a: x.a + y.a, b: x.b > y.b ? x.b : y.b };") != std::string::npos);
    CHECK(t.find("identity = Halves { a: 0.0, b: -inf };") != std::string::npos);
    resolved("halves.scan", t);
  }
  SECTION("CUDA's __half struct is refused") {
    try {
      scangen::cxx::import(kHere + "/half_struct.h", "", "HalfStructOp", ImportOptions{});
      FAIL("a __half struct was imported");
    } catch (const ImportError& e) {
      INFO(e.diagnostics);
      CHECK(e.diagnostics.find("half_struct.h:8:10: error: CUDA's '__half' struct is not supported here") !=
            std::string::npos);
    }
  }
}

// ---- import "HEADER"; in .scan files --------------------------------------------

namespace {

// `text` loaded as if it were tests/cxx/NAME, with the C++ front end.
scangen::dsl::Document load_importing(const std::string& text, const std::string& name = "imports.scan") {
  scangen::dsl::LoadOptions o;
  o.resolve_imports = scangen::cxx::import_operators;
  return scangen::dsl::load(kHere + "/" + name, text, o);
}

std::string errors_of(const std::string& text) {
  scangen::dsl::Document doc = load_importing(text);
  CHECK(!doc.ok());
  return doc.diagnostics().render();
}

}  // namespace

TEST_CASE("a .scan file that imports its operator from C++", "[cxx][import]") {
  SECTION("examples/cxx/affine.scan is examples/affine.scan") {
    scangen::dsl::LoadOptions o;
    o.resolve_imports = scangen::cxx::import_operators;
    const std::string path = kExamples + "/cxx/affine.scan";
    scangen::dsl::Document doc = scangen::dsl::load(path, read(path), o);
    INFO(doc.diagnostics().render());
    REQUIRE(doc.ok());
    std::string spec;
    for (const scangen::dsl::Spec& s : doc.specs()) spec += s.to_string();
    CHECK(spec == resolved("affine.scan", read(kExamples + "/affine.scan")));
    REQUIRE(!doc.imported_files().empty());
    CHECK(doc.imported_files()[0].find("examples/cxx/affine.h") != std::string::npos);
  }
  SECTION("several scans and headers; the spec's identity and settings; an include folder") {
    scangen::dsl::Document doc = load_importing(
        "import \"supported.h\";\n"
        "import \"with_include.h\" with \"-Iinc\", \"-DEXTRA_SCALE=3\";\n"
        "scan a { type = i8; combine = SumI8; level = block; }\n"
        "scan b { combine = SegmentedSum; }\n"
        "scan c { combine = \"CustomMin<double>\"; identity = 1.0e300; }\n"
        "scan d { combine = Scaled; level = warp; }\n"
        "scan e { type = Seg; combine = SegmentedSum; mode = exclusive; }\n");
    INFO(doc.diagnostics().render());
    REQUIRE(doc.ok());
    REQUIRE(doc.specs().size() == 5);
    CHECK(doc.specs()[0].to_string().find("combine(x, y) = i8(i32(x) + i32(y));") != std::string::npos);
    CHECK(doc.specs()[0].to_string().find("level = block;") != std::string::npos);
    CHECK(doc.specs()[1].to_string().find("type = Seg;") != std::string::npos);
    CHECK(doc.specs()[2].to_string().find("identity = 1e+300;") != std::string::npos);
    CHECK(doc.specs()[3].to_string().find("combine(x, y) = x + y * 3;") != std::string::npos);
    CHECK(doc.specs()[4].to_string().find("mode = exclusive;") != std::string::npos);
    bool extra = false;
    for (const std::string& f : doc.imported_files())
      extra = extra || f.find("tests/cxx/inc/extra.h") != std::string::npos;
    CHECK(extra);
  }
}

TEST_CASE("a key comparison imported from C++ (key_equal = NAME;)", "[cxx][import]") {
  SECTION("a functor and a function, beside an imported operator; the key type from the comparison") {
    scangen::dsl::Document doc = load_importing(
        "import \"supported.h\";\n"
        "scan a { type = i32; op = add; segments = keys; key_equal = SameDecade; }\n"
        "scan b { combine = SumI8; segments = keys; key = f32; key_equal = close_keys; }\n");
    INFO(doc.diagnostics().render());
    REQUIRE(doc.ok());
    REQUIRE(doc.specs().size() == 2);
    const std::string a = doc.specs()[0].to_string(), b = doc.specs()[1].to_string();
    CHECK(a.find("key = i32;") != std::string::npos);
    CHECK(a.find("key_equal(a, b) = a / 10 == b / 10;") != std::string::npos);
    CHECK(b.find("key = f32;") != std::string::npos);
    CHECK(b.find("key_equal(a, b) = ") != std::string::npos);
    CHECK(b.find("combine(x, y) = i8(i32(x) + i32(y));") != std::string::npos);
    // What the reference makes of it: 3, 11, 12, 19 | 25 -> decades 0 | 1 1 1 | 2.
    const int keys[] = {3, 11, 12, 19, 25};
    CHECK(scangen::ref::ranges_from_keys(doc.specs()[0], keys, 5).size() == 3);
  }
  SECTION("scangen import --key-equal: a scan by key, a comparison with a local") {
    ImportOptions o;
    o.key_equal = "NearKeys";
    o.level = "device";
    const std::string text = scangen::cxx::import(kHere + "/supported.h", "", "SumI8", o);
    INFO(text);
    CHECK(text.find("  segments = keys;\n  key = f32;\n  key_equal(a, b) {\n    let d: f32 = a - b;\n") !=
          std::string::npos);
    const std::string spec = resolved("by_key.scan", text);
    CHECK(spec.find("segments = keys;") != std::string::npos);
    CHECK(spec.find("key = f32;") != std::string::npos);
    o.key_equal = "SumI8";
    try {
      scangen::cxx::import(kHere + "/supported.h", "", "SumI8", o);
      FAIL("an operator taken for a key comparison was not refused");
    } catch (const ImportError& e) {
      CHECK(e.diagnostics.find("a key comparison returns bool") != std::string::npos);
    }
  }
  SECTION("the scan's key type is not the comparison's") {
    CHECK(errors_of("import \"supported.h\";\nscan s { type = i32; op = add; segments = keys; key = i64; "
                    "key_equal = SameDecade; }\n")
              .find("the imported key comparison 'SameDecade' compares 'i32' keys, not 'i64'; write 'key = i32;'") !=
          std::string::npos);
  }
  SECTION("a comparison that does not return bool, and struct keys, are refused in the header") {
    CHECK(errors_of("import \"unsupported.h\";\nscan s { type = i32; op = add; segments = keys; "
                    "key_equal = IntEqual; }\n")
              .find("error: a key comparison returns bool (whether two keys are in one segment), not 'int'") !=
          std::string::npos);
    CHECK(errors_of("import \"unsupported.h\";\nscan s { type = i32; op = add; segments = keys; "
                    "key_equal = StructKeys; }\n")
              .find("error: keys are scalars (an integer or floating-point type), not 'Big'") != std::string::npos);
  }
}

TEST_CASE("what goes wrong in an import is reported at its place", "[cxx][import]") {
  SECTION("a construct outside the subset: in the header, with a note at the scan") {
    const std::string d = errors_of("import \"unsupported.h\";\nscan s { combine = LoopOp; }\n");
    CHECK(d.find(kHere + "/unsupported.h:11:5: error: loops are not supported") == 0);
    CHECK(d.find("imports.scan:2:20: note: 'LoopOp' is imported here") != std::string::npos);
  }
  SECTION("no identity, and the spec gives one") {
    CHECK(errors_of("import \"unsupported.h\";\nscan s { combine = NoIdentityOp; }\n")
              .find("no identity: give the functor 'static constexpr int identity = ...;' or write 'identity = "
                    "...;' in the scan") != std::string::npos);
    CHECK(load_importing("import \"unsupported.h\";\nscan s { combine = NoIdentityOp; identity = 0; }\n").ok());
  }
  SECTION("an unknown operator") {
    CHECK(errors_of("import \"supported.h\";\nscan s { combine = NoSuchOp; }\n")
              .find("imports.scan:2:20: error: no functor, function or lambda named 'NoSuchOp' is declared in") !=
          std::string::npos);
  }
  SECTION("the scan's type is not the operator's") {
    CHECK(errors_of("import \"supported.h\";\nscan s { type = f32; combine = SumI8; }\n")
              .find("imports.scan:2:17: error: the imported operator 'SumI8' combines 'i8', not 'f32'") !=
          std::string::npos);
  }
  SECTION("a header that is not there") {
    CHECK(errors_of("import \"no_such.h\";\nscan s { combine = X; }\n")
              .find("imports.scan:1:8: error: cannot read the C++ header 'no_such.h'") != std::string::npos);
  }
  SECTION("a header that does not compile: Clang's diagnostics, and a note at the import") {
    const std::string d =
        errors_of("import \"with_include.h\" with \"-Iinc\", \"-DBROKEN\";\nscan s { combine = Scaled; }\n");
    CHECK(d.find("with_include.h:") != std::string::npos);
    CHECK(d.find("imports.scan:1:8: note: in the C++ header imported here") != std::string::npos);
  }
  SECTION("a type declared in the .scan file and imported again") {
    CHECK(errors_of("import \"supported.h\";\ntype Seg { flag: u32, value: f32 }\nscan s { combine = SegmentedSum; }\n")
              .find("duplicate type name 'Seg'") != std::string::npos);
  }
}

// ---- CUDA headers ---------------------------------------------------------------

namespace {

bool have_cuda_headers() {
  if (std::ifstream(std::string(SCANGEN_CXX_CUDA_INCLUDE) + "/cuda_runtime.h")) return true;
  WARN("no CUDA toolkit headers in " SCANGEN_CXX_CUDA_INCLUDE ": the CUDA header tests did not run");
  return false;
}

}  // namespace

TEST_CASE("a header that includes <cuda_runtime.h> imports, the toolkit found without -I", "[cxx][cuda]") {
  if (!have_cuda_headers()) return;
  const std::string t = scangen::cxx::import(kHere + "/with_cuda_runtime.h", "", "Sum2Op", ImportOptions{});
  CHECK(t.find("type Sum2 { x: f32, y: f32 }") == 0);
  CHECK(t.find("combine(a, b) = Sum2 { x: a.x + b.x, y: a.y + b.y };") != std::string::npos);
  resolved("sum2.scan", t);
}

TEST_CASE("CUB is refused with one error at its #include, and imports when left out", "[cxx][cuda]") {
  if (!have_cuda_headers()) return;
  const std::string h = kHere + "/with_cub.h";
  SECTION("scangen import") {
    try {
      scangen::cxx::import(h, "", "CubStyleMax", ImportOptions{});
      FAIL("a header that includes CUB was imported");
    } catch (const ImportError& e) {
      INFO(e.diagnostics);
      CHECK(e.error_count == 1);
      CHECK(e.diagnostics.find(h + ":9:1: error: CUB and Thrust cannot be imported: their headers are CUDA device "
                                   "code") == 0);
      CHECK(e.diagnostics.find("'#ifndef SCANGEN_IMPORT'") != std::string::npos);
      CHECK(e.diagnostics.find("\n  #include <cub/cub.cuh>\n  ^\n") != std::string::npos);
    }
  }
  SECTION("through a .scan file's import") {
    const std::string d = errors_of("import \"with_cub.h\";\nscan s { combine = CubStyleMax; }\n");
    CHECK(d.find(h + ":9:1: error: CUB and Thrust cannot be imported") == 0);
    CHECK(d.find("imports.scan:1:8: note: in the C++ header") != std::string::npos);
  }
  SECTION("guarded by #ifndef SCANGEN_IMPORT") {
    ImportOptions o;
    o.clang_args = {"-DGUARDED"};
    CHECK(scangen::cxx::import(h, "", "CubStyleMax", o).find("combine(a, b) = (b > a) ? b : a;") != std::string::npos);
  }
}
