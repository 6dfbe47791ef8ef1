// Spec -> Plan decisions and the emitted text's shape: what can be checked
// without a compiler.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/emit.h"
#include "scangen/generator/plan.h"

namespace {

using scangen::generator::Backend;
using scangen::generator::LaneExchange;
using scangen::generator::make_plan;
using scangen::generator::Plan;
using scangen::generator::StatusLayout;

scangen::dsl::Spec load_one(const std::string& text) {
  scangen::dsl::Document doc = scangen::dsl::load("t.scan", text);
  INFO(doc.diagnostics().render());
  REQUIRE(doc.ok());
  return doc.specs().at(0);
}

std::string plan_error(const std::string& text, Backend b) {
  try {
    make_plan(load_one(text), b);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("warp scans shuffle elements up to 32 bytes and go through memory above", "[unit]") {
  const Plan small = make_plan(load_one("scan s { type = i8; op = add; level = warp(8); }"), Backend::Cuda);
  CHECK(small.exchange == LaneExchange::Shuffle);
  CHECK(small.shuffle_words == 1);
  CHECK(small.groups_per_block == 4);  // 32 threads by default
  CHECK(small.segment == 8);
  const Plan big = make_plan(load_one("type B { a: f64, b: f64, c: f64, d: f64, e: f64 }\n"
                                      "scan s { type = B; combine(x, y) = B { x.a + y.a, x.b + y.b, x.c + y.c, "
                                      "x.d + y.d, x.e + y.e }; identity = B { 0, 0, 0, 0, 0 }; level = warp; }"),
                             Backend::Cuda);
  CHECK(big.exchange == LaneExchange::SharedMemory);
  CHECK(big.lane_scratch == 32);
  CHECK(big.temp_bytes == 32 * 40);
  const Plan cl = make_plan(load_one("scan s { type = i32; op = add; level = warp(16); }"), Backend::OpenCL);
  CHECK(cl.exchange == LaneExchange::LocalMemory);
  CHECK(cl.temp_bytes == 16 * 4);
}

TEST_CASE("raking uses one warp's worth of raking threads", "[unit]") {
  const Plan p =
      make_plan(load_one("scan s { type = i32; op = add; level = block; threads = 100; items = 3; }"), Backend::Cuda);
  CHECK(p.rake_segment == 4);
  CHECK(p.rake_threads == 25);
  CHECK(p.rake_padding == 1);
  CHECK(p.segment == 300);
  const Plan one = make_plan(load_one("scan s { type = i32; op = add; level = block; threads = 1; }"), Backend::Cuda);
  CHECK(one.rake_threads == 1);
  CHECK(one.rake_padding == 0);
}

TEST_CASE("a plan refuses what cannot be generated, saying why", "[unit]") {
  CHECK_THAT(plan_error("scan s { type = i32; op = add; level = block; targets = cuda; }", Backend::OpenCL),
             Catch::Contains("does not list target 'opencl'"));
  // 2 x 1024 threads x 24 bytes of double buffer exceed 48 KiB.
  CHECK_THAT(plan_error("type S { a: f64, b: f64, c: f64 }\n"
                        "scan s { type = S; combine(x, y) = S { x.a + y.a, x.b + y.b, x.c + y.c };"
                        " identity = S { 0, 0, 0 }; level = block; algorithm = hillis_steele; threads = 1024; }",
                        Backend::Cuda),
             Catch::Contains("bytes of shared memory per block"));
  CHECK_THAT(plan_error("type B { a: f64, b: f64, c: f64, d: f64, e: f64 }\n"
                        "scan s { type = B; combine(x, y) = B { x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d, "
                        "x.e + y.e }; identity = B { 0, 0, 0, 0, 0 }; level = warp; algorithm = coalesced; "
                        "targets = cuda; }",
                        Backend::Cuda),
             Catch::Contains("at most 32 bytes"));
}

TEST_CASE("the emitted source names the scan's functions plainly and is self-contained", "[unit]") {
  const Plan p = make_plan(load_one("scan pre { type = u32; op = add; level = block; mode = both; "
                                    "outputs = aggregate, running_total; }"),
                           Backend::Cuda);
  const std::string text = scangen::generator::emit(p);
  for (const char* name : {"pre_temp;", "pre_inclusive(", "pre_exclusive(", "pre_inclusive_exclusive(", "pre_reduce(",
                           "pre_broadcast(", "pre_exclusive_update(", "pre_scan_kernel(", "atomicAdd("})
    CHECK_THAT(text, Catch::Contains(name));
  CHECK(text.find("#include") == std::string::npos);
  // SG_NAME(x) is written out everywhere (its #define stays, for safety).
  const size_t define = text.find("#define SG_NAME(");
  REQUIRE(define != std::string::npos);
  CHECK(text.find("SG_NAME(", define + 9) == std::string::npos);
  CHECK(text.find("SG_NAME(") == define + 8);
  const std::string explained = scangen::generator::to_string(p);
  CHECK_THAT(explained, Catch::Contains("param running_total"));
  CHECK_THAT(explained, Catch::Contains("raking"));
}

// deterministic = true with floats by decoupled look-back: the fixed-order look-back
// (common/lookback_fixed.h) in place of the backend's any-order one, on both backends and every
// look-back kernel; not for integers, which any order gives the same bits.
TEST_CASE("deterministic float look-back scans combine in a fixed order", "[unit]") {
  auto has = [](const Plan& p, const std::string& t) {
    return std::find(p.templates.begin(), p.templates.end(), t) != p.templates.end();
  };
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    for (const char* rest :
         {"algorithm = decoupled_lookback;", "shape = rows;", "shape = strided;", "segments = flags;"}) {
      INFO(rest);
      const Plan p =
          make_plan(load_one(std::string("scan s { type = f32; op = add; deterministic = true; ") + rest + " }"), b);
      CHECK(p.fixed_order);
      CHECK(has(p, "common/lookback_fixed.h"));
      const std::string text = scangen::generator::emit(p);
      CHECK(text.find("s_sg_fixed_chain") != std::string::npos);
      CHECK(text.find("s_sg_warp_lookback(workspace, tile") == std::string::npos);  // the any-order calls
      const Plan any = make_plan(load_one(std::string("scan s { type = f32; op = add; ") + rest + " }"), b);
      CHECK_FALSE(any.fixed_order);
      CHECK_FALSE(has(any, "common/lookback_fixed.h"));
      CHECK(scangen::generator::emit(any).find("sg_fixed_chain") == std::string::npos);
    }
    CHECK_FALSE(
        make_plan(load_one("scan s { type = i32; op = add; deterministic = true; shape = rows; }"), b).fixed_order);
    CHECK_FALSE(make_plan(load_one("scan s { type = f32; op = add; deterministic = true; }"), b).fixed_order);
  }
}

TEST_CASE("device scans: the workspace zeroed by a kernel from kZeroKernelFromTiles tiles", "[unit]") {
  using scangen::generator::kZeroKernelFromTiles;
  using scangen::generator::zero_by_kernel;
  const Plan i32 = make_plan(load_one("scan s { type = i32; op = add; level = device; }"), Backend::Cuda);
  REQUIRE(i32.tile == 4096);
  CHECK(i32.zero_kernel == "s_zero_workspace");
  const uint64_t below = (kZeroKernelFromTiles - 1) * i32.tile, at = below + 1;
  CHECK_FALSE(zero_by_kernel(i32, below, 90));
  CHECK(zero_by_kernel(i32, at, 90));
  CHECK_FALSE(zero_by_kernel(i32, at, 80));  // no programmatic dependent launch before sm_90
  CHECK(zero_by_kernel(i32, ~0ull, 90));
  CHECK(scangen::generator::zero_kernel_words(i32, at) * 8 == scangen::generator::workspace_zero_bytes(i32, at));
  CHECK(scangen::generator::zero_kernel_blocks(i32, at) == 1);  // 16 + 128 x 8 bytes: 130 words
  CHECK(scangen::generator::zero_kernel_blocks(i32, 1ull << 40) == 1024);
  // The kernel is emitted with the scan, and the scan kernel waits for the one before it.
  const std::string cu = scangen::generator::emit(i32);
  CHECK(cu.find("void s_zero_workspace(") != std::string::npos);
  CHECK(cu.find("griddepcontrol.launch_dependents;") != std::string::npos);
  CHECK(cu.find("griddepcontrol.wait;") != std::string::npos);
  // None with pdl=0, on OpenCL, for shapes, segments and reduce_then_scan.
  const Plan off = make_plan(i32.spec, Backend::Cuda, scangen::generator::parse_tuning("pdl=0", i32.tuning));
  CHECK(off.zero_kernel.empty());
  CHECK_FALSE(zero_by_kernel(off, at, 90));
  CHECK(scangen::generator::emit(off).find("void s_zero_workspace(") == std::string::npos);
  CHECK(make_plan(i32.spec, Backend::OpenCL).zero_kernel.empty());
  CHECK(make_plan(load_one("scan s { type = f32; op = add; shape = rows; }"), Backend::Cuda).zero_kernel.empty());
  CHECK(make_plan(load_one("scan s { type = f32; op = add; segments = offsets; }"), Backend::Cuda).zero_kernel.empty());
  CHECK(make_plan(load_one("scan s { type = i32; op = add; algorithm = reduce_then_scan; }"), Backend::Cuda)
            .zero_kernel.empty());
}

TEST_CASE("device scans: statuses tagged with the call's epoch where the kernel takes one with its ticket", "[unit]") {
  using scangen::generator::kEpochCallsBeforeZero;
  using scangen::generator::workspace_epoch_zero;
  const Plan i32 = make_plan(load_one("scan s { type = i32; op = add; level = device; }"), Backend::Cuda);
  REQUIRE(i32.tile == 4096);
  CHECK(i32.epoch_tags);
  // The kernel takes its tile and the epoch in one atomic, and tags its statuses with it.
  const std::string cu = scangen::generator::emit(i32);
  CHECK(cu.find("s_sg_take_tile_epoch(&shared, workspace, tiles)") != std::string::npos);
  CHECK(cu.find("s_sg_warp_lookback_epoch(workspace, tile, epoch)") != std::string::npos);
  // Zeroed whole before the first call of more than one tile, then not until the epoch would come round.
  CHECK_FALSE(workspace_epoch_zero(i32, 4096, 0));  // one tile reads no status
  CHECK(workspace_epoch_zero(i32, 4097, 0));
  CHECK_FALSE(workspace_epoch_zero(i32, 4097, 1));
  CHECK_FALSE(workspace_epoch_zero(i32, 1ull << 30, kEpochCallsBeforeZero - 1));
  CHECK(workspace_epoch_zero(i32, 1ull << 30, kEpochCallsBeforeZero));
  CHECK(kEpochCallsBeforeZero < (1ull << 30));  // the kernel's epoch: 30 bits
  // The caller's count: zero, then no zeroing until kEpochCallsBeforeZero calls; one tile is not counted.
  uint64_t calls = 0;
  CHECK(scangen::generator::workspace_epoch_call(i32, 4097, calls));
  CHECK(calls == 1);
  CHECK_FALSE(scangen::generator::workspace_epoch_call(i32, 4096, calls));
  CHECK(calls == 1);
  CHECK_FALSE(scangen::generator::workspace_epoch_call(i32, 4097, calls));
  CHECK(calls == 2);
  calls = kEpochCallsBeforeZero;
  CHECK(scangen::generator::workspace_epoch_call(i32, 4097, calls));
  CHECK(calls == 1);
  // Other element sizes and forms of the flat kernel too.
  for (const char* body : {"type = i64; op = add;", "type = f64; op = add;", "type = i8; op = add;",
                           "type = f32; op = add; reverse = true;", "type = f32; op = max; mode = exclusive;",
                           "type = i32; op = add; outputs = aggregate;"}) {
    INFO(body);
    CHECK(make_plan(load_one(std::string("scan s { ") + body + " }"), Backend::Cuda).epoch_tags);
  }
  // Not on OpenCL, for shapes, segments, fixed-order look-backs and reduce_then_scan: their workspace is
  // zeroed for each call.
  for (const char* body : {"type = f32; op = add; shape = rows;", "type = f32; op = add; segments = offsets;",
                           "type = f32; op = add; segments = flags;", "type = f32; op = add; deterministic = true;",
                           "type = i32; op = add; algorithm = reduce_then_scan;"}) {
    INFO(body);
    const Plan p = make_plan(load_one(std::string("scan s { ") + body + " }"), Backend::Cuda);
    CHECK_FALSE(p.epoch_tags);
    CHECK_FALSE(workspace_epoch_zero(p, 1ull << 30, 0));
  }
  CHECK_FALSE(make_plan(i32.spec, Backend::OpenCL).epoch_tags);
}

TEST_CASE("device scans: tile, status word and workspace", "[unit]") {
  const Plan i32 = make_plan(load_one("scan s { type = i32; op = add; }"), Backend::Cuda);
  // The tuning table's shape for plain scans of 4-byte elements on CUDA: 128 x 32; other
  // scans of them (strided shapes, segments, fused outputs, reverse, ...) keep 256 x 32; batched
  // rows have a row of their own (128 x 32, at least 8 blocks an SM: "plan: CUDA shape kernels ...").
  CHECK(i32.tile == 128 * 32);
  CHECK(i32.tile == static_cast<uint64_t>(i32.tuning.threads) * static_cast<uint64_t>(i32.tuning.items));
  for (const char* other : {"reverse = true;", "shape = strided;",
                            "deterministic = true; algorithm = decoupled_lookback;", "algorithm = reduce_then_scan;",
                            "input = i32, i32; convert(a, b) = a + b;", "input = i32; convert(x) = x - prev(x);"}) {
    CAPTURE(other);
    const Plan o = make_plan(load_one(std::string("scan s { type = i32; op = add; ") + other + " }"), Backend::Cuda);
    CHECK(o.tuning.threads == 256);
    CHECK(o.tuning.items == 32);
  }
  CHECK(i32.status == StatusLayout::Word64);
  CHECK(scangen::generator::workspace_bytes(i32, 0) == 16 + 8);
  CHECK(scangen::generator::workspace_bytes(i32, 4097) == 16 + 2 * 8);
  CHECK(i32.staged_io);
  const Plan f64 = make_plan(load_one("scan s { type = f64; op = add; }"), Backend::Cuda);
  CHECK(f64.status == StatusLayout::Word128);
  const Plan m = make_plan(load_one("type M { a: f32, b: f32, c: f32, d: f32 }\n"
                                    "scan s { type = M; combine(x, y) = M { x.a + y.a, x.b + y.b, x.c + y.c, "
                                    "x.d + y.d }; identity = M { 0, 0, 0, 0 }; }"),
                           Backend::Cuda);
  // Over 8 bytes, CUDA too: each 32-bit word with its own tag (the tuning table's
  // tagged_words; the tag after the value and a fence with tagged_words=0).
  CHECK(m.status == StatusLayout::TaggedWords);
  CHECK(m.status_bytes == 8 * 2 * 4);
  CHECK(m.tuning.tagged_words == 1);
  const Plan cl = make_plan(load_one("scan s { type = i32; op = add; }"), Backend::OpenCL);
  // OpenCL: each 32-bit word of the aggregate and of the inclusive prefix in a
  // 64-bit atomic with its own tag (mem_fence does not order other
  // work-groups' view of memory on a GPU).
  CHECK(cl.status == StatusLayout::TaggedWords);
  CHECK(cl.status_bytes == 8 * 2);
  CHECK(scangen::generator::workspace_bytes(cl, 8193) == 16 + 2 * 16);
  CHECK(make_plan(load_one("type M { a: f32, b: f32, c: f32, d: f32 }\n"
                           "scan s { type = M; combine(x, y) = M { x.a + y.a, x.b + y.b, x.c + y.c, "
                           "x.d + y.d }; identity = M { 0, 0, 0, 0 }; }"),
                  Backend::OpenCL)
            .status_bytes == 8 * 2 * 4);
  const Plan rts = make_plan(load_one("scan s { type = f32; op = add; deterministic = true; }"), Backend::Cuda);
  CHECK(rts.spec.algorithm == scangen::dsl::Algorithm::ReduceThenScan);
  CHECK(rts.kernels.size() == 3);
  CHECK(scangen::generator::workspace_bytes(rts, 1u << 20) == ((1u << 20) / rts.tile) * 4);
  // Counts beyond 2^32 elements: 64-bit all the way.
  CHECK(scangen::generator::workspace_bytes(i32, (1ull << 32) + 7) == 16 + 8 * (((1ull << 32) + 7 + 4095) / 4096));
  // A spec's threads / items win over the table; OpenCL takes 256 x 32 for 4 bytes (measured on its own).
  const Plan own = make_plan(load_one("scan s { type = i32; op = add; threads = 128; items = 4; }"), Backend::Cuda);
  CHECK(own.tile == 128 * 4);
  CHECK(cl.tile == 256 * 32);
}

TEST_CASE("OpenCL scans carry the shuffles beside the local-memory lanes", "[unit]") {
  const Plan i32 = make_plan(load_one("scan s { type = i32; op = add; }"), Backend::OpenCL);
  CHECK(i32.exchange == LaneExchange::LocalMemory);
  CHECK(i32.shuffle_words == 1);
  const auto has = [](const Plan& p, const std::string& t) {
    return std::find(p.templates.begin(), p.templates.end(), t) != p.templates.end();
  };
  // The shuffles first, the local-memory fallback after them (the device picks when it builds).
  const auto shfl = std::find(i32.templates.begin(), i32.templates.end(), "common/lanes_shfl.h");
  const auto local = std::find(i32.templates.begin(), i32.templates.end(), "opencl/lanes_local.cl");
  REQUIRE(shfl != i32.templates.end());
  REQUIRE(local != i32.templates.end());
  CHECK(shfl < local);
  // Elements of more than 32 bytes: local memory alone.
  const Plan big = make_plan(load_one("type M { a: f64, b: f64, c: f64, d: f64, e: f64 }\n"
                                      "scan s { type = M; combine(x, y) = M { x.a + y.a, x.b + y.b, x.c + y.c, "
                                      "x.d + y.d, x.e + y.e }; identity = M { 0, 0, 0, 0, 0 }; }"),
                             Backend::OpenCL);
  CHECK(big.shuffle_words == 0);
  CHECK_FALSE(has(big, "common/lanes_shfl.h"));
  CHECK(has(big, "opencl/lanes_local.cl"));
  // The build options that pick the path: NVIDIA's shuffles, elsewhere local memory; the caller's win.
  using scangen::generator::opencl_build_options;
  CHECK(opencl_build_options("NVIDIA CUDA", "") == "-DSCANGEN_OPENCL_PTX=1");
  CHECK(opencl_build_options("Portable Computing Language", "") == "-DSCANGEN_OPENCL_PTX=0");
  CHECK(opencl_build_options("NVIDIA CUDA", "-DSCANGEN_OPENCL_PTX=0") == "-DSCANGEN_OPENCL_PTX=0");
  CHECK(opencl_build_options("NVIDIA CUDA", "-DSCANGEN_OPENCL_FIRST_POLL_NS=0") ==
        "-DSCANGEN_OPENCL_PTX=1 -DSCANGEN_OPENCL_FIRST_POLL_NS=0");
}

TEST_CASE("device tuning: the table and given tunings", "[unit]") {
  using scangen::generator::DeviceTuning;
  using scangen::generator::parse_tuning;
  const scangen::dsl::Spec i8 = load_one("scan s { type = i8; op = add; }");
  const DeviceTuning t = scangen::generator::device_tuning(i8, Backend::Cuda);
  CHECK(t.threads == 128);
  CHECK(t.items == 128);  // a sum in packed words: its own row
  CHECK(t.streaming == 1);
  // The same sum in another shape is not packed: the 1-byte row, 256 x 64.
  const DeviceTuning t_rows =
      scangen::generator::device_tuning(load_one("scan s { type = i8; op = add; shape = rows; }"), Backend::Cuda);
  CHECK(t_rows.threads == 256);
  CHECK(t_rows.items == 64);
  const DeviceTuning t_max =
      scangen::generator::device_tuning(load_one("scan s { type = i8; op = max; }"), Backend::Cuda);
  CHECK(t_max.items == 64);
  CHECK(t_max.streaming == 0);
  // Sums the tiles cannot pack take the element size's row.
  CHECK(scangen::generator::device_tuning(load_one("scan s { type = i8; op = add; reverse = true; }"), Backend::Cuda)
            .items == 64);
  CHECK(scangen::generator::device_tuning(load_one("scan s { type = i16; input = u8; op = add; }"), Backend::Cuda)
            .first_poll_ns == 3000);
  CHECK(scangen::generator::device_tuning(load_one("scan s { type = i16; op = add; }"), Backend::Cuda).first_poll_ns ==
        1000);
  // The f16 sum in packed words: the 2-byte packed row, 128 x 64 unbounded; a packed sum that
  // is not plain (the fixed-order look-back) 256 x 64, its registers bounded by 5 blocks per SM.
  const DeviceTuning f16 =
      scangen::generator::device_tuning(load_one("scan s { type = f16; op = add; }"), Backend::Cuda);
  CHECK(f16.threads == 128);
  CHECK(f16.items == 64);
  CHECK(f16.min_blocks == 0);
  CHECK(f16.streaming == 1);
  const DeviceTuning f16_rows = scangen::generator::device_tuning(
      load_one("scan s { type = f16; op = add; deterministic = true; algorithm = decoupled_lookback; }"),
      Backend::Cuda);
  CHECK(f16_rows.threads == 256);
  CHECK(f16_rows.min_blocks == 5);
  CHECK(scangen::generator::device_tuning(load_one("scan s { type = f16; op = max; }"), Backend::Cuda).min_blocks == 0);
  const DeviceTuning t8 =
      scangen::generator::device_tuning(load_one("scan s { type = i64; op = add; }"), Backend::Cuda);
  CHECK(t8.threads == 128);
  CHECK(t8.items == 32);
  CHECK(std::string(t.why).find("i8") != std::string::npos);
  const DeviceTuning u = parse_tuning("threads=128, items=8 first_poll_ns=700", t);
  CHECK(u.threads == 128);
  CHECK(u.items == 8);
  CHECK(u.first_poll_ns == 700);
  CHECK(u.poll_ns == t.poll_ns);
  CHECK(parse_tuning(scangen::generator::to_string(u), DeviceTuning{}).first_poll_ns == 700);
  CHECK_THROWS_WITH(parse_tuning("threads=100", t), Catch::Contains("multiple of 32"));
  CHECK_THROWS_WITH(parse_tuning("items=0", t), Catch::Contains("1..128"));
  CHECK_THROWS_WITH(parse_tuning("speed=3", t), Catch::Contains("unknown knob 'speed'"));
  CHECK_THROWS_WITH(parse_tuning("items", t), Catch::Contains("knob=value"));
  CHECK_THROWS_WITH(parse_tuning("items=-1", t), Catch::Contains("integer"));
  CHECK_THROWS_WITH(parse_tuning("items=129", t), Catch::Contains("1..128"));
  CHECK_THROWS_WITH(parse_tuning("streaming=2", t), Catch::Contains("0 or 1"));
  CHECK(parse_tuning("streaming=1", t).streaming == 1);
  CHECK_THROWS_WITH(parse_tuning("packed=2", t), Catch::Contains("0 or 1"));
  CHECK(parse_tuning("packed=0", t).packed == 0);
  CHECK_THROWS_WITH(parse_tuning("words=2", t), Catch::Contains("0 or 1"));
  CHECK_THROWS_WITH(parse_tuning("raking=2", t), Catch::Contains("0 or 1"));
  const DeviceTuning opencl_like = parse_tuning("words=0 raking=1", t8);
  CHECK(parse_tuning(scangen::generator::to_string(opencl_like), DeviceTuning{}).raking == 1);
  const Plan i64 = make_plan(load_one("scan s { type = i64; op = add; level = device; }"), Backend::Cuda);
  CHECK(i64.tile_algorithm == scangen::dsl::Algorithm::WarpScans);
  CHECK(i64.input_words == 16);  // 32 items of 8 bytes
  const Plan i64_like =
      make_plan(load_one("scan s { type = i64; op = add; level = device; }"), Backend::Cuda, opencl_like);
  CHECK(i64_like.tile_algorithm == scangen::dsl::Algorithm::Raking);
  CHECK(i64_like.input_words == 0);
  // Statuses of elements over 8 bytes: OpenCL's tagged words (the table's), or (tagged_words=0) a tag and its fences.
  const scangen::dsl::Spec mat = load_one(
      "type M { a: f32, b: f32, c: f32, d: f32 }\n"
      "scan s { type = M; combine(x, y) = M { a: x.a + y.a, b: x.b + y.b, c: x.c + y.c, d: x.d + y.d }; "
      "identity = M { a: 0.0, b: 0.0, c: 0.0, d: 0.0 }; level = device; }");
  const Plan tagged = make_plan(mat, Backend::Cuda,
                                parse_tuning("tagged_words=0", scangen::generator::device_tuning(mat, Backend::Cuda)));
  CHECK(tagged.status == scangen::generator::StatusLayout::TagThenWords);
  CHECK(tagged.status_bytes == 36);
  const Plan tagged_words = make_plan(mat, Backend::Cuda);
  CHECK(tagged_words.status == scangen::generator::StatusLayout::TaggedWords);
  CHECK(tagged_words.status_bytes == 64);
  CHECK(scangen::generator::to_string(tagged_words).find("its own tag in a 64-bit atomic, 64 bytes per tile") !=
        std::string::npos);
  CHECK_THROWS_WITH(parse_tuning("tagged_words=2", t), Catch::Contains("0 or 1"));
  // explain says how a status is published.
  const scangen::dsl::Spec i32 = load_one("scan s { type = i32; op = add; level = device; }");
  CHECK(scangen::generator::to_string(make_plan(i32, Backend::Cuda))
            .find("8 bytes per tile, tagged with the call's epoch (taken with the ticket): a Scan's own workspace "
                  "is zeroed once (and every 2^29 calls), a caller's before each call; published by atomic "
                  "exchange") != std::string::npos);
  CHECK(scangen::generator::to_string(make_plan(i32, Backend::OpenCL))
            .find("bytes per tile, zeroed by the host before each call") != std::string::npos);
  CHECK(scangen::generator::to_string(make_plan(i32, Backend::Cuda, parse_tuning("status_ops=2", t)))
            .find("; published by volatile stores") != std::string::npos);
  CHECK(scangen::generator::to_string(make_plan(i32, Backend::OpenCL)).find("published by") == std::string::npos);
  // The plan prints the look-back's pacing.
  const Plan p = make_plan(i8, Backend::Cuda, u);
  CHECK(scangen::generator::to_string(p).find("sleeps 700 ns before its first read") != std::string::npos);
}

TEST_CASE("auto-sized tiles of large elements fit a block's shared memory on every target", "[plan]") {
  using scangen::generator::Target;
  // 41 f64 fields, 328 bytes: the backward scan of a 2x2 matrix product (dsl/adjoint.h). OpenCL's row
  // for large elements, 256 work-items, needed 105624 bytes of local memory and had no plan.
  std::string fields, values;
  for (int i = 0; i < 41; ++i) {
    fields += (i ? ", f" : "f") + std::to_string(i) + ": f64";
    values += (i ? ", f" : "f") + std::to_string(i) + ": x.f" + std::to_string(i) + " + y.f" + std::to_string(i);
  }
  const std::string zeros = [] {
    std::string z;
    for (int i = 0; i < 41; ++i) z += (i ? ", f" : "f") + std::to_string(i) + ": 0.0";
    return z;
  }();
  const scangen::dsl::Spec big = load_one("type B { " + fields + " }\nscan s { type = B; combine(x, y) = B { " +
                                          values + " }; identity = B { " + zeros + " }; }");
  for (const Target& t : {Target{Backend::Cuda, 0}, Target{Backend::Cuda, 90, "NVIDIA H100 80GB HBM3"},
                          Target{Backend::OpenCL, 0}, Target{Backend::OpenCL, 0, "opencl cpu"}}) {
    CAPTURE(scangen::generator::to_string(t), t.device);
    const scangen::generator::Plan p = make_plan(big, t);
    CHECK(static_cast<size_t>(p.block_threads) * static_cast<size_t>(p.items) * 328 <= size_t{32} << 10);
    CHECK(p.block_threads >= 32);
  }
  // Threads given in the spec are the spec's.
  CHECK(make_plan(load_one("type B { " + fields + " }\nscan s { type = B; combine(x, y) = B { " + values +
                           " }; identity = B { " + zeros + " }; threads = 32; items = 1; }"),
                  Backend::OpenCL)
            .block_threads == 32);
}

TEST_CASE("wrapping sums of 1- and 2-byte integers and f16 sums keep their items packed in words", "[unit]") {
  using scangen::generator::parse_tuning;
  auto lanes = [](const std::string& body, Backend b = Backend::Cuda) {
    return make_plan(load_one("scan s { " + body + " level = device; }"), b).packed_lanes;
  };
  CHECK(lanes("type = i8; op = add;") == 4);
  CHECK(lanes("type = u8; op = add; mode = both; init = 7; outputs = aggregate;") == 4);
  CHECK(lanes("type = i16; op = add; outputs = running_total;") == 2);
  CHECK(lanes("type = u16; op = add; mode = exclusive; threads = 32; items = 8;") == 2);
  CHECK(lanes("type = f16; op = add; mode = both; init = 1.5;") == 2);
  // Not: another operator, a wider type or input, a convert, no whole words, reverse, another
  // algorithm or backend.
  CHECK(lanes("type = i8; op = max;") == 0);
  CHECK(lanes("type = i32; op = add;") == 0);
  CHECK(lanes("type = f32; op = add;") == 0);
  CHECK(lanes("type = f16; op = max;") == 0);
  CHECK(lanes("type = f16; combine(x, y) = x + y; identity = 0;") == 0);
  CHECK(lanes("type = f32; input = f16; op = add;") == 0);
  CHECK(lanes("type = u32; input = u8; op = add;") == 0);
  CHECK(lanes("type = u16; input = u8; op = add;") == 0);
  CHECK(lanes("type = u8; convert(x) = x & 1; op = add;") == 0);
  CHECK(lanes("type = i8; combine(x, y) = x + y; identity = 0;") == 0);
  CHECK(lanes("type = i8; op = add; threads = 64; items = 3;") == 0);
  CHECK(lanes("type = i8; op = add; reverse = true;") == 0);
  CHECK(lanes("type = i8; op = add; algorithm = reduce_then_scan;") == 0);
  CHECK(lanes("type = i8; op = add;", Backend::OpenCL) == 0);
  // The tuning's packed = 0 turns it off (to compare).
  const scangen::dsl::Spec i8 = load_one("scan s { type = i8; op = add; }");
  const auto off = parse_tuning("packed=0", scangen::generator::device_tuning(i8, Backend::Cuda));
  CHECK(make_plan(i8, Backend::Cuda, off).packed_lanes == 0);
  // The plan says so.
  CHECK(scangen::generator::to_string(make_plan(i8, Backend::Cuda)).find("items packed 4 to a 32-bit word") !=
        std::string::npos);
  const scangen::dsl::Spec f16 = load_one("scan s { type = f16; op = add; }");
  CHECK(scangen::generator::to_string(make_plan(f16, Backend::Cuda)).find("(f16x2 additions)") != std::string::npos);
}

TEST_CASE("staged I/O in 16-byte words where a thread's items fill them", "[unit]") {
  // i8 x 64 items (the table's 1-byte row but for sums): 4 words per thread, in and out.
  const Plan i8 = make_plan(load_one("scan s { type = i8; op = max; }"), Backend::Cuda);
  CHECK(i8.staged_io);
  CHECK(i8.input_words == 4);
  CHECK(i8.output_words == 4);
  // 3 x 4-byte items are 12 bytes: elements one by one.
  const Plan odd = make_plan(load_one("scan s { type = i32; op = add; threads = 128; items = 3; }"), Backend::Cuda);
  CHECK(odd.input_words == 0);
  CHECK(odd.output_words == 0);
  // u8 inputs converted to i64, 128 x 32: 32 input bytes (2 words) and 256 output bytes (16 words) per thread.
  const Plan conv = make_plan(load_one("scan s { type = i64; input = u8; op = add; }"), Backend::Cuda);
  CHECK(conv.input_words == 2);
  CHECK(conv.output_words == 16);
  // An input wider than the element: the exchange grows to hold the input words.
  const Plan wide =
      make_plan(load_one("scan s { type = f16; input = f64; op = max; threads = 128; items = 16; }"), Backend::Cuda);
  CHECK(wide.input_words == 8);
  CHECK(wide.output_words == 2);
  CHECK(wide.block_shared_bytes >= 128 * 16 * 8);
  // OpenCL: never (PoCL mishandles the words' barriers under a condition; plan.cpp's decide_io).
  const Plan cl = make_plan(load_one("scan s { type = i8; op = add; }"), Backend::OpenCL);
  CHECK(cl.input_words == 0);
  CHECK(cl.output_words == 0);
  CHECK_THAT(scangen::generator::to_string(i8), Catch::Contains("16-byte words: 4 of inputs / 4 of outputs"));
}

TEST_CASE("scans of one source need different names and one backend", "[unit]") {
  const Plan a = make_plan(load_one("scan a { type = i32; op = add; level = block; }"), Backend::Cuda);
  const Plan b = make_plan(load_one("scan a { type = i32; op = max; level = block; }"), Backend::Cuda);
  const Plan c = make_plan(load_one("scan c { type = i32; op = max; level = block; }"), Backend::OpenCL);
  CHECK_THROWS_WITH(scangen::generator::emit({a, b}), Catch::Contains("two scans named 'a'"));
  CHECK_THROWS_WITH(scangen::generator::emit({a, c}), Catch::Contains("share a backend"));
  CHECK_NOTHROW(scangen::generator::emit(
      {a, make_plan(load_one("scan d { type = i32; op = max; level = block; }"), Backend::Cuda)}));
}

TEST_CASE("workspace sizes near 2^64 elements do not wrap", "[unit]") {
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    const Plan p = make_plan(load_one("scan s { type = i32; op = add; }"), b);
    const uint64_t n = std::numeric_limits<uint64_t>::max();
    const uint64_t tiles = n / p.tile + 1;  // n is not a multiple of a power-of-two tile
    CHECK(scangen::generator::workspace_bytes(p, n) == 16 + tiles * p.status_bytes);
    CHECK(scangen::generator::workspace_bytes(p, n - 1) == 16 + tiles * p.status_bytes);
  }
  const Plan rts = make_plan(load_one("scan s { type = f64; op = add; deterministic = true; }"), Backend::Cuda);
  CHECK(scangen::generator::workspace_bytes(rts, std::numeric_limits<uint64_t>::max()) ==
        (std::numeric_limits<uint64_t>::max() / rts.tile + 1) * 8);
}

TEST_CASE("targets: the tuning table by architecture, with the sm_90 entries as the default", "[unit]") {
  using scangen::generator::cuda_arch_number;
  using scangen::generator::DeviceTuning;
  using scangen::generator::Target;
  CHECK(cuda_arch_number("sm_90") == 90);
  CHECK(cuda_arch_number("sm_90a") == 90);
  CHECK(cuda_arch_number("compute_86") == 86);
  CHECK(cuda_arch_number("banana") == 0);
  CHECK(cuda_arch_number("sm_") == 0);
  CHECK(cuda_arch_number("sm_90ab") == 0);
  CHECK(scangen::generator::to_string(Target{Backend::Cuda, 90}) == "cuda sm_90");
  CHECK(scangen::generator::to_string(Target{Backend::Cuda, 0}) == "cuda, any architecture");
  CHECK(scangen::generator::to_string(Target{Backend::OpenCL, 0}) == "opencl");
  const scangen::dsl::Spec i32 = load_one("scan s { type = i32; op = add; }");
  const DeviceTuning any = scangen::generator::device_tuning(i32, Backend::Cuda);
  const DeviceTuning h100 = scangen::generator::device_tuning(i32, Target{Backend::Cuda, 90});
  const DeviceTuning other = scangen::generator::device_tuning(i32, Target{Backend::Cuda, 80});
  CHECK(any.arch == 90);
  CHECK(scangen::generator::to_string(any) == scangen::generator::to_string(h100));
  CHECK(scangen::generator::to_string(other) == scangen::generator::to_string(h100));
  CHECK(std::string(other.why) == h100.why);
  CHECK(scangen::generator::device_tuning(i32, Backend::OpenCL).arch == 0);
  // Another architecture plans the same text (no entry of its own yet) and says so.
  const Plan p80 = make_plan(i32, Target{Backend::Cuda, 80});
  CHECK(p80.arch == 80);
  CHECK(scangen::generator::emit(p80) == scangen::generator::emit(make_plan(i32, Backend::Cuda)));
  CHECK_THAT(scangen::generator::to_string(p80), Catch::Contains("target: cuda sm_80; the tuning table's sm_90 entry"));
  CHECK(make_plan(i32, Target{Backend::OpenCL, 90}).arch == 0);
}

TEST_CASE("the tuning table's rows for a device serve that device of a known architecture only", "[unit]") {
  using scangen::generator::DeviceTuning;
  using scangen::generator::Target;
  const scangen::dsl::Spec f16 = load_one("scan s { type = f16; op = add; }");
  const scangen::dsl::Spec i16 = load_one("scan s { type = i16; op = add; }");
  const DeviceTuning h100 = scangen::generator::device_tuning(f16, Target{Backend::Cuda, 90, "NVIDIA H100 80GB HBM3"});
  const DeviceTuning h200 = scangen::generator::device_tuning(f16, Target{Backend::Cuda, 90, "NVIDIA H200"});
  CHECK(h100.threads == 128);
  CHECK(h100.min_blocks == 0);
  CHECK(std::string(h100.device).empty());
  // bench/RESULTS.md, "Rows for a device": the f16 sum on the H200 at 128 x 64, at least 10 blocks per SM.
  CHECK(h200.threads == 128);
  CHECK(h200.items == 64);
  CHECK(h200.min_blocks == 10);
  CHECK(std::string(h200.device) == "H200");
  // The GH200's name holds the H200's.
  CHECK(scangen::generator::device_tuning(f16, Target{Backend::Cuda, 90, "NVIDIA GH200 480GB"}).min_blocks == 10);
  // Not for another type of the same size, another architecture, an unknown one, or no name.
  CHECK(scangen::generator::device_tuning(i16, Target{Backend::Cuda, 90, "NVIDIA H200"}).min_blocks == 0);
  CHECK(scangen::generator::device_tuning(f16, Target{Backend::Cuda, 0, "NVIDIA H200"}).min_blocks == 0);
  CHECK(scangen::generator::device_tuning(f16, Target{Backend::Cuda, 80, "NVIDIA H200"}).min_blocks == 0);
  CHECK(scangen::generator::device_tuning(f16, Target{Backend::Cuda, 90}).min_blocks == 0);
  // Nor for a scan other than the plain flat one the row was measured on.
  CHECK(std::string(scangen::generator::device_tuning(load_one("scan s { type = f16; op = add; reverse = true; }"),
                                                      Target{Backend::Cuda, 90, "NVIDIA H200"})
                        .device)
            .empty());
  const Plan p = make_plan(f16, Target{Backend::Cuda, 90, "NVIDIA H200"});
  CHECK(p.block_threads == 128);
  CHECK(p.tuning.min_blocks == 10);
  CHECK_THAT(scangen::generator::to_string(p),
             Catch::Contains("target: cuda sm_90; the tuning table's sm_90 entry for H200 devices"));
  CHECK(scangen::generator::emit(p) !=
        scangen::generator::emit(make_plan(f16, Target{Backend::Cuda, 90, "NVIDIA H100 80GB HBM3"})));
}

TEST_CASE("the tuning table's row for segmented scans of 9 - 12-byte pairs serves those alone", "[unit]") {
  using scangen::generator::Target;
  const std::string affine =
      "type Affine { a: f32, b: f32 }\n"
      "scan s { type = Affine; combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };"
      " identity = Affine { a: 1.0, b: 0.0 }; level = device; ";
  // bench/RESULTS.md, "The affine sequences' tiles": the (count, map) pairs of 12 bytes at 128 x 16.
  for (const char* form : {"segments = offsets; offset = u32;", "segments = offsets; offset = u32; reverse = true;",
                           "segments = flags;", "segments = keys;"}) {
    INFO(form);
    const Plan p = make_plan(load_one(affine + form + " }"), Target{Backend::Cuda, 90});
    CHECK(p.segmented.pair_bytes == 12);
    CHECK(p.block_threads == 128);
    CHECK(p.items == 16);
    CHECK(p.tuning.tagged_words == 1);
    CHECK(p.staged_io);
    CHECK(p.dynamic_shared_bytes == 0);  // 2048 pairs fit the static 48 KiB
  }
  // The flat scan of the same maps, a segmented one of 16-byte pairs (f64) and OpenCL keep their rows.
  const Plan flat = make_plan(load_one(affine + "}"), Target{Backend::Cuda, 90});
  CHECK(flat.block_threads == 128);
  CHECK(flat.items == 32);
  const Plan f64 = make_plan(load_one("scan s { type = f64; op = add; segments = flags; }"), Target{Backend::Cuda, 90});
  CHECK(f64.segmented.pair_bytes == 16);
  CHECK(f64.block_threads == 64);
  const Plan cl = make_plan(load_one(affine + "segments = flags; }"), Target{Backend::OpenCL, 0});
  CHECK(cl.block_threads == 256);
}

TEST_CASE("template constants are spelled from the plan's fields", "[unit]") {
  auto constant = [](const Plan& p, const std::string& name) {
    for (const auto& [k, v] : scangen::generator::template_constants(p))
      if (k == name) return v;
    return std::string("(none)");
  };
  const Plan cuda = make_plan(load_one("scan s { type = f64; op = add; }"), Backend::Cuda);
  CHECK(constant(cuda, "SG_STATUS_KIND") == "SG_STATUS_WORD128");  // by name
  CHECK(constant(cuda, "SG_STATUS_WORD128") == "2");
  CHECK(constant(cuda, "SG_ITEMS") == std::to_string(cuda.items));
  CHECK(constant(cuda, "SG_TILE") == std::to_string(cuda.tile));
  CHECK(constant(cuda, "SG_SPIN") == "(none)");
  const Plan cl = make_plan(load_one("scan s { type = f64; op = add; }"), Backend::OpenCL);
  CHECK(cl.status_reads == scangen::generator::kOpenCLStatusReads);
  CHECK(constant(cl, "SG_SPIN") == std::to_string(scangen::generator::kOpenCLStatusReads));
  CHECK(constant(cl, "SG_STATUS_KIND") == "SG_STATUS_TAGGED_WORDS");
  const Plan block =
      make_plan(load_one("scan s { type = i32; op = add; level = block; threads = 64; items = 2; }"), Backend::Cuda);
  CHECK(constant(block, "SG_STATUS_KIND") == "(none)");
  CHECK(constant(block, "SG_TILE") == "(none)");
  CHECK(constant(block, "SG_THREADS") == "64");
}

TEST_CASE("templates: each once, helpers before their users, every one embedded", "[unit]") {
  for (const std::string& t : scangen::generator::known_templates()) {
    INFO(t);
    CHECK(scangen::generator::template_embedded(t));
  }
  const Plan raking =
      make_plan(load_one("scan s { type = i32; op = add; level = block; threads = 64; items = 2; }"), Backend::Cuda);
  CHECK(raking.uses_lanes);
  CHECK(raking.templates == std::vector<std::string>{"common/lanes_shfl.h", "common/block_raking.h", "common/api.h",
                                                     "common/io.h", "common/entry.h"});
  const Plan tree = make_plan(load_one("scan s { type = i32; op = add; level = block; algorithm = blelloch; "
                                       "threads = 64; items = 2; }"),
                              Backend::OpenCL);
  CHECK_FALSE(tree.uses_lanes);
  CHECK(tree.templates.front() == "common/block_blelloch.h");
  const Plan lookback = make_plan(load_one("scan s { type = i32; op = add; }"), Backend::OpenCL);
  CHECK(lookback.templates == std::vector<std::string>{"common/lanes_shfl.h", "opencl/lanes_local.cl",
                                                       "common/block_raking.h", "common/api.h", "common/io.h",
                                                       "common/device.h", "opencl/lookback.cl",
                                                       "common/device_lookback.h", "common/device_tile_prefix.h"});
  for (const Plan* p : {&raking, &tree, &lookback})
    for (const std::string& t : p->templates) CHECK(scangen::generator::template_embedded(t));
}

TEST_CASE("the look-back for kernels of the user's own: flat decoupled look-back scans only", "[unit]") {
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    const Plan flat = make_plan(load_one("scan s { type = i32; op = add; }"), b);
    CHECK(flat.tile_prefix);
    CHECK(flat.templates.back() == "common/device_tile_prefix.h");
    CHECK(flat.device_functions.size() == 7);
    CHECK(flat.device_functions[5] == "s_device_tile_ticket");
    CHECK(flat.device_functions[6] == "s_device_tile_prefix");
    for (const char* text :
         {"scan s { type = i32; op = add; algorithm = reduce_then_scan; }",
          "scan s { type = i32; op = add; segments = flags; }", "scan s { type = i32; op = add; shape = rows; }",
          "scan s { type = i32; op = add; level = block; threads = 64; items = 2; }"}) {
      INFO(text);
      const Plan p = make_plan(load_one(text), b);
      CHECK_FALSE(p.tile_prefix);
      for (const std::string& t : p.templates) CHECK(t != "common/device_tile_prefix.h");
      for (const std::string& f : p.device_functions) CHECK(f.find("device_tile") == std::string::npos);
    }
  }
}

