// Spec: a checked, fully resolved scan description. A plain value: copyable,
// printable (to_string), comparable (==) and hashable (hash()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scangen/dsl/source.h"
#include "scangen/dsl/types.h"

namespace scangen::dsl {

// ---- Enumerations. Each X-macro row: (enumerator, DSL spelling, ...) --------

// X(enumerator, spelling, description)
// clang-format off
#define SCANGEN_LEVELS(X)                                                                    \
  X(Warp, "warp", "a logical warp of W lanes (W = 1, 2, 4, ..., 1024) scans W x items elements") \
  X(Block, "block", "a thread block / work-group scans threads x items elements")           \
  X(Device, "device", "the whole array, any length, in one call")
// clang-format on

enum class Level : uint8_t {
#define X(e, s, d) e,
  SCANGEN_LEVELS(X)
#undef X
};

// X(enumerator, spelling, level, description)
// clang-format off
#define SCANGEN_ALGORITHMS(X)                                                                                       \
  X(KoggeStone, "kogge_stone", Warp,                                                                                \
    "Kogge-Stone (Hillis-Steele) scan in log2(W) steps: register shuffles on CUDA, local memory on OpenCL")         \
  X(KoggeStoneLocal, "kogge_stone_local", Warp,                                                                     \
    "Kogge-Stone scan through shared/local memory: any element size, any OpenCL device")                            \
  X(Coalesced, "coalesced", Warp,                                                                                   \
    "scan over the lanes that are active at the call, in lane order (like cooperative groups' coalesced_group; "    \
    "CUDA only)")                                                                                                   \
  X(Raking, "raking", Block,                                                                                        \
    "each thread reduces its items, one warp rakes the partials in shared memory and scans them, then every thread " \
    "scans its items from its prefix; few barriers, any thread count")                                              \
  X(RakingMemoize, "raking_memoize", Block,                                                                         \
    "raking that keeps the raking segment in registers between the up and down phases: more registers, less shared " \
    "memory traffic")                                                                                               \
  X(WarpScans, "warp_scans", Block,                                                                                 \
    "every warp scans its items with shuffles, then one warp scans the warp totals; lowest latency, threads a "     \
    "multiple of 32")                                                                                               \
  X(HillisSteele, "hillis_steele", Block,                                                                           \
    "double-buffered Hillis-Steele scan over thread totals in shared/local memory: log2(threads) steps, the "       \
    "classic OpenCL kernel")                                                                                        \
  X(Blelloch, "blelloch", Block,                                                                                    \
    "work-efficient up-sweep / down-sweep over thread totals, padded against bank conflicts; threads a power of "   \
    "two")                                                                                                          \
  X(DecoupledLookback, "decoupled_lookback", Device,                                                                \
    "single pass, one launch: each tile publishes its total and looks back over its predecessors (Merrill & "       \
    "Garland)")                                                                                                     \
  X(ReduceThenScan, "reduce_then_scan", Device,                                                                     \
    "tiles reduce, the tile totals are scanned, tiles scan again from their prefix: portable, no tile waits on "    \
    "another, deterministic")
// clang-format on

enum class Algorithm : uint8_t {
#define X(e, s, l, d) e,
  SCANGEN_ALGORITHMS(X)
#undef X
};

// X(enumerator, spelling)
#define SCANGEN_MODES(X) X(Inclusive, "inclusive") X(Exclusive, "exclusive") X(Both, "both")
enum class Mode : uint8_t {
#define X(e, s) e,
  SCANGEN_MODES(X)
#undef X
};

// X(enumerator, spelling)
#define SCANGEN_TARGETS(X) X(Cuda, "cuda") X(OpenCL, "opencl")
enum class Target : uint8_t {
#define X(e, s) e,
  SCANGEN_TARGETS(X)
#undef X
};

// Built-in operators, X(enumerator, spelling, types: 'a' any number, 'i'
// integers only, 'f' floats only). min and max propagate a NaN; fmin and fmax
// ignore one (C's fmin and fmax).
// clang-format off
#define SCANGEN_BUILTIN_OPS(X) \
  X(Add, "add", 'a') X(Mul, "mul", 'a') X(Min, "min", 'a') X(Max, "max", 'a') X(And, "and", 'i') \
  X(Or, "or", 'i') X(Xor, "xor", 'i') X(Fmin, "fmin", 'f') X(Fmax, "fmax", 'f')
// clang-format on
enum class BuiltinOp : uint8_t {
#define X(e, s, i) e,
  SCANGEN_BUILTIN_OPS(X)
#undef X
};

// Unary operators of the expression language, X(enumerator, spelling)
#define SCANGEN_UNARY_OPS(X) X(Neg, "-") X(Not, "!") X(BitNot, "~")
enum class UnaryOp : uint8_t {
#define X(e, s) e,
  SCANGEN_UNARY_OPS(X)
#undef X
};

// Binary operators, X(enumerator, spelling)
// clang-format off
#define SCANGEN_BINARY_OPS(X)                                                                                     \
  X(Add, "+") X(Sub, "-") X(Mul, "*") X(Div, "/") X(Rem, "%") X(BitAnd, "&") X(BitOr, "|") X(BitXor, "^")     \
  X(Shl, "<<") X(Shr, ">>") X(Lt, "<") X(Le, "<=") X(Gt, ">") X(Ge, ">=") X(Eq, "==") X(Ne, "!=") X(And, "&&") \
  X(Or, "||")
// clang-format on
enum class BinaryOp : uint8_t {
#define X(e, s) e,
  SCANGEN_BINARY_OPS(X)
#undef X
};

// Math built-ins, X(enumerator, spelling, arity, floats only). min and max of
// floats propagate a NaN (NumPy's minimum and maximum); fmin and fmax ignore
// one (C's).
// clang-format off
#define SCANGEN_MATH_FNS(X)                                                                                    \
  X(Min, "min", 2, false) X(Max, "max", 2, false) X(Abs, "abs", 1, false) X(Clamp, "clamp", 3, false)        \
  X(Select, "select", 3, false) X(Fma, "fma", 3, true) X(Sqrt, "sqrt", 1, true) X(Exp, "exp", 1, true)       \
  X(Log, "log", 1, true) X(Floor, "floor", 1, true) X(Ceil, "ceil", 1, true) X(Fmin, "fmin", 2, true)        \
  X(Fmax, "fmax", 2, true)
// clang-format on
enum class MathFn : uint8_t {
#define X(e, s, n, f) e,
  SCANGEN_MATH_FNS(X)
#undef X
};

// Segmented scans: how the segments are given at run time (device level).
// X(enumerator, spelling)
#define SCANGEN_SEGMENTS(X) X(None, "none") X(Flags, "flags") X(Offsets, "offsets") X(Keys, "keys")
enum class Segments : uint8_t {
#define X(e, s) e,
  SCANGEN_SEGMENTS(X)
#undef X
};
const char* to_string(Segments v);
std::optional<Segments> segments_from_name(std::string_view s);

const char* to_string(Level v);
const char* to_string(Algorithm v);
const char* to_string(Mode v);
const char* to_string(Target v);
const char* to_string(BuiltinOp v);
const char* to_string(UnaryOp v);
const char* to_string(BinaryOp v);
const char* to_string(MathFn v);
const char* describe(Level v);
const char* describe(Algorithm v);
Level level_of(Algorithm a);
Algorithm default_algorithm(Level level);
int math_fn_arity(MathFn f);
bool math_fn_floats_only(MathFn f);
bool builtin_op_integer_only(BuiltinOp op);
bool builtin_op_floats_only(BuiltinOp op);

// Lookup by DSL spelling; nullopt when unknown.
std::optional<Level> level_from_name(std::string_view s);
std::optional<Algorithm> algorithm_from_name(std::string_view s);
std::optional<Mode> mode_from_name(std::string_view s);
std::optional<Target> target_from_name(std::string_view s);
std::optional<BuiltinOp> builtin_op_from_name(std::string_view s);
std::optional<MathFn> math_fn_from_name(std::string_view s);
std::vector<Algorithm> all_algorithms();
std::vector<BuiltinOp> all_builtin_ops();
std::vector<MathFn> all_math_fns();

// The run-time shape of a device scan's data (`shape = ...;`).
// flat: one contiguous array of n elements; rows: `rows` rows of `length`
// elements with a row stride, each scanned on its own; strided: every line
// along one axis of an N-d array (rank 1..4) given by extents and strides.
enum class Shape : uint8_t { Flat, Rows, Strided };
const char* to_string(Shape v);
std::optional<Shape> shape_from_name(std::string_view s);

// ---- Typed expressions ----------------------------------------------------

enum class ExprKind : uint8_t {
  Literal,    // a constant of a scalar type (lit)
  Param,      // function parameter `index` (name)
  Local,      // let-bound value in slot `index` (name)
  Field,      // field `index` of args[0] (name)
  Construct,  // struct value from args, one per field in declaration order
  Unary,      // unary_op args[0]
  Binary,     // binary_op args[0], args[1]
  Cond,       // args[0] ? args[1] : args[2]
  Call,       // math_fn(args...)
  Convert,    // args[0] converted to `type` (scalar to scalar)
  Let,        // slot `index` (name) = args[0] in args[1]
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// A scalar constant. Integers: two's complement bits of the value, sign-extended
// to 64 bits for signed types. Floats: the value, already rounded to the type.
struct Literal {
  uint64_t bits = 0;
  double value = 0;
};

struct Expr {
  ExprKind kind = ExprKind::Literal;
  Type type;
  SourceLoc loc;  // where it came from (not part of equality)
  Literal lit;
  int index = 0;
  std::string name;
  UnaryOp unary_op = UnaryOp::Neg;
  BinaryOp binary_op = BinaryOp::Add;
  MathFn math_fn = MathFn::Min;
  std::vector<ExprPtr> args;
};

bool operator==(const Expr& a, const Expr& b);
inline bool operator!=(const Expr& a, const Expr& b) { return !(a == b); }
// DSL-like text of the expression (literals spelled so they re-parse to the same value).
std::string to_string(const Expr& e);
// `explicit_type`: spell i32 and f64 literals as i32(...) / f64(...) too.
std::string literal_to_string(const Type& t, const Literal& lit, bool explicit_type = false);
// True if the expression mentions no parameter (a constant such as an identity).
bool is_constant(const Expr& e);

// A function of the DSL: combine(x, y), convert(v [, i]) or key_equal(a, b).
struct Function {
  std::vector<std::string> params;
  std::vector<Type> param_types;
  Type result;
  ExprPtr body;
  int num_locals = 0;  // let slots used by body
  SourceLoc loc;
  // prev(x) / next(x) (convert and the scatter functions of flat device
  // scans): the input elements before and after this one, the element itself
  // at the ends. When the body reads one, they are parameters `neighbours`
  // and `neighbours + 1`, after the `written` parameters the source names and
  // the unnamed ones of the function's full list between (convert: v, i;
  // scatter: x, i, exclusive, inclusive, n). -1: no neighbour is read.
  int neighbours = -1;
  size_t written = 0;
  size_t written_params() const { return neighbours < 0 ? params.size() : written; }
};
bool operator==(const Function& a, const Function& b);

// ---- The spec ----------------------------------------------------------------

struct Spec {
  std::string name;
  std::string file;  // source file name, for #line directives and messages
  SourceLoc loc;

