// The backends' emitters (BackendEmitter, backend_emitter.h): one per
// backend, each in a file of its own (emit_cuda.cpp, emit_opencl.cpp), found
// by the backend the text is for.
#pragma once

#include "backend_emitter.h"
#include "scangen/generator/backend.h"

namespace scangen::generator::detail {

const BackendEmitter& cuda_emitter();
const BackendEmitter& opencl_emitter();

inline const BackendEmitter& emitter_for(Backend b) {
  switch (b) {
    case Backend::Cuda:
      return cuda_emitter();
    case Backend::OpenCL:
      return opencl_emitter();
  }
  return cuda_emitter();
}

}  // namespace scangen::generator::detail
