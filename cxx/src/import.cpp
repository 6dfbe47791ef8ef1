// scangen::cxx::import: the one translation unit that includes Clang.
//
// The header is parsed by Clang libTooling into an AST; the element type,
// the operator's body and the identity are then walked and written out as
// .scan text. C++'s implicit conversions (integer promotion, int -> float)
// become explicit conversions T(x), and constant sub-expressions are folded
// by Clang's evaluator, so the .scan text computes in C++'s types.
#include "scangen/cxx/cxx.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#ifndef SCANGEN_CLANG_RESOURCE_DIR
#define SCANGEN_CLANG_RESOURCE_DIR ""
#endif

namespace scangen::cxx {

namespace {

using namespace clang;

// A construct outside the subset, at `loc`: ends the translation.
struct Unsupported {
  SourceLocation loc;
  std::string message;
};

[[noreturn]] void refuse(SourceLocation loc, std::string message) { throw Unsupported{loc, std::move(message)}; }

bool is_dsl_keyword(const std::string& s) {
  return s == "type" || s == "scan" || s == "let" || s == "return" || s == "true" || s == "false";
}
std::string dsl_name(const std::string& s) { return is_dsl_keyword(s) ? s + "_" : s; }

// A .scan identifier for a C++ name with template arguments:
// CustomMin<float> -> CustomMin_float, Pair<unsigned int> -> Pair_unsigned_int.
std::string dsl_identifier(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (word)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return dsl_name(out);
}

// `t`'s name with its template arguments, as C++ prints it.
std::string template_name(const NamedDecl* d) {
  std::string s;
  llvm::raw_string_ostream os(s);
  d->getNameForDiagnostic(os, PrintingPolicy(LangOptions()), /*Qualified=*/false);
  return os.str();
}

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// `t` as C++ code spells it: P, not struct P.
std::string cxx_name(QualType t) {
  PrintingPolicy policy{LangOptions()};
  policy.SuppressTagKeyword = true;
  return t.getAsString(policy);
}

// The shortest decimal text that reads back as `v` (as a float when `single`).
std::string float_text(double v, bool single) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[400];
  auto reads_back = [&] {
    return single ? std::strtof(buf, nullptr) == static_cast<float>(v) : std::strtod(buf, nullptr) == v;
  };
  // Plain digits (100.0, 0.25) where they are short, else an exponent.
  const bool plain = v == 0 || (std::fabs(v) >= 1e-5 && std::fabs(v) < 1e17);
  for (int p = plain ? 0 : 1; p <= (plain ? 25 : 17); ++p) {
    std::snprintf(buf, sizeof buf, plain ? "%.*f" : "%.*g", p, v);
    if (reads_back()) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

class Translator {
 public:
  explicit Translator(ASTContext& ctx) : ctx_(ctx), sm_(ctx.getSourceManager()) {}

  // ---- types ------------------------------------------------------------------

  // The .scan name of `t` as an element or field type (declaring structs).
  std::string type_name(QualType t, SourceLocation where, bool allow_bool = false) {
    t = t.getCanonicalType().getUnqualifiedType();
    if (t->isBooleanType()) {
      if (allow_bool) return "bool";
      refuse(where,
             "'bool' cannot be an element or field type: scangen stores no bool in memory; use uint8_t or "
             "int32_t for flags");
    }
    if (t->isPointerType() || t->isReferenceType() || t->isMemberPointerType())
      refuse(where,
             "pointers and references are not supported: scangen's operator works on values, which are "
             "copied between threads and blocks");
    if (t->isArrayType())
      refuse(where,
             "arrays are not supported: a scangen struct holds scalar and struct fields only; write the "
             "elements as separate fields");
    if (t->isEnumeralType()) refuse(where, "enums are not supported; use the integer type underneath");
    if (const auto* b = t->getAs<BuiltinType>()) return scalar(b, t, where);
    if (const auto* rd = t->getAsRecordDecl()) return declare_struct(rd, where);
    refuse(where, "type '" + t.getAsString() + "' is not supported: use a scalar or a struct of scalars");
  }

  const std::vector<std::string>& type_decls() const { return decls_; }

  // ---- the operator -----------------------------------------------------------

  // The .scan text of `fn`'s body: "= expr;" or a block with lets.
  std::string combine(const FunctionDecl* fn, QualType element) { return function(fn, element, "combine"); }

  // The same for `item` (combine, key_equal), whose two parameters are of
  // type `element` (the element's type, or the keys').
  std::string function(const FunctionDecl* fn, QualType element, const std::string& item) {
    const bool keys = item == "key_equal";
    const std::string t = type_name(element, fn->getLocation());
    if (fn->getNumParams() != 2)
      refuse(fn->getLocation(), "the " + std::string(keys ? "key comparison" : "operator") + " takes " +
                                    std::to_string(fn->getNumParams()) + " parameters; " +
                                    (keys ? "it compares two keys: bool eq(K a, K b)"
                                          : "a scan's operator combines two elements: T op(T x, T y)"));
    for (const ParmVarDecl* p : fn->parameters()) {
      QualType pt = p->getType();
      if (pt->isLValueReferenceType() && !pt->getPointeeType().isConstQualified())
        refuse(p->getLocation(),
               "a parameter by non-const reference could be modified: take it by value or by "
               "const reference");
      if (pt->isRValueReferenceType()) refuse(p->getLocation(), "rvalue reference parameters are not supported");
      if (pt->isPointerType())
        refuse(p->getLocation(),
               "pointer parameters are not supported: scangen's operator works on values; take the element by "
               "value or by const reference");
      pt = pt.getNonReferenceType();
      if (!ctx_.hasSameUnqualifiedType(pt, element))
        refuse(p->getLocation(), "parameter '" + p->getNameAsString() + "' has type '" + cxx_name(pt) +
                                     "'; both operands must have the " + (keys ? "key" : "element") + " type '" +
                                     cxx_name(element) + "'");
      names_[p] = dsl_name(p->getNameAsString().empty() ? "_unnamed" : p->getNameAsString());
      used_.insert(names_[p]);
    }
    if (!fn->hasBody())
      refuse(fn->getLocation(), "the operator has no body in the header; scangen needs its definition");
    std::vector<const Stmt*> stmts = {fn->getBody()};
    const std::string result = block(stmts, 0, fn->getBody()->getEndLoc());
    std::string params = names_[fn->getParamDecl(0)] + ", " + names_[fn->getParamDecl(1)];
    (void)t;
    if (lets_.empty()) return item + "(" + params + ") = " + result + ";";
    std::string s = item + "(" + params + ") {\n";
    for (const std::string& l : lets_) s += "    " + l + "\n";
    return s + "    return " + result + ";\n  }";
  }

  // ---- constants ----------------------------------------------------------------

  std::string value(const APValue& v, QualType t, SourceLocation where) {
    t = t.getCanonicalType();
    if (v.isInt()) return int_text(v.getInt(), t);
    if (v.isFloat()) return float_text(v.getFloat().convertToDouble(), !is_double(t));
    if (v.isStruct()) {
      const RecordDecl* rd = t->getAsRecordDecl();
      std::string s = type_name(t, where) + " { ";
      unsigned i = 0;
      for (const FieldDecl* f : rd->fields()) {
        if (i) s += ", ";
        s += dsl_name(f->getNameAsString()) + ": " + value(v.getStructField(i++), f->getType(), where);
      }
      return s + " }";
    }
    refuse(where, "this constant cannot be written in a .scan file");
  }

  std::string expr(const Expr* e);

 private:
  ASTContext& ctx_;
  SourceManager& sm_;
  std::map<const RecordDecl*, std::string> structs_;
  std::vector<std::string> decls_;
  std::map<const ValueDecl*, std::string> names_;
  std::set<std::string> used_;
  std::vector<std::string> lets_;

  bool is_double(QualType t) const { return ctx_.getTypeSize(t) == 64; }

  std::string scalar(const BuiltinType* b, QualType t, SourceLocation where) {
    const uint64_t bits = ctx_.getTypeSize(t);
    if (b->isFloatingPoint()) {
      if (b->getKind() == BuiltinType::Float) return "f32";
      if (b->getKind() == BuiltinType::Double) return "f64";
      if (b->getKind() == BuiltinType::Float16 || b->getKind() == BuiltinType::Half) return "f16";
      refuse(where, "'" + t.getAsString() + "' is not supported: scangen's floats are f16, f32 and f64");
    }
    if (b->isInteger() && (bits == 8 || bits == 16 || bits == 32 || bits == 64))
      return std::string(b->isSignedInteger() ? "i" : "u") + std::to_string(bits);
    refuse(where, "'" + t.getAsString() + "' is not supported: scangen's integers have 8, 16, 32 or 64 bits");
  }

  std::string int_text(const llvm::APSInt& v, QualType t) {
    if (v.isSigned() && v.isMinSignedValue() && t->isIntegerType() && !t->isBooleanType())
      return type_name(t, SourceLocation()) + ".min";
    if (t->isBooleanType()) return v.getBoolValue() ? "true" : "false";
    llvm::SmallString<32> s;
    v.toString(s, 10);
    return std::string(s.str());
  }

  std::string declare_struct(const RecordDecl* rd, SourceLocation where);
  void check_layout(const RecordDecl* rd, const std::vector<std::pair<uint64_t, uint64_t>>& fields);
  std::string block(std::vector<const Stmt*> stmts, size_t i, SourceLocation end);
  std::string if_stmt(const IfStmt* s, std::vector<const Stmt*>& stmts, size_t i, SourceLocation end);
  void declare_local(const VarDecl* v);
  std::string cast(const CastExpr* c);
  std::string call(const CallExpr* c);
  std::string construct(const InitListExpr* init);
  std::string binary(const BinaryOperator* b);
  std::string unary(const UnaryOperator* u);
  std::string name_ref(const DeclRefExpr* d);
  std::string statement_problem(const Stmt* s);
  std::pair<uint64_t, uint64_t> size_align(QualType t);
};

// ---- structs and their layout ---------------------------------------------------

std::pair<uint64_t, uint64_t> Translator::size_align(QualType t) {
  const uint64_t bytes = ctx_.getTypeSize(t) / 8;
  if (t->isRecordType()) return {bytes, ctx_.getTypeAlign(t) / 8};
  return {bytes, bytes};  // scangen aligns a scalar to its size
}

std::string Translator::declare_struct(const RecordDecl* rd, SourceLocation where) {
  if (auto it = structs_.find(rd); it != structs_.end()) return it->second;
  if (rd->isUnion()) refuse(where, "unions are not supported: a scan element is a struct of scalar fields");
  if (!rd->getDefinition()) refuse(where, "struct '" + rd->getNameAsString() + "' has no definition");
  rd = rd->getDefinition();
  if (const auto* cxx = dyn_cast<CXXRecordDecl>(rd)) {
    if (cxx->getNumBases()) refuse(rd->getLocation(), "base classes are not supported: put every field in the struct");
    if (cxx->isPolymorphic()) refuse(rd->getLocation(), "virtual functions are not supported in the element type");
  }
  // A class template's specialization is named with its arguments: Pair<float> is Pair_float.
  std::string name =
      isa<ClassTemplateSpecializationDecl>(rd) ? dsl_identifier(template_name(rd)) : rd->getNameAsString();
  if (name == "__half" || name == "__half2" || name == "__nv_bfloat16" || name == "__nv_bfloat162")
    refuse(where, "CUDA's '" + name +
                      "' struct is not supported here: with the CUDA headers that need cuda_fp16.h (CUB's, say) "
                      "it is CUDA's struct, not a half float; use _Float16, or a header without those includes");
  if (name.empty()) refuse(rd->getLocation(), "anonymous structs are not supported: give the struct a name");
  name = dsl_name(name);
  std::string body;
  std::vector<std::pair<uint64_t, uint64_t>> fields;
  for (const FieldDecl* f : rd->fields()) {
    if (f->isBitField()) refuse(f->getLocation(), "bit-fields are not supported: scangen fields are whole scalars");
    const std::string ft = type_name(f->getType(), f->getLocation());
    body += std::string(body.empty() ? "" : ", ") + dsl_name(f->getNameAsString()) + ": " + ft;
    fields.push_back(size_align(f->getType()));
  }
  if (fields.empty()) refuse(rd->getLocation(), "struct '" + name + "' has no fields");
  check_layout(rd, fields);
  structs_[rd] = name;
  decls_.push_back("type " + name + " { " + body + " }");
  return name;
}

// scangen lays a struct out as C does with natural alignment; Clang's layout
// (alignas, packed, #pragma pack) must be the same.
void Translator::check_layout(const RecordDecl* rd, const std::vector<std::pair<uint64_t, uint64_t>>& fields) {
  const ASTRecordLayout& layout = ctx_.getASTRecordLayout(rd);
  uint64_t offset = 0, align = 1;
  unsigned i = 0;
  for (const FieldDecl* f : rd->fields()) {
    const auto [size, a] = fields[i];
    offset = (offset + a - 1) / a * a;
    const uint64_t clang_offset = layout.getFieldOffset(i++) / 8;
    if (clang_offset != offset)
      refuse(f->getLocation(), "field '" + f->getNameAsString() + "' is at offset " + std::to_string(clang_offset) +
                                   " in C++ but " + std::to_string(offset) +
                                   " in scangen's layout (natural alignment; alignas, packed and #pragma pack are "
                                   "not supported)");
    offset += size;
    align = std::max(align, a);
  }
  const uint64_t size = (offset + align - 1) / align * align;
  const uint64_t clang_size = static_cast<uint64_t>(layout.getSize().getQuantity());
  const uint64_t clang_align = static_cast<uint64_t>(layout.getAlignment().getQuantity());
  if (clang_size != size || clang_align != align)
    refuse(rd->getLocation(), "struct '" + rd->getNameAsString() + "' has size " + std::to_string(clang_size) +
                                  " and alignment " + std::to_string(clang_align) + " in C++ but " +
                                  std::to_string(size) + " and " + std::to_string(align) +
                                  " in scangen's layout (alignas and packed are not supported)");
}

// ---- statements -------------------------------------------------------------------

std::string Translator::statement_problem(const Stmt* s) {
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s))
    return "loops are not supported: the operator must be straight-line code (local constants, if/else, return)";
  if (isa<SwitchStmt>(s)) return "switch is not supported; use if/else or ?:";
  if (isa<GotoStmt>(s) || isa<LabelStmt>(s)) return "goto and labels are not supported";
  if (isa<CXXTryStmt>(s) || isa<CXXThrowExpr>(s)) return "exceptions are not supported in the operator";
  if (isa<Expr>(s))
    return "a statement with a side effect is not supported: the operator may only compute and return a value";
  return std::string("'") + s->getStmtClassName() + "' statements are not supported";
}

void Translator::declare_local(const VarDecl* v) {
  if (v->isStaticLocal()) refuse(v->getLocation(), "static local variables keep state between calls; not supported");
  if (!v->hasInit()) refuse(v->getLocation(), "a local variable needs an initializer: '" + v->getNameAsString() + "'");
  const QualType t = v->getType().getNonReferenceType();
  if (const auto* rd = t->getAsCXXRecordDecl(); rd && rd->isLambda())
    refuse(v->getInit()->getBeginLoc(), "lambdas inside the operator are not supported: write the computation inline");
  const std::string tn = type_name(t, v->getLocation(), /*allow_bool=*/true);
  std::string name = dsl_name(v->getNameAsString());
  for (int k = 1; used_.count(name); ++k) name = dsl_name(v->getNameAsString()) + "_" + std::to_string(k);
  const std::string init = expr(v->getInit());
  names_[v] = name;
  used_.insert(name);
  lets_.push_back("let " + name + ": " + tn + " = " + init + ";");
}

// The value that stmts[i..] return, hoisting their locals into lets.
std::string Translator::block(std::vector<const Stmt*> stmts, size_t i, SourceLocation end) {
  for (; i < stmts.size(); ++i) {
    const Stmt* s = stmts[i];
    if (const auto* c = dyn_cast<CompoundStmt>(s)) {
      std::vector<const Stmt*> flat(c->body_begin(), c->body_end());
      flat.insert(flat.end(), stmts.begin() + static_cast<long>(i) + 1, stmts.end());
      return block(flat, 0, c->getEndLoc());
    }
    if (isa<NullStmt>(s)) continue;
    if (const auto* d = dyn_cast<DeclStmt>(s)) {
      for (const Decl* decl : d->decls()) {
        const auto* v = dyn_cast<VarDecl>(decl);
        if (!v) refuse(decl->getLocation(), "only local variables may be declared in the operator");
        declare_local(v);
      }
      continue;
    }
    if (const auto* r = dyn_cast<ReturnStmt>(s)) {
      if (!r->getRetValue()) refuse(r->getBeginLoc(), "return without a value");
      return expr(r->getRetValue());
    }
    if (const auto* f = dyn_cast<IfStmt>(s)) return if_stmt(f, stmts, i, end);
    if (const auto* e = dyn_cast<Expr>(s)) expr(e);  // an assignment or a call: refused with its reason
    refuse(s->getBeginLoc(), statement_problem(s));
  }
  refuse(end, "the operator can reach its end without returning a value");
}

std::string Translator::if_stmt(const IfStmt* s, std::vector<const Stmt*>& stmts, size_t i, SourceLocation end) {
  if (s->isConstexpr()) refuse(s->getBeginLoc(), "'if constexpr' is not supported; use a plain if");
  if (s->getInit() || s->getConditionVariable())
    refuse(s->getBeginLoc(), "an if with an initializer or a declaration in its condition is not supported");
  const Expr* cond = s->getCond();
  std::string c = expr(cond);
  if (isa<ConditionalOperator>(cond->IgnoreImpCasts())) c = "(" + c + ")";
  // A branch that does not return goes on after the if, as in C++.
  auto branch = [&](const Stmt* first) {
    std::vector<const Stmt*> path;
    if (first) path.push_back(first);
    path.insert(path.end(), stmts.begin() + static_cast<long>(i) + 1, stmts.end());
    return block(path, 0, end);
  };
  const std::string then_value = branch(s->getThen());
  const std::string else_value = branch(s->getElse());
  return c + " ? " + then_value + " : " + else_value;
}

// ---- expressions ------------------------------------------------------------------

std::string Translator::expr(const Expr* e) {
  // A constant scalar sub-expression: its value, as C++ computes it.
  if (!e->isValueDependent() && e->isPRValue() && (e->getType()->isArithmeticType()) && !isa<CXXBoolLiteralExpr>(e)) {
    Expr::EvalResult r;
    if (!e->HasSideEffects(ctx_) && e->EvaluateAsRValue(r, ctx_) && !r.HasSideEffects)
      return value(r.Val, e->getType(), e->getExprLoc());
  }
  if (const auto* p = dyn_cast<ParenExpr>(e)) return "(" + expr(p->getSubExpr()) + ")";
  if (const auto* w = dyn_cast<FullExpr>(e)) return expr(w->getSubExpr());
  if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) return expr(m->getSubExpr());
  if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) return expr(b->getSubExpr());
  if (const auto* c = dyn_cast<CastExpr>(e)) return cast(c);
  if (const auto* b = dyn_cast<CXXBoolLiteralExpr>(e)) return b->getValue() ? "true" : "false";
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) return name_ref(d);
  if (const auto* m = dyn_cast<MemberExpr>(e)) {
    if (isa<CXXThisExpr>(m->getBase()->IgnoreImpCasts()))
      refuse(m->getExprLoc(),
             "members of the functor are not supported: the operator may use only its two "
             "operands, local variables and constants");
    if (m->isArrow()) refuse(m->getOperatorLoc(), "'->' is not supported: pointers are not part of the subset");
    const auto* f = dyn_cast<FieldDecl>(m->getMemberDecl());
    if (!f) refuse(m->getMemberLoc(), "member functions are not supported: only fields may be read");
    return expr(m->getBase()) + "." + dsl_name(f->getNameAsString());
  }
  if (const auto* b = dyn_cast<BinaryOperator>(e)) return binary(b);
  if (const auto* u = dyn_cast<UnaryOperator>(e)) return unary(u);
  if (const auto* c = dyn_cast<ConditionalOperator>(e))
    return expr(c->getCond()) + " ? " + expr(c->getTrueExpr()) + " : " + expr(c->getFalseExpr());
  if (const auto* l = dyn_cast<InitListExpr>(e)) return construct(l);
  if (const auto* c = dyn_cast<CXXConstructExpr>(e)) {
    if (c->getConstructor()->isCopyOrMoveConstructor() && c->getNumArgs() == 1) return expr(c->getArg(0));
    refuse(c->getBeginLoc(), "constructors are not supported: build the result with braces, T{a, b}");
  }
  if (isa<CXXOperatorCallExpr>(e))
    refuse(e->getExprLoc(), "overloaded operators are not supported: write the operation on the fields");
  if (isa<CXXMemberCallExpr>(e))
    refuse(e->getExprLoc(), "member function calls are not supported: write the computation in the operator");
  if (const auto* c = dyn_cast<CallExpr>(e)) return call(c);
  if (isa<ImplicitValueInitExpr>(e) && e->getType()->isArithmeticType()) return "0";
  if (isa<LambdaExpr>(e)) refuse(e->getBeginLoc(), "lambdas inside the operator are not supported");
  if (isa<CXXThrowExpr>(e)) refuse(e->getBeginLoc(), "exceptions are not supported in the operator");
  if (isa<CXXThisExpr>(e))
    refuse(e->getBeginLoc(), "'this' is not supported: the operator may not use the functor's state");
  if (isa<StringLiteral>(e)) refuse(e->getBeginLoc(), "string literals are not supported");
  refuse(e->getBeginLoc(), std::string("this expression ('") + e->getStmtClassName() + "') is not supported");
}

