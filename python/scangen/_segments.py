"""The segments of a call (``offsets=``, ``flags=``, ``keys=``): the one given, checked against ``x``, and
counted."""

from __future__ import annotations

import numpy as np

from ._arrays import Host

# The DSL's names of the integer (and f32, f64) dtypes that offsets and keys may have.
_INDEX_TYPES = {np.dtype(t): n for t, n in [
    (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"), (np.uint8, "u8"),
    (np.uint16, "u16"), (np.uint32, "u32"), (np.uint64, "u64"), (np.float32, "f32"), (np.float64, "f64")]}
_OFFSET_TYPES = ("i32", "i64", "u32", "u64")


def _segments_arg(offsets, flags, keys):
    """(form, array) of the one segments argument given, or None."""
    given = [(form, a) for form, a in (("offsets", offsets), ("flags", flags), ("keys", keys)) if a is not None]
    if len(given) > 1:
        raise TypeError("scangen: pass one of offsets=, flags= and keys=, not "
                        + " and ".join(f"{form}=" for form, _a in given))
    return given[0] if given else None


class _Segments:
    """The segments of one call: ``form``, ``index_type`` (the DSL type of offsets or keys, "" for flags),
    ``array`` (the operand: a Host or Cuda of the segments' array), ``count`` (offsets: the segments)."""

    __slots__ = ("form", "index_type", "op", "count")

    def __init__(self, form, op, n, backend_host):
        self.form = form
        dtype = op.dtype
        shape = op.shape
        if len(shape) != 1:
            raise ValueError(f"scangen: {form}= must be a 1-D array; it has shape {tuple(shape)}")
        if form == "offsets":
            if len(shape) != 1 or shape[0] < 1:
                raise ValueError("scangen: offsets= must hold n_segments + 1 offsets (at least [0])")
            name = _INDEX_TYPES.get(dtype) if dtype.kind in "iu" else None
            if name not in _OFFSET_TYPES:
                if backend_host and dtype.kind in "iu":
                    op, name = Host(op.array.astype(np.int64), op.kind), "i64"
                else:
                    raise TypeError(f"scangen: offsets= must be int32, int64, uint32 or uint64; it has dtype {dtype}")
            self.count = shape[0] - 1
        else:
            if shape[0] != n:
                raise ValueError(f"scangen: {form}= must have one entry per element of x ({n}); it has {shape[0]}")
            self.count = 0
            if form == "flags":
                name = ""
                if dtype.itemsize != 1 or dtype.kind not in "biu":
                    if backend_host and dtype.kind in "biu":
                        op = Host((op.array != 0).view(np.uint8), op.kind)
                    else:
                        raise TypeError(f"scangen: flags= must be bool or uint8 (a nonzero flag starts a segment); "
                                        f"it has dtype {dtype}")
            else:
                name = _INDEX_TYPES.get(dtype)
                if name is None:
                    raise TypeError(f"scangen: keys= must be of an integer dtype, float32 or float64; it has dtype {dtype}")
        self.index_type, self.op = name, op

    def total(self, n, kernel) -> int:
        """How many segments there are (for flags and keys: counted, which waits for a CUDA array; keys
        with the spec's key_equal: by the library, on the host, so a CUDA array's keys are copied there)."""
        if self.form == "offsets":
            return self.count
        if n == 0:
            return 0
        a = self.op.array
        if self.form == "keys" and kernel.has_key_equal:
            host = np.ascontiguousarray(a if isinstance(a, np.ndarray) else _to_numpy(a))
            return kernel.key_segments(host.ctypes.data, n)
        starts = (a[1:] != 0) if self.form == "flags" else (a[1:] != a[:-1])
        return int(starts.sum()) + 1


def _to_numpy(a) -> np.ndarray:
    """A host copy of a CUDA array (CuPy's get(), PyTorch's cpu())."""
    if hasattr(a, "get"):
        return a.get()
    if hasattr(a, "cpu"):
        return a.cpu().numpy()
    raise NotImplementedError(f"scangen: the keys' segments under key_equal are counted on the host, and this "
                              f"{type(a).__name__} array cannot be copied there: pass a PyTorch or CuPy array")
