// The checker's types: struct declarations and the type names of settings,
// fields and `let`s.
#include <algorithm>
#include <memory>

#include "checker_internal.h"

namespace scangen::dsl::checking {

namespace {

// The names the generated code gives, after the scan's prefix, to its own
// functions and types (a struct type S is P_S too): a struct may not take one.
bool reserved_type_name(const std::string& n) {
  static const char* const names[] = {
      "temp",          "inclusive",        "exclusive",        "inclusive_exclusive",        "reduce",
      "broadcast",     "inclusive_update", "exclusive_update", "inclusive_exclusive_update", "scan_kernel",
      "reduce_kernel", "spine_kernel",     "workspace_bytes",  "forget_workspace",           "build",
      "release",       "api_kernel"};
  for (const char* r : names)
    if (n == r) return true;
  return n.rfind("sg_", 0) == 0;
}

}  // namespace

void Checker::declare_types(const ast::File& file) {
  for (const ast::TypeDecl& t : file.types) {
    if (scalar_kind_from_name(t.name)) {
      error(t.loc, "'" + t.name + "' is a built-in scalar type and cannot be redefined; choose another name");
      continue;
    }
    if (reserved_type_name(t.name)) {
      error(t.loc, "type name '" + t.name +
                       "' is reserved: the generated code of a scan P names a function or type P_" + t.name +
                       " already; choose another name");
      continue;
    }
    auto [it, inserted] = type_decls_.emplace(t.name, &t);
    if (!inserted) {
      error(t.loc, "duplicate type name '" + t.name + "'; rename one of them");
      note(it->second->loc, "'" + t.name + "' was first declared here");
    }
  }
  for (const ast::TypeDecl& t : file.types)
    if (type_decls_.count(t.name) && type_decls_.at(t.name) == &t) resolve_struct(t.name, t.loc);
}

// Resolves a declared struct (and, first, the structs it contains).
Type Checker::resolve_struct(const std::string& name, SourceLoc use_loc) {
  if (auto it = structs_.find(name); it != structs_.end()) return it->second;
  auto decl_it = type_decls_.find(name);
  if (decl_it == type_decls_.end()) return {};
  const ast::TypeDecl& decl = *decl_it->second;
  if (resolving_.count(name)) {
    error(use_loc, "type '" + name + "' contains itself; a struct cannot hold a field of its own type");
    return {};
  }
  if (failed_types_.count(name)) return {};
  if (resolving_.size() >= kMaxTypeNesting) {
    // Deeper than the limit allows (checked again below, whatever the declaration order).
    error(use_loc, "types nested more than " + std::to_string(kMaxTypeNesting) + " deep");
    failed_types_.insert(name);
    return {};
  }
  resolving_.insert(name);
  std::shared_ptr<StructType> st = resolve_fields(decl);
  resolving_.erase(name);
  if (!st || !check_nesting(decl, *st)) {
    failed_types_.insert(name);
    return {};
  }
  Type t = Type::structure(st);
  structs_.emplace(name, t);
  return t;
}

// The fields of a struct declaration, laid out; null after reporting an error.
std::shared_ptr<StructType> Checker::resolve_fields(const ast::TypeDecl& decl) {
  auto st = std::make_shared<StructType>();
  st->name = decl.name;
  bool ok = true;
  if (decl.fields.empty()) {
    error(decl.loc, "type '" + decl.name + "' has no fields; give it at least one, e.g. 'value: f32'");
    ok = false;
  }
  std::map<std::string, SourceLoc> seen;
  for (const ast::FieldDecl& f : decl.fields) {
    auto [it, inserted] = seen.emplace(f.name, f.loc);
    if (!inserted) {
      error(f.loc, "duplicate field '" + f.name + "' in type '" + decl.name + "'");
      note(it->second, "'" + f.name + "' was first declared here");
      ok = false;
      continue;
    }
    Type ft = resolve_type_name(f.type, /*allow_bool=*/false);
    if (!ft.valid()) {
      ok = false;
      continue;
    }
    st->fields.push_back({f.name, ft, 0});
  }
  if (!ok) return nullptr;
  st->compute_layout();
  return st;
}

// Records the struct's depth of nesting; false (with an error) past the limit.
bool Checker::check_nesting(const ast::TypeDecl& decl, const StructType& st) {
  int depth = 1;
  for (const Field& f : st.fields)
    if (f.type.is_struct()) depth = std::max(depth, 1 + nesting_.at(f.type.name()));
  if (depth > static_cast<int>(kMaxTypeNesting)) {
    error(decl.loc, "type '" + decl.name + "' nests structs " + std::to_string(depth) + " deep; the limit is " +
                        std::to_string(kMaxTypeNesting));
    return false;
  }
  nesting_[decl.name] = depth;
  return true;
}

std::vector<std::string> Checker::known_type_names() const {
  std::vector<std::string> names = scalar_type_names();
  for (const auto& kv : type_decls_) names.push_back(kv.first);
  return names;
}

Type Checker::resolve_type_name(const ast::TypeName& tn, bool allow_bool) {
  if (auto k = scalar_kind_from_name(tn.name)) {
    if (*k == ScalarKind::Bool && !allow_bool) {
      error(tn.loc, "'bool' cannot be stored in memory by a scan; use u8 or i32 for flags");
      return {};
    }
    return Type::scalar(*k);
  }
  if (type_decls_.count(tn.name)) return resolve_struct(tn.name, tn.loc);
  error(tn.loc, "unknown type '" + tn.name + "'" + suggest(tn.name, known_type_names()) +
                    " (scalar types: " + join(scalar_type_names()) + ")");
  return {};
}

// A setting whose value names a type: `type = Affine;`
Type Checker::resolve_type_value(const ast::Expr& e, const char* setting) {
  if (e.kind != ast::ExprKind::Name) {
    error(e.loc, std::string("'") + setting + "' takes a type name such as i32 or a declared struct");
    return {};
  }
  return resolve_type_name({e.text, e.loc}, false);
}

}  // namespace scangen::dsl::checking
