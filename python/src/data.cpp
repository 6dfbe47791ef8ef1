// What scangen._core exchanges with the Python layer (data.h).
#include "data.h"

// The type casters of what these functions hand to Python (std::string, std::vector): without them a
// cast fails at run time, not at compile time.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <memory>
#include <string>

namespace scangen::py {

namespace {

// ---- DLPack (dlpack.h's ABI, v0.8 and v1.x) ----------------------------------
// The consumer side of the protocol: the Python layer calls
// x.__dlpack__(stream=...) and hands the capsule here; this reads the tensor's
// description. The capsule is not renamed ("used_dltensor"): it stays the
// producer's, which frees the tensor when the capsule goes, so the Python layer
// keeps it alive until the launch is queued.
struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: C order
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned*);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLPackReadOnly = 1;

}  // namespace

// A type as Python data: "i32" for a scalar, or (name, [(field, type, offset), ...], size) for a struct.
nb::object describe_type(const dsl::Type& t) {
  if (t.is_scalar()) return nb::str(dsl::to_string(t.scalar_kind()));
  const dsl::StructType& s = t.struct_type();
  nb::list fields;
  for (const dsl::Field& f : s.fields) fields.append(nb::make_tuple(f.name, describe_type(f.type), f.offset));
  return nb::make_tuple(s.name, fields, s.size);
}

// A constant of type t from the bytes of one value (the layout of describe_type).
dsl::ExprPtr constant_from_bytes(const dsl::Type& t, const char* bytes) {
  auto e = std::make_shared<dsl::Expr>();
  e->type = t;
  if (t.is_struct()) {
    e->kind = dsl::ExprKind::Construct;
    for (const dsl::Field& f : t.struct_type().fields) e->args.push_back(constant_from_bytes(f.type, bytes + f.offset));
    return e;
  }
  e->kind = dsl::ExprKind::Literal;
  const dsl::ScalarKind k = t.scalar_kind();
  const size_t size = dsl::scalar_size(k);
  if (k == dsl::ScalarKind::F16) {
    uint16_t h;
    std::memcpy(&h, bytes, 2);
    e->lit.value = dsl::half_bits_to_float(h);
  } else if (k == dsl::ScalarKind::F32) {
    float f;
    std::memcpy(&f, bytes, 4);
    e->lit.value = f;
  } else if (k == dsl::ScalarKind::F64) {
    std::memcpy(&e->lit.value, bytes, 8);
  } else {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes, size);  // little-endian hosts
    if (dsl::is_signed(k) && size < 8 && (bits >> (size * 8 - 1)) & 1) bits |= ~uint64_t{0} << (size * 8);
    e->lit.bits = k == dsl::ScalarKind::Bool ? (bits != 0) : bits;
  }
  return e;
}

// (pointer, device_type, device_id, shape, strides or None, (code, bits, lanes), read_only).
nb::tuple dlpack_view(nb::handle capsule) {
  if (!PyCapsule_CheckExact(capsule.ptr())) throw nb::type_error("scangen: __dlpack__() did not return a capsule");
  const char* name = PyCapsule_GetName(capsule.ptr());
  const std::string kind = name ? name : "";
  const DLTensor* t = nullptr;
  bool read_only = false;
  if (kind == "dltensor") {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (m) t = &m->dl_tensor;
  } else if (kind == "dltensor_versioned") {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
    if (m && m->version.major != 1)
      throw nb::type_error(("scangen: DLPack version " + std::to_string(m->version.major) + "." +
                            std::to_string(m->version.minor) + " is not supported (1.x is)")
                               .c_str());
    if (m) {
      t = &m->dl_tensor;
      read_only = (m->flags & kDLPackReadOnly) != 0;
    }
  } else {
    throw nb::type_error(("scangen: a DLPack capsule named '" + kind +
                          "' (expected 'dltensor' or 'dltensor_versioned'; 'used_dltensor' was consumed already)")
                             .c_str());
  }
  if (!t) throw nb::python_error();
  nb::list shape, strides;
  for (int32_t i = 0; i < t->ndim; ++i) {
    shape.append(t->shape[i]);
    if (t->strides) strides.append(t->strides[i]);
  }
  const uintptr_t ptr = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
  return nb::make_tuple(ptr, t->device.device_type, t->device.device_id, nb::tuple(shape),
                        t->strides ? nb::object(nb::tuple(strides)) : nb::none(),
                        nb::make_tuple(t->dtype.code, t->dtype.bits, t->dtype.lanes), read_only);
}

// The address of a contiguous buffer's memory (a C-contiguous NumPy array: what
// a.ctypes.data says, without making a ctypes object), through the buffer
// protocol; 0 where the object exports no contiguous buffer.
uintptr_t data_pointer(nb::handle a) {
  Py_buffer view;
  if (PyObject_GetBuffer(a.ptr(), &view, PyBUF_ANY_CONTIGUOUS) != 0) {
    PyErr_Clear();
    return 0;
  }
  const uintptr_t p = reinterpret_cast<uintptr_t>(view.buf);
  PyBuffer_Release(&view);
  return p;
}

Shape rows_shape(uint64_t rows, uint64_t length, uint64_t row_stride, uint64_t out_row_stride) {
  Shape s;
  s.args.rows = rows;
  s.args.length = length;
  s.args.row_stride = row_stride;
  s.args.out_row_stride = out_row_stride;
  return s;
}

Shape strided_shape(int axis, const std::vector<uint64_t>& extents, const std::vector<uint64_t>& strides,
                    const std::vector<uint64_t>& out_strides) {
  if (extents.empty() || extents.size() > 4 || strides.size() != extents.size() || out_strides.size() != extents.size())
    throw nb::value_error("a strided shape has 1 to 4 extents, and as many strides and out_strides");
  Shape s;
  s.strided = true;
  auto& g = s.args.strided;
  g.rank = static_cast<int>(extents.size());
  g.axis = axis;
  for (size_t i = 0; i < extents.size(); ++i) {
    g.extents[i] = extents[i];
    g.strides[i] = strides[i];
    g.out_strides[i] = out_strides[i];
  }
  return s;
}

}  // namespace scangen::py
