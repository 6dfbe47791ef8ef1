#include "nvrtc_compile.h"

#ifdef SCANGEN_HAVE_NVRTC
#include <nvrtc.h>

#include "nvrtc_builtins.h"

#include <vector>
#endif

namespace scangen::cli {

#ifdef SCANGEN_HAVE_NVRTC

namespace {

// Deletes the program on every path out.
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

NvrtcResult failed(const char* what, nvrtcResult r) {
  NvrtcResult out;
  out.status = NvrtcResult::Status::Failed;
  out.log = std::string(what) + " failed: " + nvrtcGetErrorString(r);
  return out;
}

}  // namespace

NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  const bool ptx = arch.rfind("compute_", 0) == 0;
  const std::string& builtins = nvrtc_support::load_builtins();  // "" once loaded
  Program prog;
  nvrtcResult r = nvrtcCreateProgram(&prog.p, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS) return failed("nvrtcCreateProgram", r);
  const std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str()};
  r = nvrtcCompileProgram(prog.p, 1, options);

  NvrtcResult out;
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(prog.p, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    std::vector<char> log(log_size);
    if (nvrtcGetProgramLog(prog.p, log.data()) == NVRTC_SUCCESS) out.log.assign(log.data());
  }
  if (r == NVRTC_ERROR_INVALID_OPTION) {
    out.status = NvrtcResult::Status::BadArch;
    return out;
  }
  if (r == NVRTC_ERROR_COMPILATION) {
    out.status = NvrtcResult::Status::CompileError;
    return out;
  }
  if (r != NVRTC_SUCCESS) {
    NvrtcResult f = failed("nvrtcCompileProgram", r);
    f.log += out.log.empty() ? "" : "\n" + out.log;
    f.log += builtins.empty() ? "" : "\n" + builtins;
    return f;
  }

  size_t size = 0;
  r = ptx ? nvrtcGetPTXSize(prog.p, &size) : nvrtcGetCUBINSize(prog.p, &size);
  if (r != NVRTC_SUCCESS) return failed(ptx ? "nvrtcGetPTXSize" : "nvrtcGetCUBINSize", r);
  std::string binary(size, '\0');
  r = ptx ? nvrtcGetPTX(prog.p, binary.data()) : nvrtcGetCUBIN(prog.p, binary.data());
  if (r != NVRTC_SUCCESS) return failed(ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", r);
  if (ptx && !binary.empty() && binary.back() == '\0') binary.pop_back();  // the PTX text without its terminator
  out.status = NvrtcResult::Status::Ok;
  out.output = std::move(binary);
  return out;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "NVRTC (unknown version)";
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

#else

NvrtcResult nvrtc_compile(const std::string&, const std::string&, const std::string&) {
  NvrtcResult out;
  out.status = NvrtcResult::Status::Unavailable;
  out.log = "this scangen was built without NVRTC (CMake's find_package(CUDAToolkit) found none)";
  return out;
}

std::string nvrtc_version() { return ""; }

#endif

}  // namespace scangen::cli
