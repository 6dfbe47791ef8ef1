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

The shape of a scan (the ``axis`` of a multi-dimensional array, ``reverse``,
segments) is resolved in one place, ``_scan_length``: what scangen cannot
run yet raises NotImplementedError there.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from . import _arrays, _core
from ._arrays import Cuda, Host
from ._types import describe_fields, dsl_type_of, dtype_from_desc, dtype_hint, leaves, literal, to_element, type_name

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


def dtype_of(scan: "Scan | str", *, input: bool = False) -> np.dtype:
    """The NumPy dtype of a scan's elements (``input=True``: of its input)."""
    if not isinstance(scan, Scan):
        scan = compile(scan)
    return scan.input_dtype if input else scan.dtype


# ---- the shape of a scan -------------------------------------------------------

def _scan_length(shape, axis, reverse) -> int:
    """The length of the one 1-D scan that an array of ``shape`` makes with ``axis`` and ``reverse``.

    This is where the shaped scans map onto scangen's: a batched scan (an axis
    of a multi-dimensional array), a reverse scan and segments raise
    NotImplementedError naming what is missing until scangen has them.
    """
    if reverse:
        raise NotImplementedError("scangen: reverse scans are not implemented yet (scangen has no reverse "
                                  "or suffix scan); flip the array, scan, and flip the result")
    n = 1
    for d in shape:
        n *= int(d)
    if axis is None:
        return n
    if len(shape) == 0:
        raise ValueError("scangen: cannot scan a 0-D array along an axis; pass axis=None")
    if len(shape) != 1:
        raise NotImplementedError(_axis_message(len(shape), axis))
    if axis not in (0, -1):
        raise ValueError(f"scangen: axis {axis} is out of range for a 1-D array")
    return n


def _axis_message(ndim, axis):
    return (f"scangen: scanning axis {axis} of a {ndim}-D array needs batched (segmented) scans, which "
            "scangen does not have yet; pass axis=None to scan the flattened array, or scan the rows one by one")


def _field(a: np.ndarray, path):
    for name in path:
        a = a[name]
    return a


def _flatten_fields(parts, dtype: np.dtype, where: str, scan: "Scan") -> list:
    """The arrays of a tuple (or dict) of arrays, one per field of ``dtype``, nested as the struct is."""
    if dtype.fields is None:
        if isinstance(parts, (tuple, dict)):
            raise TypeError(f"scangen: {where} is a {type(parts).__name__}; field {where} of scan '{scan.name}' "
                            f"is a {dtype} array")
        return [parts]
    if isinstance(parts, dict):
        missing = [f for f in dtype.names if f not in parts]
        if missing or len(parts) != len(dtype.names):
            raise TypeError(f"scangen: scan '{scan.name}' takes a dict of the fields {', '.join(dtype.names)}; "
                            f"{where} has {', '.join(map(str, parts))}")
        parts = tuple(parts[f] for f in dtype.names)
    if not isinstance(parts, tuple) or len(parts) != len(dtype.names):
        got = f"a tuple of {len(parts)}" if isinstance(parts, tuple) else f"a {type(parts).__name__}"
        raise TypeError(f"scangen: scan '{scan.name}' takes a tuple of {len(dtype.names)} arrays for {where}, one "
                        f"per field ({', '.join(dtype.names)}); it is {got}")
    out = []
    for name, part in zip(dtype.names, parts):
        out.extend(_flatten_fields(part, dtype.fields[name][0], f"{where}.{name}" if where != "x" else name, scan))
    return out


def _mirror(dtype: np.dtype, items):
    """Arrays (an iterator, one per scalar field) nested as the fields of ``dtype``: a tuple for a struct."""
    if dtype.fields is None:
        return next(items)
    return tuple(_mirror(dtype.fields[name][0], items) for name in dtype.names)


def _overlap(a_ptr, a_bytes, b_ptr, b_bytes) -> bool:
    return a_bytes > 0 and b_bytes > 0 and a_ptr < b_ptr + b_bytes and b_ptr < a_ptr + a_bytes


# ---- Scan --------------------------------------------------------------------

