// Segmented scans on an OpenCL device (PoCL in CI) through Scan::run: each
// form of segments (offsets, flags, keys, a key_equal) against the CPU
// reference, and the checks of the segment arguments (the sizes of
// segment_aggregates, segment_count, the offsets' in checked mode). Without
// an OpenCL platform the tests fail, unless SCANGEN_ALLOW_NO_OPENCL=1.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "scangen/reference/reference.h"
#include "scangen/runtime/runtime.h"

#include "opencl_test_support.h"
#include "runtime_test_support.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::runtime;

// n random i32 elements in segments of 0 .. 9 elements (empty ones
// included), the segments given as offsets (u64), flags and keys (i32, the
// segment's index), each in a buffer of the runtime's.
struct Segmented {
  static constexpr uint64_t n = 20000;
  std::vector<uint8_t> in;
  std::vector<uint64_t> offsets = {0};
  std::vector<uint8_t> flags, keys;
  uint64_t count = 0;
  cl_mem d_in = nullptr, d_out = nullptr, d_agg = nullptr, d_offsets = nullptr, d_flags = nullptr, d_keys = nullptr;

  explicit Segmented(scangen::Runtime& rt) {
    std::mt19937_64 rng(11);
    in.resize(n * 4);
    scangen::ref::fill_random(scangen::dsl::Type::scalar(scangen::dsl::ScalarKind::I32), in.data(), n, rng);
    while (offsets.back() < n) offsets.push_back(std::min<uint64_t>(n, offsets.back() + rng() % 10));
    count = offsets.size() - 1;
    std::vector<uint8_t> offsets64(offsets.size() * 8);
    flags.assign(n, 0);
    keys.resize(n * 4);
    std::memcpy(offsets64.data(), offsets.data(), offsets64.size());
    for (uint64_t s = 0; s < count; ++s)
      for (uint64_t i = offsets[s]; i < offsets[s + 1]; ++i) {
        flags[i] = i == offsets[s] ? 1 : 0;
        const int32_t key = static_cast<int32_t>(s);
        std::memcpy(keys.data() + i * 4, &key, 4);
      }
    d_in = buffer(rt, in);
    d_out = buffer(rt, std::vector<uint8_t>(n * 4, 0xAB));
    d_agg = buffer(rt, std::vector<uint8_t>(count * 4, 0xAB));
    d_offsets = buffer(rt, offsets64);
    d_flags = buffer(rt, flags);
    d_keys = buffer(rt, keys);
  }
  Segmented(const Segmented&) = delete;
  Segmented& operator=(const Segmented&) = delete;
  ~Segmented() {
    for (cl_mem m : {d_in, d_out, d_agg, d_offsets, d_flags, d_keys}) clReleaseMemObject(m);
  }
};

}  // namespace

