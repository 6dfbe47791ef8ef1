// The languages the generator writes: CUDA C++ (for NVRTC or nvcc) and OpenCL C 1.2.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "scangen/dsl/spec.h"

namespace scangen::generator {

// X(enumerator, spelling, source file extension)
#define SCANGEN_BACKENDS(X) X(Cuda, "cuda", ".cu") X(OpenCL, "opencl", ".cl")

enum class Backend : uint8_t {
#define X(e, s, ext) e,
  SCANGEN_BACKENDS(X)
#undef X
};

const char* to_string(Backend b);
// ".cu" or ".cl".
const char* source_extension(Backend b);
std::optional<Backend> backend_from_name(std::string_view name);
// The backend that produces code for a Spec's target.
Backend backend_for(dsl::Target target);

}  // namespace scangen::generator
