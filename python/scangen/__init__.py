"""scangen for Python: custom prefix scans on NumPy arrays, PyTorch tensors and CuPy arrays.

A scan is described in scangen's ``.scan`` language (docs/dsl.md), compiled
at run time (through NVRTC on a CUDA GPU, else through the OpenCL driver, e.g.
PoCL on the CPU), cached in memory and on disk, and run on the array::

    import numpy as np, scangen
    scangen.cummax(np.array([3, 1, 4, 1, 5], dtype=np.int32))   # [3 3 4 4 5]

NumPy arrays run on an OpenCL device (copied to its buffers and back); PyTorch
CUDA tensors and CuPy arrays run in place on the CUDA device, on the current
stream. docs/python.md has the whole story.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from . import _core

__all__ = [
    "ScanError",
    "Scan",
    "compile",
    "cumsum",
    "cumprod",
    "cummax",
    "cummin",
    "associative_scan",
    "runtime_info",
    "dtype_of",
]

__version__ = "0.1.0"


#: An error reported by scangen (a subclass of ValueError), with its text:
#: diagnostics of ``.scan`` text carry ``file:line:col`` and a caret under the
#: mistake; runtime errors (compiling or launching a kernel) name the call and
#: the code.
ScanError = _core.ScanError


# ---- types -------------------------------------------------------------------

_SCALAR_DTYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "bool": np.bool_,
}
_DTYPE_SCALARS = {np.dtype(v): k for k, v in _SCALAR_DTYPES.items()}


def _dtype_from_desc(desc) -> np.dtype:
    """The NumPy dtype of a scangen type as _core describes it."""
    if isinstance(desc, str):
        return np.dtype(_SCALAR_DTYPES[desc])
    _name, fields, size = desc
    return np.dtype({
        "names": [f[0] for f in fields],
        "formats": [_dtype_from_desc(f[1]) for f in fields],
        "offsets": [f[2] for f in fields],
        "itemsize": size,
    })


def _type_name(desc) -> str:
    return desc if isinstance(desc, str) else desc[0]


def _dsl_type_of(dtype: np.dtype, structs: list, name: str) -> str:
    """The DSL spelling of a NumPy dtype; struct definitions are appended to ``structs``."""
    dtype = np.dtype(dtype)
    if dtype.fields is None:
        if dtype.subdtype is not None:
            raise TypeError(f"scangen: a sub-array dtype ({dtype}) has no scangen type; "
                            "use a structured dtype with one field per element")
        if dtype not in _DTYPE_SCALARS:
            raise TypeError(f"scangen: dtype {dtype} has no scangen type (supported: int8..int64, "
                            "uint8..uint64, float16, float32, float64, bool and structured dtypes of them)")
        return _DTYPE_SCALARS[dtype]
    fields = []
    for field in dtype.names:
        sub = dtype.fields[field][0]
        fields.append(f"{field}: {_dsl_type_of(sub, structs, name + '_' + field)}")
    structs.append(f"type {name} {{ {', '.join(fields)} }}")
    return name


def _literal(value, dtype: np.dtype, type_name: str) -> str:
    """A DSL constant of ``dtype`` from a Python value (a number, a tuple or dict for a struct, or DSL text)."""
    if isinstance(value, str):
        return value
    dtype = np.dtype(dtype)
    if dtype.fields is None:
        if dtype.kind == "f":
            v = float(value)
            if v != v:
                return "nan"
            if v in (float("inf"), float("-inf")):
                return "inf" if v > 0 else "-inf"
            return repr(v)
        if dtype.kind == "b":
            return "true" if value else "false"
        return str(int(value))
    if isinstance(value, np.void):
        value = tuple(value)
    if isinstance(value, dict):
        value = tuple(value[f] for f in dtype.names)
    if len(value) != len(dtype.names):
        raise ValueError(f"scangen: {value!r} has {len(value)} values; type {type_name} has "
                         f"{len(dtype.names)} fields ({', '.join(dtype.names)})")
    parts = [f"{f}: {_literal(v, dtype.fields[f][0], type_name + '_' + f)}" for f, v in zip(dtype.names, value)]
    return f"{type_name} {{ {', '.join(parts)} }}"


def dtype_of(scan: "Scan | str", *, input: bool = False) -> np.dtype:
    """The NumPy dtype of a scan's elements (``input=True``: of its input)."""
    if not isinstance(scan, Scan):
        scan = compile(scan)
    return scan.input_dtype if input else scan.dtype


