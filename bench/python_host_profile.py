"""The host time of the Python layer of a cached scan call, without a GPU: the CUDA paths (a PyTorch
tensor, a DLPack producer, a __cuda_array_interface__ array) through the stand-in torch module and kernel
of python/tests (the launch does nothing, so this is what the package adds to Kernel.run_cuda), and the
NumPy path on the OpenCL device (PoCL here: mostly the OpenCL copies and launch). Each row twice: the
general path (scangen._fast.enabled = False) and the fast path of cached calls (scangen/_fast.py), as the
median of many calls timed one by one (python_bench.py's host metric), with the number of tensor
attribute and method calls per call (each a call into PyTorch on a real tensor, cheap on the stand-in).
bench/python_bench.py measures the real thing on a GPU (scripts/gpu-check python).

    build/venv/bin/python bench/python_host_profile.py [--profile]   # --profile: cProfile's top entries
"""
import argparse
import pathlib
import statistics
import sys
import time
import types

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "tests"))

import scangen  # noqa: E402

try:
    from scangen import _fast
except ImportError:  # a package from before the fast path: both columns time its one path
    _fast = types.SimpleNamespace(enabled=True)
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


def median_us(fn, calls=20000):
    """The median of ``calls`` timed calls of ``fn`` (``time.perf_counter_ns`` around each, after 500 warm-up
    calls), in µs: python_bench.py's host metric."""
    for _ in range(500):
        fn()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000.0


# What a real tensor's attributes and methods are: each costs a call into PyTorch (about 0.05 to 0.3 µs
# each on a real tensor, far more than the stand-in's), so their count per call is reported too.
TENSOR_API = {"dtype", "shape", "is_cuda", "is_contiguous", "data_ptr", "device", "get_device", "stride"}


class Counted(Tensor):
    accesses = 0

    def get_device(self):  # without reading the counted attributes itself
        return object.__getattribute__(self, "__dict__")["device"].index

    def __getattribute__(self, name):
        if name in TENSOR_API:
            Counted.accesses += 1
        return super().__getattribute__(name)


Counted.__module__ = "torch"


class HostStub:
    """A variant whose run_host does nothing."""

    def __init__(self, kernel):
        self.kernel = kernel

    def run_host(self, *args):
        return None


def accesses_per_call(fn, calls=100):
    fn()
    Counted.accesses = 0
    for _ in range(calls):
        fn()
    return Counted.accesses / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--calls", type=int, default=20000, help="timed calls per row (median)")
    args = parser.parse_args()
    scan = scangen.compile("scan add_i32 { type = i32; op = add; level = device; }")
    host_x, host_out = np.arange(N, dtype=np.int32), np.empty(N, np.int32)
    scan(host_x, out=host_out)
    print(f"N = {N}, int32; the median of {args.calls} calls (NumPy rows: of {args.calls // 10}); "
          "general: scangen._fast.enabled = False")
    print(f"{'':56s} {'general':>10s} {'fast':>10s}   tensor API calls (general, fast)")
    for what, fn in (("NumPy on OpenCL (PoCL): scan(x, out=out)", lambda: scan(host_x, out=host_out)),
                     ("NumPy on OpenCL (PoCL): scangen.cumsum(x, out=out)",
                      lambda: scangen.cumsum(host_x, out=host_out))):
        t = [median_us(fn, args.calls // 10) for _fast.enabled in (False, True)]
        print(f"{what:56s} {t[0]:7.2f} us {t[1]:7.2f} us")
    # The NumPy path's Python layer alone: the variants' run_host does nothing (as python_bench.py stubs
    # the CUDA launch), so the OpenCL copies and launch are left out.
    variants = scan._variants
    scan._variants = {key: HostStub(v) for key, v in variants.items()}
    t = [median_us(lambda: scan(host_x, out=host_out), args.calls) for _fast.enabled in (False, True)]
    print(f"{'NumPy: scan(x, out=out), run_host stubbed (Python alone)':56s} {t[0]:7.2f} us {t[1]:7.2f} us")
    scan._variants = variants

    torch = sys.modules["torch"] = fake_torch()
    torch.cuda.Event = lambda: types.SimpleNamespace(record=lambda stream=None: None, query=lambda: True)
    kernel = FakeKernel()
    kernel.run_cuda = lambda *a: None
    kernel.shape_workspace_bytes = lambda shape: 0
    scangen.Scan._kernel_for = lambda self, backend: kernel
    x, out = Tensor(np.arange(N, dtype=np.int32)), Tensor(np.zeros(N, np.int32))
    cx, cout = Counted(np.arange(N, dtype=np.int32)), Counted(np.zeros(N, np.int32))
    cai, cai_out = Cai(np.arange(N, dtype=np.int32)), Cai(np.zeros(N, np.int32))
    m, m_out = Tensor(np.arange(64 * 64, dtype=np.int32).reshape(64, 64)), Tensor(np.zeros((64, 64), np.int32))
    cuda_rows = [("torch (stand-in): scan(x, out=out)", lambda: scan(x, out=out), lambda: scan(cx, out=cout)),
                 ("torch (stand-in): scan(x)", lambda: scan(x), lambda: scan(cx)),
                 ("torch (stand-in): scangen.cumsum(x, out=out)", lambda: scangen.cumsum(x, out=out),
                  lambda: scangen.cumsum(cx, out=cout)),
                 ("torch (stand-in): scan(m, out=out, axis=0), 64 x 64", lambda: scan(m, out=m_out, axis=0), None),
                 ("__cuda_array_interface__: scan(x, out=out)", lambda: scan(cai, out=cai_out), None)]
    for what, fn, counted in cuda_rows:
        t = [median_us(fn, args.calls) for _fast.enabled in (False, True)]
        n = [accesses_per_call(counted) for _fast.enabled in (False, True)] if counted else None
        print(f"{what:56s} {t[0]:7.2f} us {t[1]:7.2f} us" + (f"   {n[0]:.0f}, {n[1]:.0f}" if n else ""))
    _fast.enabled = True
    if args.profile:
        import cProfile
        import pstats
        profile = cProfile.Profile()
        profile.runcall(lambda: [scan(x, out=out) for _ in range(20000)])
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
