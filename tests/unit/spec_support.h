// Test helpers shared by the unit tests: load scan text that must check cleanly.
#pragma once

#include <catch2/catch.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "scangen/dsl/dsl.h"

namespace scangen::test {

// Loads `text`; REQUIREs that it checks cleanly (printing the diagnostics if not).
inline dsl::Document load_ok(const std::string& text, const std::string& name = "test.scan") {
  dsl::Document doc = dsl::load(name, text);
  INFO("source:\n" << text << "\ndiagnostics:\n" << doc.diagnostics().render());
  REQUIRE(doc.ok());
  return doc;
}

// The Spec of `text`: its only scan, or the one named `scan`.
inline dsl::Spec spec_of(const std::string& text, const std::string& scan = "") {
  dsl::Document doc = load_ok(text);
  INFO("source:\n" << text);
  if (scan.empty()) {
    REQUIRE(doc.specs().size() == 1);
    return doc.specs().front();
  }
  const dsl::Spec* s = doc.find(scan);
  REQUIRE(s != nullptr);
  return *s;
}

// The byte offset in a value of type `t` of the scalar at `path` (field indices, as dsl::Leaf has them).
inline size_t leaf_offset(const dsl::Type& t, const std::vector<int>& path) {
  size_t off = 0;
  dsl::Type at = t;
  for (int i : path) {
    const dsl::Field& f = at.struct_type().fields[static_cast<size_t>(i)];
    off += f.offset;
    at = f.type;
  }
  return off;
}

}  // namespace scangen::test
