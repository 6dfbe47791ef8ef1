#include "scangen/dsl/lexer.h"

#include <cctype>
#include <cstring>

namespace scangen::dsl {

const char* to_string(Tok t) {
  switch (t) {
    case Tok::End:
      return "end of file";
    case Tok::Invalid:
      return "invalid token";
    case Tok::Ident:
      return "identifier";
    case Tok::Int:
      return "integer literal";
    case Tok::Float:
      return "floating-point literal";
    case Tok::String:
      return "string";
    case Tok::KwType:
      return "'type'";
    case Tok::KwScan:
      return "'scan'";
    case Tok::KwLet:
      return "'let'";
    case Tok::KwReturn:
      return "'return'";
    case Tok::KwTrue:
      return "'true'";
    case Tok::KwFalse:
      return "'false'";
#define X(e, s) \
  case Tok::e:  \
    return "'" s "'";
      SCANGEN_PUNCTUATORS(X)
#undef X
  }
  return "?";
}

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct Punct {
  const char* text;
  Tok kind;
};
// Longest first, so "<<" wins over "<".
const Punct kPuncts[] = {
    {"<<", Tok::Shl},   {">>", Tok::Shr},    {"<=", Tok::Le},      {">=", Tok::Ge},    {"==", Tok::Eq},
    {"!=", Tok::Ne},    {"&&", Tok::AndAnd}, {"||", Tok::OrOr},    {"{", Tok::LBrace}, {"}", Tok::RBrace},
    {"(", Tok::LParen}, {")", Tok::RParen},  {",", Tok::Comma},    {";", Tok::Semi},   {":", Tok::Colon},
    {"=", Tok::Assign}, {".", Tok::Dot},     {"?", Tok::Question}, {"+", Tok::Plus},   {"-", Tok::Minus},
    {"*", Tok::Star},   {"/", Tok::Slash},   {"%", Tok::Percent},  {"&", Tok::Amp},    {"|", Tok::Pipe},
    {"^", Tok::Caret},  {"~", Tok::Tilde},   {"!", Tok::Bang},     {"<", Tok::Lt},     {">", Tok::Gt},
};

Tok keyword(const std::string& s) {
  if (s == "type") return Tok::KwType;
  if (s == "scan") return Tok::KwScan;
  if (s == "let") return Tok::KwLet;
  if (s == "return") return Tok::KwReturn;
  if (s == "true") return Tok::KwTrue;
  if (s == "false") return Tok::KwFalse;
  return Tok::Ident;
}

// The end of the number that starts at `i` (digits, '_' separators, a
// fraction, an exponent; or 0x and hex digits); `is_float` when it has a
// fraction or an exponent.
size_t scan_number(const std::string& s, size_t i, bool& is_float) {
  const char c = s[i];
  if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    i += 2;
    // '0x' with no digits is reported where the literal's value is needed.
    while (i < s.size() && (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    return i;
  }
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  if (i < s.size() && s[i] == '.') {
    is_float = true;
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
      is_float = true;
      i = j;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    }
  }
  return i;
}

}  // namespace

std::vector<Token> tokenize(const SourceFile& file, Diagnostics& diags) {
  const std::string& s = file.text();
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    // Comments: '#' or '//' to the end of the line.
    if (c == '#' || (c == '/' && i + 1 < s.size() && s[i + 1] == '/')) {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    size_t start = i;
    SourceLoc loc = file.loc_at(start);
    if (ident_start(c)) {
      while (i < s.size() && ident_char(s[i])) ++i;
      std::string text = s.substr(start, i - start);
      out.push_back({keyword(text), loc, text});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      bool is_float = false;
      i = scan_number(s, i, is_float);
      size_t number_end = i;
      // A letter glued to a number ("12abc", "1.0f") is a mistake worth naming.
      if (i < s.size() && ident_char(s[i])) {
        size_t j = i;
        while (j < s.size() && ident_char(s[j])) ++j;
        diags.error(file.loc_at(i), "unexpected suffix '" + s.substr(i, j - i) +
                                        "' on a number; literals take their type from context, write "
                                        "f32(1.5) or i64(3) to name one");
        i = j;
      }
      out.push_back({is_float ? Tok::Float : Tok::Int, loc, s.substr(start, number_end - start)});
      continue;
    }
    if (c == '"') {
      // A string: import's header and arguments. No escapes; one line.
      size_t end = s.find_first_of("\"\n", i + 1);
      if (end == std::string::npos || s[end] != '"') {
        diags.error(loc, "this string is not closed on its line; add '\"'");
        i = end == std::string::npos ? s.size() : end;
        continue;
      }
      out.push_back({Tok::String, loc, s.substr(i + 1, end - i - 1)});
      i = end + 1;
      continue;
    }
    bool matched = false;
    for (const Punct& p : kPuncts) {
      size_t n = std::strlen(p.text);
      if (s.compare(i, n, p.text) == 0) {
        out.push_back({p.kind, loc, p.text});
        i += n;
        matched = true;
        break;
      }
    }
    if (matched) continue;
    unsigned char uc = static_cast<unsigned char>(c);
    std::string shown = uc >= 0x20 && uc < 0x7f
                            ? std::string(1, c)
                            : "\\x" + std::string(1, "0123456789abcdef"[uc >> 4]) + "0123456789abcdef"[uc & 15];
    diags.error(loc, "unexpected character '" + shown + "'; scan files use ASCII identifiers, numbers and C operators");
    ++i;
    // Report a run of such bytes (a UTF-8 sequence, say) once.
    auto stray = [](unsigned char b) { return b >= 0x7f || (b < 0x20 && !std::isspace(b)); };
    while (i < s.size() && stray(static_cast<unsigned char>(s[i]))) ++i;
  }
  out.push_back({Tok::End, file.loc_at(s.size()), ""});
  return out;
}

}  // namespace scangen::dsl
