// Fused inputs and outputs. Inputs: what `convert` reads besides the input
// element; its second parameter, when written (`convert(v, i) = ...;`), is the
// element's index in the array, a u64, at device level on flat, unsegmented
// scans; several input arrays (`input = f32, f32;`, convert(a, b [, i])) or
// none (`input = none;`, convert([i])), flat forward look-back scans. Outputs: `scatter(...)`, `scatter_at(...)` and
// `scatter_if(...)` write a value per selected element to a position of a second output, at device level (flat,
// decoupled look-back, forward).
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
  // With input arrays, check_input_arrays_fit says where they go.
  if (!spec.convert_takes_index() || spec.has_input_arrays()) return;
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

// `input = T1, T2, ...;` (several arrays) or `input = none;` (no array).
bool Checker::is_input_arrays(const ast::Item& input) {
  if (input.is_function) return false;
  if (input.values.size() > 1) return true;
  return input.values.size() == 1 && input.values[0]->kind == ast::ExprKind::Name && input.values[0]->text == "none";
}

void Checker::check_input_arrays(const ast::Item& input, Spec& spec) {
  std::vector<Type> types;
  const bool none = input.values.size() == 1;
  if (!none && input.values.size() > kMaxInputArrays) {
    error(input.values[kMaxInputArrays]->loc, "'input' takes at most " + std::to_string(kMaxInputArrays) +
                                                  " arrays; this one lists " + std::to_string(input.values.size()));
    spec.input = Type();
    return;
  }
  for (size_t i = 0; !none && i < input.values.size(); ++i) {
    const ast::Expr& v = *input.values[i];
    if (v.kind == ast::ExprKind::Name && v.text == "none") {
      error(v.loc, "'none' (no input array) stands alone: write 'input = none;'");
      spec.input = Type();
      return;
    }
    Type t = resolve_type_value(v, "input");
    if (!t.valid()) {
      spec.input = Type();
      return;
    }
    types.push_back(t);
  }
  spec.input_arrays = std::move(types);
}

// convert over the arrays: one parameter per array, then optionally the index.
void Checker::check_arrays_convert(const ast::Item* input, const ast::Item* convert, Spec& spec) {
  const std::vector<Type>& arrays = *spec.input_arrays;
  const size_t k = arrays.size();
  std::string names, example;
  for (size_t i = 0; i < k; ++i) {
    names += (i ? ", " : "") + arrays[i].name();
    example += std::string(i ? ", " : "") + static_cast<char>('a' + i);
  }
  const std::string usage =
      k == 0 ? "'convert(i) = ...;' (the element from its index i, a u64) or 'convert() = ...;' (a constant)"
             : "'convert(" + example + ") = ...;' (one element of each array, in order: " + names + ") or 'convert(" +
                   example + ", i) = ...;' (and the element's index, a u64)";
  if (!convert) {
    error(input->loc, std::string(k == 0 ? "'input = none;' reads no array" : "several input arrays") +
                          ": the scan's elements come from 'convert'; add " + usage + " returning " + spec.type.name());
    return;
  }
  if (!convert->is_function || convert->params.size() < k || convert->params.size() > k + 1) {
    error(convert->loc, "with 'input = " + (k == 0 ? std::string("none") : names) + ";', 'convert' takes " +
                            (k == 0 ? std::string("no element") : std::to_string(k) + " elements") +
                            " and, optionally, the index: write " + usage);
    return;
  }
  std::vector<Type> types = arrays;
  if (convert->params.size() > k) types.push_back(Type::scalar(ScalarKind::U64));
  spec.convert = function(*convert, types, spec.type, "convert");
}

// Input arrays are read by a flat, forward device scan by decoupled look-back.
void Checker::check_input_arrays_fit(const Items& items, const Spec& spec) {
  if (!spec.has_input_arrays()) return;
  const ast::Item* input = items.find("input")->second;
  std::string list;
  for (const Type& t : *spec.input_arrays) list += (list.empty() ? "" : ", ") + t.name();
  const std::string what = spec.input_arrays->empty() ? "'input = none;' (no input array)"
                                                      : "'input = " + list + ";' (several input arrays)";
  const std::string only = " yet: input arrays are flat device scans only";
  if (spec.level != Level::Device)
    error(input->loc, what + " feeds a device scan's loads; add 'level = device;'");
  else if (spec.algorithm != Algorithm::DecoupledLookback)
    error(input->loc, what + " is read by the decoupled look-back kernel only; 'algorithm = " +
                          std::string(to_string(spec.algorithm)) + "' reads one array" +
                          (spec.deterministic ? " (deterministic = true with floats chooses reduce_then_scan)" : ""));
  else if (spec.segments != Segments::None)
    error(input->loc, what + " does not go with 'segments'" + only);
  else if (spec.shape != Shape::Flat)
    error(input->loc, what + " does not go with 'shape = " + to_string(spec.shape) + "'" + only);
  else if (spec.reverse)
    error(input->loc, what + " does not go with 'reverse = true' yet");
  else if (auto it = items.find("scatter"); it != items.end())
    error(it->second->loc,
          "'scatter' (a fused output) reads the input element, which several input arrays or none "
          "do not have yet; drop 'scatter' or give one array");
}

