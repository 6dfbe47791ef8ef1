#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "program.h"
#include "scangen/reference/reference.h"

namespace scangen::ref {

using dsl::ScalarKind;

namespace {

// A random scalar, normalised as in the evaluator's registers.
Slot random_scalar(ScalarKind k, std::mt19937_64& rng) {
  Slot s{};
  if (dsl::is_float(k)) {
    std::uniform_real_distribution<double> dist(-4.0, 4.0);
    s.f = dsl::round_to_float_kind(k, dist(rng));
    return s;
  }
  if (k == ScalarKind::Bool) {
    s.u = rng() & 1;
    return s;
  }
  int bits = dsl::integer_bits(k);
  bool sgn = dsl::is_signed(k);
  uint64_t v = rng();
  // One draw in eight is an edge value: 0, 1, -1 (all ones), MIN or MAX.
  if ((rng() & 7) == 0) {
    uint64_t top = uint64_t{1} << (bits - 1);
    const uint64_t edges[] = {0, 1, ~uint64_t{0}, top, top - 1};
    v = edges[rng() % 5];
  }
  unsigned sh = 64u - static_cast<unsigned>(bits);
  s.u = sgn ? static_cast<uint64_t>(static_cast<int64_t>(v << sh) >> sh) : (sh == 64 ? 0 : (v << sh) >> sh);
  return s;
}

std::string format_scalar(ScalarKind k, Slot s) {
  if (k == ScalarKind::Bool) return s.u ? "true" : "false";
  if (dsl::is_integer(k)) return dsl::is_signed(k) ? std::to_string(s.i) : std::to_string(s.u);
  if (std::isnan(s.f)) return "nan";
  if (std::isinf(s.f)) return s.f < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = k == ScalarKind::F64 ? std::to_chars(buf, buf + sizeof buf, s.f)
                                : std::to_chars(buf, buf + sizeof buf, static_cast<float>(s.f));
  return std::string(buf, r.ptr);
}

std::string format_slots(const dsl::Type& t, const Slot*& s) {
  if (t.is_scalar()) return format_scalar(t.scalar_kind(), *s++);
  std::string out = "{";
  const auto& fields = t.struct_type().fields;
  for (size_t i = 0; i < fields.size(); ++i) {
    out += (i ? ", " : "") + fields[i].name + ": ";
    out += format_slots(fields[i].type, s);
  }
  return out + "}";
}

bool scalars_match(ScalarKind k, Slot a, Slot b, Tolerance tol) {
  if (!dsl::is_float(k)) return a.u == b.u;
  if (std::isnan(a.f) || std::isnan(b.f)) return std::isnan(a.f) && std::isnan(b.f);
  if (a.f == b.f) return !tol.signed_zeros || std::signbit(a.f) == std::signbit(b.f);  // also equal infinities
  if (std::isinf(a.f) || std::isinf(b.f)) return false;
  return std::fabs(a.f - b.f) <= tol.abs + tol.rel * std::max(std::fabs(a.f), std::fabs(b.f));
}

bool slots_match(const std::vector<dsl::ScalarSlot>& layout, const Slot* a, const Slot* b, Tolerance tol) {
  for (size_t i = 0; i < layout.size(); ++i)
    if (!scalars_match(layout[i].kind, a[i], b[i], tol)) return false;
  return true;
}

}  // namespace

void fill_random(const dsl::Type& t, void* out, uint64_t count, std::mt19937_64& rng) {
  auto layout = dsl::flatten(t);
  std::vector<Slot> slots(layout.size());
  auto* bytes = static_cast<uint8_t*>(out);
  std::memset(out, 0, count * t.size());  // padding bytes stay defined
  for (uint64_t i = 0; i < count; ++i) {
    for (size_t j = 0; j < layout.size(); ++j) slots[j] = random_scalar(layout[j].kind, rng);
    Program::store(layout, slots.data(), bytes + i * t.size());
  }
}

std::string format_value(const dsl::Type& t, const void* value) {
  auto layout = dsl::flatten(t);
  std::vector<Slot> slots(layout.size());
  Program::load(layout, value, slots.data());
  const Slot* s = slots.data();
  return format_slots(t, s);
}

bool values_match(const dsl::Type& t, const void* a, const void* b, Tolerance tol) {
  auto layout = dsl::flatten(t);
  std::vector<Slot> x(layout.size()), y(layout.size());
  Program::load(layout, a, x.data());
  Program::load(layout, b, y.data());
  return slots_match(layout, x.data(), y.data(), tol);
}

OperatorReport check_operator(const dsl::Spec& spec, uint64_t seed, int samples, bool associativity) {
  OperatorReport report;
  report.samples = samples;
  const dsl::Type& t = spec.type;
  const auto layout = dsl::flatten(t);
  const size_t k = layout.size();
  // Floats are evaluated in f64, so the check judges the algebra, not the rounding.
  const Tolerance tol{1e-9, 1e-12};
  // What the least precise float of the element rounds away.
  double rel = 1e-8;
  for (const auto& slot : layout)
    if (slot.kind == dsl::ScalarKind::F16)
      rel = std::max(rel, 1e-3);
    else if (slot.kind == dsl::ScalarKind::F32)
      rel = std::max(rel, 1e-6);
  const Tolerance rounding{rel, rel};  // absolute too: the values drawn are of order 1
  Program comb = Program::compile(spec.combine, /*widen_floats=*/true);
  Program ident = Program::compile_constant(*spec.identity, true);
  std::vector<Slot> regs = comb.make_registers();
  std::vector<Slot> e(k);
  {
    std::vector<Slot> r = ident.make_registers();
    ident.run(r.data());
    std::copy(r.begin() + ident.result().base, r.begin() + ident.result().base + k, e.begin());
  }
  auto apply = [&](const std::vector<Slot>& a, const std::vector<Slot>& b) {
    std::copy(a.begin(), a.end(), regs.begin() + comb.params()[0].base);
    std::copy(b.begin(), b.end(), regs.begin() + comb.params()[1].base);
    comb.run(regs.data());
    auto base = regs.begin() + comb.result().base;
    return std::vector<Slot>(base, base + static_cast<std::ptrdiff_t>(k));
  };
  auto show = [&](const std::vector<Slot>& v) {
    const Slot* s = v.data();
    return format_slots(t, s);
  };
  std::mt19937_64 rng(seed);
  auto draw = [&] {
    std::vector<Slot> v(k);
    for (size_t i = 0; i < k; ++i) v[i] = random_scalar(layout[i].kind, rng);
    return v;
  };
  const std::string op = spec.op ? std::string("op = ") + dsl::to_string(*spec.op) : "combine";
  // The kernels combine the identity with itself (the padding of a partial
  // tile, a group with no element yet): combine(e, e) must give e, which
  // random samples never try (the log-sum-exp with identity -inf written as
  // m + log(exp(x - m) + exp(y - m)) gives NaN there).
  if (std::vector<Slot> ee = apply(e, e); !slots_match(layout, ee.data(), e.data(), tol)) {
    report.ok = false;
    report.identity_failed = true;
    report.message = "the identity of scan '" + spec.name + "' is not an identity of its operator (" + op +
                     "): with e = " + show(e) + ", combine(e, e) = " + show(ee) +
                     ", but it must be e (the kernels combine the identity with itself where a tile is not "
                     "full); give that case its own branch in combine";
    return report;
  }
  for (int i = 0; i < samples; ++i) {
    std::vector<Slot> a = draw(), b = draw(), c = draw();
    std::vector<Slot> ea = apply(e, a), ae = apply(a, e);
    if (!slots_match(layout, ea.data(), a.data(), tol) || !slots_match(layout, ae.data(), a.data(), tol)) {
      report.ok = false;
      report.identity_failed = true;
      report.message = "the identity of scan '" + spec.name + "' is not an identity of its operator (" + op +
                       "): with e = " + show(e) + " and x = " + show(a) + ", combine(e, x) = " + show(ea) +
                       " and combine(x, e) = " + show(ae) + "; both must equal x";
      return report;
    }
    if (!associativity) continue;
    std::vector<Slot> left = apply(apply(a, b), c);
    std::vector<Slot> right = apply(a, apply(b, c));
    if (!slots_match(layout, left.data(), right.data(), tol)) {
      report.ok = false;
      report.within_rounding = t.contains_float() && slots_match(layout, left.data(), right.data(), rounding);
      report.message = "the operator of scan '" + spec.name + "' (" + op +
                       ") does not look associative: with a = " + show(a) + ", b = " + show(b) + ", c = " + show(c) +
                       ", combine(combine(a, b), c) = " + show(left) +
                       " but combine(a, combine(b, c)) = " + show(right) +
                       "; a scan regroups its combines freely, so its results would depend on the "
                       "algorithm";
      return report;
    }
  }
  return report;
}

std::string refuse_operator(const dsl::Spec& spec, uint64_t seed) {
  // A built-in `op` brings its own combine and identity, which pass the
  // check on every type the language allows them (tests/unit/test_reference.cpp,
  // "check_operator: every built-in op on every type"): the check's 2000
  // samples would only cost a disk-cache hit about a millisecond.
  if (spec.op) return "";
  const OperatorReport r = check_operator(spec, seed, 2000, /*associativity=*/!spec.assume_associative);
  if (r.ok) return "";
  std::string why = r.message + " (seed " + std::to_string(seed) + "); no kernel is made from it.";
  if (r.within_rounding)
    why +=
        " The difference is within the element's float rounding: if the operator is associative in exact "
        "arithmetic, say 'assume_associative = true;' in the scan";
  return why;
}

}  // namespace scangen::ref
