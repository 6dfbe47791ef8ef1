#include "scangen/reference/reference.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "program.h"

namespace scangen::ref {

using dsl::ScalarKind;

namespace {

// A compiled function with its own register file, for one thread's use.
struct Runner {
  const Program* program;
  std::vector<Slot> regs;
  explicit Runner(const Program& p) : program(&p), regs(p.make_registers()) {}
  Slot* param(size_t i) { return regs.data() + program->params()[i].base; }
  const Slot* result() const { return regs.data() + program->result().base; }
  void run() { program->run(regs.data()); }
};

std::vector<uint8_t> evaluate_constant(const dsl::Expr& e) {
  Program p = Program::compile_constant(e, false);
  std::vector<Slot> regs = p.make_registers();
  p.run(regs.data());
  std::vector<uint8_t> out(e.type.size(), 0);
  Program::store(dsl::flatten(e.type), regs.data() + p.result().base, out.data());
  return out;
}

}  // namespace

Evaluator::Evaluator(const dsl::Spec& spec) : Evaluator(spec, Options{}) {}

Evaluator::Evaluator(const dsl::Spec& spec, Options options) : spec_(spec), options_(options) {
  if (!spec_.combine.body || !spec_.identity) throw std::invalid_argument("reference: the spec has no operator");
  combine_ = std::make_unique<Program>(Program::compile(spec_.combine, options.widen_floats));
  if (spec_.convert) convert_ = std::make_unique<Program>(Program::compile(*spec_.convert, options.widen_floats));
  identity_ = evaluate_constant(*spec_.identity);
  init_ = spec_.init ? evaluate_constant(*spec_.init) : identity_;
}

Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;
Evaluator& Evaluator::operator=(Evaluator&&) noexcept = default;

void Evaluator::identity(void* out) const { std::memcpy(out, identity_.data(), identity_.size()); }
void Evaluator::init(void* out) const { std::memcpy(out, init_.data(), init_.size()); }

void Evaluator::combine(const void* x, const void* y, void* out) const {
  auto layout = dsl::flatten(spec_.type);
  Runner r(*combine_);
  Program::load(layout, x, r.param(0));
  Program::load(layout, y, r.param(1));
  r.run();
  Program::store(layout, r.result(), out);
}

void Evaluator::convert(const void* in, void* out, uint64_t index, const void* prev, const void* next) const {
  if (!convert_) {
    std::memcpy(out, in, element_size());
    return;
  }
  Runner r(*convert_);
  Program::load(dsl::flatten(spec_.input), in, r.param(0));
  if (converts_index()) Program::load(dsl::flatten(dsl::Type::scalar(dsl::ScalarKind::U64)), &index, r.param(1));
  if (const int k = spec_.convert->neighbours; k >= 0) {
    Program::load(dsl::flatten(spec_.input), prev ? prev : in, r.param(static_cast<size_t>(k)));
    Program::load(dsl::flatten(spec_.input), next ? next : in, r.param(static_cast<size_t>(k) + 1));
  }
  r.run();
  Program::store(dsl::flatten(spec_.type), r.result(), out);
}

std::vector<uint8_t> Evaluator::convert_arrays(const std::vector<const void*>& arrays, uint64_t n) const {
  if (!spec_.input_arrays) throw std::invalid_argument("reference: the spec reads one input array, not several");
  const std::vector<dsl::Type>& types = *spec_.input_arrays;
  if (arrays.size() != types.size())
    throw std::invalid_argument("reference: the spec reads " + std::to_string(types.size()) + " input arrays, not " +
                                std::to_string(arrays.size()));
  std::vector<std::vector<dsl::ScalarSlot>> layouts;
  for (const dsl::Type& t : types) layouts.push_back(dsl::flatten(t));
  const auto out_layout = dsl::flatten(spec_.type);
  const auto index_layout = dsl::flatten(dsl::Type::scalar(dsl::ScalarKind::U64));
  const size_t tsize = element_size();
  std::vector<uint8_t> out(n * tsize);
  Runner r(*convert_);
  const bool indexed = converts_index();
  for (uint64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < types.size(); ++k)
      Program::load(layouts[k], static_cast<const uint8_t*>(arrays[k]) + i * types[k].size(), r.param(k));
    if (indexed) Program::load(index_layout, &i, r.param(types.size()));
    r.run();
    Program::store(out_layout, r.result(), out.data() + i * tsize);
  }
  return out;
}

Evaluator::Result Evaluator::scan_arrays(const std::vector<const void*>& arrays, uint64_t n,
                                         const void* running_total_in) const {
  const std::vector<uint8_t> elements = convert_arrays(arrays, n);
  dsl::Spec plain = spec_;  // the same scan of elements already converted
  plain.input_arrays.reset();
  plain.convert.reset();
  plain.input = plain.type;
  return Evaluator(plain, options_).scan(elements.data(), n, running_total_in);
}

