#include <string>

#include "emitters.h"

namespace scangen::generator::detail {

namespace {

class OpenCLEmitter final : public BackendEmitter {
 public:
  std::string prologue(const std::vector<Plan>& plans) const override {
    bool base = false, extended = false;
    for (const Plan& p : plans) {
      if (p.status == StatusLayout::TaggedWords) base = true;  // the look-back's tagged 64-bit status words
      if (!p.counter) continue;
      const CounterUpdate c = *p.counter;
      if (c.cas_bytes == 8) base = true;  // atom_cmpxchg on 64 bits
      if (c.cas_bytes || dsl::scalar_size(c.kind) != 8) continue;
      if (c.op == dsl::BuiltinOp::Add)
        base = true;
      else
        extended = true;
    }
    std::string s;
    if (base) s += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
    if (extended) s += "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n";
    return s;
  }

  // OpenCL 1.2's atomic_* for 32 bits, cl_khr_int64_*_atomics' atom_* for 64.
  AtomicUpdate atomic_update(const Plan& plan) const override {
    if (const size_t bytes = plan.counter ? plan.counter->cas_bytes : 0)  // OpenCL 1.1's, cl_khr_int64_base_atomics'
      return {bytes == 8 ? "atom_cmpxchg" : "atomic_cmpxchg",
              std::string("volatile __global ") + (bytes == 8 ? "ulong" : "uint") + "*", bytes == 8 ? "ulong" : "uint"};
    const AtomicCounter c = atomic_counter(plan);
    const std::string type = c.wide ? (c.is_signed ? "long" : "ulong") : (c.is_signed ? "int" : "uint");
    return {(c.wide ? "atom_" : "atomic_") + std::string(c.op_name), "volatile __global " + type + "*", type};
  }
};

}  // namespace

const BackendEmitter& opencl_emitter() {
  static const OpenCLEmitter e;
  return e;
}

}  // namespace scangen::generator::detail
