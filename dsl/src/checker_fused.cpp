// Fused inputs: what `convert` reads besides the input element. Its second
// parameter, when written (`convert(v, i) = ...;`), is the element's index in
// the array, a u64, at device level on flat, unsegmented scans.
#include <string>
#include <vector>

#include "checker_internal.h"

namespace scangen::dsl::checking {

std::vector<Type> Checker::convert_parameter_types(const ast::Item& convert, const Spec& spec) {
  std::vector<Type> types = {spec.input};
  if (convert.params.size() > 1) types.push_back(Type::scalar(ScalarKind::U64));
  return types;
}

void Checker::check_convert_index(const Items& items, const Spec& spec) {
  if (!spec.convert || spec.convert->params.size() < 2) return;
  const ast::Item* convert = items.find("convert")->second;
  const SourceLoc loc = convert->params[1].loc;
  const std::string what = "convert's index '" + convert->params[1].name + "'";
  if (spec.level != Level::Device)
    error(loc, what + " is the element's place in a device scan's array; add 'level = device;' or drop the index");
  else if (spec.segments != Segments::None)
    error(loc, what + " does not go with 'segments' yet: index-aware inputs are flat device scans only");
  else if (spec.shape != Shape::Flat)
    error(loc, what + " does not go with 'shape = " + to_string(spec.shape) +
                   "' yet: index-aware inputs are flat device scans only");
}

}  // namespace scangen::dsl::checking
