"""The Scan class: a compiled scan called on arrays (the general path: operands, layouts, variants,
launches on the OpenCL and CUDA devices, tuples of field arrays, the parts of scangen.mpi and
scangen.dask), and compile(), which makes Scans."""

from __future__ import annotations

import os

import numpy as np

from . import _arrays, _autograd, _core, _fast, _jax
from . import _shape
from ._arrays import Cuda, Host
from ._device import _compile_kernel, _lock, _runtime
from ._fields import _field, _fields_length, _flatten_fields, _mirror
from ._segments import _Segments, _segments_arg
from ._types import describe_fields, dtype_from_desc, dtype_hint, leaves, to_element, type_name

def _host_strides(a: np.ndarray):
    """A NumPy array's strides in elements, where the array is read as it is (its span copied to the device):
    None when C-contiguous; (-1,) (a contiguous copy) for strides that are not whole elements, negative or 0
    (a broadcast view), or when the span is more than twice the elements."""
    if a.flags.c_contiguous:
        return None
    itemsize = a.itemsize
    if any(st < 0 or st % itemsize or (st == 0 and d > 1) for st, d in zip(a.strides, a.shape)):
        return (-1,)  # a broadcast view (stride 0) repeats elements: copied
    strides = tuple(st // itemsize for st in a.strides)
    span = 1 + sum((d - 1) * st for d, st in zip(a.shape, strides))
    return strides if span <= 2 * a.size else (-1,)


_workspace = _arrays.workspace


def _overlap(a_ptr, a_bytes, b_ptr, b_bytes) -> bool:
    return a_bytes > 0 and b_bytes > 0 and a_ptr < b_ptr + b_bytes and b_ptr < a_ptr + a_bytes


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
        self._host_plans, self._cuda_plans = {}, {}  # the fast path's decisions (_fast.Plan) per call shape
        self.name: str = kernel.name
        self.dtype: np.dtype = dtype_from_desc(kernel.type)
        self.input_dtype: np.dtype = dtype_from_desc(kernel.input)
        self._type_name = type_name(kernel.type)
        self._reverse: bool = kernel.reverse
        self._backend: str = kernel.backend
        if kernel.level != "device":
            raise NotImplementedError(
                f"scangen: scan '{self.name}' has level = {kernel.level}; the Python package runs device-level "
                "scans (level = device) only: warp and block scans of independent segments are not wrapped yet")

    @property
    def spec(self) -> str:
        """The resolved spec, every default filled in (what ``scangen explain`` prints first)."""
        return self._kernel.spec_text

    @property
    def identity(self) -> np.ndarray:
        """The operator's identity: a 0-D array of ``self.dtype`` (what an empty scan's aggregate is)."""
        return np.frombuffer(self._kernel.identity, dtype=self.dtype).reshape(()).copy()

    @property
    def adjoint_spec(self) -> str:
        """The text of this scan's backward pass (in the spec's direction): a scan derived from the
        operator's partial derivatives, what :func:`vjp` and autograd run. Raises ScanError, naming the
        reason, where it cannot be derived."""
        return self._adjoint(self._reverse).text

    def _adjoint(self, reverse: bool) -> "_autograd.Adjoint":
        cache = self.__dict__.setdefault("_adjoint_cache", {})
        adj = cache.get(reverse)
        if adj is None:
            with _lock:
                adj = cache.get(reverse)
                if adj is None:
                    adj = cache[reverse] = _autograd.Adjoint(self, reverse, compile)
        return adj

    @property
    def backend(self) -> str:
        """"cuda" or "opencl": the backend of the default device."""
        return self._backend

    def __repr__(self) -> str:
        return f"<scangen.Scan '{self.name}' {self.input_dtype} -> {self.dtype} on {self.backend}>"

    def _kernel_for(self, backend: str):
        """The compiled kernel on ``backend``'s Runtime (NumPy arrays need OpenCL even on a CUDA machine)."""
        if self._backend == backend:
            return self._kernel
        with _lock:
            if backend not in self._runtime_kernels:
                rt = _runtime(backend)
                self._runtime_kernels[backend] = _compile_kernel(rt, self._source, self.name)
            return self._runtime_kernels[backend]

    def _variant(self, kernel, exclusive, init, reverse=False, kind="flat", segs=None, aggregates=False):
        """The compiled variant of ``kernel`` for a call: its mode, init, direction, shape, segments and
        aggregates (the spec with those settings; compiled on first use, then cached)."""
        form, index = (segs.form, segs.index_type) if segs is not None else ("none", "")
        if init is None:  # the common case, without the lock and the call into _core
            key = (id(kernel), exclusive, reverse, kind, form, index, aggregates)
            variant = self._variants.get(key)
            if variant is None:
                variant = self._variants[key] = self._new_variant(kernel, exclusive, None, reverse, kind, form,
                                                                  index, aggregates)
            return variant
        return self._new_variant(kernel, exclusive, init, reverse, kind, form, index, aggregates)

    def _init_bytes(self, init):
        """init as the bytes of one element (None for None)."""
        if init is None:
            return None
        if isinstance(init, str):
            raise TypeError("scangen: init is a value of the element type, not text")
        value = init if isinstance(init, np.ndarray) else to_element(init, self.dtype)
        return np.ascontiguousarray(value, dtype=self.dtype).reshape(-1)[:1].tobytes()

    def _new_variant(self, kernel, exclusive, init, reverse, kind, form, index, aggregates):
        init_bytes = self._init_bytes(init)
        if exclusive is None:
            exclusive = kernel.mode == "exclusive"
        with _lock:
            return kernel.variant(bool(exclusive), init_bytes, bool(reverse), kind, form, index, bool(aggregates))

    def __call__(self, x, *, out=None, exclusive: bool | None = None, init=None, axis: int | None = -1,
                 reverse: bool | None = None, offsets=None, flags=None, keys=None, return_aggregates: bool = False,
                 check_segments: bool = True):
        """Scan ``x``; returns ``out`` (allocated when None) of ``self.dtype``, with ``x``'s shape (the
        flattened shape for ``axis=None``), and with ``return_aggregates=True`` also the aggregates.

        x: an array of dtype ``self.input_dtype``: NumPy (run on the OpenCL
           device, copied to its buffers and back); a PyTorch CUDA tensor or
           a CuPy array (zero-copy on the CUDA device, on the library's
           current stream, strided ones included); any other array with
           ``__dlpack__`` (JAX, ...) or ``__cuda_array_interface__``
           (zero-copy when on the GPU; a CPU one goes the NumPy way).
           For a struct type: a structured NumPy array, or a tuple (or dict)
           of 1-D arrays, one per field (nested for nested structs), which
           returns a tuple of arrays of the output's fields.
        out: where to write the result: an array of x's kind (a tuple of
           them for a tuple x), of the result's shape and ``self.dtype``, on
           x's device (C-contiguous for CUDA arrays). It may be x itself or
           overlap it: scangen then writes through a temporary.
        exclusive: True for the exclusive scan (element i combines elements
           0 .. i-1, starting from ``init``), False for the inclusive one;
           None (the default): the spec's mode (inclusive unless it says
           ``mode = exclusive``).
        init: the value the scan starts from (default: the spec's ``init``,
           else the identity): a number, a tuple / dict / NumPy record for a
           struct. Every line (and every segment) starts from it.
        axis: the axis to scan (negative counts from the end), as
           ``numpy.cumsum``: every line along it is scanned on its own, for
           arrays of up to 4 dimensions (more when they merge into 4); None
           scans the flattened array (C order).
        reverse: True scans from the last element to the first (a suffix
           scan: ``flip(scan(flip(x)))``, along ``axis``); None: the spec's
           ``reverse``. With segments, each segment from its last element.
        offsets, flags, keys: segments (one of them; x 1-D or axis=None),
           each scanned on its own from ``init``: ``offsets`` CSR-style
           (n_segments + 1 of int32/int64/uint32/uint64, from 0 to len(x),
           not decreasing; empty segments allowed), ``flags`` (bool or
           uint8, one per element; nonzero starts a segment), ``keys`` (one
           per element, of an integer dtype, float32 or float64; a segment
           starts where the key changes, or where the spec's key_equal says
           so). Arrays of x's kind, on its device.
        return_aggregates: also return the aggregates (the total of each
           line or segment, without ``init``): ``(result, aggregates)``,
           the aggregates of shape ``x.shape`` without ``axis`` (``()`` for
           a 1-D x), or ``(n_segments,)`` with segments (flags and keys:
           counted first, which waits for a CUDA array).
        check_segments: check the offsets (raising ScanError, a
           ValueError, when they are not 0 .. len(x), not decreasing);
           False skips the check (on CUDA it copies the offsets back).
        """
        if _autograd.wants_grad(x):  # a tensor that requires a gradient: through torch.autograd
            return _autograd.torch_call(self, x, out, exclusive, init, axis, reverse,
                                        _segments_arg(offsets, flags, keys), return_aggregates, check_segments)
        if offsets is None and flags is None and keys is None and init is None and not return_aggregates:
            result = _fast.call(self, x, out, exclusive, axis, reverse, check_segments)
            if result is not None:
                return result
        if _jax.is_jax(x):  # an XLA FFI call, under jit, grad and vmap too
            return _jax.scan_call(self, x, out, exclusive, init, axis, reverse,
                                  offsets is not None or flags is not None or keys is not None, return_aggregates)
        segments = None
        if offsets is not None or flags is not None or keys is not None:
            segments = _segments_arg(offsets, flags, keys)
        if isinstance(x, (tuple, dict)):
            if return_aggregates:
                raise NotImplementedError("scangen: return_aggregates with a tuple of arrays (one per field): "
                                          "pass a structured NumPy array")
            return self._call_fields(x, out, exclusive, init, axis, reverse, segments, check_segments)
        op = _arrays.operand(x, True)
        return self._call_operand(op, out, exclusive, init, axis, reverse, segments, return_aggregates,
                                  check_segments)

    def _layout(self, op, axis, reverse, segments):
        """The Layout of a call on ``op``, and its _Segments (or None)."""
        host = isinstance(op, Host)
        strides = _host_strides(op.array) if host else op.strides
        if segments is None:
            return _shape.layout(op.shape, strides, axis, reverse), None
        form, array = segments
        if axis is not None and len(op.shape) != 1:
            raise NotImplementedError(f"scangen: {form}= with a {len(op.shape)}-D array along axis {axis}: "
                                      "segmented scans take one line; pass a 1-D array or axis=None")
        lay = _shape.layout(op.shape, strides, None, False)
        seg_op = _arrays.operand(array)
        if isinstance(seg_op, Host) != host or (not host and (seg_op.kind != op.kind or seg_op.device != op.device)):
            raise TypeError(f"scangen: {form}= must be an array of x's kind ({op.kind}) on its device")
        return lay, _Segments(form, seg_op, lay.n, host)

    def _call_operand(self, op, out, exclusive, init, axis, reverse, segments=None, aggregates=False, check=True):
        if op.dtype != self.input_dtype:
            self._check_dtype(op.dtype)
        if reverse is None:
            reverse = self._reverse
        if isinstance(op, Host) and not op.shape and axis is not None:  # NumPy: a 0-D array along an axis is 1-D
            _shape.layout((), None, axis, False)  # axis 0 or -1, else the 0-D array's error
            op = Host(op.array.reshape(1), op.kind, op.back, op.out_view)
        lay, segs = self._layout(op, axis, reverse, segments)
        if isinstance(op, Host):
            kernel = self._variant(self._kernel_for("opencl"), exclusive, init, reverse, lay.kind, segs, aggregates)
            return self._run_host(op, lay, out, kernel, segs, aggregates, check)
        kernel = self._variant(self._kernel_for("cuda"), exclusive, init, reverse, lay.kind, segs, aggregates)
        return self._run_cuda(op, lay, out, kernel, segs, aggregates, check)

    def _check_dtype(self, dtype, what="x"):
        if np.dtype(dtype) != self.input_dtype:
            raise TypeError(f"scangen: scan '{self.name}' takes {self.input_dtype} elements "
                            f"(type {self._type_name} of its spec); {what} has dtype {dtype}. "
                            + dtype_hint(self.input_dtype, dtype))

    def _empty_aggregates(self, kernel_for, aggs, fill):
        """Aggregates of empty lines or segments: the identity (the flat scan's aggregate of nothing)."""
        if aggs is not None and fill:
            kernel = self._variant(kernel_for, False, None, False, "flat", None, True)
            fill(kernel)

    # ---- NumPy on OpenCL ----

    def _host_out(self, op: Host, out, shape, dtype=None):
        """out= as a NumPy array of ``shape`` and ``dtype`` (default self.dtype), or an error."""
        dtype = self.dtype if dtype is None else dtype
        view = op.out_view(out) if op.out_view else None
        if view is None:
            raise TypeError(f"scangen: out must be a {op.kind} array when x is one"
                            if op.out_view else f"scangen: out= is not supported for {op.kind} arrays")
        if view.shape != tuple(shape) or view.dtype != dtype:
            raise ValueError(f"scangen: out must have shape {tuple(shape)} and dtype {dtype}; it has shape "
                             f"{view.shape} and dtype {view.dtype}")
        if not view.flags.writeable:  # refused before the kernel runs, not by NumPy's copy after it
            raise ValueError("scangen: out is read-only (its flags.writeable is False); give a writable array")
        return view

    def _run_host(self, op: Host, lay, out, kernel, segs=None, aggregates=False, check=True, carry=None):
        view = self._host_out(op, out, lay.out_shape) if out is not None else None
        x = np.ascontiguousarray(op.array) if lay.copy else op.array
        result, aggs = self._scan_host(x, lay, view, kernel, segs, aggregates, check, carry)
        result = out if out is not None else op.back(result)
        return (result, op.back(aggs)) if aggregates else result

    def _scan_host(self, x: np.ndarray, lay, out, kernel, segs=None, aggregates=False, check=True, carry=None):
        """The scan of ``x`` (laid out as ``lay`` says) into ``out`` (a NumPy array, or None: a new one); the
        aggregates (None unless asked for)."""
        # Written in place when out is contiguous and writeable, else through a copy. The kernel reads a
        # device buffer copied from x, so out may be x or overlap it.
        direct = out is not None and out.flags.c_contiguous and out.flags.writeable
        result = out if direct else np.empty(lay.out_shape, dtype=self.dtype)
        size = result.size
        aggs, agg_count, seg, seg_count = None, 0, 0, 0
        if aggregates:
            agg_count = segs.total(size, kernel) if segs is not None else lay.agg_count
            aggs = np.empty(lay.agg_shape if segs is None else (agg_count,), dtype=self.dtype)
        if segs is not None:
            seg_array = np.ascontiguousarray(segs.op.array)
            seg, seg_count = seg_array.ctypes.data, segs.count
            if size == 0 and segs.form == "offsets" and check and np.any(seg_array):
                raise ValueError(f"scangen: offsets= must all be 0 for an empty x; they are {seg_array.tolist()}")
        if size:
            kernel.run_host(x.ctypes.data, result.ctypes.data, lay.n, lay.shape, aggs.ctypes.data if aggregates else 0,
                            agg_count, seg, seg_count, check, **({} if carry is None else {"carry": carry}))
        elif aggs is not None and aggs.size:
            one = np.empty((), dtype=self.dtype)
            self._empty_aggregates(kernel, aggs, lambda k: k.run_host(0, 0, 0, None, one.ctypes.data, 1))
            aggs[...] = one
        if out is not None and not direct:
            out[...] = result
            result = out
        return result, aggs

    # ---- CUDA ----

    def _cuda_out(self, op: Cuda, out, shape) -> int:
        """out='s pointer, checked: the kind of x, contiguous, of ``shape``, dtype self.dtype, x's device."""
        if not op.out_ok:
            raise TypeError(f"scangen: out= is not supported for {op.kind} arrays (they may be immutable, as JAX's "
                            "are): use the result")
        lib = op.lib
        if op.native and lib.is_array(out) and lib.is_contiguous(out):  # the quick way
            if lib.shape(out) == shape and lib.dtype(out) == self.dtype and lib.device_index(out) == op.device:
                return lib.pointer(out)
        o = _arrays.operand(out)
        if not isinstance(o, Cuda) or o.kind != op.kind:
            raise TypeError(f"scangen: out must be a {op.kind} CUDA array when x is one, not {type(out).__name__}")
        problem = ("not contiguous" if o.copied else "read-only" if o.read_only else
                   f"of shape {o.shape}" if o.shape != shape else f"of dtype {o.dtype}" if o.dtype != self.dtype else
                   f"on device {o.device}" if o.device != op.device else None)
        if problem:
            raise ValueError(f"scangen: out must be a contiguous {op.kind} array of shape {shape} and dtype "
                             f"{self.dtype} on x's device ({op.device}); it is {problem}")
        return o.pointer

    def _run_cuda(self, op: Cuda, lay, out, kernel, segs=None, aggregates=False, check=True, carry=None):
        if op.device != 0:
            raise NotImplementedError(f"scangen: the CUDA runtime uses device 0; this array is on device {op.device}")
        lib = op.lib
        if lay.copy:
            if op.kind not in ("torch", "cupy"):
                raise ValueError(f"scangen: this {op.kind} array is not contiguous (shape {op.shape}, strides "
                                 f"{op.strides}), and this scan of it needs a C-contiguous copy, which scangen does "
                                 "not make of memory it cannot allocate the kind of: pass a contiguous copy")
            op.array = op.keep = lib.contiguous(op.array)
            op.pointer = lib.pointer(op.array)
        shape = lay.out_shape
        aggs = None
        if aggregates:
            aggs = lib.empty(lay.agg_shape if segs is None else (segs.total(op.size, kernel),), self.dtype, op.device)
        if out is None:
            result = lib.empty(shape, self.dtype, op.device)
            self._launch(kernel, op, lay, lib.pointer(result), aggs, segs, check, carry)
            result = op.back(result)
            return (result, op.back(aggs)) if aggregates else result
        out_ptr = self._cuda_out(op, out, shape)
        in_span = lay.n if lay.shape is None else lay.shape.span
        if not _overlap(op.pointer, in_span * self.input_dtype.itemsize, out_ptr, op.size * self.dtype.itemsize):
            self._launch(kernel, op, lay, out_ptr, aggs, segs, check, carry)
        elif not lib.is_array(out):
            raise ValueError(f"scangen: out overlaps x; for {op.kind} arrays it must not (pass another array)")
        else:
            temp = lib.empty(shape, self.dtype, op.device)  # x and out overlap: through a temporary
            self._launch(kernel, op, lay, lib.pointer(temp), aggs, segs, check, carry)
            lib.copy(out, temp)
        return (out, op.back(aggs)) if aggregates else out

    def _launch(self, kernel, op: Cuda, lay, out_ptr, aggs=None, segs=None, check=True, carry=None):
        """One launch on op's stream, with a workspace from op's library (calls on two streams never share one)."""
        lib = op.lib
        agg, agg_count = (lib.pointer(aggs), lib.nbytes(aggs) // self.dtype.itemsize) if aggs is not None else (0, 0)
        seg, seg_count = (segs.op.pointer, segs.count) if segs is not None else (0, 0)
        if op.size == 0:
            if segs is not None and segs.form == "offsets" and check and segs.count and bool((segs.op.array != 0).any()):
                raise ValueError("scangen: offsets= must all be 0 for an empty x")
            if aggs is not None and lib.nbytes(aggs):
                one = lib.empty((), self.dtype, op.device)
                self._empty_aggregates(kernel, aggs, lambda k: k.run_cuda(0, 0, 0, op.stream, 0, 0, None,
                                                                          lib.pointer(one), 1))
                lib.copy(aggs, one)
            return
        ws_bytes = kernel.workspace_bytes(lay.n) if lay.shape is None else kernel.shape_workspace_bytes(lay.shape)
        ws = _workspace(lib, op.device, op.stream, ws_bytes) if ws_bytes else 0
        kernel.run_cuda(op.pointer, out_ptr, lay.n, op.stream, ws, ws_bytes, lay.shape, agg, agg_count, seg,
                        seg_count, check, **({} if carry is None else {"carry": carry}))
        _arrays.hold_until_done(op)

    # ---- across processes (scangen.mpi, scangen.dask) ----

    def _part_aggregate(self, x, reverse: bool) -> bytes:
        """The aggregate of the 1-D array x (from its last element with reverse), as one element's bytes: the
        spec's reduce build, one read of x (the identity for an empty x)."""
        op = _arrays.operand(x, True)
        n = int(np.prod(op.shape, dtype=np.int64)) if op.shape else 1
        if n == 0:
            return self.identity.tobytes()
        if isinstance(op, Host):
            kernel = self._kernel_for("opencl").carry_variant(True, False, bool(reverse))
            a = np.ascontiguousarray(op.array)
            if a.dtype != self.input_dtype:
                self._check_dtype(a.dtype)
            return kernel.reduce_host(a.ctypes.data, n)
        if op.dtype != self.input_dtype:
            self._check_dtype(op.dtype)
        kernel = self._kernel_for("cuda").carry_variant(True, False, bool(reverse))
        lib = op.lib
        if self._layout(op, -1, bool(reverse), None)[0].copy:  # a strided view: its contiguous copy
            if op.kind not in ("torch", "cupy"):
                raise ValueError(f"scangen: this {op.kind} array is not contiguous: pass a contiguous copy")
            op.array = op.keep = lib.contiguous(op.array)
            op.pointer = lib.pointer(op.array)
        ws_bytes = kernel.workspace_bytes(n)
        ws = _workspace(lib, op.device, op.stream, ws_bytes) if ws_bytes else 0
        agg = kernel.reduce_cuda(op.pointer, n, op.stream, ws, ws_bytes)
        _arrays.hold_until_done(op)
        return agg

    def _from_carry(self, x, exclusive: bool, reverse: bool, carry: bytes):
        """The 1-D array x scanned from ``carry`` (one element's bytes, in place of init): the spec's
        running-total build, one read and one write of x."""
        op = _arrays.operand(x, True)
        if op.dtype != self.input_dtype:
            self._check_dtype(op.dtype)
        if isinstance(op, Host) and not op.shape:
            op = Host(op.array.reshape(1), op.kind, op.back, op.out_view)
        lay, _ = self._layout(op, -1, bool(reverse), None)
        if isinstance(op, Host):
            kernel = self._kernel_for("opencl").carry_variant(False, bool(exclusive), bool(reverse))
            return self._run_host(op, lay, None, kernel, carry=carry)
        kernel = self._kernel_for("cuda").carry_variant(False, bool(exclusive), bool(reverse))
        return self._run_cuda(op, lay, None, kernel, carry=carry)

    # ---- a tuple of arrays, one per field ----

    def _call_fields(self, parts, out, exclusive, init, axis, reverse, segments=None, check=True):
        """Struct elements as one array per field (SoA): read by the kernel one array per field (the spec's
        field-array form, `input = T1, T2, ...;`) where it has one, else packed into an array of structs;
        scanned, the output unpacked."""
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
            lengths.add(_fields_length(op.shape, axis))
        if len(lengths) > 1:
            raise ValueError(f"scangen: the arrays of a tuple must have one length; they have {sorted(lengths)}")
        n = lengths.pop()
        if reverse is None:
            reverse = self._reverse
        lay = _shape.Layout("flat", n, None, False, (n,), ())
        segs = None
        if segments is not None:
            packed = np.empty(n, self.input_dtype) if isinstance(ops[0], Host) else None
            _lay, segs = self._layout(Host(packed, "numpy") if packed is not None else
                                      Cuda(ops[0].kind, ops[0].lib, None, self.input_dtype, (n,), ops[0].device, 0,
                                           0), None, reverse, segments)
        out_leaves = None
        if out is not None:
            out_leaves = _flatten_fields(out, self.dtype, "out", self)
        if isinstance(ops[0], Host):
            kernel = self._variant(self._kernel_for("opencl"), exclusive, init, reverse, "flat", segs)
            results = self._fields_host(ops, lay, out_leaves, kernel, segs, check)
        else:
            kernel = self._variant(self._kernel_for("cuda"), exclusive, init, reverse, "flat", segs)
            results = self._fields_cuda(ops, lay, out_leaves, kernel, segs, check)
        if out is not None:
            return out
        if isinstance(parts, dict):
            return dict(zip(self.dtype.names, _mirror(self.dtype, iter(results))))
        return _mirror(self.dtype, iter(results))

    def _fields_host(self, ops, lay, out_leaves, kernel, segs, check):
        n = lay.n
        direct = kernel.fields() if segs is None else None  # the arrays as they are: no packing
        if direct is not None:
            ins = [np.ascontiguousarray(op.array.reshape(-1)) for op in ops]
            result = np.empty(n, self.dtype)
            if n:
                direct.run_host_fields([_core.data_pointer(a) for a in ins], _core.data_pointer(result), n)
        else:
            packed = np.empty(n, self.input_dtype)
            for op, (path, _dtype, _off) in zip(ops, leaves(self.input_dtype)):
                _field(packed, path)[...] = op.array.reshape(-1)
            result, _aggs = self._scan_host(packed, lay, None, kernel, segs, False, check)
        results = []
        for i, (path, dtype, _off) in enumerate(leaves(self.dtype)):
            field = _field(result, path)
            if out_leaves is None:
                results.append(ops[0].back(np.ascontiguousarray(field)))
            else:
                self._host_out(ops[0], out_leaves[i], (n,), dtype)[...] = field
        return results

    def _fields_cuda(self, ops, lay, out_leaves, kernel, segs, check):
        op, n = ops[0], lay.n
        if op.kind not in ("torch", "cupy"):
            raise TypeError(f"scangen: a tuple of {op.kind} arrays: struct scans take tuples of NumPy, PyTorch "
                            "or CuPy arrays")
        if op.device != 0:
            raise NotImplementedError(f"scangen: the CUDA runtime uses device 0; this array is on device {op.device}")
        lib, device = op.lib, op.device
        if n == 0:  # nothing to pack, launch or view
            return out_leaves or [lib.empty(0, dtype, device) for _path, dtype, _off in leaves(self.dtype)]
        in_size, out_size = self.input_dtype.itemsize, self.dtype.itemsize
        for part in ops:
            if part.device != device:
                raise ValueError(f"scangen: the arrays of a tuple must be on one device ({device}, {part.device})")
        result = lib.empty(n * out_size, np.dtype(np.uint8), device)
        direct = kernel.fields() if segs is None else None  # the arrays as they are: no packing
        if direct is not None:
            ws_bytes = direct.workspace_bytes(n)
            ws = _workspace(lib, device, op.stream, ws_bytes) if ws_bytes else 0
            direct.run_cuda_fields([part.pointer for part in ops], lib.pointer(result), n, op.stream, ws, ws_bytes)
            for part in ops:
                _arrays.hold_until_done(part)
        else:
            packed = lib.empty(n * in_size, np.dtype(np.uint8), device)
            for part, (_path, dtype, off) in zip(ops, leaves(self.input_dtype)):
                lib.copy(lib.field_view(packed, n, in_size, off, dtype), part.array.reshape(-1))
            packed_op = Cuda(op.kind, lib, packed, self.input_dtype, (n,), device, lib.pointer(packed), op.stream,
                             keep=packed)
            self._launch(kernel, packed_op, lay, lib.pointer(result), None, segs, check)
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


_scans: dict = {}


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
