// FNV-1a (64-bit), the project's one text hash: Spec::hash (the canonical
// text), the templates' hash in the runtime's cache key and the host headers'
// include guards. Its values are part of those keys and names: they must not
// change. Its offset basis is the project's own, 1469598103934665603 (one
// digit short of FNV's published 14695981039346656037): the multiply-xor
// steps are FNV-1a's, and changing the basis would change every key.
#pragma once

#include <cstdint>
#include <string_view>

namespace scangen::dsl {

constexpr uint64_t kFnv1aOffset = 1469598103934665603ull;  // see above
constexpr uint64_t kFnv1aPrime = 1099511628211ull;

// FNV-1a of the bytes of `s`, continuing from `h` (the offset basis to start).
constexpr uint64_t fnv1a(std::string_view s, uint64_t h = kFnv1aOffset) {
  for (unsigned char c : s) h = (h ^ c) * kFnv1aPrime;
  return h;
}

}  // namespace scangen::dsl
