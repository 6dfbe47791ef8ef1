"""scangen for Python: custom prefix scans on NumPy arrays, PyTorch tensors and CuPy arrays.

A scan is described in scangen's ``.scan`` language (docs/dsl.md), compiled
at run time (through NVRTC on a CUDA GPU, else through the OpenCL driver, e.g.
PoCL on the CPU), cached in memory and on disk, and run on the array::

    import numpy as np, scangen
    scangen.cummax(np.array([3, 1, 4, 1, 5], dtype=np.int32))   # [3 3 4 4 5]

NumPy arrays (and PyTorch CPU tensors, and any DLPack array on the CPU) run on
an OpenCL device (copied to its buffers and back); PyTorch CUDA tensors, CuPy
arrays and any other CUDA array that speaks DLPack or
``__cuda_array_interface__`` (JAX, Numba, ...) run without a copy on the CUDA
device, on the current stream, and come back as the same kind of array. A
struct scan also takes a tuple (or dict) of arrays, one per field.
docs/python.md has the whole story.

The shape of a call (the ``axis`` of a multi-dimensional array, its
strides, ``reverse``) is mapped onto one of scangen's scans (flat, rows,
strided) in ``_shape.layout``; segments (``offsets=``, ``flags=``,
``keys=``) onto its segmented scans. Each combination is a variant of the
scan's spec (``reverse = true;``, ``shape = rows;``, ``segments = keys;``
...), compiled on first use and cached.
"""

from __future__ import annotations

import numpy as np  # noqa: F401

# The package's parts, in private modules; what other modules and the tests reach as scangen._NAME is
# here too. _device: the Runtimes and the lock; _segments and _fields: a call's segments and field
# arrays; _scan: the Scan class and compile; _shorthands: the functions over Scans.
from . import _arrays, _autograd, _core, _fast, _recurrence  # noqa: F401
from . import _shape  # noqa: F401
from ._arrays import Cuda, Host  # noqa: F401
from ._device import _compile_kernel, _lock, _runtime, _runtimes, runtime_info  # noqa: F401
from ._fields import _field, _fields_length, _flatten_fields, _mirror  # noqa: F401
from ._scan import Scan, _host_strides, _overlap, _scans, _workspace, compile  # noqa: F401
from ._segments import _INDEX_TYPES, _OFFSET_TYPES, _Segments, _segments_arg, _to_numpy  # noqa: F401
from ._shorthands import (  # noqa: F401
    _builtin, _builtin_by_dtype, _builtin_scan, _builtin_scans, _element_dtype, associative_scan, cumfmax, cumfmin,
    cummax, cummin, cumprod, cumsum, dtype_of, linear_recurrence, logcumsumexp, vjp)
from ._types import (  # noqa: F401
    describe_fields, dsl_type_of, dtype_from_desc, dtype_hint, leaves, literal, to_element, type_name)

__all__ = [
    "ScanError",
    "Scan",
    "compile",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "cumfmax",
    "cumfmin",
    "logcumsumexp",
    "linear_recurrence",
    "associative_scan",
    "vjp",
    "runtime_info",
    "dtype_of",
]

__version__ = "0.1.0"


#: An error reported by scangen (a subclass of ValueError), with its text:
#: diagnostics of ``.scan`` text carry ``file:line:col`` and a caret under the
#: mistake; runtime errors (compiling or launching a kernel) name the call and
#: the code.
ScanError = _core.ScanError

# The public names are the package's own, as when they were defined here (help(), pickling by reference).
for _public in (Scan, compile, cumsum, cumprod, cummax, cummin, cumfmax, cumfmin, logcumsumexp, linear_recurrence,
                associative_scan, vjp, runtime_info, dtype_of):
    _public.__module__ = __name__
del _public
