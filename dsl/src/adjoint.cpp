#include "scangen/dsl/adjoint.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <utility>

namespace scangen::dsl {

namespace {

// The struct types `t` uses, each after the ones its fields use.
void collect_structs(const Type& t, std::vector<const StructType*>& out, std::set<const StructType*>& seen) {
  if (!t.is_struct()) return;
  const StructType& st = t.struct_type();
  if (!seen.insert(&st).second) return;
  for (const Field& f : st.fields) collect_structs(f.type, out, seen);
  out.push_back(&st);
}

// The scalar at `path` of a value named `base`, as the DSL spells it.
std::string leaf_text(const std::string& base, const Type& t, const std::vector<int>& path) {
  std::string out = base;
  Type cur = t;
  for (int i : path) {
    const Field& f = cur.struct_type().fields[static_cast<size_t>(i)];
    out += "." + f.name;
    cur = f.type;
  }
  return out;
}

Type leaf_type(const Type& t, const std::vector<int>& path) {
  Type cur = t;
  for (int i : path) cur = cur.struct_type().fields[static_cast<size_t>(i)].type;
  return cur;
}

// A function's body as convert's `let`s: its parameters read as the values
// named in `args`, its own lets renamed (fresh names from `fresh`) and
// hoisted; the `let`s go to `lets`, the result's text is returned.
class Inliner {
 public:
  explicit Inliner(int& counter) : counter_(counter) {}

  std::string inline_body(const Function& f, const std::vector<std::string>& args, std::vector<std::string>& lets) {
    args_ = args;
    locals_.clear();
    const Expr* e = f.body.get();
    while (e->kind == ExprKind::Let) {
      const std::string name = "_t" + std::to_string(counter_++);
      lets.push_back("let " + name + ": " + e->args[0]->type.name() + " = " + to_string(*rename(e->args[0])) + ";");
      locals_[e->index] = name;
      e = e->args[1].get();
    }
    return to_string(*rename(std::make_shared<Expr>(*e)));
  }

 private:
  ExprPtr rename(const ExprPtr& e) {
    auto c = std::make_shared<Expr>(*e);
    switch (e->kind) {
      case ExprKind::Param:
        c->name = args_.at(static_cast<size_t>(e->index));
        c->kind = ExprKind::Local;
        return c;
      case ExprKind::Local: {
        const auto it = locals_.find(e->index);
        if (it == locals_.end()) throw std::logic_error("adjoint: a local read before its let");
        c->name = it->second;
        return c;
      }
      case ExprKind::Let:
        throw std::logic_error("adjoint: a let inside an expression");
      default:
        for (ExprPtr& a : c->args) a = rename(a);
        return c;
    }
  }

  int& counter_;
  std::vector<std::string> args_;
  std::map<int, std::string> locals_;
};

std::string idx(size_t r, size_t c) { return std::to_string(r) + "_" + std::to_string(c); }

// Throws where `spec` has what the backward pass does not derive.
void check_derivable(const Spec& spec, const std::string& what) {
  if (spec.level != Level::Device)
    throw DerivativeError(what +
                          "is derived for device-level scans (level = device), not level = " + to_string(spec.level));
  if (spec.has_input_arrays() || spec.convert)
    throw DerivativeError(what +
                          "is derived for scans of their own element type: this one converts its input "
                          "(input = ... / convert), whose gradient is not derived");
  if (spec.segments != Segments::None)
    throw DerivativeError(what + "is not derived for segmented scans (segments = " + to_string(spec.segments) + ")");
  if (spec.shape != Shape::Flat)
    throw DerivativeError(what + "is derived for flat scans; the Python package gives it rows and axes");
  if (spec.has_scatter()) throw DerivativeError(what + "is not derived for fused outputs (scatter)");
}

// What the pieces of the backward scan's text share: the spec's type, its k
// float leaves, the float type of the map, the map type's name and fields.
struct Writer {
  const Spec& spec;
  const Adjoint& out;
  const Type& t;
  size_t k;
  std::string f;    // the float type of M, N, v, w and p
  std::string adj;  // the map type's name
  std::vector<std::string> fields;

