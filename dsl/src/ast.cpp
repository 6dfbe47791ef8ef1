#include "scangen/dsl/ast.h"

namespace scangen::dsl::ast {

namespace {
std::string at(SourceLoc loc) { return "@" + std::to_string(loc.line) + ":" + std::to_string(loc.col); }
}  // namespace

std::string dump(const Expr& e) {
  std::string out;
  switch (e.kind) {
    case ExprKind::Int:
      return "(int " + e.text + ")";
    case ExprKind::Float:
      return "(float " + e.text + ")";
    case ExprKind::Bool:
      return "(bool " + e.text + ")";
    case ExprKind::Name:
      return "(name " + e.text + ")";
    case ExprKind::Member:
      return "(member " + dump(*e.kids[0]) + " " + e.text + ")";
    case ExprKind::Unary:
      return "(" + e.text + " " + dump(*e.kids[0]) + ")";
    case ExprKind::Binary:
      return "(" + e.text + " " + dump(*e.kids[0]) + " " + dump(*e.kids[1]) + ")";
    case ExprKind::Ternary:
      return "(?: " + dump(*e.kids[0]) + " " + dump(*e.kids[1]) + " " + dump(*e.kids[2]) + ")";
    case ExprKind::Call:
      out = "(call " + e.text;
      for (const ExprPtr& k : e.kids) out += " " + dump(*k);
      return out + ")";
    case ExprKind::Construct:
      out = "(construct " + e.text;
      for (size_t i = 0; i < e.kids.size(); ++i) {
        out += " ";
        if (!e.field_names.empty()) out += e.field_names[i] + ":";
        out += dump(*e.kids[i]);
      }
      return out + ")";
  }
  return "?";
}

std::string dump(const File& file) {
  std::string out;
  for (const TypeDecl& t : file.types) {
    out += "(type " + t.name + " " + at(t.loc);
    for (const FieldDecl& f : t.fields) out += "\n  (field " + f.name + " " + f.type.name + ")";
    out += ")\n";
  }
  for (const ScanDecl& s : file.scans) {
    out += "(scan " + s.name + " " + at(s.loc);
    for (const Item& item : s.items) {
      out += "\n  (" + item.key + " " + at(item.loc);
      if (item.is_function) {
        out += " (params";
        for (const Param& p : item.params) out += " " + p.name;
        out += ")";
        for (const Let& l : item.body.lets)
          out += "\n    (let " + l.name + (l.type.name.empty() ? "" : ":" + l.type.name) + " " +
                 (l.value ? dump(*l.value) : "<error>") + ")";
        out += "\n    " + (item.body.result ? dump(*item.body.result) : std::string("<error>"));
      } else {
        for (const ExprPtr& v : item.values) out += " " + dump(*v);
      }
      out += ")";
    }
    out += ")\n";
  }
  return out;
}

}  // namespace scangen::dsl::ast
