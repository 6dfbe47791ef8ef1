// The OpenCL 2.0 work-group functions of emit_opencl_builtins(), run on an
// OpenCL 1.2 device (PoCL in CI): the specification's example, every function
// and type on many work-group sizes against a CPU reference, 2-D and 3-D
// work-groups, calls that follow each other without a barrier, work-groups
// larger than the scratch array, and the error a kernel gets without its
// SCANGEN_WORK_GROUP_SCRATCH line.
//
// Without an OpenCL platform the tests fail, unless SCANGEN_ALLOW_NO_OPENCL=1.
// Random inputs come from a fresh seed, printed on failure; SCANGEN_TEST_SEED
// replays one.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "opencl_support.h"
#include "operator_sweep.h"  // scangen::test::test_seed
#include "scangen/generator/opencl_builtins.h"
#include "test_tier.h"

namespace {

using namespace scangen::test::cl;

// A context, a queue and one program on the device.
class Cl : public Session {
 public:
  explicit Cl(const Device& device) : Session(device) {}

  // Builds the work-group functions followed by `kernels`, which must compile
  // without a warning.
  void build(const std::string& kernels, const std::string& options = "") {
    Session::build(scangen::generator::emit_opencl_builtins() + kernels, options,
                   "kernels:\n" + kernels + "\noptions: " + options);
  }

  // The largest work-group `kernel` can be launched with.
  size_t max_group(const Kernel& kernel) {
    size_t size = 0;
    CL_CHECK(
        clGetKernelWorkGroupInfo(kernel.get(), device().id, CL_KERNEL_WORK_GROUP_SIZE, sizeof size, &size, nullptr));
    return std::min(size, device().max_group);
  }