  Type type;   // the accumulator / output element type
  Type input;  // the input element type (== type unless `input` was given)
  // Fused inputs (`input = T1, T2, ...;`, several arrays: a struct of arrays;
  // `input = none;`, no array: the element from its index alone; flat device
  // scans by decoupled look-back): the arrays' types in order. convert takes
  // one parameter per array, named as the arrays, then optionally the index
  // (a u64); `input` is then `type`. Absent: the one array of `input`.
  // Printed as `input = ...;` only when set.
  std::optional<std::vector<Type>> input_arrays;
  bool has_input_arrays() const { return input_arrays.has_value(); }
  // convert's parameters that are input elements: one per array (1 without input_arrays).
  size_t input_array_count() const { return input_arrays ? input_arrays->size() : 1; }
  // convert's last parameter is the element's index (convert(v, i), convert(a, b, i), convert(i)).
  bool convert_takes_index() const { return convert && convert->params.size() > input_array_count(); }

  std::optional<BuiltinOp> op;      // set when the operator is a built-in
  Function combine;                 // always present (a built-in op is spelled out)
  std::optional<Function> convert;  // input -> type; present when input != type or a convert was written
  ExprPtr identity;                 // constant of `type`

  Level level = Level::Device;
  int warp_width = 32;  // logical warp lanes, warp level only
  Algorithm algorithm = Algorithm::DecoupledLookback;
  int threads = 0;  // threads per block; 0 = chosen by the generator (device level)
  int items = 0;    // items per thread; 0 = chosen by the generator (device level)