Evaluator::Result Evaluator::scan(const void* input, uint64_t n, const void* running_total_in) const {
  const uint64_t seg = spec_.level == dsl::Level::Device ? std::max<uint64_t>(n, 1) : spec_.segment_size();
  if (seg == 0) throw std::invalid_argument("reference: the spec has an empty segment size");
  const uint64_t segments = spec_.level == dsl::Level::Device ? 1 : (n + seg - 1) / seg;
  std::vector<Range> ranges;
  for (uint64_t s = 0; s < segments; ++s) ranges.push_back({s * seg, std::min(n, s * seg + seg)});
  return scan_ranges(input, n, ranges, running_total_in);
}

void Evaluator::carry(const void* aggregates, uint64_t parts, uint64_t part, const void* init_value, void* carry,
                      void* total) const {
  const size_t e = element_size();
  std::vector<uint8_t> acc(e), sum(e), next(e);
  if (init_value)
    std::memcpy(acc.data(), init_value, e);
  else
    init(acc.data());
  identity(sum.data());
  for (uint64_t step = 0; step < parts; ++step) {
    const uint64_t r = spec_.reverse ? parts - 1 - step : step;
    const uint8_t* a = static_cast<const uint8_t*>(aggregates) + r * e;
    if (r == part) std::memcpy(carry, acc.data(), e);
    combine(acc.data(), a, next.data());
    acc.swap(next);
    combine(sum.data(), a, next.data());
    sum.swap(next);
  }
  if (total) std::memcpy(total, sum.data(), e);
}

Evaluator::Result Evaluator::scan_ranges(const void* input, uint64_t n, const std::vector<Range>& ranges,
                                         const void* running_total_in) const {
  const auto layout = dsl::flatten(spec_.type);
  const auto in_layout = dsl::flatten(spec_.input);
  const size_t k = layout.size();
  const size_t esize = element_size();
  const size_t isize = input_size();
  if (n > 0 && input == nullptr) throw std::invalid_argument("reference: null input");
  for (const Range& r : ranges)
    if (r.begin > r.end || r.end > n) throw std::invalid_argument("reference: a range outside 0 .. n");

  Result res;
  if (spec_.has_inclusive()) res.inclusive.resize(n * esize);
  if (spec_.has_exclusive()) res.exclusive.resize(n * esize);
  if (spec_.aggregate) res.aggregates.resize(ranges.size() * esize);

  Runner comb(*combine_);
  std::unique_ptr<Runner> conv;
  if (convert_) conv = std::make_unique<Runner>(*convert_);
  const bool indexed = converts_index();
  const auto index_layout = dsl::flatten(dsl::Type::scalar(dsl::ScalarKind::U64));
  // dst = a . b (dst may alias a or b).
  auto apply = [&](const Slot* a, const Slot* b, Slot* dst) {
    std::copy(a, a + k, comb.param(0));
    std::copy(b, b + k, comb.param(1));
    comb.run();
    std::copy(comb.result(), comb.result() + k, dst);
  };

  // The counter of running_total; otherwise every segment starts from init.
  std::vector<Slot> counter(k), seed(k), identity(k), agg(k), prefix(k), elem(k), excl(k);
  const bool seed_exclusive_only = spec_.init_exclusive_only;
  Program::load(layout, identity_.data(), identity.data());
  if (spec_.running_total)
    Program::load(layout, running_total_in ? running_total_in : identity_.data(), counter.data());
  else
    Program::load(layout, init_.data(), seed.data());

  const auto* in_bytes = static_cast<const uint8_t*>(input);
  for (size_t step = 0; step < ranges.size(); ++step) {
    // reverse: the ranges (a device scan's one) last to first, each from its last element to its first.
    const size_t s = spec_.reverse ? ranges.size() - 1 - step : step;
    const uint64_t begin = ranges[s].begin;
    const uint64_t end = ranges[s].end;
    const std::vector<Slot>& start = spec_.running_total ? counter : seed;
    // Starting from the identity, the final prefix is the aggregate; otherwise accumulate it apart.
    bool separate_aggregate = spec_.aggregate && std::memcmp(start.data(), identity.data(), k * sizeof(Slot)) != 0;
    // init_applies_to = exclusive: the prefix starts unseeded, init goes before each exclusive result alone.
    prefix = seed_exclusive_only ? identity : start;
    agg = identity;
    for (uint64_t j = begin; j < end; ++j) {
      const uint64_t i = spec_.reverse ? begin + (end - 1 - j) : j;
      if (conv) {
        Program::load(in_layout, in_bytes + i * isize, conv->param(0));
        if (indexed) Program::load(index_layout, &i, conv->param(1));  // convert(v, i): the array index
        if (const int nb = spec_.convert->neighbours; nb >= 0) {       // prev(v), next(v): the element at the ends
          Program::load(in_layout, in_bytes + (i > 0 ? i - 1 : i) * isize, conv->param(static_cast<size_t>(nb)));
          Program::load(in_layout, in_bytes + (i + 1 < n ? i + 1 : i) * isize,
                        conv->param(static_cast<size_t>(nb) + 1));
        }
        conv->run();
        std::copy(conv->result(), conv->result() + k, elem.begin());
      } else {
        Program::load(layout, in_bytes + i * isize, elem.data());
      }
      if (spec_.has_exclusive()) {
        if (seed_exclusive_only) {  // init . (x0 . ... . x(i-1)), the prefix unseeded
          apply(seed.data(), prefix.data(), excl.data());
          Program::store(layout, excl.data(), res.exclusive.data() + i * esize);
        } else {
          Program::store(layout, prefix.data(), res.exclusive.data() + i * esize);
        }
      }
      apply(prefix.data(), elem.data(), prefix.data());
      if (spec_.has_inclusive()) Program::store(layout, prefix.data(), res.inclusive.data() + i * esize);
      if (separate_aggregate) apply(agg.data(), elem.data(), agg.data());
    }
    if (spec_.aggregate)
      Program::store(layout, separate_aggregate ? agg.data() : prefix.data(), res.aggregates.data() + s * esize);
    if (spec_.running_total) counter = prefix;
  }
  if (spec_.running_total) {
    res.running_total.resize(esize);
    Program::store(layout, counter.data(), res.running_total.data());
  }
  return res;
}