# ---- runtimes ----------------------------------------------------------------

_lock = threading.RLock()
_runtimes: dict = {}


def _runtime(backend=None) -> "_core.Runtime":
    """The default Runtime (backend None: CUDA when there is a GPU, else OpenCL) or one of a backend."""
    with _lock:
        if backend is None and None not in _runtimes:
            forced = os.environ.get("SCANGEN_BACKEND") or None
            _runtimes[None] = _runtime(forced) if forced else _core.Runtime(None)
        elif backend is not None and backend not in _runtimes:
            default = _runtimes.get(None)
            _runtimes[backend] = default if default is not None and default.backend == backend else \
                _core.Runtime(backend)
        return _runtimes[backend]


def runtime_info() -> dict:
    """The default device: ``backend`` ("cuda" or "opencl"), ``device_name``,
    ``fallback_reason`` (why not CUDA, or "") and the cache statistics."""
    rt = _runtime()
    return {"backend": rt.backend, "device_name": rt.device_name,
            "fallback_reason": rt.fallback_reason, **rt.stats()}


# ---- arrays ------------------------------------------------------------------

def _array_kind(x) -> str:
    """'numpy', 'torch', 'cupy' (a device array) or raises TypeError."""
    module = type(x).__module__.split(".")[0]
    if isinstance(x, np.ndarray):
        return "numpy"
    if module == "torch":
        if not x.is_cuda:
            return "torch_cpu"
        return "torch"
    if module == "cupy":
        return "cupy"
    if hasattr(x, "__cuda_array_interface__"):
        raise TypeError(f"scangen: {type(x).__name__} arrays are not supported; pass a PyTorch tensor, "
                        "a CuPy array or a NumPy array")
    raise TypeError(f"scangen: expected a NumPy array, a PyTorch tensor or a CuPy array, not {type(x).__name__}")


_TORCH_DTYPES = {
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "bool": np.bool_,
}


def _torch_dtype(t) -> np.dtype:
    name = str(t.dtype).replace("torch.", "")
    if name not in _TORCH_DTYPES:
        raise TypeError(f"scangen: torch dtype {t.dtype} has no scangen type")
    return np.dtype(_TORCH_DTYPES[name])


# ---- Scan --------------------------------------------------------------------