  Mode mode = Mode::Inclusive;
  ExprPtr init;  // seed of every segment's scan; null = identity
  bool aggregate = false;
  bool running_total = false;
  std::vector<Target> targets{Target::Cuda, Target::OpenCL};
  bool deterministic = false;
  // Set by `assume_associative = true;`: the operator check that every path
  // making a kernel runs (scangen emit / compile, scangen_generate,
  // Runtime::compile) is skipped; `scangen check` still reports.
  bool assume_associative = false;
  // Set by `init_applies_to = exclusive;` (warp and block level, mode =
  // both): init seeds the exclusive results only and the inclusive ones start
  // from the first element, as rocPRIM's warp_scan::scan; by default init
  // seeds both, as CUB's WarpScan::Scan.
  bool init_exclusive_only = false;
  // Set by `reverse = true;`: a suffix scan. Element n-1 comes first: the
  // result at i is a forward scan's of the reversed array (init . x[n-1] .
  // ... . x[i], inclusive), at every level and in every mode (docs/dsl.md).
  bool reverse = false;

  // Segmented scans (`segments = flags | offsets | keys;`, device level): every
  // segment restarts at init. `offset`: the offsets' integer type; `key`: the
  // keys' scalar type (a segment starts where the key changes). `key_equal`:
  // `key_equal(a, b) = ...;` (segments = keys), the bool that says whether
  // key b continues the segment of a, the key before it; absent: C's ==.
  Segments segments = Segments::None;
  ScalarKind offset = ScalarKind::U32;
  ScalarKind key = ScalarKind::I32;
  // Set by `head_flags = true;` (warp and block level): the device functions
  // gain head-flag segmented variants (P_inclusive_segmented, ...), each
  // segment of a group's items restarting at init. Printed only when set.
  bool head_flags = false;
  std::optional<Function> key_equal;
  // `shape = rows;` / `shape = strided;` (device level, decoupled_lookback):
  // the run-time shape of the data. Printed only when not flat.
  Shape shape = Shape::Flat;
  // Fused outputs (`scatter(...)`, `scatter_at(...)`, `scatter_if(...)`,
  // flat decoupled look-back device scans): for each element i where
  // scatter_if holds (always, without it), the value scatter(...) (of the
  // input type) is written to element scatter_at(...) (a u64) of a second
  // output of n elements of scatter_type (`scatter_type = T;`, the input type
  // by default), a position >= n being dropped. Each takes up to five
  // parameters, in this order: the input element, its index (u64), its
  // exclusive and inclusive results (type) and n (u64). Printed only when set.
  std::optional<Function> scatter, scatter_at, scatter_if;
  Type scatter_type;  // the fused output's element type (valid with scatter)
  bool has_scatter() const { return scatter.has_value(); }
  // More fused outputs, named (`scatter.NAME(...)`, `scatter_at.NAME(...)`,
  // `scatter_if.NAME(...)`, `scatter_type.NAME = T;`), each written like the
  // first into its own array of n elements, in the order of the source (after
  // the first, which they need). Printed only when set.
  struct NamedScatter {
    std::string name;
    Function value, at;
    std::optional<Function> when;
    Type type;
  };
  std::vector<NamedScatter> scatter_named;
  static constexpr size_t kMaxNamedScatter = 3;

  bool has_inclusive() const { return mode != Mode::Exclusive; }
  bool has_exclusive() const { return mode != Mode::Inclusive; }
  bool targets_backend(Target t) const;
  // The type holds a float or the combine computes with one: the grouping of
  // the combines can change the result's bits (what `deterministic` is about).
  bool combines_floats() const;
  // Elements each group scans on its own: W x items (warp), threads x items
  // (block); 0 for device (the whole array).
  uint64_t segment_size() const;

  // The canonical text, with struct definitions and every default filled in.
  std::string to_string() const;
  uint64_t hash() const;
};

bool operator==(const Spec::NamedScatter& a, const Spec::NamedScatter& b);
bool operator==(const Spec& a, const Spec& b);
inline bool operator!=(const Spec& a, const Spec& b) { return !(a == b); }

}  // namespace scangen::dsl

template <>
struct std::hash<scangen::dsl::Spec> {
  size_t operator()(const scangen::dsl::Spec& s) const noexcept { return static_cast<size_t>(s.hash()); }
};
