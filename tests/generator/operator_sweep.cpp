#include "operator_sweep.h"
#include "test_tier.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "scangen/dsl/dsl.h"
#include "scangen/generator/preamble.h"

namespace scangen::test {

using dsl::ScalarKind;
using generator::Backend;

namespace {

const ScalarKind kIntegerKinds[] = {ScalarKind::I8, ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
                                    ScalarKind::U8, ScalarKind::U16, ScalarKind::U32, ScalarKind::U64};
const ScalarKind kFloatKinds[] = {ScalarKind::F16, ScalarKind::F32, ScalarKind::F64};
const ScalarKind kNumericKinds[] = {ScalarKind::I8,  ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
                                    ScalarKind::U8,  ScalarKind::U16, ScalarKind::U32, ScalarKind::U64,
                                    ScalarKind::F16, ScalarKind::F32, ScalarKind::F64};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::vector<dsl::Spec> load(const std::string& name, const std::string& text) {
  dsl::Document doc = dsl::load(name, text);
  if (!doc.ok()) throw std::runtime_error("sweep spec " + name + " does not check:\n" + doc.diagnostics().render());
  return doc.specs();
}

std::vector<dsl::Spec> load_file(const std::filesystem::path& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << f.rdbuf();
  return load(path.string(), text.str());
}

std::vector<SweepSpec> load_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".scan") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no .scan files in " + dir.string());
  std::vector<SweepSpec> out;
  for (const auto& f : files)
    for (dsl::Spec& s : load_file(f)) out.push_back({std::move(s), {}});
  return out;
}

// Every integer operator, built-in and comparison on one kind, each in its own
// field so that one wrong operator shows by name. Shift counts come both in
// the value's kind and in another, wider or narrower.
std::string integer_ops_text(ScalarKind k) {
  const std::string wide_count = k == ScalarKind::I64 ? "u8" : "i64";
  const std::string narrow_count = k == ScalarKind::U8 ? "i16" : "u8";
  std::string text = R"(
type Ops {
  add: $K, sub: $K, mul: $K, div: $K, rem: $K, and: $K, or: $K, xor: $K,
  shl: $K, shr: $K, shl_count: $K, shr_count: $K, neg: $K, not: $K,
  min: $K, max: $K, abs: $K, clamp: $K, compare: $K, logic: $K, select: $K, cond: $K, lets: $K, literal: $K,
}

scan ops_$K {
  type = Ops;
  combine(x, y) {
    let sum: $K = x.lets + y.lets;
    let twice: $K = sum * 2;
    let grew: bool = twice > sum;
    return Ops {
      add: x.add + y.add,
      sub: x.sub - y.sub,
      mul: x.mul * y.mul,
      div: x.div / y.div,
      rem: x.rem % y.rem,
      and: x.and & y.and,
      or: x.or | y.or,
      xor: x.xor ^ y.xor,
      shl: x.shl << y.shl,
      shr: x.shr >> y.shr,
      shl_count: x.shl_count << $WIDE(y.shl_count),
      shr_count: x.shr_count >> $NARROW(y.shr_count),
      neg: -x.neg,
      not: ~x.not,
      min: min(x.min, y.min),
      max: max(x.max, y.max),
      abs: abs(x.abs),
      clamp: clamp(x.clamp, y.clamp, y.min),
      compare: (x.compare < y.compare ? 1 : 0) | (x.compare <= y.compare ? 2 : 0) | (x.compare > y.compare ? 4 : 0)
             | (x.compare >= y.compare ? 8 : 0) | (x.compare == y.compare ? 16 : 0) | (x.compare != y.compare ? 32 : 0),
      logic: ((x.logic < y.logic && x.logic != 0) || !(y.logic == 1) ? 1 : 0)
           | (((x.logic > 1) == (y.logic > 1)) != false ? 2 : 0),
      select: select(x.select, y.select, x.select < y.select),
      cond: x.cond > y.cond ? x.cond - y.cond : y.cond - x.cond,
      lets: grew ? twice : sum,
      literal: x.literal ^ $K.max ^ $K.min + y.literal * 3 + 100,
    };
  }
  identity = Ops { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
}
)";
  text = replace_all(text, "$WIDE", wide_count);
  text = replace_all(text, "$NARROW", narrow_count);
  return replace_all(text, "$K", dsl::to_string(k));
}

