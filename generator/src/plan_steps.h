// The steps make_plan takes, in order, each one decision (plan.cpp), and
// what the later ones share: the kernels (plan_kernels.cpp) and the
// templates (plan_templates.cpp). What they decide from a spec or a template
// alone, without a Plan, is in spec_rules.h (which the tuning table reads
// too).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "scangen/generator/plan.h"
#include "spec_rules.h"

namespace scangen::generator::detail {

// The kernels with their parameters, the entry kernel and the public device
// functions (plan_kernels.cpp).
void plan_kernels(Plan& p);

// The templates (plan_templates.cpp): the block (or warp) algorithm's.
const char* group_template(const Plan& p);
// The lane scans' templates: the lane exchange's; on OpenCL with shuffle
// words, common/lanes_shfl.h before it (used where the device shuffles).
std::vector<const char*> lane_templates(const Plan& p);
// Every template the plan needs, each after those it needs, each once.
std::vector<std::string> plan_templates(const Plan& p);
// shape = rows / strided (plan_shape.cpp): the shape and the shared memory
// of its kernels (before the I/O step), then its kernels (after plan_kernels).
void decide_shape(Plan& p);
void shape_kernels(Plan& p);

// Segmented scans (plan_segmented.cpp): the pair the tiles scan, the kernel,
// its constants.
void decide_segmented(Plan& p);
// Bytes of the element the tiles scan: the pair when segmented.
inline size_t scanned_bytes(const Plan& p) { return p.segmented.on() ? p.segmented.pair_bytes : p.element_bytes; }
void segmented_kernel(Plan& p);
void decide_segmented_heads(Plan& p);
uint64_t segmented_head_bytes_per_tile(const Plan& p);  // 0 without Plan::Segmented::head_bits
void segmented_constants(const Plan& p, std::vector<std::pair<std::string, std::string>>& c);
// The 16-byte words of values a thread writes (the pairs never go out).
int segmented_output_words(const Plan& p);

}  // namespace scangen::generator::detail