TEST_CASE("seed, outputs and the running-total counter are decided from the spec's values", "[unit]") {
  CHECK_FALSE(make_plan(load_one("scan s { type = i32; op = add; init = 0; level = block; threads = 32; items = 1; }"),
                        Backend::Cuda)
                  .seeded);
  CHECK(make_plan(load_one("scan s { type = i32; op = add; init = 5; level = block; threads = 32; items = 1; }"),
                  Backend::Cuda)
            .seeded);
  // -0.0 is not the identity 0.0 of a float sum (its bits differ).
  CHECK(make_plan(load_one("scan s { type = f32; combine(x, y) = x + y; identity = 0.0; init = -0.0; "
                           "level = block; threads = 32; items = 1; }"),
                  Backend::Cuda)
            .seeded);
  const Plan counted = make_plan(load_one("scan s { type = u32; op = max; mode = both; outputs = running_total; "
                                          "level = block; threads = 32; items = 1; }"),
                                 Backend::OpenCL);
  REQUIRE(counted.counter);
  CHECK(counted.counter->kind == scangen::dsl::ScalarKind::U32);
  CHECK(counted.counter->op == scangen::dsl::BuiltinOp::Max);
  CHECK(counted.outputs.inclusive);
  CHECK(counted.outputs.exclusive);
  CHECK_FALSE(counted.outputs.aggregate);
  CHECK(counted.outputs.running_total);
  CHECK_FALSE(counted.output_may_alias_input);
  const Plan device =
      make_plan(load_one("scan s { type = f32; op = add; outputs = aggregate, running_total; }"), Backend::Cuda);
  CHECK_FALSE(device.counter);
  CHECK(device.output_may_alias_input);
  CHECK(scangen::generator::aggregate_elements(device, 1000) == 1);
  CHECK(scangen::generator::aggregate_elements(counted, 65) == 3);
  CHECK(scangen::generator::aggregate_elements(counted, 0) == 0);
}

