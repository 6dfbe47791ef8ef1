// `import "HEADER";` resolved: each scan's `combine = NAME;` (and
// `key_equal = NAME;`) becomes the C++ front end's translation, its type
// declarations and operator items (the key comparison and its key type), before
// the checker sees the file. Nodes that come from a translation carry the
// position of the `combine = NAME` that asked for them, so that anything the
// checker says about them points there.
#include "imports.h"

#include <fstream>
#include <set>
#include <utility>

#include "scangen/dsl/parser.h"

namespace scangen::dsl {

namespace {

const char* const kNoResolver =
    "importing a C++ header needs scangen's C++ front end (Clang libTooling), which is not available here: use "
    "the scangen program built with Clang (docs/cxx.md), or write the operator in the .scan file (`scangen "
    "import` prints it)";

// An imported function of a scan: its `combine = NAME;` or `key_equal = NAME;` item.
bool is_request(const ast::Item& item) {
  return (item.key == "combine" || item.key == "key_equal") && !item.is_function && item.values.size() == 1 &&
         item.values[0]->kind == ast::ExprKind::Name;
}

bool has_item(const ast::ScanDecl& scan, const std::string& key) {
  for (const ast::Item& item : scan.items)
    if (item.key == key) return true;
  return false;
}

// `path` from the folder of the .scan file `from` (none for standard input).
std::string beside(const std::string& from, const std::string& path) {
  if (path.empty() || path[0] == '/' || from == "<stdin>") return path;
  const size_t slash = from.find_last_of('/');
  return slash == std::string::npos ? path : from.substr(0, slash + 1) + path;
}

std::vector<CxxHeader> headers(const ast::File& file, const std::string& from) {
  std::vector<CxxHeader> out;
  for (const ast::Import& import : file.imports) {
    CxxHeader h{beside(from, import.header), {}};
    for (const std::string& arg : import.args)
      h.args.push_back(arg.rfind("-I", 0) == 0 && arg.size() > 2 ? "-I" + beside(from, arg.substr(2)) : arg);
    out.push_back(std::move(h));
  }
  return out;
}

void relocate(ast::Expr& e, SourceLoc loc) {
  e.loc = e.begin = loc;
  for (SourceLoc& f : e.field_locs) f = loc;
  for (ast::ExprPtr& k : e.kids) relocate(*k, loc);
}

void relocate(ast::Item& item, SourceLoc loc) {
  item.loc = loc;
  for (ast::Param& p : item.params) p.loc = loc;
  for (ast::Let& l : item.body.lets) {
    l.loc = l.type.loc = loc;
    relocate(*l.value, loc);
  }
  if (item.body.result) relocate(*item.body.result, loc);
  for (ast::ExprPtr& v : item.values) relocate(*v, loc);
}

class Resolver {
 public:
  Resolver(ast::File& file, const SourceFile& source, Diagnostics& diags)
      : file_(file), source_(source), diags_(diags) {}

  // The scans that import an operator, and what each asks for.
  void collect() {
    for (size_t i = 0; i < file_.scans.size(); ++i)
      for (const ast::Item& item : file_.scans[i].items)
        if (is_request(item)) {
          scans_.push_back(i);
          requests_.push_back({item.values[0]->text, has_item(file_.scans[i], "identity"), item.key == "key_equal"});
        }
  }

  std::vector<std::string> run(const LoadOptions& options) {
    collect();
    if (!options.resolve_imports) {
      const std::string why = options.no_resolver.empty() ? kNoResolver : options.no_resolver;
      for (const ast::Import& import : file_.imports) diags_.error(import.loc, why);
      drop_all();
      return {};
    }
    if (requests_.empty()) return {};
    const std::vector<CxxHeader> cxx = headers(file_, source_.name());
    bool readable = true;
    for (size_t i = 0; i < cxx.size(); ++i) {
      if (std::ifstream(cxx[i].path)) continue;
      diags_.error(file_.imports[i].loc,
                   "cannot read the C++ header '" + file_.imports[i].header + "'" +
                       (cxx[i].path == file_.imports[i].header ? std::string() : " (" + cxx[i].path + ")") +
                       "; a relative path starts from the .scan file's folder");
      readable = false;
    }
    if (!readable) {
      drop_all();
      return {};
    }
    CxxImportResult r = options.resolve_imports(cxx, requests_);
    if (r.errors > 0 || r.operators.size() != requests_.size()) {
      const SourceLoc at = file_.imports.front().loc;
      diags_.rendered(
          at, r.diagnostics.empty() ? "error: the C++ front end did not translate the imports\n" : r.diagnostics,
          r.errors);
      diags_.note(at,
                  file_.imports.size() == 1 ? "in the C++ header imported here" : "in the C++ headers imported here");
      drop_all();
      return r.files_read;
    }
    std::set<size_t> failed;
    for (size_t k = 0; k < requests_.size(); ++k)
      if (!failed.count(scans_[k]) && !apply(file_.scans[scans_[k]], requests_[k], r.operators[k]))
        failed.insert(scans_[k]);
    drop(failed);
    return r.files_read;
  }

