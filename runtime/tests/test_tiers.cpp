// Tiered compilation without a GPU (runtime/README.md, "Tiers"): the choice
// of tiering (option, environment), each tier's NVRTC options and cache key
// ([tiers], label unit), and NVRTC building both tiers of an i32 sum, the
// affine map and the 2x2 matrix product for sm_90 with the same kernels, the
// same parameter lists and no float contraction or fast math ([nvrtc]).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cache.h"
#include "nvrtc_program.h"
#include "runtime_impl.h"
#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"
#include "tiers.h"

namespace {

using scangen::Tier;
namespace detail = scangen::runtime::detail;

}  // namespace

TEST_CASE("tiering is on unless the option or SCANGEN_JIT_TIERS turns it off", "[tiers]") {
  CHECK(detail::tiers_wanted(std::nullopt, nullptr));
  for (const char* off : {"0", "off", "OFF", "false", "False", "no", "NO"}) {
    INFO(off);
    CHECK_FALSE(detail::tiers_wanted(std::nullopt, off));
  }
  for (const char* on : {"1", "on", "yes", "true", "2"}) {
    INFO(on);
    CHECK(detail::tiers_wanted(std::nullopt, on));
  }
  // The option wins over the environment, both ways.
  CHECK_FALSE(detail::tiers_wanted(false, "1"));
  CHECK_FALSE(detail::tiers_wanted(false, nullptr));
  CHECK(detail::tiers_wanted(true, "0"));
}

TEST_CASE("the fast tier needs an NVRTC with -Ofast-compile (12.8 and later)", "[tiers]") {
  CHECK(detail::nvrtc_has_fast_tier("12.8"));
  CHECK(detail::nvrtc_has_fast_tier("12.9"));
  CHECK(detail::nvrtc_has_fast_tier("13.0"));
  CHECK(detail::nvrtc_has_fast_tier("14.1"));
  CHECK_FALSE(detail::nvrtc_has_fast_tier("12.6"));
  CHECK_FALSE(detail::nvrtc_has_fast_tier("11.8"));
  CHECK_FALSE(detail::nvrtc_has_fast_tier(""));
  CHECK_FALSE(detail::nvrtc_has_fast_tier("thirteen"));
}

TEST_CASE("the tiers' options: the tuned tier is the runtime's usual build, the fast one no fast math", "[tiers]") {
  CHECK(detail::tier_nvrtc_options(Tier::Tuned).empty());
  const std::vector<std::string> fast = detail::tier_nvrtc_options(Tier::Fast);
  REQUIRE(!fast.empty());
  CHECK(std::find(fast.begin(), fast.end(), "--Ofast-compile=mid") != fast.end());
  for (const std::string& o : fast) {
    INFO(o);
    // Nothing that changes what float code computes.
    for (const char* banned : {"fast_math", "fast-math", "ftz", "prec-div", "prec-sqrt", "fmad", "--gpu-architecture"})
      CHECK(o.find(banned) == std::string::npos);
  }
  // The tuned tier's key options are what the runtime always keyed: entries
  // written before tiering stay valid.
  CHECK(detail::tier_key_options("sm_90", Tier::Tuned) == "--gpu-architecture=sm_90");
  CHECK(detail::tier_key_options("compute_120", Tier::Tuned) == "--gpu-architecture=compute_120");
  CHECK(detail::tier_key_options("sm_90", Tier::Fast) == "--gpu-architecture=compute_90 --Ofast-compile=mid --minimal");
  // The fast tier is PTX for the driver's JIT at -O0; the tuned tier is
  // built for the architecture the runtime chose, loaded as it is.
  CHECK(detail::tier_arch("sm_90", Tier::Fast) == "compute_90");
  CHECK(detail::tier_arch("compute_120", Tier::Fast) == "compute_120");
  CHECK(detail::tier_arch("sm_90", Tier::Tuned) == "sm_90");
  CHECK(detail::tier_jit_level(Tier::Fast) == 0);
  CHECK(detail::tier_jit_level(Tier::Tuned) == -1);
  CHECK(std::string(scangen::to_string(Tier::Fast)) == "fast");
  CHECK(std::string(scangen::to_string(Tier::Tuned)) == "tuned");
}

TEST_CASE("the two tiers of one scan never share a cache entry", "[tiers]") {
  const std::string source = "extern \"C\" __global__ void k() {}";
  for (const char* arch : {"sm_90", "compute_120"}) {
    INFO(arch);
    const auto key = [&](Tier t) {
      return detail::make_kernel_key(source, detail::tier_key_options(arch, t), "nvrtc 13.0", "sm_90", 42).digest();
    };
    CHECK(key(Tier::Fast) != key(Tier::Tuned));
    CHECK(key(Tier::Fast) == key(Tier::Fast));
    CHECK(detail::is_valid_digest(key(Tier::Fast)));
  }
}

