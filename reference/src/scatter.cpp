// Fused outputs (spec.scatter): what a device scan (or a warp or block
// scan's entry kernel, segment by segment) writes into its second output,
// element by element in order, as the kernel does.
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
  return scatter_all(input, n, {out}).at(0);
}

std::vector<uint64_t> Evaluator::scatter_all(const void* input, uint64_t n, const std::vector<void*>& outs) const {
  if (!spec_.scatter || !spec_.scatter_at) throw std::invalid_argument("reference: the spec has no fused output");
  if (outs.size() != 1 + spec_.scatter_named.size())
    throw std::invalid_argument("reference: " + std::to_string(1 + spec_.scatter_named.size()) +
                                " fused outputs, not " + std::to_string(outs.size()));
  if (n > 0 && input == nullptr) throw std::invalid_argument("reference: null input");
  for (void* out : outs)
    if (n > 0 && out == nullptr) throw std::invalid_argument("reference: null output");
  const auto u64 = dsl::flatten(dsl::Type::scalar(dsl::ScalarKind::U64));
  const auto in_layout = dsl::flatten(spec_.input);
  const auto layout = dsl::flatten(spec_.type);
  // (x, i, exclusive, inclusive, n, prev, next)
  const std::vector<std::vector<dsl::ScalarSlot>> layouts = {in_layout, u64, layout, layout, u64, in_layout, in_layout};
  struct Output {
    ScatterFn value, at;
    std::unique_ptr<ScatterFn> when;
    dsl::Type type;
  };
  std::vector<Output> outputs;
  outputs.push_back({ScatterFn(*spec_.scatter), ScatterFn(*spec_.scatter_at),
                     spec_.scatter_if ? std::make_unique<ScatterFn>(*spec_.scatter_if) : nullptr, spec_.scatter_type});
  for (const dsl::Spec::NamedScatter& o : spec_.scatter_named)
    outputs.push_back(
        {ScatterFn(o.value), ScatterFn(o.at), o.when ? std::make_unique<ScatterFn>(*o.when) : nullptr, o.type});

  const size_t esize = element_size(), isize = input_size();
  // Warp and block scans restart at every segment (the entry kernel's groups).
  const uint64_t segment = spec_.level == dsl::Level::Device ? 0 : spec_.segment_size();
  // acc: the scan so far, seeded with init unless init seeds the exclusive results alone.
  std::vector<uint8_t> acc(esize), seed(esize), elem(esize), exclusive(esize), inclusive(esize);
  init(seed.data());
  const auto* in = static_cast<const uint8_t*>(input);
  std::vector<uint64_t> written(outs.size(), 0);
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || (segment > 0 && i % segment == 0)) {
      if (spec_.init_exclusive_only)
        identity(acc.data());
      else
        acc = seed;
    }
    const uint8_t* x = in + i * isize;
    const uint8_t* prev = i > 0 ? x - isize : x;
    const uint8_t* next = i + 1 < n ? x + isize : x;
    convert(x, elem.data(), i, prev, next);
    if (spec_.init_exclusive_only)
      combine(seed.data(), acc.data(), exclusive.data());
    else
      exclusive = acc;
    combine(acc.data(), elem.data(), inclusive.data());
    const std::vector<const void*> args = {x, &i, exclusive.data(), inclusive.data(), &n, prev, next};
    for (size_t k = 0; k < outputs.size(); ++k) {
      Output& o = outputs[k];
      if (o.when && o.when->run(layouts, args)[0].u == 0) continue;
      const uint64_t position = o.at.run(layouts, args)[0].u;
      if (position >= n) continue;
      const size_t osize = o.type.size();
      Program::store(dsl::flatten(o.type), o.value.run(layouts, args),
                     static_cast<uint8_t*>(outs[k]) + position * osize);
      ++written[k];
    }
    acc = inclusive;
  }
  return written;
}

}  // namespace scangen::ref
