// Import's second stage: a C++ operator's types, body and constants written
// as .scan text. C++'s implicit conversions (integer promotion, int -> float)
// become explicit conversions T(x), and constant sub-expressions are folded
// by Clang's evaluator, so the .scan text computes in C++'s types. What is
// outside the subset is refused (Unsupported, diagnose.h).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "clang/AST/APValue.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

namespace scangen::cxx::detail {

class Translator {
 public:
  explicit Translator(clang::ASTContext& ctx) : ctx_(ctx) {}

  // The .scan name of `t` as an element or field type (declaring structs).
  std::string type_name(clang::QualType t, clang::SourceLocation where, bool allow_bool = false);

  // The struct declarations the types named so far need, in order.
  const std::vector<std::string>& type_decls() const { return decls_; }

  // The .scan text of `fn`'s body: "= expr;" or a block with lets.
  std::string combine(const clang::FunctionDecl* fn, clang::QualType element) {
    return function(fn, element, "combine");
  }

  // The same for `item` (combine, key_equal), whose two parameters are of
  // type `element` (the element's type, or the keys').
  std::string function(const clang::FunctionDecl* fn, clang::QualType element, const std::string& item);

  // A constant of type `t`.
  std::string value(const clang::APValue& v, clang::QualType t, clang::SourceLocation where);

  std::string expr(const clang::Expr* e);

 private:
  clang::ASTContext& ctx_;
  std::map<const clang::RecordDecl*, std::string> structs_;
  std::vector<std::string> decls_;
  std::map<const clang::ValueDecl*, std::string> names_;
  std::set<std::string> used_;
  std::vector<std::string> lets_;

  bool is_double(clang::QualType t) const { return ctx_.getTypeSize(t) == 64; }

  std::string scalar(const clang::BuiltinType* b, clang::QualType t, clang::SourceLocation where);
  std::string int_text(const llvm::APSInt& v, clang::QualType t);
  std::string declare_struct(const clang::RecordDecl* rd, clang::SourceLocation where);
  void check_layout(const clang::RecordDecl* rd, const std::vector<std::pair<uint64_t, uint64_t>>& fields);
  std::string block(std::vector<const clang::Stmt*> stmts, size_t i, clang::SourceLocation end);
  std::string if_stmt(const clang::IfStmt* s, std::vector<const clang::Stmt*>& stmts, size_t i,
                      clang::SourceLocation end);
  void declare_local(const clang::VarDecl* v);
  std::string cast(const clang::CastExpr* c);
  std::string call(const clang::CallExpr* c);
  std::string construct(const clang::InitListExpr* init);
  std::string binary(const clang::BinaryOperator* b);
  std::string unary(const clang::UnaryOperator* u);
  std::string name_ref(const clang::DeclRefExpr* d);
  std::string statement_problem(const clang::Stmt* s);
  std::pair<uint64_t, uint64_t> size_align(clang::QualType t);
};

}  // namespace scangen::cxx::detail
