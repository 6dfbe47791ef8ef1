// Import's errors, rendered as Clang renders its own: the location, the
// message, the source line and a caret.
#include "diagnose.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace scangen::cxx::detail {

using namespace clang;

std::string render(const SourceManager& sm, SourceLocation loc, const std::string& message, const std::string& file) {
  if (loc.isInvalid()) return file + ": error: " + message + "\n";
  loc = sm.getFileLoc(loc);
  const PresumedLoc p = sm.getPresumedLoc(loc);
  std::ostringstream o;
  o << p.getFilename() << ":" << p.getLine() << ":" << p.getColumn() << ": error: " << message << "\n";
  bool invalid = false;
  const llvm::StringRef buffer = sm.getBufferData(sm.getFileID(loc), &invalid);
  if (!invalid) {
    const unsigned offset = sm.getFileOffset(loc);
    size_t start = buffer.rfind('\n', offset == 0 ? 0 : offset - 1);
    start = (start == llvm::StringRef::npos || offset == 0) ? 0 : start + 1;
    size_t stop = buffer.find('\n', offset);
    if (stop == llvm::StringRef::npos) stop = buffer.size();
    const std::string line = buffer.substr(start, stop - start).str();
    std::string caret;
    for (size_t i = start; i < offset; ++i) caret += buffer[i] == '\t' ? '\t' : ' ';
    o << "  " << line << "\n  " << caret << "^\n";
  }
  return o.str();
}

bool from_cub(const std::string& diagnostics) {
  for (const char* dir : {"/cub/", "/thrust/"})
    for (size_t at = diagnostics.find(dir); at != std::string::npos; at = diagnostics.find(dir, at + 1)) {
      const size_t end = diagnostics.find_first_of(":\n", at);
      const std::string file = diagnostics.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (file.size() > 4 && (file.rfind(".cuh") == file.size() - 4 || file.rfind(".h") == file.size() - 2))
        return true;
    }
  return false;
}

std::string cub_refusal(const std::string& diagnostics, const std::string& main_file) {
  if (!from_cub(diagnostics)) return "";
  const std::string message =
      "CUB and Thrust cannot be imported: their headers are CUDA device code (kernel launches, __syncthreads, "
      "inline PTX) that Clang 14 reads only in its CUDA mode, which does not support this CUDA toolkit; include "
      "them only where scangen does not read the header ('#ifndef SCANGEN_IMPORT'), or include <cuda_runtime.h>, "
      "which imports";
  // Clang names the outermost #include of the first error's chain first:
  // "In file included from PATH:LINE:" (the file of includes, scangen's own,
  // when a scan file imports several headers: then the next one).
  const std::string intro = "In file included from ";
  for (size_t at = diagnostics.find(intro); at != std::string::npos; at = diagnostics.find(intro, at + 1)) {
    const size_t end = diagnostics.find(":\n", at);
    const size_t colon = diagnostics.rfind(':', end - 1);
    if (end == std::string::npos || colon == std::string::npos || colon <= at) break;
    const std::string path = diagnostics.substr(at + intro.size(), colon - at - intro.size());
    if (path == main_file && main_file == "scangen-imports.cpp") continue;
    const int number = std::atoi(diagnostics.c_str() + colon + 1);
    std::ifstream in(path);
    std::string line;
    for (int i = 0; i < number && std::getline(in, line);) ++i;
    const size_t hash = std::min(line.find_first_not_of(" \t"), line.size());
    return path + ":" + std::to_string(number) + ":" + std::to_string(hash + 1) + ": error: " + message + "\n  " +
           line + "\n  " + line.substr(0, hash) + "^\n";
  }
  return main_file + ": error: " + message + "\n";
}

}  // namespace scangen::cxx::detail