std::string Translator::name_ref(const DeclRefExpr* d) {
  const ValueDecl* v = d->getDecl();
  if (auto it = names_.find(v); it != names_.end()) return it->second;
  if (isa<FunctionDecl>(v)) refuse(d->getLocation(), "function names are only supported as the callee of a call");
  if (const auto* var = dyn_cast<VarDecl>(v); var && var->hasGlobalStorage())
    refuse(d->getLocation(), "'" + v->getNameAsString() +
                                 "' is a global or static variable: the operator may use only its two operands, "
                                 "local variables and constants");
  refuse(d->getLocation(), "'" + v->getNameAsString() + "' is not supported here");
}

std::string Translator::cast(const CastExpr* c) {
  const Expr* sub = c->getSubExpr();
  switch (c->getCastKind()) {
    case CK_LValueToRValue:
    case CK_NoOp:
    case CK_ConstructorConversion:
    case CK_ToVoid:
      return expr(sub);
    case CK_IntegralCast:
    case CK_FloatingCast:
    case CK_IntegralToFloating:
    case CK_FloatingToIntegral: {
      if (ctx_.hasSameUnqualifiedType(c->getType(), sub->getType())) return expr(sub);
      const std::string to = type_name(c->getType(), c->getExprLoc());
      if (sub->getType()->isBooleanType()) return "(" + expr(sub) + " ? " + to + "(1) : " + to + "(0))";
      return to + "(" + expr(sub) + ")";
    }
    case CK_IntegralToBoolean:
    case CK_FloatingToBoolean: {
      std::string s = expr(sub);
      if (!isa<ParenExpr>(sub) && !isa<DeclRefExpr>(sub->IgnoreImpCasts()) && !isa<MemberExpr>(sub->IgnoreImpCasts()))
        s = "(" + s + ")";
      return "(" + s + " != 0)";  // parenthesised: it may be an operand of ! or ==
    }
    case CK_ArrayToPointerDecay:
    case CK_NullToPointer:
    case CK_IntegralToPointer:
    case CK_PointerToIntegral:
    case CK_PointerToBoolean:
    case CK_BitCast:
      refuse(c->getExprLoc(), "pointers are not supported: the operator works on values");
    case CK_UserDefinedConversion:
      refuse(c->getExprLoc(), "user-defined conversions are not supported");
    default:
      refuse(c->getExprLoc(), std::string("this conversion (") + c->getCastKindName() + ") is not supported");
  }
}

