// The parse tree: what the file says, before names and types are resolved.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scangen/dsl/source.h"

namespace scangen::dsl::ast {

enum class ExprKind {
  Int,        // text: the literal's spelling
  Float,      // text: the literal's spelling
  Bool,       // text: "true" / "false"
  Name,       // text: identifier
  Member,     // kids[0].text
  Unary,      // text: operator; kids[0]
  Binary,     // text: operator; kids[0], kids[1]
  Ternary,    // kids: condition, then, else
  Call,       // text: callee; kids: arguments
  Construct,  // text: type name; kids: field values; field_names empty when positional
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind;
  SourceLoc loc;    // the operator, name or literal the node is about
  SourceLoc begin;  // the first character of the whole expression
  std::string text;
  std::vector<ExprPtr> kids;
  std::vector<std::string> field_names;
  std::vector<SourceLoc> field_locs;
};

struct TypeName {
  std::string name;
  SourceLoc loc;
};

struct Let {
  std::string name;
  SourceLoc loc;
  TypeName type;  // empty name: inferred
  ExprPtr value;
};

// `= expr ;` or `{ let ...; return expr; }`
struct Body {
  std::vector<Let> lets;
  ExprPtr result;
};

struct Param {
  std::string name;
  SourceLoc loc;
};

// One line of a scan block: `key = value {, value} ;` or `key(params) body`.
struct Item {
  std::string key;
  SourceLoc loc;
  bool is_function = false;
  std::vector<Param> params;  // functions
  Body body;                  // functions
  std::vector<ExprPtr> values;
};

struct FieldDecl {
  std::string name;
  SourceLoc loc;
  TypeName type;
};

struct TypeDecl {
  std::string name;
  SourceLoc loc;
  std::vector<FieldDecl> fields;
};

struct ScanDecl {
  std::string name;
  SourceLoc loc;
  std::vector<Item> items;
  bool had_syntax_errors = false;  // some item was dropped: don't report it as missing
};

// `import "HEADER" [with "ARG" {, "ARG"}];` (dsl/import.h)
struct Import {
  std::string header;  // as written
  SourceLoc loc;       // of the header's string
  std::vector<std::string> args;
};

struct File {
  std::vector<TypeDecl> types;
  std::vector<ScanDecl> scans;
  std::vector<Import> imports;
};

// An S-expression dump, for `scangen explain --dump=ast`.
std::string dump(const File& file);
std::string dump(const Expr& e);

}  // namespace scangen::dsl::ast
