// Import's parse: the headers read and parsed by Clang libTooling into an
// AST, with the arguments, prelude and explicit instantiations an import
// adds; the files a parse read.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/ASTUnit.h"

#include "scangen/cxx/cxx.h"

namespace scangen::cxx::detail {

// The header's text; a failure (ImportError) names the system's reason (no
// such file, permission denied, a loop of symbolic links, a directory).
std::string read_file(const std::string& path);

// Clang's arguments for a parse: the language, the import's macros, the f16
// options, the resource folder, `options.clang_args`, the CUDA toolkit's
// include folders.
std::vector<std::string> clang_arguments(const ImportOptions& options);

// The explicit instantiations that operators named with template arguments
// need (`template struct CustomMin<float>;`), so that Clang instantiates
// their operator() with its body; added at the end of the main file.
std::string instantiations(const std::vector<std::string>& ops);

// A parsed translation unit, or Clang's diagnostics.
struct Parsed {
  std::unique_ptr<clang::ASTUnit> ast;
  std::string diagnostics;
  int errors = 0;
};

// What the parse of libstdc++'s <cmath> costs is mostly its C++17 special
// functions (bits/specfun.h, with <limits>, stl_algobase.h and the TR1
// implementations): two thirds of the CPU time of a header that includes
// <cmath> and <cstdint> (docs/cxx.md, "Cost"). An operator cannot call them,
// so the header is parsed first with that file's include guard defined;
// a header that does not compile so (one that uses <limits> without
// including it, say) is parsed again as it is, and its diagnostics are that
// parse's.
//
// CUDA's __half is a struct whose operators call intrinsics. A header that
// names __half (`half`) is parsed with __half as __fp16 (the prelude's
// typedef: libstdc++ names variables __half, so not a macro) and cuda_fp16.h
// taken as already included; where that does not compile (CUDA headers that
// need cuda_fp16.h, such as CUB's), it is parsed as it is, and a __half
// field is refused.
Parsed parse(const std::string& code, const std::string& file_name, const std::vector<std::string>& args, bool half);

// Whether `code` names CUDA's __half (parse's `half`).
bool names_half(const std::string& code);

// Every file the parse read, its real path (no links, no "..": Clang
// reaches libstdc++ through /../lib/gcc/...), the headers first, then the
// rest in order; not the prelude or a file of includes, which are in memory.
std::vector<std::string> files_read(const clang::SourceManager& sm, const std::vector<std::string>& headers);

}  // namespace scangen::cxx::detail
