// How DSL names and types are spelled in the generated C (CUDA C++ and OpenCL C).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scangen/dsl/types.h"

namespace scangen::generator::detail {

// A DSL identifier as a C identifier: the name itself, unless CUDA C++ or
// OpenCL C reserves it (a keyword, a built-in type, a predefined macro), or it
// could collide with a name the preamble defines (scangen_*, P_*); then with
// '_' appended. DSL names such as `int`, `local` or `and` are legal fields.
std::string c_identifier(std::string_view dsl_name, std::string_view prefix);

// The C names of a struct's fields, in declaration order: c_identifier of
// each, made unique within the struct.
std::vector<std::string> field_names(const dsl::StructType& s, std::string_view prefix);

// The type a scalar is kept in memory as (struct fields, P_T, parameters):
// scangen_i32 ..., scangen_f16 (the IEEE binary16 bits), bool.
std::string storage_type(dsl::ScalarKind k);
// The type a scalar is computed in: storage_type, but float for f16.
std::string register_type(dsl::ScalarKind k);
// P_<StructName>.
std::string struct_name(std::string_view prefix, const dsl::StructType& s);

enum class Form { Storage, Register };
// storage_type / register_type of a scalar, struct_name of a struct.
std::string c_type(const dsl::Type& t, std::string_view prefix, Form form);

// `s` as the body of a C string literal.
std::string c_string_escape(std::string_view s);

}  // namespace scangen::generator::detail
