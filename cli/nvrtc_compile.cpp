#include "nvrtc_compile.h"

#ifdef SCANGEN_HAVE_NVRTC
#include "nvrtc_program.h"
#endif

namespace scangen::cli {

#ifdef SCANGEN_HAVE_NVRTC

NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  namespace nvrtc = scangen::nvrtc_support;
  NvrtcResult out;
  try {
    nvrtc::Compiled c = nvrtc::compile(source, name, arch);
    out.log = std::move(c.log);
    switch (c.status) {
      case NVRTC_SUCCESS:
        out.status = NvrtcResult::Status::Ok;
        out.output = std::move(c.code);
        return out;
      case NVRTC_ERROR_INVALID_OPTION:
        out.status = NvrtcResult::Status::BadArch;
        return out;
      case NVRTC_ERROR_COMPILATION:
        out.status = NvrtcResult::Status::CompileError;
        return out;
      default:
        out.status = NvrtcResult::Status::Failed;
        out.log = nvrtc::describe("nvrtcCompileProgram", c.status) + (out.log.empty() ? "" : "\n" + out.log) +
                  (c.builtins.empty() ? "" : "\n" + c.builtins);
        return out;
    }
  } catch (const nvrtc::Error& e) {
    out.status = NvrtcResult::Status::Failed;
    out.log = e.what();
    return out;
  }
}

std::string nvrtc_version() {
  try {
    return "NVRTC " + scangen::nvrtc_support::version();
  } catch (const scangen::nvrtc_support::Error&) {
    return "NVRTC (unknown version)";
  }
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
