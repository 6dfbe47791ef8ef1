// C++ names and constants as .scan text spells them.
#include "names.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/LangOptions.h"
#include "llvm/Support/raw_ostream.h"

namespace scangen::cxx::detail {

using namespace clang;

namespace {

bool is_dsl_keyword(const std::string& s) {
  return s == "type" || s == "scan" || s == "let" || s == "return" || s == "true" || s == "false";
}

}  // namespace

std::string dsl_name(const std::string& s) { return is_dsl_keyword(s) ? s + "_" : s; }

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

std::string cxx_name(QualType t) {
  PrintingPolicy policy{LangOptions()};
  policy.SuppressTagKeyword = true;
  return t.getAsString(policy);
}

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

}  // namespace scangen::cxx::detail
