// Plan -> source: the complete, self-contained CUDA C++ or OpenCL C 1.2 text
// of one or several warp- and block-level scans (no #include; NVRTC, nvcc and
// any OpenCL 1.2 compiler take it as is).
//
// For a scan P the text defines, besides the operator preamble (preamble.h):
//
//   P_temp                 one group's scratch; declare one per group (a
//                          logical warp or a block) in __shared__ / __local
//                          memory
//   P_inclusive, P_exclusive, P_inclusive_exclusive, P_reduce, P_broadcast
//                          device functions to call from your own kernels
//                          (templates/common/api.h documents them), and the
//                          *_update variants with outputs = running_total
//   P_scan_kernel          the array-level entry kernel (extern "C" on CUDA)
//
// See docs/generated-code.md for calling them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scangen/generator/plan.h"

namespace scangen::generator {

struct EmitOptions {
  // The name the text is compiled under (#line directives map the operator
  // preamble back to it); empty: the first scan's name + ".cu" / ".cl".
  std::string source_name;
};

// One scan.
std::string emit(const Plan& plan, const EmitOptions& options = {});
// Several scans in one translation unit (one .cu file, one OpenCL program).
// All plans must be for the same backend and have different names.
std::string emit(const std::vector<Plan>& plans, const EmitOptions& options = {});

// Compiler options the emitted text needs (exact float semantics, see
// exact_float_options); "" for CUDA.
std::string compile_options(Backend backend);

// The OpenCL build options that pick the emitted text's paths for a device
// of the platform named `platform_name`, then `extra` (the caller's; it wins:
// where it sets SCANGEN_OPENCL_PTX, the platform's choice is left out).
// NVIDIA's OpenCL: SCANGEN_OPENCL_PTX=1 (PTX in inline assembly: the warp's
// shuffles in the lane scans, a sleep in the look-back;
// templates/opencl/dialect.cl); elsewhere =0 (the lane scans through local
// memory, the look-back spins). Add compile_options(Backend::OpenCL) where
// the device rounds division exactly.
std::string opencl_build_options(const std::string& platform_name, const std::string& extra);

// A hash of every embedded template, part of a compiled kernel's identity.
uint64_t templates_hash();

// Whether the library embeds templates/<path> (the build embeds every file
// under templates/).
bool template_embedded(const std::string& path);

}  // namespace scangen::generator
