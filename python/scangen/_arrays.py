"""The arrays scangen takes, as it sees them.

Every array passed to a scan becomes an *operand*:

- :class:`Host`: a NumPy array (NumPy itself; a PyTorch CPU tensor; any
  DLPack producer whose memory is on the CPU, through ``np.from_dlpack``),
  run on the OpenCL device, and a way back to the caller's kind of array;
- :class:`Cuda`: a pointer to CUDA device memory, the stream to run on, and
  the library (:class:`Library`) that allocates results and scratch memory
  of the same kind: PyTorch and CuPy natively; any other DLPack producer (JAX,
  ...) through ``__dlpack__(stream=...)``; objects with only
  ``__cuda_array_interface__`` (Numba, ...) through it.

Zero-copy throughout for contiguous CUDA memory. Non-contiguous PyTorch and
CuPy arrays are copied by their library (``.contiguous()``,
``ascontiguousarray``); non-contiguous arrays of other producers are refused
(scangen does not copy memory it cannot allocate the same kind of).
"""

from __future__ import annotations

import collections
import sys
import threading

import numpy as np

from . import _core
from ._types import dtype_from_dlpack

# DLPack's device types (dlpack.h).
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13

_TORCH_DTYPES = {
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "bool": np.bool_,
}


_modules: dict = {}


def _module_of(x) -> str:
    """The top-level module of x's type (cached per type)."""
    t = type(x)
    module = _modules.get(t)
    if module is None:
        module = _modules[t] = t.__module__.split(".")[0]
    return module


def dlpack_stream(stream: int) -> int:
    """The ``stream`` argument of ``__dlpack__`` for a CUstream handle: the default stream is 1 (legacy), not 0."""
    return 1 if stream == 0 else stream


# ---- libraries: who allocates results and scratch memory ----------------------

class Library:
    """What a scan needs of an array library on CUDA: allocate, view, copy, pointers, its current stream."""

    name = "?"

    def is_array(self, a) -> bool: ...
    def dtype(self, a) -> np.dtype: ...
    def shape(self, a) -> tuple: ...
    def is_contiguous(self, a) -> bool: ...
    def contiguous(self, a): ...
    def strides(self, a, itemsize: int):
        """``a``'s strides in elements, or None where they are not whole, non-negative numbers of them or an
        element repeats (a broadcast view: stride 0 along an axis of more than one element)."""
    def device_index(self, a) -> int: ...
    def pointer(self, a) -> int: ...
    def stream(self, device: int) -> int: ...
    def empty(self, n: int, dtype: np.dtype, device: int): ...
    def field_view(self, buf, n: int, itemsize: int, offset: int, dtype: np.dtype): ...
    def copy(self, dst, src) -> None: ...
    def wait_for(self, stream: int, device: int) -> None:
        """Order the current stream after the work queued so far on ``stream`` (a CUstream handle)."""
    def done_marker(self, device: int):
        """A function that says whether the work queued so far on the current stream is done."""

    def nbytes(self, a) -> int:
        n = 1
        for d in self.shape(a):
            n *= d
        return n * self.dtype(a).itemsize


