#include "scangen/dsl/parser.h"

#include "scangen/dsl/lexer.h"

namespace scangen::dsl {

namespace {

// Thrown to abandon the current item; caught where the parser resynchronises.
struct ParseError {};

// Every later stage walks expressions recursively; bounding their depth here
// keeps a hostile or generated file from overflowing the stack. No real
// operator comes near these limits.
constexpr int kMaxDepth = 256;
constexpr size_t kMaxLets = 256;

class Parser {
 public:
  Parser(std::vector<Token> toks, Diagnostics& diags) : toks_(std::move(toks)), diags_(diags) {}

  // file = { import | type_decl | scan_decl } ;
  ast::File parse_file() {
    ast::File file;
    while (!at(Tok::End)) {
      try {
        if (at_import()) {
          file.imports.push_back(parse_import());
        } else if (at(Tok::KwType)) {
          file.types.push_back(parse_type_decl());
        } else if (at(Tok::KwScan)) {
          file.scans.push_back(parse_scan_decl(file));
        } else {
          fail(peek(), "expected 'type' or 'scan' at the top level, found " + describe(peek()));
        }
      } catch (ParseError&) {
        skip_to_top_level();
      }
    }
    return file;
  }

 private:
  const Token& peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool at(Tok k) const { return peek().kind == k; }
  const Token& advance() {
    const Token& t = peek();
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End:
        return "end of file";
      case Tok::Ident:
        return "identifier '" + t.text + "'";
      case Tok::Int:
      case Tok::Float:
        return "number '" + t.text + "'";
      case Tok::String:
        return "string \"" + t.text + "\"";
      default:
        return "'" + t.text + "'";
    }
  }
  [[noreturn]] void fail(const Token& t, const std::string& message) {
    diags_.error(t.loc, message);
    throw ParseError{};
  }
  const Token& expect(Tok k, const char* context) {
    if (!at(k)) {
      std::string message = std::string("expected ") + to_string(k) + " " + context + ", found " + describe(peek());
      // A missing ';' belongs at the end of what came before it, as in C compilers.
      if (k == Tok::Semi && pos_ > 0) {
        const Token& prev = toks_[pos_ - 1];
        const int quotes = prev.kind == Tok::String ? 2 : 0;  // a string's text is without them
        diags_.error({prev.loc.line, prev.loc.col + static_cast<int>(prev.text.size()) + quotes}, message);
        throw ParseError{};
      }
      fail(peek(), message);
    }
    return advance();
  }
  std::string expect_ident(const char* what) {
    if (!at(Tok::Ident)) fail(peek(), std::string("expected ") + what + ", found " + describe(peek()));
    return advance().text;
  }

  // After an error at the top level: skip to the next 'type' or 'scan' that
  // starts a line of its own nesting level.
  void skip_to_top_level() {
    int depth = 0;
    while (!at(Tok::End)) {
      if (depth <= 0 && (at(Tok::KwType) || at(Tok::KwScan) || at_import())) return;
      if (at(Tok::LBrace)) ++depth;
      if (at(Tok::RBrace)) --depth;
      advance();
    }
  }

  // After an error inside a scan item that began at token `start`: rescan the
  // item from its first token, tracking nesting, and stop after its end — the
  // ';' at its own level, or the '}' closing a block body — or before the '}'
  // that closes the scan. Rescanning from the start (rather than from the
  // error) keeps a '}' inside a body from being taken for the end of the scan.
  void skip_item(size_t start) {
    pos_ = start;
    int depth = 0;
    while (!at(Tok::End)) {
      if ((at(Tok::KwScan) || at(Tok::KwType)) && peek(1).kind == Tok::Ident && peek(2).kind == Tok::LBrace &&
          pos_ != start)
        return;  // the item or scan was never closed; let the caller report it
      if (at(Tok::LBrace) || at(Tok::LParen)) ++depth;
      if (at(Tok::RParen)) depth = depth > 0 ? depth - 1 : 0;
      if (at(Tok::RBrace)) {
        if (depth == 0) return;
        --depth;
        Tok next = peek(1).kind;
        if (depth == 0 && (next == Tok::Ident || next == Tok::RBrace || next == Tok::End || next == Tok::KwType)) {
          advance();
          return;  // end of a block body such as combine(x, y) { ... }
        }
      }
      if (at(Tok::Semi) && depth == 0) {
        advance();
        return;
      }
      // A forgotten ';' at the end of a line: the next line's `key =` or
      // `key(` starts a new item, so keep it rather than swallow it.
      if (depth == 0 && pos_ != start && at(Tok::Ident) && peek().loc.line > toks_[pos_ - 1].loc.line &&
          (peek(1).kind == Tok::Assign || peek(1).kind == Tok::LParen))
        return;
      advance();
    }
  }