// Every float operator and built-in that the reference rounds correctly, so
// the kernels must match it exactly. `contract` would differ if a * b + c were
// fused; `tiny` reaches the subnormals, `huge` overflows.
std::string float_ops_text(ScalarKind k) {
  const char* tiny = k == ScalarKind::F16 ? "0.000001" : k == ScalarKind::F32 ? "1e-40" : "1e-310";
  std::string text = R"(
type Ops {
  add: $K, sub: $K, mul: $K, div: $K, neg: $K, min: $K, max: $K, abs: $K, clamp: $K, fma: $K, sqrt: $K,
  floor: $K, ceil: $K, compare: $K, select: $K, cond: $K, lets: $K, contract: $K, literal: $K, special: $K,
  tiny: $K, huge: $K,
}

scan ops_$K {
  type = Ops;
  combine(x, y) {
    let product: $K = x.lets * y.lets;
    let sum: $K = product + x.lets;
    return Ops {
      add: x.add + y.add,
      sub: x.sub - y.sub,
      mul: x.mul * y.mul,
      div: x.div / y.div,
      neg: -x.neg,
      min: min(x.min, y.min),
      max: max(x.max, y.max),
      abs: abs(x.abs),
      clamp: clamp(x.clamp, y.clamp, y.min),
      fma: fma(x.fma, y.fma, y.add),
      sqrt: sqrt(x.sqrt),
      floor: floor(x.floor * 3.7),
      ceil: ceil(x.ceil * 3.7),
      compare: (x.compare < y.compare ? 1.0 : 0.0) + (x.compare <= y.compare ? 2.0 : 0.0)
             + (x.compare > y.compare ? 4.0 : 0.0) + (x.compare >= y.compare ? 8.0 : 0.0)
             + (x.compare == y.compare ? 16.0 : 0.0) + (x.compare != y.compare ? 32.0 : 0.0),
      select: select(x.select, y.select, x.select < y.select),
      cond: x.cond > y.cond && !(y.cond == 0.0) ? x.cond / y.cond : y.cond,
      lets: sum > product ? sum : product - sum,
      contract: x.contract * y.contract + x.add * y.add,
      literal: x.literal * 0.1 + 1000.0 - (-2.5),
      special: min(x.special, nan) + max(y.special, -inf) * (x.special > 0.0 ? inf : 1.0),
      tiny: x.tiny * y.tiny * $TINY,
      huge: x.huge * $K.max + y.huge * $K.max,
    };
  }
  identity = Ops { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                   0.0, 0.0, 0.0, 0.0 };
}
)";
  text = replace_all(text, "$TINY", tiny);
  return replace_all(text, "$K", dsl::to_string(k));
}

// exp and log: a few ulp on the devices, so compared with a tolerance.
std::string float_math_text(ScalarKind k) {
  std::string text = R"(
type Math { exp: $K, log: $K, mixed: $K }

scan math_$K {
  type = Math;
  combine(x, y) = Math { exp: exp(x.exp), log: log(x.log), mixed: exp(x.mixed * 0.5) * log(abs(y.mixed) + 2.0) };
  identity = Math { 0.0, 0.0, 0.0 };
}
)";
  return replace_all(text, "$K", dsl::to_string(k));
}

// The input kind converted to every numeric kind (the convert kernel), and
// the combine converting between the kinds (in register form: f16 as float).
std::string conversions_text(ScalarKind from) {
  std::string text = R"(
type Conv {
  to_i8: i8, to_i16: i16, to_i32: i32, to_i64: i64, to_u8: u8, to_u16: u16, to_u32: u32, to_u64: u64,
  to_f16: f16, to_f32: f32, to_f64: f64,
}

scan convert_from_$K {
  type = Conv;
  input = $K;
  convert(v) = Conv {
    to_i8: i8(v), to_i16: i16(v), to_i32: i32(v), to_i64: i64(v), to_u8: u8(v), to_u16: u16(v), to_u32: u32(v),
    to_u64: u64(v), to_f16: f16(v), to_f32: f32(v), to_f64: f64(v),
  };
  combine(x, y) = Conv {
    to_i8: i8(y.to_f64), to_i16: i16(y.to_f32), to_i32: i32(y.to_f16), to_i64: i64(y.to_u64),
    to_u8: u8(y.to_i64), to_u16: u16(y.to_f64), to_u32: u32(y.to_f32), to_u64: u64(y.to_f16),
    to_f16: f16(y.to_f64) + f16(x.to_i32), to_f32: f32(y.to_u64) + f32(x.to_f16), to_f64: f64(y.to_i64),
  };
  identity = Conv { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
}
)";
  return replace_all(text, "$K", dsl::to_string(from));
}

