// The C++ front end as a module that `scangen import` loads with dlopen, so
// that no other command of the program loads Clang's and LLVM's libraries.
#include "scangen/cxx/cxx.h"

extern "C" __attribute__((visibility("default"))) int scangen_cxx_import_v1(
    const std::string* header, const std::string* type_name, const std::string* op_name,
    const scangen::cxx::ImportOptions* options, std::string* text, std::string* diagnostics) {
  try {
    *text = scangen::cxx::import(*header, *type_name, *op_name, *options);
    return 0;
  } catch (const scangen::cxx::ImportError& e) {
    *diagnostics = e.diagnostics;
    return e.error_count > 0 ? e.error_count : 1;
  } catch (const std::exception& e) {
    *diagnostics = *header + ": error: internal error in the C++ front end: " + e.what() + "\n";
    return 1;
  }
}

// The resolver of `import "HEADER";` in .scan files (scangen/dsl/import.h).
extern "C" __attribute__((visibility("default"))) int scangen_cxx_import_operators_v1(
    const std::vector<scangen::dsl::CxxHeader>* headers, const std::vector<scangen::dsl::CxxOperatorRequest>* requests,
    scangen::dsl::CxxImportResult* result) {
  try {
    *result = scangen::cxx::import_operators(*headers, *requests);
    return 0;
  } catch (const std::exception& e) {
    result->diagnostics = "error: internal error in the C++ front end: " + std::string(e.what()) + "\n";
    result->errors = 1;
    return 1;
  }
}
