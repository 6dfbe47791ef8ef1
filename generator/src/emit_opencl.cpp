#include <string>

#include "backend_emitter.h"

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
      if (dsl::scalar_size(c.kind) != 8) continue;
      if (c.op == dsl::BuiltinOp::Add) base = true;
      else extended = true;
    }
    std::string s;
    if (base) s += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
    if (extended) s += "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n";
    return s;
  }

  std::string atomic_combine(const Plan& plan) const override {
    const CounterUpdate c = atomic_counter(plan);
    const bool wide = dsl::scalar_size(c.kind) == 8;
    const bool ordered = c.op == dsl::BuiltinOp::Min || c.op == dsl::BuiltinOp::Max;
    const bool is_signed = dsl::is_signed(c.kind);
    // OpenCL 1.2's atomic_* for 32 bits, cl_khr_int64_*_atomics' atom_* for 64.
    std::string op;
    switch (c.op) {
      case dsl::BuiltinOp::Add: op = "add"; break;
      case dsl::BuiltinOp::Min: op = "min"; break;
      case dsl::BuiltinOp::Max: op = "max"; break;
      case dsl::BuiltinOp::And: op = "and"; break;
      case dsl::BuiltinOp::Or: op = "or"; break;
      case dsl::BuiltinOp::Xor: op = "xor"; break;
      default: break;
    }
    const std::string fn = (wide ? "atom_" : "atomic_") + op;
    const std::string type = wide ? (ordered && is_signed ? "long" : "ulong") : (ordered && is_signed ? "int" : "uint");
    return "SG_FN SG_T SG_NAME(sg_atomic_combine)(SG_GLOBAL SG_T* counter, SG_T v) {\n  return (SG_T)" + fn +
           "((volatile __global " + type + "*)counter, (" + type + ")v);\n}\n";
  }
};

}  // namespace

const BackendEmitter& opencl_emitter() {
  static const OpenCLEmitter e;
  return e;
}

}  // namespace scangen::generator::detail
