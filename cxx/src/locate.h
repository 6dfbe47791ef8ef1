// Import's first stage: the declarations a request names in the parsed
// header (a functor, a function, a lambda held by a variable, a class
// template's specialization) and a functor's or type's identity.
#pragma once

#include <string>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"

namespace scangen::cxx::detail {

// The declaration named `name` (qualified or not; with template arguments, a
// class template's specialization) in `dc` and the namespaces under it,
// outside system headers; a definition, not a forward declaration.
const clang::NamedDecl* find_named(const clang::DeclContext* dc, const std::string& name,
                                   const clang::SourceManager& sm);

// The operator named `name`: a functor's operator(), a function, or a lambda
// held by a variable; `holder` gets the functor (for its identity). Refuses
// (Unsupported) what is none of these.
const clang::FunctionDecl* find_operator(clang::ASTContext& ctx, const std::string& name,
                                         const clang::CXXRecordDecl*& holder, clang::SourceLocation file_start);

// The `identity` of a functor or type: a static data member or a static
// function returning a constant; null where `rd` has none.
const clang::Expr* find_identity(const clang::CXXRecordDecl* rd);

}  // namespace scangen::cxx::detail