  // ---- import (dsl/import.h) ----
  // `import` is a word, not a keyword: it starts an import only at the top
  // level and before a string.
  bool at_import() const { return at(Tok::Ident) && peek().text == "import" && peek(1).kind == Tok::String; }

  // import = "import" STRING [ "with" STRING { "," STRING } ] ";" ;
  ast::Import parse_import() {
    advance();
    ast::Import import;
    import.loc = peek().loc;
    import.header = advance().text;
    if (import.header.empty()) fail(toks_[pos_ - 1], "import needs the name of a C++ header");
    if (at(Tok::Ident) && peek().text == "with") {
      advance();
      do {
        if (!at(Tok::String))
          fail(peek(),
               "expected a string after 'with' (a Clang option such as \"-Iinclude\"), found " + describe(peek()));
        import.args.push_back(advance().text);
      } while (accept(Tok::Comma));
    }
    expect(Tok::Semi, "after the import");
    return import;
  }

  // type_ref = IDENT ;
  ast::TypeName parse_type_name(const char* context) {
    ast::TypeName t;
    t.loc = peek().loc;
    if (!at(Tok::Ident)) fail(peek(), std::string("expected a type name ") + context + ", found " + describe(peek()));
    t.name = advance().text;
    return t;
  }

  // type_decl = "type" IDENT "{" field { "," field } [ "," ] "}" ;
  // field     = IDENT ":" type_ref ;
  ast::TypeDecl parse_type_decl() {
    expect(Tok::KwType, "");
    ast::TypeDecl decl;
    decl.loc = peek().loc;
    decl.name = expect_ident("a name for the type after 'type'");
    expect(Tok::LBrace, "to open the field list of the type");
    while (!at(Tok::RBrace)) {
      ast::FieldDecl f;
      f.loc = peek().loc;
      f.name = expect_ident("a field name");
      expect(Tok::Colon, "between a field name and its type");
      f.type = parse_type_name("for the field");
      decl.fields.push_back(std::move(f));
      if (!accept(Tok::Comma) && !accept(Tok::Semi)) {
        if (!at(Tok::RBrace)) fail(peek(), "expected ',' or '}' after a field, found " + describe(peek()));
      }
    }
    expect(Tok::RBrace, "to close the type");
    accept(Tok::Semi);
    return decl;
  }

  // scan_decl = "scan" IDENT "{" { item } "}" ;
  ast::ScanDecl parse_scan_decl(ast::File&) {
    expect(Tok::KwScan, "");
    ast::ScanDecl decl;
    decl.loc = peek().loc;
    decl.name = expect_ident("a name for the scan after 'scan'");
    expect(Tok::LBrace, "to open the scan");
    while (!at(Tok::RBrace)) {
      if (at(Tok::End)) {
        diags_.error(peek().loc, "scan '" + decl.name + "' is not closed; add '}'");
        diags_.note(decl.loc, "the scan starts here");
        throw ParseError{};
      }
      if ((at(Tok::KwScan) || at(Tok::KwType)) && peek(1).kind == Tok::Ident && peek(2).kind == Tok::LBrace) {
        diags_.error(peek().loc, "scan '" + decl.name + "' is not closed before the next declaration; add '}'");
        return decl;
      }
      size_t item_start = pos_;
      try {
        decl.items.push_back(parse_item());
      } catch (ParseError&) {
        decl.had_syntax_errors = true;
        skip_item(item_start);
      }
    }
    expect(Tok::RBrace, "to close the scan");
    accept(Tok::Semi);
    return decl;
  }

