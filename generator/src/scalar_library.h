// The scalar semantics of scangen's DSL (those of scangen::ref), spelled in
// CUDA C++ or OpenCL C.
//
// The expression writer asks for each operation and gets C expression text
// back. Where a C operator has the reference's meaning it is used as is; where
// it does not (signed overflow is undefined in C, narrow types promote to int,
// x / 0 traps, shifts past the width are undefined, float -> int overflow is
// undefined, f16 must round after every operation, CUDA may contract a * b + c
// into an fma) the text calls a helper function, whose definition the library
// records. definitions() then emits only the helpers that were used.
//
// Values are in register form: every scalar in its storage type except f16,
// which is computed in float (holding a value that f16 represents exactly).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"

namespace scangen::generator::detail {

class ScalarLibrary {
 public:
  explicit ScalarLibrary(Backend backend) : backend_(backend) {}

  Backend backend() const { return backend_; }

  // The storage and function qualifiers of every preamble function.
  const char* function_qualifiers() const;

  // A constant of kind `k` (a dsl::Literal) in register form.
  std::string literal(dsl::ScalarKind k, const dsl::Literal& lit) const;

  std::string unary(dsl::UnaryOp op, dsl::ScalarKind k, const std::string& a);
  // `k` is the operands' kind; `count` the kind of a shift's right operand,
  // which may differ from the value's.
  std::string binary(dsl::BinaryOp op, dsl::ScalarKind k, dsl::ScalarKind count, const std::string& a,
                     const std::string& b);
  // A comparison through a helper function, which the compiler does not warn
  // about as it might about the same comparison spelled out.
  std::string opaque_comparison(dsl::BinaryOp op, dsl::ScalarKind k, const std::string& a, const std::string& b);
  // A math built-in other than select (which is a conditional).
  std::string call(dsl::MathFn fn, dsl::ScalarKind k, const std::vector<std::string>& args);
  std::string convert(dsl::ScalarKind from, dsl::ScalarKind to, const std::string& a);

  // Between storage and register form (f16 bits <-> float; others unchanged).
  std::string load(dsl::ScalarKind k, const std::string& storage);
  std::string store(dsl::ScalarKind k, const std::string& value);

  // The scalar typedefs (scangen_i8 ... scangen_f16), guarded; scangen_f64
  // only `with_f64`, which on OpenCL needs cl_khr_fp64 enabled before it.
  std::string scalar_typedefs(bool with_f64) const;
  // The definition of every helper used so far, dependencies first, each
  // guarded so that several preambles can share a translation unit.
  std::string definitions() const;

 private:
  // Records helper `name` (once) and returns it; `text` is its definition
  // after the qualifiers, with $N standing for its name.
  std::string helper(const std::string& name, const std::string& text);

  std::string integer_helper(const char* op, dsl::ScalarKind k);
  std::string float_to_int_helper(dsl::ScalarKind from, dsl::ScalarKind to);
  std::string float_math(dsl::MathFn fn, dsl::ScalarKind k, const std::vector<std::string>& args);
  // f16 helpers: bits -> float, float or double -> bits, a float or double
  // rounded to an f16 value (in float), and the f16 fma.
  std::string f16_to_f32();
  std::string to_f16(dsl::ScalarKind from);
  std::string round_f16(const std::string& v, dsl::ScalarKind from = dsl::ScalarKind::F32);
  std::string fma_f16(const std::vector<std::string>& args);

  Backend backend_;
  std::set<std::string> defined_;
  std::vector<std::pair<std::string, std::string>> helpers_;  // (name, definition), in order of need
};

}  // namespace scangen::generator::detail