// Segmented scans through Scan::run: each form against the reference, and
// the checks of the segment arguments (the offsets' in checked mode).
TEST_CASE("segmented scans run through Scan::run, and bad segments are refused", "[opencl][runtime][segmented]") {
  if (!have_opencl()) return;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  Segmented d(rt);
  const uint64_t n = Segmented::n;
  struct Form {
    const char* settings;
    std::vector<scangen::ref::Evaluator::Range> ranges;
  };
  const Form forms[] = {
      {"segments = offsets; offset = u64;", scangen::ref::ranges_from_offsets(d.offsets, n)},
      {"segments = flags;", scangen::ref::ranges_from_flags(d.flags.data(), n)},
      {"segments = keys;", scangen::ref::ranges_from_keys(scangen::dsl::ScalarKind::I32, d.keys.data(), n)},
      // Keys equal in threes (the reference's ranges from the scan's spec, below).
      {"segments = keys; key_equal(a, b) = a / 3 == b / 3;", {}},
  };
  // Every form in both orders; the quick tier each form and each order once, drawn.
  std::vector<std::pair<const Form*, const char*>> calls;
  for (const Form& f : forms)
    for (const char* order : {"", " reverse = true;"})
      calls.emplace_back(&f, order);  // reverse: from each segment's end
  calls = scangen::test::sample_cases(std::move(calls), "segmented scans through Scan::run",
                                      [](const std::pair<const Form*, const char*>& c) {
                                        return std::vector<std::string>{c.first->settings, c.second};
                                      });
  for (const auto& [form, order] : calls) {
    const Form& f = *form;
    INFO(f.settings << order);
    scangen::Scan scan = rt.compile(std::string("scan seg { type = i32; op = add; init = 2; mode = exclusive; "
                                                "outputs = aggregate; ") +
                                    f.settings + order + " }");
    scangen::Scan::OpenCLArgs a;
    a.in = d.d_in;
    a.exclusive = d.d_out;
    a.segment_aggregates = d.d_agg;
    a.n = n;
    const bool by_offsets = scan.spec().segments == scangen::dsl::Segments::Offsets;
    if (by_offsets) {
      a.segment_offsets = d.d_offsets;
      a.segment_count = d.count;
      a.check_segments = true;
    }
    const auto ranges =
        scan.spec().key_equal ? scangen::ref::ranges_from_keys(scan.spec(), d.keys.data(), n) : f.ranges;
    if (!by_offsets) {
      (scan.spec().segments == scangen::dsl::Segments::Flags ? a.segment_flags : a.keys) =
          scan.spec().segments == scangen::dsl::Segments::Flags ? d.d_flags : d.d_keys;
      a.segment_count = ranges.size();  // the room in segment_aggregates: the segments made, counted
    }
    scan.run(a);
    const scangen::ref::Evaluator ev(scan.spec());
    const auto want = ev.scan_ranges(d.in.data(), n, ranges);
    CHECK(read(rt, d.d_out, n * 4) == want.exclusive);
    const size_t segments = ranges.size();
    CHECK(read(rt, d.d_agg, segments * 4) == want.aggregates);
    // The errors: the plain aggregate, a missing array, another form's array.
    scangen::Scan::OpenCLArgs b = a;
    b.aggregate = d.d_agg;
    b.segment_aggregates = nullptr;
    CHECK_THROWS_WITH(scan.run(b), Catch::Contains("not to aggregate"));
    b = a;
    (by_offsets ? b.segment_offsets : b.segment_flags) = nullptr;
    b.keys = nullptr;
    CHECK_THROWS_WITH(scan.run(b), Catch::Contains("are null, but the scan has segments ="));
  }
}

