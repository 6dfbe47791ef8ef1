// Tiered compilation's choices, apart from the runtime's state (so that the
// unit tests can check them without a GPU): whether tiering is on, and the
// NVRTC options and cache-key options of each tier. runtime/README.md, "Tiers".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scangen/runtime/runtime.h"

namespace scangen::runtime::detail {

// Tiering wanted: `option` (RuntimeOptions::jit_tiers) when given, else the
// environment's SCANGEN_JIT_TIERS (`env`, null when unset): off for 0, off,
// false or no (any case), on for anything else.
bool tiers_wanted(const std::optional<bool>& option, const char* env);

// Whether an NVRTC of this "major.minor" version builds the fast tier
// (-Ofast-compile came with NVRTC 12.8).
bool nvrtc_has_fast_tier(const std::string& nvrtc_version);

// NVRTC's options for a tier, after --gpu-architecture (none for the tuned
// tier: its build is the one the runtime always made).
std::vector<std::string> tier_nvrtc_options(Tier tier);

// The architecture a tier is built for, from the runtime's ("sm_90" or
// "compute_120"): the fast tier is PTX ("compute_90"), which the driver's
// JIT turns into machine code at optimisation level tier_jit_level when it
// is loaded; the tuned tier is `arch` as given.
std::string tier_arch(const std::string& arch, Tier tier);

// The driver JIT's optimisation level (CU_JIT_OPTIMIZATION_LEVEL) for a
// tier's PTX; -1 for its default.
int tier_jit_level(Tier tier);

// The options part of a tier's cache key: "--gpu-architecture=ARCH" and the
// tier's NVRTC options, space-separated (the tuned tier's key is the key the
// runtime always made, so existing disk entries stay valid).
std::string tier_key_options(const std::string& arch, Tier tier);

}  // namespace scangen::runtime::detail
