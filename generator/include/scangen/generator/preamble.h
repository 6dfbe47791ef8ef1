// The operator preamble: for one Spec, self-contained source text (no #include)
// that defines what the scan templates are written against. With P the scan's
// name:
//
//   P_T, P_In            the element and input types; struct types are named
//                        P_<StructName> and have the C layout of dsl::StructType
//   P_combine(x, y)      the operator; x is the earlier element (never swapped)
//   P_identity()         the identity of combine
//   P_init()             the seed of every segment (the identity unless `init`)
//   P_convert(v)         input -> element (a copy when the types agree)
//   P_key_equal(a, b)    segments = keys with key_equal: whether key b (an
//                        element's) is in the segment of key a (the one before)
//
// The functions compute exactly what scangen::ref computes: integers wrap at
// their width, shift counts are taken modulo the width, x / 0 == x % 0 == 0,
// MIN / -1 == MIN, float -> int truncates and saturates (NaN -> 0), and f16 is
// stored as its 16 bits (scangen_f16) and computed in float, rounded to f16
// once per operation (fma and f64 -> f16 included). Signed overflow is never
// undefined behaviour in the emitted code: it is computed in the unsigned type
// of the same width.
//
// CUDA: every function is `static __device__ __forceinline__`; NVRTC compiles
// the text without any header. OpenCL: OpenCL C 1.2, f16 through vload_half /
// vstore_half (no cl_khr_fp16 needed), f64 through cl_khr_fp64.
//
// Several preambles (of scans with different names) may share one translation
// unit: the scalar typedefs and helper functions they have in common are
// guarded.
#pragma once

#include <string>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"

namespace scangen::generator {

struct PreambleOptions {
  // The operator bodies carry `#line N "file.scan"`, so a compile error in an
  // operator points at the .scan source. After each body a `#line` maps the
  // text back to the generated source: to `source_name` (empty: the scan's
  // name + source_extension()), where the preamble's first line is line
  // `first_line`.
  std::string source_name;
  int first_line = 1;
};

std::string emit_preamble(const dsl::Spec& spec, Backend backend, const PreambleOptions& options = {});

// The names emit_preamble defines for `spec`.
struct PreambleNames {
  std::string value_type;  // P_T
  std::string input_type;  // P_In
  std::string combine;     // P_combine
  std::string identity;    // P_identity
  std::string init;        // P_init
  std::string convert;     // P_convert
  std::string key_equal;   // P_key_equal (defined only with key_equal)
  std::string out_type;    // P_Out: the fused output's element type (scatter_type), defined with scatter only
  std::vector<std::string> input_arrays;  // P_In_<x>: input = T1, T2, ...; each array's type, x convert's parameter
};
PreambleNames preamble_names(const dsl::Spec& spec);

// The fused outputs' names (spec.scatter, then spec.scatter_named in order):
// the argument ("scattered", or NAME), and the preamble's element type and
// functions of each (P_Out, P_scatter_value, ...; P_Out_NAME,
// P_scatter_value_NAME, ... for the named ones).
struct FusedOutputNames {
  std::string name, out_type, value, at, when;
};
std::vector<FusedOutputNames> fused_output_names(const dsl::Spec& spec);

// Compiler options under which the preamble's float results are the
// reference's to the bit. OpenCL's default single-precision divide and sqrt
// may be off by 2.5 / 3 ulp, so OpenCL needs
// -cl-fp32-correctly-rounded-divide-sqrt (legal only where the device reports
// CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT). CUDA needs nothing: the preamble calls
// the _rn intrinsics, which --fmad, --prec-div and --prec-sqrt do not change.
// Neither backend may flush denormals (--ftz=true, --use_fast_math,
// -cl-denorms-are-zero, -cl-fast-relaxed-math).
const char* exact_float_options(Backend backend);

}  // namespace scangen::generator
