// Fuzzes the C++ front end (scangen::cxx): the input's bytes are choices in
// a small grammar of C++ operators (an element struct or scalar, a functor,
// a function or a lambda, with or without an identity; a body of locals,
// if/else and returns over expressions of fields, literals, casts, math
// builtins, every C++ operator), now and then a construct outside the
// subset or a stray token. The header is imported as `scangen import` and
// as a .scan file's `import` does. Nothing may crash, hang or trip a
// sanitizer; an import that succeeds must give text that scangen reads
// cleanly (the translator never writes a .scan file that does not check).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "scangen/cxx/cxx.h"
#include "scangen/dsl/dsl.h"

namespace {

// The input's bytes, one choice each (0 once they run out).
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  unsigned pick(unsigned n) { return pos_ < size_ ? data_[pos_++] % n : 0; }
  template <size_t N>
  const char* one_of(const char* const (&options)[N]) {
    return options[pick(N)];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

const char* const kTypes[] = {
    "int",         "unsigned",           "float", "double", "short",      "unsigned char", "long long",
    "signed char", "unsigned long long", "char",  "bool",   "long double"};
const char* const kBinary[] = {"+",  "-", "*",  "/", "%",  "&",  "|",  "^",  "<<",
                               ">>", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
const char* const kUnary[] = {"-", "!", "~", "+"};
const char* const kLiterals[] = {"0",
                                 "1",
                                 "-1",
                                 "2",
                                 "0.5",
                                 "0.1f",
                                 "1e300",
                                 "3u",
                                 "0x7fffffff",
                                 "-2147483648",
                                 "255",
                                 "1e-45f",
                                 "'a'",
                                 "true",
                                 "false",
                                 "0.0",
                                 "-0.0f",
                                 "__builtin_inff()",
                                 "__builtin_nanf(\"\")",
                                 "4294967295u",
                                 "9223372036854775807LL"};
const char* const kCalls1[] = {"__builtin_fabs", "__builtin_fabsf", "__builtin_sqrt", "__builtin_floorf",
                               "__builtin_ceil", "__builtin_expf",  "__builtin_log",  "__builtin_abs"};
const char* const kCalls2[] = {"__builtin_fminf", "__builtin_fmax", "__builtin_fmin", "__builtin_fmaxf"};
// Outside the subset, or not C++ at all: each must be a clear error.
const char* const kOddStatements[] = {
    "for (int i = 0; i < 2; ++i) {}\n",
    "while (false) {}\n",
    "int* p = nullptr; (void)p;\n",
    "static int calls = 0;\n",
    "switch (0) { default: break; }\n",
    "goto end; end:;\n",
    "throw 1;\n",
    "auto f = [](int v) { return v; }; (void)f;\n",
    "int q = 0; q += 1;\n",
    "{ }\n",
    ";\n",
    "if constexpr (true) {}\n",
    "if (int k = 1; k) {}\n",
    "return;\n",
    "(void)sizeof(int);\n",
    "asm(\"nop\");\n",
    "}\n",
    "{\n",
    "#pragma unroll\n",
    "return {};\n",
    "return this;\n",
    "__builtin_trap();\n",
};

class Generator {
 public:
  explicit Generator(Choices& c) : c_(c) {}

  // The header, and the name of its operator.
  std::string header(std::string* op) {
    std::string h = declarations(op);
    return h;
  }

  // The identity as a .scan expression, for an operator that has none.
  std::string scan_identity() const {
    auto zero = [](const std::string& t) {
      return t == "float" || t == "double" || t == "long double" ? std::string("0.0") : std::string("0");
    };
    if (scalar_) return zero(elem_);
    std::string v = "P { ";
    for (size_t i = 0; i < fields_.size(); ++i) v += (i ? ", " : "") + fields_[i] + ": " + zero(field_types_[i]);
    return v + " }";
  }

 private:
  std::string declarations(std::string* op) {
    std::string h;
    scalar_ = c_.pick(3) == 0;
    if (c_.pick(8) == 0) h += "#include <cmath>\n#include <cstdint>\n";
    if (scalar_) {
      elem_ = c_.one_of(kTypes);
    } else {
      elem_ = "P";
      h += "struct P {\n";
      const unsigned fields = 1 + c_.pick(3);
      for (unsigned i = 0; i < fields; ++i) {
        fields_.push_back(std::string(1, static_cast<char>('a' + i)));
        field_types_.push_back(c_.pick(4) ? c_.one_of(kTypes) : "float");
        h += "  " + field_types_.back() + " " + fields_.back() + ";\n";
      }
      if (c_.pick(16) == 0) h += "  P* next;\n";
      h += "};\n";
    }
    const unsigned form = c_.pick(4);
    const std::string params =
        c_.pick(4) ? "const " + elem_ + "& x, const " + elem_ + "& y" : elem_ + " x, " + elem_ + " y";
    const std::string body = block(0);
    const std::string identity = identity_value();
    *op = "Op";
    if (form == 0) {  // a free function
      h += "inline " + elem_ + " Op(" + params + ") {\n" + body + "}\n";
    } else if (form == 1) {  // a lambda
      h += "inline constexpr auto Op = [](" + params + ") {\n" + body + "};\n";
    } else if (form == 2) {  // a class template
      h += "template <typename T>\nstruct Op {\n  static constexpr " + elem_ + " identity = " + identity + ";\n  " +
           elem_ + " operator()(" + params + ") const {\n" + body + "  }\n};\n";
      *op = c_.pick(2) ? "Op<int>" : "Op<float>";
    } else {
      h += "struct Op {\n";
      if (c_.pick(4)) h += "  static constexpr " + elem_ + " identity = " + identity + ";\n";
      h += "  __host__ __device__ " + elem_ + " operator()(" + params + ") const {\n" + body + "  }\n};\n";
    }
    return h;
  }

  // Locals, then a return or an if/else of blocks; now and then an odd statement.
  std::string block(int depth) {
    std::string s;
    const unsigned locals = c_.pick(3);
    for (unsigned i = 0; i < locals; ++i) {
      const std::string name = "v" + std::to_string(locals_.size());
      const unsigned how = c_.pick(3);
      s += how == 0 ? "auto " : how == 1 ? "const auto " : std::string("const ") + c_.one_of(kTypes) + " ";
      s += name + " = " + expr(0) + ";\n";
      locals_.push_back(name);
    }
    if (c_.pick(10) == 0) s += c_.one_of(kOddStatements);
    if (depth < 2 && c_.pick(3) == 0) {
      s += "if (" + expr(0) + ") {\n" + block(depth + 1) + "}";
      s += c_.pick(2) ? " else {\n" + block(depth + 1) + "}\n" : "\n" + std::string("return ") + value() + ";\n";
      return s;
    }
    if (c_.pick(16) == 0) return s;  // falls off the end
    return s + "return " + value() + ";\n";
  }

  // A constant of the element type, for the identity.
  std::string identity_value() {
    if (scalar_) return c_.one_of(kLiterals);
    std::string v = elem_ + "{";
    for (size_t i = 0; i < fields_.size(); ++i) v += (i ? ", " : "") + std::string(c_.one_of(kLiterals));
    return v + "}";
  }

  // A value of the element type.
  std::string value() {
    const unsigned k = c_.pick(6);
    if (k == 0) return "x";
    if (k == 1) return "y";
    if (scalar_) return expr(0);
    std::string v = elem_ + "{";
    const unsigned n = fields_.size() + (c_.pick(8) == 0 ? 1 : 0) - (c_.pick(8) == 0 ? 1 : 0);
    for (unsigned i = 0; i < n; ++i) v += (i ? ", " : "") + expr(0);
    return v + "}";
  }

  std::string leaf() {
    const unsigned k = c_.pick(5);
    const std::string side = c_.pick(2) ? "x" : "y";
    if (k == 0) return c_.one_of(kLiterals);
    if (k == 1 && !locals_.empty()) return locals_[c_.pick(locals_.size())];
    if (scalar_) return side;
    if (k == 2 && c_.pick(8) == 0) return side + ".z";  // no such field
    return side + "." + fields_[c_.pick(fields_.size())];
  }

  std::string expr(int depth) {
    if (depth > 3) return leaf();
    switch (c_.pick(9)) {
      case 0:
      case 1:
        return "(" + expr(depth + 1) + " " + c_.one_of(kBinary) + " " + expr(depth + 1) + ")";
      case 2:
        return std::string(c_.one_of(kUnary)) + "(" + expr(depth + 1) + ")";
      case 3:
        return "(" + expr(depth + 1) + " ? " + expr(depth + 1) + " : " + expr(depth + 1) + ")";
      case 4: {
        const std::string t = c_.one_of(kTypes);
        const unsigned how = c_.pick(3);
        const std::string e = expr(depth + 1);
        if (how == 0) return "static_cast<" + t + ">(" + e + ")";
        if (how == 1) return "(" + t + ")(" + e + ")";
        return t.find(' ') == std::string::npos ? t + "(" + e + ")" : "(" + t + ")" + e;
      }
      case 5:
        return std::string(c_.one_of(kCalls1)) + "(" + expr(depth + 1) + ")";
      case 6:
        return c_.pick(4) ? std::string(c_.one_of(kCalls2)) + "(" + expr(depth + 1) + ", " + expr(depth + 1) + ")"
                          : "__builtin_fma(" + expr(depth + 1) + ", " + expr(depth + 1) + ", " + expr(depth + 1) + ")";
      default:
        return leaf();
    }
  }

  Choices& c_;
  bool scalar_ = false;
  std::string elem_;
  std::vector<std::string> fields_;
  std::vector<std::string> field_types_;
  std::vector<std::string> locals_;
};

const std::string& header_path() {
  static const std::string path = "/tmp/scangen-fuzz-cxx-" + std::to_string(getpid()) + ".h";
  return path;
}

void fail(const char* what, const std::string& header, const std::string& text) {
  std::fprintf(stderr, "%s\n--- the header:\n%s\n--- the text:\n%s\n", what, header.c_str(), text.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices choices(data, size);
  std::string op;
  Generator generator(choices);
  const std::string header = generator.header(&op);
  {
    std::ofstream f(header_path(), std::ios::trunc);
    f << header;
  }
  const bool through_scan_file = choices.pick(4) == 0;
  if (!through_scan_file) {
    scangen::cxx::ImportOptions o;
    if (choices.pick(2)) o.identity = generator.scan_identity();
    std::string text;
    try {
      text = scangen::cxx::import(header_path(), "", op, o);
    } catch (const scangen::cxx::ImportError& e) {
      if (e.error_count <= 0 || e.diagnostics.empty()) fail("an ImportError without diagnostics", header, "");
      return 0;
    }
    const scangen::dsl::Document doc = scangen::dsl::load("imported.scan", text);
    if (!doc.ok()) fail(("the imported text does not check:\n" + doc.diagnostics().render()).c_str(), header, text);
    return 0;
  }
  const std::string scan = "import \"" + header_path() + "\";\nscan s { combine = \"" + op + "\"; }\n";
  scangen::dsl::LoadOptions o;
  o.resolve_imports = scangen::cxx::import_operators;
  const scangen::dsl::Document doc = scangen::dsl::load("/tmp/fuzz.scan", scan, o);
  const std::string diagnostics = doc.diagnostics().render();
  if (!doc.ok() && diagnostics.find("error") == std::string::npos)
    fail("a failed import without an error", header, diagnostics);
  for (const scangen::dsl::Spec& s : doc.specs()) (void)s.to_string();
  return 0;
}