  // The leaf c of a value, as f.
  std::string as_f(const std::string& base, size_t c) const {
    const std::string s = leaf_text(base, t, out.leaves[c].path);
    return leaf_type(t, out.leaves[c].path).name() == f ? s : f + "(" + s + ")";
  }
};

// The map's fields: M, N (k x k each), v, w (k each) and p.
std::vector<std::string> map_fields(size_t k) {
  std::vector<std::string> fields;
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < k; ++c) fields.push_back("m" + idx(r, c));
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < k; ++c) fields.push_back("n" + idx(r, c));
  for (size_t r = 0; r < k; ++r) fields.push_back("v" + std::to_string(r));
  for (size_t r = 0; r < k; ++r) fields.push_back("w" + std::to_string(r));
  fields.push_back("p");
  return fields;
}

// The type declarations: the spec's struct types, the input element and the map.
std::string type_text(const Writer& w) {
  std::string text;
  std::vector<const StructType*> structs;
  std::set<const StructType*> seen;
  collect_structs(w.t, structs, seen);
  for (const StructType* st : structs) {
    text += "type " + st->name + " {";
    for (size_t i = 0; i < st->fields.size(); ++i)
      text += std::string(i ? ", " : " ") + st->fields[i].name + ": " + st->fields[i].type.name();
    text += " }\n";
  }
  const std::string& tn = w.t.name();
  text += "type " + w.out.input_type + " { yp: " + tn + ", x: " + tn + ", yb: " + tn + ", last: u8 }\n";
  text += "type " + w.adj + " {";
  for (size_t i = 0; i < w.fields.size(); ++i) text += std::string(i ? ", " : " ") + w.fields[i] + ": " + w.f;
  text += " }\n";
  return text;
}

// The convert's lets: the two elements' values, the partial derivatives
// da[l] = d combine / d a.leaf(l) and db[l] = d combine / d b.leaf(l)
// inlined, and M.
std::vector<std::string> convert_lets(const Writer& w) {
  const std::string tn = w.t.name();
  // The element after this one in the scan's order: next for a forward scan, prev for a reverse one.
  const std::string after = w.spec.reverse ? "prev" : "next";
  std::vector<std::string> lets = {"let _ya: " + tn + " = " + after + "(_e).yp;",
                                   "let _xa: " + tn + " = " + after + "(_e).x;", "let _yb: " + tn + " = _e.yp;",
                                   "let _xb: " + tn + " = _e.x;"};
  std::vector<Function> da, db;
  for (const Leaf& l : w.out.leaves) {
    da.push_back(derivative(w.spec.combine, 0, l.path));
    db.push_back(derivative(w.spec.combine, 1, l.path));
  }
  int counter = 0;
  Inliner inliner(counter);
  for (size_t l = 0; l < w.k; ++l) {
    const std::string body = inliner.inline_body(da[l], {"_ya", "_xa"}, lets);
    lets.push_back("let _da" + std::to_string(l) + ": " + tn + " = " + body + ";");
  }
  for (size_t l = 0; l < w.k; ++l) {
    const std::string body = inliner.inline_body(db[l], {"_yb", "_xb"}, lets);
    lets.push_back("let _db" + std::to_string(l) + ": " + tn + " = " + body + ";");
  }
  // M[r][c] = A[c][r] = d combine.leaf(c) / d a.leaf(r); 0 for the last
  // element of a line in the forward scan's order (last != 0), whose next /
  // prev is another line's element or itself: M = N = 0 there, so the
  // backward scan restarts at every line and lines laid end to end are one
  // scan.
  for (size_t r = 0; r < w.k; ++r)
    for (size_t c = 0; c < w.k; ++c)
      lets.push_back("let _m" + idx(r, c) + ": " + w.f +
                     " = _e.last != 0 ? 0.0 : " + w.as_f("_da" + std::to_string(r), c) + ";");
  return lets;
}

