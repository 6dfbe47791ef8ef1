// Import's first stage: finding the declarations a request names.
#include "locate.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"

#include "diagnose.h"
#include "names.h"

namespace scangen::cxx::detail {

using namespace clang;

namespace {

// `name` with template arguments (CustomMin<float>): the class template's
// specialization, instantiated by the line instantiations() adds.
const NamedDecl* find_specialization(const DeclContext* dc, const std::string& name, const SourceManager& sm) {
  const std::string base = name.substr(0, name.find('<'));
  const auto* t = dyn_cast_or_null<ClassTemplateDecl>(find_named(dc, base, sm));
  if (!t) return nullptr;
  const std::string args = without_spaces(name.substr(name.find('<')));
  // Its arguments as Clang prints them (CustomMin<int>), or as the added
  // instantiation spelled them (CustomMin<int32_t>).
  auto arguments_of = [](const std::string& printed) {
    const size_t lt = printed.find('<');
    return lt == std::string::npos ? std::string() : printed.substr(lt);
  };
  for (const ClassTemplateSpecializationDecl* spec : t->specializations()) {
    if (!spec->hasDefinition()) continue;
    const TypeSourceInfo* written = spec->getTypeAsWritten();
    if (arguments_of(without_spaces(template_name(spec))) == args ||
        (written && arguments_of(without_spaces(cxx_name(written->getType()))) == args))
      return spec->getDefinition();
  }
  return nullptr;
}

}  // namespace

const NamedDecl* find_named(const DeclContext* dc, const std::string& name, const SourceManager& sm) {
  if (name.find('<') != std::string::npos) return find_specialization(dc, name, sm);
  for (const Decl* d : dc->decls()) {
    if (sm.isInSystemHeader(d->getLocation())) continue;
    if (const auto* nd = dyn_cast<NamedDecl>(d)) {
      if (nd->getQualifiedNameAsString() == name || nd->getNameAsString() == name) {
        if (const auto* rd = dyn_cast<RecordDecl>(nd); rd && !rd->isThisDeclarationADefinition()) continue;
        if (const auto* fd = dyn_cast<FunctionDecl>(nd); fd && !fd->doesThisDeclarationHaveABody()) continue;
        return nd;
      }
    }
    if (isa<NamespaceDecl>(d) || isa<LinkageSpecDecl>(d))
      if (const NamedDecl* r = find_named(cast<DeclContext>(d), name, sm)) return r;
  }
  return nullptr;
}

namespace {

const FunctionDecl* call_operator(const CXXRecordDecl* rd) {
  const FunctionDecl* found = nullptr;
  for (const Decl* d : rd->decls()) {
    if (const auto* t = dyn_cast<FunctionTemplateDecl>(d);
        t && t->getTemplatedDecl()->getOverloadedOperator() == OO_Call)
      refuse(t->getLocation(), "a template operator() is not supported: write it for the element type");
    if (const auto* m = dyn_cast<CXXMethodDecl>(d); m && m->getOverloadedOperator() == OO_Call) {
      if (found) refuse(m->getLocation(), "the functor has more than one operator(); scangen needs exactly one");
      found = m;
    }
  }
  if (!found) refuse(rd->getLocation(), "'" + rd->getNameAsString() + "' has no operator()");
  return found;
}

}  // namespace

const FunctionDecl* find_operator(ASTContext& ctx, const std::string& name, const CXXRecordDecl*& holder,
                                  SourceLocation file_start) {
  const NamedDecl* nd = find_named(ctx.getTranslationUnitDecl(), name, ctx.getSourceManager());
  if (!nd) refuse(file_start, "no functor or function named '" + name + "' is declared in the header");
  if (isa<FunctionTemplateDecl>(nd))
    refuse(nd->getLocation(), "'" + name +
                                  "' is a function template: function templates are not supported; declare the "
                                  "function for the element type, or write a functor class template and name it "
                                  "with its arguments");
  if (isa<ClassTemplateDecl>(nd))
    refuse(nd->getLocation(), "'" + name + "' is a template: name a class template with its arguments, such as '" +
                                  name + "<float>', or declare a concrete functor or function for the element type");
  if (const auto* rd = dyn_cast<CXXRecordDecl>(nd)) {
    holder = rd;
    return call_operator(rd);
  }
  if (const auto* fd = dyn_cast<FunctionDecl>(nd)) return fd;
  if (const auto* v = dyn_cast<VarDecl>(nd); v && v->getInit())
    if (const auto* l = dyn_cast<LambdaExpr>(v->getInit()->IgnoreImplicit())) {
      if (l->capture_size()) refuse(l->getBeginLoc(), "a lambda with captures is not supported");
      return l->getCallOperator();
    }
  refuse(nd->getLocation(), "'" + name + "' is not a functor, a function or a lambda");
}

const Expr* find_identity(const CXXRecordDecl* rd) {
  if (!rd) return nullptr;
  for (const Decl* d : rd->decls()) {
    const auto* nd = dyn_cast<NamedDecl>(d);
    if (!nd || nd->getNameAsString() != "identity") continue;
    if (const auto* v = dyn_cast<VarDecl>(nd); v && v->getInit()) return v->getInit();
    if (const auto* m = dyn_cast<CXXMethodDecl>(nd); m && m->isStatic() && m->hasBody())
      if (const auto* body = dyn_cast<CompoundStmt>(m->getBody()); body && body->size() == 1)
        if (const auto* r = dyn_cast<ReturnStmt>(body->body_front()); r && r->getRetValue()) return r->getRetValue();
    refuse(nd->getLocation(),
           "'identity' must be a static constexpr member or a static function with a single "
           "return of a constant");
  }
  return nullptr;
}

}  // namespace scangen::cxx::detail
