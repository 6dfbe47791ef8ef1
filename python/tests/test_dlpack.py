"""Arrays of any library through DLPack and __cuda_array_interface__, without a GPU: producers on the
CPU run for real (the NumPy way); CUDA producers are stand-ins whose launches a stand-in kernel records
(pointers, stream), with the stand-in PyTorch of test_cuda_path allocating."""
import sys
import types

import numpy as np
import pytest

import scangen
from scangen import _arrays, _types
from test_cuda_path import STREAM, SUM_I32, FakeKernel, FakeTensor, fake_torch


class Namespace:
    """An array API namespace whose from_dlpack makes a Producer (or notes what it converted)."""

    def __init__(self, device):
        self.device = device

    def from_dlpack(self, a):
        return Producer(np.from_dlpack(a)) if self.device == 1 else ("converted", a)


class Producer:
    """An array library's array that only speaks DLPack: memory is a NumPy array, on 'device_type'."""

    def __init__(self, array, device_type=1):
        self.array, self.device_type, self.streams = array, device_type, []

    def __dlpack__(self, stream=None, **kwargs):
        self.streams.append(stream)
        self.kwargs = kwargs
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __array_namespace__(self):
        return Namespace(self.device_type)


def test_cpu_producer_goes_the_numpy_way(rng):
    gen, seed = rng
    x = gen.integers(-1000, 1000, size=3001, dtype=np.int32)
    got = scangen.cumsum(Producer(x))
    assert isinstance(got, Producer), type(got)
    assert np.array_equal(got.array, np.cumsum(x, dtype=np.int32)), f"seed {seed}"
    # Read-only memory (as JAX's is) is read, not written.
    ro = x.copy()
    ro.flags.writeable = False
    assert np.array_equal(scangen.cummax(Producer(ro)).array, np.maximum.accumulate(x)), f"seed {seed}"
    with pytest.raises(TypeError, match="out= is not supported"):
        scangen.cumsum(Producer(x), out=np.empty_like(x))


@pytest.fixture
def cuda(monkeypatch):
    """A stand-in torch (the allocator: no CuPy here) and kernel; their calls are recorded."""
    torch = fake_torch()
    waits = []
    torch.cuda.Event = lambda: types.SimpleNamespace(record=lambda s: waits.append(("record", s)),
                                                     query=lambda: waits.append("query") or True)
    torch.cuda.ExternalStream = lambda ptr, device=None: ("stream", ptr)
    torch.cuda.current_stream = lambda device=None: types.SimpleNamespace(
        cuda_stream=STREAM, wait_event=lambda e: waits.append("wait"))
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy fails: torch allocates
    k = FakeKernel()
    k.waits = waits
    monkeypatch.setattr(scangen.Scan, "_kernel_for", lambda self, backend: k if backend == "cuda" else None)
    return k


def test_cuda_producer_zero_copy_on_the_consumers_stream(cuda):
    x = Producer(np.arange(2000, dtype=np.int32), device_type=2)
    got = scangen.compile(SUM_I32)(x)
    assert x.streams == [STREAM]  # the stream the scan runs on, passed to __dlpack__
    assert any(held[1][1] is x for held in _arrays._held)  # x held until an event after the scan says done
    assert x.kwargs == {"max_version": (1, 0)}  # a versioned capsule asked for: it says whether it is read-only
    (in_ptr, out_ptr, n, stream, _ws, _ws_bytes, *_), = cuda.calls
    assert (in_ptr, n, stream) == (x.array.ctypes.data, 2000, STREAM)
    # The result: allocated by the allocating library, handed to the producer's from_dlpack.
    assert got[0] == "converted" and isinstance(got[1], FakeTensor) and got[1].data_ptr() == out_ptr


def test_cuda_producer_default_stream_and_refusals(cuda, monkeypatch):
    monkeypatch.setattr(sys.modules["torch"].cuda, "current_stream",
                        lambda device=None: types.SimpleNamespace(cuda_stream=0))
    x = Producer(np.arange(10, dtype=np.int32), device_type=2)
    scangen.cumsum(x)
    assert x.streams == [1]  # DLPack's legacy default stream: 0 is not a stream there
    with pytest.raises(TypeError, match="out= is not supported"):
        scangen.cumsum(x, out=FakeTensor(np.zeros(10, np.int32)))
    with pytest.raises(ValueError, match="not contiguous"):
        scangen.cumsum(Producer(np.arange(20, dtype=np.int32)[::2], device_type=2))
    with pytest.raises(TypeError, match="takes int32 elements .* float32"):
        scangen.compile(SUM_I32)(Producer(np.zeros(4, np.float32), device_type=2))
    with pytest.raises(TypeError, match="DLPack device type 4"):
        scangen.cumsum(Producer(np.zeros(4, np.int32), device_type=4))
    assert len(cuda.calls) == 1


