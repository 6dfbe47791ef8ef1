// Fused outputs (spec.scatter): what a device scan writes into its second
// output, element by element in order, as the kernel does.
#include <cstring>
#include <stdexcept>

#include "program.h"
#include "scangen/reference/reference.h"

namespace scangen::ref {

namespace {

// One scatter function with its registers; its parameters are the first
// params().size() of (x, i, exclusive, inclusive, n).
struct ScatterFn {
  Program program;
  std::vector<Slot> regs;
  explicit ScatterFn(const dsl::Function& f) : program(Program::compile(f, false)), regs(program.make_registers()) {}

  const Slot* run(const std::vector<std::vector<dsl::ScalarSlot>>& layouts, const std::vector<const void*>& args) {
    for (size_t k = 0; k < program.params().size(); ++k)
      Program::load(layouts[k], args[k], regs.data() + program.params()[k].base);
    program.run(regs.data());
    return regs.data() + program.result().base;
  }
};

}  // namespace

uint64_t Evaluator::scatter(const void* input, uint64_t n, void* out) const {
  if (!spec_.scatter || !spec_.scatter_at) throw std::invalid_argument("reference: the spec has no fused output");
  if (n > 0 && (input == nullptr || out == nullptr)) throw std::invalid_argument("reference: null input or output");
  const auto u64 = dsl::flatten(dsl::Type::scalar(dsl::ScalarKind::U64));
  const auto in_layout = dsl::flatten(spec_.input);
  const auto layout = dsl::flatten(spec_.type);
  const std::vector<std::vector<dsl::ScalarSlot>> layouts = {in_layout, u64, layout, layout, u64};
  ScatterFn value(*spec_.scatter), at(*spec_.scatter_at);
  std::unique_ptr<ScatterFn> when;
  if (spec_.scatter_if) when = std::make_unique<ScatterFn>(*spec_.scatter_if);

  const size_t esize = element_size(), isize = input_size(), osize = spec_.scatter_type.size();
  const auto out_layout = dsl::flatten(spec_.scatter_type);
  std::vector<uint8_t> prefix(esize), elem(esize), inclusive(esize);
  init(prefix.data());
  const auto* in = static_cast<const uint8_t*>(input);
  auto* dst = static_cast<uint8_t*>(out);
  uint64_t written = 0;
  for (uint64_t i = 0; i < n; ++i) {
    convert(in + i * isize, elem.data(), i);
    combine(prefix.data(), elem.data(), inclusive.data());
    const std::vector<const void*> args = {in + i * isize, &i, prefix.data(), inclusive.data(), &n};
    if (!when || when->run(layouts, args)[0].u != 0) {
      const uint64_t position = at.run(layouts, args)[0].u;
      if (position < n) {
        Program::store(out_layout, value.run(layouts, args), dst + position * osize);
        ++written;
      }
    }
    prefix = inclusive;
  }
  return written;
}

}  // namespace scangen::ref
