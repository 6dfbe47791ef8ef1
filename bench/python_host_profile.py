"""The host time of the Python layer of a cached scan call, without a GPU: the CUDA paths (a PyTorch
tensor, a DLPack producer, a __cuda_array_interface__ array) through the stand-in torch module and kernel
of python/tests (the launch does nothing, so this is what the package adds to Kernel.run_cuda), and the
NumPy path on the OpenCL device (PoCL here: mostly the OpenCL copies and launch). bench/python_bench.py
measures the real thing on a GPU (scripts/gpu-check python).

    build/venv/bin/python bench/python_host_profile.py [--profile]   # --profile: cProfile's top entries
"""
import argparse
import pathlib
import sys
import timeit
import types

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "tests"))

import scangen  # noqa: E402
from test_cuda_path import FakeKernel, FakeTensor, fake_torch  # noqa: E402

N = 1 << 10


class Tensor(FakeTensor):
    """The stand-in tensor with a cheap data_ptr and torch's dtype object (as a real tensor has)."""

    def __init__(self, array):
        super().__init__(array)
        self._ptr = array.__array_interface__["data"][0]
        self.dtype = getattr(sys.modules["torch"], array.dtype.name)

    def data_ptr(self):
        return self._ptr


Tensor.__module__ = "torch"


class Cai:
    def __init__(self, array):
        self.array = array
        self.__cuda_array_interface__ = {"shape": array.shape, "typestr": array.dtype.str,
                                         "data": (array.ctypes.data, False), "strides": None, "version": 3}


def per_call_us(fn, number=2000):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    scan = scangen.compile("scan add_i32 { type = i32; op = add; level = device; }")
    host_x, host_out = np.arange(N, dtype=np.int32), np.empty(N, np.int32)
    scan(host_x, out=host_out)
    rows = [("NumPy on OpenCL (PoCL): scan(x, out=out)", per_call_us(lambda: scan(host_x, out=host_out), 200))]

    torch = sys.modules["torch"] = fake_torch()
    torch.cuda.Event = lambda: types.SimpleNamespace(record=lambda stream=None: None, query=lambda: True)
    kernel = FakeKernel()
    kernel.run_cuda = lambda *a: None
    kernel.shape_workspace_bytes = lambda shape: 0
    scangen.Scan._kernel_for = lambda self, backend: kernel
    x, out = Tensor(np.arange(N, dtype=np.int32)), Tensor(np.zeros(N, np.int32))
    cai, cai_out = Cai(np.arange(N, dtype=np.int32)), Cai(np.zeros(N, np.int32))
    m, m_out = Tensor(np.arange(64 * 64, dtype=np.int32).reshape(64, 64)), Tensor(np.zeros((64, 64), np.int32))
    rows += [("torch (stand-in): scan(x, out=out)", per_call_us(lambda: scan(x, out=out))),
             ("torch (stand-in): scan(x)", per_call_us(lambda: scan(x))),
             ("torch (stand-in): scangen.cumsum(x, out=out)", per_call_us(lambda: scangen.cumsum(x, out=out))),
             ("torch (stand-in): scan(m, out=out, axis=0), 64 x 64", per_call_us(lambda: scan(m, out=m_out, axis=0))),
             ("__cuda_array_interface__: scan(x, out=out)", per_call_us(lambda: scan(cai, out=cai_out)))]
    for what, t in rows:
        print(f"{what:60s} {t:8.2f} us")
    if args.profile:
        import cProfile
        import pstats
        profile = cProfile.Profile()
        profile.runcall(lambda: [scan(x, out=out) for _ in range(20000)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
