// The checker's settings: each `key = value;` of a scan, checked and turned
// into the Spec's fields, defaults filled in.
#include <algorithm>
#include <limits>
#include <set>

#include "checker_internal.h"

namespace scangen::dsl::checking {

namespace {

const ast::Item* find_item(const Items& items, const char* key) {
  auto it = items.find(key);
  return it == items.end() ? nullptr : it->second;
}

}  // namespace

// ---- values of settings -------------------------------------------------------

// The one value of a plain setting, or null (with an error).
const ast::Expr* Checker::single_value(const ast::Item& item) {
  if (item.is_function) {
    error(item.loc, "'" + item.key + "' is a setting, not a function; write '" + item.key + " = ...;'");
    return nullptr;
  }
  if (item.values.size() != 1) {
    error(item.values[1]->loc, "'" + item.key + "' takes one value");
    return nullptr;
  }
  return item.values[0].get();
}

// A whole-number setting, or `auto` (returned as kAuto) where allowed.
std::optional<int> Checker::int_setting(const ast::Item& item, bool allow_auto) {
  const ast::Expr* v = single_value(item);
  if (!v) return std::nullopt;
  if (v->kind == ast::ExprKind::Name && v->text == "auto") {
    if (allow_auto) return kAuto;
    error(v->loc, "'" + item.key + " = auto' is only allowed for device-level scans; give a number");
    return std::nullopt;
  }
  if (v->kind != ast::ExprKind::Int) {
    error(v->loc, "'" + item.key + "' takes a whole number" + (allow_auto ? " or 'auto'" : ""));
    return std::nullopt;
  }
  u128 n = 0;
  if (!parse_integer(*v, n)) return std::nullopt;
  if (n > static_cast<u128>(std::numeric_limits<int>::max())) {
    error(v->loc, "'" + item.key + " = " + v->text + "' is far too large");
    return std::nullopt;
  }
  return static_cast<int>(n);
}

// A name chosen from a fixed list; `key` is used in the message.
const ast::Expr* Checker::name_value(const ast::Expr* v, const std::string& key,
                                     const std::vector<std::string>& choices) {
  if (!v) return nullptr;
  if (v->kind != ast::ExprKind::Name) {
    error(v->loc, "'" + key + "' takes one of: " + join(choices));
    return nullptr;
  }
  return v;
}

// `true` or `false`.
std::optional<bool> Checker::bool_setting(const ast::Item& item) {
  const ast::Expr* v = single_value(item);
  if (!v) return std::nullopt;
  if (v->kind != ast::ExprKind::Bool) {
    error(v->loc, "'" + item.key + "' takes true or false");
    return std::nullopt;
  }
  return v->text == "true";
}

// ---- the scan ---------------------------------------------------------------

// The scan's settings by key: unknown keys and keys set twice are reported.
Items Checker::collect_items(const ast::ScanDecl& scan) {
  static const std::vector<std::string> kKeys = {"type",
                                                 "input",
                                                 "op",
                                                 "combine",
                                                 "convert",
                                                 "identity",
                                                 "level",
                                                 "algorithm",
                                                 "threads",
                                                 "items",
                                                 "mode",
                                                 "init",
                                                 "outputs",
                                                 "targets",
                                                 "deterministic",
                                                 "assume_associative",
                                                 "init_applies_to",
                                                 "reverse",
                                                 "segments",
                                                 "offset",
                                                 "key",
                                                 "key_equal",
                                                 "shape",
                                                 "head_flags",
                                                 "scatter",
                                                 "scatter_at",
                                                 "scatter_if",
                                                 "scatter_type"};
  Items items;
  for (const ast::Item& item : scan.items) {
    // `scatter.NAME`, `scatter_at.NAME`, ...: a named fused output (checker_fused.cpp).
    const std::string base = item.key.substr(0, item.key.find('.'));
    if (base != item.key && base.rfind("scatter", 0) != 0) {
      error(item.loc, "'" + item.key + "': only the scatter settings take a name after '.' (scatter.NAME, " +
                          "scatter_at.NAME, scatter_if.NAME, scatter_type.NAME: a named fused output)");
      continue;
    }
    if (std::find(kKeys.begin(), kKeys.end(), base) == kKeys.end()) {
      error(item.loc, "unknown setting '" + item.key + "'" + suggest(base, kKeys) + " (settings: " + join(kKeys) + ")");
      continue;
    }
    auto [it, inserted] = items.emplace(item.key, &item);
    if (!inserted) {
      error(item.loc, "'" + item.key + "' is set twice in scan '" + scan.name + "'; keep one");
      note(it->second->loc, "first set here");
    }
  }
  return items;
}

Spec Checker::check_scan(const ast::ScanDecl& scan) {
  Spec spec;
  spec.name = scan.name;
  spec.file = diags_.file().name();
  spec.loc = scan.loc;
  const Items items = collect_items(scan);
  check_types(scan, items, spec);
  check_operator(scan, items, spec);
  check_convert(items, spec);
  check_level(items, spec);
  check_algorithm(items, spec);
  check_threads(items, spec);
  check_items(items, spec);
  check_mode(items, spec);
  check_outputs(items, spec);
  check_init(items, spec);
  check_init_applies_to(items, spec);
  check_targets(scan, items, spec);
  check_flags(items, spec);
  check_reverse(items, spec);
  check_segments(items, spec);
  check_head_flags(items, spec);  // checker_segments.cpp
  check_shape(items, spec);
  check_convert_index(items, spec);     // checker_fused.cpp
  check_input_arrays_fit(items, spec);  // checker_fused.cpp
  check_scatter(items, spec);           // checker_fused.cpp
  return spec;
}

// Element and input types.
void Checker::check_types(const ast::ScanDecl& scan, const Items& items, Spec& spec) {
  if (const ast::Item* it = find_item(items, "type")) {
    if (const ast::Expr* v = single_value(*it)) spec.type = resolve_type_value(*v, "type");
  } else if (!scan.had_syntax_errors) {
    error(scan.loc, "scan '" + scan.name + "' has no 'type'; add e.g. 'type = i32;'");
  }
  spec.input = spec.type;
  if (const ast::Item* it = find_item(items, "input")) {
    if (is_input_arrays(*it))
      check_input_arrays(*it, spec);  // checker_fused.cpp
    else if (const ast::Expr* v = single_value(*it))
      spec.input = resolve_type_value(*v, "input");
  }
}

// The operator: op, or combine and identity.
void Checker::check_operator(const ast::ScanDecl& scan, const Items& items, Spec& spec) {
  const bool types_ok = spec.type.valid() && spec.input.valid();
  const ast::Item* op_item = find_item(items, "op");
  const ast::Item* combine_item = find_item(items, "combine");
  const ast::Item* identity_item = find_item(items, "identity");
  if (op_item && combine_item) {
    error(combine_item->loc, "scan '" + scan.name + "' has both 'op' and 'combine'; keep one");
    note(op_item->loc, "'op' is set here");
  } else if (!op_item && !combine_item) {
    if (!scan.had_syntax_errors)
      error(scan.loc, "scan '" + scan.name +
                          "' has no operator; add 'op = add;' (or mul, min, max, and, or, xor) "
                          "or 'combine(x, y) = ...;'");
  } else if (op_item) {
    check_builtin_op(*op_item, identity_item, spec, types_ok);
  } else if (types_ok) {
    check_combine(*combine_item, identity_item, spec);
  }
  if (combine_item && !op_item && !identity_item && !scan.had_syntax_errors)
    error(scan.loc, "scan '" + scan.name +
                        "' has a 'combine' but no 'identity'; add 'identity = ...;' with the "
                        "value e such that combine(e, x) == x == combine(x, e)");
}

// Input conversion: convert(v), or an implicit one between scalar types.
void Checker::check_convert(const Items& items, Spec& spec) {
  if (!spec.type.valid() || !spec.input.valid()) return;
  const ast::Item* input_item = find_item(items, "input");
  if (spec.has_input_arrays()) {
    check_arrays_convert(find_item(items, "input"), find_item(items, "convert"), spec);  // checker_fused.cpp
  } else if (const ast::Item* convert_item = find_item(items, "convert")) {
    if (!convert_item->is_function || convert_item->params.empty() || convert_item->params.size() > 2) {
      error(convert_item->loc,
            "'convert' is a function of one input element and, optionally, its index: write 'convert(v) = ...;' "
            "or 'convert(v, i) = ...;'");
    } else {
      spec.convert = function_with_neighbours(*convert_item, convert_parameter_types(spec), spec.type, "convert");
    }
  } else if (spec.input != spec.type) {
    if (spec.input.is_scalar() && spec.type.is_scalar()) {
      spec.convert = implicit_convert(spec.input, spec.type, input_item->loc);
    } else {
      error(input_item->loc, "the input type " + spec.input.name() + " differs from the scan's type " +
                                 spec.type.name() + "; add 'convert(v) = ...;' returning " + spec.type.name());
    }
  }
}

// ---- shape: level, algorithm, threads, items ----------------------------------

void Checker::check_level(const Items& items, Spec& spec) {
  const ast::Item* it = find_item(items, "level");
  if (!it) return;
  std::vector<std::string> levels = {"warp", "warp(W)", "block", "device"};
  const ast::Expr* v = single_value(*it);
  if (v && v->kind == ast::ExprKind::Call && v->text == "warp") {
    spec.level = Level::Warp;
    if (v->kids.size() != 1 || v->kids[0]->kind != ast::ExprKind::Int) {
      error(v->loc, "'warp(W)' takes one whole number W, a power of two from 1 to 1024");
      return;
    }
    u128 w = 0;
    if (!parse_integer(*v->kids[0], w)) return;
    if (w > kMaxWarp || !is_power_of_two(static_cast<int64_t>(w)))
      error(v->kids[0]->loc, "warp width " + int128_to_string(static_cast<i128>(w)) +
                                 " is not supported; W must be a power of two from 1 to 1024");
    else
      spec.warp_width = static_cast<int>(w);
  } else if (v && v->kind == ast::ExprKind::Name) {
    auto l = level_from_name(v->text);
    if (l)
      spec.level = *l;
    else
      error(v->loc, "unknown level '" + v->text + "'" + suggest(v->text, levels) + " (levels: " + join(levels) + ")");
  } else if (v) {
    error(v->loc, "'level' takes one of: " + join(levels));
  }
}

void Checker::check_algorithm(const Items& items, Spec& spec) {
  const Level level = spec.level;
  spec.algorithm = default_algorithm(level);
  const ast::Item* it = find_item(items, "algorithm");
  if (!it) return;
  std::vector<std::string> all, here;
  for (Algorithm a : all_algorithms()) {
    all.push_back(to_string(a));
    if (level_of(a) == level) here.push_back(to_string(a));
  }
  const ast::Expr* v = name_value(single_value(*it), "algorithm", all);
  if (!v) return;
  auto a = algorithm_from_name(v->text);
  if (!a) {
    error(v->loc, "unknown algorithm '" + v->text + "'" + suggest(v->text, all) + " (" + to_string(level) +
                      "-level algorithms: " + join(here) + ")");
  } else if (level_of(*a) != level) {
    error(v->loc, "algorithm '" + v->text + "' is a " + to_string(level_of(*a)) +
                      "-level algorithm but "
                      "this scan's level is " +
                      to_string(level) + "; " + to_string(level) + "-level algorithms: " + join(here));
  } else if (*a == Algorithm::Coalesced && spec.warp_width > 32) {
    error(v->loc, "algorithm 'coalesced' scans the active lanes of one warp of 32; a logical warp of " +
                      std::to_string(spec.warp_width) + " lanes spans " + std::to_string(spec.warp_width / 32) +
                      " warps: use kogge_stone or kogge_stone_local");
  } else {
    spec.algorithm = *a;
  }
}

void Checker::check_threads(const Items& items, Spec& spec) {
  const Level level = spec.level;
  const bool device = level == Level::Device;
  spec.threads = device ? 0 : 256;
  if (level == Level::Warp && spec.warp_width > 0) spec.threads = std::max(spec.warp_width, 32);
  const ast::Item* it = find_item(items, "threads");
  if (!it) return;
  const std::optional<int> n = int_setting(*it, device);
  if (!n) return;
  const SourceLoc loc = it->values.empty() ? it->loc : it->values[0]->loc;
  const int t = *n;
  if (t == kAuto) {
    spec.threads = 0;
  } else if (t < 1) {
    error(loc, "a block needs at least 1 thread; 'threads' must be 1 to " + std::to_string(kMaxThreads));
  } else if (t > kMaxThreads) {
    error(loc, "block too large: " + std::to_string(t) + " threads; a block has 1 to " + std::to_string(kMaxThreads) +
                   " threads on CUDA and common OpenCL devices");
  } else if (level == Level::Warp && t % spec.warp_width != 0) {
    error(loc, std::to_string(t) + " threads do not divide into logical warps of " + std::to_string(spec.warp_width) +
                   "; use a multiple of " + std::to_string(spec.warp_width));
  } else if (device && t % 32 != 0) {
    error(loc, "device-level scans need a multiple of 32 threads per block, not " + std::to_string(t));
  } else if (spec.algorithm == Algorithm::WarpScans && t % 32 != 0) {
    error(loc, "algorithm 'warp_scans' needs a multiple of 32 threads, not " + std::to_string(t) +
                   "; use 'raking' for other counts");
  } else if (spec.algorithm == Algorithm::Blelloch && !is_power_of_two(t)) {
    error(loc, "algorithm 'blelloch' needs a power-of-two thread count, not " + std::to_string(t) +
                   "; use 'raking' or 'hillis_steele' for other counts");
  } else {
    spec.threads = t;
  }
}

void Checker::check_items(const Items& items, Spec& spec) {
  const bool device = spec.level == Level::Device;
  spec.items = device ? 0 : 1;
  const ast::Item* it = find_item(items, "items");
  if (!it) return;
  if (auto n = int_setting(*it, device)) {
    SourceLoc loc = it->values.empty() ? it->loc : it->values[0]->loc;
    if (*n == kAuto)
      spec.items = 0;
    else if (*n < 1 || *n > kMaxItems)
      error(loc, "items per thread must be 1 to " + std::to_string(kMaxItems) + ", not " + std::to_string(*n));
    else
      spec.items = *n;
  }
}

// ---- mode, outputs, init, targets, flags ------------------------------------

void Checker::check_mode(const Items& items, Spec& spec) {
  const ast::Item* it = find_item(items, "mode");
  if (!it) return;
  std::vector<std::string> modes = {"inclusive", "exclusive", "both"};
  if (const ast::Expr* v = name_value(single_value(*it), "mode", modes)) {
    if (auto m = mode_from_name(v->text))
      spec.mode = *m;
    else
      error(v->loc, "unknown mode '" + v->text + "'" + suggest(v->text, modes) + " (modes: " + join(modes) + ")");
  }
}

void Checker::check_outputs(const Items& items, Spec& spec) {
  const ast::Item* outputs_item = find_item(items, "outputs");
  if (!outputs_item) return;
  if (outputs_item->is_function) {
    error(outputs_item->loc, "'outputs' is a list, e.g. 'outputs = aggregate, running_total;'");
    return;
  }
  std::vector<std::string> outputs = {"aggregate", "running_total", "none"};
  std::set<std::string> seen;
  for (const ast::ExprPtr& v : outputs_item->values) {
    if (!name_value(v.get(), "outputs", outputs)) continue;
    if (!seen.insert(v->text).second) error(v->loc, "output '" + v->text + "' is listed twice");
    if (v->text == "aggregate")
      spec.aggregate = true;
    else if (v->text == "running_total")
      spec.running_total = true;
    else if (v->text == "none") {
      if (outputs_item->values.size() > 1) error(v->loc, "'none' cannot be combined with other outputs");
    } else
      error(v->loc,
            "unknown output '" + v->text + "'" + suggest(v->text, outputs) + " (outputs: " + join(outputs) + ")");
  }
}

// The value a scan starts from: init, the running total, or the identity.
void Checker::check_init(const Items& items, Spec& spec) {
  if (const ast::Item* it = find_item(items, "init")) {
    if (spec.running_total) {
      error(it->loc,
            "'init' and 'outputs = running_total' both set the value a scan starts from; drop 'init' and "
            "store the initial value in the running total before the first call");
    } else if (spec.type.valid()) {
      spec.init = constant(*it, spec.type, "init");
    }
  } else {
    spec.init = spec.identity;
  }
  if (spec.running_total && spec.level != Level::Device && spec.type.valid()) {
    // A built-in op on a 32- or 64-bit integer: its atomic; any other operator: a compare-and-swap loop.
    const bool atomic_op = spec.op && spec.op != BuiltinOp::Mul && spec.type.is_integer() && spec.type.size() >= 4;
    if (!atomic_op && spec.type.size() != 4 && spec.type.size() != 8)
      error(find_item(items, "outputs")->loc,
            "'running_total' at " + std::string(to_string(spec.level)) +
                " level combines each group's total into a counter atomically: a compare-and-swap of the whole "
                "element, which takes 4 or 8 bytes (this one has " +
                std::to_string(spec.type.size()) + "); use level = device for a wider or narrower element");
  }
}

// init_applies_to = both | exclusive: which results init seeds (§5.6).
void Checker::check_init_applies_to(const Items& items, Spec& spec) {
  const ast::Item* it = find_item(items, "init_applies_to");
  if (!it) return;
  const std::vector<std::string> values = {"both", "exclusive"};
  const ast::Expr* v = name_value(single_value(*it), "init_applies_to", values);
  if (!v) return;
  if (v->text != "both" && v->text != "exclusive") {
    error(v->loc, "unknown value '" + v->text + "'" + suggest(v->text, values) + " (init_applies_to: both, exclusive)");
    return;
  }
  if (v->text == "both") return;
  if (spec.level == Level::Device)
    error(it->loc,
          "'init_applies_to = exclusive' is for warp and block level (rocPRIM's warp_scan and block_scan); a "
          "device scan with mode = both seeds both outputs with init");
  else if (spec.mode != Mode::Both)
    error(it->loc, "'init_applies_to = exclusive' chooses between the two outputs of mode = both; with mode = " +
                       std::string(to_string(spec.mode)) + " it would change nothing");
  else if (spec.running_total)
    error(it->loc,
          "'init_applies_to = exclusive' needs an init, and 'outputs = running_total' seeds both outputs with the "
          "counter instead");
  else if (!find_item(items, "init"))
    error(it->loc, "'init_applies_to = exclusive' says which outputs init seeds, but the scan sets no init");
  else
    spec.init_exclusive_only = true;
}

void Checker::check_targets(const ast::ScanDecl& scan, const Items& items, Spec& spec) {
  if (const ast::Item* it = find_item(items, "targets")) {
    if (it->is_function) {
      error(it->loc, "'targets' is a list, e.g. 'targets = cuda, opencl;'");
    } else {
      spec.targets.clear();
      std::vector<std::string> targets = {"cuda", "opencl"};
      for (const ast::ExprPtr& v : it->values) {
        if (!name_value(v.get(), "targets", targets)) continue;
        auto t = target_from_name(v->text);
        if (!t) {
          error(v->loc, "unknown target '" + v->text + "'" + suggest(v->text, targets) + " (targets: cuda, opencl)");
        } else if (spec.targets_backend(*t)) {
          error(v->loc, "target '" + v->text + "' is listed twice");
        } else {
          spec.targets.push_back(*t);
        }
      }
    }
  }
  if (spec.algorithm == Algorithm::Coalesced && spec.targets_backend(Target::OpenCL)) {
    const ast::Item* it = find_item(items, "algorithm");
    error(it ? it->loc : scan.loc,
          "algorithm 'coalesced' exists only on CUDA (OpenCL has no notion of active "
          "lanes); add 'targets = cuda;' or choose kogge_stone");
  }
}

// deterministic and assume_associative, and the algorithm determinism needs.
// With floats at device level both device algorithms give the same bits on
// every run: reduce_then_scan, and decoupled_lookback with its fixed-order
// look-back (common/lookback_fixed.h). Left to choose, a flat scan takes
// reduce_then_scan; a scan only the look-back kernel makes (a shape,
// segments, fused inputs or outputs) keeps decoupled_lookback.
void Checker::check_flags(const Items& items, Spec& spec) {
  if (const ast::Item* it = find_item(items, "deterministic")) {
    if (auto b = bool_setting(*it)) spec.deterministic = *b;
  }
  if (const ast::Item* it = find_item(items, "assume_associative")) {
    if (auto b = bool_setting(*it)) spec.assume_associative = *b;
  }
  if (!spec.deterministic || spec.level != Level::Device || !spec.combines_floats() || find_item(items, "algorithm"))
    return;
  bool lookback_only = spec.has_input_arrays() || find_item(items, "segments");
  if (const ast::Item* shape = find_item(items, "shape"))
    lookback_only = lookback_only || shape->values.size() != 1 || shape->values[0]->text != "flat";
  for (const auto& [key, item] : items) lookback_only = lookback_only || key.rfind("scatter", 0) == 0;
  if (!lookback_only) spec.algorithm = Algorithm::ReduceThenScan;
}

// reverse: a suffix scan, the last element first (every level, mode and algorithm).
void Checker::check_reverse(const Items& items, Spec& spec) {
  if (const ast::Item* it = find_item(items, "reverse")) {
    if (auto b = bool_setting(*it)) spec.reverse = *b;
  }
}

}  // namespace scangen::dsl::checking
