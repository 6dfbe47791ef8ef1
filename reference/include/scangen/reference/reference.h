// The CPU reference: interprets a Spec's operator on host arrays with exactly
// the semantics of each level and mode. Every execution test compares a
// kernel's output against it.
//
// Values are bytes in the element layout of the Spec's types (C struct rules,
// see dsl::StructType), so device buffers can be compared byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "scangen/dsl/spec.h"

namespace scangen::ref {

class Program;

class Evaluator {
 public:
  struct Options {
    // Compute f16/f32 arithmetic in f64. `scangen check` uses this so that
    // rounding noise neither hides nor fakes a failure of associativity.
    bool widen_floats = false;
  };

  explicit Evaluator(const dsl::Spec& spec);
  Evaluator(const dsl::Spec& spec, Options options);
  ~Evaluator();
  Evaluator(Evaluator&&) noexcept;
  Evaluator& operator=(Evaluator&&) noexcept;

  const dsl::Spec& spec() const { return spec_; }
  size_t element_size() const { return spec_.type.size(); }
  size_t input_size() const { return spec_.input.size(); }

  // Single-element operations; every pointer is one element.
  void identity(void* out) const;
  void init(void* out) const;
  void combine(const void* x, const void* y, void* out) const;
  // input type -> scan type; `index`: the element's index in the array, for
  // convert(v, i); `prev` and `next`: its neighbours in the array, for
  // prev(v) and next(v) (null: the element itself, as at the ends).
  void convert(const void* in, void* out, uint64_t index = 0, const void* prev = nullptr,
               const void* next = nullptr) const;
  bool converts_index() const { return spec_.convert_takes_index(); }
  // Fused inputs (spec.input_arrays: several arrays, or none): the n elements
  // of `type` that convert makes from element i of each array (arrays[k]
  // holds n elements of input_arrays[k]) and, when it takes it, i.
  std::vector<uint8_t> convert_arrays(const std::vector<const void*>& arrays, uint64_t n) const;

  struct Result {
    std::vector<uint8_t> inclusive;      // n elements, when the mode has it
    std::vector<uint8_t> exclusive;      // n elements, when the mode has it
    std::vector<uint8_t> aggregates;     // one per segment (one for device), when asked for
    std::vector<uint8_t> running_total;  // one element: the counter after the call, when asked for
  };

  // Scans `n` input elements with the semantics of the Spec's level:
  // warp: independent segments of W x items; block: threads x items; device:
  // the whole array. Each segment starts from `init`, or, with the
  // running_total output, from the counter, which then absorbs the segment's
  // total (segments in ascending order). `running_total_in` is the counter's
  // value before the call (null = identity). With `reverse = true;` the same
  // segments are scanned from their last element to their first, and the
  // counter absorbs them last to first: a forward scan of the reversed array.
  // Parts of one array scanned apart (scangen::mpi, scangen.mpi): `parts`
  // aggregates one after the other in `aggregates`; into `carry` the seed of
  // part `part` (init, or `init_value` where given, combined with the
  // aggregates of the parts before it, after it with reverse), into `total`
  // (where given) the aggregate of them all.
  void carry(const void* aggregates, uint64_t parts, uint64_t part, const void* init_value, void* carry,
             void* total = nullptr) const;
  Result scan(const void* input, uint64_t n, const void* running_total_in = nullptr) const;
  // The scan of those elements (a flat device scan), as scan() of an array
  // that held them already converted.
  Result scan_arrays(const std::vector<const void*>& arrays, uint64_t n, const void* running_total_in = nullptr) const;

  // Segmented scans (device level, spec.segments): each range [begin, end)
  // is scanned on its own from init, with its own aggregate (one per range,
  // in order, empty ranges included). The ranges cover 0 .. n in order.
  struct Range {
    uint64_t begin = 0;
    uint64_t end = 0;
  };
  // (`running_total_in`: as for scan; a segmented spec has no running total.)
  Result scan_ranges(const void* input, uint64_t n, const std::vector<Range>& ranges,
                     const void* running_total_in = nullptr) const;
  // shape = rows (shapes.cpp): `rows` rows of `length` input elements, row r
  // at element r * row_stride of `input`, each scanned as a device scan from
  // init. The outputs are dense (row r at r * length); aggregates: one per row.
  Result scan_rows(const void* input, uint64_t rows, uint64_t length, uint64_t row_stride) const;
  // shape = strided: every line along `axis` of the rank-`rank` array of
  // `extents` with `strides` (in elements) scanned the same way. The outputs
  // are dense, row-major over `extents`; aggregates: one per line, row-major
  // over the other dimensions.
  Result scan_strided(const void* input, int rank, const uint64_t* extents, const uint64_t* strides, int axis) const;
  // Fused outputs (spec.scatter, a flat device scan): writes into `out`, n
  // elements of spec.scatter_type as the caller left them, what the kernel
  // writes: for each i in order where scatter_if holds, scatter(...) at
  // scatter_at(...) when that is below n. Returns how many were written.
  uint64_t scatter(const void* input, uint64_t n, void* out) const;
  // Every fused output: `outs` holds scattered, then one array per named
  // output (spec.scatter_named) in order, each of n elements of its type.
  // Returns how many were written to each.
  std::vector<uint64_t> scatter_all(const void* input, uint64_t n, const std::vector<void*>& outs) const;

