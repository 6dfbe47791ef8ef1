// JAX's XLA FFI handlers of scangen's scans (built where jax's headers were
// found, SCANGEN_JAX): one target, "scangen_scan", on the CPU through the
// OpenCL runtime (host buffers copied in and out) and on CUDA through the CUDA
// runtime on XLA's stream. A call scans the lines of its input, `length`
// elements each, laid end to end; the compiled scan is named by a handle into
// a process-wide registry of specs, and its variants (mode, direction, flat or
// rows) are compiled on their first call.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>

#include "scangen/dsl/spec.h"
#include "scangen/runtime/runtime.h"

namespace scangen::py {

// The handle of `spec` (the same one for an equal spec registered again);
// the registry keeps it for the process's life.
int64_t jax_register(const dsl::Spec& spec);

// The Runtime the handlers of rt's backend use (else they make their own on
// their first call): the Python package's, so that both share its caches.
void jax_use_runtime(std::shared_ptr<scangen::Runtime> rt);

// {"cpu": capsule, "CUDA": capsule}: the handlers, for jax.ffi.register_ffi_target.
nanobind::dict jax_targets();

}  // namespace scangen::py
