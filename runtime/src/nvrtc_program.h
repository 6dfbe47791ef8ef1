// NVRTC, once for the whole project (the runtime, `scangen compile`, the
// tests): a program handle that is destroyed on every path out, every call
// checked, and an error that names the call and NVRTC's code. Compile
// errors are not thrown: compile() hands back nvrtcCompileProgram's result
// with the compiler's log, for the caller to report in its own words.
#pragma once

#include <nvrtc.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace scangen::nvrtc_support {

// A failed NVRTC call other than the compile itself: "nvrtcGetPTX failed:
// NVRTC_ERROR_INVALID_PROGRAM".
class Error : public std::runtime_error {
 public:
  Error(const char* call, nvrtcResult code);
  nvrtcResult code() const { return code_; }

 private:
  nvrtcResult code_;
};

// "nvrtcCompileProgram failed: NVRTC_ERROR_COMPILATION".
std::string describe(const char* call, nvrtcResult code);

// Throws Error when `code` is not NVRTC_SUCCESS.
void check(nvrtcResult code, const char* call);

// One NVRTC program, destroyed with its handle.
class Program {
 public:
  Program(const std::string& source, const std::string& name);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // nvrtcCompileProgram with these options: its result, not thrown.
  nvrtcResult compile(const std::vector<std::string>& options);
  // The compiler's log, without its terminator ("" when there is none).
  std::string log() const;
  // After a successful compile: the PTX text (without its terminator), or
  // the cubin of an sm_XX architecture.
  std::string ptx() const;
  std::string cubin() const;

 private:
  nvrtcProgram program_ = nullptr;
};

struct Compiled {
  nvrtcResult status = NVRTC_SUCCESS;  // nvrtcCompileProgram's result
  std::string log;                     // the compiler's log
  std::string code;                    // on success: a cubin for sm_XX, PTX for compute_XX
  std::string option;                  // the architecture option given ("--gpu-architecture=sm_90")
  // Where NVRTC's builtins library could not be loaded, why (load_builtins):
  // for a failure's message; "" when it was loaded.
  std::string builtins;
};

// Compiles `source` (named `name` in the log) for `arch` (sm_XX: a cubin;
// compute_XX: PTX), with `extra` options after the architecture. Loads the
// builtins library first. A compile that fails is a result (status, log); any
// other NVRTC call that fails throws Error.
Compiled compile(const std::string& source, const std::string& name, const std::string& arch,
                 const std::vector<std::string>& extra = {});

// NVRTC's "major.minor" (throws Error when nvrtcVersion fails).
std::string version();

// The architectures this NVRTC compiles for (90 for sm_90), oldest first.
std::vector<int> supported_archs();

}  // namespace scangen::nvrtc_support