class Torch(Library):
    """PyTorch CUDA tensors, on ``torch.cuda.current_stream(device)``, allocated by its caching allocator."""

    name = "PyTorch"
    module_name = "torch"

    def __init__(self):
        import torch
        self.torch = self.module = torch
        self.np_dtypes = {getattr(torch, k): np.dtype(v) for k, v in _TORCH_DTYPES.items() if hasattr(torch, k)}
        self.torch_dtypes = {v: k for k, v in self.np_dtypes.items()}
        self.devices = {}
        # The current stream's raw handle without a Stream object (what Triton's launcher uses), where there.
        self._raw_stream = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)

    def is_array(self, a):
        return isinstance(a, self.torch.Tensor) and a.is_cuda

    def dtype(self, a):
        dtype = self.np_dtypes.get(a.dtype)
        return dtype if dtype is not None else torch_dtype(a)

    def shape(self, a):
        return tuple(a.shape)

    def is_contiguous(self, a):
        return a.is_contiguous()

    def contiguous(self, a):
        return a.contiguous()

    def strides(self, a, itemsize):
        strides = a.stride()
        return strides if all(st > 0 or (st == 0 and d <= 1) for st, d in zip(strides, a.shape)) else None

    def device_index(self, a):
        return a.device.index

    def pointer(self, a):
        return a.data_ptr()

    def stream(self, device):
        if self._raw_stream is not None:
            return self._raw_stream(device)
        return self.torch.cuda.current_stream(device).cuda_stream

    def empty(self, n, dtype, device):
        where = self.devices.get(device)
        if where is None:
            where = self.devices[device] = self.torch.device(f"cuda:{device}")
        return self.torch.empty(n, dtype=self.torch_dtypes[dtype], device=where)

    def field_view(self, buf, n, itemsize, offset, dtype):
        # Bytes [offset, offset + size) of each element, viewed as the field's type (natural alignment: the
        # offset and the element size are multiples of the field's size).
        return buf.view(n, itemsize)[:, offset:offset + dtype.itemsize].view(self.torch_dtypes[dtype])[:, 0]

    def copy(self, dst, src):
        dst.copy_(src)

    def wait_for(self, stream, device):
        event = self.torch.cuda.Event()
        event.record(self.torch.cuda.ExternalStream(stream, device=device))
        self.torch.cuda.current_stream(device).wait_event(event)

    def done_marker(self, device):
        event = self.torch.cuda.Event()
        event.record(self.torch.cuda.current_stream(device))
        return event.query