// Float values worth hitting on purpose (stored rounded to the slot's kind).
const double kFloatEdges[] = {0.0,
                              -0.0,
                              std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN(),
                              1.0,
                              -1.0,
                              0.5,
                              -0.5,
                              -0.99,
                              127.5,
                              128.0,
                              -128.5,
                              -129.0,
                              255.5,
                              256.0,
                              32767.5,
                              32768.0,
                              -32769.0,
                              65504.0,
                              65519.0,
                              65520.0,
                              2147483520.0,
                              2147483648.0,
                              -2147483648.0,
                              -2147483649.0,
                              4294967295.0,
                              4294967296.0,
                              9223372036854775808.0,
                              -9223372036854775808.0,
                              18446744073709551616.0,
                              1e30,
                              -1e30,
                              1e300,
                              3.4028234663852886e38,
                              1e-40,
                              6e-8,
                              1e-310,
                              1.1754943508222875e-38};

}  // namespace

// The folders are compiled in; an environment variable of the same name moves
// them, for binaries run from another checkout (scripts/gpu-check).
std::filesystem::path spec_dir(const char* variable, const char* built_in) {
  const char* moved = std::getenv(variable);
  return moved && *moved ? moved : built_in;
}

std::vector<SweepSpec> example_specs() { return load_dir(spec_dir("SCANGEN_EXAMPLES_DIR", SCANGEN_EXAMPLES_DIR)); }

std::vector<SweepSpec> coverage_specs() {
  std::vector<SweepSpec> out = load_dir(spec_dir("SCANGEN_GENERATOR_SPECS_DIR", SCANGEN_GENERATOR_SPECS_DIR));
  auto add = [&](const std::string& name, const std::string& text, ref::Tolerance tol = {}) {
    for (dsl::Spec& s : load(name, text)) out.push_back({std::move(s), tol});
  };
  for (ScalarKind k : kIntegerKinds) add(std::string("ops_") + dsl::to_string(k) + ".scan", integer_ops_text(k));
  for (ScalarKind k : kFloatKinds) {
    add(std::string("ops_") + dsl::to_string(k) + ".scan", float_ops_text(k));
    // f16: one f16 ulp, as a float rounding of exp may tip the f16 rounding.
    ref::Tolerance tol = k == ScalarKind::F16   ? ref::Tolerance{2e-3, 1e-3}
                         : k == ScalarKind::F32 ? ref::Tolerance{2e-6, 1e-6}
                                                : ref::Tolerance{1e-13, 1e-13};
    add(std::string("math_") + dsl::to_string(k) + ".scan", float_math_text(k), tol);
  }
  for (ScalarKind k : kNumericKinds)
    add(std::string("convert_from_") + dsl::to_string(k) + ".scan", conversions_text(k));
  return out;
}

std::string test_program(const dsl::Spec& spec, Backend backend) {
  const std::string p = spec.name;
  const generator::PreambleNames n = generator::preamble_names(spec);
  std::string s = generator::emit_preamble(spec, backend);
  // convert(v, i): the element's index is its place in the test's array.
  const std::string index_argument = spec.convert && spec.convert->params.size() > 1 ? ", (scangen_u64)i" : "";
  if (backend == Backend::Cuda) {
    s += "extern \"C\" __global__ void " + p + "_test_combine(const " + n.value_type + "* a, const " + n.value_type +
         "* b, " + n.value_type +
         "* out, unsigned int n) {\n"
         "  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = " +
         n.combine + "(a[i], b[i]);\n}\n";
    s += "extern \"C\" __global__ void " + p + "_test_convert(const " + n.input_type + "* in, " + n.value_type +
         "* out, unsigned int n) {\n"
         "  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "  if (i < n) out[i] = " +
         n.convert + "(in[i]" + index_argument + ");\n}\n";
    s += "extern \"C\" __global__ void " + p + "_test_constants(" + n.value_type +
         "* out) {\n"
         "  out[0] = " +
         n.identity + "();\n  out[1] = " + n.init + "();\n}\n";
  } else {
    s += "__kernel void " + p + "_test_combine(__global const " + n.value_type + "* a, __global const " + n.value_type +
         "* b, __global " + n.value_type +
         "* out, uint n) {\n"
         "  const size_t i = get_global_id(0);\n"
         "  if (i < n) out[i] = " +
         n.combine + "(a[i], b[i]);\n}\n";
    s += "__kernel void " + p + "_test_convert(__global const " + n.input_type + "* in, __global " + n.value_type +
         "* out, uint n) {\n"
         "  const size_t i = get_global_id(0);\n"
         "  if (i < n) out[i] = " +
         n.convert + "(in[i]" + index_argument + ");\n}\n";
    s += "__kernel void " + p + "_test_constants(__global " + n.value_type +
         "* out) {\n"
         "  out[0] = " +
         n.identity + "();\n  out[1] = " + n.init + "();\n}\n";
  }
  return s;
}

