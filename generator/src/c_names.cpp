#include "c_names.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace scangen::generator::detail {

namespace {

// Keywords of C++ (CUDA compiles the preamble as C++), C99 and OpenCL C, the
// built-in type and variable names of both, and OpenCL's predefined macros.
// A DSL name equal to one of these would not compile, or would be expanded.
constexpr std::string_view kReserved[] = {
    // C++
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char8_t",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "concept",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "const_cast",
    "continue",
    "co_await",
    "co_return",
    "co_yield",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "requires",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    // C99
    "restrict",
    // OpenCL C
    "kernel",
    "global",
    "local",
    "constant",
    "uniform",
    "pipe",
    "read_only",
    "write_only",
    "read_write",
    "half",
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "sampler_t",
    "event_t",
    "image1d_t",
    "image1d_array_t",
    "image1d_buffer_t",
    "image2d_t",
    "image2d_array_t",
    "image3d_t",
    "quad",
    "complex",
    "imaginary",
    "vec_step",
    "NULL",
    "MAXFLOAT",
    "HUGE_VALF",
    "HUGE_VAL",
    "INFINITY",
    "NAN",
    "FP_FAST_FMA",
    "FP_FAST_FMAF",
    "FP_FAST_FMA_HALF",
    "CHAR_BIT",
    "CHAR_MAX",
    "CHAR_MIN",
    "INT_MAX",
    "INT_MIN",
    "LONG_MAX",
    "LONG_MIN",
    "SCHAR_MAX",
    "SCHAR_MIN",
    "SHRT_MAX",
    "SHRT_MIN",
    "UCHAR_MAX",
    "USHRT_MAX",
    "UINT_MAX",
    "ULONG_MAX",
    // OpenCL built-ins the operator bodies call (float constants by their bits)
    "as_float",
    "as_double",
    // CUDA
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "dim3",
};

// OpenCL's macro families (FLT_MAX, M_PI, CL_VERSION_1_2, CLK_LOCAL_MEM_FENCE...).
constexpr std::string_view kReservedPrefixes[] = {"scangen_", "SCANGEN_", "FLT_", "DBL_", "HALF_", "M_", "CL_", "CLK_"};

// Vector types: int4, uchar16, float2, longlong2 ...
bool is_vector_type_name(std::string_view s) {
  size_t digits = s.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(s[digits - 1]))) --digits;
  if (digits == s.size() || digits == 0) return false;
  std::string_view base = s.substr(0, digits);
  constexpr std::string_view kBases[] = {"char",  "uchar", "short",  "ushort", "int",      "uint",      "long",
                                         "ulong", "float", "double", "half",   "longlong", "ulonglong", "bool"};
  return std::find(std::begin(kBases), std::end(kBases), base) != std::end(kBases);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

std::string c_identifier(std::string_view dsl_name, std::string_view prefix) {
  bool reserved = std::find(std::begin(kReserved), std::end(kReserved), dsl_name) != std::end(kReserved) ||
                  is_vector_type_name(dsl_name) ||
                  // _Bool, __global: names the implementation owns.
                  (dsl_name.size() > 1 && dsl_name[0] == '_' &&
                   (dsl_name[1] == '_' || std::isupper(static_cast<unsigned char>(dsl_name[1])))) ||
                  (!prefix.empty() && starts_with(dsl_name, std::string(prefix) + "_"));
  for (std::string_view p : kReservedPrefixes) reserved = reserved || starts_with(dsl_name, p);
  return reserved ? std::string(dsl_name) + "_" : std::string(dsl_name);
}

std::vector<std::string> field_names(const dsl::StructType& s, std::string_view prefix) {
  std::vector<std::string> names;
  for (const dsl::Field& f : s.fields) {
    std::string n = c_identifier(f.name, prefix);
    // `int` became `int_`; a field really called `int_` then takes `int__`.
    while (std::find(names.begin(), names.end(), n) != names.end() ||
           std::any_of(s.fields.begin(), s.fields.end(), [&](const dsl::Field& g) { return g.name == n && &g != &f; }))
      n += '_';
    names.push_back(n);
  }
  return names;
}

std::string storage_type(dsl::ScalarKind k) {
  if (k == dsl::ScalarKind::Bool) return "bool";
  return std::string("scangen_") + dsl::to_string(k);
}

std::string register_type(dsl::ScalarKind k) { return k == dsl::ScalarKind::F16 ? "float" : storage_type(k); }

std::string struct_name(std::string_view prefix, const dsl::StructType& s) {
  // P_T, P_combine, P_<S>_make ... are the preamble's own names.
  constexpr std::string_view kTaken[] = {"T",    "In",      "Out",           "combine",    "identity",
                                         "init", "convert", "scatter_value", "scatter_at", "scatter_if"};
  const std::string_view make = "_make", check = "_has_scangen_layout";
  auto ends_with = [&](std::string_view suffix) {
    return s.name.size() >= suffix.size() && s.name.compare(s.name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  // Out_NAME, scatter_value_NAME, ...: a named fused output's (and convert_near, a macro with neighbours).
  auto starts_with = [&](std::string_view p) { return s.name.compare(0, p.size(), p) == 0; };
  bool taken = std::find(std::begin(kTaken), std::end(kTaken), s.name) != std::end(kTaken) || ends_with(make) ||
               ends_with(check) || starts_with("Out_") || starts_with("scatter_") || s.name == "convert_near";
  return std::string(prefix) + "_" + s.name + (taken ? "_" : "");
}

std::string c_type(const dsl::Type& t, std::string_view prefix, Form form) {
  if (t.is_struct()) return struct_name(prefix, t.struct_type());
  return form == Form::Storage ? storage_type(t.scalar_kind()) : register_type(t.scalar_kind());
}

std::string c_string_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace scangen::generator::detail
