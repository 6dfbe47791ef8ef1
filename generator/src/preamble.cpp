#include "scangen/generator/preamble.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "c_names.h"
#include "expression.h"
#include "scalar_library.h"

namespace scangen::generator {

using namespace detail;

namespace {

bool mentions_f64(const dsl::Type& t) { return dsl::holds_scalar(t, dsl::ScalarKind::F64); }

bool mentions_f64(const dsl::Expr* e) {
  if (!e) return false;
  if (mentions_f64(e->type)) return true;
  return std::any_of(e->args.begin(), e->args.end(), [](const dsl::ExprPtr& a) { return mentions_f64(a.get()); });
}

// The spec's expressions: combine, identity, init, convert (those present).
std::vector<const dsl::Expr*> expressions(const dsl::Spec& spec) {
  std::vector<const dsl::Expr*> out = {spec.combine.body.get(), spec.identity.get()};
  if (spec.init) out.push_back(spec.init.get());
  if (spec.convert) out.push_back(spec.convert->body.get());
  if (spec.key_equal) out.push_back(spec.key_equal->body.get());
  for (const auto* f : {&spec.scatter, &spec.scatter_at, &spec.scatter_if})
    if (*f) out.push_back((*f)->body.get());
  for (const dsl::Spec::NamedScatter& o : spec.scatter_named) {
    out.push_back(o.value.body.get());
    out.push_back(o.at.body.get());
    if (o.when) out.push_back(o.when->body.get());
  }
  return out;
}

bool needs_f64(const dsl::Spec& spec) {
  const auto exprs = expressions(spec);
  if (spec.input_arrays)
    for (const dsl::Type& t : *spec.input_arrays)
      if (mentions_f64(t)) return true;
  for (const dsl::Spec::NamedScatter& o : spec.scatter_named)
    if (mentions_f64(o.type)) return true;
  if (spec.segments == dsl::Segments::Keys && spec.key == dsl::ScalarKind::F64) return true;  // f64 keys
  return mentions_f64(spec.type) || mentions_f64(spec.input) || (spec.scatter && mentions_f64(spec.scatter_type)) ||
         std::any_of(exprs.begin(), exprs.end(), [](const dsl::Expr* e) { return mentions_f64(e); });
}

void collect_expr_structs(const dsl::Expr* e, std::vector<std::shared_ptr<const dsl::StructType>>& out) {
  for (const dsl::ExprPtr& a : e->args) collect_expr_structs(a.get(), out);
  dsl::collect_structs(e->type, out);
}

// Every struct type the spec uses, innermost first: those of T and In, and
// any other that a let or a construction builds.
std::vector<std::shared_ptr<const dsl::StructType>> structs_of(const dsl::Spec& spec) {
  std::vector<std::shared_ptr<const dsl::StructType>> out;
  dsl::collect_structs(spec.type, out);
  dsl::collect_structs(spec.input, out);
  if (spec.input_arrays)
    for (const dsl::Type& t : *spec.input_arrays) dsl::collect_structs(t, out);
  if (spec.scatter) dsl::collect_structs(spec.scatter_type, out);
  for (const dsl::Spec::NamedScatter& o : spec.scatter_named) dsl::collect_structs(o.type, out);
  for (const dsl::Expr* e : expressions(spec)) collect_expr_structs(e, out);
  return out;
}

std::string parameter_list(const std::vector<std::string>& types, const std::vector<std::string>& names) {
  if (names.empty()) return "void";
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + types[i] + " " + names[i];
  return s;
}

// The struct, a check of its layout, and its make function, which takes the
// fields in storage form (the parameters take a suffix, so none is `r`).
std::string struct_definition(const dsl::StructType& st, const std::string& prefix, const ScalarLibrary& lib) {
  const std::string name = struct_name(prefix, st);
  const std::vector<std::string> fields = field_names(st, prefix);
  std::string s = "typedef struct " + name + " {\n";
  for (size_t i = 0; i < fields.size(); ++i)
    s += "  " + c_type(st.fields[i].type, prefix, Form::Storage) + " " + fields[i] + ";  // offset " +
         std::to_string(st.fields[i].offset) + "\n";
  s += "} " + name + ";\n";
  // Host code and the reference read these bytes with dsl::StructType's layout.
  const std::string size = std::to_string(st.size), align = std::to_string(st.align);
  if (lib.backend() == Backend::Cuda)
    s += "static_assert(sizeof(" + name + ") == " + size + " && alignof(" + name + ") == " + align + ", \"" + name +
         " must have scangen's layout: " + size + " bytes, aligned to " + align + "\");\n";
  else  // OpenCL C 1.2 has no static_assert: an array of size -1 does not compile.
    s += "typedef char " + name + "_has_scangen_layout[sizeof(" + name + ") == " + size + " ? 1 : -1];\n";

  std::vector<std::string> types, params;
  std::string body;
  for (size_t i = 0; i < fields.size(); ++i) {
    types.push_back(c_type(st.fields[i].type, prefix, Form::Storage));
    params.push_back(fields[i] + "_v");
    body += "  r." + fields[i] + " = " + params[i] + ";\n";
  }
  s += std::string(lib.function_qualifiers()) + " " + name + " " + name + "_make(" + parameter_list(types, params) +
       ") {\n  " + name + " r;\n" + body + "  return r;\n}\n";
  return s;
}

// A scatter function's C parameters: all seven (x, i, exclusive, inclusive,
// n, prev, next), the ones it does not name under names of scangen's own
// (the kernel passes all seven).
std::vector<std::string> scatter_params(const FunctionBody& body) {
  std::vector<std::string> names = body.params;
  for (size_t i = names.size(); i < 7; ++i) names.push_back("scangen_unused_" + std::to_string(i));
  return names;
}

// Appends text while counting lines, so that a #line directive can name the
// line it maps the following text back to.
class Writer {
 public:
  Writer(std::string file, std::string source_name, int first_line)
      : file_(std::move(file)), source_name_(std::move(source_name)), first_line_(first_line) {}

