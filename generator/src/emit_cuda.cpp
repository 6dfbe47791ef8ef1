#include <string>

#include "backend_emitter.h"

namespace scangen::generator::detail {

namespace {

class CudaEmitter final : public BackendEmitter {
 public:
  std::string prologue(const std::vector<Plan>&) const override { return ""; }

  std::string atomic_combine(const Plan& plan) const override {
    const CounterUpdate c = atomic_counter(plan);
    const bool wide = dsl::scalar_size(c.kind) == 8;
    const bool is_signed = dsl::is_signed(c.kind);
    // atomicAdd / And / Or / Xor on the unsigned type (wrap-around);
    // atomicMin / Max on the type's own signedness.
    std::string fn, type;
    switch (c.op) {
      case dsl::BuiltinOp::Add: fn = "atomicAdd"; break;
      case dsl::BuiltinOp::Min: fn = "atomicMin"; break;
      case dsl::BuiltinOp::Max: fn = "atomicMax"; break;
      case dsl::BuiltinOp::And: fn = "atomicAnd"; break;
      case dsl::BuiltinOp::Or: fn = "atomicOr"; break;
      case dsl::BuiltinOp::Xor: fn = "atomicXor"; break;
      default: break;
    }
    const bool ordered = c.op == dsl::BuiltinOp::Min || c.op == dsl::BuiltinOp::Max;
    if (wide) type = ordered && is_signed ? "long long" : "unsigned long long";
    else type = ordered && is_signed ? "int" : "unsigned int";
    return "SG_FN SG_T SG_NAME(sg_atomic_combine)(SG_GLOBAL SG_T* counter, SG_T v) {\n  return (SG_T)" + fn + "((" +
           type + "*)counter, (" + type + ")v);\n}\n";
  }
};

}  // namespace

const BackendEmitter& cuda_emitter() {
  static const CudaEmitter e;
  return e;
}

}  // namespace scangen::generator::detail