// The parameters every scatter function may take, in this order (a function
// takes the first 1 to 5): the input element, its index, its exclusive and
// inclusive results, n.
std::optional<Function> Checker::scatter_function(const ast::Item& item, const Spec& spec, const Type& result) {
  if (!item.is_function || item.params.empty() || item.params.size() > 5) {
    error(item.loc, "'" + item.key +
                        "' is a function of the input element and, optionally, its index, its exclusive and "
                        "inclusive results and n, in that order: write e.g. '" +
                        item.key + "(x, i, exclusive, inclusive, n) = ...;' (1 to 5 parameters)");
    return std::nullopt;
  }
  const Type u64 = Type::scalar(ScalarKind::U64);
  const std::vector<Type> all = {spec.input, u64, spec.type, spec.type, u64};
  return function(item, std::vector<Type>(all.begin(), all.begin() + static_cast<long>(item.params.size())), result,
                  item.key);
}

// A fused output is a flat, forward device scan by decoupled look-back.
void Checker::check_scatter_fits(const ast::Item& item, const Spec& spec) {
  const std::string what = "'" + item.key + "' (a fused output)";
  if (spec.level != Level::Device)
    error(item.loc, what + " writes into a device scan's second output; add 'level = device;'");
  else if (spec.algorithm != Algorithm::DecoupledLookback)
    error(item.loc, what + " is made by the decoupled look-back kernel only; 'algorithm = " +
                        std::string(to_string(spec.algorithm)) + "' has none" +
                        (spec.deterministic ? " (deterministic = true with floats chooses reduce_then_scan)" : ""));
  else if (spec.segments != Segments::None)
    error(item.loc, what + " does not go with 'segments' yet: fused outputs are flat device scans only");
  else if (spec.shape != Shape::Flat)
    error(item.loc, what + " does not go with 'shape = " + to_string(spec.shape) +
                        "' yet: fused outputs are flat device scans only");
  else if (spec.reverse)
    error(item.loc, what + " does not go with 'reverse = true' yet");
  else if (spec.running_total)
    error(item.loc, what + " does not go with 'outputs = running_total' yet; 'outputs = aggregate' gives the total");
}

void Checker::check_scatter(const Items& items, Spec& spec) {
  auto find_item = [&](const char* key) -> const ast::Item* {
    auto it = items.find(key);
    return it == items.end() ? nullptr : it->second;
  };
  const ast::Item* value = find_item("scatter");
  const ast::Item* at = find_item("scatter_at");
  const ast::Item* when = find_item("scatter_if");
  const ast::Item* type = find_item("scatter_type");
  if (type && !value) {
    error(type->loc,
          "'scatter_type' is the element type of a fused output; add 'scatter(...) = value;' and "
          "'scatter_at(...) = position;' or drop it");
    return;
  }
  if (!value && !at && !when) return;
  if (spec.has_input_arrays()) return;  // check_input_arrays_fit refuses it
  if (!value || !at) {
    const ast::Item* given = value ? value : at ? at : when;
    error(given->loc, std::string("a fused output needs both 'scatter(...) = value;' and 'scatter_at(...) = "
                                  "position;' (a u64); missing: ") +
                          (!value && !at ? "both"
                           : !value      ? "'scatter'"
                                         : "'scatter_at'"));
    return;
  }
  if (!spec.type.valid() || !spec.input.valid()) return;
  check_scatter_fits(*value, spec);
  spec.scatter_type = spec.input;
  if (type) {
    if (const ast::Expr* v = single_value(*type)) spec.scatter_type = resolve_type_value(*v, "scatter_type");
    if (!spec.scatter_type.valid()) return;
  }
  spec.scatter = scatter_function(*value, spec, spec.scatter_type);
  spec.scatter_at = scatter_function(*at, spec, Type::scalar(ScalarKind::U64));
  if (when) spec.scatter_if = scatter_function(*when, spec, Type::scalar(ScalarKind::Bool));
}

}  // namespace scangen::dsl::checking
