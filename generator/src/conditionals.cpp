// Conditionals (conditionals.h): a partial C preprocessor for the
// templates' `#if` lines, over the macros the emitter knows.
#include "conditionals.h"

#include <cctype>
#include <cstdint>
#include <optional>

namespace scangen::generator::detail {

namespace {

// One logical line: its text with any continuation lines (ending "\\\n").
std::vector<std::string_view> logical_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = start;
    while (true) {
      const size_t nl = text.find('\n', end);
      if (nl == std::string_view::npos) {
        end = text.size();
        break;
      }
      end = nl + 1;
      if (nl == 0 || text[nl - 1] != '\\') break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class Directive { None, If, Ifdef, Ifndef, Elif, Else, Endif, Define, Undef, Other };

// The directive of a line and what follows its keyword (comments removed).
Directive directive(std::string_view line, std::string& rest) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size() || line[i] != '#') return Directive::None;
  ++i;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  size_t k = i;
  while (k < line.size() && std::isalpha(static_cast<unsigned char>(line[k]))) ++k;
  const std::string_view word = line.substr(i, k - i);
  rest.clear();
  for (size_t j = k; j < line.size(); ++j) {  // without comments and continuations
    if (line.compare(j, 2, "//") == 0) break;
    if (line.compare(j, 2, "/*") == 0) {
      const size_t close = line.find("*/", j + 2);
      if (close == std::string_view::npos) break;
      rest += ' ';
      j = close + 1;
      continue;
    }
    if (line[j] == '\\' && j + 1 < line.size() && line[j + 1] == '\n') continue;
    rest += line[j] == '\n' ? ' ' : line[j];
  }
  if (word == "if") return Directive::If;
  if (word == "ifdef") return Directive::Ifdef;
  if (word == "ifndef") return Directive::Ifndef;
  if (word == "elif") return Directive::Elif;
  if (word == "else") return Directive::Else;
  if (word == "endif") return Directive::Endif;
  if (word == "define") return Directive::Define;
  if (word == "undef") return Directive::Undef;
  return Directive::Other;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

}  // namespace

Conditionals::Macro Conditionals::state(const std::string& name) const {
  if (auto it = macros_.find(name); it != macros_.end()) return it->second;
  Macro m;
  m.known = name.rfind("SG_", 0) == 0;  // never defined: undefined
  return m;
}

// The pass over one text: the conditionals' tree, decided where it can be.
class ConditionalsPass {
 public:
  ConditionalsPass(Conditionals& c, std::string_view text) : c_(c), lines_(logical_lines(text)) {}

  std::string run(bool write) {
    std::string out;
    block(out, write, true);
    return out;
  }

 private:
  // An #if expression's value, or none where it reads a macro not known.
  class Expr {
   public:
    Expr(const Conditionals& c, std::string text, int depth) : c_(c), s_(std::move(text)), depth_(depth) {}
    std::optional<int64_t> value() {
      if (depth_ > 16) return std::nullopt;
      const std::optional<int64_t> v = ternary();
      skip();
      if (!v || i_ != s_.size()) return std::nullopt;
      return v;
    }

