// Fused inputs and outputs. Inputs: what `convert` reads besides the input
// element; its second parameter, when written (`convert(v, i) = ...;`), is the
// element's index in the array, a u64, at device level on flat, unsegmented
// scans; several input arrays (`input = f32, f32;`, convert(a, b [, i])) or
// none (`input = none;`, convert([i])), flat forward look-back scans; prev(v)
// and next(v) are its neighbours in the array. Outputs: `scatter(...)`,
// `scatter_at(...)` and `scatter_if(...)` write a value per selected element
// to a position of a second output, at device level (flat, decoupled
// look-back, forward); `scatter.NAME(...)` ... write more outputs.
#include <algorithm>
#include <string>
#include <vector>

#include "checker_internal.h"

namespace scangen::dsl::checking {

// convert(v, i): the input element and its index (written or not: prev(v) and next(v) come after).
std::vector<Type> Checker::convert_parameter_types(const Spec& spec) {
  return {spec.input, Type::scalar(ScalarKind::U64)};
}

namespace {

// Where the body first reads parameter `index` (prev or next), for a caret.
SourceLoc first_use(const Expr& e, int index) {
  if (e.kind == ExprKind::Param && e.index == index) return e.loc;
  for (const ExprPtr& a : e.args)
    if (SourceLoc loc = first_use(*a, index); loc.valid()) return loc;
  return {};
}

}  // namespace

// prev(x) / next(x): parameter 0 (the input element) of the function being
// checked, read at the element before or after this one.
ExprPtr Checker::neighbour(const ast::Expr& e) {
  const std::string fn = e.text;
  if (neighbours_.base < 0) {
    error(e.loc,
          "'" + fn + "(x)' is the input element " + (fn == "prev" ? "before" : "after") +
              " this one: only 'convert' (of one input array, not 'input = T, U, ...' or 'none') and the scatter "
              "functions read it");
    return nullptr;
  }
  const Binding* element = scope_.empty() ? nullptr : &scope_.front();
  const bool ok =
      e.kids.size() == 1 && e.kids[0]->kind == ast::ExprKind::Name && element && lookup(e.kids[0]->text) == element;
  if (!ok) {
    const std::string x = element ? element->name : "x";
    error(e.kids.empty() ? e.loc : e.kids[0]->begin,
          "'" + fn + "' takes the input element, the first parameter: write '" + fn + "(" + x + ")'");
    return nullptr;
  }
  neighbours_.used = true;
  auto x = std::const_pointer_cast<Expr>(make(ExprKind::Param, element->type, e.loc));
  x->index = neighbours_.base + (fn == "next" ? 1 : 0);
  x->name = fn + "(" + element->name + ")";
  return x;
}

// A function whose parameters are the first ones of `all_types` and which may
// read prev(x) and next(x): those become parameters all_types.size() and one
// more, after the unnamed rest of the list (Function::neighbours).
std::optional<Function> Checker::function_with_neighbours(const ast::Item& item, const std::vector<Type>& all_types,
                                                          const Type& result, const std::string& what) {
  const size_t written = std::min(item.params.size(), all_types.size());
  neighbours_ = {static_cast<int>(all_types.size()), false};
  std::optional<Function> f = function(
      item, std::vector<Type>(all_types.begin(), all_types.begin() + static_cast<long>(written)), result, what);
  const bool used = neighbours_.used;
  neighbours_ = {};
  if (!f || !used) return f;
  f->written = written;
  f->neighbours = static_cast<int>(all_types.size());
  for (size_t k = written; k < all_types.size(); ++k) {
    f->params.push_back("scangen_unused_" + std::to_string(k));
    f->param_types.push_back(all_types[k]);
  }
  f->params.insert(f->params.end(), {"scangen_prev", "scangen_next"});
  f->param_types.insert(f->param_types.end(), {all_types[0], all_types[0]});
  return f;
}

// Neighbours are elements of a flat device scan's array.
void Checker::check_neighbours(const Function& f, const Spec& spec, const std::string& what) {
  if (f.neighbours < 0) return;
  SourceLoc loc = first_use(*f.body, f.neighbours);
  if (!loc.valid()) loc = first_use(*f.body, f.neighbours + 1);
  const std::string reads = "prev(...) and next(...) in " + what + " read the neighbouring elements";
  if (spec.level != Level::Device)
    error(loc, reads + " of a device scan's array; add 'level = device;'");
  else if (spec.segments != Segments::None)
    error(loc, reads + ", which do not go with 'segments' yet: flat device scans only");
  else if (spec.shape != Shape::Flat)
    error(loc, reads + ", which do not go with 'shape = " + to_string(spec.shape) + "' yet: flat device scans only");
  else if (spec.has_input_arrays())
    error(loc, reads +
                   ", which do not go with input arrays ('input = ...' of several types or none) yet: one "
                   "input array only");
}

void Checker::check_convert_index(const Items& items, const Spec& spec) {
  if (spec.convert) check_neighbours(*spec.convert, spec, "'convert'");
  // With input arrays, check_input_arrays_fit says where they go.
  if (spec.has_input_arrays()) return;
  if (!spec.convert || spec.convert->written_params() < 2) return;
  const ast::Item* convert = items.find("convert")->second;
  const SourceLoc loc = convert->params[1].loc;
  const std::string what = "convert's index '" + convert->params[1].name + "'";
  // Device scans of every shape: the index in the array (flat, segments) or
  // the place along the row or line (shape = rows, strided).
  if (spec.level != Level::Device)
    error(loc, what + " is the element's place in a device scan's array; add 'level = device;' or drop the index");
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
                          std::string(to_string(spec.algorithm)) + "' reads one array");
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
  std::optional<Function> f =
      function_with_neighbours(item, {spec.input, u64, spec.type, spec.type, u64}, result, item.key);
  // Warp and block scans: the caller's elements, no array beside them.
  if (f && spec.level != Level::Device) check_neighbours(*f, spec, "'" + item.key + "'");
  return f;
}

