// A struct scan's input as one array per scalar field (a struct of arrays):
// the same scan with `input = T1, T2, ...;` (the fields' types, in the
// struct's order, nested structs' fields in place) and a convert that builds
// the input struct from one element of each array and then converts it as
// the spec's own convert does (docs/dsl.md §5.4). The Python package scans a
// tuple of arrays, one per field, this way, with no packing pass.
#pragma once

#include <optional>
#include <string>

#include "scangen/dsl/spec.h"

namespace scangen::dsl {

// The spec reading `spec.input`'s fields from arrays, or nullopt (with the
// reason in *why) where input arrays do not go: an input that is not a
// struct, one already given as arrays, more than eight fields, or a scan
// other than a flat, forward decoupled look-back device scan without
// `scatter`.
std::optional<Spec> with_field_arrays(const Spec& spec, std::string* why = nullptr);

}  // namespace scangen::dsl
