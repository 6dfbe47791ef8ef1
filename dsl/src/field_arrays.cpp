// A struct scan's input as one array per scalar field (field_arrays.h).
#include "scangen/dsl/field_arrays.h"

#include <functional>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace scangen::dsl {

namespace {

constexpr size_t kMaxArrays = 8;  // the checker's limit on `input = ...;`

void fail(std::string* why, const std::string& reason) {
  if (why) *why = reason;
}

// The scalar fields of `t`, nested structs' in place.
void leaves(const Type& t, std::vector<Type>& out) {
  if (!t.is_struct()) {
    out.push_back(t);
    return;
  }
  for (const Field& f : t.struct_type().fields) leaves(f.type, out);
}

// Every name the body binds or mentions (lets, parameters), so that the new
// parameters' names shadow none.
void names_in(const Expr& e, std::set<std::string>& out) {
  if (e.kind == ExprKind::Param || e.kind == ExprKind::Local || e.kind == ExprKind::Let) out.insert(e.name);
  for (const ExprPtr& a : e.args) names_in(*a, out);
}

ExprPtr param(const Type& t, int index, const std::string& name, SourceLoc loc) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Param;
  e->type = t;
  e->index = index;
  e->name = name;
  e->loc = loc;
  return e;
}

// The value of type `t` built from parameters next, next + 1, ...
ExprPtr build(const Type& t, int& next, const std::vector<std::string>& names, SourceLoc loc) {
  if (!t.is_struct()) {
    const int i = next++;
    return param(t, i, names[static_cast<size_t>(i)], loc);
  }
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Construct;
  e->type = t;
  e->loc = loc;
  for (const Field& f : t.struct_type().fields) e->args.push_back(build(f.type, next, names, loc));
  return e;
}

// `e` with parameter 0 (the input element) replaced by `element` and
// parameter 1 (the index) by `index`.
ExprPtr substitute(const ExprPtr& e, const ExprPtr& element, const ExprPtr& index) {
  if (e->kind == ExprKind::Param) return e->index == 0 ? element : index;
  auto copy = std::make_shared<Expr>(*e);
  for (ExprPtr& a : copy->args) a = substitute(a, element, index);
  return copy;
}

}  // namespace

std::optional<Spec> with_field_arrays(const Spec& spec, std::string* why) {
  if (!spec.input.is_struct() || spec.input_arrays) {
    fail(why, spec.input_arrays ? "the input is arrays already" : "the input is not a struct");
    return std::nullopt;
  }
  if (spec.level != Level::Device || spec.algorithm != Algorithm::DecoupledLookback ||
      spec.segments != Segments::None || spec.shape != Shape::Flat || spec.reverse || spec.has_scatter()) {
    fail(why, "input arrays are read by flat, forward decoupled look-back device scans only");
    return std::nullopt;
  }
  if (spec.convert && spec.convert->neighbours >= 0) {
    // prev(x) / next(x) read the input element beside this one, which a
    // struct of arrays does not hand convert: the struct form packs instead.
    fail(why, "convert reads prev(x) / next(x), the input elements beside this one");
    return std::nullopt;
  }
  std::vector<Type> types;
  leaves(spec.input, types);
  if (types.size() > kMaxArrays) {
    fail(why, "the input struct has " + std::to_string(types.size()) + " scalar fields; input arrays are at most " +
                  std::to_string(kMaxArrays));
    return std::nullopt;
  }
  std::set<std::string> taken;
  if (spec.convert) {
    names_in(*spec.convert->body, taken);
    for (const std::string& p : spec.convert->params) taken.insert(p);
  }
  std::string prefix = "field";
  for (bool clash = true; clash;) {
    clash = false;
    for (size_t k = 0; k < types.size() && !clash; ++k) clash = taken.count(prefix + std::to_string(k)) > 0;
    if (clash) prefix += "_";
  }
  std::vector<std::string> names;
  for (size_t k = 0; k < types.size(); ++k) names.push_back(prefix + std::to_string(k));
  const SourceLoc loc = spec.convert ? spec.convert->loc : spec.loc;
  int next = 0;
  const ExprPtr element = build(spec.input, next, names, loc);

  Function f;
  f.params = names;
  f.param_types = types;
  f.result = spec.type;
  f.loc = loc;
  if (spec.convert) {
    ExprPtr index;
    if (spec.convert_takes_index()) {
      const std::string& i = spec.convert->params[1];
      f.params.push_back(i);
      f.param_types.push_back(Type::scalar(ScalarKind::U64));
      index = param(Type::scalar(ScalarKind::U64), static_cast<int>(types.size()), i, loc);
    }
    f.body = substitute(spec.convert->body, element, index);
    f.num_locals = spec.convert->num_locals;
  } else {
    f.body = element;  // input == type: the struct itself
  }
  Spec out = spec;
  out.input_arrays = types;
  out.input = spec.type;
  out.convert = std::move(f);
  return out;
}

}  // namespace scangen::dsl
