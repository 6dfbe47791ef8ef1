"""The fast path of cached calls (scangen/_fast.py) against the general one: every call here runs both
ways (``_fast.enabled`` on and off) and must give the same result, or raise the same error with the same
text. NumPy arrays on the OpenCL device, and the CUDA path through the stand-in PyTorch whose launches
run the real (OpenCL) variant on the host (test_shapes' ``path`` fixture)."""
import numpy as np
import pytest

import scangen
from scangen import _fast
from test_cuda_path import SUM_I32, FakeTensor
from test_shapes import path  # noqa: F401 (the fixture)

MAX_I32 = "scan max_i32 { type = i32; op = max; level = device; }"


def both(monkeypatch, call):
    """``call()`` with the fast path, then without: each one's result (as NumPy arrays) or (error, text)."""
    outcomes = []
    for on in (True, False):
        monkeypatch.setattr(_fast, "enabled", on)
        try:
            got = call()
            outcomes.append(("ok", tuple(_host(g) for g in got) if isinstance(got, tuple) else _host(got)))
        except Exception as e:  # compared below: the same type and text both ways
            outcomes.append((type(e), str(e)))
    monkeypatch.setattr(_fast, "enabled", True)
    fast, general = outcomes
    assert fast[0] == general[0], (fast, general)
    if fast[0] == "ok":
        a, b = fast[1], general[1]
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), (a, b)
    else:
        assert fast == general
    return fast


def _host(a):
    return a.array.copy() if isinstance(a, FakeTensor) else np.array(a, copy=True)


@pytest.mark.parametrize("n", [0, 1, 2, 1025])
def test_same_results(monkeypatch, path, rng, n):  # noqa: F811
    gen, seed = rng
    scan = scangen.compile(SUM_I32)
    x = gen.integers(-1000, 1000, size=n, dtype=np.int32)
    ref = np.cumsum(x, dtype=np.int32)
    assert np.array_equal(both(monkeypatch, lambda: scan(path.put(x)))[1], ref), f"seed {seed}"
    assert np.array_equal(both(monkeypatch, lambda: scan(path.put(x), out=path.put(np.zeros(n, np.int32))))[1],
                          ref), f"seed {seed}"
    # out is x: in place (the CUDA path through a temporary).
    both(monkeypatch, lambda: (lambda a: scan(a, out=a))(path.put(x.copy())))
    both(monkeypatch, lambda: scan(path.put(x), exclusive=True))
    both(monkeypatch, lambda: scan(path.put(x), reverse=True))
    both(monkeypatch, lambda: scangen.cumsum(path.put(x), out=path.put(np.zeros(n, np.int32))))
    both(monkeypatch, lambda: scangen.cummax(path.put(x), exclusive=True))
    both(monkeypatch, lambda: scangen.cumsum(path.put(x), dtype=np.int64))


def test_shapes_and_strides(monkeypatch, path, rng):  # noqa: F811
    gen, _seed = rng
    scan = scangen.compile(MAX_I32)
    m = gen.integers(-1000, 1000, size=(7, 33), dtype=np.int32)
    for axis in (0, 1, -1, -2, None):
        both(monkeypatch, lambda: scan(path.put(m), axis=axis))
        shape = m.shape if axis is not None else (m.size,)
        both(monkeypatch, lambda: scan(path.put(m), axis=axis, out=path.put(np.zeros(shape, np.int32))))
    both(monkeypatch, lambda: scan(path.put(m[:, ::2])))  # not contiguous: the general path
    both(monkeypatch, lambda: scan(path.put(m.T), axis=0))
    both(monkeypatch, lambda: scan(path.put(np.arange(40, dtype=np.int32)[::3])))
    both(monkeypatch, lambda: scan(path.put(np.zeros((0, 4), np.int32)), axis=0))
    both(monkeypatch, lambda: scan(path.put(np.ones((1, 1), np.int32))))


def test_same_errors(monkeypatch, path):  # noqa: F811
    scan = scangen.compile(SUM_I32)
    x = np.arange(10, dtype=np.int32)
    m = np.zeros((3, 4), np.int32)
    cases = [
        lambda: scan(path.put(x.astype(np.int64))),                              # wrong dtype
        lambda: scan(path.put(x), out=path.put(np.zeros(10, np.int64))),         # out of the wrong dtype
        lambda: scan(path.put(x), out=path.put(np.zeros(11, np.int32))),         # out of the wrong shape
        lambda: scan(path.put(x), out=path.put(np.zeros(20, np.int32)[::2])),    # out not contiguous
        lambda: scan(path.put(x), out=[0] * 10),                                 # out not an array
        lambda: scan(path.put(m), axis=2),
        lambda: scan(path.put(m), axis=True),
        lambda: scan(path.put(m), axis=1.0),
        lambda: scan(path.put(m), axis=-3),
        lambda: scan(path.put(np.zeros((), np.int32))),
        lambda: scan(path.put(m), out=path.put(np.zeros(12, np.int32))),
        lambda: scangen.cumsum((path.put(x), path.put(x))),                      # shorthands: a tuple
        lambda: scangen.cumsum(path.put(x.astype(bool))),                        # a bool array
        lambda: scangen.cumsum(path.put(x), out=path.put(np.zeros(10, np.int64))),
        lambda: scangen.cumsum(path.put(x), dtype=np.int64, out=path.put(np.zeros(10, np.int32))),
    ]
    for i, case in enumerate(cases):
        kind, _text = both(monkeypatch, case)
        # A strided NumPy out= is written through a copy; a 0-D array scans along axis -1 (as NumPy and PyTorch).
        assert kind != "ok" or i in (3, 9), (i, _text)


@pytest.mark.parametrize("path", ["cuda"], indirect=True)
def test_cuda_devices_and_plans(monkeypatch, path):  # noqa: F811
    scan = scangen.compile(SUM_I32)
    x = np.arange(1, 9, dtype=np.int32)
    both(monkeypatch, lambda: scan(FakeTensor(x, device=1)))
    both(monkeypatch, lambda: scan(FakeTensor(x), out=FakeTensor(np.zeros(8, np.int32), device=1)))
    both(monkeypatch, lambda: scan(FakeTensor(x), out=FakeTensor(np.zeros(8, np.int32), device=None)))
    # The fast path took the calls it covers: a plan per dtype, shape, axis, reverse and exclusive.
    scan._cuda_plans.clear()
    out = FakeTensor(np.zeros(8, np.int32))
    assert scan(FakeTensor(x), out=out) is out and out.array.tolist() == np.cumsum(x).tolist()
    assert len(scan._cuda_plans) == 1
    launches = len(path.calls)
    scan(FakeTensor(x), out=out)
    assert len(path.calls) == launches + 1 and len(scan._cuda_plans) == 1


def test_host_plans(monkeypatch):
    scan = scangen.compile(SUM_I32)
    scan._host_plans.clear()
    x, out = np.arange(5, dtype=np.int32), np.zeros(5, np.int32)
    assert scan(x, out=out) is out and out.tolist() == [0, 1, 3, 6, 10]
    assert scan(x, exclusive=True).tolist() == [0, 0, 1, 3, 6]
    assert len(scan._host_plans) == 2
    monkeypatch.setattr(_fast, "enabled", False)
    scan(x[::-1])
    assert len(scan._host_plans) == 2