std::string Translator::binary(const BinaryOperator* b) {
  if (b->isAssignmentOp() || b->isCompoundAssignmentOp())
    refuse(b->getOperatorLoc(),
           "assignments are not supported: the operator has no side effects; declare a new "
           "const local instead");
  if (b->isCommaOp()) refuse(b->getOperatorLoc(), "the comma operator is not supported");
  if (b->isPtrMemOp()) refuse(b->getOperatorLoc(), "pointers to members are not supported");
  if (b->getLHS()->getType()->isPointerType() || b->getRHS()->getType()->isPointerType())
    refuse(b->getOperatorLoc(), "pointer arithmetic is not supported: the operator works on values");
  return expr(b->getLHS()) + " " + std::string(b->getOpcodeStr()) + " " + expr(b->getRHS());
}

std::string Translator::unary(const UnaryOperator* u) {
  switch (u->getOpcode()) {
    case UO_Minus:
    case UO_Plus:
    case UO_Not:
    case UO_LNot: {
      const std::string s = expr(u->getSubExpr());
      const std::string op(UnaryOperator::getOpcodeStr(u->getOpcode()));
      return op + (s.rfind(op, 0) == 0 ? " " : "") + s;
    }
    case UO_PreInc:
    case UO_PreDec:
    case UO_PostInc:
    case UO_PostDec:
      refuse(u->getOperatorLoc(), "'++' and '--' are not supported: the operator has no side effects");
    case UO_AddrOf:
    case UO_Deref:
      refuse(u->getOperatorLoc(), "pointers are not supported: the operator works on values");
    default:
      refuse(u->getOperatorLoc(), "this unary operator is not supported");
  }
}

