// A DSL function compiled to straight-line code over scalar registers.
// Structs are flattened to consecutive registers (fields depth first), so field
// access costs nothing and the interpreter only ever sees scalars.
#pragma once

#include <cstdint>
#include <vector>

#include "scangen/dsl/spec.h"

namespace scangen::ref {

// One scalar. Integers are kept normalised: two's complement of the value,
// sign-extended (signed kinds) or zero-extended (unsigned) to 64 bits; bools
// are 0 or 1; floats are doubles holding a value of their kind.
union Slot {
  uint64_t u;
  int64_t i;
  double f;
};

struct Instr;
using OpFn = void (*)(Slot* r, const Instr& in);

struct Instr {
  OpFn fn;
  uint32_t d, a, b, c;
  uint8_t bits;          // integer width of the kind the instruction works on
  bool is_signed;        // ... and its signedness
  dsl::ScalarKind kind;  // the kind of the operands (result kind for conversions)
  dsl::ScalarKind from;  // conversions: the source kind
};

struct SlotRange {
  uint32_t base = 0;
  uint32_t count = 0;
};

class Program {
 public:
  // Parameters occupy registers [0, n) in order, each flattened.
  static Program compile(const dsl::Function& f, bool widen_floats);
  static Program compile_constant(const dsl::Expr& e, bool widen_floats);

  // A register file with the constants in place; reuse it across runs.
  std::vector<Slot> make_registers() const { return constants_; }
  const std::vector<SlotRange>& params() const { return params_; }
  SlotRange result() const { return result_; }

  void run(Slot* regs) const {
    for (const Instr& in : code_) in.fn(regs, in);
  }

  // Element bytes <-> registers, following the flattened layout of `t`.
  static void load(const std::vector<dsl::ScalarSlot>& layout, const void* src, Slot* dst);
  static void store(const std::vector<dsl::ScalarSlot>& layout, const Slot* src, void* dst);

 private:
  friend class ProgramBuilder;
  std::vector<Instr> code_;
  std::vector<Slot> constants_;  // initial register file
  std::vector<SlotRange> params_;
  SlotRange result_;
};

}  // namespace scangen::ref
