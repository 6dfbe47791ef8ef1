// The steps make_plan takes, in order, each one decision (plan.cpp), and
// what the later ones share: the kernels (plan_kernels.cpp) and the
// templates (plan_templates.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "scangen/generator/plan.h"

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

// The kernels with their parameters, the entry kernel and the public device
// functions (plan_kernels.cpp).
void plan_kernels(Plan& p);

// The templates (plan_templates.cpp): the block (or warp) algorithm's, and
// whether it scans lanes with the plan's lane exchange.
const char* group_template(const Plan& p);
bool needs_lanes(const std::string& path);
// The lane scans' templates: the lane exchange's; on OpenCL with shuffle
// words, common/lanes_shfl.h before it (used where the device shuffles).
std::vector<const char*> lane_templates(const Plan& p);
// Whether a template calls the running-total counter's atomic update, which
// the emitter writes before it for a plan with a counter.
bool needs_counter_update(const std::string& path);
// Every template the plan needs, each after those it needs, each once.
std::vector<std::string> plan_templates(const Plan& p);
// shape = rows / strided (plan_shape.cpp): the shape and the shared memory
// of its kernels (before the I/O step), then its kernels (after plan_kernels).
void decide_shape(Plan& p);
void shape_kernels(Plan& p);

// Whether the scan is a sum of 1- or 2-byte integers (wrapping) or of f16
// that a CUDA look-back tile may scan in packed words (op = add on i8 / u8 /
// i16 / u16 / f16, the input of the same type, no convert, flat, forward, no
// fused outputs):
// the spec's part of Plan::packed_lanes, which also needs whole 16-byte words
// per thread; the tuning table has rows of its own for these (tuning.cpp).
bool packable_sum(const dsl::Spec& s);

// The dialect (SG_FN, SG_KERNEL, ...) the emitter writes first.
const char* dialect_template(Backend backend);

// Segmented scans (plan_segmented.cpp): the pair the tiles scan, the kernel,
// its constants.
void decide_segmented(Plan& p);
// sizeof(P_seg) for a value of type `value`: the value, then a 32-bit count.
size_t segmented_pair_bytes(const dsl::Type& value);
// Bytes of the element the tiles scan: the pair when segmented.
inline size_t scanned_bytes(const Plan& p) { return p.segmented.on() ? p.segmented.pair_bytes : p.element_bytes; }
void segmented_kernel(Plan& p);
void decide_segmented_heads(Plan& p);
uint64_t segmented_head_bytes_per_tile(const Plan& p);  // 0 without Plan::Segmented::head_bits
void segmented_constants(const Plan& p, std::vector<std::pair<std::string, std::string>>& c);
// The 16-byte words of values a thread writes (the pairs never go out).
int segmented_output_words(const Plan& p);

}  // namespace scangen::generator::detail
