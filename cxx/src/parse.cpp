// Import's parse: Clang libTooling's AST of the headers.
#include "parse.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "diagnose.h"

#ifndef SCANGEN_CLANG_RESOURCE_DIR
#define SCANGEN_CLANG_RESOURCE_DIR ""
#endif

namespace scangen::cxx::detail {

using namespace clang;

namespace {

// A file of the import's own, included before the header.
const char* const kPreludeName = "scangen-import-prelude.h";
const char* const kPrelude = "typedef __fp16 __half;\n";

// The CUDA toolkit's include folders (<cuda_runtime.h>, and CCCL's, where
// CUB lives), searched after every other: $CUDA_HOME/include or
// $CUDA_PATH/include, else the toolkit's scangen was built with, else
// /usr/local/cuda/include; none where there is no toolkit.
std::vector<std::string> cuda_include_dirs() {
  std::vector<std::string> candidates;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) candidates.push_back(std::string(v) + "/include");
  candidates.insert(candidates.end(), {SCANGEN_CXX_CUDA_INCLUDE, "/usr/local/cuda/include"});
  for (const std::string& dir : candidates) {
    if (!llvm::sys::fs::exists(dir + "/cuda_runtime.h")) continue;
    std::vector<std::string> dirs = {"-idirafter", dir};
    if (llvm::sys::fs::is_directory(dir + "/cccl")) dirs.insert(dirs.end(), {"-idirafter", dir + "/cccl"});
    return dirs;
  }
  return {};
}

Parsed parse_once(const std::string& code, const std::string& file_name, const std::vector<std::string>& args) {
  Parsed p;
  llvm::raw_string_ostream clang_out(p.diagnostics);
  IntrusiveRefCntPtr<DiagnosticOptions> diag_options = new DiagnosticOptions();
  TextDiagnosticPrinter printer(clang_out, diag_options.get());
  p.ast = tooling::buildASTFromCodeWithArgs(
      code, args, file_name, "scangen", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(), tooling::FileContentMappings{{kPreludeName, kPrelude}}, &printer);
  clang_out.flush();
  p.errors = static_cast<int>(printer.getNumErrors());
  if (!p.ast || p.errors > 0) {
    if (p.diagnostics.empty()) p.diagnostics = file_name + ": error: Clang could not parse the header\n";
    p.errors = std::max(1, p.errors);
  }
  return p;
}

}  // namespace

std::string read_file(const std::string& path) {
  auto refuse = [&](const std::string& why) {
    throw ImportError(path + ": error: cannot read the file: " + why + "\n", 1);
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) refuse(std::strerror(errno));
  struct stat st {};
  std::string text;
  int error = ::fstat(fd, &st) != 0 ? errno : 0;
  if (error == 0 && S_ISDIR(st.st_mode)) error = EISDIR;
  char buf[65536];
  while (error == 0) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) error = errno;
    if (got <= 0) break;
    text.append(buf, static_cast<size_t>(got));
  }
  ::close(fd);
  if (error != 0) refuse(std::strerror(error));
  return text;
}

std::vector<std::string> clang_arguments(const ImportOptions& options) {
  std::vector<std::string> args = {
      "-xc++", "-std=c++17", "-w", "-D__host__=", "-D__device__=", "-D__forceinline__=inline", "-DSCANGEN_IMPORT=1",
      // f16: Clang 14 has no _Float16 on x86; it is read as __fp16 with half
      // arithmetic (each operation rounded to half, as scangen's f16). For
      // __half, see parse().
      "-Xclang", "-fnative-half-type", "-Xclang", "-fallow-half-arguments-and-returns", "-D_Float16=__fp16"};
  if (*SCANGEN_CLANG_RESOURCE_DIR) args.push_back("-resource-dir=" SCANGEN_CLANG_RESOURCE_DIR);
  args.insert(args.end(), options.clang_args.begin(), options.clang_args.end());
  static const std::vector<std::string> cuda = cuda_include_dirs();
  args.insert(args.end(), cuda.begin(), cuda.end());
  return args;
}

std::string instantiations(const std::vector<std::string>& ops) {
  std::string code;
  for (const std::string& op : ops)
    if (op.find('<') != std::string::npos) code += "\ntemplate struct " + op + ";\n";
  return code;
}

Parsed parse(const std::string& code, const std::string& file_name, const std::vector<std::string>& args, bool half) {
  std::vector<std::string> as_is = args;
  if (half) as_is.insert(as_is.end(), {"-D__CUDA_FP16_H__", "-D__CUDA_FP16_HPP__", "-include", kPreludeName});
  std::vector<std::string> trimmed = as_is;
  trimmed.push_back("-D_GLIBCXX_BITS_SPECFUN_H=1");
  Parsed p = parse_once(code, file_name, trimmed);
  if (p.errors > 0 && !from_cub(p.diagnostics)) p = parse_once(code, file_name, as_is);  // see cub_refusal()
  if (p.errors > 0 && half) p = parse_once(code, file_name, args);
  return p;
}

bool names_half(const std::string& code) { return code.find("__half") != std::string::npos; }

std::vector<std::string> files_read(const SourceManager& sm, const std::vector<std::string>& headers) {
  auto real = [](llvm::StringRef name) {
    llvm::SmallString<256> path;
    return llvm::sys::fs::real_path(name, path) ? std::string() : std::string(path.str());
  };
  std::vector<std::string> out, rest;
  std::set<std::string> seen;
  for (const std::string& h : headers)
    if (const std::string p = real(h); !p.empty() && seen.insert(p).second) out.push_back(p);
  for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
    if (const std::string p = real(it->first->getName()); !p.empty() && seen.insert(p).second) rest.push_back(p);
  std::sort(rest.begin(), rest.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace scangen::cxx::detail