TEST_CASE("reverse scans: the mirror's template and SG_REVERSE, nothing of them in a forward scan", "[unit]") {
  for (const char* level : {"warp(8)", "block", "device"}) {
    INFO("level " << level);
    const std::string text = std::string("scan s { type = i32; op = add; level = ") + level + "; reverse = ";
    for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
      const Plan rev = make_plan(load_one(text + "true; }"), b);
      const Plan fwd = make_plan(load_one(text + "false; }"), b);
      CHECK(rev.reverse);
      CHECK_FALSE(fwd.reverse);
      auto has = [](const Plan& p, const std::string& t) {
        for (const std::string& x : p.templates)
          if (x == t) return true;
        return false;
      };
      CHECK(has(rev, "common/io_mirror.h"));
      CHECK_FALSE(has(fwd, "common/io_mirror.h"));
      const std::string rs = scangen::generator::emit(rev), fs = scangen::generator::emit(fwd);
      CHECK(rs.find("#define SG_REVERSE 1") != std::string::npos);
      CHECK(fs.find("SG_REVERSE") == std::string::npos);
      CHECK(fs.find("sg_mirror") == std::string::npos);
      CHECK(rs.find("s_sg_mirror_first") != std::string::npos);
      // Each of the four load and store functions once: the mirror's, not io.h's too.
      CHECK(rs.find("void s_sg_load(") == rs.rfind("void s_sg_load("));
      CHECK(scangen::generator::to_string(rev).find("order: reverse") != std::string::npos);
      CHECK(scangen::generator::to_string(fwd).find("order:") == std::string::npos);
      // The kernels and their parameters are the forward scan's.
      REQUIRE(rev.kernels.size() == fwd.kernels.size());
      for (size_t k = 0; k < rev.kernels.size(); ++k)
        CHECK(rev.kernels[k].params.size() == fwd.kernels[k].params.size());
    }
  }
}