class Scan:
    """A compiled scan: call it on an array to scan it.

    Made by :func:`compile` (or the shorthands). ``dtype`` is the NumPy dtype
    of its elements (the output), ``input_dtype`` that of its input (the same
    unless the spec says ``input = ...``).
    """

    def __init__(self, kernel, source: str):
        self._kernel = kernel
        self._source = source
        self._runtime_kernels = {}
        self.name: str = kernel.name
        self.dtype: np.dtype = _dtype_from_desc(kernel.type)
        self.input_dtype: np.dtype = _dtype_from_desc(kernel.input)
        self._type_name = _type_name(kernel.type)
        if kernel.level != "device":
            raise NotImplementedError(
                f"scangen: scan '{self.name}' has level = {kernel.level}; the Python package runs device-level "
                "scans (level = device) only: warp and block scans of independent segments are not wrapped yet")

    @property
    def spec(self) -> str:
        """The resolved spec, every default filled in (what ``scangen explain`` prints first)."""
        return self._kernel.spec_text

    @property
    def backend(self) -> str:
        """"cuda" or "opencl": the backend of the default device."""
        return self._kernel.backend

    def __repr__(self) -> str:
        return f"<scangen.Scan '{self.name}' {self.input_dtype} -> {self.dtype} on {self.backend}>"

    def _kernel_for(self, backend: str):
        """The compiled kernel on ``backend``'s Runtime (NumPy arrays need OpenCL even on a CUDA machine)."""
        if self._kernel.backend == backend:
            return self._kernel
        with _lock:
            if backend not in self._runtime_kernels:
                rt = _runtime(backend)
                self._runtime_kernels[backend] = _compile_kernel(rt, self._source, self.name)
            return self._runtime_kernels[backend]

    def _variant(self, kernel, exclusive, init):
        init_bytes = None
        if init is not None:
            if isinstance(init, str):
                raise TypeError("scangen: init is a value of the element type, not text")
            value = init if isinstance(init, np.ndarray) else _to_element(init, self.dtype)
            init_bytes = np.ascontiguousarray(value, dtype=self.dtype).reshape(-1)[:1].tobytes()
        if exclusive is None:
            exclusive = kernel.mode == "exclusive"
        with _lock:
            return kernel.variant(bool(exclusive), init_bytes)

    def __call__(self, x, *, out=None, exclusive: bool | None = None, init=None, axis: int | None = -1,
                 reverse: bool = False):
        """Scan ``x``; returns ``out`` (allocated when None) of ``self.dtype``.

        x: a 1-D NumPy array (run on the OpenCL device), or a PyTorch CUDA
           tensor / CuPy array (run in place on the CUDA device, current
           stream). Its dtype must be ``self.input_dtype``; a non-contiguous
           array is copied first.
        out: where to write the result: same kind, length, dtype
           ``self.dtype``, contiguous.
        exclusive: True for the exclusive scan (element i combines elements
           0 .. i-1, starting from ``init``), False for the inclusive one;
           None (the default): the spec's mode (inclusive unless it says
           ``mode = exclusive``).
        init: the value the scan starts from (default: the spec's ``init``,
           else the identity): a number, a tuple / dict / NumPy record for a
           struct.
        axis: -1 or 0 for a 1-D array; None scans the flattened array (C
           order). Other axes of a multi-dimensional array raise
           NotImplementedError.
        reverse: True raises NotImplementedError (scangen has no reverse
           scans yet).
        """
        if reverse:
            raise NotImplementedError("scangen: reverse scans are not implemented yet (scangen has no reverse "
                                      "or suffix scan); flip the array, scan, and flip the result")
        kind = _array_kind(x)
        if kind == "torch_cpu":
            raise TypeError("scangen: a PyTorch tensor on the CPU: pass tensor.numpy() (runs on OpenCL) or a "
                            "CUDA tensor")
        if kind == "numpy":
            return self._call_numpy(x, out, exclusive, init, axis)
        return self._call_cuda(x, kind, out, exclusive, init, axis)

    def _check_dtype(self, dtype, what="x"):
        if np.dtype(dtype) != self.input_dtype:
            raise TypeError(f"scangen: scan '{self.name}' takes {self.input_dtype} elements "
                            f"(type {self._type_name} of its spec); {what} has dtype {dtype}. "
                            + _dtype_hint(self.input_dtype, dtype))

    def _call_numpy(self, x, out, exclusive, init, axis):
        x = _flatten(x, axis)
        self._check_dtype(x.dtype)
        x = np.ascontiguousarray(x)
        n = x.shape[0]
        if out is not None:
            if not isinstance(out, np.ndarray):
                raise TypeError("scangen: out must be a NumPy array when x is one")
            if out.shape != (n,) or out.dtype != self.dtype:
                raise ValueError(f"scangen: out must have shape ({n},) and dtype {self.dtype}; it has shape "
                                 f"{out.shape} and dtype {out.dtype}")
        # Written in place when out is contiguous and writeable, else through a copy.
        direct = out is not None and out.flags.c_contiguous and out.flags.writeable
        result = out if direct else np.empty(n, dtype=self.dtype)
        kernel = self._variant(self._kernel_for("opencl"), exclusive, init)
        if n:
            kernel.run_host(x.ctypes.data, result.ctypes.data, n)
        if out is None or direct:
            return result
        out[...] = result
        return out

    def _call_cuda(self, x, kind, out, exclusive, init, axis):
        if self.dtype.fields is not None or self.input_dtype.fields is not None:
            raise NotImplementedError("scangen: struct element types on CUDA tensors (a tuple of tensors, one "
                                      "per field) are not implemented yet; use NumPy structured arrays")
        if x.ndim != 1 and axis is not None:
            raise NotImplementedError(_axis_message(x.ndim, axis))
        if x.ndim == 1 and axis not in (None, 0, -1):
            raise ValueError(f"scangen: axis {axis} is out of range for a 1-D array")
        dev = _TorchDevice() if kind == "torch" else _CupyDevice()
        x = x.reshape(-1)
        self._check_dtype(dev.dtype(x))
        x = dev.contiguous(x)
        n = x.shape[0]
        if dev.device_index(x) != 0:
            raise NotImplementedError(f"scangen: the CUDA runtime uses device 0; this array is on device "
                                      f"{dev.device_index(x)}")
        if out is None:
            out = dev.empty(n, self.dtype, x)
        elif (not dev.is_array(out) or tuple(out.shape) != (n,) or dev.dtype(out) != self.dtype
              or not dev.is_contiguous(out) or dev.device_index(out) != dev.device_index(x)):
            raise ValueError(f"scangen: out must be a contiguous {kind} array of shape ({n},) and dtype "
                             f"{self.dtype} on x's device")
        kernel = self._variant(self._kernel_for("cuda"), exclusive, init)
        if n:
            # A workspace from the array library's allocator on the current
            # stream: calls on different streams never share one.
            ws_bytes = kernel.workspace_bytes(n)
            workspace = dev.empty(ws_bytes, np.dtype(np.uint8), x) if ws_bytes else None
            kernel.run_cuda(dev.pointer(x), dev.pointer(out), n, dev.stream(x),
                            dev.pointer(workspace) if ws_bytes else 0, ws_bytes)
        return out


