#include <string>

#include "emitters.h"

namespace scangen::generator::detail {

namespace {

class CudaEmitter final : public BackendEmitter {
 public:
  std::string prologue(const std::vector<Plan>&) const override { return ""; }

  // atomicAdd, atomicMin, ... (CUDA's 64-bit atomics take the long long types).
  AtomicUpdate atomic_update(const Plan& plan) const override {
    if (const size_t bytes = plan.counter ? plan.counter->cas_bytes : 0) {  // atomicCAS on a word of the element's size
      const std::string word = bytes == 8 ? "unsigned long long" : "unsigned int";
      return {"atomicCAS", word + "*", word};
    }
    const AtomicCounter c = atomic_counter(plan);
    std::string fn = std::string("atomic") + c.op_name;
    fn[6] = static_cast<char>(fn[6] - 'a' + 'A');
    const std::string type = std::string(c.is_signed ? "" : "unsigned ") + (c.wide ? "long long" : "int");
    return {fn, type + "*", type};
  }
};

}  // namespace

const BackendEmitter& cuda_emitter() {
  static const CudaEmitter e;
  return e;
}

}  // namespace scangen::generator::detail