TEST_CASE("segmented scans scan (count, value) pairs with the form's parameters", "[unit][segmented]") {
  using scangen::generator::ParamRole;
  // i32: an 8-byte pair, statuses of 16-byte words on CUDA.
  const Plan flags =
      make_plan(load_one("scan s { type = i32; op = add; segments = flags; outputs = aggregate; }"), Backend::Cuda);
  CHECK(flags.segmented.on());
  CHECK(flags.element_bytes == 4);
  CHECK(flags.segmented.pair_bytes == 8);
  CHECK(flags.status == StatusLayout::Word128);
  CHECK(flags.output_words == 0);  // values, not pairs, go out
  CHECK(flags.templates.front() == "common/segmented_pair.h");
  CHECK(flags.templates.back() == "common/device_segmented.h");
  REQUIRE(flags.kernels.size() == 1);
  std::vector<ParamRole> roles;
  for (const auto& k : flags.kernels[0].params) roles.push_back(k.role);
  CHECK(roles == std::vector<ParamRole>{ParamRole::Input, ParamRole::Inclusive, ParamRole::SegmentAggregates,
                                        ParamRole::SegmentFlags, ParamRole::Count, ParamRole::Workspace});
  // Offsets: the offsets and their count; a 16-byte pair of an 8-byte-aligned f64.
  const Plan offsets = make_plan(
      load_one("scan s { type = f64; op = add; mode = both; segments = offsets; offset = i64; }"), Backend::OpenCL);
  CHECK(offsets.segmented.pair_bytes == 16);
  CHECK(offsets.segmented.offset_type == "scangen_i64");
  // Forward and without segment aggregates: the offsets become bits first (Plan::Segmented::head_bits),
  // by the heads kernel, launched before the scan kernel with the offsets, their count, n and the workspace.
  CHECK(offsets.segmented.head_bits);
  REQUIRE(offsets.kernels.size() == 2);
  CHECK(offsets.kernels[0].name == "s_seg_heads_kernel");
  roles.clear();
  for (const auto& k : offsets.kernels[0].params) roles.push_back(k.role);
  CHECK(roles == std::vector<ParamRole>{ParamRole::SegmentOffsets, ParamRole::SegmentCount, ParamRole::Count,
                                        ParamRole::Workspace});
  roles.clear();
  for (const auto& k : offsets.kernels[1].params) roles.push_back(k.role);
  CHECK(roles == std::vector<ParamRole>{ParamRole::Input, ParamRole::Inclusive, ParamRole::Exclusive,
                                        ParamRole::SegmentOffsets, ParamRole::SegmentCount, ParamRole::Count,
                                        ParamRole::Workspace});
  CHECK(offsets.kernels[1].name == offsets.entry_kernel);
  // The bits follow the statuses: ceil(tile / 32) words a tile more, zeroed even for one tile.
  const uint64_t t = offsets.tile;
  CHECK(scangen::generator::workspace_bytes(offsets, 2 * t) - scangen::generator::workspace_bytes(offsets, t) ==
        offsets.status_bytes + 4 * ((t + 31) / 32));
  CHECK(scangen::generator::workspace_zero_bytes(offsets, 1) == scangen::generator::workspace_bytes(offsets, 1));
  CHECK(scangen::generator::workspace_zero_bytes(offsets, 0) == 0);
  // With segment aggregates (each segment's index) or reverse, the tile searches its offsets: one kernel.
  for (const char* other : {"scan s { type = f64; op = add; segments = offsets; outputs = aggregate; }",
                            "scan s { type = f64; op = add; segments = offsets; reverse = true; }"}) {
    INFO(other);
    const Plan q = make_plan(load_one(other), Backend::OpenCL);
    CHECK(!q.segmented.head_bits);
    CHECK(q.kernels.size() == 1);
    CHECK(scangen::generator::workspace_zero_bytes(q, 1) == 0);
  }
  // Keys: the keys' type; a 2-byte value still makes an 8-byte pair.
  const Plan keys = make_plan(load_one("scan s { type = f16; op = max; segments = keys; key = u64; }"), Backend::Cuda);
  CHECK(keys.segmented.pair_bytes == 8);
  CHECK(keys.segmented.key_type == "scangen_u64");
  CHECK(keys.kernels[0].params[1].role == ParamRole::Inclusive);
  CHECK(keys.kernels[0].params[2].role == ParamRole::SegmentKeys);
  // The templates scan the pair: the constants say so.
  const std::string text = scangen::generator::emit(keys);
  CHECK(text.find("#define SG_T s_seg\n") != std::string::npos);
  CHECK(text.find("#define SG_VALUE_T s_T\n") != std::string::npos);
  CHECK(text.find("#define SG_SEGMENTS SG_SEGMENTS_KEYS\n") != std::string::npos);
  CHECK(text.find("#define SG_SEGMENTS_KEYS 3\n") != std::string::npos);
}

