// Symbolic derivatives of the DSL's functions: the partial derivative of a
// function's result with respect to one float scalar of one of its
// parameters, itself a function of the same parameters (forward mode over
// the expression tree). The backward pass of a scan is built from these: the
// Jacobians of combine(x, y) with respect to x and to y.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "scangen/dsl/spec.h"

namespace scangen::dsl {

// What cannot be differentiated, with the place in the source and the
// expression: a derivative asked for with respect to an integer or bool
// scalar.
struct DerivativeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A float scalar of a value of type `t`: the field indices from the value to
// it (empty for a scalar type), and its name as the DSL spells it (x.a.b).
struct Leaf {
  std::vector<int> path;
  std::string name;
};
// The float scalars of `t`, in declaration order (depth first); `name` is the
// value's own name.
std::vector<Leaf> float_leaves(const Type& t, const std::string& name);

// d f / d p, p the scalar at `path` of parameter `param` of `f`: a Function
// with f's parameters whose result (of f's result type) holds, in each float
// scalar, the derivative of that scalar of f's result; integer and bool
// scalars of the result hold 0 / false (they carry no derivative). Where f
// picks one operand (min, max, fmin, fmax, abs, clamp, select, ?:), the
// derivative is the picked operand's, as the primal picks it (ties and NaNs
// included); floor and ceil have derivative 0. Throws DerivativeError where
// the scalar is not a float.
Function derivative(const Function& f, size_t param, const std::vector<int>& path);

}  // namespace scangen::dsl
