// The planning rules that read a spec, a type or a template's path alone, no
// Plan: the limits of a block's shared memory and the look-back's workspace
// header, the spec checks' failure, which templates need lanes or the
// counter's update, the sums scanned in packed words, the dialect, the
// segmented pair's size. Shared by the plan's steps (plan_steps.h), the
// tuning table (tuning.cpp) and the emitter; defined in plan*.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "scangen/dsl/spec.h"
#include "scangen/generator/backend.h"

namespace scangen::generator::detail {

// The most static shared memory a CUDA block may declare, and a bound that
// common OpenCL GPUs (32 to 64 KiB of local memory) honour as well.
constexpr size_t kMaxSharedBytes = 48 * 1024;
// The most shared memory a CUDA block of architecture `arch` (90: sm_90) may
// have with dynamic shared memory allowed past 48 KiB by cuFuncSetAttribute
// (the CUDA Programming Guide's table of compute capabilities); kMaxSharedBytes
// where the architecture is unknown (0) or older than sm_70.
size_t max_block_shared_bytes(int arch);
// Bytes before the tile statuses in a decoupled look-back workspace: the ticket.
constexpr uint64_t kWorkspaceHeader = 16;

[[noreturn]] void fail(const dsl::Spec& spec, const std::string& why);

// Whether a template scans lanes with the plan's lane exchange.
bool needs_lanes(const std::string& path);
// Whether a template calls the running-total counter's atomic update, which
// the emitter writes before it for a plan with a counter.
bool needs_counter_update(const std::string& path);
// Whether template `path`, in a plan's head-flag pass, takes the scan's own names (the pair type and the
// public functions) rather than the pair scan's.
bool takes_scan_names(const std::string& path);

// Whether the scan is a sum of 1- or 2-byte integers (wrapping) or of f16
// that a CUDA look-back tile may scan in packed words (op = add on i8 / u8 /
// i16 / u16 / f16, the input of the same type, no convert, flat, forward, no
// fused outputs):
// the spec's part of Plan::packed_lanes, which also needs whole 16-byte words
// per thread; the tuning table has rows of its own for these (tuning.cpp).
bool packable_sum(const dsl::Spec& s);

// The dialect (SG_FN, SG_KERNEL, ...) the emitter writes first.
const char* dialect_template(Backend backend);

// sizeof(P_seg) for a value of type `value`: the value, then a 32-bit count.
size_t segmented_pair_bytes(const dsl::Type& value);

}  // namespace scangen::generator::detail