  // Runs `kernel` over `global` work-items in work-groups of `local` (1 to 3
  // dimensions). Its arguments: a device copy of each of `inputs`, then one
  // output buffer per entry of `out_bytes`, filled with 0xAB bytes first.
  // Returns the output buffers.
  std::vector<std::vector<uint8_t>> run(const Kernel& kernel, const std::vector<const std::vector<uint8_t>*>& inputs,
                                        const std::vector<size_t>& out_bytes, const std::vector<size_t>& global,
                                        const std::vector<size_t>& local) {
    cl_int err = CL_SUCCESS;
    std::vector<Buffer> buffers;
    for (const auto* in : inputs) {
      buffers.emplace_back(clCreateBuffer(context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in->size(),
                                          const_cast<uint8_t*>(in->data()), &err));
      CL_CHECK(err);
    }
    std::vector<std::vector<uint8_t>> outs;
    for (size_t bytes : out_bytes) {
      outs.emplace_back(bytes, uint8_t{0xAB});
      buffers.emplace_back(
          clCreateBuffer(context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, outs.back().data(), &err));
      CL_CHECK(err);
    }
    cl_uint arg = 0;
    for (const Buffer& b : buffers) {
      cl_mem m = b.get();
      CL_CHECK(clSetKernelArg(kernel.get(), arg++, sizeof m, &m));
    }
    CL_CHECK(clEnqueueNDRangeKernel(queue(), kernel.get(), static_cast<cl_uint>(global.size()), nullptr, global.data(),
                                    local.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < outs.size(); ++i)
      CL_CHECK(clEnqueueReadBuffer(queue(), buffers[inputs.size() + i].get(), CL_TRUE, 0, outs[i].size(),
                                   outs[i].data(), 0, nullptr, nullptr));
    return outs;
  }
};

// ---- the functions -------------------------------------------------------

enum class Kind { Inclusive, Exclusive, Reduce };
enum class Op { Add, Min, Max };

struct Function {
  Kind kind;
  Op op;
  // "scan_inclusive_add": the built-in is work_group_ followed by this.
  std::string name() const {
    static const char* const kinds[] = {"scan_inclusive_", "scan_exclusive_", "reduce_"};
    static const char* const ops[] = {"add", "min", "max"};
    return std::string(kinds[static_cast<int>(kind)]) + ops[static_cast<int>(op)];
  }
};

std::vector<Function> all_functions() {
  std::vector<Function> out;
  for (Kind k : {Kind::Inclusive, Kind::Exclusive, Kind::Reduce})
    for (Op o : {Op::Add, Op::Min, Op::Max}) out.push_back({k, o});
  return out;
}

// ---- the element types on the host ---------------------------------------

// OpenCL's half, as its 16 bits.
struct Half {
  uint16_t bits;
};

float half_to_float(Half h) {
  const uint32_t sign = (h.bits & 0x8000u) << 16;
  const uint32_t exponent = (h.bits >> 10) & 0x1Fu;
  const uint32_t mantissa = h.bits & 0x3FFu;
  if (exponent == 0x1F) {  // inf, NaN
    const uint32_t bits = sign | 0x7F800000u | (mantissa << 13);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  const float magnitude = exponent == 0
                              ? std::ldexp(static_cast<float>(mantissa), -24)
                              : std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  return sign ? -magnitude : magnitude;
}

// For values that half represents exactly (the tests need no others).
Half float_to_half(float f) {
  if (std::isnan(f)) return Half{0x7E00};
  const uint32_t sign = std::signbit(f) ? 0x8000u : 0u;
  const float a = std::fabs(f);
  uint32_t bits = 0;
  if (std::isinf(a)) {
    bits = 0x7C00u;
  } else if (a >= 0x1p-14f) {  // normal: a = 1.m * 2^(e - 1)
    int e = 0;
    const float m = std::frexp(a, &e);
    bits = (static_cast<uint32_t>(e - 1 + 15) << 10) | static_cast<uint32_t>((m * 2.0f - 1.0f) * 1024.0f);
  } else {  // subnormal or zero: a = m * 2^-24
    bits = static_cast<uint32_t>(std::ldexp(a, 24));
  }
  const Half h{static_cast<uint16_t>(sign | bits)};
  if (!(half_to_float(h) == f)) FAIL("float_to_half: " << f << " is not a half");
  return h;
}

// What the tests need of each element type T.
template <typename T>
struct Element;

template <typename T>
struct IntegerElement {
  static_assert(std::is_integral_v<T>);
  using U = std::make_unsigned_t<T>;
  static T combine(Op op, T a, T b) {
    switch (op) {
      case Op::Add:
        return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));  // wraps
      case Op::Min:
        return std::min(a, b);
      case Op::Max:
        return std::max(a, b);
    }
    return a;
  }
  static T identity(Op op) {
    if (op == Op::Min) return std::numeric_limits<T>::max();
    if (op == Op::Max) return std::numeric_limits<T>::lowest();
    return T{0};
  }
  // Any value; one in eight an extreme, so that add wraps and min and max meet their identities.
  static T random(Op, size_t, std::mt19937_64& rng) {
    static const T extremes[] = {std::numeric_limits<T>::min(),
                                 std::numeric_limits<T>::max(),
                                 std::numeric_limits<T>::min() + 1,
                                 std::numeric_limits<T>::max() - 1,
                                 T{0},
                                 static_cast<T>(~U{0})};
    if (rng() % 8 == 0) return extremes[rng() % std::size(extremes)];
    return static_cast<T>(rng());
  }
  static bool same(T a, T b) { return a == b; }
  static std::string show(T v) { return std::to_string(v); }
};

template <typename T>
struct FloatElement {
  static T combine(Op op, T a, T b) {
    switch (op) {
      case Op::Add:
        return a + b;
      case Op::Min:
        return std::fmin(a, b);
      case Op::Max:
        return std::fmax(a, b);
    }
    return a;
  }
  static T identity(Op op) {
    if (op == Op::Min) return std::numeric_limits<T>::infinity();
    if (op == Op::Max) return -std::numeric_limits<T>::infinity();
    return T{0};
  }
  // add: integers in [-8, 8], whose sums are exact in any order; min and
  // max: any value, one in eight an infinity, a NaN, a zero, the largest or
  // the smallest.
  static T random(Op op, size_t, std::mt19937_64& rng) {
    if (op == Op::Add) return static_cast<T>(static_cast<int>(rng() % 17) - 8);
    static const T specials[] = {std::numeric_limits<T>::infinity(),
                                 -std::numeric_limits<T>::infinity(),
                                 std::numeric_limits<T>::quiet_NaN(),
                                 T{0},
                                 -T{0},
                                 std::numeric_limits<T>::max(),
                                 std::numeric_limits<T>::lowest(),
                                 std::numeric_limits<T>::denorm_min()};
    if (rng() % 8 == 0) return specials[rng() % std::size(specials)];
    const T mantissa = std::uniform_real_distribution<T>(T{1}, T{2})(rng);
    const T v = std::ldexp(mantissa, static_cast<int>(rng() % 81) - 40);
    return rng() % 2 ? -v : v;
  }
  // Exact, but +0 == -0 (fmin and fmax may return either) and NaN == NaN.
  static bool same(T a, T b) { return a == b || (std::isnan(a) && std::isnan(b)); }
  static std::string show(T v) {
    std::ostringstream s;
    s.precision(std::numeric_limits<T>::max_digits10);
    s << v;
    return s.str();
  }
};

template <>
struct Element<int32_t> : IntegerElement<int32_t> {
  static constexpr const char* name = "int";
};
template <>
struct Element<uint32_t> : IntegerElement<uint32_t> {
  static constexpr const char* name = "uint";
};
template <>
struct Element<int64_t> : IntegerElement<int64_t> {
  static constexpr const char* name = "long";
};
template <>
struct Element<uint64_t> : IntegerElement<uint64_t> {
  static constexpr const char* name = "ulong";
};
template <>
struct Element<float> : FloatElement<float> {
  static constexpr const char* name = "float";
};
template <>
struct Element<double> : FloatElement<double> {
  static constexpr const char* name = "double";
};
template <>
struct Element<Half> {
  static constexpr const char* name = "half";
  static Half combine(Op op, Half a, Half b) {
    return float_to_half(FloatElement<float>::combine(op, half_to_float(a), half_to_float(b)));
  }
  static Half identity(Op op) { return float_to_half(FloatElement<float>::identity(op)); }
  // add: -1, 0 or 1 for the first 2048 work-items of a group and 0 after
  // them, so that every partial sum is exact; min and max: any 16 bits.
  static Half random(Op op, size_t item_in_group, std::mt19937_64& rng) {
    if (op == Op::Add)
      return float_to_half(item_in_group < 2048 ? static_cast<float>(static_cast<int>(rng() % 3) - 1) : 0.0f);
    return Half{static_cast<uint16_t>(rng())};
  }
  static bool same(Half a, Half b) { return FloatElement<float>::same(half_to_float(a), half_to_float(b)); }
  static std::string show(Half v) {
    std::ostringstream s;
    s << FloatElement<float>::show(half_to_float(v)) << " (0x" << std::hex << v.bits << ")";
    return s.str();
  }
};

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> values_of(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// What `f` gives every work-item: `in` in work-groups of `group`, in order.
template <typename T>
std::vector<T> reference(Function f, const std::vector<T>& in, size_t group) {
  std::vector<T> out(in.size());
  for (size_t g = 0; g < in.size(); g += group) {
    std::vector<T> inclusive(group);
    for (size_t k = 0; k < group; ++k)
      inclusive[k] = k == 0 ? in[g] : Element<T>::combine(f.op, inclusive[k - 1], in[g + k]);
    for (size_t k = 0; k < group; ++k) {
      switch (f.kind) {
        case Kind::Inclusive:
          out[g + k] = inclusive[k];
          break;
        case Kind::Exclusive:
          out[g + k] = k == 0 ? Element<T>::identity(f.op) : inclusive[k - 1];
          break;
        case Kind::Reduce:
          out[g + k] = inclusive[group - 1];
          break;
      }
    }
  }
  return out;
}

// Empty when `got` is `expected`; otherwise the first mismatches.
template <typename T>
std::string compare(const std::vector<T>& in, const std::vector<T>& expected, const std::vector<T>& got, size_t group) {
  std::ostringstream report;
  int shown = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (Element<T>::same(expected[i], got[i])) continue;
    if (shown++ == 5) {
      report << "  ...\n";
      break;
    }
    report << "  work-group " << i / group << ", work-item " << i % group << ": input " << Element<T>::show(in[i])
           << ", expected " << Element<T>::show(expected[i]) << ", got " << Element<T>::show(got[i]) << "\n";
  }
  return report.str();
}

// One kernel per type, wg_<type>, that calls every function of `functions`
// in turn (with no barrier between the calls) on one element per work-item:
// its arguments are the inputs of the add, min and max functions, then one
// output per function. (One kernel rather than one per function: PoCL
// compiles each kernel again for each work-group size, which is most of the
// time these tests take.)
template <typename T>
std::string kernel_name() {
  return std::string("wg_") + Element<T>::name;
}
template <typename T>
std::string test_kernel(const std::vector<Function>& functions) {
  const std::string t = Element<T>::name;
  std::string out = "\nkernel void " + kernel_name<T>() + "(global const " + t + "* in_add, global const " + t +
                    "* in_min, global const " + t + "* in_max";
  for (size_t k = 0; k < functions.size(); ++k) out += ",\n    global " + t + "* out" + std::to_string(k);
  out += ") {\n  SCANGEN_WORK_GROUP_SCRATCH;\n  const size_t i = get_global_id(0);\n";
  for (size_t k = 0; k < functions.size(); ++k) {
    static const char* const inputs[] = {"in_add", "in_min", "in_max"};
    out += "  out" + std::to_string(k) + "[i] = work_group_" + functions[k].name() + "(" +
           inputs[static_cast<int>(functions[k].op)] + "[i]);\n";
  }
  return out + "}\n";
}

// Runs the kernel of test_kernel<T>(functions) on random inputs in 1-D
// work-groups of every size in `sizes` (those the kernel can launch with),
// several per launch; empty when all match the reference, otherwise what
// did not.
template <typename T>
std::string check(Cl& cl, const std::vector<Function>& functions, const std::vector<size_t>& sizes,
                  std::mt19937_64& rng) {
  std::string report;
  Kernel kernel = cl.kernel(kernel_name<T>());
  const size_t max_group = cl.max_group(kernel);
  for (size_t group : sizes) {
    if (group > max_group) continue;
    const size_t n = group * std::max<size_t>(3, 256 / group);  // several work-groups
    std::vector<std::vector<T>> in(3, std::vector<T>(n));       // the inputs of add, min and max
    std::vector<std::vector<uint8_t>> in_bytes;
    for (Op op : {Op::Add, Op::Min, Op::Max}) {
      std::vector<T>& values = in[static_cast<int>(op)];
      for (size_t i = 0; i < n; ++i) values[i] = Element<T>::random(op, i % group, rng);
      in_bytes.push_back(bytes_of(values));
    }
    const auto out = cl.run(kernel, {&in_bytes[0], &in_bytes[1], &in_bytes[2]},
                            std::vector<size_t>(functions.size(), n * sizeof(T)), {n}, {group});
    for (size_t k = 0; k < functions.size(); ++k) {
      const Function f = functions[k];
      const std::vector<T>& values = in[static_cast<int>(f.op)];
      const std::string mismatches = compare(values, reference(f, values, group), values_of<T>(out[k]), group);
      if (!mismatches.empty())
        report += std::string("work_group_") + f.name() + "(" + Element<T>::name + "), work-groups of " +
                  std::to_string(group) + ":\n" + mismatches;
    }
  }
  return report;
}

// 1, 2, 7, 8, 31, 64, 100, 256 and the device's largest work-group.
// The work-group sizes: every one in the full tier; the quick tier one of a
// few work-items, one of a few warps' worth and one of 256 or more, drawn (a
// device such as PoCL compiles the kernel again for every size).
std::vector<size_t> sweep_sizes(const Device& device, const std::string& type) {
  std::vector<size_t> sizes = {1, 2, 7, 8, 31, 64, 100, 256};
  if (std::find(sizes.begin(), sizes.end(), device.max_group) == sizes.end()) sizes.push_back(device.max_group);
  return scangen::test::sample_cases(sizes, "work-group sizes of the " + type + " functions", [](size_t n) {
    return std::vector<std::string>{n <= 8 ? "few" : n < 256 ? "warps" : "many"};
  });
}

// Every function on T, in one program.
template <typename T>
void sweep() {
  const Device device = device_or_skip();
  if (!device.id) return;
  INFO("OpenCL device: " << device.name << " (largest work-group " << device.max_group << ")");
  if (std::is_same_v<T, double> && !device.fp64) {
    WARN("the device has no fp64: double is not tested");
    return;
  }
  if (std::is_same_v<T, Half> && !device.fp16) {
    WARN("the device has no cl_khr_fp16: half is not tested");
    return;
  }
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  Cl cl(device);
  cl.build(test_kernel<T>(all_functions()));
  const std::string report = check<T>(cl, all_functions(), sweep_sizes(device, Element<T>::name), rng);
  INFO(report);
  CHECK(report.empty());
}

template <typename T>
std::vector<T> to_vector(std::initializer_list<T> v) {
  return std::vector<T>(v);
}

}  // namespace