  Writer& operator<<(const std::string& s) {
    out_ += s;
    return *this;
  }

  // One function: signature, body statements (each mapped to its .scan line),
  // and the mapping back to the generated text before the closing brace.
  void function(const std::string& signature, const FunctionBody& body) {
    out_ += signature + " {\n";
    bool mapped = false;
    for (const Statement& s : body.statements) {
      if (!file_.empty() && s.loc.valid()) {
        out_ += "#line " + std::to_string(s.loc.line) + " \"" + c_string_escape(file_) + "\"\n";
        mapped = true;
      } else if (mapped) {
        map_back();
        mapped = false;
      }
      out_ += "  " + s.text + "\n";
    }
    if (mapped) map_back();
    out_ += "}\n";
  }

  std::string take() { return std::move(out_); }

 private:
  // Numbers the next line as its line of the generated source: this
  // directive is the preamble's line `lines + 1`.
  void map_back() {
    const long lines = std::count(out_.begin(), out_.end(), '\n');
    out_ += "#line " + std::to_string(first_line_ + lines + 1) + " \"" + c_string_escape(source_name_) + "\"\n";
  }

  std::string out_;
  std::string file_;
  std::string source_name_;
  int first_line_;
};

// Fused outputs: for each (scattered, then the named ones) its element type
// P_Out[_NAME], and P_scatter_value, P_scatter_at and P_scatter_if (true when
// not written) [_NAME], each of the seven parameters (x, i, exclusive,
// inclusive, n, prev, next). The bodies are translated before the library's
// definitions are written.
struct ScatterBodies {
  FusedOutputNames names;
  dsl::Type element;
  FunctionBody value, at, when;
};

std::vector<ScatterBodies> translate_scatter(const dsl::Spec& spec, ScalarLibrary& lib) {
  const std::vector<FusedOutputNames> names = fused_output_names(spec);
  std::vector<ScatterBodies> v;
  for (size_t k = 0; k < names.size(); ++k) {
    const dsl::Function& value = k == 0 ? *spec.scatter : spec.scatter_named[k - 1].value;
    const dsl::Function& at = k == 0 ? *spec.scatter_at : spec.scatter_named[k - 1].at;
    const std::optional<dsl::Function>& when = k == 0 ? spec.scatter_if : spec.scatter_named[k - 1].when;
    ScatterBodies b{names[k], k == 0 ? spec.scatter_type : spec.scatter_named[k - 1].type,
                    translate_function(value, spec.name, lib), translate_function(at, spec.name, lib),
                    FunctionBody{{}, {{dsl::SourceLoc{}, "return true;"}}}};
    if (when) b.when = translate_function(*when, spec.name, lib);
    v.push_back(std::move(b));
  }
  return v;
}

void write_scatter(Writer& w, const dsl::Spec& spec, const ScatterBodies& b, const ScalarLibrary& lib) {
  const PreambleNames names = preamble_names(spec);
  const std::string fn = std::string(lib.function_qualifiers()) + " ";
  const std::vector<std::string> types = {names.input_type, "scangen_u64",    names.value_type, names.value_type,
                                          "scangen_u64",    names.input_type, names.input_type};
  w << "typedef " + c_type(b.element, spec.name, Form::Storage) + " " + b.names.out_type + ";\n";
  auto write = [&](const FunctionBody& body, const std::string& result, const std::string& name) {
    w.function(fn + result + " " + name + "(" + parameter_list(types, scatter_params(body)) + ")", body);
  };
  write(b.value, b.names.out_type, b.names.value);
  write(b.at, "scangen_u64", b.names.at);
  write(b.when, "bool", b.names.when);
}

}  // namespace

PreambleNames preamble_names(const dsl::Spec& spec) {
  const std::string& p = spec.name;
  PreambleNames names{p + "_T",         p + "_In",   p + "_combine",
                      p + "_identity",  p + "_init", p + "_convert",
                      p + "_key_equal", p + "_Out",  {}};
  if (spec.input_arrays && spec.convert)
    for (size_t k = 0; k < spec.input_arrays->size(); ++k)
      names.input_arrays.push_back(p + "_In_" + spec.convert->params[k]);
  return names;
}

std::vector<FusedOutputNames> fused_output_names(const dsl::Spec& spec) {
  std::vector<FusedOutputNames> v;
  if (!spec.has_scatter()) return v;
  const std::string& P = spec.name;
  v.push_back({"scattered", P + "_Out", P + "_scatter_value", P + "_scatter_at", P + "_scatter_if"});
  for (const dsl::Spec::NamedScatter& o : spec.scatter_named) {
    const std::string s = "_" + o.name;
    v.push_back({o.name, P + "_Out" + s, P + "_scatter_value" + s, P + "_scatter_at" + s, P + "_scatter_if" + s});
  }
  return v;
}

const char* exact_float_options(Backend backend) {
  return backend == Backend::OpenCL ? "-cl-fp32-correctly-rounded-divide-sqrt" : "";
}

std::string emit_preamble(const dsl::Spec& spec, Backend backend, const PreambleOptions& options) {
  const std::string& prefix = spec.name;
  const PreambleNames names = preamble_names(spec);
  const bool cuda = backend == Backend::Cuda;
  ScalarLibrary lib(backend);
  const std::string fn = lib.function_qualifiers();

  // Translate first: the helpers the bodies use are emitted before them.
  FunctionBody combine = translate_function(spec.combine, prefix, lib);
  FunctionBody identity = translate_constant(*spec.identity, prefix, lib);
  std::optional<FunctionBody> init, convert;
  if (spec.init) init = translate_constant(*spec.init, prefix, lib);
  if (spec.convert) convert = translate_function(*spec.convert, prefix, lib);
  std::optional<FunctionBody> key_equal;
  if (spec.segments == dsl::Segments::Keys && spec.key_equal)
    key_equal = translate_function(*spec.key_equal, prefix, lib);
  const std::vector<ScatterBodies> scatter = translate_scatter(spec, lib);

  const std::string source_name =
      options.source_name.empty() ? spec.name + source_extension(backend) : options.source_name;
  Writer w(spec.file, source_name, options.first_line);

  w << "// Operator preamble of scan '" + spec.name + "'" + (spec.file.empty() ? "" : " (" + spec.file + ")") +
           ", generated by scangen for " + (cuda ? "CUDA" : "OpenCL C 1.2") + ".\n";
  const bool f64 = needs_f64(spec);
  if (!cuda) {
    if (f64) w << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    // OpenCL C may fuse a * b + c into an fma by default; the reference rounds each operation.
    w << "#pragma OPENCL FP_CONTRACT OFF\n";
  }
  w << lib.scalar_typedefs(f64) << lib.definitions();
  for (const auto& st : structs_of(spec)) w << struct_definition(*st, prefix, lib);

  w << "typedef " + c_type(spec.type, prefix, Form::Storage) + " " + names.value_type + ";\n";
  w << "typedef " + c_type(spec.input, prefix, Form::Storage) + " " + names.input_type + ";\n";

  const std::string& T = names.value_type;
  w.function(fn + " " + T + " " + names.combine + "(" + parameter_list({T, T}, combine.params) + ")", combine);
  w.function(fn + " " + T + " " + names.identity + "(void)", identity);
  if (init) {
    w.function(fn + " " + T + " " + names.init + "(void)", *init);
  } else {
    w << fn + " " + T + " " + names.init + "(void) { return " + names.identity + "(); }\n";
  }
  if (convert && spec.input_arrays) {
    // input = T1, T2, ...;: convert(a, b [, i]) over one element of each array (and the index).
    std::vector<std::string> types;
    for (size_t k = 0; k < spec.input_arrays->size(); ++k) {
      w << "typedef " + c_type((*spec.input_arrays)[k], prefix, Form::Storage) + " " + names.input_arrays[k] + ";\n";
      types.push_back(names.input_arrays[k]);
    }
    if (spec.convert_takes_index()) types.push_back("scangen_u64");
    w.function(fn + " " + T + " " + names.convert + "(" + parameter_list(types, convert->params) + ")", *convert);
  } else if (convert) {
    // convert(v, i): the second parameter is the element's index in the array; then prev(v) and next(v).
    std::vector<std::string> types = {names.input_type};
    if (spec.convert->params.size() > 1) types.push_back("scangen_u64");
    if (spec.convert->neighbours >= 0) types.insert(types.end(), {names.input_type, names.input_type});
    w.function(fn + " " + T + " " + names.convert + "(" + parameter_list(types, convert->params) + ")", *convert);
    if (spec.convert->neighbours >= 0)
      w << "// convert with its neighbours, as the loads call it: in[i - 1] and in[i + 1], the element itself at\n"
           "// the ends, read from the loads' own `in` and `n` (a macro: every load has them in scope).\n"
           "#define " +
               names.convert + "_near(v, i) " + names.convert +
               "((v), (i), (i) > 0 ? in[(i) - 1] : (v), (i) + 1 < n ? in[(i) + 1] : (v))\n";
  } else {
    w << fn + " " + T + " " + names.convert + "(" + names.input_type + " v) { return v; }\n";
  }
  if (key_equal) {
    // key_equal(a, b): a is the key before, b the element's own.
    const std::string K = c_type(dsl::Type::scalar(spec.key), prefix, Form::Storage);
    w.function(fn + " bool " + names.key_equal + "(" + parameter_list({K, K}, key_equal->params) + ")", *key_equal);
  }
  for (const ScatterBodies& b : scatter) write_scatter(w, spec, b, lib);
  return w.take();
}

}  // namespace scangen::generator
