// The argument checks of segmented scans (segments given at run time) that
// both backends' Scan::run make.
#include <cstring>

#include "runtime_impl.h"
#include "scangen/reference/reference.h"

namespace scangen::runtime::detail {

void check_segment_args(const generator::Plan& p, bool flags, bool offsets, bool keys, bool aggregate,
                        bool segment_aggregates, uint64_t n, uint64_t segment_count) {
  const std::string who = "scan '" + p.spec.name + "': ";
  const dsl::Segments form = p.segmented.form;
  if (!p.segmented.on()) {
    if (flags || offsets || keys || segment_aggregates)
      fail(who +
           "segment flags, offsets, keys or aggregates were given, but the scan is not segmented "
           "(it sets no 'segments')");
    return;
  }
  if (aggregate) fail(who + "a segmented scan writes one total per segment to segment_aggregates, not to aggregate");
  const std::string form_name = std::string("segments = ") + dsl::to_string(form);
  auto need = [&](bool given, dsl::Segments wanted, const char* name) {
    if (form == wanted && !given && (n > 0 || wanted == dsl::Segments::Offsets))
      fail(who + "the " + name + " are null, but the scan has " + form_name);
    if (form != wanted && given) fail(who + name + " were given, but the scan has " + form_name);
  };
  need(flags, dsl::Segments::Flags, "segment_flags");
  need(offsets, dsl::Segments::Offsets, "segment_offsets");
  need(keys, dsl::Segments::Keys, "keys");
  if (form == dsl::Segments::Offsets && segment_count == UINT64_MAX)
    fail(who + "segment_count = " + std::to_string(segment_count) +
         " is too large: segment_count + 1 offsets do not fit a 64-bit count");
}

uint64_t segment_aggregates_capacity(const generator::Plan& p, uint64_t segment_count, uint64_t n) {
  if (p.segmented.form == dsl::Segments::Offsets) return segment_count;
  return segment_count ? segment_count : n;
}

void check_segments_fit(const generator::Plan& p, const std::vector<unsigned char>& bytes, uint64_t n,
                        uint64_t capacity) {
  const bool flags = p.segmented.form == dsl::Segments::Flags;
  const uint64_t made =
      flags ? ref::ranges_from_flags(bytes.data(), n).size() : ref::ranges_from_keys(p.spec, bytes.data(), n).size();
  if (made > capacity)
    fail("scan '" + p.spec.name + "': the " + (flags ? "segment_flags" : "keys") + " make " + std::to_string(made) +
         " segments, but segment_aggregates holds segment_count = " + std::to_string(capacity) +
         " of them (give segment_count >= the segments, or 0 and a buffer of n elements)");
}

namespace {

uint64_t offset_at(const generator::Plan& p, const std::vector<unsigned char>& bytes, uint64_t i, bool& negative) {
  const size_t size = p.segmented.offset_bytes;
  const bool is_signed = dsl::is_signed(p.spec.offset);
  if (size == 4) {
    uint32_t u;
    std::memcpy(&u, bytes.data() + i * 4, 4);
    negative = is_signed && static_cast<int32_t>(u) < 0;
    return u;
  }
  uint64_t u;
  std::memcpy(&u, bytes.data() + i * 8, 8);
  negative = is_signed && static_cast<int64_t>(u) < 0;
  return u;
}

}  // namespace

void check_offsets(const generator::Plan& p, const std::vector<unsigned char>& bytes, uint64_t count, uint64_t n) {
  const std::string who = "scan '" + p.spec.name + "': segment_offsets";
  uint64_t before = 0;
  for (uint64_t i = 0; i <= count; ++i) {
    bool negative = false;
    const uint64_t o = offset_at(p, bytes, i, negative);
    const std::string at = "[" + std::to_string(i) + "]";
    if (negative) fail(who + at + " is negative");
    if (i == 0 && o != 0) fail(who + "[0] is " + std::to_string(o) + "; the first offset must be 0");
    if (o < before)
      fail(who + at + " = " + std::to_string(o) + " is less than the offset before it, " + std::to_string(before) +
           "; offsets must not decrease");
    if (o > n) fail(who + at + " = " + std::to_string(o) + " is beyond n = " + std::to_string(n));
    if (i == count && o != n)
      fail(who + at + " (the last, segment_count = " + std::to_string(count) + ") is " + std::to_string(o) +
           ", not n = " + std::to_string(n));
    before = o;
  }
}

}  // namespace scangen::runtime::detail
