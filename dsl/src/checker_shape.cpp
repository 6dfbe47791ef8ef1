// `shape = rows;` and `shape = strided;`: the run-time shape of a device
// scan's data, and the settings it does not combine with (yet). `reverse`
// goes with both: every row or line is scanned from its last element.
#include "checker_internal.h"

namespace scangen::dsl::checking {

void Checker::check_shape(const Items& items, Spec& spec) {
  auto item = [&](const char* key) -> const ast::Item* {
    auto it = items.find(key);
    return it == items.end() ? nullptr : it->second;
  };
  const ast::Item* it = item("shape");
  if (!it) return;
  const std::vector<std::string> shapes = {"flat", "rows", "strided"};
  const ast::Expr* v = name_value(single_value(*it), "shape", shapes);
  if (!v) return;
  const std::optional<Shape> shape = shape_from_name(v->text);
  if (!shape) {
    error(v->loc, "unknown shape '" + v->text + "'" + suggest(v->text, shapes) + " (shapes: " + join(shapes) + ")");
    return;
  }
  spec.shape = *shape;
  if (spec.shape == Shape::Flat) return;
  const std::string what = "'shape = " + v->text + "'";
  if (spec.level != Level::Device) {
    error(v->loc, what +
                      " is a device-level shape; add 'level = device;' (warp and block scans scan their own "
                      "segments)");
    return;
  }
  if (spec.algorithm != Algorithm::DecoupledLookback)
    error(v->loc,
          what + " is generated with decoupled_lookback only; drop 'algorithm = " + to_string(spec.algorithm) + "'");
  if (spec.running_total)
    error(item("outputs")->loc, what +
                                    " scans every row or line on its own, from init; 'outputs = running_total' "
                                    "(one carry across calls) has no meaning there: drop it, or use "
                                    "'outputs = aggregate' for a total per row or line");
  if (const ast::Item* o = item("segments"))
    error(o->loc,
          "'segments' is not yet generated together with " + what + "; scan each row or line with a flat scan instead");
}

}  // namespace scangen::dsl::checking
