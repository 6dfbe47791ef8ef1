// The head-flag device functions of warp- and block-level scans (head_flags
// = true: P_inclusive_segmented, P_exclusive_segmented,
// P_inclusive_exclusive_segmented), called from a kernel of the test's own as
// a user's kernel would, against a CPU loop: non-commutative operators (affine
// maps on u32, 2x2 matrices of i64, whose pair is too large for shuffles), i32
// sums with init, init_applies_to = exclusive, every warp and block
// algorithm, several widths and block sizes, items per thread 1 to 4; head
// flags none, all, the first element's only, sparse and dense random (any
// nonzero byte starts a segment). Outputs are poisoned, with a poisoned tail
// that must survive; the seed is printed on failure.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scan_sweep.h"

namespace scangen::test {

// The head-flag cases for a backend (coalesced only on CUDA).
std::vector<ScanCase> head_flag_cases(generator::Backend backend);

// The test's kernel for a case, in the portable dialect, to append after the
// emitted source: P_heads_kernel(in, flags, inclusive, exclusive,
// inclusive_alone, exclusive_alone, totals, n), with ceil(n / (segment x
// groups per block)) blocks of the scan's threads.
std::string head_flag_test_kernel(const generator::Plan& plan);

// The emitted source of the plans (one file, as scangen emit writes it) and
// each plan's test kernel after it.
std::string head_flag_source(const std::vector<generator::Plan>& plans);

// The flag patterns, by name: "none", "all", "first", "sparse", "dense".
std::vector<std::string> head_flag_patterns();

// One call on n random inputs with flags of the named pattern, compared with
// the CPU loop: empty when all match, else what differs.
std::string run_head_flag_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, const std::string& pattern,
                               std::mt19937_64& rng, const LaunchKernel& launch);

// Every case x size x pattern (the seed printed on failure); the calls made.
int check_head_flag_cases(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans,
                          const LaunchKernel& launch);

}  // namespace scangen::test