class Scan:
    """A compiled scan: call it on an array (or a tuple of arrays, one per field) to scan it.

    Made by :func:`compile` (or the shorthands). ``dtype`` is the NumPy dtype
    of its elements (the output), ``input_dtype`` that of its input (the same
    unless the spec says ``input = ...``).
    """

    def __init__(self, kernel, source: str):
        self._kernel = kernel
        self._source = source
        self._runtime_kernels = {}
        self._variants = {}  # (id(kernel), exclusive) -> the variant without init (kernels live as long)
        self.name: str = kernel.name
        self.dtype: np.dtype = dtype_from_desc(kernel.type)
        self.input_dtype: np.dtype = dtype_from_desc(kernel.input)
        self._type_name = type_name(kernel.type)
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
        if init is None:  # the common case, without the lock and the call into _core
            key = (id(kernel), exclusive)
            variant = self._variants.get(key)
            if variant is None:
                variant = self._variants[key] = self._new_variant(kernel, exclusive, None)
            return variant
        return self._new_variant(kernel, exclusive, init)

    def _new_variant(self, kernel, exclusive, init):
        init_bytes = None
        if init is not None:
            if isinstance(init, str):
                raise TypeError("scangen: init is a value of the element type, not text")
            value = init if isinstance(init, np.ndarray) else to_element(init, self.dtype)
            init_bytes = np.ascontiguousarray(value, dtype=self.dtype).reshape(-1)[:1].tobytes()
        if exclusive is None:
            exclusive = kernel.mode == "exclusive"
        with _lock:
            return kernel.variant(bool(exclusive), init_bytes)

    def __call__(self, x, *, out=None, exclusive: bool | None = None, init=None, axis: int | None = -1,
                 reverse: bool = False):
        """Scan ``x``; returns ``out`` (allocated when None) of ``self.dtype``.

        x: a 1-D array of dtype ``self.input_dtype``: NumPy (run on the OpenCL
           device, copied to its buffers and back); a PyTorch CUDA tensor or
           a CuPy array (zero-copy on the CUDA device, on the library's
           current stream); any other array with ``__dlpack__`` (JAX, ...) or
           ``__cuda_array_interface__`` (zero-copy when on the GPU; a CPU one
           goes the NumPy way). A non-contiguous NumPy, PyTorch or CuPy
           array is copied first; other non-contiguous arrays are refused.
           For a struct type: a structured NumPy array, or a tuple (or dict)
           of arrays, one per field (nested for nested structs), which
           returns a tuple of arrays of the output's fields.
        out: where to write the result: an array of x's kind (a tuple of
           them for a tuple x), shape ``(len,)``, dtype ``self.dtype``, on
           x's device. It may be x itself or overlap it: scangen then writes
           through a temporary.
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
        if isinstance(x, (tuple, dict)):
            return self._call_fields(x, out, exclusive, init, axis, reverse)
        op = _arrays.operand(x)
        return self._call_operand(op, out, exclusive, init, axis, reverse)

    def _call_operand(self, op, out, exclusive, init, axis, reverse):
        n = _scan_length(op.array.shape if isinstance(op, Host) else op.shape, axis, reverse)
        self._check_dtype(op.array.dtype if isinstance(op, Host) else op.dtype)
        if isinstance(op, Host):
            return self._run_host(op, n, out, exclusive, init)
        return self._run_cuda(op, n, out, exclusive, init)

    def _check_dtype(self, dtype, what="x"):
        if np.dtype(dtype) != self.input_dtype:
            raise TypeError(f"scangen: scan '{self.name}' takes {self.input_dtype} elements "
                            f"(type {self._type_name} of its spec); {what} has dtype {dtype}. "
                            + dtype_hint(self.input_dtype, dtype))

    # ---- NumPy on OpenCL ----

    def _host_out(self, op: Host, out, n, dtype=None):
        """out= as a NumPy array of shape (n,) and ``dtype`` (default self.dtype), or an error."""
        dtype = self.dtype if dtype is None else dtype
        view = op.out_view(out) if op.out_view else None
        if view is None:
            raise TypeError(f"scangen: out must be a {op.kind} array when x is one"
                            if op.out_view else f"scangen: out= is not supported for {op.kind} arrays")
        if view.shape != (n,) or view.dtype != dtype:
            raise ValueError(f"scangen: out must have shape ({n},) and dtype {dtype}; it has shape "
                             f"{view.shape} and dtype {view.dtype}")
        return view

    def _run_host(self, op: Host, n, out, exclusive, init):
        view = self._host_out(op, out, n) if out is not None else None
        result = self._scan_host(np.ascontiguousarray(op.array.reshape(-1)), view, exclusive, init)
        return out if out is not None else op.back(result)

    def _scan_host(self, x: np.ndarray, out, exclusive, init):
        """The scan of contiguous ``x`` into ``out`` (a NumPy array, or None: a new one)."""
        # Written in place when out is contiguous and writeable, else through a copy. The kernel reads a
        # device buffer copied from x, so out may be x or overlap it.
        direct = out is not None and out.flags.c_contiguous and out.flags.writeable
        result = out if direct else np.empty(x.shape[0], dtype=self.dtype)
        kernel = self._variant(self._kernel_for("opencl"), exclusive, init)
        if x.shape[0]:
            kernel.run_host(x.ctypes.data, result.ctypes.data, x.shape[0])
        if out is None or direct:
            return result
        out[...] = result
        return out

    # ---- CUDA ----

    def _cuda_out(self, op: Cuda, out, n) -> Cuda:
        """out= as a checked operand: the kind of x, contiguous, shape (n,), dtype self.dtype, x's device."""
        if not op.out_ok:
            raise TypeError(f"scangen: out= is not supported for {op.kind} arrays (they may be immutable, as JAX's "
                            "are): use the result")
        lib = op.lib
        if op.kind in ("torch", "cupy") and lib.is_array(out) and lib.is_contiguous(out):  # the quick way
            shape, dtype, device = lib.shape(out), lib.dtype(out), lib.device_index(out)
            if shape == (n,) and dtype == self.dtype and device == op.device:
                return Cuda(op.kind, lib, out, dtype, shape, device, lib.pointer(out), op.stream)
        o = _arrays.operand(out)
        if not isinstance(o, Cuda) or o.kind != op.kind:
            raise TypeError(f"scangen: out must be a {op.kind} CUDA array when x is one, not {type(out).__name__}")
        problem = ("not contiguous" if o.copied else "read-only" if o.read_only else
                   f"of shape {o.shape}" if o.shape != (n,) else f"of dtype {o.dtype}" if o.dtype != self.dtype else
                   f"on device {o.device}" if o.device != op.device else None)
        if problem:
            raise ValueError(f"scangen: out must be a contiguous {op.kind} array of shape ({n},) and dtype "
                             f"{self.dtype} on x's device ({op.device}); it is {problem}")
        return o

    def _run_cuda(self, op: Cuda, n, out, exclusive, init):
        if op.device != 0:
            raise NotImplementedError(f"scangen: the CUDA runtime uses device 0; this array is on device {op.device}")
        kernel = self._variant(self._kernel_for("cuda"), exclusive, init)
        lib = op.lib
        if out is None:
            result = lib.empty(n, self.dtype, op.device)
            self._launch(kernel, op, op.pointer, lib.pointer(result), n)
            return op.back(result)
        o = self._cuda_out(op, out, n)
        if not _overlap(op.pointer, n * self.input_dtype.itemsize, o.pointer, n * self.dtype.itemsize):
            self._launch(kernel, op, op.pointer, o.pointer, n)
            return out
        if not lib.is_array(out):
            raise ValueError(f"scangen: out overlaps x; for {op.kind} arrays it must not (pass another array)")
        temp = lib.empty(n, self.dtype, op.device)  # x and out overlap: through a temporary
        self._launch(kernel, op, op.pointer, lib.pointer(temp), n)
        lib.copy(out, temp)
        return out

    @staticmethod
    def _launch(kernel, op: Cuda, in_ptr, out_ptr, n):
        """One launch on op's stream, with a workspace from op's library (calls on two streams never share one)."""
        if n == 0:
            return
        ws_bytes = kernel.workspace_bytes(n)
        workspace = op.lib.empty(ws_bytes, np.dtype(np.uint8), op.device) if ws_bytes else None
        kernel.run_cuda(in_ptr, out_ptr, n, op.stream, op.lib.pointer(workspace) if ws_bytes else 0, ws_bytes)
        _arrays.hold_until_done(op)

    # ---- a tuple of arrays, one per field ----

    def _call_fields(self, parts, out, exclusive, init, axis, reverse):
        """Struct elements as one array per field (SoA): packed into an array of structs, scanned, unpacked."""
        if self.input_dtype.fields is None:
            raise TypeError(f"scangen: scan '{self.name}' takes one array of {self.input_dtype} elements, not a "
                            f"{type(parts).__name__} of arrays (a tuple is for struct types)")
        arrays = _flatten_fields(parts, self.input_dtype, "x", self)
        ops = [_arrays.operand(a) for a in arrays]
        fields = leaves(self.input_dtype)
        lengths = set()
        for op, (path, dtype, _off) in zip(ops, fields):
            if type(op) is not type(ops[0]) or op.kind != ops[0].kind:
                raise TypeError(f"scangen: the arrays of a tuple must be of one kind; field {'.'.join(fields[0][0])} "
                                f"is a {ops[0].kind} array, field {'.'.join(path)} a {op.kind} one")
            got = op.array.dtype if isinstance(op, Host) else op.dtype
            if got != dtype:
                raise TypeError(f"scangen: scan '{self.name}' takes the fields {describe_fields(self.input_dtype)} "
                                f"(type {type_name(self._kernel.input)}); field {'.'.join(path)} has dtype {got}")
            lengths.add(_scan_length(op.array.shape if isinstance(op, Host) else op.shape, axis, reverse))
        if len(lengths) > 1:
            raise ValueError(f"scangen: the arrays of a tuple must have one length; they have {sorted(lengths)}")
        n = lengths.pop()
        out_leaves = None
        if out is not None:
            out_leaves = _flatten_fields(out, self.dtype, "out", self)
        if isinstance(ops[0], Host):
            results = self._fields_host(ops, n, out_leaves, exclusive, init)
        else:
            results = self._fields_cuda(ops, n, out_leaves, exclusive, init)
        if out is not None:
            return out
        if isinstance(parts, dict):
            return dict(zip(self.dtype.names, _mirror(self.dtype, iter(results))))
        return _mirror(self.dtype, iter(results))

    def _fields_host(self, ops, n, out_leaves, exclusive, init):
        packed = np.empty(n, self.input_dtype)
        for op, (path, _dtype, _off) in zip(ops, leaves(self.input_dtype)):
            _field(packed, path)[...] = op.array.reshape(-1)
        result = self._scan_host(packed, None, exclusive, init)
        results = []
        for i, (path, dtype, _off) in enumerate(leaves(self.dtype)):
            field = _field(result, path)
            if out_leaves is None:
                results.append(ops[0].back(np.ascontiguousarray(field)))
            else:
                self._host_out(ops[0], out_leaves[i], n, dtype)[...] = field
        return results

    def _fields_cuda(self, ops, n, out_leaves, exclusive, init):
        op = ops[0]
        if op.kind not in ("torch", "cupy"):
            raise TypeError(f"scangen: a tuple of {op.kind} arrays: struct scans take tuples of NumPy, PyTorch "
                            "or CuPy arrays")
        if op.device != 0:
            raise NotImplementedError(f"scangen: the CUDA runtime uses device 0; this array is on device {op.device}")
        lib, device = op.lib, op.device
        if n == 0:  # nothing to pack, launch or view
            return out_leaves or [lib.empty(0, dtype, device) for _path, dtype, _off in leaves(self.dtype)]
        kernel = self._variant(self._kernel_for("cuda"), exclusive, init)
        in_size, out_size = self.input_dtype.itemsize, self.dtype.itemsize
        packed = lib.empty(n * in_size, np.dtype(np.uint8), device)
        for part, (_path, dtype, off) in zip(ops, leaves(self.input_dtype)):
            if part.device != device:
                raise ValueError(f"scangen: the arrays of a tuple must be on one device ({device}, {part.device})")
            lib.copy(lib.field_view(packed, n, in_size, off, dtype), part.array.reshape(-1))
        result = lib.empty(n * out_size, np.dtype(np.uint8), device)
        self._launch(kernel, op, lib.pointer(packed), lib.pointer(result), n)
        results = []
        for i, (_path, dtype, off) in enumerate(leaves(self.dtype)):
            field = lib.field_view(result, n, out_size, off, dtype)
            if out_leaves is None:
                target = lib.empty(n, dtype, device)
            else:
                target = out_leaves[i]
                o = _arrays.operand(target)
                if not isinstance(o, Cuda) or o.kind != op.kind or o.shape != (n,) or o.dtype != dtype or o.copied:
                    raise ValueError(f"scangen: out must be a tuple of contiguous {op.kind} arrays of shape ({n},) "
                                     f"and the dtypes {describe_fields(self.dtype)}")
            lib.copy(target, field)
            results.append(target)
        return results


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
    if isinstance(x, (tuple, dict)):
        raise TypeError(f"scangen: '{op}' scans one array, not a {type(x).__name__} of them")
    operand = _arrays.operand(x)
    in_dtype = operand.array.dtype if isinstance(operand, Host) else operand.dtype
    acc = np.dtype(dtype) if dtype is not None else in_dtype
    if in_dtype.fields is not None or acc.fields is not None:
        raise TypeError(f"scangen: '{op}' is a scalar operator; for struct elements use associative_scan")
    in_name, acc_name = dsl_type_of(in_dtype, [], "T"), dsl_type_of(acc, [], "T")
    if in_dtype.kind == "b" or acc.kind == "b":
        raise TypeError(f"scangen: '{op}' on bool arrays: convert them to an integer type first")
    convert = f" input = {in_name};" if in_name != acc_name else ""
    text = f"scan {op}_{acc_name} {{ type = {acc_name};{convert} op = {op}; level = device; }}"
    return compile(text)._call_operand(operand, out, exclusive, init, axis, False)


