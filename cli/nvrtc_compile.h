// `scangen compile`: CUDA source -> PTX or cubin through NVRTC. Built with
// NVRTC where CMake finds it (SCANGEN_HAVE_NVRTC); without, every call
// reports it unavailable.
#pragma once

#include <string>

namespace scangen::cli {

struct NvrtcResult {
  enum class Status {
    Ok,
    Unavailable,   // scangen was built without NVRTC
    BadArch,       // NVRTC rejected the architecture
    CompileError,  // the source does not compile: `log` says why
    Failed,        // any other NVRTC failure
  };
  Status status = Status::Failed;
  std::string output;  // PTX text (compute_XX) or a cubin (sm_XX)
  std::string log;     // NVRTC's log, or what failed
};

// Compiles `source` (named `name` in messages) for `arch`: PTX for
// compute_XX, a cubin for sm_XX.
NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch);

// "NVRTC 13.0", or "" where scangen was built without it.
std::string nvrtc_version();

}  // namespace scangen::cli
