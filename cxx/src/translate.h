// Import's second stage, a request at a time: the operator (or key
// comparison) a request names, located and translated into a scan's .scan
// text. Refuses (Unsupported, diagnose.h) what is outside the subset.
#pragma once

#include <string>

#include "clang/AST/ASTContext.h"

#include "scangen/cxx/cxx.h"

namespace scangen::cxx::detail {

// The .scan text of a scan of `op_name` on the element `type_name` (checked
// where not empty), with `options`' name, identity, level and settings;
// `keys`: lines of the scan after the operator's (a scan by key's).
std::string translate(clang::ASTContext& ctx, const std::string& type_name, const std::string& op_name,
                      const ImportOptions& options, const std::string& keys = "");

// A key comparison translated: `key = K;` and `key_equal(a, b) = ...;`.
struct KeyEqual {
  std::string key, function;
};

// The key comparison `op_name` (bool eq(K a, K b), K a scalar): for a
// scan's `key_equal = OP;` and `scangen import --key-equal OP`.
KeyEqual translate_key_equal(clang::ASTContext& ctx, const std::string& op_name);

}  // namespace scangen::cxx::detail