// A fused output is a flat, forward device scan by decoupled look-back, or
// a forward warp or block scan (its device functions P_scatter and
// P_scatter_update, and the entry kernel).
void Checker::check_scatter_fits(const ast::Item& item, const Spec& spec) {
  const std::string what = "'" + item.key + "' (a fused output)";
  if (spec.level != Level::Device) {
    if (spec.reverse)
      error(item.loc, what + " does not go with 'reverse = true' yet");
    else if (spec.segments != Segments::None)
      error(item.loc, what + " does not go with 'segments' yet: fused outputs of warp and block scans are unsegmented");
    return;
  }
  if (spec.algorithm != Algorithm::DecoupledLookback)
    error(item.loc, what + " is made by the decoupled look-back kernel only; 'algorithm = " +
                        std::string(to_string(spec.algorithm)) + "' has none");
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
  if (!value && !at && !when) {
    check_named_scatter(items, spec);  // refuses named outputs without the first
    return;
  }
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
  check_named_scatter(items, spec);
}

// scatter.NAME(...), scatter_at.NAME(...), scatter_if.NAME(...),
// scatter_type.NAME: more fused outputs, each as the first.
void Checker::check_named_scatter(const Items& items, Spec& spec) {
  // The names, in the order of the source (Items is sorted by key).
  std::vector<const ast::Item*> named;
  for (const auto& [key, item] : items)
    if (key.find('.') != std::string::npos) named.push_back(item);
  std::sort(named.begin(), named.end(), [](const ast::Item* a, const ast::Item* b) {
    return a->loc.line != b->loc.line ? a->loc.line < b->loc.line : a->loc.col < b->loc.col;
  });
  static const std::vector<std::string> kTaken = {"in",       "inclusive", "exclusive", "aggregate",
                                                  "n",        "workspace", "scattered", "running_total",
                                                  "partials", "stream",    "queue",     "out"};
  for (const ast::Item* item : named) {
    const size_t dot = item->key.find('.');
    const std::string role = item->key.substr(0, dot), name = item->key.substr(dot + 1);
    auto find_item = [&](const std::string& r) -> const ast::Item* {
      auto it = items.find(r + "." + name);
      return it == items.end() ? nullptr : it->second;
    };
    const ast::Item* value = find_item("scatter");
    if (role != "scatter") {
      if (!value)
        error(item->loc, "'" + item->key + "' belongs to a fused output '" + name + "' that has no 'scatter." + name +
                             "(...) = value;'");
      else if (role == "scatter_type" || role == "scatter_if")
        continue;
      else if (role != "scatter_at")
        error(item->loc, "unknown setting '" + item->key + "'");
      continue;
    }
    const ast::Item* at = find_item("scatter_at");
    if (!at) {
      error(item->loc, "the fused output '" + name + "' needs 'scatter_at." + name + "(...) = position;' (a u64)");
      continue;
    }
    if (!items.count("scatter") || !items.count("scatter_at")) {
      error(item->loc, "'" + item->key +
                           "' is a further fused output; write the first, 'scatter(...)' and "
                           "'scatter_at(...)', before naming more");
      return;
    }
    if (!spec.scatter || !spec.scatter_at) return;  // the first has an error of its own
    if (std::find(kTaken.begin(), kTaken.end(), name) != kTaken.end() || name.rfind("scangen", 0) == 0) {
      error(item->loc, "the fused output '" + name + "' has the name of another argument of the kernel; rename it");
      continue;
    }
    if (spec.scatter_named.size() == Spec::kMaxNamedScatter) {
      error(item->loc, "at most " + std::to_string(Spec::kMaxNamedScatter) + " named fused outputs, after the first");
      return;
    }
    Spec::NamedScatter o;
    o.name = name;
    o.type = spec.input;
    if (const ast::Item* type = find_item("scatter_type")) {
      if (const ast::Expr* v = single_value(*type)) o.type = resolve_type_value(*v, "scatter_type");
      if (!o.type.valid()) continue;
    }
    auto v = scatter_function(*value, spec, o.type);
    auto a = scatter_function(*at, spec, Type::scalar(ScalarKind::U64));
    std::optional<Function> w;
    if (const ast::Item* when = find_item("scatter_if")) {
      w = scatter_function(*when, spec, Type::scalar(ScalarKind::Bool));
      if (!w) continue;
    }
    if (!v || !a) continue;
    o.value = std::move(*v);
    o.at = std::move(*a);
    o.when = std::move(w);
    spec.scatter_named.push_back(std::move(o));
  }
}

}  // namespace scangen::dsl::checking
