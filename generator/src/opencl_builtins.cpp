// The OpenCL 2.0 work-group functions: templates/opencl/builtins.cl, filled
// once per element type and operation.
#include "scangen/generator/opencl_builtins.h"

#include <string>
#include <string_view>
#include <vector>

#include "text.h"

namespace scangen::generator {

namespace {

// One element type of the work-group functions.
struct ElementType {
  const char* name;          // the OpenCL C type
  const char* member;        // its member of scangen_wg_slot
  const char* extension;     // the extension that must be defined, or nullptr
  const char* add;           // the body of scangen_wg_add(a, b)
  const char* min;           // ... of scangen_wg_min(a, b)
  const char* max;           // ... of scangen_wg_max(a, b)
  const char* min_identity;  // the identity of min: the type's largest value
  const char* max_identity;  // the identity of max: the type's smallest value
};

const std::vector<ElementType>& element_types() {
  static const std::vector<ElementType> types = {
      {"int", "i", nullptr, "as_int(as_uint(a) + as_uint(b))", "min(a, b)", "max(a, b)", "INT_MAX", "INT_MIN"},
      {"uint", "u", nullptr, "a + b", "min(a, b)", "max(a, b)", "UINT_MAX", "0u"},
      {"long", "l", nullptr, "as_long(as_ulong(a) + as_ulong(b))", "min(a, b)", "max(a, b)", "LONG_MAX", "LONG_MIN"},
      {"ulong", "ul", nullptr, "a + b", "min(a, b)", "max(a, b)", "ULONG_MAX", "0ul"},
      {"float", "f", nullptr, "a + b", "fmin(a, b)", "fmax(a, b)", "INFINITY", "-INFINITY"},
      {"double", "d", "cl_khr_fp64", "a + b", "fmin(a, b)", "fmax(a, b)", "(double)INFINITY", "-(double)INFINITY"},
      {"half", "h", "cl_khr_fp16", "a + b", "fmin(a, b)", "fmax(a, b)", "(half)INFINITY", "-(half)INFINITY"},
  };
  return types;
}

struct Operation {
  const char* name;  // add, min, max
  const char* identity(const ElementType& t) const {
    const std::string_view n = name;
    if (n == "min") return t.min_identity;
    if (n == "max") return t.max_identity;
    return "0";
  }
  const char* body(const ElementType& t) const {
    const std::string_view n = name;
    if (n == "min") return t.min;
    if (n == "max") return t.max;
    return t.add;
  }
};

const Operation kOperations[] = {{"add"}, {"min"}, {"max"}};

}  // namespace

std::string emit_opencl_builtins() {
  detail::Holes h;
  for (const ElementType& t : element_types()) {
    detail::Holes& th = h.add("type");
    th.set("SG_T", t.name).set("SG_M", t.member).when("extension", t.extension != nullptr);
    if (t.extension) th.set("SG_EXTENSION", t.extension);
    for (const Operation& op : kOperations)
      th.add("op")
          .set("SG_OP", op.name)
          .set("SG_BODY", op.body(t))
          .set("SG_IDENTITY", op.identity(t))
          .set("SG_COMBINE_FN", "scangen_wg_" + std::string(op.name))
          .set("SG_SCAN_FN", "scangen_wg_scan_" + std::string(op.name))
          .set("SG_REDUCE_FN", "scangen_wg_reduce_" + std::string(op.name));
  }
  return detail::fill_template("opencl/builtins.cl", h);
}

}  // namespace scangen::generator