 private:
  dsl::Spec spec_;
  Options options_;
  std::unique_ptr<Program> combine_;
  std::unique_ptr<Program> convert_;  // null when input == type and no convert was given
  std::vector<uint8_t> identity_;
  std::vector<uint8_t> init_;
};

// ---- segments ----------------------------------------------------------------

// The segments of a segmented scan in each run-time form, as the ranges
// Evaluator::scan_ranges takes.
// flags: a byte per element, nonzero starts a segment (element 0 always
// does); n = 0 has no segment.
std::vector<Evaluator::Range> ranges_from_flags(const uint8_t* flags, uint64_t n);
// offsets: n_segments + 1 of them, offsets[0] = 0, nondecreasing, the last
// = n; throws std::invalid_argument (saying which offset) otherwise.
std::vector<Evaluator::Range> ranges_from_offsets(const std::vector<uint64_t>& offsets, uint64_t n);
// keys: n scalars of `key`; a segment starts where the key differs from the
// one before (C's ==: NaN differs from everything, -0.0 equals 0.0).
std::vector<Evaluator::Range> ranges_from_keys(dsl::ScalarKind key, const void* keys, uint64_t n);
// keys of `spec.key`, compared as the spec says: a segment starts at element
// i > 0 where key_equal(keys[i - 1], keys[i]) is false, or, without
// key_equal, as above.
std::vector<Evaluator::Range> ranges_from_keys(const dsl::Spec& spec, const void* keys, uint64_t n);

// ---- values ------------------------------------------------------------------

// Fills `count` elements of type `t` with random values: integers over their
// whole range (with extra weight on 0, 1, -1, min and max), floats uniform in
// [-4, 4] rounded to their type.
void fill_random(const dsl::Type& t, void* out, uint64_t count, std::mt19937_64& rng);

// "{a: 1.5, b: -2}" or "17".
std::string format_value(const dsl::Type& t, const void* value);

// Float scalars match when |a - b| <= abs + rel * max(|a|, |b|) (NaN matches
// NaN); integers must be equal.
struct Tolerance {
  double rel = 0;
  double abs = 0;
  bool signed_zeros = false;  // a zero matches only the zero of its sign (+0.0 and -0.0 differ)
};
bool values_match(const dsl::Type& t, const void* a, const void* b, Tolerance tol);

// ---- operator check ---------------------------------------------------------

struct OperatorReport {
  bool ok = true;
  std::string message;  // what failed, with the values; empty when ok
  int samples = 0;
  bool identity_failed = false;  // the identity law broke (never rounding)
  // The associativity law broke, but only by what the element's own float
  // precision rounds away (f16: 1e-3, f32: 1e-6, f64: 1e-8 relative).
  bool within_rounding = false;
};

// Tests the identity (e.x == x == x.e) and, unless `associativity` is false,
// associativity ((a.b).c == a.(b.c)) of the Spec's operator on `samples`
// random values drawn from `seed`. Floats are evaluated in f64 and compared
// with a relative tolerance of 1e-9.
OperatorReport check_operator(const dsl::Spec& spec, uint64_t seed, int samples = 2000, bool associativity = true);

// The check every path that makes a kernel runs (scangen emit and compile,
// scangen_generate, Runtime::compile), with a fixed seed so that a build
// gives the same answer every time: "" when the operator passes, else why
// the kernel is refused. `assume_associative = true;` vouches for
// associativity alone: the identity is tested all the same (an identity that
// fails is no rounding). The message suggests that setting only where the
// associativity failure is within the element's float rounding.
std::string refuse_operator(const dsl::Spec& spec, uint64_t seed = 1);

}  // namespace scangen::ref
