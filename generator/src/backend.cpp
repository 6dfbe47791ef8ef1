#include "scangen/generator/backend.h"

#include <iterator>

namespace scangen::generator {

namespace {
struct BackendInfo {
  const char* name;
  const char* extension;
};
constexpr BackendInfo kBackends[] = {
#define X(e, s, ext) {s, ext},
    SCANGEN_BACKENDS(X)
#undef X
};
}  // namespace

const char* to_string(Backend b) { return kBackends[static_cast<int>(b)].name; }
const char* source_extension(Backend b) { return kBackends[static_cast<int>(b)].extension; }

std::optional<Backend> backend_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kBackends); ++i)
    if (name == kBackends[i].name) return static_cast<Backend>(i);
  return std::nullopt;
}

Backend backend_for(dsl::Target target) {
  switch (target) {
    case dsl::Target::Cuda:
      return Backend::Cuda;
    case dsl::Target::OpenCL:
      return Backend::OpenCL;
  }
  return Backend::Cuda;
}

}  // namespace scangen::generator