std::string Translator::construct(const InitListExpr* init) {
  if (init->isSyntacticForm() && init->getSemanticForm()) init = init->getSemanticForm();
  const QualType t = init->getType();
  if (!t->isRecordType()) {
    if (init->getNumInits() == 1) return expr(init->getInit(0));
    refuse(init->getBeginLoc(), "this initializer list is not supported");
  }
  const std::string name = type_name(t, init->getBeginLoc());
  std::string s = name + " { ";
  unsigned i = 0;
  for (const FieldDecl* f : t->getAsRecordDecl()->fields()) {
    if (i >= init->getNumInits()) refuse(init->getBeginLoc(), "every field needs a value");
    const Expr* v = init->getInit(i);
    if (isa<ImplicitValueInitExpr>(v) && !f->getType()->isArithmeticType())
      refuse(init->getEndLoc(), "field '" + f->getNameAsString() + "' needs an explicit value");
    s += std::string(i ? ", " : "") + dsl_name(f->getNameAsString()) + ": " + expr(v);
    ++i;
  }
  return s + " }";
}

// Calls: the math functions scangen has, under their C, C++ and CUDA names.
std::string Translator::call(const CallExpr* c) {
  const FunctionDecl* f = c->getDirectCallee();
  if (!f) refuse(c->getBeginLoc(), "indirect calls are not supported");
  std::string n = f->getNameAsString();
  if (n.rfind("__builtin_", 0) == 0) n = n.substr(10);
  static const std::map<std::string, std::string> kMath = {
      {"fmin", "fmin"},  {"fminf", "fmin"}, {"fmax", "fmax"}, {"fmaxf", "fmax"},  {"fma", "fma"},      {"fmaf", "fma"},
      {"fabs", "abs"},   {"fabsf", "abs"},  {"abs", "abs"},   {"sqrt", "sqrt"},   {"sqrtf", "sqrt"},   {"exp", "exp"},
      {"expf", "exp"},   {"log", "log"},    {"logf", "log"},  {"floor", "floor"}, {"floorf", "floor"}, {"ceil", "ceil"},
      {"ceilf", "ceil"}, {"min", "min"},    {"max", "max"}};
  auto it = kMath.find(n);
  if (it == kMath.end())
    refuse(c->getBeginLoc(), "calls to other functions are not supported ('" + f->getQualifiedNameAsString() +
                                 "'): scangen must see the whole operator; write it inline or use min, max, "
                                 "fmin, fmax, fma, abs, sqrt, exp, log, floor or ceil");
  std::vector<std::string> args;
  for (const Expr* a : c->arguments()) args.push_back(expr(a));
  // std::min / std::max are (b < a ? b : a) and (a < b ? b : a): for floats
  // with a NaN this is not fmin / fmax, so they are written out as C++ has them.
  if ((n == "min" || n == "max") && c->getType()->isFloatingType() && args.size() == 2)
    return n == "min" ? "(" + args[1] + " < " + args[0] + " ? " + args[1] + " : " + args[0] + ")"
                      : "(" + args[0] + " < " + args[1] + " ? " + args[1] + " : " + args[0] + ")";
  std::string s = it->second + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s + ")";
}