  // item = key "=" expr { "," expr } ";"
  //      | key "(" [ IDENT { "," IDENT } ] ")" ( "=" expr ";" | block ) ;
  // key  = ( IDENT | "type" ) [ "." IDENT ] ;   (scatter.lengths: a named fused output)
  ast::Item parse_item() {
    ast::Item item;
    item.loc = peek().loc;
    if (at(Tok::KwType)) {
      item.key = advance().text;  // `type = T;` uses the keyword as a setting name
    } else {
      item.key = expect_ident("a setting such as 'type', 'op', 'combine' or 'level'");
    }
    if (accept(Tok::Dot)) item.key += "." + expect_ident(("a name after '" + item.key + ".'").c_str());
    if (accept(Tok::LParen)) {
      item.is_function = true;
      if (!at(Tok::RParen)) {
        do {
          ast::Param p;
          p.loc = peek().loc;
          p.name = expect_ident("a parameter name");
          item.params.push_back(std::move(p));
        } while (accept(Tok::Comma));
      }
      expect(Tok::RParen, "to close the parameter list");
      if (at(Tok::LBrace)) {
        item.body = parse_block();
      } else {
        expect(Tok::Assign, "or '{' after the parameter list");
        item.body.result = parse_expr();
        expect(Tok::Semi, "after the expression");
      }
      return item;
    }
    expect(Tok::Assign, ("after '" + item.key + "'").c_str());
    if (item.key == "combine" && at(Tok::String) && peek(1).kind == Tok::Semi) {
      // `combine = "ns::Op";`: a C++ name that is not a .scan identifier.
      item.values.push_back(make(ast::ExprKind::Name, peek().loc, advance().text));
      advance();
      return item;
    }
    do {
      item.values.push_back(parse_expr());
    } while (accept(Tok::Comma));
    expect(Tok::Semi, ("after the value of '" + item.key + "'").c_str());
    return item;
  }

  // block = "{" { "let" IDENT [ ":" type_ref ] "=" expr ";" } "return" expr ";" "}" ;
  ast::Body parse_block() {
    expect(Tok::LBrace, "");
    ast::Body body;
    while (at(Tok::KwLet)) {
      if (body.lets.size() == kMaxLets)
        fail(peek(), "more than " + std::to_string(kMaxLets) + " 'let' bindings in one body");
      advance();
      ast::Let let;
      let.loc = peek().loc;
      let.name = expect_ident("a name after 'let'");
      if (accept(Tok::Colon)) let.type = parse_type_name("after ':' in 'let'");
      expect(Tok::Assign, "after the name in 'let'");
      let.value = parse_expr();
      expect(Tok::Semi, "after a 'let' binding");
      body.lets.push_back(std::move(let));
    }
    if (!at(Tok::KwReturn)) fail(peek(), "expected 'let' or 'return' in a function body, found " + describe(peek()));
    advance();
    body.result = parse_expr();
    expect(Tok::Semi, "after the returned expression");
    expect(Tok::RBrace, "to close the function body; 'return' must be its last statement");
    return body;
  }

