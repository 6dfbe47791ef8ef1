"""The CUDA path (PyTorch tensors) without a GPU: a stand-in torch module and a
stand-in kernel record what would be launched: pointers, length, stream and
workspace, and the checks before it."""
import pathlib
import sys
import types

import numpy as np
import pytest

import scangen

SUM_I32 = "scan add_i32 { type = i32; op = add; level = device; }"  # the text cumsum compiles
STREAM = 0x5151
ROOT = pathlib.Path(__file__).resolve().parents[2]


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


# One object per dtype, as torch's are (torch.int32 is torch.int32).
DTYPES = {name: FakeDtype(name) for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                             "uint64", "float16", "float32", "float64", "bool")}


class FakeTensor:
    """Enough of a CUDA torch.Tensor: a NumPy array that stands for device memory."""

    def __init__(self, array, device=0, contiguous=None):
        contiguous = array.flags.c_contiguous if contiguous is None else contiguous
        self.array, self.is_cuda, self._contiguous = array, device is not None, contiguous
        self.device = types.SimpleNamespace(index=device, type="cuda" if device is not None else "cpu")
        self.dtype = DTYPES.get(array.dtype.name) or FakeDtype(array.dtype.name)
        self.shape, self.ndim = array.shape, array.ndim

    def reshape(self, *shape):
        return FakeTensor(self.array.reshape(*shape), self.device.index, self._contiguous)

    def contiguous(self):
        return self if self._contiguous else FakeTensor(self.array.copy(), self.device.index)

    def is_contiguous(self):
        return self._contiguous

    def get_device(self):
        return self.device.index if self.is_cuda else -1

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def copy_(self, src):
        self.array[...] = src.array

    def __getitem__(self, index):
        return self.array[index]

    def __ne__(self, other):
        return self.array != (other.array if isinstance(other, FakeTensor) else other)

    def data_ptr(self):
        return self.array.ctypes.data

    def detach(self):
        return self

    def numpy(self):
        assert not self.is_cuda
        return self.array

    def cpu(self):
        return FakeTensor(self.array.copy(), None)


FakeTensor.__module__ = "torch"


def poisoned(shape, dtype):
    """Uninitialised memory as a GPU's may be: every byte 0xA5."""
    a = np.empty(shape, dtype)
    a.reshape(-1).view(np.uint8)[:] = 0xA5
    return a


def fake_torch():
    torch = types.ModuleType("torch")
    torch.Tensor = FakeTensor
    for name, dtype in DTYPES.items():
        setattr(torch, name, dtype)
    torch.empty = lambda n, dtype, device: FakeTensor(poisoned(n, np.dtype(dtype.name)), int(device.split(":")[1]))
    torch.from_numpy = lambda a: FakeTensor(a, device=None)
    torch.device = lambda name: name
    torch.cuda = types.SimpleNamespace(current_stream=lambda device: types.SimpleNamespace(cuda_stream=STREAM))
    return torch


class FakeKernel:
    mode = "inclusive"

    def __init__(self):
        self.calls, self.variants = [], []

    def variant(self, *args):
        self.variants.append(args)
        return self

    def workspace_bytes(self, n):
        return 256 if n > 1000 else 0

    def run_cuda(self, *args):
        self.calls.append(args)


@pytest.fixture
def kernel(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake_torch())
    k = FakeKernel()
    monkeypatch.setattr(scangen.Scan, "_kernel_for", lambda self, backend: k if backend == "cuda" else None)
    return k


def test_launch_arguments(kernel):
    scan = scangen.compile(SUM_I32)
    x = FakeTensor(np.arange(2000, dtype=np.int32))
    out = scan(x)
    assert isinstance(out, FakeTensor) and out.shape == (2000,) and out.dtype.name == "int32"
    (in_ptr, out_ptr, n, stream, ws, ws_bytes, *_rest), = kernel.calls
    assert (in_ptr, out_ptr, n, stream, ws_bytes) == (x.data_ptr(), out.data_ptr(), 2000, STREAM, 256)
    assert ws not in (0, in_ptr, out_ptr)
    # Small: no workspace; exclusive and init reach the variant.
    scan(FakeTensor(np.arange(10, dtype=np.int32)), exclusive=True, init=5)
    assert kernel.calls[1][4:6] == (0, 0)
    assert kernel.variants[-1][:2] == (True, np.int32(5).tobytes())


def test_out_and_copies(kernel):
    scan = scangen.compile(SUM_I32)
    x = FakeTensor(np.arange(20, dtype=np.int32)[::2])
    out = FakeTensor(np.zeros(10, np.int32))
    assert scan(x, out=out) is out
    assert kernel.calls[0][0] != x.data_ptr()  # the contiguous copy, not the strided original
    assert kernel.calls[0][1] == out.data_ptr()
    with pytest.raises(ValueError, match="out must be"):
        scan(x, out=FakeTensor(np.zeros(10, np.int64)))
    with pytest.raises(ValueError, match="out must be"):
        scan(x, out=FakeTensor(np.zeros(10, np.int32), contiguous=False))
    assert scan(FakeTensor(np.zeros(0, np.int32))).shape == (0,)
    assert len(kernel.calls) == 1


def test_refusals(kernel):
    scan = scangen.compile(SUM_I32)
    with pytest.raises(TypeError, match="takes int32 elements"):
        scan(FakeTensor(np.arange(10, dtype=np.int64)))
    with pytest.raises(NotImplementedError, match="device 0"):
        scan(FakeTensor(np.arange(10, dtype=np.int32), device=1))
    affine = scangen.compile(ROOT / "examples" / "affine.scan")
    with pytest.raises(TypeError, match="takes .* elements .* a tuple of arrays, one per field"):
        affine(FakeTensor(np.zeros(4, np.float32)))
    assert kernel.calls == []


def test_cpu_tensor_goes_the_numpy_way(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", fake_torch())
    x = FakeTensor(np.arange(1, 6, dtype=np.int32), device=None)
    got = scangen.cumsum(x)
    assert isinstance(got, FakeTensor) and not got.is_cuda
    assert got.array.tolist() == [1, 3, 6, 10, 15]
    out = FakeTensor(np.zeros(5, np.int32), device=None)
    assert scangen.cumsum(x, out=out) is out and out.array.tolist() == [1, 3, 6, 10, 15]
    with pytest.raises(TypeError, match="out must be a torch"):
        scangen.cumsum(x, out=np.zeros(5, np.int32))