   private:
    void skip() {
      while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool eat(std::string_view op) {
      skip();
      if (s_.compare(i_, op.size(), op) != 0) return false;
      // "<" must not take "<=" or "<<"; "&" not "&&"; "|" not "||"; "=" is no operator alone.
      if (op.size() == 1 && i_ + 1 < s_.size() && std::string_view("<>&|=!").find(op[0]) != std::string_view::npos &&
          (s_[i_ + 1] == '=' || s_[i_ + 1] == op[0]))
        return false;
      i_ += op.size();
      return true;
    }
    using V = std::optional<int64_t>;
    V ternary() {
      const V c = binary(0);
      if (!eat("?")) return c;
      const V a = ternary();
      if (!eat(":")) return std::nullopt;
      const V b = ternary();
      if (!c || !a || !b) return std::nullopt;
      return *c ? a : b;
    }
    // Precedence climbing over C's binary operators, loosest first.
    V binary(int level) {
      static const std::vector<std::vector<std::string_view>> levels = {
          {"||"},       {"&&"},     {"|"},          {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"},
          {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
      if (level == static_cast<int>(levels.size())) return unary();
      V left = binary(level + 1);
      while (true) {
        std::string_view op;
        for (std::string_view o : levels[static_cast<size_t>(level)])
          if (eat(o)) {
            op = o;
            break;
          }
        if (op.empty()) return left;
        const V right = binary(level + 1);
        // A known side decides && (false) and || (true) alone, as C's would: `SG_X && __CUDA_ARCH__ >= 900`.
        if (op == "&&" && ((left && !*left) || (right && !*right))) {
          left = 0;
          continue;
        }
        if (op == "||" && ((left && *left) || (right && *right))) {
          left = 1;
          continue;
        }
        if (!left || !right) {
          left = std::nullopt;
          continue;
        }
        const int64_t a = *left, b = *right;
        if (op == "||")
          left = (a || b);
        else if (op == "&&")
          left = (a && b);
        else if (op == "|")
          left = a | b;
        else if (op == "^")
          left = a ^ b;
        else if (op == "&")
          left = a & b;
        else if (op == "==")
          left = a == b;
        else if (op == "!=")
          left = a != b;
        else if (op == "<=")
          left = a <= b;
        else if (op == ">=")
          left = a >= b;
        else if (op == "<")
          left = a < b;
        else if (op == ">")
          left = a > b;
        else if (op == "<<")
          left = (b >= 0 && b < 63) ? a << b : V();
        else if (op == ">>")
          left = (b >= 0 && b < 63) ? a >> b : V();
        else if (op == "+")
          left = a + b;
        else if (op == "-")
          left = a - b;
        else if (op == "*")
          left = a * b;
        else
          left = b == 0 ? V() : (op == "/" ? a / b : a % b);
      }
    }
    V unary() {
      if (eat("!")) {
        const V v = unary();
        return v ? V(!*v) : v;
      }
      if (eat("-")) {
        const V v = unary();
        return v ? V(-*v) : v;
      }
      if (eat("+")) return unary();
      if (eat("~")) {
        const V v = unary();
        return v ? V(~*v) : v;
      }
      if (eat("(")) {
        const V v = ternary();
        return eat(")") ? v : V();
      }
      skip();
      if (i_ >= s_.size()) return std::nullopt;
      if (std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        size_t end = i_;
        while (end < s_.size() && std::isalnum(static_cast<unsigned char>(s_[end]))) ++end;
        std::string digits = s_.substr(i_, end - i_);
        i_ = end;
        while (!digits.empty() && std::string_view("uUlL").find(digits.back()) != std::string_view::npos)
          digits.pop_back();
        try {
          size_t used = 0;
          const int64_t v = static_cast<int64_t>(std::stoull(digits, &used, 0));
          return used == digits.size() ? V(v) : V();
        } catch (...) {
          return std::nullopt;
        }
      }
      if (!ident_start(s_[i_])) return std::nullopt;
      const size_t begin = i_;
      while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
      const std::string name = s_.substr(begin, i_ - begin);
      if (name == "defined") {
        const bool paren = eat("(");
        skip();
        const size_t b = i_;
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        const std::string macro = s_.substr(b, i_ - b);
        if (macro.empty() || (paren && !eat(")"))) return std::nullopt;
        const Conditionals::Macro m = c_.state(macro);
        return m.known ? V(m.defined ? 1 : 0) : V();
      }
      skip();
      if (i_ < s_.size() && s_[i_] == '(') return std::nullopt;  // a function-like macro: the compiler's
      const Conditionals::Macro m = c_.state(name);
      if (!m.known || m.function_like) return std::nullopt;
      if (!m.defined) return 0;  // an undefined name reads as 0
      return Expr(c_, m.value, depth_ + 1).value();
    }

    const Conditionals& c_;
    std::string s_;
    int depth_;
    size_t i_ = 0;
  };

  struct Branch {
    size_t directive;  // the line of its #if / #elif / #else
    size_t end;        // the line after its last
  };

  std::optional<bool> condition(Directive d, const std::string& rest) {
    if (d == Directive::Else) return true;
    if (d == Directive::Ifdef || d == Directive::Ifndef) {
      const Conditionals::Macro m = c_.state(trim(rest));
      if (!m.known) return std::nullopt;
      return d == Directive::Ifdef ? m.defined : !m.defined;
    }
    const std::optional<int64_t> v = Expr(c_, rest, 0).value();
    if (!v) return std::nullopt;
    return *v != 0;
  }

  // Lines from i_ up to the #elif / #else / #endif that ends the block (not taken).
  void block(std::string& out, bool write, bool live) {
    std::string rest;
    while (i_ < lines_.size()) {
      const Directive d = directive(lines_[i_], rest);
      if (d == Directive::Elif || d == Directive::Else || d == Directive::Endif) return;
      if (d == Directive::If || d == Directive::Ifdef || d == Directive::Ifndef) {
        chain(out, write, live);
        continue;
      }
      if (live && (d == Directive::Define || d == Directive::Undef)) record(d, rest);
      if (write) out += lines_[i_];
      ++i_;
    }
  }

  // A #define or #undef on a path the text takes (live): the macro's state
  // from here on; `certain` false where the path is the compiler's to choose.
  void record(Directive d, const std::string& rest) {
    size_t k = 0;
    while (k < rest.size() && std::isspace(static_cast<unsigned char>(rest[k]))) ++k;
    size_t e = k;
    while (e < rest.size() && ident_char(rest[e])) ++e;
    const std::string name = rest.substr(k, e - k);
    if (name.empty()) return;
    Conditionals::Macro& m = c_.macros_[name];
    m.known = certain_;
    m.defined = d == Directive::Define;
    m.value.clear();
    m.function_like = false;
    if (d == Directive::Define) {
      m.function_like = e < rest.size() && rest[e] == '(';
      if (m.function_like) return;
      m.value = trim(std::string_view(rest).substr(e));
    }
  }

  // An #if ... #endif at i_: decided where every condition before the taken branch is known.
  void chain(std::string& out, bool write, bool live) {
    std::vector<Branch> branches;
    std::vector<std::string> conditions;
    std::vector<Directive> kinds;
    std::string rest;
    // The branches' boundaries (their nesting counted).
    size_t j = i_;
    int depth = 0;
    for (; j < lines_.size(); ++j) {
      const Directive d = directive(lines_[j], rest);
      if (d == Directive::If || d == Directive::Ifdef || d == Directive::Ifndef) {
        if (depth++ == 0) {
          branches.push_back({j, 0});
          conditions.push_back(rest);
          kinds.push_back(d);
        }
      } else if ((d == Directive::Elif || d == Directive::Else) && depth == 1) {
        branches.back().end = j;
        branches.push_back({j, 0});
        conditions.push_back(rest);
        kinds.push_back(d);
      } else if (d == Directive::Endif && --depth == 0) {
        branches.back().end = j;
        break;
      }
    }
    if (j >= lines_.size()) {  // unterminated: the compiler's to report; written as it is
      for (; i_ < lines_.size(); ++i_)
        if (write) out += lines_[i_];
      return;
    }
    const size_t endif = j;
    // The taken branch, where the conditions decide it.
    std::optional<size_t> taken;
    bool decided = true;
    for (size_t b = 0; b < branches.size(); ++b) {
      const std::optional<bool> c = condition(kinds[b], conditions[b]);
      if (!c) {
        decided = false;
        break;
      }
      if (*c) {
        taken = b;
        break;
      }
    }
    if (decided) {
      for (size_t b = 0; b < branches.size(); ++b) {
        i_ = branches[b].directive + 1;
        std::string ignored;
        const bool on = taken && *taken == b;
        block(on ? out : ignored, write && on, live && on);
      }
      i_ = endif + 1;
      return;
    }
    // The compiler decides: the directives stay; each branch decided inside, its macros uncertain.
    const bool was = certain_;
    certain_ = false;
    for (size_t b = 0; b < branches.size(); ++b) {
      if (write) out += lines_[branches[b].directive];
      i_ = branches[b].directive + 1;
      block(out, write, live);
    }
    certain_ = was;
    if (write) out += lines_[endif];
    i_ = endif + 1;
  }

  Conditionals& c_;
  std::vector<std::string_view> lines_;
  size_t i_ = 0;
  bool certain_ = true;
};

void Conditionals::read(std::string_view text) { ConditionalsPass(*this, text).run(false); }

void Conditionals::define(const std::vector<std::pair<std::string, std::string>>& constants) {
  for (const auto& [name, value] : constants) macros_[name] = {true, true, false, value};
}

void Conditionals::undefine(const std::vector<std::pair<std::string, std::string>>& constants) {
  for (const auto& [name, value] : constants) macros_[name] = {true, false, false, ""};
}

std::string Conditionals::resolve(std::string_view text) { return ConditionalsPass(*this, text).run(true); }

}  // namespace scangen::generator::detail
