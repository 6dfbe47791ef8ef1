// The algorithm templates (templates/), embedded at build time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scangen::generator::detail {

struct EmbeddedTemplate {
  const char* path;  // relative to templates/, e.g. "common/api.h"
  const char* text;
};

// Every template, in the order the build listed them.
const std::vector<EmbeddedTemplate>& embedded_templates();

// The text of templates/<path>; throws std::logic_error when there is none.
const std::string& template_text(const std::string& path);

}  // namespace scangen::generator::detail
