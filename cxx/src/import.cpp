// scangen::cxx::import: a header's operators as .scan text, in stages, each
// a file of its own: parse (parse.cpp: Clang libTooling's AST of the
// headers), locate (locate.cpp: the functor, function or lambda a request
// names, its identity), translate (translator.cpp: the types, the body and
// the constants; translate.cpp: a scan's text from them) and diagnose
// (diagnose.cpp: the errors, with the source line and a caret). These files
// are the only ones of scangen that include Clang's headers.
#include "scangen/cxx/cxx.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include "diagnose.h"
#include "locate.h"
#include "parse.h"
#include "translate.h"

namespace scangen::cxx {

using namespace clang;
using namespace detail;

std::string import(const std::string& header_path, const std::string& type_name, const std::string& op_name,
                   const ImportOptions& options) {
  const std::string code = read_file(header_path);
  std::vector<std::string> ops = {op_name};
  if (!options.key_equal.empty()) ops.push_back(options.key_equal);
  Parsed p = parse(code + instantiations(ops), header_path, clang_arguments(options), names_half(code));
  if (p.errors > 0) {
    const std::string cub = cub_refusal(p.diagnostics, header_path);
    throw cub.empty() ? ImportError(p.diagnostics, p.errors) : ImportError(cub, 1);
  }
  ASTContext& ctx = p.ast->getASTContext();
  try {
    if (options.key_equal.empty()) return translate(ctx, type_name, op_name, options);
    const KeyEqual eq = translate_key_equal(ctx, options.key_equal);
    return translate(ctx, type_name, op_name, options,
                     "  segments = keys;\n  key = " + eq.key + ";\n  " + eq.function + "\n");
  } catch (const Unsupported& u) {
    throw ImportError(render(ctx.getSourceManager(), u.loc, u.message, header_path), 1);
  }
}

dsl::CxxImportResult import_operators(const std::vector<dsl::CxxHeader>& headers,
                                      const std::vector<dsl::CxxOperatorRequest>& requests) {
  dsl::CxxImportResult result;
  ImportOptions options;
  options.identity_hint = "write 'identity = ...;' in the scan";
  std::vector<std::string> paths;
  for (const dsl::CxxHeader& h : headers) {
    paths.push_back(h.path);
    options.clang_args.insert(options.clang_args.end(), h.args.begin(), h.args.end());
  }
  // One header is the main file, so that Clang's diagnostics name it first;
  // several are included, in order, by a file of their own.
  std::string code, main_name = paths.front();
  bool half = false;
  try {
    if (paths.size() == 1) {
      code = read_file(paths.front());
      half = names_half(code);
    } else {
      main_name = "scangen-imports.cpp";
      for (const std::string& p : paths) {
        half = names_half(read_file(p)) || half;
        llvm::SmallString<256> abs(p);
        llvm::sys::fs::make_absolute(abs);
        code += "#include \"" + std::string(abs.str()) + "\"\n";
      }
    }
  } catch (const ImportError& e) {
    result.diagnostics = e.diagnostics;
    result.errors = 1;
    return result;
  }
  std::vector<std::string> ops;
  for (const dsl::CxxOperatorRequest& r : requests) ops.push_back(r.op);
  Parsed p = parse(code + instantiations(ops), main_name, clang_arguments(options), half);
  if (p.errors > 0) {
    const std::string cub = cub_refusal(p.diagnostics, main_name);
    result.diagnostics = cub.empty() ? p.diagnostics : cub;
    result.errors = cub.empty() ? p.errors : 1;
    return result;
  }
  ASTContext& ctx = p.ast->getASTContext();
  const SourceManager& sm = ctx.getSourceManager();
  result.files_read = files_read(sm, paths);
  std::string where = "\"" + headers.front().path + "\"";
  for (size_t i = 1; i < headers.size(); ++i)
    where += (i + 1 == headers.size() ? " or \"" : ", \"") + headers[i].path + "\"";
  for (const dsl::CxxOperatorRequest& r : requests) {
    dsl::CxxOperatorResult out;
    options.identity_in_spec = r.identity_in_spec;
    if (!find_named(ctx.getTranslationUnitDecl(), r.op, sm)) {
      out.not_found = "no functor, function or lambda named '" + r.op + "' is declared in " + where;
    } else {
      try {
        if (r.key_equal) {
          const KeyEqual eq = translate_key_equal(ctx, r.op);
          out.text = "scan key_equal {\n  key = " + eq.key + ";\n  " + eq.function + "\n}\n";
        } else {
          out.text = translate(ctx, "", r.op, options);
        }
      } catch (const Unsupported& u) {
        out.diagnostics = render(sm, u.loc, u.message, main_name);
        out.errors = 1;
      }
    }
    result.operators.push_back(std::move(out));
  }
  return result;
}

}  // namespace scangen::cxx
