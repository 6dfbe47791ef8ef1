// Import's errors: a construct outside the subset, ended with its location
// and rendered with the source line and a caret; Clang's diagnostics from
// CUB's or Thrust's headers replaced by one error at their #include.
#pragma once

#include <string>

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"

namespace scangen::cxx::detail {

// A construct outside the subset, at `loc`: ends the translation.
struct Unsupported {
  clang::SourceLocation loc;
  std::string message;
};

[[noreturn]] inline void refuse(clang::SourceLocation loc, std::string message) {
  throw Unsupported{loc, std::move(message)};
}

// "FILE:LINE:COL: error: MESSAGE", the line and a caret under the column
// (`file` and no line where `loc` is invalid).
std::string render(const clang::SourceManager& sm, clang::SourceLocation loc, const std::string& message,
                   const std::string& file);

// Whether Clang's diagnostics name a file of CUB's or Thrust's
// (.../cub/....cuh, .../thrust/....h).
bool from_cub(const std::string& diagnostics);

// Clang's diagnostics, unless they come from CUB's or Thrust's headers,
// which are CUDA device code (kernel launches, __syncthreads, inline PTX)
// that Clang 14 reads only in its CUDA mode, and that mode does not support
// CUDA 12's and 13's headers: then one error, at the header's #include of
// them, that says so and what to do (docs/cxx.md, "CUDA headers"); "" when
// they do not come from there.
std::string cub_refusal(const std::string& diagnostics, const std::string& main_file);

}  // namespace scangen::cxx::detail