  ast::ExprPtr make(ast::ExprKind kind, SourceLoc loc, std::string text) {
    auto e = std::make_unique<ast::Expr>();
    e->kind = kind;
    e->loc = loc;
    e->begin = loc;
    e->text = std::move(text);
    return e;
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth) {
        --p.depth_;  // the destructor will not run when the constructor throws
        p.fail(p.peek(), "expression too deeply nested or too long (limit " + std::to_string(kMaxDepth) +
                             " levels); split it with 'let'");
      }
    }
    ~DepthGuard() { --p.depth_; }
  };

  // expr = logical_or [ "?" expr ":" expr ] ;
  ast::ExprPtr parse_expr() {
    DepthGuard guard(*this);
    ast::ExprPtr cond = parse_binary(0);
    if (!at(Tok::Question)) return cond;
    SourceLoc loc = advance().loc;
    auto e = make(ast::ExprKind::Ternary, loc, "?:");
    e->begin = cond->begin;
    e->kids.push_back(std::move(cond));
    e->kids.push_back(parse_expr());
    expect(Tok::Colon, "in a '?:' expression");
    e->kids.push_back(parse_expr());
    return e;
  }

  // Binary operators by C precedence, loosest first:
  //   || , && , | , ^ , & , == != , < <= > >= , << >> , + - , * / %
  static int precedence(Tok t) {
    switch (t) {
      case Tok::OrOr:
        return 1;
      case Tok::AndAnd:
        return 2;
      case Tok::Pipe:
        return 3;
      case Tok::Caret:
        return 4;
      case Tok::Amp:
        return 5;
      case Tok::Eq:
      case Tok::Ne:
        return 6;
      case Tok::Lt:
      case Tok::Le:
      case Tok::Gt:
      case Tok::Ge:
        return 7;
      case Tok::Shl:
      case Tok::Shr:
        return 8;
      case Tok::Plus:
      case Tok::Minus:
        return 9;
      case Tok::Star:
      case Tok::Slash:
      case Tok::Percent:
        return 10;
      default:
        return -1;
    }
  }

  // binary = unary { binop unary } ;   (precedence climbing, left associative)
  ast::ExprPtr parse_binary(int min_prec) {
    ast::ExprPtr lhs = parse_unary();
    int chain = 0;  // a long chain a + b + c ... nests as deeply as parentheses do
    for (;;) {
      int prec = precedence(peek().kind);
      if (prec < 0 || prec < min_prec) return lhs;
      if (depth_ + ++chain > kMaxDepth)
        fail(peek(), "expression too deeply nested or too long (limit " + std::to_string(kMaxDepth) +
                         " levels); split it with 'let'");
      const Token& op = advance();
      DepthGuard guard(*this);
      ast::ExprPtr rhs = parse_binary(prec + 1);
      auto e = make(ast::ExprKind::Binary, op.loc, op.text);
      e->begin = lhs->begin;
      e->kids.push_back(std::move(lhs));
      e->kids.push_back(std::move(rhs));
      lhs = std::move(e);
    }
  }

  // unary = ( "-" | "!" | "~" ) unary | postfix ;
  ast::ExprPtr parse_unary() {
    if (at(Tok::Minus) || at(Tok::Bang) || at(Tok::Tilde) || at(Tok::Plus)) {
      const Token& op = advance();
      DepthGuard guard(*this);
      ast::ExprPtr operand = parse_unary();
      if (op.kind == Tok::Plus) return operand;
      auto e = make(ast::ExprKind::Unary, op.loc, op.text);
      e->kids.push_back(std::move(operand));
      return e;
    }
    return parse_postfix();
  }

  // postfix = primary { "." IDENT } ;
  ast::ExprPtr parse_postfix() {
    ast::ExprPtr e = parse_primary();
    while (at(Tok::Dot)) {
      advance();
      SourceLoc loc = peek().loc;
      std::string field = expect_ident("a field name after '.'");
      auto m = make(ast::ExprKind::Member, loc, field);
      m->begin = e->begin;
      m->kids.push_back(std::move(e));
      e = std::move(m);
    }
    return e;
  }

  // primary = INT | FLOAT | "true" | "false" | "(" expr ")"
  //         | IDENT "(" [ expr { "," expr } ] ")"                      (call or conversion)
  //         | IDENT "{" [ init { "," init } [ "," ] ] "}"              (struct construction)
  //         | IDENT ;
  // init    = IDENT ":" expr | expr ;
  ast::ExprPtr parse_primary() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Int:
        advance();
        return make(ast::ExprKind::Int, t.loc, t.text);
      case Tok::Float:
        advance();
        return make(ast::ExprKind::Float, t.loc, t.text);
      case Tok::KwTrue:
      case Tok::KwFalse:
        advance();
        return make(ast::ExprKind::Bool, t.loc, t.text);
      case Tok::LParen: {
        advance();
        ast::ExprPtr e = parse_expr();
        expect(Tok::RParen, "to close '('");
        e->begin = t.loc;
        return e;
      }
      case Tok::Ident:
        break;
      default:
        fail(t, "expected an expression, found " + describe(t));
    }
    const Token& name = advance();
    if (at(Tok::LParen)) {
      advance();
      auto call = make(ast::ExprKind::Call, name.loc, name.text);
      if (!at(Tok::RParen)) {
        do {
          call->kids.push_back(parse_expr());
        } while (accept(Tok::Comma));
      }
      expect(Tok::RParen, "to close the argument list");
      return call;
    }
    if (at(Tok::LBrace)) {
      advance();
      auto c = make(ast::ExprKind::Construct, name.loc, name.text);
      bool named = at(Tok::Ident) && peek(1).kind == Tok::Colon;
      while (!at(Tok::RBrace)) {
        if (named) {
          c->field_locs.push_back(peek().loc);
          c->field_names.push_back(expect_ident("a field name (all fields named, or none)"));
          expect(Tok::Colon, "after the field name; either name every field or none");
        } else if (at(Tok::Ident) && peek(1).kind == Tok::Colon) {
          fail(peek(), "mixed named and positional fields in '" + name.text + " { ... }'; name every field or none");
        }
        c->kids.push_back(parse_expr());
        if (!accept(Tok::Comma) && !at(Tok::RBrace))
          fail(peek(), "expected ',' or '}' in '" + name.text + " { ... }', found " + describe(peek()));
      }
      advance();
      return c;
    }
    return make(ast::ExprKind::Name, name.loc, name.text);
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;
  Diagnostics& diags_;
};

}  // namespace

ast::File parse(const SourceFile& file, Diagnostics& diags) {
  Parser parser(tokenize(file, diags), diags);
  return parser.parse_file();
}

}  // namespace scangen::dsl