TEST_CASE("segments by key with key_equal compare neighbour keys by P_key_equal(before, own)", "[unit][segmented]") {
  const char* const with = "scan s { type = i32; op = add; segments = keys; key = u32; key_equal(a, b) = a % 4 == b; }";
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    const Plan p = make_plan(load_one(with), b);
    CHECK(p.segmented.key_equal);
    const std::string text = scangen::generator::emit(p);
    INFO(text);
    CHECK(text.find(" bool s_key_equal(scangen_u32 a, scangen_u32 b) {\n") != std::string::npos);
    // The three comparisons: a thread's own keys, the key before its items and the one after them.
    CHECK(text.find("!(s_key_equal(keys[p - 1], keys[p]))") != std::string::npos);
    CHECK(text.find("!(s_key_equal(i == 0 ? before : e[i - 1], e[i]))") != std::string::npos);
    CHECK(text.find("!(s_key_equal(e[SG_ITEMS - 1], after))") != std::string::npos);
    CHECK(text.find("keys[p] == keys[p - 1]") == std::string::npos);
    CHECK(text.find("after == e[SG_ITEMS - 1]") == std::string::npos);
    CHECK(text.find("SG_BEGIN") == std::string::npos);
    CHECK(scangen::generator::to_string(p).find(
              "key_equal(a, b) = a % u32(4) == b is false for the key before (a) and its own (b)") !=
          std::string::npos);
    // Without key_equal: C's ==, and no P_key_equal.
    const Plan plain = make_plan(load_one("scan s { type = i32; op = add; segments = keys; key = u32; }"), b);
    CHECK(!plain.segmented.key_equal);
    const std::string plain_text = scangen::generator::emit(plain);
    CHECK(plain_text.find("!(keys[p] == keys[p - 1])") != std::string::npos);
    CHECK(plain_text.find("!(after == e[SG_ITEMS - 1])") != std::string::npos);
    CHECK(plain_text.find("key_equal") == std::string::npos);
  }
}