// Flags and keys: the host does not know how many segments a call makes, so
// segment_aggregates must hold n elements, or segment_count of them where the
// caller gives it, and then the call is refused if it makes more (before,
// every flag set with 4 bytes of aggregates corrupted the heap). Offsets:
// segment_count + 1 must not wrap to 0 (before, 2^64 - 1 skipped the
// offsets' size check and crashed).
TEST_CASE("segment_aggregates too small for the segments of flags or keys, and segment_count = 2^64 - 1",
          "[opencl][runtime][segmented]") {
  if (!have_opencl()) return;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  const uint64_t n = 1000;
  std::vector<uint8_t> ones(n * 4);
  for (uint64_t i = 0; i < n; ++i) {
    const int32_t v = static_cast<int32_t>(i);  // every key different
    std::memcpy(ones.data() + i * 4, &v, 4);
  }
  cl_mem d_in = buffer(rt, std::vector<uint8_t>(n * 4, 1)), d_out = buffer(rt, std::vector<uint8_t>(n * 4, 0xAB));
  cl_mem d_flags = buffer(rt, std::vector<uint8_t>(n, 1)), d_keys = buffer(rt, ones);
  cl_mem d_small = buffer(rt, std::vector<uint8_t>(4, 0xAB)), d_room = buffer(rt, std::vector<uint8_t>(n * 4, 0xAB));
  for (const char* form : {"flags", "keys"}) {
    INFO(form);
    const bool flags = form[0] == 'f';
    scangen::Scan scan =
        rt.compile(std::string("scan seg { type = i32; op = add; outputs = aggregate; segments = ") + form + "; }");
    scangen::Scan::OpenCLArgs a;
    a.in = d_in;
    a.inclusive = d_out;
    a.n = n;
    (flags ? a.segment_flags : a.keys) = flags ? d_flags : d_keys;
    a.segment_aggregates = d_small;  // 4 bytes: room for one segment
    CHECK_THROWS_WITH(scan.run(a), Catch::Contains("the segment_aggregates buffer has 4 bytes, but 1000 elements"));
    a.segment_count = 1;  // the caller says: one segment's room; the call makes 1000
    CHECK_THROWS_WITH(scan.run(a),
                      Catch::Contains("make 1000 segments, but segment_aggregates holds segment_count = 1"));
    a.segment_count = 5;
    CHECK_THROWS_WITH(scan.run(a), Catch::Contains("the segment_aggregates buffer has 4 bytes, but 5 elements"));
    a.segment_aggregates = d_room;  // n elements: every call fits
    a.segment_count = 0;
    scan.run(a);
    CHECK(read(rt, d_room, n * 4) == std::vector<uint8_t>(n * 4, 1));  // each segment one element, 0x01010101
  }
  scangen::Scan by_offsets = rt.compile("scan seg { type = i32; op = add; segments = offsets; offset = u32; }");
  for (bool checked : {false, true}) {
    scangen::Scan::OpenCLArgs a;
    a.in = d_in;
    a.inclusive = d_out;
    a.n = n;
    a.segment_offsets = d_small;
    a.segment_count = UINT64_MAX;
    a.check_segments = checked;
    CHECK_THROWS_WITH(by_offsets.run(a), Catch::Contains("segment_count = 18446744073709551615 is too large"));
  }
  for (cl_mem m : {d_in, d_out, d_flags, d_keys, d_small, d_room}) clReleaseMemObject(m);
}

// Checked mode: offsets that decrease, go beyond n, or do not end at n are
// refused before a launch, with the index and the values.
TEST_CASE("a segmented scan in checked mode refuses bad offsets", "[opencl][runtime][segmented]") {
  if (!have_opencl()) return;
  scangen::Runtime rt({scangen::Backend::OpenCL});
  cl_mem d_in = buffer(rt, std::vector<uint8_t>(40, 1)), d_out = buffer(rt, std::vector<uint8_t>(40, 0xAB));
  scangen::Scan scan = rt.compile("scan seg { type = i32; op = add; segments = offsets; offset = i32; }");
  auto refused = [&](std::vector<int32_t> o, uint64_t m) {
    std::vector<uint8_t> bytes(o.size() * 4);
    std::memcpy(bytes.data(), o.data(), bytes.size());
    cl_mem d = buffer(rt, bytes);
    scangen::Scan::OpenCLArgs a;
    a.in = d_in;
    a.inclusive = d_out;
    a.n = m;
    a.segment_offsets = d;
    a.segment_count = o.size() - 1;
    a.check_segments = true;
    std::string what;
    try {
      scan.run(a);
    } catch (const scangen::Error& e) {
      what = e.what();
    }
    clReleaseMemObject(d);
    return what;
  };
  CHECK_THAT(refused({0, 5, 3, 10}, 10), Catch::Contains("segment_offsets[2] = 3 is less than"));
  CHECK_THAT(refused({0, 5, 12, 10}, 10), Catch::Contains("segment_offsets[2] = 12 is beyond n = 10"));
  CHECK_THAT(refused({0, 5, 9}, 10), Catch::Contains("not n = 10"));
  CHECK_THAT(refused({1, 5, 10}, 10), Catch::Contains("the first offset must be 0"));
  CHECK_THAT(refused({0, -1, 10}, 10), Catch::Contains("segment_offsets[1] is negative"));
  CHECK(refused({0, 5, 5, 10}, 10).empty());
  for (cl_mem m : {d_in, d_out}) clReleaseMemObject(m);
}