 private:
  ast::File& file_;
  const SourceFile& source_;
  Diagnostics& diags_;
  std::vector<size_t> scans_;
  std::vector<CxxOperatorRequest> requests_;
  std::set<std::string> imported_types_;

  void drop_all() { drop(std::set<size_t>(scans_.begin(), scans_.end())); }
  // A scan whose operator was not imported would only add errors about it.
  void drop(const std::set<size_t>& which) {
    std::vector<ast::ScanDecl> kept;
    for (size_t i = 0; i < file_.scans.size(); ++i)
      if (!which.count(i)) kept.push_back(std::move(file_.scans[i]));
    file_.scans = std::move(kept);
  }

  // Puts `result` in the place of `scan`'s `combine = NAME;` (or
  // `key_equal = NAME;`, as `request` says); false when it failed (and was
  // reported).
  bool apply(ast::ScanDecl& scan, const CxxOperatorRequest& request, const CxxOperatorResult& result) {
    const char* key = request.key_equal ? "key_equal" : "combine";
    auto at = scan.items.begin();
    while (!(is_request(*at) && at->key == key)) ++at;
    const SourceLoc loc = at->values[0]->loc;
    const std::string op = at->values[0]->text;
    if (!result.not_found.empty()) {
      diags_.error(loc, result.not_found);
      return false;
    }
    if (result.errors > 0) {
      diags_.rendered(loc, result.diagnostics, result.errors);
      diags_.note(loc, "'" + op + "' is imported here");
      return false;
    }
    SourceFile text(source_.name() + " (" + op + ")", result.text);
    Diagnostics text_diags(text);
    ast::File translated = parse(text, text_diags);
    if (text_diags.has_errors() || translated.scans.size() != 1) {
      diags_.error(loc, "internal error: the C++ front end's translation of '" + op + "' does not parse:\n" +
                            text_diags.render() + result.text);
      return false;
    }
    for (ast::TypeDecl& t : translated.types) {
      if (!imported_types_.insert(t.name).second) continue;  // imported for an earlier scan
      t.loc = loc;
      for (ast::FieldDecl& f : t.fields) f.loc = f.type.loc = loc;
      file_.types.push_back(std::move(t));
    }
    std::vector<ast::Item> items;
    for (ast::Item& item : translated.scans[0].items) {
      relocate(item, loc);
      if (item.key == "type" && !check_type(scan, item, op)) return false;
      if (item.key == "type" && has_item(scan, "type")) continue;
      if (item.key == "key" && !check_key(scan, item, op)) return false;
      if (item.key == "key" && has_item(scan, "key")) continue;
      items.push_back(std::move(item));
    }
    at = scan.items.erase(at);
    scan.items.insert(at, std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
    return true;
  }

  // The scan's own `key = K;`, if any, must be the imported comparison's.
  bool check_key(const ast::ScanDecl& scan, const ast::Item& imported, const std::string& op) {
    const std::string& compares = imported.values[0]->text;
    for (const ast::Item& item : scan.items) {
      if (item.key != "key" || item.values.size() != 1 || item.values[0]->kind != ast::ExprKind::Name) continue;
      if (item.values[0]->text == compares) return true;
      diags_.error(item.values[0]->loc, "the imported key comparison '" + op + "' compares '" + compares +
                                            "' keys, not '" + item.values[0]->text + "'; write 'key = " + compares +
                                            ";'");
      return false;
    }
    return true;
  }

  // The scan's own `type = T;`, if any, must be the operator's.
  bool check_type(const ast::ScanDecl& scan, const ast::Item& imported, const std::string& op) {
    const std::string& combines = imported.values[0]->text;
    for (const ast::Item& item : scan.items) {
      if (item.key != "type" || item.values.size() != 1 || item.values[0]->kind != ast::ExprKind::Name) continue;
      if (item.values[0]->text == combines) return true;
      diags_.error(item.values[0]->loc, "the imported operator '" + op + "' combines '" + combines + "', not '" +
                                            item.values[0]->text + "'; write 'type = " + combines + ";'");
      return false;
    }
    return true;
  }
};

}  // namespace

std::vector<std::string> resolve_imports(ast::File& file, const SourceFile& source, Diagnostics& diags,
                                         const LoadOptions& options) {
  return Resolver(file, source, diags).run(options);
}

}  // namespace scangen::dsl