class CaiArray:
    """An array with only __cuda_array_interface__ (as Numba's): memory is a NumPy array."""

    def __init__(self, array, stream=None, read_only=False):
        self.array = array
        self.__cuda_array_interface__ = {
            "shape": array.shape, "typestr": array.dtype.str, "data": (array.ctypes.data, read_only),
            "strides": None if array.flags.c_contiguous else array.strides, "version": 3, "stream": stream}


def test_cuda_array_interface(cuda):
    x = CaiArray(np.arange(3000, dtype=np.int32), stream=7)
    got = scangen.cumsum(x)
    assert isinstance(got, FakeTensor)  # no kind of its own to return: the allocating library's
    (in_ptr, out_ptr, n, stream, _ws, _ws_bytes, *_), = cuda.calls
    assert (in_ptr, out_ptr, n, stream) == (x.array.ctypes.data, got.data_ptr(), 3000, STREAM)
    assert cuda.waits[:2] == [("record", ("stream", 7)), "wait"]  # the scan's stream waited for the producer's
    assert cuda.waits[2][0] == "record"  # then the producer's memory is held until an event after the scan
    out = CaiArray(np.zeros(3000, np.int32))
    assert scangen.cumsum(x, out=out) is out and cuda.calls[-1][1] == out.array.ctypes.data
    with pytest.raises(ValueError, match="overlaps"):
        scangen.cumsum(x, out=x)
    with pytest.raises(ValueError, match="read-only"):
        scangen.cumsum(x, out=CaiArray(np.zeros(3000, np.int32), read_only=True))
    with pytest.raises(ValueError, match="of dtype int64"):
        scangen.cumsum(x, out=CaiArray(np.zeros(3000, np.int64)))
    with pytest.raises(ValueError, match="not contiguous"):
        scangen.cumsum(CaiArray(np.arange(20, dtype=np.int32)[::2]))


def test_out_overlapping_x_goes_through_a_temporary(cuda):
    FakeTensor.copy_ = lambda self, src: self.array.__setitem__(Ellipsis, src.array)
    x = FakeTensor(np.arange(1, 11, dtype=np.int32))
    assert scangen.cumsum(x, out=x) is x
    (in_ptr, out_ptr, *_), = cuda.calls
    assert in_ptr == x.data_ptr() and out_ptr != x.data_ptr()
    # the temporary (poisoned: the stand-in kernel writes nothing), copied in
    assert x.array.view(np.uint32).tolist() == [0xA5A5A5A5] * 10


@pytest.mark.parametrize("code,bits,lanes,dtype", [
    (0, 8, 1, np.int8), (0, 64, 1, np.int64), (1, 16, 1, np.uint16), (2, 16, 1, np.float16),
    (2, 64, 1, np.float64), (6, 8, 1, np.bool_)])
def test_dlpack_dtypes(code, bits, lanes, dtype):
    assert _types.dtype_from_dlpack(code, bits, lanes, "x") == np.dtype(dtype)


@pytest.mark.parametrize("code,bits,lanes,what", [(4, 16, 1, "bfloat"), (2, 32, 4, "4 lanes"),
                                                   (5, 64, 1, "type code 5"), (0, 128, 1, "128 bits")])
def test_dlpack_dtypes_without_a_scangen_type(code, bits, lanes, what):
    with pytest.raises(TypeError, match=what):
        _types.dtype_from_dlpack(code, bits, lanes, "x")


def test_capsules():
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    ptr, dev, dev_id, shape, strides, dtype, read_only = scangen._core.dlpack_view(a[:, 1:].__dlpack__())
    assert (ptr, dev, dev_id, shape, dtype, read_only) == (a.ctypes.data + 2, _arrays.DL_CPU, 0, (3, 3),
                                                          (2, 16, 1), False)
    assert strides == (4, 1)
    with pytest.raises(TypeError, match="capsule"):
        scangen._core.dlpack_view(a)
