// The segmented-scan sweep (segments given at run time, device level) every
// backend's execution test runs: the three forms (flags, offsets, keys) x
// modes x {i32 with and without init, f32 (against the float64 reference with
// a tolerance), the non-commutative affine map} with and without per-segment
// aggregates, over segment structures (empty segments, all of length 1, one
// segment over everything, random lengths of mean 3 and 300, starts at tile
// boundaries and one either side) and sizes (0, 1, tile +- 1, several tiles);
// and segments by key with key_equal (keys equal modulo 8, f32 keys by their
// floor, the order-sensitive `before <= own`) with i32 and affine values.
// Outputs are poisoned, with a poisoned tail that must survive; the seed is
// printed on failure. Reverse cases (reverse = true; every form) run the
// same structures and starts on and around the tile boundaries of the
// reversed array (n - k x tile, "end_tiles").
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "scan_sweep.h"

namespace scangen::test {

// The segmented cases for a backend.
std::vector<ScanCase> segmented_cases(generator::Backend backend);

// The segment structures, by name (a reverse scan's have one more).
std::vector<std::string> segment_structures(bool reverse = false);

// The counts a segmented case runs at.
std::vector<uint64_t> segmented_sizes(const generator::Plan& plan);

// One call of the segmented scan on n random inputs with segments of the
// named structure, compared with the reference: empty when all match.
std::string run_segmented_case(const ScanCase& c, const generator::Plan& plan, uint64_t n, const std::string& structure,
                               std::mt19937_64& rng, const LaunchKernel& launch, DeviceState& state);

// Every case x size x structure; the number of calls.
int check_segmented_cases(const std::vector<ScanCase>& cases, const std::vector<generator::Plan>& plans,
                          const LaunchKernel& launch);

}  // namespace scangen::test
