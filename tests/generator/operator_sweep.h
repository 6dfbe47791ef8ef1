// What the generator's compile and execution tests sweep: every example, plus
// specs written here that cover every scalar type, operator, math built-in,
// conversion, let, ?:, select, nested struct and struct size. Each spec comes
// with small test kernels that apply its operator elementwise:
//
//   P_test_combine(a, b, out, n)   out[i] = P_combine(a[i], b[i])
//   P_test_convert(in, out, n)     out[i] = P_convert(in[i])
//   P_test_constants(out)          out[0] = P_identity(), out[1] = P_init()
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"
#include "scangen/reference/reference.h"

namespace scangen::test {

struct SweepSpec {
  dsl::Spec spec;
  // Zero (the default) for operators the reference computes correctly
  // rounded, which the kernels must match exactly; exp and log only promise
  // a few ulp on either backend.
  ref::Tolerance tolerance;
};

// The examples under examples/.
std::vector<SweepSpec> example_specs();
// The specs written for the sweep (tests/generator/specs/*.scan and the
// per-kind specs generated in operator_sweep.cpp).
std::vector<SweepSpec> coverage_specs();

// The spec's preamble followed by its test kernels.
std::string test_program(const dsl::Spec& spec, generator::Backend backend);

// Random elements of `t` (ref::fill_random), with about one float scalar in
// eight replaced by an edge value: +-0, +-inf, NaN, subnormals, the largest
// finite value, and values at and around the integer limits (2^7 ... 2^64),
// so that saturating conversions, NaN and overflow are exercised.
std::vector<uint8_t> random_values(const dsl::Type& t, size_t count, std::mt19937_64& rng);

// Runs test kernel `kernel` over `n` items. Its arguments: a device copy of
// each of `inputs`, then the output buffer of `out_bytes` (filled with 0xAB
// bytes first, so that an element the kernel skips shows), then, when
// `pass_n`, n as a 32-bit unsigned. Returns the output buffer.
using RunKernel = std::function<std::vector<uint8_t>(const std::string& kernel,
                                                     const std::vector<const std::vector<uint8_t>*>& inputs,
                                                     size_t out_bytes, size_t n, bool pass_n)>;

// Runs the spec's three test kernels on `n` random elements and compares
// their results with the reference's: empty when all match, otherwise the
// first mismatches of each kernel with their inputs.
std::string run_and_compare(const SweepSpec& s, size_t n, std::mt19937_64& rng, const RunKernel& run);

// The run's seed (test_tier.h's tier_seed: SCANGEN_TEST_SEED, else one
// drawn per process), printed by the tests on failure.
uint64_t test_seed();

}  // namespace scangen::test