class Cupy(Library):
    """CuPy arrays, on ``cupy.cuda.get_current_stream()``, allocated by its memory pool."""

    name = "CuPy"
    module_name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = self.module = cupy

    def is_array(self, a):
        return isinstance(a, self.cupy.ndarray)

    def dtype(self, a):
        return np.dtype(a.dtype)

    def shape(self, a):
        return tuple(a.shape)

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def contiguous(self, a):
        return self.cupy.ascontiguousarray(a)

    def strides(self, a, itemsize):
        return _element_strides(a.strides, itemsize, a.shape)

    def device_index(self, a):
        return a.device.id

    def pointer(self, a):
        return a.data.ptr

    def stream(self, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.cuda.get_current_stream().ptr

    def empty(self, n, dtype, device):
        with self.cupy.cuda.Device(device):
            return self.cupy.empty(n, dtype=dtype)

    def field_view(self, buf, n, itemsize, offset, dtype):
        return self.cupy.ndarray((n,), dtype=dtype, memptr=buf.data + offset, strides=(itemsize,))

    def copy(self, dst, src):
        dst[...] = src

    def wait_for(self, stream, device):
        with self.cupy.cuda.Device(device):
            event = self.cupy.cuda.Event()
            event.record(self.cupy.cuda.ExternalStream(stream))
            self.cupy.cuda.get_current_stream().wait_event(event)

    def done_marker(self, device):
        with self.cupy.cuda.Device(device):
            event = self.cupy.cuda.Event(disable_timing=True)
            event.record()
        return lambda: event.done


_libraries: dict = {}


# Libraries whose import failed, and the sys.modules entry then: not imported again on every call (a
# failed import searches the whole path) until that entry changes.
_missing: dict = {}


def library(cls):
    """The Library of ``cls``, made once per imported module (a module replaced in sys.modules: anew)."""
    lib = _libraries.get(cls)
    module = sys.modules.get(cls.module_name)
    if lib is None or lib.module is not module:
        if cls in _missing and _missing[cls] is module:
            raise ImportError(f"{cls.module_name} is not installed")
        try:
            lib = _libraries[cls] = cls()
        except ImportError:
            _missing[cls] = module
            raise
    return lib


def installed(cls):
    """The Library of ``cls``, or None where its module is not installed (known without raising, once
    its import failed: no exception on every call)."""
    lib = _libraries.get(cls)
    module = sys.modules.get(cls.module_name)
    if lib is not None and lib.module is module:
        return lib
    if cls in _missing and _missing[cls] is module:
        return None
    try:
        return library(cls)
    except ImportError:
        return None


def allocator() -> Library:
    """A library that allocates CUDA memory for producers that cannot (CuPy, else PyTorch)."""
    for cls in (Cupy, Torch):
        lib = installed(cls)
        if lib is not None:
            return lib
    raise TypeError("scangen: scanning this CUDA array needs CuPy or PyTorch to allocate the result and the "
                    "workspace; neither is installed")


def torch_dtype(t) -> np.dtype:
    name = str(t.dtype).replace("torch.", "")
    if name not in _TORCH_DTYPES:
        raise TypeError(f"scangen: torch dtype {t.dtype} has no scangen type (int8..int64, uint8..uint64, "
                        "float16/32/64, bool)")
    return np.dtype(_TORCH_DTYPES[name])


# ---- operands ----------------------------------------------------------------

class Host:
    """A NumPy array to scan on the OpenCL device; ``back`` turns a NumPy result into the caller's kind."""

    def __init__(self, array: np.ndarray, kind: str, back=None, out_view=None):
        self.array, self.kind = array, kind
        self.dtype, self.shape = array.dtype, array.shape
        self.back = back or (lambda r: r)
        # out= of the caller's kind as a writable NumPy array (None: out= is refused for this kind).
        self.out_view = out_view


def _same(r):
    return r


class Cuda:
    """CUDA memory: ``pointer`` (of C-contiguous elements), ``dtype``, ``shape``, ``device``, ``stream`` (a
    CUstream handle), ``lib`` (allocates results), ``back`` (a result of ``lib`` into the caller's kind)."""

    __slots__ = ("kind", "lib", "array", "strides", "dtype", "shape", "device", "pointer", "stream", "back", "keep",
                 "out_ok", "copied", "read_only", "foreign", "native")

    def __init__(self, kind, lib, array, dtype, shape, device, pointer, stream, back=None, keep=None,
                 out_ok=True, copied=False, read_only=False, strides=None):
        self.kind, self.lib, self.array = kind, lib, array
        self.strides = strides  # in elements, of a strided array taken as it is; None: C-contiguous
        self.dtype, self.shape, self.device, self.pointer, self.stream = dtype, shape, device, pointer, stream
        self.back = back or _same
        self.keep = keep  # what owns the memory (a DLPack capsule, a contiguous copy) while the scan is queued
        self.out_ok = out_ok  # whether out= may be an array of this kind
        self.copied = copied  # a contiguous copy of a strided array (refused as out=)
        self.read_only = read_only
        # Memory of a producer whose allocator does not order its reuse after this scan's stream (DLPack,
        # __cuda_array_interface__): held until the scan is done (PyTorch and CuPy order it themselves).
        self.foreign = kind not in ("torch", "cupy")
        self.native = not self.foreign

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def _numpy_out(o):
    return o if isinstance(o, np.ndarray) else None


def operand(x, strided=False):
    """The operand of ``x``, or a TypeError naming what scangen takes. ``strided``: a strided CUDA array
    is taken as it is, its strides (in elements) in ``strides`` (else copied to C order, or refused)."""
    if type(x) is np.ndarray:
        return Host(x, "numpy", out_view=_numpy_out)
    if isinstance(x, np.ndarray):
        return Host(x, "numpy", out_view=_numpy_out)
    module = _module_of(x)
    if module == "torch":
        return _torch_operand(x, strided)
    if module == "cupy":
        return _native(library(Cupy), x, "cupy", strided)
    if hasattr(x, "__dlpack_device__") and hasattr(x, "__dlpack__"):
        return _dlpack_operand(x, strided)
    if hasattr(x, "__cuda_array_interface__"):
        return _cai_operand(x, strided)
    raise TypeError(f"scangen: expected a NumPy array, a PyTorch tensor, a CuPy array or another array with "
                    f"__dlpack__ or __cuda_array_interface__, not {type(x).__name__}")


def _torch_operand(x, strided=False):
    if x.is_cuda:
        return _native(library(Torch), x, "torch", strided)
    if x.device.type != "cpu":
        raise TypeError(f"scangen: a PyTorch tensor on '{x.device}': scangen takes CUDA and CPU tensors")
    import torch
    torch_dtype(x)
    host = x.detach().numpy()  # the same memory (a CPU tensor is a NumPy array in all but name)

    def out_view(o):
        if not isinstance(o, torch.Tensor) or o.device.type != "cpu":
            return None
        return o.detach().numpy()

    return Host(host, "torch (CPU)", back=torch.from_numpy, out_view=out_view)


def _native(lib, x, kind, strided=False):
    """A PyTorch or CuPy CUDA array: its pointer and its library's current stream (the stream the DLPack
    protocol would pick; without its round trip). A strided array is copied by its library first, unless
    ``strided`` and its strides are whole, non-negative numbers of elements."""
    dtype = lib.dtype(x)
    strides = None
    if lib.is_contiguous(x):
        a = x
    else:
        strides = lib.strides(x, dtype.itemsize) if strided else None
        a = x if strides is not None else lib.contiguous(x)
    device = lib.device_index(a)
    return Cuda(kind, lib, a, dtype, lib.shape(a), device, lib.pointer(a), lib.stream(device), keep=a,
                copied=a is not x, strides=strides)


def _namespace(x):
    get = getattr(x, "__array_namespace__", None)
    try:
        return get() if get else None
    except Exception:  # an array API namespace that is not there: the result stays of the allocator's kind
        return None


def _dlpack_operand(x, strided=False):
    device_type, device_id = x.__dlpack_device__()
    what = f"a {type(x).__module__}.{type(x).__name__}"
    ns = _namespace(x)
    if device_type == DL_CPU:
        host = np.from_dlpack(x)
        back = ns.from_dlpack if ns is not None and hasattr(ns, "from_dlpack") else None
        return Host(host, f"{_module_of(x)} (CPU)", back=back)
    if device_type not in (DL_CUDA, DL_CUDA_MANAGED):
        raise TypeError(f"scangen: {what} on DLPack device type {device_type}; scangen takes CUDA (2) and CPU (1) "
                        "memory")
    # The consumer picks the stream and the producer orders its work before it: run on the allocating
    # library's current stream, so that the result and the workspace are ordered with the scan too.
    lib = allocator()
    stream = lib.stream(device_id)
    try:  # DLPack 1.x (a versioned capsule, which says whether the memory is read-only), else 0.x
        capsule = x.__dlpack__(stream=dlpack_stream(stream), max_version=(1, 0))
    except TypeError:
        capsule = x.__dlpack__(stream=dlpack_stream(stream))
    ptr, _dev_type, dev_id, shape, strides, (code, bits, lanes), read_only = _core.dlpack_view(capsule)
    dtype = dtype_from_dlpack(code, bits, lanes, what)
    strides = _taken_strides(shape, strides, 1, what, strided)
    back = (ns.from_dlpack if ns is not None and hasattr(ns, "from_dlpack") else None)
    return Cuda(_module_of(x), lib, x, dtype, tuple(shape), dev_id, ptr, stream, back=back, keep=capsule,
                out_ok=False, read_only=read_only, strides=strides)


# __cuda_array_interface__'s typestr -> its NumPy dtype (made once: parsing it costs more than the look-up).
_typestr_dtypes: dict = {}


def _cai_operand(x, strided=False):
    cai = x.__cuda_array_interface__
    what = f"a {type(x).__module__}.{type(x).__name__}"
    typestr = cai["typestr"]
    dtype = _typestr_dtypes.get(typestr)
    if dtype is None:
        dtype = np.dtype(typestr)
        if len(_typestr_dtypes) < 256:
            _typestr_dtypes[typestr] = dtype
    if dtype.byteorder == ">":
        raise TypeError(f"scangen: {what} is big-endian ({cai['typestr']})")
    shape = tuple(cai["shape"])
    strides = _taken_strides(shape, cai.get("strides"), dtype.itemsize, what, strided)
    lib = allocator()
    # The scan runs on the allocating library's current stream. Version 3's "stream" is where the producer
    # queued its work on the array (1, 2: the legacy and per-thread default streams; None or absent: nothing
    # to wait for): the scan's stream waits for it, through an event.
    device = _cai_device(cai["data"][0])
    stream = lib.stream(device)
    producer = cai.get("stream")
    if producer is not None and producer != stream:
        lib.wait_for(producer, device)
    return Cuda(_module_of(x), lib, x, dtype, shape, device, cai["data"][0], stream, read_only=cai["data"][1],
                strides=strides)


def _taken_strides(shape, strides, unit, what, strided):
    """The strides (in elements) of a foreign array that is not C-contiguous, where ``strided`` takes them;
    None for C order; else the array is refused (scangen cannot copy memory it cannot allocate the kind of)."""
    if strided and strides is not None and not _c_order(shape, strides, unit):
        taken = _element_strides(strides, unit, shape)
        if taken is not None:
            return taken
    _check_c_order(shape, strides, unit, what)
    return None


def _element_strides(strides, itemsize, shape):
    """Byte strides in elements, or None where they are not whole, non-negative numbers of them or an element
    repeats (stride 0 along an axis of more than one element: a broadcast view)."""
    if any(st < 0 or st % itemsize or (st == 0 and d > 1) for st, d in zip(strides, shape)):
        return None
    return tuple(st // itemsize for st in strides)


def _cai_device(ptr):
    """The device of a pointer (0 where that cannot be asked: the runtime uses device 0)."""
    try:
        lib = installed(Cupy) if ptr else None  # no CuPy (known without an exception): device 0
        return lib.cupy.cuda.runtime.pointerGetAttributes(ptr).device if lib is not None else 0
    except Exception:  # CuPy that cannot start, or a pointer it does not know: device 0 is the one checked
        return 0


def _c_order(shape, strides, unit):
    if strides is None:
        return True
    expected = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != expected * unit:
            return False
        expected *= d
    return True


def _check_c_order(shape, strides, unit, what):
    """Refuse memory that is not C-contiguous (strides in units of ``unit`` bytes; None: C order)."""
    if not _c_order(shape, strides, unit):
        raise ValueError(f"scangen: {what} is not contiguous (shape {tuple(shape)}, strides {tuple(strides)}); "
                         "scangen takes C-contiguous memory from it: pass a contiguous copy")


# (library, device, stream) -> a workspace of that library on that stream, grown on demand: calls on one
# stream run one after the other on the GPU, so they share it; calls on two streams never do.
_workspaces: dict = {}


def workspace(lib, device, stream, size) -> int:
    """The pointer of a workspace of at least ``size`` bytes for a launch on ``stream``."""
    key = (lib, device, stream)
    held = _workspaces.get(key)
    if held is None or held[1] < size:
        if held is None and len(_workspaces) >= 64:  # streams come and go: keep the latest few
            _workspaces.clear()
        buf = lib.empty(max(size, 2 * held[1] if held else 0), np.dtype(np.uint8), device)
        held = _workspaces[key] = (lib.pointer(buf), lib.nbytes(buf), buf)
    return held[0]


_held: collections.deque = collections.deque()
_held_lock = threading.Lock()


def hold_until_done(op: Cuda) -> None:
    """Keep what owns a foreign operand's memory (its DLPack capsule, the array) alive until the work queued
    on the scan's stream is done: the producer then cannot free it and hand it to other work while the scan
    still reads it. Released by later calls, oldest first, once their events say done."""
    if not op.foreign:
        return
    done = op.lib.done_marker(op.device)
    with _held_lock:
        while _held and _held[0][0]():
            _held.popleft()
        _held.append((done, (op.keep, op.array)))
