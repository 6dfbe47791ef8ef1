// The types of scangen's DSL: scalars, bool (conditions only) and structs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scangen::dsl {

// X(enumerator, DSL name, bytes, is_float, is_signed)
// clang-format off
#define SCANGEN_SCALAR_KINDS(X) \
  X(I8, "i8", 1, false, true)   \
  X(I16, "i16", 2, false, true) \
  X(I32, "i32", 4, false, true) \
  X(I64, "i64", 8, false, true) \
  X(U8, "u8", 1, false, false)  \
  X(U16, "u16", 2, false, false) \
  X(U32, "u32", 4, false, false) \
  X(U64, "u64", 8, false, false) \
  X(F16, "f16", 2, true, true)  \
  X(F32, "f32", 4, true, true)  \
  X(F64, "f64", 8, true, true)  \
  X(Bool, "bool", 1, false, false)
// clang-format on

enum class ScalarKind : uint8_t {
#define X(e, name, bytes, is_float, is_signed) e,
  SCANGEN_SCALAR_KINDS(X)
#undef X
};

const char* to_string(ScalarKind k);
std::optional<ScalarKind> scalar_kind_from_name(std::string_view name);
size_t scalar_size(ScalarKind k);
bool is_float(ScalarKind k);
bool is_signed(ScalarKind k);
inline bool is_integer(ScalarKind k) { return !is_float(k) && k != ScalarKind::Bool; }
inline bool is_numeric(ScalarKind k) { return k != ScalarKind::Bool; }
// Bits of an integer kind (8..64).
inline int integer_bits(ScalarKind k) { return static_cast<int>(scalar_size(k)) * 8; }

struct StructType;

// A value type: a scalar or a (possibly nested) struct. Compared by structure.
class Type {
 public:
  Type() = default;
  static Type scalar(ScalarKind k) { return Type(k); }
  static Type structure(std::shared_ptr<const StructType> s) { return Type(std::move(s)); }

  bool valid() const { return kind_ != Kind::Invalid; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  bool is_struct() const { return kind_ == Kind::Struct; }
  bool is_bool() const { return is_scalar() && scalar_ == ScalarKind::Bool; }
  bool is_float() const { return is_scalar() && dsl::is_float(scalar_); }
  bool is_integer() const { return is_scalar() && dsl::is_integer(scalar_); }
  // True when the type holds at least one floating-point scalar.
  bool contains_float() const;

  ScalarKind scalar_kind() const { return scalar_; }
  const StructType& struct_type() const { return *struct_; }
  const std::shared_ptr<const StructType>& struct_ptr() const { return struct_; }

  std::string name() const;
  size_t size() const;
  size_t align() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  enum class Kind : uint8_t { Invalid, Scalar, Struct };
  explicit Type(ScalarKind k) : kind_(Kind::Scalar), scalar_(k) {}
  explicit Type(std::shared_ptr<const StructType> s) : kind_(Kind::Struct), struct_(std::move(s)) {}

  Kind kind_ = Kind::Invalid;
  ScalarKind scalar_ = ScalarKind::I32;
  std::shared_ptr<const StructType> struct_;
};

struct Field {
  std::string name;
  Type type;
  size_t offset = 0;  // bytes from the start of the struct, C layout rules
};

// Laid out as a C compiler lays out the equivalent struct (natural alignment,
// size rounded up to the alignment), so host code can declare a matching struct.
struct StructType {
  std::string name;
  std::vector<Field> fields;
  size_t size = 0;
  size_t align = 1;

  // Fills offsets, size and align from the field types.
  void compute_layout();
  const Field* find(std::string_view field_name) const;
  int index_of(std::string_view field_name) const;
};

// IEEE binary16 conversions (round to nearest even, subnormals and inf/nan kept).
uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);
// `v` rounded to the precision of float kind `k` (f16, f32 or f64).
double round_to_float_kind(ScalarKind k, double v);
// The largest finite value of a float kind.
double float_kind_max(ScalarKind k);

// One scalar leaf of a type, in declaration order (depth first).
struct ScalarSlot {
  ScalarKind kind;
  size_t offset;     // bytes from the start of the value
  std::string path;  // e.g. "m.a"; empty for a scalar type
};
std::vector<ScalarSlot> flatten(const Type& t);
// Whether a scalar of `t` (itself, or a field at any depth) is of kind `k`.
bool holds_scalar(const Type& t, ScalarKind k);

// Every struct type reachable from `t`, innermost first, each once.
void collect_structs(const Type& t, std::vector<std::shared_ptr<const StructType>>& out);

}  // namespace scangen::dsl
