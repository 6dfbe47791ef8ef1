// Import's second stage, a request at a time: locate, translate, and write
// the scan (a built-in operator where the body and identity are one).
#include "translate.h"

#include <cmath>
#include <optional>

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"

#include "diagnose.h"
#include "locate.h"
#include "names.h"
#include "translator.h"

namespace scangen::cxx::detail {

using namespace clang;

namespace {

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

}  // namespace

std::string translate(ASTContext& ctx, const std::string& type_name, const std::string& op_name,
                      const ImportOptions& options, const std::string& keys) {
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

}  // namespace scangen::cxx::detail