// ---- finding the declarations -------------------------------------------------

const NamedDecl* find_named(const DeclContext* dc, const std::string& name, const SourceManager& sm);

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

// The operator named `name`: a functor's operator(), a function, or a lambda
// held by a variable; `holder` gets the functor (for its identity).
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

// The `identity` of a functor or type: a static data member or a static
// function returning a constant.
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

// ---- built-in operators ---------------------------------------------------------

// `op = NAME;` when a scalar operator is one of the built-ins, with the
// built-in's identity; "" otherwise.
std::string builtin_op(const std::string& body, const std::string& x, const std::string& y, QualType t,
                       const APValue& id, ASTContext& ctx) {
  auto is = [&](const std::string& fmt) {
    auto sub = [&](const std::string& a, const std::string& b) {
      std::string s = fmt;
      for (size_t p; (p = s.find('A')) != std::string::npos;) s.replace(p, 1, a);
      for (size_t p; (p = s.find('B')) != std::string::npos;) s.replace(p, 1, b);
      return s;
    };
    return body == "= " + sub(x, y) + ";" || body == "= " + sub(y, x) + ";";
  };
  const bool integer = t->isIntegerType();
  const unsigned bits = static_cast<unsigned>(ctx.getTypeSize(t));
  auto id_int = [&](const llvm::APInt& v) { return integer && id.isInt() && llvm::APInt(id.getInt()) == v; };
  auto id_float = [&](double v) { return !integer && id.isFloat() && id.getFloat().convertToDouble() == v; };
  const bool sign = t->isSignedIntegerType();
  const llvm::APInt lowest = sign ? llvm::APInt::getSignedMinValue(bits) : llvm::APInt::getMinValue(bits);
  const llvm::APInt highest = sign ? llvm::APInt::getSignedMaxValue(bits) : llvm::APInt::getMaxValue(bits);
  const bool zero = id_int(llvm::APInt(bits, 0));
  // A float sum with identity 0.0f or -0.0f is the built-in add, whose identity
  // is -0.0: the two differ only in the sign of a zero result (an exclusive
  // scan's first element, a run of -0.0 alone).
  if (is("A + B") && (zero || id_float(0.0))) return "add";
  if (is("A * B") && (id_int(llvm::APInt(bits, 1)) || id_float(1.0))) return "mul";
  if (integer && is("A | B") && zero) return "or";
  if (integer && is("A ^ B") && zero) return "xor";
  if (integer && is("A & B") && id_int(llvm::APInt::getAllOnes(bits))) return "and";
  // fminf / fmaxf: the built-ins fmin and fmax (floats).
  // Their identity is NaN; +-inf, which a C++ functor may give, differs only where every element so far is NaN.
  const bool id_nan = !integer && id.isFloat() && id.getFloat().isNaN();
  if (!integer && is("fmin(A, B)") && (id_float(HUGE_VAL) || id_nan)) return "fmin";
  if (!integer && is("fmax(A, B)") && (id_float(-HUGE_VAL) || id_nan)) return "fmax";
  const bool min_form = is("min(A, B)") || (integer && (is("A < B ? A : B") || is("A > B ? B : A")));
  const bool max_form = is("max(A, B)") || (integer && (is("A > B ? A : B") || is("A < B ? B : A")));
  if (min_form && (id_int(highest) || id_float(HUGE_VAL))) return "min";
  if (max_form && (id_int(lowest) || id_float(-HUGE_VAL))) return "max";
  return "";
}

// ---- diagnostics ------------------------------------------------------------------

