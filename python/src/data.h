// What scangen._core exchanges with the Python layer: types and constants
// as Python data, DLPack capsules and buffers read, the run-time shape of a
// shaped scan.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <vector>

#include "scangen/dsl/spec.h"
#include "scangen/runtime/runtime.h"

namespace scangen::py {

namespace nb = nanobind;

// A type as Python data: "i32" for a scalar, or (name, [(field, type, offset), ...], size) for a struct.
nb::object describe_type(const dsl::Type& t);

// A constant of type t from the bytes of one value (the layout of describe_type).
dsl::ExprPtr constant_from_bytes(const dsl::Type& t, const char* bytes);

// A DLPack capsule's tensor (dlpack.h's ABI, v0.8 and v1.x): (pointer,
// device_type, device_id, shape, strides or None, (code, bits, lanes),
// read_only). The capsule is not renamed ("used_dltensor"): it stays the
// producer's, which frees the tensor when the capsule goes, so the Python
// layer keeps it alive until the launch is queued.
nb::tuple dlpack_view(nb::handle capsule);

// The address of a contiguous buffer's memory (a C-contiguous NumPy array: what
// a.ctypes.data says, without making a ctypes object), through the buffer
// protocol; 0 where the object exports no contiguous buffer.
uintptr_t data_pointer(nb::handle a);

// The run-time shape of a shaped scan (Scan::ShapeArgs), made once per call by the Python layer.
struct Shape {
  scangen::Scan::ShapeArgs args;
  bool strided = false;
  // Elements from the first to the last one touched, plus one: of the input, or (out) of the output.
  uint64_t span(bool out) const {
    if (!strided) {
      const uint64_t stride = out && args.out_row_stride ? args.out_row_stride
                              : args.row_stride          ? args.row_stride
                                                         : args.length;
      return args.rows == 0 || args.length == 0 ? 0 : (args.rows - 1) * stride + args.length;
    }
    const auto& g = args.strided;
    uint64_t last = 0;
    for (int i = 0; i < g.rank; ++i) {
      if (g.extents[i] == 0) return 0;
      last += (g.extents[i] - 1) * (out && g.out_strides[i] ? g.out_strides[i] : g.strides[i]);
    }
    return last + 1;
  }
};

Shape rows_shape(uint64_t rows, uint64_t length, uint64_t row_stride, uint64_t out_row_stride);
Shape strided_shape(int axis, const std::vector<uint64_t>& extents, const std::vector<uint64_t>& strides,
                    const std::vector<uint64_t>& out_strides);

}  // namespace scangen::py