TEST_CASE("the tier worker runs every job in order on one thread, and finish() drains the queue", "[tiers]") {
  std::vector<int> order;
  std::atomic<int> threads_seen{0};
  std::thread::id worker_id;
  {
    detail::TierWorker w;
    for (int i = 0; i < 50; ++i)
      w.post([&, i] {
        if (i == 0) {
          worker_id = std::this_thread::get_id();
          std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the rest queue up behind it
        } else if (std::this_thread::get_id() != worker_id) {
          ++threads_seen;
        }
        order.push_back(i);
      });
    w.finish();  // every job queued runs before it returns
    CHECK(order.size() == 50);
    CHECK(worker_id != std::this_thread::get_id());
    // After finish, a job runs on the caller's thread at once.
    bool ran_here = false;
    w.post([&] { ran_here = std::this_thread::get_id() != worker_id; });
    CHECK(ran_here);
  }  // the destructor after finish: nothing left to join
  CHECK(threads_seen == 0);
  for (int i = 0; i < 50; ++i) CHECK(order[static_cast<size_t>(i)] == i);
  {
    detail::TierWorker idle;  // never started: finishes at once
  }
}

namespace {

// A scan of `text` (the one it holds) planned and emitted for sm_90; `fast`:
// the fast tier's text (generator::fast_tier_plan), as the runtime emits it.
std::string emit_sm90(const std::string& text, bool fast = false) {
  scangen::dsl::Document doc = scangen::dsl::load("<tiers test>", text);
  REQUIRE(doc.ok());
  REQUIRE(doc.specs().size() == 1);
  const scangen::generator::Plan plan =
      scangen::generator::make_plan(doc.specs().front(), scangen::generator::Target{scangen::Backend::Cuda, 90});
  scangen::generator::EmitOptions eo;
  eo.source_name = doc.specs().front().name + ".cu";
  return scangen::generator::emit(fast ? scangen::generator::fast_tier_plan(plan) : plan, eo);
}

std::string read_example(const char* file) {
  std::ifstream f(std::string(SCANGEN_EXAMPLES_DIR) + "/" + file);
  REQUIRE(f.good());
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

scangen::nvrtc_support::Compiled compile_tier(const std::string& source, const std::string& arch, Tier t) {
  scangen::nvrtc_support::Compiled c =
      scangen::nvrtc_support::compile(source, "scan.cu", arch, detail::tier_nvrtc_options(t));
  INFO(c.builtins << "\n" << c.log);
  REQUIRE(c.status == NVRTC_SUCCESS);
  REQUIRE(!c.code.empty());
  return c;
}

// The kernels of a PTX text: name -> the parameter list's types, in order
// (".param .u64 .ptr .align 1 NAME_param_0" -> ".u64 .ptr .align 1").
std::map<std::string, std::vector<std::string>> entries(const std::string& ptx) {
  std::map<std::string, std::vector<std::string>> out;
  const std::regex entry(R"(\.entry\s+([A-Za-z_0-9]+)\s*\(([^)]*)\))");
  const std::regex param(R"(\.param\s+([^,\n]*?)\s+[A-Za-z_0-9]+_param_\d+)");
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), entry); it != std::sregex_iterator(); ++it) {
    const std::string params = (*it)[2];
    std::vector<std::string>& v = out[(*it)[1]];
    for (auto p = std::sregex_iterator(params.begin(), params.end(), param); p != std::sregex_iterator(); ++p)
      v.push_back((*p)[1]);
  }
  return out;
}

}  // namespace

TEST_CASE("NVRTC builds both tiers for sm_90 with one kernel ABI and the same float arithmetic", "[nvrtc][tiers]") {
  const std::vector<std::pair<std::string, std::string>> scans = {
      {"i32 sum", "scan sum_i32 { type = i32; op = add; level = device; }"},
      {"affine (examples/affine.scan)", read_example("affine.scan")},
      {"2x2 matrix (examples/matrix2x2.scan)", read_example("matrix2x2.scan")},
      {"2x2 matrix, device level",
       "type Mat2 { a: f32, b: f32, c: f32, d: f32 }\n"
       "scan mat2 { type = Mat2; combine(x, y) = Mat2 { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
       " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d };"
       " identity = Mat2 { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; level = device; }"},
  };
  for (const auto& [what, text] : scans) {
    INFO(what);
    const std::string source = emit_sm90(text), fast_source = emit_sm90(text, true);
    // The device scans' fast tier moves its elements directly (no exchange).
    if (text.find("level = device") != std::string::npos)
      CHECK(fast_source.find("#define SG_STAGED_IO 0") != std::string::npos);
    // What the runtime builds for an sm_90 GPU: the tuned tier's cubin and
    // the fast tier's PTX.
    compile_tier(source, "sm_90", Tier::Tuned);
    const std::string fast = compile_tier(fast_source, detail::tier_arch("sm_90", Tier::Fast), Tier::Fast).code;
    CHECK(fast.find(".target sm_90") != std::string::npos);
    // Their PTX: the same kernels with the same parameter lists.
    const std::string tuned = compile_tier(source, "compute_90", Tier::Tuned).code;
    const auto fast_entries = entries(fast), tuned_entries = entries(tuned);
    CHECK(!tuned_entries.empty());
    CHECK(fast_entries == tuned_entries);
    // The operators round every float operation on its own (__fadd_rn,
    // __fmul_rn): neither tier contracts them into an fma, flushes
    // subnormals or approximates.
    const bool floats = text.find("f32") != std::string::npos;
    for (const std::string* ptx : {&fast, &tuned}) {
      CHECK(ptx->find("fma.rn.f32") == std::string::npos);
      CHECK(ptx->find(".ftz.f32") == std::string::npos);
      CHECK(ptx->find(".approx") == std::string::npos);
      if (floats) CHECK(ptx->find("mul.rn.f32") != std::string::npos);
    }
  }
}