std::string render(const SourceManager& sm, SourceLocation loc, const std::string& message, const std::string& file) {
  if (loc.isInvalid()) return file + ": error: " + message + "\n";
  loc = sm.getFileLoc(loc);
  const PresumedLoc p = sm.getPresumedLoc(loc);
  std::ostringstream o;
  o << p.getFilename() << ":" << p.getLine() << ":" << p.getColumn() << ": error: " << message << "\n";
  bool invalid = false;
  const llvm::StringRef buffer = sm.getBufferData(sm.getFileID(loc), &invalid);
  if (!invalid) {
    const unsigned offset = sm.getFileOffset(loc);
    size_t start = buffer.rfind('\n', offset == 0 ? 0 : offset - 1);
    start = (start == llvm::StringRef::npos || offset == 0) ? 0 : start + 1;
    size_t stop = buffer.find('\n', offset);
    if (stop == llvm::StringRef::npos) stop = buffer.size();
    const std::string line = buffer.substr(start, stop - start).str();
    std::string caret;
    for (size_t i = start; i < offset; ++i) caret += buffer[i] == '\t' ? '\t' : ' ';
    o << "  " << line << "\n  " << caret << "^\n";
  }
  return o.str();
}

// The header's text; a failure names the system's reason (no such file,
// permission denied, a loop of symbolic links, a directory).
std::string read_file(const std::string& path) {
  auto refuse = [&](const std::string& why) {
    throw ImportError(path + ": error: cannot read the file: " + why + "\n", 1);
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) refuse(std::strerror(errno));
  struct stat st {};
  std::string text;
  int error = ::fstat(fd, &st) != 0 ? errno : 0;
  if (error == 0 && S_ISDIR(st.st_mode)) error = EISDIR;
  char buf[65536];
  while (error == 0) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) error = errno;
    if (got <= 0) break;
    text.append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
  if (error != 0) refuse(std::strerror(error));
  return text;
}

// A file of the import's own, included before the header.
const char* const kPreludeName = "scangen-import-prelude.h";
const char* const kPrelude = "typedef __fp16 __half;\n";

// The CUDA toolkit's include folders (<cuda_runtime.h>, and CCCL's, where
// CUB lives), searched after every other: $CUDA_HOME/include or
// $CUDA_PATH/include, else the toolkit's scangen was built with, else
// /usr/local/cuda/include; none where there is no toolkit.
std::vector<std::string> cuda_include_dirs() {
  std::vector<std::string> candidates;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) candidates.push_back(std::string(v) + "/include");
  candidates.insert(candidates.end(), {SCANGEN_CXX_CUDA_INCLUDE, "/usr/local/cuda/include"});
  for (const std::string& dir : candidates) {
    if (!llvm::sys::fs::exists(dir + "/cuda_runtime.h")) continue;
    std::vector<std::string> dirs = {"-idirafter", dir};
    if (llvm::sys::fs::is_directory(dir + "/cccl")) dirs.insert(dirs.end(), {"-idirafter", dir + "/cccl"});
    return dirs;
  }
  return {};
}

std::vector<std::string> clang_arguments(const ImportOptions& options) {
  std::vector<std::string> args = {
      "-xc++", "-std=c++17", "-w", "-D__host__=", "-D__device__=", "-D__forceinline__=inline", "-DSCANGEN_IMPORT=1",
      // f16: Clang 14 has no _Float16 on x86; it is read as __fp16 with half
      // arithmetic (each operation rounded to half, as scangen's f16). For
      // __half, see parse().
      "-Xclang", "-fnative-half-type", "-Xclang", "-fallow-half-arguments-and-returns", "-D_Float16=__fp16"};
  if (*SCANGEN_CLANG_RESOURCE_DIR) args.push_back("-resource-dir=" SCANGEN_CLANG_RESOURCE_DIR);
  args.insert(args.end(), options.clang_args.begin(), options.clang_args.end());
  static const std::vector<std::string> cuda = cuda_include_dirs();
  args.insert(args.end(), cuda.begin(), cuda.end());
  return args;
}

// Checks --type against the operator's element type: a struct's name, a
// typedef visible at file scope (int8_t, uint64_t) or a built-in spelling.
void check_type_name(ASTContext& ctx, const std::string& type_name, QualType element, SourceLocation where) {
  if (type_name.empty()) return;
  const QualType canonical = element.getCanonicalType().getUnqualifiedType();
  std::string spelled = type_name == "unsigned" ? "unsigned int" : type_name;
  if (canonical.getAsString() == spelled) return;
  if (const auto* rd = canonical->getAsRecordDecl())
    if (rd->getQualifiedNameAsString() == type_name || rd->getNameAsString() == type_name) return;
  for (const NamedDecl* nd : ctx.getTranslationUnitDecl()->lookup(&ctx.Idents.get(type_name)))
    if (const auto* td = dyn_cast<TypeDecl>(nd); td && ctx.hasSameUnqualifiedType(ctx.getTypeDeclType(td), element))
      return;
  refuse(where, "the operator combines '" + cxx_name(element) + "', not '" + type_name + "' (--type)");
}

std::string scan_text(const std::vector<std::string>& decls, const std::string& name, const std::string& type,
                      const std::string& body_lines, const ImportOptions& options) {
  std::string s;
  for (const std::string& d : decls) s += d + "\n";
  if (!decls.empty()) s += "\n";
  s += "scan " + name + " {\n  type = " + type + ";\n" + body_lines;
  if (!options.level.empty()) s += "  level = " + options.level + ";\n";
  for (const std::string& setting : options.settings) s += "  " + setting + ";\n";
  return s + "}\n";
}

// `keys`: lines of the scan after the operator's (a scan by key's).
std::string translate(ASTContext& ctx, const std::string& type_name, const std::string& op_name,
                      const ImportOptions& options, const std::string& keys = "") {
  const SourceManager& sm = ctx.getSourceManager();
  const SourceLocation file_start = sm.getLocForStartOfFile(sm.getMainFileID());
  const CXXRecordDecl* functor = nullptr;
  const FunctionDecl* fn = find_operator(ctx, op_name, functor, file_start);
  const QualType element = fn->getReturnType().getCanonicalType().getUnqualifiedType();
  if (fn->getReturnType()->isReferenceType())
    refuse(fn->getLocation(), "the operator returns a reference; it must return the element by value");
  check_type_name(ctx, type_name, element, fn->getLocation());
  Translator tr(ctx);
  const std::string type = tr.type_name(element, fn->getLocation());
  const std::string combine = tr.combine(fn, element);

  std::string identity = options.identity;
  std::optional<APValue> identity_value;
  if (identity.empty() && !options.identity_in_spec) {
    const Expr* id = find_identity(functor);
    if (!id) id = find_identity(element->getAsCXXRecordDecl());
    if (!id)
      refuse(fn->getLocation(), "no identity: give the functor 'static constexpr " + cxx_name(element) +
                                    " identity = ...;' or " + options.identity_hint);
    Expr::EvalResult r;
    if (!id->EvaluateAsRValue(r, ctx)) refuse(id->getExprLoc(), "the identity is not a constant expression");
    identity = tr.value(r.Val, element, id->getExprLoc());
    identity_value = r.Val;
  }
  const std::string unqualified = op_name.substr(0, op_name.find('<'));
  const std::string name =
      options.name.empty() ? dsl_identifier(op_name.substr(unqualified.rfind(':') + 1)) : options.name;
  std::string body;
  const std::string x = dsl_name(fn->getParamDecl(0)->getNameAsString());
  const std::string y = dsl_name(fn->getParamDecl(1)->getNameAsString());
  const std::string expr_form = combine.substr(combine.find(')') + 2);
  const std::string op =
      identity_value && !element->isRecordType() ? builtin_op(expr_form, x, y, element, *identity_value, ctx) : "";
  if (!op.empty())
    body = "  op = " + op + ";\n";
  else
    body = "  " + combine + "\n" + (identity.empty() ? "" : "  identity = " + identity + ";\n");
  return scan_text(tr.type_decls(), name, type, body + keys, options);
}