def _element_dtype(x, names) -> np.dtype:
    """The dtype of x's elements: an array's, or for a tuple / dict of arrays (one per field) the struct of
    theirs, fields named by ``names`` (a tuple) or the keys (a dict), in C layout."""
    if isinstance(x, dict):
        names, x = tuple(x), tuple(x.values())
    if isinstance(x, tuple):
        if names is None or len(names) != len(x):
            raise TypeError(f"scangen: a tuple of {len(x)} arrays needs names=(...), a field name for each "
                            "(or pass a dict of them)")
        return np.dtype([(str(n), _element_dtype(a, None)) for n, a in zip(names, x)], align=True)
    operand = _arrays.operand(x)
    return operand.array.dtype if isinstance(operand, Host) else operand.dtype


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
                     name: str = "custom", names=None):
    """Scan ``x`` with a custom operator written as a scangen ``combine`` expression.

    combine: the body of ``combine(x, y) = ...;`` in scangen's language
        (``x`` is the earlier element, ``y`` the later one), e.g.
        ``"max(x, y)"`` or, for a structured dtype with fields a and b,
        ``"T { a: y.a * x.a, b: y.a * x.b + y.b }"`` (the struct type is
        called ``T``; nested structs ``T_field``). A whole
        ``combine(x, y) = ...;`` line (with ``let``\\s) is taken as is.
    identity: the operator's identity: a number, a tuple / dict for a
        struct, or DSL text.
    x: an array (its dtype, scalar or structured, is the element type), or
        one array per field: a dict ``{field: array}``, or a tuple with
        ``names=`` (the fields' names, in order); the result is then a dict
        or a tuple of arrays.
    scangen checks the identity and associativity on random values before
    compiling.
    """
    dtype = _element_dtype(x, names)
    structs: list = []
    type_name = dsl_type_of(dtype, structs, "T")
    body = combine.strip().rstrip(";")
    line = body + ";" if body.startswith("combine") else f"combine(x, y) = {body};"
    text = "\n".join(structs + [
        f"scan {name} {{",
        f"  type = {type_name};",
        f"  {line}",
        f"  identity = {literal(identity, dtype, type_name)};",
        "  level = device;",
        "}",
    ])
    return compile(text)(x, out=out, exclusive=exclusive, init=init, axis=axis)