TEST_CASE("an unsegmented scan's plan and text know nothing of segments", "[unit][segmented]") {
  const scangen::dsl::Spec spec = load_one("scan s { type = i32; op = add; }");
  CHECK(spec.to_string().find("segments") == std::string::npos);
  const Plan p = make_plan(spec, Backend::Cuda);
  CHECK(!p.segmented.on());
  CHECK(scangen::generator::emit(p).find("SG_SEGMENTS") == std::string::npos);
}

TEST_CASE("a segmented spec prints its segments and reads back the same", "[unit][segmented]") {
  const scangen::dsl::Spec spec = load_one("scan s { type = i32; op = add; segments = offsets; offset = u64; }");
  const std::string text = spec.to_string();
  CHECK(text.find("  segments = offsets;\n  offset = u64;\n") != std::string::npos);
  CHECK(load_one(text) == spec);
  const scangen::dsl::Spec keys = load_one("scan s { type = i32; op = add; segments = keys; key = f32; }");
  CHECK(load_one(keys.to_string()) == keys);
  CHECK(!(keys == spec));
}

// ---- shape = rows / strided ---------------------------------------------------

namespace {

using scangen::generator::RunShape;
using scangen::generator::shape_call;

RunShape rows_shape(uint64_t rows, uint64_t length, uint64_t stride = 0, uint64_t out_stride = 0) {
  RunShape s;
  s.rows = rows;
  s.length = length;
  s.in_row_stride = stride;
  s.out_row_stride = out_stride;
  return s;
}

RunShape strided_shape(std::vector<uint64_t> extents, std::vector<uint64_t> strides, int axis) {
  RunShape s;
  s.rank = static_cast<int>(extents.size());
  s.axis = axis;
  for (size_t d = 0; d < extents.size() && d < 4; ++d) {  // a rank of 5 keeps 4
    s.extents[d] = extents[d];
    s.in_strides[d] = strides[d];
  }
  return s;
}

}  // namespace

TEST_CASE("plan: a flat scan has no shape and its text does not change", "[plan][shape]") {
  const Plan p = make_plan(load_one("scan s { type = i32; op = add; level = device; }"), Backend::Cuda);
  CHECK(p.shape == scangen::dsl::Shape::Flat);
  CHECK(p.shape_shared_bytes == 0);
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.kernels[0].name == "s_scan_kernel");
  CHECK_THROWS_WITH(shape_call(p, rows_shape(2, 3)), Catch::Contains("has no run-time shape"));
}

TEST_CASE("plan: shape = rows has one kernel of the shape's geometry", "[plan][shape]") {
  for (Backend b : {Backend::Cuda, Backend::OpenCL}) {
    const Plan p = make_plan(load_one("scan s { type = f32; op = add; level = device; shape = rows; }"), b);
    REQUIRE(p.kernels.size() == 1);
    CHECK(p.kernels[0].name == "s_rows_kernel");
    CHECK(p.kernels[0].blocks == scangen::generator::Grid::Shaped);
    CHECK(p.entry_kernel == "s_rows_kernel");
    CHECK(p.shape_shared_bytes > 0);
    CHECK(scangen::generator::to_string(p).find("shape: rows") != std::string::npos);
    // Many short rows share tiles; long rows span them; tiles x status bytes of workspace.
    const auto many = shape_call(p, rows_shape(1000, 3));
    CHECK(many.blocks == (3000 + p.tile - 1) / p.tile);
    const auto few = shape_call(p, rows_shape(3, 2 * p.tile + 1, 3 * p.tile));
    CHECK(few.blocks == (6 * p.tile + 3 + p.tile - 1) / p.tile);
    CHECK(few.workspace_bytes == 16 + few.blocks * p.status_bytes);
    CHECK(few.zero_bytes == few.workspace_bytes);
    CHECK(few.in_span == 2 * 3 * p.tile + 2 * p.tile + 1);
    CHECK(few.out_row_stride == 3 * p.tile);                 // the outputs' stride defaults to the input's
    CHECK(shape_call(p, rows_shape(1, 5)).zero_bytes == 0);  // one tile zeroes nothing
    CHECK(shape_call(p, rows_shape(0, 5)).blocks == 1);
    CHECK(scangen::generator::launch_blocks(p, p.kernels[0], rows_shape(1000, 3)) == many.blocks);
    CHECK_THROWS_WITH(shape_call(p, rows_shape(2, 10, 9)), Catch::Contains("below the row length"));
    CHECK_THROWS_WITH(shape_call(p, rows_shape(1ull << 40, 1ull << 40)), Catch::Contains("overflows 64 bits"));
    CHECK_THROWS_WITH(shape_call(p, strided_shape({2, 2}, {2, 1}, 0)), Catch::Contains("not a strided shape"));
  }
}

TEST_CASE("plan: shape = strided takes the rows kernel for a contiguous axis, else the axis kernel", "[plan][shape]") {
  const Plan p = make_plan(load_one("scan s { type = f32; op = add; level = device; shape = strided; }"),
                           scangen::generator::Target{Backend::Cuda, 90});
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.kernels[0].name == "s_rows_kernel");
  CHECK(p.kernels[1].name == "s_axis_kernel");
  // The contiguous axis of a row-major (R, C) matrix: rows.
  auto c = shape_call(p, strided_shape({1000, 64}, {64, 1}, 1));
  CHECK(c.kernel == &p.kernels[0]);
  CHECK(c.rows == 1000);
  CHECK(c.length == 64);
  CHECK(c.in_row_stride == 64);
  // A 3-d array along its last axis whose lines lie evenly: rows too.
  c = shape_call(p, strided_shape({4, 5, 6}, {30, 6, 1}, 2));
  CHECK(c.kernel == &p.kernels[0]);
  CHECK(c.rows == 20);
  // Lines that do not lie evenly (a sliced middle dimension): the axis kernel.
  c = shape_call(p, strided_shape({4, 5, 6}, {60, 6, 1}, 2));
  CHECK(c.kernel == &p.kernels[1]);
  // The column scan: 32 lanes across 32 columns, chunks of (threads / 32) x items rows.
  c = shape_call(p, strided_shape({1 << 20, 32}, {32, 1}, 0));
  CHECK(c.kernel == &p.kernels[1]);
  CHECK(c.lanes == 32);
  const uint64_t chunk = static_cast<uint64_t>(p.block_threads / 32) * p.items;
  CHECK(c.blocks == ((1u << 20) + chunk - 1) / chunk);
  CHECK(c.extent[3] == (1u << 20));
  CHECK(c.in_stride[3] == 32);
  CHECK(c.extent[2] == 32);
  CHECK(c.extent[0] == 1);
  // Two columns: 2 lanes, deeper chunks.
  c = shape_call(p, strided_shape({1 << 20, 2}, {2, 1}, 0));
  CHECK(c.lanes == 2);
  CHECK(c.blocks == ((1u << 20) + static_cast<uint64_t>(p.block_threads / 2) * p.items - 1) /
                        (static_cast<uint64_t>(p.block_threads / 2) * p.items));
  CHECK_THROWS_WITH(shape_call(p, strided_shape({2, 2, 2, 2, 2}, {16, 8, 4, 2, 1}, 0)),
                    Catch::Contains("1 to 4 dimensions"));
  CHECK_THROWS_WITH(shape_call(p, strided_shape({2, 2}, {2, 1}, 2)), Catch::Contains("not a dimension"));
  CHECK_THROWS_WITH(shape_call(p, rows_shape(2, 2)), Catch::Contains("not rows"));
}