// A key comparison translated: `key = K;` and `key_equal(a, b) = ...;`.
struct KeyEqual {
  std::string key, function;
};

// The key comparison `op_name` (bool eq(K a, K b), K a scalar): for a
// scan's `key_equal = OP;` and `scangen import --key-equal OP`.
KeyEqual translate_key_equal(ASTContext& ctx, const std::string& op_name) {
  const SourceManager& sm = ctx.getSourceManager();
  const CXXRecordDecl* functor = nullptr;
  const FunctionDecl* fn = find_operator(ctx, op_name, functor, sm.getLocForStartOfFile(sm.getMainFileID()));
  if (!fn->getReturnType()->isBooleanType())
    refuse(fn->getLocation(), "a key comparison returns bool (whether two keys are in one segment), not '" +
                                  cxx_name(fn->getReturnType()) + "': bool eq(K a, K b)");
  if (fn->getNumParams() != 2)
    refuse(fn->getLocation(), "the key comparison takes " + std::to_string(fn->getNumParams()) +
                                  " parameters; it compares two keys: bool eq(K a, K b)");
  const QualType key = fn->getParamDecl(0)->getType().getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (!key->isArithmeticType() || key->isBooleanType())
    refuse(fn->getParamDecl(0)->getLocation(),
           "keys are scalars (an integer or floating-point type), not '" + cxx_name(key) + "'");
  Translator tr(ctx);
  const std::string k = tr.type_name(key, fn->getLocation());
  return {k, tr.function(fn, key, "key_equal")};
}

// The explicit instantiations that operators named with template arguments
// need (`template struct CustomMin<float>;`), so that Clang instantiates
// their operator() with its body; added at the end of the main file.
std::string instantiations(const std::vector<std::string>& ops) {
  std::string code;
  for (const std::string& op : ops)
    if (op.find('<') != std::string::npos) code += "\ntemplate struct " + op + ";\n";
  return code;
}

// A parsed translation unit, or Clang's diagnostics.
struct Parsed {
  std::unique_ptr<ASTUnit> ast;
  std::string diagnostics;
  int errors = 0;
};

Parsed parse_once(const std::string& code, const std::string& file_name, const std::vector<std::string>& args) {
  Parsed p;
  llvm::raw_string_ostream clang_out(p.diagnostics);
  IntrusiveRefCntPtr<DiagnosticOptions> diag_options = new DiagnosticOptions();
  TextDiagnosticPrinter printer(clang_out, diag_options.get());
  p.ast = tooling::buildASTFromCodeWithArgs(
      code, args, file_name, "scangen", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), tooling::FileContentMappings{{kPreludeName, kPrelude}}, &printer);
  clang_out.flush();
  p.errors = static_cast<int>(printer.getNumErrors());
  if (!p.ast || p.errors > 0) {
    if (p.diagnostics.empty()) p.diagnostics = file_name + ": error: Clang could not parse the header\n";
    p.errors = std::max(1, p.errors);
  }
  return p;
}

// Whether Clang's diagnostics name a file of CUB's or Thrust's
// (.../cub/....cuh, .../thrust/....h).
bool from_cub(const std::string& diagnostics) {
  for (const char* dir : {"/cub/", "/thrust/"})
    for (size_t at = diagnostics.find(dir); at != std::string::npos; at = diagnostics.find(dir, at + 1)) {
      const size_t end = diagnostics.find_first_of(":\n", at);
      const std::string file = diagnostics.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (file.size() > 4 && (file.rfind(".cuh") == file.size() - 4 || file.rfind(".h") == file.size() - 2))
        return true;
    }
  return false;
}

// What the parse of libstdc++'s <cmath> costs is mostly its C++17 special
// functions (bits/specfun.h, with <limits>, stl_algobase.h and the TR1
// implementations): two thirds of the CPU time of a header that includes
// <cmath> and <cstdint> (docs/cxx.md, "Cost"). An operator cannot call them,
// so the header is parsed first with that file's include guard defined;
// a header that does not compile so (one that uses <limits> without
// including it, say) is parsed again as it is, and its diagnostics are that
// parse's.
//
// CUDA's __half is a struct whose operators call intrinsics. A header that
// names __half (`half`) is parsed with __half as __fp16 (the prelude's
// typedef: libstdc++ names variables __half, so not a macro) and cuda_fp16.h
// taken as already included; where that does not compile (CUDA headers that
// need cuda_fp16.h, such as CUB's), it is parsed as it is, and a __half
// field is refused.
Parsed parse(const std::string& code, const std::string& file_name, const std::vector<std::string>& args, bool half) {
  std::vector<std::string> as_is = args;
  if (half) as_is.insert(as_is.end(), {"-D__CUDA_FP16_H__", "-D__CUDA_FP16_HPP__", "-include", kPreludeName});
  std::vector<std::string> trimmed = as_is;
  trimmed.push_back("-D_GLIBCXX_BITS_SPECFUN_H=1");
  Parsed p = parse_once(code, file_name, trimmed);
  if (p.errors > 0 && !from_cub(p.diagnostics)) p = parse_once(code, file_name, as_is);  // see cub_refusal()
  if (p.errors > 0 && half) p = parse_once(code, file_name, args);
  return p;
}

