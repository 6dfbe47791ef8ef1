#include "nvrtc_program.h"

#include "nvrtc_builtins.h"

namespace scangen::nvrtc_support {

std::string describe(const char* call, nvrtcResult code) {
  return std::string(call) + " failed: " + nvrtcGetErrorString(code);
}

Error::Error(const char* call, nvrtcResult code) : std::runtime_error(describe(call, code)), code_(code) {}

void check(nvrtcResult code, const char* call) {
  if (code != NVRTC_SUCCESS) throw Error(call, code);
}

Program::Program(const std::string& source, const std::string& name) {
  check(nvrtcCreateProgram(&program_, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
}

Program::~Program() {
  if (program_) nvrtcDestroyProgram(&program_);
}

nvrtcResult Program::compile(const std::vector<std::string>& options) {
  std::vector<const char*> pointers;
  for (const std::string& o : options) pointers.push_back(o.c_str());
  return nvrtcCompileProgram(program_, static_cast<int>(pointers.size()), pointers.data());
}

std::string Program::log() const {
  size_t size = 0;
  check(nvrtcGetProgramLogSize(program_, &size), "nvrtcGetProgramLogSize");
  std::string text(size, '\0');
  if (size) check(nvrtcGetProgramLog(program_, text.data()), "nvrtcGetProgramLog");
  return text.c_str();
}

std::string Program::ptx() const {
  size_t size = 0;
  check(nvrtcGetPTXSize(program_, &size), "nvrtcGetPTXSize");
  std::string text(size, '\0');
  check(nvrtcGetPTX(program_, text.data()), "nvrtcGetPTX");
  if (!text.empty() && text.back() == '\0') text.pop_back();  // the text without its terminator
  return text;
}

std::string Program::cubin() const {
  size_t size = 0;
  check(nvrtcGetCUBINSize(program_, &size), "nvrtcGetCUBINSize");
  std::string code(size, '\0');
  check(nvrtcGetCUBIN(program_, code.data()), "nvrtcGetCUBIN");
  return code;
}

Compiled compile(const std::string& source, const std::string& name, const std::string& arch,
                 const std::vector<std::string>& extra) {
  Compiled out;
  out.builtins = load_builtins();  // "" once loaded
  out.option = "--gpu-architecture=" + arch;
  std::vector<std::string> options = {out.option};
  options.insert(options.end(), extra.begin(), extra.end());
  Program program(source, name);
  out.status = program.compile(options);
  out.log = program.log();
  if (out.status == NVRTC_SUCCESS) out.code = arch.rfind("sm_", 0) == 0 ? program.cubin() : program.ptx();
  return out;
}

std::string version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> supported_archs() {
  int n = 0;
  check(nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<size_t>(n));
  check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

}  // namespace scangen::nvrtc_support
