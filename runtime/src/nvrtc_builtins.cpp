#include "nvrtc_builtins.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include <mutex>

namespace scangen::nvrtc_support {

namespace {

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

std::string load_once() {
  int major = 0, minor = 0;
  const nvrtcResult r = nvrtcVersion(&major, &minor);
  if (r != NVRTC_SUCCESS) return std::string("nvrtcVersion failed: ") + nvrtcGetErrorString(r);
  const std::string name = "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);

  // Already loaded (by an earlier user, or found by the loader's configuration
  // when libnvrtc was loaded): nothing to do.
  if (dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD)) return "";

  // The directory libnvrtc was loaded from.
  Dl_info info{};
  std::string dir;
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) {
    dir = info.dli_fname;
    const auto slash = dir.rfind('/');
    dir = slash == std::string::npos ? std::string() : dir.substr(0, slash + 1);
  }
  std::string why;
  if (!dir.empty()) {
    // Kept loaded for the life of the process: NVRTC uses it on every compile.
    if (dlopen((dir + name).c_str(), RTLD_NOW | RTLD_GLOBAL)) return "";
    why = dir + name + ": " + dl_error();
  } else {
    why = "the directory of libnvrtc is unknown (dladdr failed)";
  }
  // Last, the loader's own search (ld.so.conf, LD_LIBRARY_PATH).
  if (dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL)) return "";
  return "could not load NVRTC's builtins library: " + why + "; " + name + " by name: " + dl_error();
}

}  // namespace

const std::string& load_builtins() {
  static std::once_flag once;
  static std::string result;
  std::call_once(once, [] { result = load_once(); });
  return result;
}

}  // namespace scangen::nvrtc_support