std::vector<uint8_t> random_values(const dsl::Type& t, size_t count, std::mt19937_64& rng) {
  std::vector<uint8_t> out(count * t.size());
  ref::fill_random(t, out.data(), count, rng);
  const auto layout = dsl::flatten(t);
  for (size_t i = 0; i < count; ++i) {
    for (const dsl::ScalarSlot& slot : layout) {
      if (!dsl::is_float(slot.kind) || (rng() & 7) != 0) continue;
      const double v = kFloatEdges[rng() % std::size(kFloatEdges)];
      uint8_t* p = out.data() + i * t.size() + slot.offset;
      if (slot.kind == ScalarKind::F64) {
        std::memcpy(p, &v, 8);
      } else if (slot.kind == ScalarKind::F32) {
        const float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
      } else {
        const uint16_t h = dsl::float_to_half_bits(static_cast<float>(v));
        std::memcpy(p, &h, 2);
      }
    }
  }
  return out;
}

namespace {

// Compares `count` elements of `t`: the first few mismatches, with the inputs
// they came from, and their number; empty when all match.
std::string compare_elements(const dsl::Type& t, const char* what, const std::vector<uint8_t>& got,
                             const std::vector<uint8_t>& want, size_t count, ref::Tolerance tol,
                             const std::vector<std::pair<const dsl::Type*, const std::vector<uint8_t>*>>& inputs) {
  const size_t size = t.size();
  std::string report;
  size_t bad = 0;
  for (size_t i = 0; i < count; ++i) {
    if (ref::values_match(t, got.data() + i * size, want.data() + i * size, tol)) continue;
    if (++bad > 4) continue;
    report += std::string(what) + "[" + std::to_string(i) + "]: got " + ref::format_value(t, got.data() + i * size) +
              ", want " + ref::format_value(t, want.data() + i * size);
    for (size_t k = 0; k < inputs.size(); ++k)
      report += (k ? ", " : " from ") +
                ref::format_value(*inputs[k].first, inputs[k].second->data() + i * inputs[k].first->size());
    report += "\n";
  }
  if (bad) report += std::to_string(bad) + " of " + std::to_string(count) + " " + what + " results differ\n";
  return report;
}

}  // namespace

std::string run_and_compare(const SweepSpec& s, size_t n, std::mt19937_64& rng, const RunKernel& run) {
  const dsl::Spec& spec = s.spec;
  const size_t size = spec.type.size();
  const auto a = random_values(spec.type, n, rng);
  const auto b = random_values(spec.type, n, rng);
  const auto in = random_values(spec.input, n, rng);

  ref::Evaluator ev(spec);
  std::vector<uint8_t> combined(n * size), converted(n * size), constants(2 * size);
  for (size_t i = 0; i < n; ++i) {
    ev.combine(a.data() + i * size, b.data() + i * size, combined.data() + i * size);
    ev.convert(in.data() + i * spec.input.size(), converted.data() + i * size, i);
  }
  ev.identity(constants.data());
  ev.init(constants.data() + size);

  const std::string& p = spec.name;
  return compare_elements(spec.type, "combine", run(p + "_test_combine", {&a, &b}, n * size, n, true), combined, n,
                          s.tolerance, {{&spec.type, &a}, {&spec.type, &b}}) +
         compare_elements(spec.type, "convert", run(p + "_test_convert", {&in}, n * size, n, true), converted, n,
                          s.tolerance, {{&spec.input, &in}}) +
         // Constants, which the preamble spells exactly.
         compare_elements(spec.type, "identity/init", run(p + "_test_constants", {}, 2 * size, 1, false), constants, 2,
                          {}, {});
}

uint64_t test_seed() { return tier_seed(); }

}  // namespace scangen::test