class _TorchDevice:
    """What _call_cuda needs of PyTorch CUDA tensors."""

    def __init__(self):
        import torch
        self.torch = torch

    def is_array(self, a):
        return isinstance(a, self.torch.Tensor) and a.is_cuda

    def dtype(self, a):
        return _torch_dtype(a)

    def contiguous(self, a):
        return a.contiguous()

    def is_contiguous(self, a):
        return a.is_contiguous()

    def device_index(self, a):
        return a.device.index

    def empty(self, n, dtype, like):
        return self.torch.empty(n, dtype=_torch_dtype_of(dtype), device=like.device)

    def pointer(self, a):
        return a.data_ptr()

    def stream(self, a):
        return self.torch.cuda.current_stream(a.device).cuda_stream


class _CupyDevice:
    """What _call_cuda needs of CuPy arrays."""

    def __init__(self):
        import cupy
        self.cupy = cupy

    def is_array(self, a):
        return isinstance(a, self.cupy.ndarray)

    def dtype(self, a):
        return np.dtype(a.dtype)

    def contiguous(self, a):
        return self.cupy.ascontiguousarray(a)

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def device_index(self, a):
        return a.device.id

    def empty(self, n, dtype, like):
        with like.device:
            return self.cupy.empty(n, dtype=dtype)

    def pointer(self, a):
        return a.data.ptr

    def stream(self, a):
        return self.cupy.cuda.get_current_stream().ptr


def _torch_dtype_of(dtype: np.dtype):
    import torch
    return getattr(torch, {v: k for k, v in ((k, np.dtype(v)) for k, v in _TORCH_DTYPES.items())}[dtype])


def _axis_message(ndim, axis):
    return (f"scangen: scanning axis {axis} of a {ndim}-D array needs batched (segmented) scans, which "
            "scangen does not have yet; pass axis=None to scan the flattened array, or scan the rows one by one")


def _flatten(x: np.ndarray, axis):
    if axis is None:
        return x.reshape(-1)
    if x.ndim == 0:
        raise ValueError("scangen: cannot scan a 0-D array along an axis; pass axis=None")
    if x.ndim != 1:
        raise NotImplementedError(_axis_message(x.ndim, axis))
    if axis not in (0, -1):
        raise ValueError(f"scangen: axis {axis} is out of range for a 1-D array")
    return x


def _dtype_hint(want: np.dtype, got) -> str:
    if want.fields is not None:
        return (f"Make the array with dtype=scan.dtype (fields in order, C layout: {want.descr}); "
                "np.dtype([...], align=True) gives the same layout")
    return f"Convert it (x.astype(np.{want.name})) or compile a scan of that type"


def _to_element(value, dtype: np.dtype):
    if dtype.fields is None:
        return np.asarray(value, dtype=dtype)
    if isinstance(value, dict):
        value = tuple(value[f] for f in dtype.names)
    return np.array([tuple(value)], dtype=dtype)


# ---- compile and the shorthands ------------------------------------------------

_scans: dict = {}


def _compile_kernel(rt, source, name):
    if source.startswith("file:"):
        return rt.compile_file(source[5:], name)
    return rt.compile(source[5:], name)


