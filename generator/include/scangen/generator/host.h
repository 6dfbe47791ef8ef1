// Host wrappers for ahead-of-time use (`scangen emit --header`): typed
// functions that validate their arguments and launch the kernels of the
// emitted source, so that a program calls a generated scan like a library
// function. docs/cli.md describes them.
//
// CUDA: a header for host code (any C++ compiler) declaring, for a scan P,
// the types P_T / P_In / P_<Struct> and
//
//   device level:   size_t P_workspace_bytes(int64_t n);
//                   cudaError_t P_<mode>(const P_In* in, P_T* out..., [P_T* aggregate], [P_T* running_total],
//                                        int64_t n, void* workspace, size_t workspace_bytes, cudaStream_t stream);
//                   void P_forget_workspace(const void* workspace);
//   warp and block: cudaError_t P_<mode>(const P_In* in, P_T* out..., [P_T* aggregates], [P_T* running_total],
//                                        int64_t n, cudaStream_t stream);
//
// with <mode> inclusive, exclusive or inclusive_exclusive (the scan's mode);
// the definitions are appended to the emitted .cu, guarded so that NVRTC
// still compiles it.
//
// OpenCL: one C++ header holding the emitted OpenCL C source as a string and
// the same functions taking a cl_command_queue and cl_mem buffers, which build
// the program once per context (P_build, P_release).
#pragma once

#include <string>
#include <vector>

#include "scangen/generator/plan.h"

namespace scangen::generator {

struct HostOptions {
  // The file name the device source is written to (for the header's
  // comments): "affine.cu". Empty: the first scan's name + extension.
  std::string source_name;
  // The file name of the header (for comments): "affine_cuda.h".
  std::string header_name;
};

struct HostCode {
  std::string header;  // the header to write next to the source
  // Text to append to the emitted source: CUDA, the wrappers' definitions
  // (skipped under NVRTC); OpenCL, nothing.
  std::string source_tail;
};

// The host wrappers of `plans` (one backend, as given to emit()), whose
// emitted source is `device_source` (OpenCL embeds it in the header).
HostCode emit_host(const std::vector<Plan>& plans, const std::string& device_source, const HostOptions& options = {});

}  // namespace scangen::generator
