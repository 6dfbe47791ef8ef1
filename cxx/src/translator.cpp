// Import's second stage: the Translator, from a C++ operator to .scan text.
#include "translator.h"

#include <algorithm>

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/StmtCXX.h"

#include "diagnose.h"
#include "names.h"

namespace scangen::cxx::detail {

using namespace clang;

// ---- types ------------------------------------------------------------------

// The .scan name of `t` as an element or field type (declaring structs).
std::string Translator::type_name(QualType t, SourceLocation where, bool allow_bool) {
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

std::string Translator::scalar(const BuiltinType* b, QualType t, SourceLocation where) {
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

// ---- the operator -----------------------------------------------------------

// The same for `item` (combine, key_equal), whose two parameters are of
// type `element` (the element's type, or the keys').
std::string Translator::function(const FunctionDecl* fn, QualType element, const std::string& item) {
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
  if (!fn->hasBody()) refuse(fn->getLocation(), "the operator has no body in the header; scangen needs its definition");
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

std::string Translator::value(const APValue& v, QualType t, SourceLocation where) {
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

std::string Translator::int_text(const llvm::APSInt& v, QualType t) {
  if (v.isSigned() && v.isMinSignedValue() && t->isIntegerType() && !t->isBooleanType())
    return type_name(t, SourceLocation()) + ".min";
  if (t->isBooleanType()) return v.getBoolValue() ? "true" : "false";
  llvm::SmallString<32> s;
  v.toString(s, 10);
  return std::string(s.str());
}

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

}  // namespace scangen::cxx::detail
