// The warp- and block-level scans every backend's execution test sweeps:
// every algorithm x element type (i8, i32, i64, f16, f32, f64, and structs
// of 8, 16 and 24 bytes, the 16-byte one the non-commutative 2x2 matrix
// product) x mode, over logical-warp widths, block sizes and items per thread
// chosen so that every algorithm meets every width or size and every items
// count, plus init, aggregates, running totals and u8 -> u32 input; and
// reverse scans (the names hold "_rev_") of the affine and 2x2 matrix
// operators in every mode, with init, aggregates, u8 -> u32 and a running
// total.
//
// Inputs are random with a fresh seed; float inputs are drawn so that every
// partial result is exact (small integers, +-1 factors, signed permutation
// matrices), so that a float result must equal the float64 reference
// exactly, in whatever order the kernel combines (the stated tolerance is
// zero). Outputs are poisoned, with a poisoned tail past n that must survive.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/generator/plan.h"

namespace scangen::test {

struct ScanCase {
  dsl::Spec spec;
  std::string values;  // how inputs are drawn: "int", "small", "positive", "affine", "matrix", "affine64"
};

// The sweep for a backend (coalesced only on CUDA).
std::vector<ScanCase> scan_cases(generator::Backend backend);
// The NVRTC compile sweep: every algorithm x {i8, i32, i64, f16, f32, f64,
// 8-, 16-, 24-byte struct} x mode, at the algorithm's default shape.
std::vector<ScanCase> compile_cases();

// The counts to run a case at: 0, 1, 2, a segment -1 / +0 / +1, a block's
// worth +1 and a random count of a few blocks.
std::vector<uint64_t> scan_sizes(const generator::Plan& plan, std::mt19937_64& rng);

// A kernel argument: a device copy of buffers[value], or a scalar.
struct KernelArg {
  enum class Kind { Buffer, U64, U32 } kind;
  uint64_t value;
};
// The buffers in order, then n as a 64-bit unsigned.
std::vector<KernelArg> buffers_then_n(size_t buffers, uint64_t n);

// Launches `kernel` with `blocks` blocks of `threads` threads (no launch when
// blocks == 0) and the arguments `args`, having copied every buffer to the
// device; copies every buffer back afterwards.
using LaunchKernel = std::function<void(const std::string& kernel, std::vector<std::vector<uint8_t>>& buffers,
                                        const std::vector<KernelArg>& args, uint64_t blocks, int threads)>;

// Runs the plan's entry kernel on n random inputs and compares every output
// with the CPU reference: empty when all match, else what differs.
std::string run_scan_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, std::mt19937_64& rng,
                          const LaunchKernel& launch);

// Whether the sweeps also run api_test_kernel for a case: the per-type cases
// in mode both, without a running total.
bool has_api_kernel(const ScanCase& c);

// A kernel of the test's own, written in the portable dialect, that calls the
// public device functions of a scan (P_inclusive_exclusive, P_reduce,
// P_broadcast) the way a user's kernel would: append its text after the
// emitted source. P_api_kernel(in, inclusive, exclusive, reduced, broadcast, n)
// runs `groups` groups a block (0: the plan's), whatever the scan's own
// `threads`: a user's block may hold more logical warps than the scan's.
std::string api_test_kernel(const generator::Plan& plan, int groups = 0);
// Runs it on n random inputs and compares with the reference.
std::string run_api_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, std::mt19937_64& rng,
                         const LaunchKernel& launch, int groups = 0);
// A logical warp of 64 lanes, 2x2 matrices (non-commutative) with init, in
// mode both, at the default `threads` (64): for api_test_kernel with four
// groups a block.
ScanCase wide_warp_case();

// ---- device level ----------------------------------------------------------

// Device scans: both algorithms x {i32, u8 -> u32, f32, f64, affine, 2x2
// matrix} x modes, with init, aggregate and running-total variants; reverse
// scans ("_rev_") of the affine and matrix operators in every mode, and of
// i32 with init, u8 -> u32, f32, a running total and small tiles.
std::vector<ScanCase> device_cases(generator::Backend backend);
// Float min, max, fmin, fmax and add at warp, block and device level, in both
// modes with the aggregate, some reversed, on inputs with NaNs (at the start,
// in the middle, at the end, everywhere, nowhere) and -0.0 for every zero,
// compared with zeros' signs (values "nan"): run in full on every tier.
std::vector<ScanCase> nan_cases(generator::Backend backend);

// The counts a device case runs at: 0, 1, 2, tile - 1, tile, tile + 1, and
// 2^k - 1, 2^k + 1 for k up to log2_max.
std::vector<uint64_t> device_sizes(const generator::Plan& plan, int log2_max);

// What persists between calls of device scans: the workspace, with what
// every call left in it; any scan of either algorithm may take it next
// (run_device_case zeroes what a decoupled look-back call uses first, as the
// runtime and the host wrappers do).
struct DeviceState {
  std::vector<uint8_t> workspace;
  uint64_t calls = 0;
  // As the runtime keeps a Scan's own workspace for a plan with epoch_tags:
  // zeroed whole when new (or grown) and when generator::workspace_epoch_zero
  // says so, not before each call; epoch_calls counts the calls of more than
  // one tile since. Plans without epoch_tags are zeroed for each call anyway.
  bool epochs = false;
  uint64_t epoch_calls = 0;
};

// One call of the device scan on n random inputs (the running total, where
// there is one, carried in `counter` from call to call), compared with the
// reference: empty when all match.
// With in_place (one output, input type == element type), the output is the
// input buffer itself.
std::string run_device_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, std::mt19937_64& rng,
                            const LaunchKernel& launch, DeviceState& state, std::vector<uint8_t>& counter,
                            bool in_place = false);

}  // namespace scangen::test