// OpenCL 2.0, section 6.13.15: with the input [3 1 7 0 4 1 6 3] in a
// work-group of 8, work_group_scan_inclusive_add gives [3 4 11 11 15 16 22 25]
// and work_group_scan_exclusive_add [0 3 4 11 11 15 16 22]. The kernel is the
// 2.0 one plus its SCANGEN_WORK_GROUP_SCRATCH line; it also builds as OpenCL
// C 2.0, where the compiler declares the built-ins itself.
TEST_CASE("the OpenCL 2.0 specification's work-group scan example", "[opencl][builtins]") {
  const Device device = device_or_skip();
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  const std::string kernel = R"CL(
kernel void spec_example(global const int* in, global int* inclusive, global int* exclusive) {
  SCANGEN_WORK_GROUP_SCRATCH;
  const size_t i = get_global_id(0);
  inclusive[i] = work_group_scan_inclusive_add(in[i]);
  exclusive[i] = work_group_scan_exclusive_add(in[i]);
}
)CL";
  const std::vector<uint8_t> in = bytes_of(to_vector<int32_t>({3, 1, 7, 0, 4, 1, 6, 3}));
  for (const char* options : {"", "-cl-std=CL2.0"}) {
    INFO("build options: " << options);
    Cl cl(device);
    cl.build(kernel, options);
    const auto out = cl.run(cl.kernel("spec_example"), {&in}, {in.size(), in.size()}, {8}, {8});
    CHECK(values_of<int32_t>(out[0]) == to_vector<int32_t>({3, 4, 11, 11, 15, 16, 22, 25}));
    CHECK(values_of<int32_t>(out[1]) == to_vector<int32_t>({0, 3, 4, 11, 11, 15, 16, 22}));
  }
}

