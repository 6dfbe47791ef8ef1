// The backward pass of a scan, derived from its operator: a scan of its own,
// written as .scan text, that gives the gradient of a loss with respect to
// the scan's input from the gradient with respect to its output.
//
// For the inclusive scan y[i] = y[i-1] . x[i] (y[-1] the seed: init or the
// identity) and the gradient yb[i] of a loss L with respect to y[i]:
//
//   g[i]  = dL/dy[i], through every later y:  g[n-1] = yb[n-1],
//           g[i] = yb[i] + A[i]^T g[i+1],  A[i] = d(a . b)/da at (y[i], x[i+1])
//   xb[i] = dL/dx[i] = B[i]^T g[i],        B[i] = d(a . b)/db at (y[i-1], x[i])
//
// (A and B are k x k over the k float scalars of the element type; the
// integer and bool scalars carry no gradient). Both are one affine map per
// element on the vector (g, xb), read from the end:
//
//   (g, xb)[i] = F_i((g, xb)[i+1]),  F_i(g, z) = (yb[i] + M g, B^T yb[i] + N g),
//   M = A[i]^T, N = B[i]^T A[i]^T,
//
// and composing such maps is associative, with the identity map as its
// identity: so the whole backward pass is one scan, run from the end, whose
// element is the map [[M, 0], [N, p I]] with its offset (v, w) (p = 0 for an
// element, 1 for the identity). The scan's inclusive result at i holds
// g[i] in v and xb[i] in w.
//
// The text is a flat device scan in the direction opposite to the spec's, of
// one input array of {yp, x, yb, last} structs in the array's order (yp =
// y[i-1], the forward scan's exclusive result; x = x[i]; yb = the gradient of
// the inclusive result y[i]; last: nonzero for the last element of a line in
// the forward scan's order); it reads y[i] and x[i+1] from the element after
// this one in the forward scan's order (next, or prev for a reverse scan).
// The maps of the elements marked last ignore what comes after them, so the
// lines of an array, laid end to end, are differentiated by one scan.
#pragma once

#include <string>
#include <vector>

#include "scangen/dsl/derivative.h"
#include "scangen/dsl/spec.h"

namespace scangen::dsl {

struct Adjoint {
  std::string text;          // a .scan file: the types and one scan
  std::string name;          // the scan's name
  std::string input_type;    // one input element: { yp, x, yb } of the spec's type, and last (u8)
  std::string float_type;    // f32 or f64: the type of M, N, v, w and p
  std::vector<Leaf> leaves;  // the k float scalars of the spec's type; w0 ... w(k-1) are their gradients
};

// The backward scan of `spec`. Throws DerivativeError, naming the expression,
// where the combine cannot be differentiated, where the type has no float
// scalar, or where the spec has what the backward pass does not derive (a
// convert, several input arrays, segments, a shape, fused outputs, a level
// other than device).
Adjoint adjoint(const Spec& spec);

}  // namespace scangen::dsl