TEST_CASE("plan: CUDA shape kernels of 4-byte elements with one output keep 24 warps an SM or more", "[plan][shape]") {
  const auto plan = [](const std::string& body, Backend b) {
    return make_plan(load_one("scan s { level = device; " + body + " }"), b);
  };
  const auto constant = [](const Plan& p, const std::string& name) {
    for (const auto& [k, v] : scangen::generator::template_constants(p))
      if (k == name) return v;
    return std::string("(none)");
  };
  // Batched rows: blocks of 128 threads, at least 8 an SM (their tuning row; 6 in fixed order); the axis
  // kernel: 256, at least 3.
  for (const char* shape : {"shape = rows;", "shape = strided;"}) {
    INFO(shape);
    const bool rows = std::string(shape) == "shape = rows;";
    const int threads = rows ? 128 : 256, blocks = rows ? 8 : 3;
    const std::string f32 = std::string("type = f32; op = add; ") + shape;
    const Plan p = plan(f32, Backend::Cuda);
    CHECK(p.block_threads == threads);
    CHECK(p.shape_min_blocks == blocks);
    CHECK(p.min_blocks == 0);  // no flat kernel
    CHECK(constant(p, "SG_SHAPE_MIN_BLOCKS") == std::to_string(blocks));
    CHECK(scangen::generator::to_string(p).find("at least " + std::to_string(blocks) +
                                                " blocks per SM for the shape kernels") != std::string::npos);
    CHECK(plan(f32 + " reverse = true;", Backend::Cuda).shape_min_blocks == blocks);
    CHECK(plan(f32 + " reverse = true; deterministic = true;", Backend::Cuda).shape_min_blocks == (rows ? 6 : 3));
    CHECK(plan(std::string("type = u32; input = u8; op = add; mode = exclusive; ") + shape, Backend::Cuda)
              .shape_min_blocks == blocks);
    // Two outputs, aggregates and wider elements take more registers than the bound leaves; OpenCL has none.
    CHECK(plan(f32 + " mode = both;", Backend::Cuda).shape_min_blocks == 0);
    CHECK(plan(f32 + " outputs = aggregate;", Backend::Cuda).shape_min_blocks == 0);
    CHECK(plan(std::string("type = f64; op = add; ") + shape, Backend::Cuda).shape_min_blocks == 0);
    CHECK(plan(f32, Backend::OpenCL).shape_min_blocks == 0);
    CHECK(plan(f32, Backend::OpenCL).block_threads == 256);
    // A tile given in the spec keeps no bound of the row's.
    CHECK(plan(f32 + " threads = 128; items = 32;", Backend::Cuda).shape_min_blocks == 0);
  }
  const Plan flat = plan("type = f32; op = add;", Backend::Cuda);
  CHECK(flat.shape_min_blocks == 0);
  CHECK(constant(flat, "SG_SHAPE_MIN_BLOCKS") == "(none)");
}

TEST_CASE("plan: reverse rows move 16-byte words on CUDA, as forward rows do", "[plan][shape]") {
  for (const bool reverse : {false, true}) {
    INFO("reverse " << reverse);
    const Plan p = make_plan(load_one(std::string("scan s { type = f32; op = add; level = device; shape = rows;") +
                                      (reverse ? " reverse = true;" : "") + " }"),
                             Backend::Cuda);
    CHECK(p.input_words > 0);
    CHECK(p.output_words > 0);
  }
}

TEST_CASE("plan: a shape refuses what it is not generated with", "[plan][shape]") {
  scangen::dsl::Spec s = load_one("scan s { type = i32; op = add; level = device; shape = rows; }");
  s.algorithm = scangen::dsl::Algorithm::ReduceThenScan;
  CHECK_THROWS_WITH(make_plan(s, Backend::Cuda), Catch::Contains("needs a device-level decoupled_lookback scan"));
}

TEST_CASE("head_flags: the pair's group scan after the scan's own, under P_seg_*", "[unit][head_flags]") {
  const std::string text =
      "type M { a: i64, b: i64, c: i64, d: i64 }\n"
      "scan hm { type = M; combine(x, y) = M { a: x.a * y.a + x.b * y.c, b: x.a * y.b + x.b * y.d,"
      " c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = M { a: 1, b: 0, c: 0, d: 1 };"
      " level = warp(16); threads = 64; items = 2; head_flags = true; }";
  const Plan p = make_plan(load_one(text), Backend::Cuda);
  REQUIRE(p.head_flags.on);
  CHECK(p.exchange == LaneExchange::Shuffle);                  // the 32-byte matrix shuffles
  CHECK(p.head_flags.exchange == LaneExchange::SharedMemory);  // its 40-byte pair does not
  CHECK(p.head_flags.pair_bytes == 40);
  CHECK(p.head_flags.temp_bytes == 16 * 40);
  CHECK(p.head_flags.templates == std::vector<std::string>{"common/segmented_pair.h", "cuda/lanes_shared.cuh",
                                                           "common/warp.h", "common/api_segmented.h"});
  CHECK(std::find(p.device_functions.begin(), p.device_functions.end(), "hm_inclusive_exclusive_segmented") !=
        p.device_functions.end());
  const std::string cu = scangen::generator::emit(p);
  for (const char* name : {"hm_seg_temp;", "hm_inclusive_segmented(", "hm_exclusive_segmented(",
                           "hm_inclusive_exclusive_segmented(", "hm_seg_sg_group_exclusive(", "hm_temp;"})
    CHECK(cu.find(name) != std::string::npos);
  // The scan's own group scan shuffles the matrix; the pair's goes through shared memory.
  CHECK(cu.find("templates/common/lanes_shfl.h") < cu.find("its head-flag functions"));
  CHECK(cu.find("its head-flag functions") < cu.find("templates/cuda/lanes_shared.cuh"));
  for (const auto& [k, v] : scangen::generator::head_flag_constants(p)) {
    if (k == "SG_T") CHECK(v == "hm_seg");
    if (k == "SG_VALUE_T") CHECK(v == "hm_T");
    if (k == "SG_LANE_SCRATCH") CHECK(v == "16");
    CHECK(k != "SG_SHFL_WORDS");
  }
  // Without head_flags nothing of it; at device level the plan refuses it (the checker's backstop).
  scangen::dsl::Spec off = load_one("scan s { type = i32; op = add; level = block; threads = 64; }");
  const Plan q = make_plan(off, Backend::OpenCL);
  CHECK_FALSE(q.head_flags.on);
  CHECK(scangen::generator::emit(q).find("segmented") == std::string::npos);
  off.level = scangen::dsl::Level::Device;
  off.threads = 0;
  off.head_flags = true;
  CHECK_THROWS_WITH(make_plan(off, Backend::Cuda), Catch::Contains("head_flags is for warp- and block-level scans"));
}

TEST_CASE("input arrays: one kernel parameter per array, each in 16-byte words where its items fill them", "[unit]") {
  const scangen::dsl::Spec soa = load_one(
      "type Affine { a: f32, b: f32 }\n"
      "scan soa { type = Affine; input = f32, u8; convert(a, b) = Affine { a: a, b: f32(b) };"
      " combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b }; identity = Affine { a: 1.0, b: 0.0 }; }");
  const Plan p = make_plan(soa, Backend::Cuda);
  REQUIRE(p.input_arrays);
  REQUIRE(p.arrays.size() == 2);
  CHECK(p.arrays[0].name == "in_a");
  CHECK(p.arrays[0].type == "soa_In_a");
  CHECK(p.arrays[0].words == p.items * 4 / 16);
  CHECK(p.arrays[1].words == (p.items % 16 == 0 ? p.items / 16 : 0));
  CHECK_FALSE(p.tile_prefix);
  CHECK_FALSE(p.output_may_alias_input);
  const auto& params = p.kernels.back().params;
  REQUIRE(params.size() >= 3);
  CHECK(params[0].role == scangen::generator::ParamRole::InputArray);
  CHECK(params[0].array == 0);
  CHECK(params[1].name == "in_b");
  CHECK(params[1].array == 1);
  CHECK(params[2].role == scangen::generator::ParamRole::Inclusive);
  // The exchange holds each array's words.
  CHECK(p.exchange_elements * p.element_bytes >= p.tile * 4);
  const Plan o = make_plan(soa, Backend::OpenCL);
  CHECK(o.arrays[0].words == 0);  // OpenCL: element by element through the exchange
  const Plan none =
      make_plan(load_one("scan c { type = u64; input = none; convert(i) = i; op = add; }"), Backend::Cuda);
  CHECK(none.arrays.empty());
  CHECK(none.kernels.back().params.front().role == scangen::generator::ParamRole::Inclusive);
}