// Clang's diagnostics, unless they come from CUB's or Thrust's headers,
// which are CUDA device code (kernel launches, __syncthreads, inline PTX)
// that Clang 14 reads only in its CUDA mode, and that mode does not support
// CUDA 12's and 13's headers: then one error, at the header's #include of
// them, that says so and what to do (docs/cxx.md, "CUDA headers").
std::string cub_refusal(const std::string& diagnostics, const std::string& main_file) {
  if (!from_cub(diagnostics)) return "";
  const std::string message =
      "CUB and Thrust cannot be imported: their headers are CUDA device code (kernel launches, __syncthreads, "
      "inline PTX) that Clang 14 reads only in its CUDA mode, which does not support this CUDA toolkit; include "
      "them only where scangen does not read the header ('#ifndef SCANGEN_IMPORT'), or include <cuda_runtime.h>, "
      "which imports";
  // Clang names the outermost #include of the first error's chain first:
  // "In file included from PATH:LINE:" (the file of includes, scangen's own,
  // when a scan file imports several headers: then the next one).
  const std::string intro = "In file included from ";
  for (size_t at = diagnostics.find(intro); at != std::string::npos; at = diagnostics.find(intro, at + 1)) {
    const size_t end = diagnostics.find(":\n", at);
    const size_t colon = diagnostics.rfind(':', end - 1);
    if (end == std::string::npos || colon == std::string::npos || colon <= at) break;
    const std::string path = diagnostics.substr(at + intro.size(), colon - at - intro.size());
    if (path == main_file && main_file == "scangen-imports.cpp") continue;
    const int number = std::atoi(diagnostics.c_str() + colon + 1);
    std::ifstream in(path);
    std::string line;
    for (int i = 0; i < number && std::getline(in, line);) ++i;
    const size_t hash = std::min(line.find_first_not_of(" \t"), line.size());
    return path + ":" + std::to_string(number) + ":" + std::to_string(hash + 1) + ": error: " + message + "\n  " +
           line + "\n  " + line.substr(0, hash) + "^\n";
  }
  return main_file + ": error: " + message + "\n";
}

bool names_half(const std::string& code) { return code.find("__half") != std::string::npos; }

// Every file the parse read, its real path (no links, no "..": Clang
// reaches libstdc++ through /../lib/gcc/...), the headers first, then the
// rest in order; not the prelude or a file of includes, which are in memory.
std::vector<std::string> files_read(const SourceManager& sm, const std::vector<std::string>& headers) {
  auto real = [](llvm::StringRef name) {
    llvm::SmallString<256> path;
    return llvm::sys::fs::real_path(name, path) ? std::string() : std::string(path.str());
  };
  std::vector<std::string> out, rest;
  std::set<std::string> seen;
  for (const std::string& h : headers)
    if (const std::string p = real(h); !p.empty() && seen.insert(p).second) out.push_back(p);
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
    if (const std::string p = real(it->first->getName()); !p.empty() && seen.insert(p).second) rest.push_back(p);
  std::sort(rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace

std::string import(const std::string& header_path, const std::string& type_name, const std::string& op_name,
                   const ImportOptions& options) {
  const std::string code = read_file(header_path);
  std::vector<std::string> ops = {op_name};
  if (!options.key_equal.empty()) ops.push_back(options.key_equal);
  Parsed p = parse(code + instantiations(ops), header_path, clang_arguments(options), names_half(code));
  if (p.errors > 0) {
    const std::string cub = cub_refusal(p.diagnostics, header_path);
    throw cub.empty() ? ImportError(p.diagnostics, p.errors) : ImportError(cub, 1);
  }
  ASTContext& ctx = p.ast->getASTContext();
  try {
    if (options.key_equal.empty()) return translate(ctx, type_name, op_name, options);
    const KeyEqual eq = translate_key_equal(ctx, options.key_equal);
    return translate(ctx, type_name, op_name, options,
                     "  segments = keys;\n  key = " + eq.key + ";\n  " + eq.function + "\n");
  } catch (const Unsupported& u) {
    throw ImportError(render(ctx.getSourceManager(), u.loc, u.message, header_path), 1);
  }
}

dsl::CxxImportResult import_operators(const std::vector<dsl::CxxHeader>& headers,
                                      const std::vector<dsl::CxxOperatorRequest>& requests) {
  dsl::CxxImportResult result;
  ImportOptions options;
  options.identity_hint = "write 'identity = ...;' in the scan";
  std::vector<std::string> paths;
  for (const dsl::CxxHeader& h : headers) {
    paths.push_back(h.path);
    options.clang_args.insert(options.clang_args.end(), h.args.begin(), h.args.end());
  }
  // One header is the main file, so that Clang's diagnostics name it first;
  // several are included, in order, by a file of their own.
  std::string code, main_name = paths.front();
  bool half = false;
  try {
    if (paths.size() == 1) {
      code = read_file(paths.front());
      half = names_half(code);
    } else {
      main_name = "scangen-imports.cpp";
      for (const std::string& p : paths) {
        half = names_half(read_file(p)) || half;
        llvm::SmallString<256> abs(p);
        llvm::sys::fs::make_absolute(abs);
        code += "#include \"" + std::string(abs.str()) + "\"\n";
      }
    }
  } catch (const ImportError& e) {
    result.diagnostics = e.diagnostics;
    result.errors = 1;
    return result;
  }
  std::vector<std::string> ops;
  for (const dsl::CxxOperatorRequest& r : requests) ops.push_back(r.op);
  Parsed p = parse(code + instantiations(ops), main_name, clang_arguments(options), half);
  if (p.errors > 0) {
    const std::string cub = cub_refusal(p.diagnostics, main_name);
    result.diagnostics = cub.empty() ? p.diagnostics : cub;
    result.errors = cub.empty() ? p.errors : 1;
    return result;
  }
  ASTContext& ctx = p.ast->getASTContext();
  const SourceManager& sm = ctx.getSourceManager();
  result.files_read = files_read(sm, paths);
  std::string where = "\"" + headers.front().path + "\"";
  for (size_t i = 1; i < headers.size(); ++i)
    where += (i + 1 == headers.size() ? " or \"" : ", \"") + headers[i].path + "\"";
  for (const dsl::CxxOperatorRequest& r : requests) {
    dsl::CxxOperatorResult out;
    options.identity_in_spec = r.identity_in_spec;
    if (!find_named(ctx.getTranslationUnitDecl(), r.op, sm)) {
      out.not_found = "no functor, function or lambda named '" + r.op + "' is declared in " + where;
    } else {
      try {
        if (r.key_equal) {
          const KeyEqual eq = translate_key_equal(ctx, r.op);
          out.text = "scan key_equal {\n  key = " + eq.key + ";\n  " + eq.function + "\n}\n";
        } else {
          out.text = translate(ctx, "", r.op, options);
        }
      } catch (const Unsupported& u) {
        out.diagnostics = render(sm, u.loc, u.message, main_name);
        out.errors = 1;
      }
    }
    result.operators.push_back(std::move(out));
  }
  return result;
}

}  // namespace scangen::cxx
