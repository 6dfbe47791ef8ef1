#include "scangen/dsl/types.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace scangen::dsl {

namespace {
struct ScalarInfo {
  const char* name;
  size_t bytes;
  bool is_float;
  bool is_signed;
};
constexpr ScalarInfo kScalarInfo[] = {
#define X(e, name, bytes, is_float, is_signed) {name, bytes, is_float, is_signed},
    SCANGEN_SCALAR_KINDS(X)
#undef X
};
const ScalarInfo& info(ScalarKind k) { return kScalarInfo[static_cast<int>(k)]; }
}  // namespace

const char* to_string(ScalarKind k) { return info(k).name; }
size_t scalar_size(ScalarKind k) { return info(k).bytes; }
bool is_float(ScalarKind k) { return info(k).is_float; }
bool is_signed(ScalarKind k) { return info(k).is_signed; }

std::optional<ScalarKind> scalar_kind_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kScalarInfo); ++i)
    if (name == kScalarInfo[i].name) return static_cast<ScalarKind>(i);
  return std::nullopt;
}

bool Type::contains_float() const {
  if (is_scalar()) return dsl::is_float(scalar_);
  if (!is_struct()) return false;
  return std::any_of(struct_->fields.begin(), struct_->fields.end(),
                     [](const Field& f) { return f.type.contains_float(); });
}

std::string Type::name() const {
  switch (kind_) {
    case Kind::Scalar:
      return to_string(scalar_);
    case Kind::Struct:
      return struct_->name;
    default:
      return "<invalid>";
  }
}

size_t Type::size() const {
  if (is_scalar()) return scalar_size(scalar_);
  if (is_struct()) return struct_->size;
  return 0;
}

size_t Type::align() const {
  if (is_scalar()) return scalar_size(scalar_);
  if (is_struct()) return struct_->align;
  return 1;
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind_ != b.kind_) return false;
  if (a.kind_ == Type::Kind::Scalar) return a.scalar_ == b.scalar_;
  if (a.kind_ == Type::Kind::Invalid) return true;
  if (a.struct_ == b.struct_) return true;
  const StructType& x = *a.struct_;
  const StructType& y = *b.struct_;
  if (x.name != y.name || x.fields.size() != y.fields.size()) return false;
  for (size_t i = 0; i < x.fields.size(); ++i)
    if (x.fields[i].name != y.fields[i].name || x.fields[i].type != y.fields[i].type) return false;
  return true;
}

void StructType::compute_layout() {
  size_t offset = 0;
  align = 1;
  for (Field& f : fields) {
    size_t a = f.type.align();
    offset = (offset + a - 1) / a * a;
    f.offset = offset;
    offset += f.type.size();
    align = std::max(align, a);
  }
  size = (offset + align - 1) / align * align;
  if (size == 0) size = align;
}

const Field* StructType::find(std::string_view field_name) const {
  int i = index_of(field_name);
  return i < 0 ? nullptr : &fields[i];
}

int StructType::index_of(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field_name) return static_cast<int>(i);
  return -1;
}

namespace {
void flatten_into(const Type& t, size_t base, const std::string& path, std::vector<ScalarSlot>& out) {
  if (t.is_scalar()) {
    out.push_back({t.scalar_kind(), base, path});
    return;
  }
  if (!t.is_struct()) return;
  for (const Field& f : t.struct_type().fields)
    flatten_into(f.type, base + f.offset, path.empty() ? f.name : path + "." + f.name, out);
}
}  // namespace

std::vector<ScalarSlot> flatten(const Type& t) {
  std::vector<ScalarSlot> out;
  flatten_into(t, 0, "", out);
  return out;
}

bool holds_scalar(const Type& t, ScalarKind k) {
  for (const ScalarSlot& s : flatten(t))
    if (s.kind == k) return true;
  return false;
}

void collect_structs(const Type& t, std::vector<std::shared_ptr<const StructType>>& out) {
  if (!t.is_struct()) return;
  for (const Field& f : t.struct_type().fields) collect_structs(f.type, out);
  for (const auto& s : out)
    if (s == t.struct_ptr() || Type::structure(s) == t) return;
  out.push_back(t.struct_ptr());
}

}  // namespace scangen::dsl

namespace scangen::dsl {

uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? 0x200u | (mant >> 13) : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<uint16_t>(sign | 0x7C00u);  // overflow to inf
  if (e <= 0) {
    // Subnormal half (or zero): shift the full significand into place, rounding to nearest even.
    if (e < -10) return static_cast<uint16_t>(sign);
    uint32_t m = mant | 0x800000u;
    int shift = 14 - e;  // 24-bit significand to (10 + e)-bit field
    uint32_t half_m = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_m & 1))) ++half_m;
    return static_cast<uint16_t>(sign | half_m);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

float half_bits_to_float(uint16_t h) {
  uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t x;
  if (exp == 0x1F) {
    x = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while (!(mant & 0x400u));
    x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double round_to_float_kind(ScalarKind k, double v) {
  switch (k) {
    case ScalarKind::F16: {
      // Round straight from double (going through float would round twice).
      if (!std::isfinite(v) || v == 0) return half_bits_to_float(float_to_half_bits(static_cast<float>(v)));
      int e = std::ilogb(v);
      if (e < -14) e = -14;  // subnormal halves share the smallest exponent
      double ulp = std::ldexp(1.0, e - 10);
      double r = std::nearbyint(v / ulp) * ulp;  // round to nearest even
      if (std::fabs(r) > 65504.0) return std::copysign(HUGE_VAL, v);
      return r;
    }
    case ScalarKind::F32:
      return static_cast<float>(v);
    default:
      return v;
  }
}

double float_kind_max(ScalarKind k) {
  switch (k) {
    case ScalarKind::F16:
      return 65504.0;
    case ScalarKind::F32:
      return 3.4028234663852886e38;
    default:
      return 1.7976931348623157e308;
  }
}

}  // namespace scangen::dsl
