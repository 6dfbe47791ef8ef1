// Tokenizer for .scan files.
#pragma once

#include <string>
#include <vector>

#include "scangen/dsl/diagnostics.h"
#include "scangen/dsl/source.h"

namespace scangen::dsl {

// X(enumerator, spelling)
// clang-format off
#define SCANGEN_PUNCTUATORS(X)                                                                                   \
  X(LBrace, "{") X(RBrace, "}") X(LParen, "(") X(RParen, ")") X(Comma, ",") X(Semi, ";") X(Colon, ":")        \
  X(Assign, "=") X(Dot, ".") X(Question, "?") X(Plus, "+") X(Minus, "-") X(Star, "*") X(Slash, "/")           \
  X(Percent, "%") X(Amp, "&") X(Pipe, "|") X(Caret, "^") X(Tilde, "~") X(Bang, "!") X(Shl, "<<") X(Shr, ">>") \
  X(Lt, "<") X(Le, "<=") X(Gt, ">") X(Ge, ">=") X(Eq, "==") X(Ne, "!=") X(AndAnd, "&&") X(OrOr, "||")
// clang-format on

enum class Tok {
  End,
  Invalid,
  Ident,
  Int,
  Float,
  String,  // "..." (import's header and arguments); text without the quotes
  // keywords
  KwType,
  KwScan,
  KwLet,
  KwReturn,
  KwTrue,
  KwFalse,
#define X(e, s) e,
  SCANGEN_PUNCTUATORS(X)
#undef X
};

const char* to_string(Tok t);

struct Token {
  Tok kind = Tok::End;
  SourceLoc loc;
  std::string text;
};

// Splits the file into tokens; the last is always Tok::End. Bad characters are
// reported to `diags` and skipped.
std::vector<Token> tokenize(const SourceFile& file, Diagnostics& diags);

}  // namespace scangen::dsl
