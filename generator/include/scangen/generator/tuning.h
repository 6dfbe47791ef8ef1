// Tuning of device-level scans: the shape of a tile and the pacing of the
// decoupled look-back, chosen per target (backend and architecture) and
// element size from one table (generator/src/tuning.cpp, each entry with a
// line on the measurement behind it; bench/RESULTS.md has the details). A
// spec's `threads` / `items` override the table's; the rest is for
// experiments (bench/tune_bench).
#pragma once

#include <string>
#include <utility>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"

namespace scangen::generator {

// What a plan is made for: a backend and, for CUDA, the architecture.
struct Target {
  Target(Backend b = Backend::Cuda, int a = 0, std::string d = {}) : backend(b), arch(a), device(std::move(d)) {}
  Backend backend = Backend::Cuda;
  int arch = 0;  // CUDA: compute capability major x 10 + minor (90: sm_90); 0: any (always, on OpenCL)
  // CUDA: the device's name as the driver gives it (cuDeviceGetName, "NVIDIA H200"); rows of the table
  // for a device serve a known architecture's target whose name contains theirs ("H200"). Empty: none.
  std::string device;
  // Knobs over the table's entry (parse_tuning's form, "raw_tile=1 items=8"), for experiments: `scangen
  // emit --tuning`, the runtime's SCANGEN_TUNING. Empty: the table's entry as it is.
  std::string tuning;
};
// "cuda sm_90", "cuda, any architecture", "opencl".
std::string to_string(const Target& t);
// The architecture of NVRTC's "sm_90", "sm_90a" or "compute_90": 90; 0 for
// anything else.
int cuda_arch_number(const std::string& arch);

struct DeviceTuning {
  int threads = 256;          // per block
  int items = 16;             // per thread
  int min_blocks = 0;         // CUDA: __launch_bounds__ minimum resident blocks per SM (0: none)
  int first_poll_ns = 0;      // CUDA look-back: sleep after publishing the tile's total, before
                              // the first read of the predecessors' statuses
  int first_poll_from = 512;  // CUDA look-back: the first tile that sleeps so (the tiles before
                              // it start together, and small scans are all latency)
  int poll_ns = 32;           // CUDA look-back: sleep between reads of a status not yet written
  int streaming = 0;          // CUDA: 1: the 16-byte loads and stores of full tiles are marked
                              // streaming (evict first: ld.global.cs / st.global.cs)
  int packed = 1;             // CUDA look-back: 0: 1- and 2-byte integer and f16 sums scan element by
                              // element, not in packed words (Plan::packed_lanes), to compare
  int words = 1;              // CUDA: 0: staged loads and stores element by element, not in
                              // 16-byte words (OpenCL's way), to compare
  int raking = 0;             // CUDA device scans: 1: each tile scanned by raking (OpenCL's block
                              // algorithm) instead of warp_scans, to compare
  int status_ops = 0;         // CUDA look-back: how statuses are published and read (SG_LB_STATUS_OPS,
                              // cuda/lookback.cuh): 0 atomic exchanges; 1 relaxed stores (statuses of
                              // one 64-bit word); 2 volatile loads and stores (the kernels before
                              // 2026-11-27), to compare
  int tagged_words = 0;       // CUDA look-back, elements over 8 bytes: 1 (the table's, sm_90 rows):
                              // each 32-bit word of a status with its own tag in a 64-bit slot
                              // (StatusLayout::TaggedWords, no fences); 0: the tag after the value
                              // and a fence (StatusLayout::TagThenWords, the kernels before 2026-11-27)
  int pdl = 0;                // CUDA flat look-back: 1 (the table's): the plan's zero kernel
                              // (Plan::zero_kernel), and the scan kernel waits for the kernel before
                              // it (griddepcontrol.wait, sm_90 and later) before it reads anything, so
                              // that it can be launched as that kernel's programmatic dependent
                              // (zero_by_kernel); 0: neither (the workspace zeroed by a memset)
  int raw_tile = 0;           // device look-back scans with fused outputs in the striped order: 1: the
                              // tile's inputs kept in shared memory from the loads (Plan::raw_tile)
  int arch = 0;               // the architecture the entry was measured on (0: none)
  const char* device = "";    // the device the entry is for ("H200"; empty: every device of arch)
  const char* why = "";       // the measurement behind the entry
};

// The table's entry for a device scan on a target: the target's
// architecture's, else the backend's default (CUDA: the sm_90 entries).
// Where the architecture is known, an entry for the target's device
// (Target::device) comes before the architecture's.
DeviceTuning device_tuning(const dsl::Spec& spec, const Target& target);
// The same for the backend's default target (any architecture).
DeviceTuning device_tuning(const dsl::Spec& spec, Backend backend);

// "threads=128 items=24 min_blocks=0 first_poll_ns=600 first_poll_from=512 poll_ns=100
// streaming=0 packed=1 words=1 raking=0 status_ops=0 tagged_words=0 pdl=0",
// any subset, separated by spaces or commas, applied on top of `base`.
// Throws std::invalid_argument naming the bad part.
DeviceTuning parse_tuning(const std::string& text, DeviceTuning base);

// The same form, every knob.
std::string to_string(const DeviceTuning& t);

}  // namespace scangen::generator