TEST_CASE(
    "a flat or segmented look-back scan whose exchange passes 48 KiB keeps it in dynamic shared memory on a "
    "known GPU",
    "[unit]") {
  using scangen::generator::Target;
  const auto spec = [](const std::string& type, int threads, int items, const std::string& more = "") {
    return load_one("scan s { type = " + type + "; op = add; level = device; threads = " + std::to_string(threads) +
                    "; items = " + std::to_string(items) + ";" + more + " }");
  };
  const auto s = spec("i32", 256, 48);  // an exchange of (12288 + 384 + 8) x 4 bytes
  const Plan p = make_plan(s, Target{Backend::Cuda, 90});
  CHECK(p.staged_io);
  CHECK(p.dynamic_shared_bytes > 48u * 1024u);
  CHECK(p.dynamic_shared_bytes >= p.exchange_elements * 4u);
  CHECK(p.block_shared_bytes <= 48u * 1024u);  // what the kernel declares
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.kernels[0].dynamic_shared_bytes == p.dynamic_shared_bytes);
  CHECK(p.input_words == 12);
  const std::string cu = scangen::generator::emit(p);
  CHECK(cu.find("#define SG_DYNAMIC_EXCHANGE 1") != std::string::npos);
  CHECK(cu.find("extern __shared__") != std::string::npos);
  // The default tiles stay static: their exchange fits.
  const Plan d = make_plan(load_one("scan d { type = i32; op = add; level = device; }"), Target{Backend::Cuda, 90});
  CHECK(d.staged_io);
  CHECK(d.dynamic_shared_bytes == 0);
  CHECK(scangen::generator::emit(d).find("#define SG_DYNAMIC_EXCHANGE") == std::string::npos);
  // The segmented kernel too, in every form and order: its (count, value)
  // pairs of 8 bytes, (12288 + 384 + 1) x 8 bytes. Before, such a tile read
  // its elements directly and searched its offsets per thread.
  for (const char* seg : {" segments = flags;", " segments = offsets; offset = u32;", " segments = keys;",
                          " segments = offsets; offset = u64; reverse = true;", " segments = flags; reverse = true;"}) {
    INFO(seg);
    const Plan q = make_plan(spec("i32", 256, 48, seg), Target{Backend::Cuda, 90});
    CHECK(q.staged_io);
    CHECK(q.dynamic_shared_bytes > 48u * 1024u);
    CHECK(q.dynamic_shared_bytes >= q.exchange_elements * 8u);
    CHECK(q.block_shared_bytes <= 48u * 1024u);
    REQUIRE(q.kernels.size() == (q.segmented.head_bits ? 2u : 1u));  // the heads kernel first
    CHECK(q.kernels.back().dynamic_shared_bytes == q.dynamic_shared_bytes);
    const std::string qcu = scangen::generator::emit(q);
    CHECK(qcu.find("#define SG_DYNAMIC_EXCHANGE 1") != std::string::npos);
    CHECK(qcu.find("extern __shared__") != std::string::npos);
    CHECK(scangen::generator::to_string(q).find("bytes of dynamic shared memory") != std::string::npos);
  }
  // No architecture, OpenCL, an architecture of 64 KiB (sm_75) for a larger
  // tile, and kernels other than the flat and segmented look-back: direct I/O, as before.
  for (const Plan& q : {make_plan(s, Target{Backend::Cuda, 0}), make_plan(s, Target{Backend::OpenCL, 0}),
                        make_plan(spec("i32", 512, 48), Target{Backend::Cuda, 75}),
                        make_plan(spec("i32", 256, 48, " algorithm = reduce_then_scan;"), Target{Backend::Cuda, 90}),
                        make_plan(spec("i32", 256, 48, " segments = flags;"), Target{Backend::Cuda, 0}),
                        make_plan(spec("i32", 256, 48, " segments = flags;"), Target{Backend::OpenCL, 0})}) {
    CHECK_FALSE(q.staged_io);
    CHECK(q.dynamic_shared_bytes == 0);
    for (const auto& k : q.kernels) CHECK(k.dynamic_shared_bytes == 0);
  }
  // Past the architecture's limit (227 KiB on sm_90) the exchange does not fit at all.
  const Plan big = make_plan(spec("f64", 1024, 32), Target{Backend::Cuda, 90});  // 32768 x 8 bytes
  CHECK_FALSE(big.staged_io);
  CHECK(big.dynamic_shared_bytes == 0);
}

TEST_CASE("plan: the fast tier's plan moves a plain scan's elements directly and keeps everything else",
          "[plan][tiers]") {
  using scangen::generator::emit;
  using scangen::generator::fast_tier_plan;
  using scangen::generator::Target;
  const auto plan = [](const std::string& text, Backend b = Backend::Cuda) {
    return make_plan(load_one(text), b == Backend::Cuda ? Target{b, 90} : Target{b, 0});
  };
  // The lines of `a` that `b` lacks.
  const auto only_in = [](const std::string& a, const std::string& b) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < a.size()) {
      const size_t end = a.find('\n', i);
      const std::string line = a.substr(i, end == std::string::npos ? std::string::npos : end - i + 1);
      if (b.find(line) == std::string::npos) out.push_back(line);
      if (end == std::string::npos) break;
      i = end + 1;
    }
    return out;
  };
  for (const char* text :
       {"scan s { type = i32; op = add; level = device; }", "scan s { type = f32; op = add; level = device; }",
        "scan s { type = f32; op = add; level = device; deterministic = true; algorithm = decoupled_lookback; }",
        "type A { a: f32, b: f32 }\nscan s { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b + y.b };"
        " identity = A { a: 1.0, b: 0.0 }; level = device; }"}) {
    CAPTURE(text);
    const Plan p = plan(text);
    const Plan f = fast_tier_plan(p);
    REQUIRE(p.staged_io);
    CHECK_FALSE(f.staged_io);
    CHECK(f.input_words == 0);
    CHECK(f.output_words == 0);
    // The same tile, look-back, kernels and parameters, launch and workspace.
    CHECK(f.tile == p.tile);
    CHECK(f.block_threads == p.block_threads);
    CHECK(f.items == p.items);
    CHECK(f.status == p.status);
    CHECK(f.tile_algorithm == p.tile_algorithm);
    CHECK(f.dynamic_shared_bytes == p.dynamic_shared_bytes);
    CHECK(scangen::generator::workspace_bytes(f, 1000003) == scangen::generator::workspace_bytes(p, 1000003));
    REQUIRE(f.kernels.size() == p.kernels.size());
    for (size_t k = 0; k < p.kernels.size(); ++k) {
      CHECK(f.kernels[k].name == p.kernels[k].name);
      REQUIRE(f.kernels[k].params.size() == p.kernels[k].params.size());
      for (size_t i = 0; i < p.kernels[k].params.size(); ++i)
        CHECK(f.kernels[k].params[i].name == p.kernels[k].params[i].name);
    }
    // The constants differ in the I/O ones only (no exchange: SG_EXCHANGE 1); the code follows them (the
    // emitter keeps the lines their #if choose).
    std::vector<std::string> changed = only_in(emit(f), emit(p));
    CHECK(!changed.empty());
    for (const std::string& line : changed) {
      if (line.rfind("#define SG_", 0) != 0) continue;
      CAPTURE(line);
      CHECK((line.rfind("#define SG_STAGED_IO 0", 0) == 0 || line.rfind("#define SG_VEC_IN 0", 0) == 0 ||
             line.rfind("#define SG_VEC_OUT 0", 0) == 0 || line.rfind("#define SG_STREAMING 0", 0) == 0 ||
             line.rfind("#define SG_EXCHANGE 1\n", 0) == 0));
    }
  }
  // Everything else keeps its plan: packed words (their order of combination is the packed one),
  // segments, reverse, fused outputs, neighbours, other levels and algorithms, OpenCL.
  for (const char* text : {
           "scan s { type = i8; op = add; level = device; }",
           "scan s { type = f16; op = add; level = device; }",
           "scan s { type = i32; op = add; level = device; segments = offsets; }",
           "scan s { type = i32; op = add; level = device; reverse = true; }",
           "scan s { type = i32; op = add; level = device; shape = rows; }",
           "scan s { type = i32; op = add; level = device; algorithm = reduce_then_scan; }",
           "scan s { type = i32; input = i32; convert(x) = x - prev(x); op = add; level = device; }",
           "scan s { input = i32; type = u32; convert(x) = x < 50 ? 1 : 0; op = add; mode = exclusive;"
           " outputs = aggregate; scatter_if(x) = x < 50; scatter_at(x, i, before) = u64(before); scatter(x) = x;"
           " level = device; }",
           "scan s { type = i32; op = add; level = block; }",
       }) {
    CAPTURE(text);
    const Plan p = plan(text);
    CHECK(emit(fast_tier_plan(p)) == emit(p));
  }
  const Plan cl = plan("scan s { type = i32; op = add; level = device; }", Backend::OpenCL);
  CHECK(emit(fast_tier_plan(cl)) == emit(cl));
}

TEST_CASE("plan: raw_tile keeps a striped fused output's inputs in shared memory, only where it can", "[unit]") {
  const std::string select =
      "scan s { input = i32; type = u32; convert(x) = x < 50 ? 1 : 0; op = add; "
      "mode = exclusive; outputs = aggregate; scatter_if(x) = x < 50; "
      "scatter_at(x, i, before) = u64(before); scatter(x) = x; }";
  scangen::generator::Target cuda{Backend::Cuda, 90};
  const Plan plain = make_plan(load_one(select), cuda);
  REQUIRE(plain.scatter_striped);
  CHECK_FALSE(plain.raw_tile);
  CHECK(plain.input_words > 0);
  cuda.tuning = "raw_tile=1";
  const Plan raw = make_plan(load_one(select), cuda);
  CHECK(raw.raw_tile);
  CHECK(raw.input_words == 0);  // the loads go element by element, in the striped order
  CHECK(raw.block_shared_bytes > plain.block_shared_bytes);
  const std::string text = scangen::generator::emit(raw);
  CHECK(text.find("s_sg_load_raw(in,") != std::string::npos);
  CHECK(scangen::generator::emit(plain).find("sg_load_raw") == std::string::npos);
  // Not where the tile does not fit beside the exchange in a block's 48 KiB (OpenCL's 256 x 32 tile).
  scangen::generator::Target opencl{Backend::OpenCL};
  opencl.tuning = "raw_tile=1";
  CHECK_FALSE(make_plan(load_one(select), opencl).raw_tile);
  opencl.tuning = "raw_tile=1 items=8";
  CHECK(make_plan(load_one(select), opencl).raw_tile);
  scangen::generator::Target big = cuda;
  big.tuning = "raw_tile=1 items=32 threads=512";
  CHECK_FALSE(make_plan(load_one(select), big).raw_tile);
  // A bad knob names itself.
  cuda.tuning = "raw_tile=2";
  CHECK_THROWS_WITH(make_plan(load_one(select), cuda), Catch::Contains("raw_tile must be 0 or 1"));
}

TEST_CASE("plan: a convert reading its neighbours is refused in a shape given after the check", "[unit]") {
  // The checker refuses 'shape = rows' beside prev(...) in a spec's text; the Python package's variants set the
  // shape afterwards, and the rows and column kernels would read the first line's neighbours for every line.
  scangen::dsl::Spec spec = load_one("scan nd { type = f64; convert(e) = next(e); op = add; level = device; }");
  CHECK_NOTHROW(make_plan(spec, Backend::OpenCL));
  for (scangen::dsl::Shape shape : {scangen::dsl::Shape::Rows, scangen::dsl::Shape::Strided}) {
    spec.shape = shape;
    CHECK_THROWS_WITH(make_plan(spec, Backend::OpenCL), Catch::Contains("prev(...) / next(...)") &&
                                                            Catch::Contains("scan each line as a flat 1-D array"));
  }
}
