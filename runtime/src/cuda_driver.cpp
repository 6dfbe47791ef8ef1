#include "cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace scangen::runtime::detail {

const Driver* load_driver(std::string* why) {
  static Driver driver;
  static std::string failure;
  static bool loaded = false;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      failure = std::string("no CUDA driver could be loaded (") + (e ? e : "libcuda.so.1 not found") + ")";
      return;
    }
#define X(fn, symbol)                                                             \
  driver.fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, symbol));              \
  if (!driver.fn) {                                                               \
    failure = "the CUDA driver has no " symbol " (a driver older than CUDA 12?)"; \
    return;                                                                       \
  }
    SCANGEN_DRIVER_FUNCTIONS(X)
#undef X
    const CUresult r = driver.cuInit(0);
    if (r != CUDA_SUCCESS) {
      failure = describe(driver, "cuInit", r);
      return;
    }
    loaded = true;
  });
  if (!loaded && why) *why = failure;
  return loaded ? &driver : nullptr;
}

std::string describe(const Driver& d, const char* call, CUresult r) {
  const char* name = "?";
  const char* text = "";
  if (d.cuGetErrorName) d.cuGetErrorName(r, &name);
  if (d.cuGetErrorString) d.cuGetErrorString(r, &text);
  return std::string(call) + " failed: " + (name ? name : "?") + " (" + (text ? text : "") + ")";
}

}  // namespace scangen::runtime::detail
