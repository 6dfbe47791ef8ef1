// NVRTC opens its builtins library (libnvrtc-builtins.so.MAJOR.MINOR) by name
// when it first compiles, so it is found only where the dynamic loader's own
// configuration (ld.so.conf, LD_LIBRARY_PATH) points at the CUDA toolkit. A
// program that found libnvrtc through its run path would still fail with
// "failed to open libnvrtc-builtins.so". Loading the builtins library from the
// directory libnvrtc itself was loaded from, before the first compile, makes
// NVRTC's later lookup by name find the loaded copy.
#pragma once

#include <string>

namespace scangen::nvrtc_support {

// Loads libnvrtc-builtins once per process (later calls return the first
// result). Returns "" when it is loaded (or was already), else a sentence
// saying where it was looked for and why it failed, for the caller to add to
// the error NVRTC will then report.
const std::string& load_builtins();

}  // namespace scangen::nvrtc_support
