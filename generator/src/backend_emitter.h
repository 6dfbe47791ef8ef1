// What differs between the backends when a plan becomes text. One
// implementation per backend (emit_cuda.cpp, emit_opencl.cpp), found through
// emitter_for(); the algorithms themselves are templates, the dialect
// included (dialect_template(), plan_templates.cpp). Each reads its
// decisions from the Plan.
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
  // P_sg_atomic_combine(counter, v): combines v into *counter atomically,
  // returns the old value (plans with outputs = running_total only).
  virtual std::string atomic_combine(const Plan& plan) const = 0;
};

const BackendEmitter& cuda_emitter();
const BackendEmitter& opencl_emitter();

inline const BackendEmitter& emitter_for(Backend b) {
  switch (b) {
    case Backend::Cuda: return cuda_emitter();
    case Backend::OpenCL: return opencl_emitter();
  }
  return cuda_emitter();
}

// The plan's running-total counter (Plan::counter); throws std::logic_error
// for a plan without one.
CounterUpdate atomic_counter(const Plan& plan);

}  // namespace scangen::generator::detail
