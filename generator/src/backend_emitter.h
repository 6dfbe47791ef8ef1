// What differs between the backends when a plan becomes text: the interface
// each backend implements (emit_cuda.cpp, emit_opencl.cpp; emitters.h finds
// them) and what the implementations share (backend_emitter.cpp). The
// algorithms themselves are templates, the dialect included
// (dialect_template(), plan_templates.cpp). Each reads its decisions from the
// Plan.
#pragma once

#include <string>
#include <vector>

#include "scangen/generator/plan.h"

namespace scangen::generator::detail {

class BackendEmitter {
 public:
  virtual ~BackendEmitter() = default;
  // Text before everything else: extensions the plans need.
  virtual std::string prologue(const std::vector<Plan>& plans) const = 0;
  // The atomic function of P_sg_atomic_combine(counter, v), which combines v
  // into *counter and returns the old value (templates/common/atomic_combine.h;
  // plans with outputs = running_total only): SG_ATOMIC, SG_ATOMIC_POINTER and
  // SG_ATOMIC_TYPE.
  struct AtomicUpdate {
    std::string function, pointer, type;
  };
  virtual AtomicUpdate atomic_update(const Plan& plan) const = 0;
};

// The scalar kind of a running_total counter (Plan::counter, decided in
// planning): a 32- or 64-bit integer with a built-in operator other than mul;
// throws std::logic_error for a plan without one.
struct AtomicCounter {
  dsl::ScalarKind kind;
  dsl::BuiltinOp op;
  const char* op_name;  // add, min, max, and, or, xor
  bool wide;            // 64 bits
  bool is_signed;       // min and max on a signed type: the atomic works on the type's signedness
};
AtomicCounter atomic_counter(const Plan& plan);

}  // namespace scangen::generator::detail