// The convert: one element's map.
std::string convert_text(const Writer& w) {
  const size_t k = w.k;
  std::string text = "  convert(_e) {\n";
  for (const std::string& l : convert_lets(w)) text += "    " + l + "\n";
  text += "    return " + w.adj + " {";
  std::vector<std::string> values;
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < k; ++c) values.push_back("_m" + idx(r, c));
  // N = B^T M: N[r][c] = sum_q B[q][r] M[q][c], B[q][r] = db_r's leaf q.
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < k; ++c) {
      std::string s;
      for (size_t q = 0; q < k; ++q) s += (q ? " + " : "") + w.as_f("_db" + std::to_string(r), q) + " * _m" + idx(q, c);
      values.push_back(s);
    }
  for (size_t r = 0; r < k; ++r) values.push_back(w.as_f("_e.yb", r));
  for (size_t r = 0; r < k; ++r) {
    std::string s;
    for (size_t q = 0; q < k; ++q)
      s += (q ? " + " : "") + w.as_f("_db" + std::to_string(r), q) + " * " + w.as_f("_e.yb", q);
    values.push_back(s);
  }
  values.push_back("0.0");
  for (size_t i = 0; i < w.fields.size(); ++i)
    text += std::string(i ? "," : "") + "\n      " + w.fields[i] + ": " + values[i];
  text += "\n    };\n  }\n";
  return text;
}

// combine(x, y) = F_y after F_x (y is the later element: the lower index of
// the original), and the identity map.
std::string combine_text(const Writer& w) {
  const size_t k = w.k;
  std::string text = "  combine(x, y) = " + w.adj + " {";
  std::vector<std::string> values;
  auto sum_mm = [&](const std::string& a, const std::string& b, size_t r, size_t c) {
    std::string s;
    for (size_t q = 0; q < k; ++q) s += (q ? " + " : "") + ("y." + a + idx(r, q)) + " * x." + b + idx(q, c);
    return s;
  };
  auto sum_mv = [&](const std::string& a, size_t r) {
    std::string s;
    for (size_t q = 0; q < k; ++q) s += " + y." + a + idx(r, q) + " * x.v" + std::to_string(q);
    return s;
  };
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < k; ++c) values.push_back(sum_mm("m", "m", r, c));
  for (size_t r = 0; r < k; ++r)
    for (size_t c = 0; c < k; ++c) values.push_back(sum_mm("n", "m", r, c) + " + y.p * x.n" + idx(r, c));
  for (size_t r = 0; r < k; ++r) values.push_back("y.v" + std::to_string(r) + sum_mv("m", r));
  for (size_t r = 0; r < k; ++r)
    values.push_back("y.w" + std::to_string(r) + sum_mv("n", r) + " + y.p * x.w" + std::to_string(r));
  values.push_back("y.p * x.p");
  for (size_t i = 0; i < w.fields.size(); ++i)
    text += std::string(i ? "," : "") + "\n    " + w.fields[i] + ": " + values[i];
  text += "\n  };\n  identity = " + w.adj + " {";
  for (size_t i = 0; i < w.fields.size(); ++i) {
    const std::string& name = w.fields[i];
    const bool one =
        name == "p" || (name[0] == 'm' && name.substr(1, name.find('_') - 1) == name.substr(name.find('_') + 1));
    text += std::string(i ? ", " : " ") + name + ": " + (one ? "1.0" : "0.0");
  }
  text += " };\n";
  return text;
}

}  // namespace

Adjoint adjoint(const Spec& spec) {
  const std::string what = "scan '" + spec.name + "': the backward pass ";
  check_derivable(spec, what);

  const Type& t = spec.type;
  Adjoint out;
  out.leaves = float_leaves(t, "x");
  const size_t k = out.leaves.size();
  if (k == 0)
    throw DerivativeError(what + "needs a float in the element type: " + t.name() +
                          " has no f16, f32 or f64 scalar, so nothing to differentiate");
  bool wide = false;
  for (const Leaf& l : out.leaves) wide = wide || leaf_type(t, l.path).scalar_kind() == ScalarKind::F64;
  out.float_type = wide ? "f64" : "f32";
  out.name = spec.name + "_adjoint";
  out.input_type = spec.name + "_adjoint_in";
  const Writer w{spec, out, t, k, out.float_type, spec.name + "_adjoint_map", map_fields(k)};

  std::string text = type_text(w);
  text += "scan " + out.name + " {\n  type = " + w.adj + ";\n  input = " + out.input_type + ";\n";
  text += convert_text(w);
  text += combine_text(w);
  text += "  level = device;\n  reverse = " + std::string(spec.reverse ? "false" : "true") +
          ";\n  assume_associative = true;\n}\n";
  out.text = std::move(text);
  return out;
}

}  // namespace scangen::dsl
