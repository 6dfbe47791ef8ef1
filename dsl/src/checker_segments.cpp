// The checker's segmented-scan settings: `segments = flags | offsets | keys;`,
// `offset = <integer type>;`, `key = <scalar type>;` and the keys' equality
// `key_equal(a, b) = <bool>;`.
#include <optional>
#include <string>
#include <vector>

#include "checker_internal.h"

namespace scangen::dsl::checking {

namespace {

const ast::Item* find_setting(const Items& items, const char* key) {
  auto it = items.find(key);
  return it == items.end() ? nullptr : it->second;
}

bool offset_kind(ScalarKind k) {
  return k == ScalarKind::U32 || k == ScalarKind::U64 || k == ScalarKind::I32 || k == ScalarKind::I64;
}

bool key_kind(ScalarKind k) { return is_integer(k) || k == ScalarKind::F32 || k == ScalarKind::F64; }

}  // namespace

// A scalar type setting (`offset`, `key`), when `allowed` takes it.
std::optional<ScalarKind> Checker::segment_type_setting(const ast::Item& item, bool (*allowed)(ScalarKind),
                                                        const std::string& choices) {
  const ast::Expr* v = single_value(item);
  if (!v) return std::nullopt;
  std::optional<ScalarKind> k;
  if (v->kind == ast::ExprKind::Name) k = scalar_kind_from_name(v->text);
  if (!k || !allowed(*k)) {
    error(v->loc, "'" + item.key + "' takes one of: " + choices);
    return std::nullopt;
  }
  return k;
}

// Where a segmented scan cannot go: not at warp or block level, not with
// reduce_then_scan, not with a running total.
void Checker::check_segments_fit(const ast::Item& item, const Items& items, const Spec& spec) {
  const SourceLoc loc = item.values.empty() ? item.loc : item.values[0]->loc;
  if (spec.level != Level::Device) {
    error(loc, "'segments' given at run time are for device-level scans (level = device); at " +
                   std::string(to_string(spec.level)) +
                   " level a scan's segments are its groups; 'head_flags = true;' gives its device functions "
                   "head-flag segmented variants");
  } else if (spec.algorithm != Algorithm::DecoupledLookback) {
    error(loc, std::string("segmented scans are generated with decoupled_lookback only, not ") +
                   to_string(spec.algorithm) + "; drop 'algorithm' or set it to decoupled_lookback");
  }
  if (spec.running_total)
    error(find_setting(items, "outputs")->loc,
          "'running_total' does not go with 'segments': each segment restarts at init; "
          "'outputs = aggregate' gives each segment's total");
}

void Checker::check_segments(const Items& items, Spec& spec) {
  const ast::Item* it = find_setting(items, "segments");
  const ast::Item* offset = find_setting(items, "offset");
  const ast::Item* key = find_setting(items, "key");
  if (it) {
    const std::vector<std::string> forms = {"flags", "offsets", "keys"};
    if (const ast::Expr* v = name_value(single_value(*it), "segments", forms)) {
      const std::optional<Segments> s = segments_from_name(v->text);
      if (s && *s != Segments::None) {
        spec.segments = *s;
        check_segments_fit(*it, items, spec);
      } else {
        error(v->loc,
              "unknown segments '" + v->text + "'" + suggest(v->text, forms) + " (segments: " + join(forms) + ")");
      }
    }
  }
  if (offset && spec.segments != Segments::Offsets)
    error(offset->loc, "'offset' is the type of the offsets of 'segments = offsets;', which this scan does not set");
  else if (offset)
    if (auto k = segment_type_setting(*offset, offset_kind, "u32, u64, i32, i64")) spec.offset = *k;
  bool key_ok = true;
  if (key && spec.segments != Segments::Keys) {
    error(key->loc, "'key' is the type of the keys of 'segments = keys;', which this scan does not set");
  } else if (key) {
    const std::optional<ScalarKind> k = segment_type_setting(*key, key_kind, "an integer type, f32 or f64");
    if (k) spec.key = *k;
    key_ok = k.has_value();
  }
  if (const ast::Item* eq = find_setting(items, "key_equal")) check_key_equal(*eq, spec, key_ok);
}

// `key_equal(a, b) = ...;`: whether key b (an element's) continues the
// segment of key a (the element's before it), a bool over two keys.
void Checker::check_key_equal(const ast::Item& item, Spec& spec, bool key_ok) {
  if (spec.segments != Segments::Keys) {
    error(item.loc,
          "'key_equal' compares the keys of 'segments = keys;', which this scan does not set; add "
          "'segments = keys;' or drop 'key_equal'");
    return;
  }
  if (!item.is_function || item.params.size() != 2) {
    error(item.loc,
          "'key_equal' is a function of two keys, the earlier first, that says whether they are in one segment: "
          "write 'key_equal(a, b) = ...;'");
    return;
  }
  if (!key_ok) return;  // the key's type is already reported
  const Type key = Type::scalar(spec.key);
  spec.key_equal = function(item, {key, key}, Type::scalar(ScalarKind::Bool), "key_equal");
}

// head_flags = true: the warp- and block-level device functions gain
// head-flag segmented variants (P_inclusive_segmented, ...).
void Checker::check_head_flags(const Items& items, Spec& spec) {
  const ast::Item* it = find_setting(items, "head_flags");
  if (!it) return;
  const std::optional<bool> b = bool_setting(*it);
  if (!b) return;
  if (*b && spec.level == Level::Device) {
    error(it->values.empty() ? it->loc : it->values[0]->loc,
          "'head_flags' gives the device functions of warp- and block-level scans head-flag variants; a "
          "device-level scan takes its segments from 'segments = flags;'");
    return;
  }
  spec.head_flags = *b;
}

}  // namespace scangen::dsl::checking
