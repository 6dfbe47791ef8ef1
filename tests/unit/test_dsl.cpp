// Unit tests of the DSL front end: lexer, parser, checker, Spec, diagnostics.
//
// Every expectation here is written out by hand (token positions, dumps,
// defaults, rendered messages); nothing is compared against the front end's
// own output from another run, except where the property itself is "two runs
// agree" (Spec equality and hashing).

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "scangen/dsl/dsl.h"
#include "scangen/dsl/hash.h"
#include "scangen/dsl/lexer.h"
#include "spec_support.h"

namespace dsl = scangen::dsl;

namespace Catch {
template <>
struct StringMaker<dsl::Spec> {
  static std::string convert(const dsl::Spec& s) { return s.to_string(); }
};
}  // namespace Catch

namespace {

// ---- helpers -------------------------------------------------------------------

using scangen::test::load_ok;
using scangen::test::spec_of;

// The error messages of `text`, in file order.
std::vector<std::string> errors_of(const std::string& text) {
  dsl::Document doc = dsl::load("test.scan", text);
  std::vector<std::string> out;
  for (const dsl::Diagnostic& d : doc.diagnostics().sorted())
    if (d.severity == dsl::Severity::Error) out.push_back(d.message);
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Tokens of `text`, with the lexer's diagnostics (if any) in `diags_out`.
std::vector<dsl::Token> lex(const std::string& text, int* errors = nullptr) {
  dsl::SourceFile file("lex.scan", text);
  dsl::Diagnostics diags(file);
  std::vector<dsl::Token> toks = dsl::tokenize(file, diags);
  if (errors) *errors = diags.error_count();
  return toks;
}

// The parse tree of `text`; REQUIREs no syntax errors.
dsl::ast::File parse_ok(const std::string& text) {
  dsl::SourceFile file("parse.scan", text);
  dsl::Diagnostics diags(file);
  dsl::ast::File ast = dsl::parse(file, diags);
  INFO("source:\n" << text << "\ndiagnostics:\n" << diags.render());
  REQUIRE_FALSE(diags.has_errors());
  return ast;
}

// ast::dump of the expression in `scan s { v = EXPR; }`.
std::string dump_expr(const std::string& expr) {
  dsl::ast::File ast = parse_ok("scan s { v = " + expr + "; }");
  REQUIRE(ast.scans.size() == 1);
  REQUIRE(ast.scans[0].items.size() == 1);
  REQUIRE(ast.scans[0].items[0].values.size() == 1);
  return dsl::ast::dump(*ast.scans[0].items[0].values[0]);
}

// Runs `fn` in a child process and reports whether it finished normally: a
// crash (stack overflow, abort, ...) in the front end fails the test instead
// of taking the whole test binary down.
bool runs_to_completion(const std::function<void()>& fn, int timeout_s = 60) {
  std::fflush(nullptr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // No Catch2 handlers in the child: let the kernel report the signal.
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) std::signal(sig, SIG_DFL);
    alarm(static_cast<unsigned>(timeout_s));
    try {
      fn();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("child status: exited=" << WIFEXITED(status) << " code=" << (WIFEXITED(status) ? WEXITSTATUS(status) : -1)
                               << " signalled=" << WIFSIGNALED(status)
                               << " signal=" << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  CHECK(ok);
  return ok;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(SCANGEN_EXAMPLES_DIR))
    if (entry.is_regular_file() && entry.path().extension() == ".scan") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t fresh_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

// ===========================================================================
// Lexer
// ===========================================================================

TEST_CASE("lexer: token kinds, texts and 1-based positions", "[dsl][lexer]") {
  const std::string text =
      "scan s { # comment ( not a token\n"
      "\tx1 = 0x1F_ff+1_000; // another comment }\n"
      "y<<=b>=c&&d .5 2.5e3 return\n"
      "}\n";
  int errors = -1;
  std::vector<dsl::Token> t = lex(text, &errors);
  CHECK(errors == 0);

  struct Want {
    dsl::Tok kind;
    const char* text;
    int line, col;
  };
  const Want want[] = {
      {dsl::Tok::KwScan, "scan", 1, 1},  {dsl::Tok::Ident, "s", 1, 6},
      {dsl::Tok::LBrace, "{", 1, 8},     {dsl::Tok::Ident, "x1", 2, 2},
      {dsl::Tok::Assign, "=", 2, 5},     {dsl::Tok::Int, "0x1F_ff", 2, 7},
      {dsl::Tok::Plus, "+", 2, 14},      {dsl::Tok::Int, "1_000", 2, 15},
      {dsl::Tok::Semi, ";", 2, 20},      {dsl::Tok::Ident, "y", 3, 1},
      {dsl::Tok::Shl, "<<", 3, 2},       {dsl::Tok::Assign, "=", 3, 4},
      {dsl::Tok::Ident, "b", 3, 5},      {dsl::Tok::Ge, ">=", 3, 6},
      {dsl::Tok::Ident, "c", 3, 8},      {dsl::Tok::AndAnd, "&&", 3, 9},
      {dsl::Tok::Ident, "d", 3, 11},     {dsl::Tok::Float, ".5", 3, 13},
      {dsl::Tok::Float, "2.5e3", 3, 16}, {dsl::Tok::KwReturn, "return", 3, 22},
      {dsl::Tok::RBrace, "}", 4, 1},     {dsl::Tok::End, "", 5, 1},
  };
  REQUIRE(t.size() == std::size(want));
  for (size_t i = 0; i < t.size(); ++i) {
    INFO("token " << i << " '" << t[i].text << "' (" << dsl::to_string(t[i].kind) << ") at " << t[i].loc.line << ":"
                  << t[i].loc.col);
    CHECK(t[i].kind == want[i].kind);
    CHECK(t[i].text == want[i].text);
    CHECK(t[i].loc.line == want[i].line);
    CHECK(t[i].loc.col == want[i].col);
  }
}

TEST_CASE("lexer: keywords, every punctuator, and longest match", "[dsl][lexer]") {
  std::vector<dsl::Token> t = lex("type scan let return true false typed _x x_1");
  REQUIRE(t.size() == 10);
  CHECK(t[0].kind == dsl::Tok::KwType);
  CHECK(t[1].kind == dsl::Tok::KwScan);
  CHECK(t[2].kind == dsl::Tok::KwLet);
  CHECK(t[3].kind == dsl::Tok::KwReturn);
  CHECK(t[4].kind == dsl::Tok::KwTrue);
  CHECK(t[5].kind == dsl::Tok::KwFalse);
  CHECK(t[6].kind == dsl::Tok::Ident);  // a keyword prefix is still an identifier
  CHECK(t[7].kind == dsl::Tok::Ident);
  CHECK(t[8].kind == dsl::Tok::Ident);
  CHECK(t[9].kind == dsl::Tok::End);

  const std::pair<const char*, dsl::Tok> puncts[] = {
      {"{", dsl::Tok::LBrace},  {"}", dsl::Tok::RBrace},   {"(", dsl::Tok::LParen},  {")", dsl::Tok::RParen},
      {",", dsl::Tok::Comma},   {";", dsl::Tok::Semi},     {":", dsl::Tok::Colon},   {"=", dsl::Tok::Assign},
      {".", dsl::Tok::Dot},     {"?", dsl::Tok::Question}, {"+", dsl::Tok::Plus},    {"-", dsl::Tok::Minus},
      {"*", dsl::Tok::Star},    {"/", dsl::Tok::Slash},    {"%", dsl::Tok::Percent}, {"&", dsl::Tok::Amp},
      {"|", dsl::Tok::Pipe},    {"^", dsl::Tok::Caret},    {"~", dsl::Tok::Tilde},   {"!", dsl::Tok::Bang},
      {"<<", dsl::Tok::Shl},    {">>", dsl::Tok::Shr},     {"<", dsl::Tok::Lt},      {"<=", dsl::Tok::Le},
      {">", dsl::Tok::Gt},      {">=", dsl::Tok::Ge},      {"==", dsl::Tok::Eq},     {"!=", dsl::Tok::Ne},
      {"&&", dsl::Tok::AndAnd}, {"||", dsl::Tok::OrOr},
  };
  for (const auto& [spelling, kind] : puncts) {
    INFO("punctuator " << spelling);
    int errors = -1;
    std::vector<dsl::Token> one = lex(spelling, &errors);
    CHECK(errors == 0);
    REQUIRE(one.size() == 2);
    CHECK(one[0].kind == kind);
    CHECK(one[0].text == spelling);
  }

  // Longest match: "<<=" is '<<' '=', ">>>" is '>>' '>', "a--b" is a - - b.
  std::vector<dsl::Token> m = lex("<<= >>> a--b ==!");
  std::vector<dsl::Tok> kinds;
  for (const dsl::Token& tok : m) kinds.push_back(tok.kind);
  CHECK(kinds == std::vector<dsl::Tok>{dsl::Tok::Shl, dsl::Tok::Assign, dsl::Tok::Shr, dsl::Tok::Gt, dsl::Tok::Ident,
                                       dsl::Tok::Minus, dsl::Tok::Minus, dsl::Tok::Ident, dsl::Tok::Eq, dsl::Tok::Bang,
                                       dsl::Tok::End});
}

TEST_CASE("lexer: comments with # and // run to the end of the line only", "[dsl][lexer]") {
  std::vector<dsl::Token> t = lex("a # b c\nd // e f\n/g #\n//\nh");
  std::vector<std::string> texts;
  for (const dsl::Token& tok : t) texts.push_back(tok.text);
  CHECK(texts == std::vector<std::string>{"a", "d", "/", "g", "h", ""});
  CHECK(t[4].loc.line == 5);
  CHECK(t[4].loc.col == 1);

  // Only comments (and blank lines): just the End token, no diagnostics.
  int errors = -1;
  std::vector<dsl::Token> only = lex("# one\n// two\n\n   # three", &errors);
  CHECK(errors == 0);
  REQUIRE(only.size() == 1);
  CHECK(only[0].kind == dsl::Tok::End);
}

TEST_CASE("lexer: numbers (hex, underscores, floats) and their values after checking", "[dsl][lexer][checker]") {
  std::vector<dsl::Token> t = lex("0 42 0xFF 0XaB_cD 1_000_000 1.5 1. .25 1e3 2E-2 6.02e+23");
  const std::pair<dsl::Tok, const char*> want[] = {
      {dsl::Tok::Int, "0"},       {dsl::Tok::Int, "42"},         {dsl::Tok::Int, "0xFF"},
      {dsl::Tok::Int, "0XaB_cD"}, {dsl::Tok::Int, "1_000_000"},  {dsl::Tok::Float, "1.5"},
      {dsl::Tok::Float, "1."},    {dsl::Tok::Float, ".25"},      {dsl::Tok::Float, "1e3"},
      {dsl::Tok::Float, "2E-2"},  {dsl::Tok::Float, "6.02e+23"},
  };
  REQUIRE(t.size() == std::size(want) + 1);
  for (size_t i = 0; i < std::size(want); ++i) {
    INFO("token " << i);
    CHECK(t[i].kind == want[i].first);
    CHECK(t[i].text == want[i].second);
  }

  // The checker reads the digits: hex and '_' separators.
  auto init_bits = [](const std::string& type, const std::string& lit) {
    dsl::Spec s = spec_of("scan s { type = " + type + "; op = add; init = " + lit + "; }");
    REQUIRE(s.init != nullptr);
    return s.init->lit.bits;
  };
  CHECK(init_bits("i32", "0x1F_ff") == 8191u);
  CHECK(init_bits("i32", "1_000") == 1000u);
  CHECK(init_bits("u64", "0xFFFF_FFFF_FFFF_FFFF") == std::numeric_limits<uint64_t>::max());
  CHECK(init_bits("u64", "18446744073709551615") == std::numeric_limits<uint64_t>::max());
  CHECK(init_bits("i64", "-9223372036854775808") == (uint64_t{1} << 63));
  CHECK(init_bits("i32", "-1") == std::numeric_limits<uint64_t>::max());  // sign-extended to 64 bits
  dsl::Spec f = spec_of("scan s { type = f64; op = add; init = 1_0.5; }");
  CHECK(f.init->lit.value == 10.5);

  // A letter glued to a number is an error, reported once.
  int errors = -1;
  lex("12abc", &errors);
  CHECK(errors == 1);
  lex("1.0f", &errors);
  CHECK(errors == 1);
  std::vector<std::string> e = errors_of("scan s { type = f32; op = add; init = 1.0f; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "suffix 'f'"));
}

TEST_CASE("lexer: '0x' without digits is a malformed literal, not 33", "[dsl][lexer][checker]") {
  // Regression: "0x" alone used to be read in base 10 with 'x' as digit 33.
  dsl::Document doc = dsl::load("hex.scan", "scan s { type = i32; op = add; init = 0x; }");
  INFO(doc.diagnostics().render());
  CHECK_FALSE(doc.ok());
  if (const dsl::Spec* s = doc.find("s")) CHECK(s->init->lit.bits != 33u);
  CHECK_FALSE(dsl::load("hex.scan", "scan s { type = i32; op = add; init = 0x_; }").ok());
}

TEST_CASE("lexer: positions count bytes, tabs and CRLF line ends", "[dsl][lexer]") {
  std::vector<dsl::Token> t = lex("a\r\n\t\tb\r\n  c");
  REQUIRE(t.size() == 4);
  CHECK((t[0].loc.line == 1 && t[0].loc.col == 1));
  CHECK((t[1].loc.line == 2 && t[1].loc.col == 3));
  CHECK((t[2].loc.line == 3 && t[2].loc.col == 3));
  dsl::SourceFile f("x", "a\r\n\t\tb\r\n  c");
  CHECK(f.line_text(1) == "a");  // the '\r' is not part of the line
  CHECK(f.line_text(2) == "\t\tb");
  CHECK(f.line_text(3) == "  c");
  CHECK(f.line_text(4).empty());
  CHECK(f.line_text(0).empty());
}

// ===========================================================================
// Parser
// ===========================================================================

TEST_CASE("parser: binary operators follow C precedence and associativity", "[dsl][parser]") {
  CHECK(dump_expr("a + b * c") == "(+ (name a) (* (name b) (name c)))");
  CHECK(dump_expr("a * b + c") == "(+ (* (name a) (name b)) (name c))");
  CHECK(dump_expr("a - b - c") == "(- (- (name a) (name b)) (name c))");
  CHECK(dump_expr("a / b % c") == "(% (/ (name a) (name b)) (name c))");
  // Shifts bind looser than + (a classic C surprise, kept).
  CHECK(dump_expr("a << 1 + 2") == "(<< (name a) (+ (int 1) (int 2)))");
  CHECK(dump_expr("a >> b << c") == "(<< (>> (name a) (name b)) (name c))");
  CHECK(dump_expr("a < b << c") == "(< (name a) (<< (name b) (name c)))");
  // Bitwise operators bind looser than comparisons, as in C.
  CHECK(dump_expr("a & b == c") == "(& (name a) (== (name b) (name c)))");
  CHECK(dump_expr("a | b ^ c & d") == "(| (name a) (^ (name b) (& (name c) (name d))))");
  CHECK(dump_expr("a == b < c") == "(== (name a) (< (name b) (name c)))");
  CHECK(dump_expr("a || b && c | d") == "(|| (name a) (&& (name b) (| (name c) (name d))))");
  CHECK(dump_expr("(a + b) * c") == "(* (+ (name a) (name b)) (name c))");
}

TEST_CASE("parser: unary operators, '?:' right associativity, members, calls", "[dsl][parser]") {
  CHECK(dump_expr("-a * b") == "(* (- (name a)) (name b))");
  CHECK(dump_expr("!a && ~b") == "(&& (! (name a)) (~ (name b)))");
  CHECK(dump_expr("- -a") == "(- (- (name a)))");
  CHECK(dump_expr("+a") == "(name a)");  // unary plus is dropped
  CHECK(dump_expr("a ? b : c ? d : e") == "(?: (name a) (name b) (?: (name c) (name d) (name e)))");
  CHECK(dump_expr("a ? b ? c : d : e") == "(?: (name a) (?: (name b) (name c) (name d)) (name e))");
  CHECK(dump_expr("a || b ? c + 1 : d") == "(?: (|| (name a) (name b)) (+ (name c) (int 1)) (name d))");
  CHECK(dump_expr("x.a.b") == "(member (member (name x) a) b)");
  CHECK(dump_expr("-x.a") == "(- (member (name x) a))");
  CHECK(dump_expr("f(a, 1, 2.5)") == "(call f (name a) (int 1) (float 2.5))");
  CHECK(dump_expr("g()") == "(call g)");
  CHECK(dump_expr("i32.min") == "(member (name i32) min)");
  CHECK(dump_expr("true && false") == "(&& (bool true) (bool false))");
}

TEST_CASE("parser: named and positional struct construction", "[dsl][parser]") {
  CHECK(dump_expr("P { a: 1, b: x + 1 }") == "(construct P a:(int 1) b:(+ (name x) (int 1)))");
  CHECK(dump_expr("P { 1, 2.0, }") == "(construct P (int 1) (float 2.0))");
  CHECK(dump_expr("P {}") == "(construct P)");
  CHECK(dump_expr("Q { p: P { 1, 2 }, w: 3 }") == "(construct Q p:(construct P (int 1) (int 2)) w:(int 3))");
  dsl::ast::File ast = parse_ok("scan s { v = P { b: 1, a: 2 }; }");
  const dsl::ast::Expr& c = *ast.scans[0].items[0].values[0];
  CHECK(c.field_names == std::vector<std::string>{"b", "a"});
  REQUIRE(c.field_locs.size() == 2);
  CHECK(c.field_locs[0].col == 18);
  CHECK(c.field_locs[1].col == 24);

  // Mixing named and positional values is a syntax error.
  std::vector<std::string> e = errors_of("type P { a: i32, b: i32 }\nscan s { type = P; identity = P { 1, b: 2 }; }");
  REQUIRE_FALSE(e.empty());
  CHECK(contains(e[0], "mixed named and positional"));
}

TEST_CASE("parser: function items with '=' and with block bodies", "[dsl][parser]") {
  dsl::ast::File ast = parse_ok(
      "scan s {\n"
      "  combine(x, y) {\n"
      "    let t: f32 = x.a;\n"
      "    let u = y;\n"
      "    return t + u;\n"
      "  }\n"
      "  convert(v) = v * 2;\n"
      "  targets = cuda, opencl;\n"
      "  f() = 1;\n"
      "}\n");
  REQUIRE(ast.scans.size() == 1);
  const auto& items = ast.scans[0].items;
  REQUIRE(items.size() == 4);

  const dsl::ast::Item& comb = items[0];
  CHECK(comb.key == "combine");
  CHECK(comb.is_function);
  REQUIRE(comb.params.size() == 2);
  CHECK(comb.params[0].name == "x");
  CHECK(comb.params[1].name == "y");
  CHECK((comb.params[1].loc.line == 2 && comb.params[1].loc.col == 14));
  REQUIRE(comb.body.lets.size() == 2);
  CHECK(comb.body.lets[0].name == "t");
  CHECK(comb.body.lets[0].type.name == "f32");
  CHECK(dsl::ast::dump(*comb.body.lets[0].value) == "(member (name x) a)");
  CHECK(comb.body.lets[1].name == "u");
  CHECK(comb.body.lets[1].type.name.empty());
  CHECK((comb.body.lets[1].loc.line == 4 && comb.body.lets[1].loc.col == 9));
  CHECK(dsl::ast::dump(*comb.body.result) == "(+ (name t) (name u))");

  const dsl::ast::Item& conv = items[1];
  CHECK(conv.is_function);
  REQUIRE(conv.params.size() == 1);
  CHECK(conv.body.lets.empty());
  CHECK(dsl::ast::dump(*conv.body.result) == "(* (name v) (int 2))");

  const dsl::ast::Item& targets = items[2];
  CHECK_FALSE(targets.is_function);
  REQUIRE(targets.values.size() == 2);
  CHECK(dsl::ast::dump(*targets.values[1]) == "(name opencl)");

  CHECK(items[3].is_function);
  CHECK(items[3].params.empty());

  // 'return' must be last; a block needs one.
  CHECK_FALSE(errors_of("scan s { type = i32; combine(x, y) { let a = x; } identity = 0; }").empty());
  CHECK_FALSE(errors_of("scan s { type = i32; combine(x, y) { return x; let a = y; } identity = 0; }").empty());
}

TEST_CASE("parser: ast::dump of a small file", "[dsl][parser]") {
  const std::string text =
      "type P { a: f32, b: i32 }\n"
      "scan s {\n"
      "  type = P;\n"
      "  combine(x, y) { let t = x; return P { a: t.a, b: y.b }; }\n"
      "  level = warp(8);\n"
      "}\n";
  const std::string want =
      "(type P @1:6\n"
      "  (field a f32)\n"
      "  (field b i32))\n"
      "(scan s @2:6\n"
      "  (type @3:3 (name P))\n"
      "  (combine @4:3 (params x y)\n"
      "    (let t (name x))\n"
      "    (construct P a:(member (name t) a) b:(member (name y) b)))\n"
      "  (level @5:3 (call warp (int 8))))\n";
  CHECK(dsl::ast::dump(parse_ok(text)) == want);
}

TEST_CASE("parser: reports several syntax errors in one run and recovers", "[dsl][parser][diagnostics]") {
  const std::string text =
      "scan a { type = i32 op = add; }\n"       // missing ';' (at 1:20)
      "scan b { type = ; op = add; }\n"         // missing value (at 2:17)
      "scan c { type = i32; op = add; }\n"      // fine
      "scan d { type = i32; op = (1 + ); }\n";  // bad expression (at 4:32)
  dsl::Document doc = dsl::load("multi.scan", text);
  INFO(doc.diagnostics().render());
  std::vector<dsl::Diagnostic> d = doc.diagnostics().sorted();
  REQUIRE(d.size() == 3);
  CHECK((d[0].loc.line == 1 && d[0].loc.col == 20));
  CHECK(contains(d[0].message, "expected ';'"));
  CHECK((d[1].loc.line == 2 && d[1].loc.col == 17));
  CHECK(contains(d[1].message, "expected an expression"));
  CHECK((d[2].loc.line == 4 && d[2].loc.col == 32));
  CHECK(doc.find("c") != nullptr);
}

// ===========================================================================
// Checker
// ===========================================================================

TEST_CASE("checker: defaults filled in per level", "[dsl][checker]") {
  SECTION("device (the default level)") {
    dsl::Spec s = spec_of("scan s { type = i32; op = add; }");
    CHECK(s.name == "s");
    CHECK(s.file == "test.scan");
    CHECK(s.level == dsl::Level::Device);
    CHECK(s.algorithm == dsl::Algorithm::DecoupledLookback);
    CHECK(s.threads == 0);  // auto
    CHECK(s.items == 0);    // auto
    CHECK(s.segment_size() == 0);
    CHECK(s.mode == dsl::Mode::Inclusive);
    CHECK(s.has_inclusive());
    CHECK_FALSE(s.has_exclusive());
    CHECK_FALSE(s.aggregate);
    CHECK_FALSE(s.running_total);
    CHECK(s.targets == std::vector<dsl::Target>{dsl::Target::Cuda, dsl::Target::OpenCL});
    CHECK_FALSE(s.deterministic);
    CHECK(s.type == dsl::Type::scalar(dsl::ScalarKind::I32));
    CHECK(s.input == s.type);
    CHECK_FALSE(s.convert.has_value());
    REQUIRE(s.op.has_value());
    CHECK(*s.op == dsl::BuiltinOp::Add);
    REQUIRE(s.identity != nullptr);
    CHECK(s.identity->lit.bits == 0u);
    REQUIRE(s.init != nullptr);
    CHECK(*s.init == *s.identity);  // no init: the identity seeds every scan
    REQUIRE(s.combine.body != nullptr);
    CHECK(s.combine.params == std::vector<std::string>{"x", "y"});
    CHECK(dsl::to_string(*s.combine.body) == "x + y");
    CHECK(dsl::to_string(*s.identity) == "0");
  }
  SECTION("device with explicit auto") {
    dsl::Spec s = spec_of("scan s { type = i32; op = add; level = device; threads = auto; items = auto; }");
    CHECK(s.threads == 0);
    CHECK(s.items == 0);
    dsl::Spec t = spec_of("scan s { type = i32; op = add; threads = 128; items = 4; }");
    CHECK(t.threads == 128);
    CHECK(t.items == 4);
  }
  SECTION("block") {
    dsl::Spec s = spec_of("scan s { type = i32; op = add; level = block; }");
    CHECK(s.level == dsl::Level::Block);
    CHECK(s.algorithm == dsl::Algorithm::Raking);
    CHECK(s.threads == 256);
    CHECK(s.items == 1);
    CHECK(s.segment_size() == 256u);
    dsl::Spec t = spec_of("scan s { type = i32; op = add; level = block; threads = 96; items = 3; }");
    CHECK(t.segment_size() == 288u);
  }
  SECTION("warp") {
    dsl::Spec s = spec_of("scan s { type = i32; op = add; level = warp; }");
    CHECK(s.level == dsl::Level::Warp);
    CHECK(s.algorithm == dsl::Algorithm::KoggeStone);
    CHECK(s.warp_width == 32);
    CHECK(s.items == 1);
    CHECK(s.segment_size() == 32u);
    dsl::Spec w = spec_of("scan s { type = i32; op = add; level = warp(4); items = 2; }");
    CHECK(w.warp_width == 4);
    CHECK(w.items == 2);
    CHECK(w.segment_size() == 8u);
  }
  SECTION("explicit algorithms must belong to the level") {
    CHECK(spec_of("scan s { type = i32; op = add; level = block; algorithm = blelloch; threads = 128; }").algorithm ==
          dsl::Algorithm::Blelloch);
    std::vector<std::string> e = errors_of("scan s { type = i32; op = add; level = block; algorithm = kogge_stone; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "warp-level algorithm"));
    e = errors_of("scan s { type = i32; op = add; level = block; algorithm = blelloch; threads = 96; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "power-of-two"));
    e = errors_of("scan s { type = i32; op = add; level = warp(3); }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "power of two"));
    e = errors_of("scan s { type = i32; op = add; level = block; threads = 2048; }");
    REQUIRE(e.size() == 1);
    e = errors_of("scan s { type = i32; op = add; level = block; threads = auto; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "only allowed for device-level"));
  }
}

TEST_CASE("checker: literals take their type from context", "[dsl][checker]") {
  SECTION("f16 literals are rounded to half precision") {
    dsl::Spec s = spec_of("scan s { type = f16; op = add; init = 0.1; }");
    // 0.1 in binary16 is 0x2E66 = 1638 / 16384.
    CHECK(s.init->type == dsl::Type::scalar(dsl::ScalarKind::F16));
    CHECK(s.init->lit.value == 1638.0 / 16384.0);
    CHECK(spec_of("scan s { type = f16; op = add; init = 65504; }").init->lit.value == 65504.0);
    CHECK(spec_of("scan s { type = f16; op = add; init = 1.00048828125; }").init->lit.value == 1.0);  // tie -> even
    CHECK(spec_of("scan s { type = f16; op = add; init = 1.00146484375; }").init->lit.value ==
          1.001953125);  // 1 + 3*2^-11: tie -> even (up)
    std::vector<std::string> e = errors_of("scan s { type = f16; op = add; init = 70000.0; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "out of range for f16"));
  }
  SECTION("f32 literals are rounded to single precision") {
    dsl::Spec s = spec_of("scan s { type = f32; op = add; init = 0.1; }");
    CHECK(s.init->lit.value == static_cast<double>(0.1f));
    CHECK(s.init->lit.value != 0.1);
  }
  SECTION("limits: i32.min, u8.max, f32.max, -inf") {
    CHECK(spec_of("scan s { type = i32; op = add; init = i32.min; }").init->lit.bits ==
          static_cast<uint64_t>(int64_t{-2147483648LL}));
    CHECK(spec_of("scan s { type = u8; op = add; init = u8.max; }").init->lit.bits == 255u);
    CHECK(spec_of("scan s { type = i16; op = add; init = i16.max; }").init->lit.bits == 32767u);
    CHECK(spec_of("scan s { type = f32; op = add; init = f32.max; }").init->lit.value == 3.4028234663852886e38);
    dsl::Spec m = spec_of("scan s { type = f32; combine(x, y) = max(x, y); identity = -inf; }");
    CHECK(std::isinf(m.identity->lit.value));
    CHECK(m.identity->lit.value < 0);
    dsl::Spec n = spec_of("scan s { type = f64; op = add; init = nan; }");
    CHECK(std::isnan(n.init->lit.value));
  }
  SECTION("a literal in an expression takes the other operand's type") {
    dsl::Spec s = spec_of("scan s { type = u8; combine(x, y) = x + y * 2; identity = 0; }");
    // (x + (y * 2)) with the 2 typed u8: printed as u8(2).
    CHECK(dsl::to_string(*s.combine.body) == "x + y * u8(2)");
    CHECK(s.combine.body->args[1]->args[1]->type == dsl::Type::scalar(dsl::ScalarKind::U8));
    dsl::Spec f = spec_of("scan s { type = f32; combine(x, y) = x > 0 ? x + y : y; identity = 0; }");
    CHECK(f.identity->type == dsl::Type::scalar(dsl::ScalarKind::F32));
  }
  SECTION("wrong literals are errors") {
    std::vector<std::string> e = errors_of("scan s { type = u8; op = add; init = 256; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "out of range for u8"));
    e = errors_of("scan s { type = u32; op = add; init = -1; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "out of range"));
    e = errors_of("scan s { type = i32; op = add; init = 1.5; }");
    REQUIRE(e.size() == 1);
    CHECK(contains(e[0], "floating-point literal"));
    e = errors_of("scan s { type = i32; op = add; init = inf; }");
    REQUIRE(e.size() == 1);
    e = errors_of("scan s { type = u64; op = add; init = 18446744073709551616; }");
    REQUIRE(e.size() == 1);
  }
}

TEST_CASE("checker: f16 literals are rounded once, not through f32", "[dsl][checker]") {
  // Regression: 1 + 2^-11 + 1e-14 is just above the halfway point between 1 and
  // 1 + 2^-10, so it must round up; rounded to f32 first it becomes exactly the
  // halfway point and then rounds to even (1.0).
  dsl::Spec s = spec_of("scan s { type = f16; op = add; init = 1.00048828125001; }");
  CHECK(s.init->lit.value == 1.0009765625);
  CHECK(dsl::round_to_float_kind(dsl::ScalarKind::F16, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)) ==
        1.0009765625);
}

TEST_CASE("checker: implicit and explicit input conversion", "[dsl][checker]") {
  dsl::Spec imp = spec_of("scan s { type = u32; input = u8; op = add; }");
  CHECK(imp.input == dsl::Type::scalar(dsl::ScalarKind::U8));
  CHECK(imp.type == dsl::Type::scalar(dsl::ScalarKind::U32));
  REQUIRE(imp.convert.has_value());
  REQUIRE(imp.convert->body != nullptr);
  CHECK(imp.convert->body->kind == dsl::ExprKind::Convert);
  CHECK(imp.convert->body->type == imp.type);
  REQUIRE(imp.convert->body->args.size() == 1);
  CHECK(imp.convert->body->args[0]->kind == dsl::ExprKind::Param);
  CHECK(imp.convert->param_types == std::vector<dsl::Type>{imp.input});
  CHECK(dsl::to_string(*imp.convert->body) == "u32(v)");

  // Written out, the same conversion gives the same Spec.
  dsl::Spec same = spec_of("scan s { type = u32; input = u8; op = add; convert(v) = u32(v); }");
  CHECK(same == imp);
  dsl::Spec exp = spec_of("scan s { type = u32; input = u8; op = add; convert(v) = u32(v) * 2; }");
  CHECK(dsl::to_string(*exp.convert->body) == "u32(v) * u32(2)");
  CHECK_FALSE(exp == imp);

  // Same type in and out: no conversion at all; conversion to itself is dropped.
  CHECK_FALSE(spec_of("scan s { type = u32; op = add; }").convert.has_value());
  dsl::Spec self = spec_of("scan s { type = i32; combine(x, y) = i32(x) + y; identity = 0; }");
  CHECK(dsl::to_string(*self.combine.body) == "x + y");

  // A scalar to a struct needs an explicit convert.
  std::vector<std::string> e = errors_of(
      "type P { a: i32, b: i32 }\nscan s { type = P; input = i32; combine(x, y) = y; identity = P { 0, 0 }; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "add 'convert(v) = ...;'"));
  dsl::Spec st = spec_of(
      "type P { a: i32, b: i32 }\n"
      "scan s { type = P; input = i32; convert(v) = P { a: v, b: 1 }; combine(x, y) = y; identity = P { 0, 0 }; }");
  REQUIRE(st.convert.has_value());
  CHECK(st.convert->body->kind == dsl::ExprKind::Construct);

  // Mixed types in an expression are not converted silently.
  e = errors_of("scan s { type = i64; input = i32; op = add; convert(v) = v; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "returns i32 but must return i64"));
  e = errors_of("scan s { type = i32; combine(x, y) = x + f32(y); identity = 0; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "different types"));
}

TEST_CASE("checker: deterministic float device scans use reduce_then_scan", "[dsl][checker]") {
  CHECK(spec_of("scan s { type = f32; op = add; deterministic = true; }").algorithm == dsl::Algorithm::ReduceThenScan);
  CHECK(spec_of("scan s { type = f32; op = add; deterministic = true; }").deterministic);
  CHECK(spec_of("type A { a: f32, b: i32 }\n"
                "scan s { type = A; combine(x, y) = y; identity = A { 0.0, 0 }; deterministic = true; }")
            .algorithm == dsl::Algorithm::ReduceThenScan);
  // Integers are deterministic anyway; so is a block (fixed order); f32 without the flag keeps the default.
  CHECK(spec_of("scan s { type = i32; op = add; deterministic = true; }").algorithm ==
        dsl::Algorithm::DecoupledLookback);
  CHECK(spec_of("scan s { type = f32; op = add; level = block; deterministic = true; }").algorithm ==
        dsl::Algorithm::Raking);
  CHECK(spec_of("scan s { type = f32; op = add; }").algorithm == dsl::Algorithm::DecoupledLookback);
  // decoupled_lookback takes its fixed-order look-back: asked for, or where only it makes the scan (a shape,
  // segments, fused inputs or outputs); an explicit shape = flat still chooses reduce_then_scan.
  for (const char* rest :
       {"algorithm = decoupled_lookback;", "shape = rows;", "shape = strided;", "segments = offsets;",
        "segments = keys;", "scatter(x) = x; scatter_at(x, i) = i;", "input = f32, f32; convert(a, b) = a * b;"}) {
    INFO(rest);
    const dsl::Spec s = spec_of(std::string("scan s { type = f32; op = add; deterministic = true; ") + rest + " }");
    CHECK(s.algorithm == dsl::Algorithm::DecoupledLookback);
    CHECK(s.combines_floats());
  }
  CHECK(spec_of("scan s { type = f32; op = add; deterministic = true; shape = flat; }").algorithm ==
        dsl::Algorithm::ReduceThenScan);
  // An integer type whose combine computes with floats still counts as float math.
  CHECK(spec_of("scan s { type = i32; combine(x, y) = i32(f32(x) + f32(y)); identity = 0; deterministic = true; }")
            .algorithm == dsl::Algorithm::ReduceThenScan);
  // A shape with reduce_then_scan asked for is still refused.
  std::vector<std::string> e =
      errors_of("scan s { type = f32; op = add; algorithm = reduce_then_scan; deterministic = true; shape = rows; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "decoupled_lookback only"));
}

TEST_CASE("checker: outputs, modes, init, targets", "[dsl][checker]") {
  dsl::Spec s = spec_of(
      "scan s { type = u32; op = add; level = block; mode = both; outputs = aggregate, running_total;"
      " targets = opencl; }");
  CHECK(s.mode == dsl::Mode::Both);
  CHECK(s.has_inclusive());
  CHECK(s.has_exclusive());
  CHECK(s.aggregate);
  CHECK(s.running_total);
  CHECK(s.targets == std::vector<dsl::Target>{dsl::Target::OpenCL});
  CHECK_FALSE(s.targets_backend(dsl::Target::Cuda));
  dsl::Spec x = spec_of("scan s { type = i32; op = add; mode = exclusive; init = 7; outputs = none; }");
  CHECK_FALSE(x.has_inclusive());
  CHECK(x.init->lit.bits == 7u);
  CHECK_FALSE(x.aggregate);

  std::vector<std::string> e = errors_of("scan s { type = i32; op = add; init = 1; outputs = running_total; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "'init' and 'outputs = running_total'"));
  e = errors_of("scan s { type = i16; op = add; level = block; outputs = running_total; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "4 or 8 bytes (this one has 2)"));
  // Other operators on 4 or 8 bytes: a compare-and-swap loop.
  CHECK(errors_of("scan s { type = f32; op = add; level = block; outputs = running_total; }").empty());
  CHECK(errors_of("type P { a: f32, b: f32 }\nscan s { type = P; combine(x, y) = P { a: x.a * y.a, b: x.b + y.b };"
                  " identity = P { a: 1.0, b: 0.0 }; level = warp; outputs = running_total; }")
            .empty());
  e = errors_of("scan s { type = i32; op = add; mode = inclusiv; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "did you mean 'inclusive'?"));
  e = errors_of("scan s { type = i32; op = add; level = warp; algorithm = coalesced; }");
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "only on CUDA"));
  CHECK(spec_of("scan s { type = i32; op = add; level = warp; algorithm = coalesced; targets = cuda; }").algorithm ==
        dsl::Algorithm::Coalesced);
}

TEST_CASE("checker: every example in examples/ loads cleanly", "[dsl][checker][examples]") {
  std::vector<std::filesystem::path> files = example_files();
  REQUIRE(files.size() >= 8);
  for (const auto& path : files) {
    INFO("example " << path.string());
    std::string text = read_file(path);
    dsl::Document doc = dsl::load(path.filename().string(), text);
    INFO(doc.diagnostics().render());
    CHECK(doc.ok());
    CHECK(doc.diagnostics().all().empty());
    CHECK_FALSE(doc.specs().empty());
    CHECK(doc.specs().size() == doc.ast().scans.size());
    for (const dsl::Spec& s : doc.specs()) {
      CHECK(doc.find(s.name) == &s);
      CHECK(s.combine.body != nullptr);
      CHECK(s.identity != nullptr);
      CHECK(dsl::is_constant(*s.identity));
    }
  }
  // Facts about particular examples, from their text.
  dsl::Spec opencl = spec_of(read_file(std::filesystem::path(SCANGEN_EXAMPLES_DIR) / "opencl_spec_example.scan"));
  CHECK(opencl.level == dsl::Level::Block);
  CHECK(opencl.threads == 8);
  CHECK(opencl.segment_size() == 8u);
  CHECK(opencl.mode == dsl::Mode::Both);
  dsl::Spec matrix = spec_of(read_file(std::filesystem::path(SCANGEN_EXAMPLES_DIR) / "matrix2x2.scan"));
  CHECK(matrix.algorithm == dsl::Algorithm::WarpScans);
  CHECK(matrix.type.size() == 16u);
  CHECK(matrix.segment_size() == 512u);
}

TEST_CASE("checker: struct layout follows C rules", "[dsl][checker]") {
  dsl::Spec s = spec_of(
      "type In { c: u8, d: f64 }\n"
      "type Out { a: u8, b: i16, in: In, e: u16 }\n"
      "scan s { type = Out; combine(x, y) = y; identity = Out { 0, 0, In { 0, 0.0 }, 0 }; }");
  const dsl::StructType& out = s.type.struct_type();
  REQUIRE(out.fields.size() == 4);
  CHECK(out.fields[0].offset == 0u);   // a: u8
  CHECK(out.fields[1].offset == 2u);   // b: i16
  CHECK(out.fields[2].offset == 8u);   // in: In (align 8)
  CHECK(out.fields[3].offset == 24u);  // e: u16 after In (size 16)
  CHECK(out.align == 8u);
  CHECK(out.size == 32u);
  std::vector<dsl::ScalarSlot> flat = dsl::flatten(s.type);
  REQUIRE(flat.size() == 5);
  CHECK(flat[2].path == "in.c");
  CHECK(flat[2].offset == 8u);
  CHECK(flat[3].path == "in.d");
  CHECK(flat[3].offset == 16u);
  CHECK(flat[4].offset == 24u);
}

// ===========================================================================
// Spec as a value
// ===========================================================================

namespace {

const char* const kBaseBuiltin =
    "scan s {\n"
    "  type = i32;\n"
    "  op = add;\n"
    "  level = block;\n"
    "  threads = 128;\n"
    "  items = 2;\n"
    "  mode = inclusive;\n"
    "  init = 5;\n"
    "  outputs = aggregate;\n"
    "  targets = cuda, opencl;\n"
    "  deterministic = false;\n"
    "}\n";

const char* const kBaseCombine =
    "type P { a: i32, b: i32 }\n"
    "scan s {\n"
    "  type = P;\n"
    "  combine(x, y) = P { a: x.a + y.a, b: max(x.b, y.b) };\n"
    "  identity = P { a: 0, b: i32.min };\n"
    "  level = device;\n"
    "}\n";

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("Spec: to_string shows every resolved setting", "[dsl][spec]") {
  dsl::Spec s = spec_of(kBaseBuiltin);
  const std::string text = s.to_string();
  INFO(text);
  for (const char* want :
       {"scan s {", "type = i32;", "input = i32;", "op = add;", "combine(x, y) = x + y;", "identity = 0;",
        "level = block;", "algorithm = raking;", "threads = 128;", "items = 2;", "mode = inclusive;", "init = 5;",
        "outputs = aggregate;", "targets = cuda, opencl;", "deterministic = false;"}) {
    INFO("missing: " << want);
    CHECK(contains(text, want));
  }

  // Defaults that were never written appear too.
  dsl::Spec d = spec_of("scan t { type = u8; op = max; level = warp(8); }");
  const std::string dt = d.to_string();
  INFO(dt);
  for (const char* want : {"type = u8;", "op = max;", "identity = u8(0);", "level = warp(8);",
                           "algorithm = kogge_stone;", "threads = 32;", "items = 1;", "mode = inclusive;",
                           "init = u8(0);", "outputs = none;", "targets = cuda, opencl;", "deterministic = false;"}) {
    INFO("missing: " << want);
    CHECK(contains(dt, want));
  }

  // Struct definitions, with their layout, and a combine written with lets.
  dsl::Spec c = spec_of(
      "type P { a: f32, b: u8 }\n"
      "scan p { type = P; input = f32; convert(v) = P { a: v, b: 1 };\n"
      "  combine(x, y) { let s: f32 = x.a + y.a; return P { a: s, b: y.b }; }\n"
      "  identity = P { a: 0.0, b: 0 }; outputs = running_total; level = device; threads = 64; }");
  const std::string ct = c.to_string();
  INFO(ct);
  for (const char* want :
       {"type P { a: f32, b: u8 }", "size 8, align 4, offsets 0 4", "input = f32;",
        "convert(v) = P { a: v, b: u8(1) };", "let s: f32 = x.a + y.a;", "return P { a: s, b: y.b };",
        "identity = P { a: f32(0.0), b: u8(0) };", "outputs = running_total;", "threads = 64;", "items = auto;",
        "level = device;", "algorithm = decoupled_lookback;"}) {
    INFO("missing: " << want);
    CHECK(contains(ct, want));
  }
}

TEST_CASE("Spec: equal text gives equal specs with equal hashes", "[dsl][spec]") {
  for (const char* text : {kBaseBuiltin, kBaseCombine}) {
    dsl::Spec a = spec_of(text);
    dsl::Spec b = spec_of(text);
    CHECK(a == b);
    CHECK_FALSE(a != b);
    CHECK(a.hash() == b.hash());
    CHECK(std::hash<dsl::Spec>{}(a) == std::hash<dsl::Spec>{}(b));
    CHECK(a.to_string() == b.to_string());
  }
  // Layout and comments don't matter; neither does the file name.
  dsl::Spec a = spec_of("scan s { type = i32; op = add; }");
  dsl::Document other =
      dsl::load("elsewhere.scan", "# hello\nscan s {\n  op = add; // the operator\n  type = i32;\n}\n");
  REQUIRE(other.ok());
  CHECK(a == other.specs()[0]);
  CHECK(a.hash() == other.specs()[0].hash());
  // Writing a default out changes nothing.
  dsl::Spec d = spec_of(
      "scan s { type = i32; input = i32; op = add; level = device; algorithm = decoupled_lookback; threads = auto;"
      " items = auto; mode = inclusive; init = 0; outputs = none; targets = cuda, opencl; deterministic = false; }");
  CHECK(a == d);
  CHECK(a.hash() == d.hash());
}

TEST_CASE("Spec: changing any one setting changes equality and hash", "[dsl][spec]") {
  struct Variant {
    const char* what;
    std::string text;
  };
  const std::string b = kBaseBuiltin;
  const std::string c = kBaseCombine;
  const std::vector<Variant> builtin_variants = {
      {"name", replace_once(b, "scan s", "scan t")},
      {"type", replace_once(b, "type = i32", "type = i64")},
      {"input", replace_once(b, "type = i32;", "type = i32; input = u8;")},
      {"op", replace_once(b, "op = add", "op = max")},
      {"level", replace_once(b, "level = block", "level = device")},
      {"warp level", replace_once(b, "level = block", "level = warp(4)")},
      {"warp width", replace_once(b, "level = block", "level = warp(8)")},
      {"algorithm", replace_once(b, "level = block;", "level = block; algorithm = hillis_steele;")},
      {"threads", replace_once(b, "threads = 128", "threads = 64")},
      {"items", replace_once(b, "items = 2", "items = 3")},
      {"mode", replace_once(b, "mode = inclusive", "mode = both")},
      {"init", replace_once(b, "init = 5", "init = 6")},
      {"init default", replace_once(b, "init = 5;", "")},
      {"outputs", replace_once(b, "outputs = aggregate", "outputs = none")},
      {"outputs running_total",
       replace_once(replace_once(b, "outputs = aggregate", "outputs = running_total"), "init = 5;", "")},
      {"targets", replace_once(b, "targets = cuda, opencl", "targets = cuda")},
      {"deterministic", replace_once(b, "deterministic = false", "deterministic = true")},
      {"reverse", replace_once(b, "deterministic = false", "deterministic = false; reverse = true")},
      {"head_flags", replace_once(b, "deterministic = false", "deterministic = false; head_flags = true")},
  };
  const std::vector<Variant> combine_variants = {
      {"combine body", replace_once(c, "x.a + y.a", "y.a + x.a")},
      {"combine body operator", replace_once(c, "max(x.b, y.b)", "min(x.b, y.b)")},
      {"combine parameter names", replace_once(replace_once(c, "combine(x, y)", "combine(p, q)"),
                                               "x.a + y.a, b: max(x.b, y.b)", "p.a + q.a, b: max(p.b, q.b)")},
      {"identity", replace_once(c, "b: i32.min", "b: -2147483647")},
      {"field type", replace_once(replace_once(c, "b: i32 }", "b: i64 }"), "b: i32.min", "b: i64.min")},
      {"field name",
       replace_once(replace_once(replace_once(c, "b: i32 }", "c: i32 }"), "b: max(x.b, y.b)", "c: max(x.c, y.c)"),
                    "b: i32.min", "c: i32.min")},
      {"deterministic (struct)", replace_once(c, "level = device;", "level = device; deterministic = true;")},
      {"level (struct)", replace_once(c, "level = device;", "level = block;")},
  };
  auto check_variants = [](const std::string& base_text, const std::vector<Variant>& variants) {
    dsl::Spec base = spec_of(base_text);
    std::unordered_set<dsl::Spec> all{base};
    for (const Variant& v : variants) {
      INFO("changed: " << v.what << "\n" << v.text);
      dsl::Spec other = spec_of(v.text);
      CHECK_FALSE(other == base);
      CHECK(other != base);
      CHECK(other.hash() != base.hash());
      CHECK(other.to_string() != base.to_string());
      CHECK(all.insert(other).second);  // distinct from every other variant too
    }
    CHECK(all.size() == variants.size() + 1);
  };
  check_variants(b, builtin_variants);
  check_variants(c, combine_variants);
}

TEST_CASE("Spec: copies are equal, independent of the Document, and usable in unordered_set", "[dsl][spec]") {
  dsl::Spec copy;
  dsl::Spec original_copy;
  {
    dsl::Document doc = load_ok(kBaseCombine);
    const dsl::Spec& orig = doc.specs()[0];
    copy = orig;
    original_copy = dsl::Spec(orig);
    CHECK(copy == orig);
    CHECK(copy.hash() == orig.hash());
    CHECK(copy.to_string() == orig.to_string());
  }  // the document (and its source text) is gone
  CHECK(copy == original_copy);
  CHECK(contains(copy.to_string(), "max(x.b, y.b)"));
  dsl::Spec moved = std::move(original_copy);
  CHECK(moved == copy);

  std::unordered_set<dsl::Spec> set;
  CHECK(set.insert(copy).second);
  CHECK_FALSE(set.insert(spec_of(kBaseCombine)).second);  // equal: not inserted again
  CHECK(set.insert(spec_of(kBaseBuiltin)).second);
  CHECK(set.size() == 2);
  CHECK(set.count(spec_of(kBaseBuiltin)) == 1);
  CHECK(set.count(spec_of("scan s { type = i32; op = add; }")) == 0);
}

TEST_CASE("Spec: let names are part of equality and of the hash", "[dsl][spec]") {
  // The printed form, which hash() is built from, shows let names; equality
  // must see them too, or equal specs could hash differently.
  dsl::Spec a = spec_of("scan s { type = i32; combine(x, y) { let a = x + y; return a; } identity = 0; }");
  dsl::Spec b = spec_of("scan s { type = i32; combine(x, y) { let b = x + y; return b; } identity = 0; }");
  dsl::Spec a2 = spec_of("scan s { type = i32; combine(x, y) { let a = x + y; return a; } identity = 0; }");
  CHECK_FALSE(a == b);
  CHECK(a.hash() != b.hash());
  CHECK(a == a2);
  CHECK(a.hash() == a2.hash());
  std::unordered_set<dsl::Spec> set{a};
  CHECK(set.count(a2) == 1);
  CHECK(set.count(b) == 0);
}

TEST_CASE("Spec: to_string parses back to an equal Spec", "[dsl][spec]") {
  std::vector<std::string> texts;
  for (const auto& path : example_files()) texts.push_back(read_file(path));
  texts.push_back(kBaseBuiltin);
  texts.push_back(kBaseCombine);
  texts.push_back("scan w { type = f16; op = min; level = warp(16); items = 4; mode = both; init = 0.1; }");
  texts.push_back(
      "scan u { type = u64; op = xor; level = block; outputs = aggregate, running_total; targets = cuda; }");
  texts.push_back(
      "type I { x: i8, y: f64 }\ntype O { i: I, z: u16 }\n"
      "scan n { type = O; input = i8;\n"
      "  convert(v) = O { i: I { x: v, y: f64(v) }, z: 1 };\n"
      "  combine(a, b) { let s: f64 = a.i.y + b.i.y; let t = s * 0.5; return O { i: I { x: b.i.x, y: t }, z: a.z | b.z "
      "}; }\n"
      "  identity = O { i: I { x: 0, y: -inf }, z: 0 }; deterministic = true; }");
  for (const std::string& text : texts) {
    dsl::Document doc = load_ok(text);
    for (const dsl::Spec& s : doc.specs()) {
      const std::string printed = s.to_string();
      INFO("original:\n" << text << "\nprinted:\n" << printed);
      dsl::Document again = dsl::load("printed.scan", printed);
      INFO(again.diagnostics().render());
      REQUIRE(again.ok());
      const dsl::Spec* back = again.find(s.name);
      REQUIRE(back != nullptr);
      CHECK(*back == s);
      CHECK(back->hash() == s.hash());
      CHECK(back->to_string() == printed);
    }
  }
}

TEST_CASE("Spec: to_string keeps the type of explicitly converted literals", "[dsl][spec]") {
  // Where a bare literal would take another type from its context when read
  // back, the printed form must name its type: u8(i32(300)) must not print as
  // u8(300) (out of range for u8), x << i32(300) on u8 not as x << 300, and
  // -i32(5) must come back as the same expression.
  const char* const texts[] = {
      "scan s { type = u8; combine(x, y) = x + u8(i32(300)); identity = 0; }",
      "scan s { type = u8; combine(x, y) = x << i32(300); identity = 0; }",
      "scan s { type = u32; combine(x, y) = x + u32(i32(-1)); identity = 0; }",
      "scan s { type = f32; combine(x, y) = x + f32(f64(1e300)); identity = 0.0; }",
      "scan s { type = i32; combine(x, y) = x + -i32(5); identity = 0; }",
  };
  for (const char* text : texts) {
    dsl::Spec s = spec_of(text);
    const std::string printed = s.to_string();
    INFO("original: " << text << "\nprinted:\n" << printed);
    dsl::Document again = dsl::load("printed.scan", printed);
    INFO(again.diagnostics().render());
    CHECK(again.ok());
    const dsl::Spec* back = again.find("s");
    CHECK((back != nullptr && *back == s));
  }
}

// ===========================================================================
// Diagnostics
// ===========================================================================

TEST_CASE("diagnostics: rendered as file:L:C: error: message, source line, caret", "[dsl][diagnostics]") {
  const std::string text =
      "scan s {\n"
      "  type = i32;\n"
      "  op = add;\n"
      "  bogus = 1;\n"
      "}\n";
  dsl::Document doc = dsl::load("dir/bad.scan", text);
  REQUIRE(doc.diagnostics().error_count() == 1);
  const dsl::Diagnostic& d = doc.diagnostics().all()[0];
  CHECK(d.severity == dsl::Severity::Error);
  CHECK((d.loc.line == 4 && d.loc.col == 3));
  const std::string r = doc.diagnostics().render();
  std::istringstream lines(r);
  std::string l1, l2, l3, rest;
  std::getline(lines, l1);
  std::getline(lines, l2);
  std::getline(lines, l3);
  CHECK(l1.rfind("dir/bad.scan:4:3: error: unknown setting 'bogus'", 0) == 0);
  CHECK(l2 == "    bogus = 1;");
  CHECK(l3 == "    ^");
  CHECK_FALSE(std::getline(lines, rest));
  CHECK(r.back() == '\n');

  // The missing ';' is reported at the end of the previous token.
  dsl::Document semi = dsl::load("semi.scan", "scan s {\n  type = i32\n  op = add;\n}\n");
  REQUIRE(semi.diagnostics().error_count() == 1);
  CHECK(semi.diagnostics().render() ==
        "semi.scan:2:13: error: expected ';' after the value of 'type', found identifier 'op'\n"
        "    type = i32\n"
        "              ^\n");

  // Tabs are kept in the caret line so the caret stays under the column.
  dsl::Document tab = dsl::load("tab.scan", "scan s {\n\t\ttype = i32; op = add; level = nowhere;\n}\n");
  REQUIRE(tab.diagnostics().error_count() == 1);
  std::string tr = tab.diagnostics().render();
  INFO(tr);
  CHECK(contains(tr, "tab.scan:2:33: error: unknown level 'nowhere'"));
  CHECK(contains(tr, "\n  \t\ttype = i32; op = add; level = nowhere;\n  \t\t" + std::string(30, ' ') + "^\n"));

  // A note renders as "note:" and follows its error.
  dsl::Document dup = dsl::load("dup.scan", "scan s {\n  type = i32;\n  op = add;\n  op = max;\n}\n");
  CHECK(dup.diagnostics().render() ==
        "dup.scan:4:3: error: 'op' is set twice in scan 's'; keep one\n"
        "    op = max;\n"
        "    ^\n"
        "dup.scan:3:3: note: first set here\n"
        "    op = add;\n"
        "    ^\n");

  // A diagnostic without a position has no source line.
  dsl::SourceFile f("nowhere.scan", "x");
  dsl::Diagnostic nd{dsl::Severity::Error, {}, "something"};
  CHECK(dsl::Diagnostics::render(f, nd) == "nowhere.scan: error: something\n");
}

TEST_CASE("diagnostics: several errors in one run, sorted by position", "[dsl][diagnostics]") {
  const std::string text =
      "scan a { type = i32; op = bogus; }\n"           // checker: unknown operator (1:27)
      "scan b { type = i33; op = add; }\n"             // checker: unknown type (2:17)
      "scan c { type = i32 op = add; }\n"              // parser: missing ';' (3:20)
      "scan d { type = i32; op = add; mode = up; }\n"  // checker: unknown mode (4:39)
      "scan e { type = i32; op = add; $ }\n";          // lexer: bad character (5:32)
  dsl::Document doc = dsl::load("many.scan", text);
  const dsl::Diagnostics& diags = doc.diagnostics();
  INFO(diags.render());
  CHECK_FALSE(doc.ok());
  REQUIRE(diags.error_count() == 5);
  // Reported in phase order: lexer, parser, then checker.
  const std::vector<dsl::Diagnostic>& all = diags.all();
  REQUIRE(all.size() == 5);
  CHECK(all[0].loc.line == 5);
  CHECK(all[1].loc.line == 3);
  // Sorted: file order.
  std::vector<dsl::Diagnostic> sorted = diags.sorted();
  REQUIRE(sorted.size() == 5);
  const std::pair<int, int> where[] = {{1, 27}, {2, 17}, {3, 20}, {4, 39}, {5, 32}};
  for (size_t i = 0; i < sorted.size(); ++i) {
    INFO("diagnostic " << i << ": " << sorted[i].message);
    CHECK(sorted[i].loc.line == where[i].first);
    CHECK(sorted[i].loc.col == where[i].second);
  }
  CHECK(contains(sorted[0].message, "unknown operator 'bogus'"));
  CHECK(contains(sorted[1].message, "unknown type 'i33'"));
  CHECK(contains(sorted[2].message, "expected ';'"));
  CHECK(contains(sorted[3].message, "unknown mode 'up'"));
  CHECK(contains(sorted[4].message, "unexpected character '$'"));
  // render() follows the sorted order.
  const std::string r = diags.render();
  size_t prev = 0;
  for (const char* at :
       {"many.scan:1:27:", "many.scan:2:17:", "many.scan:3:20:", "many.scan:4:39:", "many.scan:5:32:"}) {
    size_t pos = r.find(at);
    INFO(at);
    REQUIRE(pos != std::string::npos);
    CHECK(pos >= prev);
    prev = pos;
  }
  // Scans with errors of their own give no Spec.
  CHECK(doc.find("a") == nullptr);
  CHECK(doc.find("b") == nullptr);
  CHECK(doc.find("d") == nullptr);
}

TEST_CASE("diagnostics: notes stay after their error when sorting", "[dsl][diagnostics]") {
  const std::string text =
      "scan s { type = i32; op = add; }\n"  // first declared here (note at 1:6)
      "scan t { type = i32; op = add; }\n"
      "scan s { type = i32; op = add; }\n"    // duplicate (error at 3:6)
      "scan u { type = nope; op = add; }\n";  // error at 4:17
  dsl::Document doc = dsl::load("notes.scan", text);
  std::vector<dsl::Diagnostic> d = doc.diagnostics().sorted();
  REQUIRE(d.size() == 3);
  CHECK(d[0].severity == dsl::Severity::Error);
  CHECK((d[0].loc.line == 3 && d[0].loc.col == 6));
  CHECK(d[1].severity == dsl::Severity::Note);
  CHECK((d[1].loc.line == 1 && d[1].loc.col == 6));
  CHECK(d[2].loc.line == 4);
  CHECK(doc.diagnostics().error_count() == 2);
  CHECK(doc.find("t") != nullptr);
}

// ===========================================================================
// Robustness
// ===========================================================================

TEST_CASE("robustness: empty input and comments only", "[dsl][robustness]") {
  for (const char* text : {"", "\n\n\n", "   \t  ", "# just a comment", "// one\n# two\n\n// three\n"}) {
    INFO("text: '" << text << "'");
    dsl::Document doc = dsl::load("empty.scan", text);
    CHECK(doc.ok());
    CHECK(doc.specs().empty());
    CHECK(doc.diagnostics().all().empty());
    CHECK(doc.find("anything") == nullptr);
  }
}

TEST_CASE("robustness: deeply nested parentheses give an error, not a crash", "[dsl][robustness]") {
  for (int depth : {100, 300, 10000, 100000}) {
    INFO("depth " << depth);
    const std::string text = "scan s { type = i32; op = add; init = " + std::string(static_cast<size_t>(depth), '(') +
                             "1" + std::string(static_cast<size_t>(depth), ')') + "; }\n";
    REQUIRE(runs_to_completion([&] { (void)dsl::load("deep.scan", text); }));
    std::vector<std::string> e = errors_of(text);
    if (depth <= 100) {
      CHECK(e.empty());
    } else {
      REQUIRE(e.size() == 1);
      CHECK(contains(e[0], "nested"));
    }
    // Unbalanced: only opening parentheses.
    const std::string open = "scan s { type = i32; init = " + std::string(static_cast<size_t>(depth), '(');
    REQUIRE(runs_to_completion([&] { (void)dsl::load("open.scan", open); }));
    CHECK_FALSE(dsl::load("open.scan", open).ok());
  }
  // Deep unary chains and deep '?:' chains too.
  const std::string neg = "scan s { type = i32; op = add; init = " + std::string(20000, '-') + "1; }";
  REQUIRE(runs_to_completion([&] { (void)dsl::load("neg.scan", neg); }));
  CHECK_FALSE(dsl::load("neg.scan", neg).ok());
  std::string cond = "scan s { type = i32; combine(x, y) = ";
  for (int i = 0; i < 5000; ++i) cond += "x > y ? x : ";
  cond += "y; identity = 0; }";
  REQUIRE(runs_to_completion([&] { (void)dsl::load("cond.scan", cond); }));
  CHECK_FALSE(dsl::load("cond.scan", cond).ok());
}

TEST_CASE("robustness: the nesting limit recovers after each error", "[dsl][robustness]") {
  // Each "too deeply nested" error must give back the depth it took, or after
  // 256 of them every later expression in the file would be rejected.
  std::string text;
  const std::string deep = std::string(300, '(') + "1" + std::string(300, ')');
  const int bad = 300;
  for (int i = 0; i < bad; ++i)
    text += "scan bad" + std::to_string(i) + " { type = i32; op = add; init = " + deep + "; }\n";
  text += "scan good { type = i32; op = add; }\n";
  dsl::Document doc = dsl::load("leak.scan", text);
  CHECK(doc.diagnostics().error_count() == bad);  // one per bad scan
  CHECK(doc.find("good") != nullptr);
  // The same text after one bad scan only: the good scan is fine.
  dsl::Document one = dsl::load("leak.scan", "scan bad { type = i32; op = add; init = " + deep +
                                                 "; }\n"
                                                 "scan good { type = i32; op = add; }\n");
  CHECK(one.diagnostics().error_count() == 1);
  CHECK(one.find("good") != nullptr);
}

TEST_CASE("robustness: long operator chains give a result or an error, not a crash", "[dsl][robustness]") {
  // Regression: `1 + 1 + ... + 1` is a left-deep tree; every later stage
  // recurses once per operator, and 10000 terms used to overflow the stack.
  for (int terms : {50, 1000, 10000, 100000}) {
    INFO("terms " << terms);
    std::string text = "scan s { type = i32; combine(x, y) = x";
    for (int i = 0; i < terms; ++i) text += " + y";
    text += "; identity = 0; }\n";
    REQUIRE(runs_to_completion([&] {
      dsl::Document doc = dsl::load("chain.scan", text);
      (void)doc.diagnostics().render();
      (void)dsl::ast::dump(doc.ast());
      for (const dsl::Spec& s : doc.specs()) (void)s.to_string();
    }));
    dsl::Document doc = dsl::load("chain.scan", text);
    if (terms <= 50) {
      INFO(doc.diagnostics().render());
      REQUIRE(doc.ok());
      // Left-associative: ((x + y) + y) + ...: the outermost right operand is y.
      const dsl::Expr& body = *doc.specs()[0].combine.body;
      CHECK(body.kind == dsl::ExprKind::Binary);
      CHECK(body.args[1]->kind == dsl::ExprKind::Param);
      CHECK(body.args[1]->index == 1);
    } else if (!doc.ok()) {
      std::vector<std::string> e = errors_of(text);
      REQUIRE(e.size() == 1);
      CHECK(contains(e[0], "too long"));
    }
  }
}

TEST_CASE("robustness: very long identifiers", "[dsl][robustness]") {
  const std::string name(100000, 'n');
  dsl::Spec s = spec_of("scan " + name + " { type = i32; op = add; }");
  CHECK(s.name == name);
  CHECK(s.name.size() == 100000u);
  CHECK(contains(s.to_string(), "scan " + name + " {"));

  const std::string bad = "scan s { type = i32; op = add; " + name + " = 1; }";
  REQUIRE(runs_to_completion([&] { (void)dsl::load("long.scan", bad); }));
  std::vector<std::string> e = errors_of(bad);
  REQUIRE(e.size() == 1);
  CHECK(contains(e[0], "unknown setting"));

  const std::string type_name(50000, 'T');
  dsl::Spec t = spec_of("type " + type_name + " { v: i32 }\nscan s { type = " + type_name +
                        "; combine(x, y) = y; identity = " + type_name + " { 0 }; }");
  CHECK(t.type.name() == type_name);
}

TEST_CASE("robustness: non-ASCII bytes are reported once, at their column", "[dsl][robustness]") {
  const std::string text = "scan s { type = i32; op = add; }  \xC3\xA9 \n";
  dsl::Document doc = dsl::load("utf8.scan", text);
  std::vector<dsl::Diagnostic> d = doc.diagnostics().sorted();
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == 1);
  CHECK(d[0].loc.col == static_cast<int>(text.find('\xC3')) + 1);
  CHECK(contains(d[0].message, "\\xc3"));
  // A comment may hold anything.
  CHECK(dsl::load("utf8.scan", "# \xE2\x88\x91 \xF0\x9F\x98\x80 \xFF\xFE\nscan s { type = i32; op = add; }\n").ok());
  // Inside a name: an error, and the rest still parses.
  dsl::Document in_name =
      dsl::load("utf8.scan", "scan caf\xC3\xA9 { type = i32; op = add; }\nscan t { type = i32; op = add; }");
  CHECK(in_name.diagnostics().error_count() == 1);
  CHECK(in_name.find("t") != nullptr);
  // Random high bytes everywhere: no crash.
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::string base =
      "type P { a: f32, b: i32 }\nscan s { type = P; combine(x, y) = P { x.a + y.a, y.b }; "
      "identity = P { 0.0, 0 }; level = block; }\n";
  for (int round = 0; round < 50; ++round) {
    std::string mutated = base;
    for (int k = 0; k < 5; ++k)
      mutated[rng() % mutated.size()] = static_cast<char>(0x80 + static_cast<int>(rng() % 128));
    INFO("mutated: " << mutated);
    REQUIRE(runs_to_completion([&] { (void)dsl::load("rand.scan", mutated).diagnostics().render(); }));
    CHECK_FALSE(dsl::load("rand.scan", mutated).ok());
  }
}

TEST_CASE("robustness: NUL bytes in the text", "[dsl][robustness]") {
  std::string text = "scan s { type = i32;";
  text += '\0';
  text += " op = add; }\nscan t { type = i32; op = add; }\n";
  dsl::Document doc = dsl::load("nul.scan", text);
  std::vector<dsl::Diagnostic> d = doc.diagnostics().sorted();
  REQUIRE(d.size() == 1);
  CHECK((d[0].loc.line == 1 && d[0].loc.col == 21));
  CHECK(contains(d[0].message, "\\x00"));
  CHECK(doc.find("t") != nullptr);
  // The rendered line keeps the byte; positions after it are unaffected.
  const std::string r = doc.diagnostics().render();
  CHECK(contains(r, "nul.scan:1:21: error:"));
  // Only NULs.
  dsl::Document nuls = dsl::load("nul.scan", std::string(16, '\0'));
  CHECK_FALSE(nuls.ok());
  CHECK(nuls.specs().empty());
}

TEST_CASE("robustness: random mutations of the examples never crash the front end", "[dsl][robustness]") {
  const uint64_t seed = fresh_seed();
  CAPTURE(seed);
  std::vector<std::string> texts;
  for (const auto& path : example_files()) texts.push_back(read_file(path));
  REQUIRE_FALSE(texts.empty());
  const char alphabet[] = "{}()[],;:=.?+-*/%&|^~!<>#\n 0123456789abcxyz_\"'\t";
  std::mt19937_64 rng(seed);
  std::vector<std::string> mutants;
  for (int i = 0; i < 400; ++i) {
    std::string m = texts[rng() % texts.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < edits && !m.empty(); ++k) {
      size_t at = rng() % m.size();
      switch (rng() % 4) {
        case 0:
          m.erase(at, 1 + rng() % 8);
          break;
        case 1:
          m.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
          break;
        case 2:
          m[at] = alphabet[rng() % (sizeof alphabet - 1)];
          break;
        default:
          m = m.substr(0, at);
          break;
      }
    }
    mutants.push_back(std::move(m));
  }
  REQUIRE(runs_to_completion([&] {
    for (const std::string& m : mutants) {
      dsl::Document doc = dsl::load("mutant.scan", m);
      (void)doc.diagnostics().render();
      (void)dsl::ast::dump(doc.ast());
      for (const dsl::Spec& s : doc.specs()) (void)s.to_string();
    }
  }));
  for (const std::string& m : mutants) {
    dsl::Document doc = dsl::load("mutant.scan", m);
    INFO("mutant:\n" << m << "\n" << doc.diagnostics().render());
    CHECK(doc.ok() == (doc.diagnostics().error_count() == 0));
    for (const dsl::Diagnostic& d : doc.diagnostics().all()) {
      CHECK(d.loc.valid());
      CHECK_FALSE(d.message.empty());
    }
    // A clean mutant is still a well-formed spec that survives printing.
    if (doc.ok()) {
      for (const dsl::Spec& s : doc.specs()) {
        dsl::Document again = dsl::load("again.scan", s.to_string());
        CHECK(again.ok());
        const dsl::Spec* back = again.find(s.name);
        CHECK((back && *back == s));
      }
    }
  }
}

TEST_CASE("diagnostics: a limit on errors and a window on long lines keep the output linear", "[dsl][diagnostics]") {
  // 10,000 errors on one line of 20,000 characters.
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "@ ";
  dsl::Document many = dsl::load("many.scan", text);
  REQUIRE(many.diagnostics().error_count() == 10000);
  const std::string rendered = many.diagnostics().render();
  CHECK(rendered.size() < 64 * 1024);
  CHECK(rendered.find("too many errors: 9950 more not shown") != std::string::npos);
  // One error far along a long line: the echoed line is a window, with the
  // caret under the offending name.
  const std::string long_line = "scan s { type = i32; op = add; " + std::string(4000, ' ') + "init = zz; }";
  dsl::Document one = dsl::load("long.scan", long_line);
  const std::string r = one.diagnostics().render();
  INFO(r);
  CHECK(r.size() < 600);
  const size_t first_nl = r.find('\n'), second_nl = r.find('\n', first_nl + 1);
  REQUIRE(second_nl != std::string::npos);
  const std::string source = r.substr(first_nl + 1, second_nl - first_nl - 1);
  const std::string caret = r.substr(second_nl + 1, r.find('\n', second_nl + 1) - second_nl - 1);
  CHECK(source.rfind("  ...", 0) == 0);
  CHECK(source.compare(caret.size() - 1, 2, "zz") == 0);
  CHECK(caret.back() == '^');
}

TEST_CASE("FNV-1a keeps its values (the runtime's cache keys and the host headers' guards)") {
  // The project's offset basis (scangen/dsl/hash.h), not FNV's published one.
  STATIC_REQUIRE(scangen::dsl::fnv1a("") == 0x14650fb0739d0383ull);
  STATIC_REQUIRE(scangen::dsl::fnv1a("a") == 0x44bd8ad473cd9906ull);
  CHECK(scangen::dsl::fnv1a("bc", scangen::dsl::fnv1a("a")) == scangen::dsl::fnv1a("abc"));
  const scangen::dsl::Document doc = scangen::dsl::load("hash.scan", "scan s { type = i32; op = add; }");
  REQUIRE(doc.ok());
  CHECK(doc.specs().front().hash() == scangen::dsl::fnv1a(doc.specs().front().to_string()));
}