def compile(text_or_path, name: str | None = None) -> Scan:
    """Compile a scan from ``.scan`` text or a ``.scan`` file (a path or os.PathLike).

    ``name`` picks one scan where the text holds several. Compiled once:
    later calls with the same text return the same Scan, and the runtime's
    disk cache (``SCANGEN_CACHE_DIR``) keeps the binary across processes.
    Errors in the text raise :class:`ScanError` with scangen's diagnostics.
    """
    if isinstance(text_or_path, os.PathLike) or (
            isinstance(text_or_path, str) and "{" not in text_or_path and
            (text_or_path.endswith(".scan") or os.path.isfile(text_or_path))):
        source = "file:" + os.fspath(text_or_path)
    elif isinstance(text_or_path, str):
        source = "text:" + text_or_path
    else:
        raise TypeError(f"scangen.compile takes .scan text or a path, not {type(text_or_path).__name__}")
    key = (source, name or "")
    with _lock:
        scan = _scans.get(key)
        if scan is None:
            scan = Scan(_compile_kernel(_runtime(), source, name or ""), source)
            _scans[key] = scan
        return scan


def _builtin(op: str, x, dtype, out, exclusive, init, axis):
    in_dtype = _input_dtype(x)
    acc = np.dtype(dtype) if dtype is not None else in_dtype
    in_name, acc_name = _dsl_type_of(in_dtype, [], "T"), _dsl_type_of(acc, [], "T")
    if in_dtype.fields is not None or acc.fields is not None:
        raise TypeError(f"scangen: '{op}' is a scalar operator; for struct elements use associative_scan")
    if in_dtype.kind == "b" or acc.kind == "b":
        raise TypeError(f"scangen: '{op}' on bool arrays: convert them to an integer type first")
    convert = f" input = {in_name};" if in_name != acc_name else ""
    text = f"scan {op}_{acc_name} {{ type = {acc_name};{convert} op = {op}; level = device; }}"
    return compile(text)(x, out=out, exclusive=exclusive, init=init, axis=axis)


def _input_dtype(x) -> np.dtype:
    kind = _array_kind(x)
    if kind in ("torch", "torch_cpu"):
        return _torch_dtype(x)
    return np.dtype(x.dtype)


def cumsum(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1):
    """The running sum of ``x`` (integers wrap around in the result's dtype).

    dtype: the accumulator and result type (default: ``x``'s), e.g.
    ``np.int64`` to sum ``int8`` values without overflow.
    """
    return _builtin("add", x, dtype, out, exclusive, init, axis)


def cumprod(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1):
    """The running product of ``x`` (integers wrap around)."""
    return _builtin("mul", x, dtype, out, exclusive, init, axis)


def cummax(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1):
    """The running maximum of ``x`` (exclusive: element 0 is ``init``, else the identity: the lowest value)."""
    return _builtin("max", x, dtype, out, exclusive, init, axis)


def cummin(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1):
    """The running minimum of ``x`` (exclusive: element 0 is ``init``, else the identity: the highest value)."""
    return _builtin("min", x, dtype, out, exclusive, init, axis)


def associative_scan(combine: str, x, *, identity, out=None, exclusive=False, init=None, axis=-1,
                     name: str = "custom") -> "np.ndarray":
    """Scan ``x`` with a custom operator written as a scangen ``combine`` expression.

    combine: the body of ``combine(x, y) = ...;`` in scangen's language
        (``x`` is the earlier element, ``y`` the later one), e.g.
        ``"max(x, y)"`` or, for a structured dtype with fields a and b,
        ``"T { a: y.a * x.a, b: y.a * x.b + y.b }"`` (the struct type is
        called ``T``; nested structs ``T_field``). A whole
        ``combine(x, y) = ...;`` line (with ``let``\\s) is taken as is.
    identity: the operator's identity: a number, a tuple / dict for a
        struct, or DSL text.
    The element type is ``x``'s dtype (scalar or structured). scangen checks
    the identity and associativity on random values before compiling.
    """
    dtype = _input_dtype(x)
    structs: list = []
    type_name = _dsl_type_of(dtype, structs, "T")
    body = combine.strip().rstrip(";")
    line = body + ";" if body.startswith("combine") else f"combine(x, y) = {body};"
    text = "\n".join(structs + [
        f"scan {name} {{",
        f"  type = {type_name};",
        f"  {line}",
        f"  identity = {_literal(identity, dtype, type_name)};",
        "  level = device;",
        "}",
    ])
    return compile(text)(x, out=out, exclusive=exclusive, init=init, axis=axis)