TEST_CASE("every work-group function on int", "[opencl][builtins]") { sweep<int32_t>(); }
TEST_CASE("every work-group function on uint", "[opencl][builtins]") { sweep<uint32_t>(); }
TEST_CASE("every work-group function on long", "[opencl][builtins]") { sweep<int64_t>(); }
TEST_CASE("every work-group function on ulong", "[opencl][builtins]") { sweep<uint64_t>(); }
TEST_CASE("every work-group function on float", "[opencl][builtins]") { sweep<float>(); }
TEST_CASE("every work-group function on double", "[opencl][builtins]") { sweep<double>(); }
TEST_CASE("every work-group function on half", "[opencl][builtins]") { sweep<Half>(); }

// Scan order is the linear local id: get_local_id(0) varies fastest.
TEST_CASE("work-group functions in 2-D and 3-D work-groups", "[opencl][builtins]") {
  const Device device = device_or_skip();
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  Cl cl(device);
  cl.build(R"CL(
kernel void nd(global const int* in, global int* inclusive, global int* exclusive, global int* reduce) {
  SCANGEN_WORK_GROUP_SCRATCH;
  const size_t i = get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
  inclusive[i] = work_group_scan_inclusive_add(in[i]);
  exclusive[i] = work_group_scan_exclusive_max(in[i]);
  reduce[i] = work_group_reduce_min(in[i]);
}
)CL");
  Kernel kernel = cl.kernel("nd");
  struct Shape {
    std::vector<size_t> global, local;
  };
  const Shape shapes[] = {{{16, 8}, {8, 4}}, {{15, 9}, {5, 3}}, {{6, 4, 6}, {3, 2, 2}}, {{4, 64}, {4, 16}}};
  for (const Shape& shape : shapes) {
    size_t n = 1, group = 1;
    for (size_t d = 0; d < shape.global.size(); ++d) {
      n *= shape.global[d];
      group *= shape.local[d];
    }
    std::vector<int32_t> in(n);
    for (int32_t& v : in) v = Element<int32_t>::random(Op::Add, 0, rng);
    const std::vector<uint8_t> in_bytes = bytes_of(in);
    const auto out =
        cl.run(kernel, {&in_bytes}, {in_bytes.size(), in_bytes.size(), in_bytes.size()}, shape.global, shape.local);
    // The inputs rearranged so that each work-group's are consecutive, in linear local id order.
    std::vector<size_t> order;
    const size_t gx = shape.global[0], gy = shape.global.size() > 1 ? shape.global[1] : 1;
    const size_t gz = shape.global.size() > 2 ? shape.global[2] : 1;
    const size_t lx = shape.local[0], ly = shape.local.size() > 1 ? shape.local[1] : 1;
    const size_t lz = shape.local.size() > 2 ? shape.local[2] : 1;
    for (size_t wz = 0; wz < gz / lz; ++wz)
      for (size_t wy = 0; wy < gy / ly; ++wy)
        for (size_t wx = 0; wx < gx / lx; ++wx)
          for (size_t z = 0; z < lz; ++z)
            for (size_t y = 0; y < ly; ++y)
              for (size_t x = 0; x < lx; ++x)
                order.push_back((wx * lx + x) + gx * ((wy * ly + y) + gy * (wz * lz + z)));
    std::vector<int32_t> grouped_in;
    for (size_t i : order) grouped_in.push_back(in[i]);
    const Function functions[] = {{Kind::Inclusive, Op::Add}, {Kind::Exclusive, Op::Max}, {Kind::Reduce, Op::Min}};
    for (size_t f = 0; f < 3; ++f) {
      const std::vector<int32_t> got = values_of<int32_t>(out[f]);
      std::vector<int32_t> grouped_got;
      for (size_t i : order) grouped_got.push_back(got[i]);
      INFO("work_group_" << functions[f].name() << ", global " << shape.global.size() << "-D " << gx << "x" << gy << "x"
                         << gz << ", local " << lx << "x" << ly << "x" << lz);
      const std::string report = compare(grouped_in, reference(functions[f], grouped_in, group), grouped_got, group);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

// Each call ends with a barrier after its last use of the scratch array, so
// the next call, of any type, may follow at once. The last call is made in a
// helper function, which takes the scratch array as a parameter.
TEST_CASE("work-group functions called back to back, without a barrier between them", "[opencl][builtins]") {
  const Device device = device_or_skip();
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  Cl cl(device);
  cl.build(R"CL(
int exclusive_sum(int x, SCANGEN_WORK_GROUP_SCRATCH_PARAM) {
  return work_group_scan_exclusive_add(x);
}

kernel void back_to_back(global const int* a, global const long* b, global const float* c,
                         global int* out_a, global long* out_b, global float* out_c, global int* out_d) {
  SCANGEN_WORK_GROUP_SCRATCH;
  const size_t i = get_global_id(0);
  out_a[i] = work_group_scan_inclusive_add(a[i]);
  out_b[i] = work_group_scan_exclusive_max(b[i]);
  out_c[i] = work_group_reduce_min(c[i]);
  out_d[i] = exclusive_sum(a[i], SCANGEN_WORK_GROUP_SCRATCH_ARG);
}
)CL");
  Kernel kernel = cl.kernel("back_to_back");
  for (size_t group : {size_t{1}, size_t{7}, size_t{64}, size_t{100}, cl.max_group(kernel)}) {
    const size_t n = group * 3;
    std::vector<int32_t> a(n);
    std::vector<int64_t> b(n);
    std::vector<float> c(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = Element<int32_t>::random(Op::Add, i % group, rng);
      b[i] = Element<int64_t>::random(Op::Max, i % group, rng);
      c[i] = Element<float>::random(Op::Min, i % group, rng);
    }
    const auto a_bytes = bytes_of(a), b_bytes = bytes_of(b), c_bytes = bytes_of(c);
    const auto out = cl.run(kernel, {&a_bytes, &b_bytes, &c_bytes},
                            {a_bytes.size(), b_bytes.size(), c_bytes.size(), a_bytes.size()}, {n}, {group});
    INFO("work-groups of " << group);
    const std::string report =
        compare(a, reference(Function{Kind::Inclusive, Op::Add}, a, group), values_of<int32_t>(out[0]), group) +
        compare(b, reference(Function{Kind::Exclusive, Op::Max}, b, group), values_of<int64_t>(out[1]), group) +
        compare(c, reference(Function{Kind::Reduce, Op::Min}, c, group), values_of<float>(out[2]), group) +
        compare(a, reference(Function{Kind::Exclusive, Op::Add}, a, group), values_of<int32_t>(out[3]), group);
    INFO(report);
    CHECK(report.empty());
  }
}

// A work-group larger than the scratch array is taken in chunks, with a
// carry; here the array has 64 slots and 4 rakers.
TEST_CASE("work-groups larger than the scratch array", "[opencl][builtins]") {
  const Device device = device_or_skip();
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  const uint64_t seed = scangen::test::test_seed();
  INFO("seed " << seed << " (replay with SCANGEN_TEST_SEED=" << seed << ")");
  std::mt19937_64 rng(seed);
  const std::vector<Function> functions = {
      {Kind::Inclusive, Op::Add}, {Kind::Exclusive, Op::Min}, {Kind::Reduce, Op::Max}, {Kind::Exclusive, Op::Add}};
  Cl cl(device);
  cl.build(test_kernel<int32_t>(functions) + test_kernel<float>(functions),
           "-DSCANGEN_WG_SCRATCH_ITEMS=64 -DSCANGEN_WG_RAKERS=4");
  const std::vector<size_t> sizes = {5, 64, 65, 200, 257};
  const std::string report = check<int32_t>(cl, functions, sizes, rng) + check<float>(cl, functions, sizes, rng);
  INFO(report);
  CHECK(report.empty());
}

TEST_CASE("a kernel without SCANGEN_WORK_GROUP_SCRATCH gets an error that says what to add", "[opencl][builtins]") {
  const Device device = device_or_skip();
  if (!device.id) return;
  INFO("OpenCL device: " << device.name);
  Cl cl(device);
  const auto [err, log] = cl.try_build(scangen::generator::emit_opencl_builtins() + R"CL(
kernel void forgot(global int* a) {
  a[get_global_id(0)] = work_group_reduce_add(a[get_global_id(0)]);
}
)CL",
                                       "");
  INFO("build log:\n" << log);
  CHECK(err != CL_SUCCESS);
  CHECK(log.find("'scangen_wg_scratch' is unavailable: the OpenCL 2.0 work-group functions need the line "
                 "SCANGEN_WORK_GROUP_SCRATCH;") != std::string::npos);
}