// ---- segments ----------------------------------------------------------------

std::vector<Evaluator::Range> ranges_from_flags(const uint8_t* flags, uint64_t n) {
  std::vector<Evaluator::Range> out;
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || flags[i] != 0) {
      if (!out.empty()) out.back().end = i;
      out.push_back({i, n});
    }
  }
  return out;
}

std::vector<Evaluator::Range> ranges_from_offsets(const std::vector<uint64_t>& offsets, uint64_t n) {
  if (offsets.empty()) throw std::invalid_argument("segment offsets: none given; n_segments + 1 are needed");
  if (offsets.front() != 0)
    throw std::invalid_argument("segment offsets: offsets[0] is " + std::to_string(offsets.front()) + ", not 0");
  if (offsets.back() != n)
    throw std::invalid_argument("segment offsets: the last offset is " + std::to_string(offsets.back()) +
                                ", not n = " + std::to_string(n));
  std::vector<Evaluator::Range> out;
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    if (offsets[s + 1] < offsets[s])
      throw std::invalid_argument("segment offsets: offsets[" + std::to_string(s + 1) +
                                  "] = " + std::to_string(offsets[s + 1]) + " is less than offsets[" +
                                  std::to_string(s) + "] = " + std::to_string(offsets[s]));
    out.push_back({offsets[s], offsets[s + 1]});
  }
  return out;
}

namespace {

// Key i equals key i - 1, as C's == compares them.
bool same_key(dsl::ScalarKind key, const uint8_t* keys, uint64_t i) {
  const size_t size = dsl::scalar_size(key);
  const uint8_t* a = keys + (i - 1) * size;
  const uint8_t* b = keys + i * size;
  if (key == ScalarKind::F32) {
    float x, y;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    return x == y;
  }
  if (key == ScalarKind::F64) {
    double x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    return x == y;
  }
  return std::memcmp(a, b, size) == 0;
}

// The ranges of n elements where start(i) says whether element i > 0 starts one.
template <class Start>
std::vector<Evaluator::Range> ranges_from_starts(uint64_t n, Start start) {
  std::vector<Evaluator::Range> out;
  for (uint64_t i = 0; i < n; ++i) {
    if (i == 0 || start(i)) {
      if (!out.empty()) out.back().end = i;
      out.push_back({i, n});
    }
  }
  return out;
}

}  // namespace

std::vector<Evaluator::Range> ranges_from_keys(dsl::ScalarKind key, const void* keys, uint64_t n) {
  const auto* bytes = static_cast<const uint8_t*>(keys);
  return ranges_from_starts(n, [&](uint64_t i) { return !same_key(key, bytes, i); });
}

std::vector<Evaluator::Range> ranges_from_keys(const dsl::Spec& spec, const void* keys, uint64_t n) {
  if (!spec.key_equal) return ranges_from_keys(spec.key, keys, n);
  const Program equal = Program::compile(*spec.key_equal, false);
  Runner r(equal);
  const auto layout = dsl::flatten(dsl::Type::scalar(spec.key));
  const size_t size = dsl::scalar_size(spec.key);
  const auto* bytes = static_cast<const uint8_t*>(keys);
  return ranges_from_starts(n, [&](uint64_t i) {
    Program::load(layout, bytes + (i - 1) * size, r.param(0));  // a: the key before
    Program::load(layout, bytes + i * size, r.param(1));        // b: the element's own
    r.run();
    return r.result()->u == 0;
  });
}

}  // namespace scangen::ref
