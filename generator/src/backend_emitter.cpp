// What the backends' emitters share (backend_emitter.h).
#include "backend_emitter.h"

#include <stdexcept>
#include <string>

namespace scangen::generator::detail {

AtomicCounter atomic_counter(const Plan& plan) {
  if (!plan.counter) throw std::logic_error("scangen: scan '" + plan.spec.name + "' updates no counter");
  const CounterUpdate& c = *plan.counter;
  const bool ordered = c.op == dsl::BuiltinOp::Min || c.op == dsl::BuiltinOp::Max;
  // add, and, or, xor on the unsigned type (wrap-around); min and max on the type's own signedness.
  return {c.kind, c.op, dsl::to_string(c.op), dsl::scalar_size(c.kind) == 8, ordered && dsl::is_signed(c.kind)};
}

}  // namespace scangen::generator::detail
