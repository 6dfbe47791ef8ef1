"""axis= of N-d arrays (rows and strided scans), reverse= and segments (offsets=, flags=, keys=), with
return_aggregates=, against NumPy loops on random data, on two paths:

- "numpy": NumPy arrays on the OpenCL device (PoCL here);
- "cuda": the CUDA path (PyTorch tensors, their strides, pointers and out= checks) with a stand-in torch
  whose "device memory" is host memory and a stand-in kernel that runs the real (OpenCL) variant on those
  pointers: everything the CUDA path computes (layouts, strides, spans, aggregates, segments) is checked
  without a GPU. test_gpu.py runs the same on a real one.
"""
import re
import sys

import numpy as np
import pytest

import scangen
from conftest import FULL_TIER
from scangen import _shape
from test_cuda_path import FakeTensor, fake_torch, poisoned

# A non-commutative operator: the affine maps v -> a*v + b composed (uint32 arithmetic wraps: exact).
AFFINE_U32 = """
type P { a: u32, b: u32 }
scan affine_u32 { type = P; combine(x, y) = P { a: y.a * x.a, b: y.a * x.b + y.b }; identity = P { a: 1, b: 0 }; }
"""
P = np.dtype([("a", np.uint32), ("b", np.uint32)])


class EmuKernel:
    """A CUDA kernel stand-in: the real OpenCL variant run on the (host) pointers the CUDA path passes."""

    def __init__(self, real, calls):
        self.real, self.calls, self.mode, self.reverse = real, calls, real.mode, real.reverse

    def variant(self, *args):
        return EmuKernel(self.real.variant(*args), self.calls)

    def workspace_bytes(self, n):
        return 0

    @property
    def has_key_equal(self):
        return self.real.has_key_equal

    def key_segments(self, keys, n):
        return self.real.key_segments(keys, n)

    def shape_workspace_bytes(self, shape):
        return 0

    def run_cuda(self, in_ptr, out_ptr, n, stream, ws, ws_bytes, shape=None, agg=0, agg_count=0, seg=0,
                 seg_count=0, check=False):
        self.calls.append((in_ptr, out_ptr, n, shape))
        self.real.run_host(in_ptr, out_ptr, n, shape, agg, agg_count, seg, seg_count, check)


@pytest.fixture(params=["numpy", "cuda"])
def path(request, monkeypatch):
    """How arrays go in and come out: ``path.put(a)``, ``path.get(r)``, ``path.calls`` (the CUDA launches)."""

    class Path:
        name = request.param
        calls: list = []

        @staticmethod
        def put(a):
            return a if request.param == "numpy" or a is None else FakeTensor(a)

        @staticmethod
        def get(r):
            return r if request.param == "numpy" else r.array

    if request.param == "cuda":
        monkeypatch.setitem(sys.modules, "torch", fake_torch())
        original = scangen.Scan._kernel_for
        emulated = {}

        def kernel_for(self, backend):
            if backend != "cuda":
                return original(self, backend)
            if id(self) not in emulated:
                emulated[id(self)] = EmuKernel(original(self, "opencl"), Path.calls)
            return emulated[id(self)]

        monkeypatch.setattr(scangen.Scan, "_kernel_for", kernel_for)
    return Path


UFUNCS = {"cumsum": np.add, "cummax": np.maximum, "cummin": np.minimum}


def identity(op, dtype):
    if op == "cumsum":
        return dtype.type(0)
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype)
    value = (info.min if dtype.kind in "iu" else -np.inf) if op == "cummax" else \
        (info.max if dtype.kind in "iu" else np.inf)
    return dtype.type(value)


def reference(op, x, axis, exclusive=False, init=None, reverse=False):
    """NumPy's accumulate along ``axis`` (the result, the aggregates), the same semantics as scangen's."""
    f = UFUNCS[op]
    x = np.asarray(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    x = np.moveaxis(x, axis, -1)
    if reverse:
        x = x[..., ::-1]
    ident = identity(op, x.dtype)
    seed = ident if init is None else x.dtype.type(init)
    with np.errstate(over="ignore"):
        acc = f.accumulate(x, axis=-1, dtype=x.dtype) if x.shape[-1] else x.copy()
        aggs = acc[..., -1].copy() if x.shape[-1] else np.full(x.shape[:-1], ident, x.dtype)
        inc = f(seed, acc).astype(x.dtype)
        out = inc
        if exclusive:
            out = np.concatenate([np.full(x.shape[:-1] + (1,), seed, x.dtype), inc[..., :-1]], axis=-1) \
                if x.shape[-1] else inc
    if reverse:
        out = out[..., ::-1]
    return np.moveaxis(out, -1, axis), aggs


def data(gen, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return gen.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    return gen.integers(-8, 9, size=shape).astype(dtype)  # whole numbers: float sums exact here


def check(got, ref, what):
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    bad = np.argwhere(got != ref)
    assert bad.size == 0, f"{what}: {len(bad)} wrong, first at {tuple(bad[0])}: {got[tuple(bad[0])]} != " \
                          f"{ref[tuple(bad[0])]}"


def views(base):
    """``base`` and strided views of it: transposed, sliced, reversed (negative strides)."""
    yield "c", base
    if base.ndim >= 2:
        yield "T", base.T
        yield "sliced", base[..., ::2]
        yield "swapped", np.swapaxes(base, 0, -1)[::-1]
    else:
        yield "step2", base[::2]
        yield "reversed", base[::-1]


SHAPES = [(3, 257), (1025, 3), (2, 33, 5), (2, 3, 4, 5), (0, 5), (5, 0), (1, 1), (4, 1, 1, 3), (2, 1, 3, 1, 4)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_every_axis(path, shape, rng):
    gen, seed = rng
    base = data(gen, np.int32, shape)
    for name, x in views(base):
        for axis in [None] + list(range(-x.ndim, x.ndim)):
            got, aggs = scangen.cumsum(path.put(x), axis=axis, return_aggregates=True)
            ref, ref_aggs = reference("cumsum", x, axis)
            check(path.get(got), ref, f"{name} {x.shape} axis {axis}, seed {seed}")
            if axis is not None:
                check(np.asarray(path.get(aggs)), ref_aggs.reshape(ref_aggs.shape), f"aggregates {name} axis {axis}")


@pytest.mark.parametrize("op,dtype", [("cumsum", np.float32), ("cummax", np.int8), ("cummin", np.uint64),
                                      ("cumsum", np.float64), ("cummax", np.float16), ("cumsum", np.int16)],
                         ids=lambda v: v if isinstance(v, str) else np.dtype(v).name)
def test_axis_dtypes(path, op, dtype, rng):
    gen, seed = rng
    x = data(gen, dtype, (7, 9, 65))
    for axis in (0, 1, 2, -1):
        got = getattr(scangen, op)(path.put(x), axis=axis)
        check(path.get(got), reference(op, x, axis)[0], f"{op} {x.dtype} axis {axis}, seed {seed}")


def test_axis_modes_and_init(path, rng):
    gen, seed = rng
    x = data(gen, np.int32, (7, 9, 65))
    modes = ((True, None), (False, 3), (True, 3))
    for axis in (0, -1):
        # Quick tier: one of the three along each axis, drawn (each along axis 0 is a strided kernel of its own).
        for exclusive, init in (modes if FULL_TIER else [modes[gen.integers(len(modes))]]):
            got = scangen.cumsum(path.put(x), axis=axis, exclusive=exclusive, init=init)
            ref, _ = reference("cumsum", x, axis, exclusive, init)
            check(path.get(got), ref, f"axis {axis} exclusive {exclusive} init {init}, seed {seed}")


@pytest.mark.parametrize("rows", [1, 3, 7])
def test_rows_and_columns_awkward_lengths(path, rows, rng):
    gen, seed = rng
    for length in (1, 2, 255, 257, 1023, 1025, 4097):
        x = data(gen, np.int64, (rows, length))
        for axis in (-1, 0):
            got = scangen.cumsum(path.put(x), axis=axis)
            check(path.get(got), reference("cumsum", x, axis)[0], f"({rows}, {length}) axis {axis}, seed {seed}")


def test_out_of_a_shaped_scan(path, rng):
    gen, seed = rng
    x = data(gen, np.int32, (33, 40))
    out = path.put(poisoned((33, 40), np.int32))
    assert scangen.cumsum(path.put(x), axis=0, out=out) is out
    check(path.get(out), reference("cumsum", x, 0)[0], f"out=, seed {seed}")
    with pytest.raises(ValueError, match=r"out must"):
        scangen.cumsum(path.put(x), axis=0, out=path.put(np.zeros((40, 33), np.int32)))


@pytest.mark.parametrize("path", ["cuda"], indirect=True)
def test_strided_cuda_arrays_are_not_copied(path, rng):
    gen, _seed = rng
    base = data(gen, np.int32, (50, 60))
    x = FakeTensor(base.T)  # strides (1, 60): an axis scan of the original memory
    scangen.cumsum(x, axis=0)
    in_ptr, _out, _n, shape = path.calls[-1]
    assert in_ptr == base.ctypes.data and shape is not None and shape.span == 3000


def affine_reference(x, reverse=False, exclusive=False, starts=None):
    """The affine scan's loop (uint32 wrap-around); ``starts``: where segments start (restart at identity)."""
    out = np.empty_like(x)
    order = range(len(x) - 1, -1, -1) if reverse else range(len(x))
    a, b = 1, 0
    for i in order:
        if starts is not None and starts[i]:
            a, b = 1, 0
        if exclusive:
            out[i] = (a, b)
        ya, yb = int(x[i]["a"]), int(x[i]["b"])
        a, b = (ya * a) & 0xFFFFFFFF, (ya * b + yb) & 0xFFFFFFFF
        if not exclusive:
            out[i] = (a, b)
    return out


def affine_data(gen, n):
    x = np.empty(n, P)
    x["a"] = gen.integers(0, 2**32, n, dtype=np.uint32)
    x["b"] = gen.integers(0, 2**32, n, dtype=np.uint32)
    return x


@pytest.mark.parametrize("n", [0, 1, 2, 31, 33, 1023, 1025, 4097])
def test_reverse_every_mode_and_init(path, n, rng):
    gen, seed = rng
    x = data(gen, np.int32, n)
    for op in ("cumsum", "cummax"):
        for exclusive, init in ((False, None), (True, None), (False, -7), (True, -7)):
            got, aggs = getattr(scangen, op)(path.put(x), reverse=True, exclusive=exclusive, init=init,
                                             return_aggregates=True)
            ref, ref_aggs = reference(op, x, 0, exclusive, init, reverse=True)
            check(path.get(got), ref, f"{op} reverse n {n} exclusive {exclusive} init {init}, seed {seed}")
            check(np.asarray(path.get(aggs)), ref_aggs, f"{op} reverse aggregate n {n}")
    if path.name == "numpy":  # a non-commutative operator, backwards; a 2-D array flattened
        y = affine_data(gen, n)
        affine = scangen.compile(AFFINE_U32)
        for exclusive in (False, True):
            check(affine(y, reverse=True, exclusive=exclusive), affine_reference(y, True, exclusive),
                  f"affine reverse n {n} exclusive {exclusive}, seed {seed}")
        m = data(gen, np.int32, (3, n))
        check(scangen.cumsum(m, axis=None, reverse=True), reference("cumsum", m, None, reverse=True)[0],
              f"axis=None reverse, seed {seed}")


def random_segments(gen, n, kind):
    """Segment starts (bool per element) with empty segments among them (offsets), and the offsets."""
    count = int(gen.integers(1, 12))
    cuts = np.sort(gen.integers(0, n + 1, size=count - 1)) if n else np.zeros(count - 1, np.int64)
    offsets = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    if kind == "one":
        offsets = np.array([0, n])
    starts = np.zeros(n, bool)
    starts[offsets[:-1][offsets[:-1] < n]] = True
    return starts, offsets


def segment_reference(op, x, starts, exclusive, init, dtype):
    """Each segment scanned from init; totals without init (empty segments: the identity)."""
    out = np.empty_like(x)
    f = UFUNCS[op]
    ident = identity(op, x.dtype)
    seed = ident if init is None else x.dtype.type(init)
    acc = seed
    with np.errstate(over="ignore"):
        for i in range(len(x)):
            if starts[i]:
                acc = seed
            if exclusive:
                out[i] = acc
            acc = f(acc, x[i]).astype(x.dtype)
            if not exclusive:
                out[i] = acc
    return out


def segment_totals(op, x, offsets):
    f = UFUNCS[op]
    ident = identity(op, x.dtype)
    with np.errstate(over="ignore"):
        return np.array([f.reduce(x[a:b], dtype=x.dtype) if b > a else ident for a, b in zip(offsets, offsets[1:])],
                        dtype=x.dtype)


@pytest.mark.parametrize("n", [0, 1, 2, 33, 1025, 4097])
@pytest.mark.parametrize("kind", ["random", "one"])
def test_segments_every_form(path, n, kind, rng):
    gen, seed = rng
    starts, offsets = random_segments(gen, n, kind)
    x = data(gen, np.int32, n)
    keys = np.cumsum(starts).astype(np.int64) * 7 - 3  # a new key wherever a segment starts
    nonempty = offsets[np.flatnonzero(np.diff(offsets) > 0)]
    nonempty = np.append(nonempty, n) if n else np.array([0])
    forms = [("offsets", offsets.astype(np.uint32), offsets), ("offsets", offsets.astype(np.int64), offsets),
             ("flags", starts, nonempty), ("flags", starts.astype(np.uint8) * 5, nonempty),
             ("keys", keys, nonempty), ("keys", keys.astype(np.int8), nonempty),
             ("keys", keys.astype(np.float32), nonempty), ("keys", keys.astype(np.float64) / 3, nonempty)]
    combos = (("cumsum", False, None), ("cumsum", True, 100), ("cummax", True, None))
    for i, (form, array, total_offsets) in enumerate(forms):
        for op, exclusive, init in (combos[i % 3],):  # every combination over the forms, a kernel each
            what = f"{form} {array.dtype} {op} exclusive {exclusive} init {init} n {n}, seed {seed}"
            got, aggs = getattr(scangen, op)(path.put(x), exclusive=exclusive, init=init, return_aggregates=True,
                                             **{form: path.put(array)})
            check(path.get(got), segment_reference(op, x, starts, exclusive, init, x.dtype), what)
            want = segment_totals(op, x, total_offsets) if n else segment_totals(op, x, offsets if form == "offsets"
                                                                                  else [0])
            check(path.get(aggs), want, "aggregates of " + what)


def test_keys_compared_by_key_equal(path, rng):
    """A spec's key_equal says where segments start: for the results, and for how many aggregates come back
    (counted with key_equal, not with !=: keys 11 and 12 are one segment here)."""
    gen, seed = rng
    by_decade = scangen.compile("scan by_decade { type = i32; op = add; segments = keys; key = i32; "
                                "key_equal(a, b) = a / 10 == b / 10; }")
    for n in (0, 1, 33, 1025):
        keys = np.sort(gen.integers(0, 200, n)).astype(np.int32)
        x = data(gen, np.int32, n)
        starts = np.ones(n, bool)
        starts[1:] = keys[1:] // 10 != keys[:-1] // 10
        got, aggs = by_decade(path.put(x), keys=path.put(keys), return_aggregates=True)
        what = f"key_equal n {n}, seed {seed}"
        check(path.get(got), segment_reference("cumsum", x, starts, False, None, x.dtype), what)
        offsets = np.append(np.flatnonzero(starts), n) if n else [0]
        check(np.asarray(path.get(aggs)), segment_totals("cumsum", x, offsets), "aggregates of " + what)


def test_segments_of_a_non_commutative_operator(rng):
    gen, seed = rng
    affine = scangen.compile(AFFINE_U32)
    for n in (1, 257, 4097):
        starts, offsets = random_segments(gen, n, "random")
        x = affine_data(gen, n)
        for exclusive in (False, True):
            check(affine(x, offsets=offsets.astype(np.uint64), exclusive=exclusive),
                  affine_reference(x, exclusive=exclusive, starts=starts), f"affine offsets n {n}, seed {seed}")
            check(affine(x, flags=starts, exclusive=exclusive),
                  affine_reference(x, exclusive=exclusive, starts=starts), f"affine flags n {n}, seed {seed}")
        # one array per field: the same segments
        a, b = affine((x["a"], x["b"]), flags=starts)
        ref = affine_reference(x, starts=starts)
        check(a, ref["a"], "fields a")
        check(b, ref["b"], "fields b")


def test_deterministic_floats_along_an_axis_and_by_segment(path, rng):
    """deterministic = true on floats: a flat scan is reduce_then_scan, its shaped and segmented variants the
    decoupled look-back in its fixed order; both the same bits call after call (small integers: exact)."""
    gen, seed = rng
    det = scangen.compile("scan det_sum { type = f64; op = add; deterministic = true; }")
    x = gen.integers(-50, 50, size=(3000, 5)).astype(np.float64)
    for axis in (0, 1, None):
        first = path.get(det(path.put(x), axis=axis))
        check(first, reference("cumsum", x, axis)[0], f"axis {axis}, seed {seed}")
        check(path.get(det(path.put(x), axis=axis)), first, f"axis {axis} again, seed {seed}")
    flat = x.reshape(-1)
    starts, offsets = random_segments(gen, flat.size, "random")
    got = det(path.put(flat), offsets=path.put(offsets.astype(np.uint64)))
    check(path.get(got), segment_reference("cumsum", flat, starts, False, None, flat.dtype), f"offsets, seed {seed}")


@pytest.mark.parametrize("shape", [(3, 257), (1025, 3), (2, 33, 5), (2, 3, 4, 5), (0, 5), (5, 0)], ids=str)
def test_reverse_along_every_axis(path, shape, rng):
    gen, seed = rng
    base = data(gen, np.int32, shape)
    for name, x in views(base):
        for axis in range(-x.ndim, x.ndim):
            for exclusive, init in ((False, None), (True, 3)):
                what = f"reverse {name} {x.shape} axis {axis} exclusive {exclusive} init {init}, seed {seed}"
                got, aggs = scangen.cumsum(path.put(x), axis=axis, reverse=True, exclusive=exclusive, init=init,
                                           return_aggregates=True)
                ref, ref_aggs = reference("cumsum", x, axis, exclusive, init, reverse=True)
                check(path.get(got), ref, what)
                check(np.asarray(path.get(aggs)), ref_aggs, "aggregates of " + what)


def test_reverse_along_an_axis_of_a_non_commutative_operator(rng):
    gen, seed = rng
    affine = scangen.compile(AFFINE_U32)
    x = affine_data(gen, 7 * 300).reshape(7, 300)
    for axis in (0, 1):
        got = affine(x, axis=axis, reverse=True)
        lines = np.moveaxis(x, axis, -1)
        want = np.stack([affine_reference(line, reverse=True) for line in lines.reshape(-1, lines.shape[-1])])
        check(got, np.moveaxis(want.reshape(lines.shape), -1, axis), f"affine reverse axis {axis}, seed {seed}")


def segment_ends(starts):
    """Where each segment ends (its last element): where a reverse scan restarts."""
    ends = np.zeros_like(starts)
    if len(starts):
        ends[:-1] = starts[1:]
        ends[-1] = True
    return ends


@pytest.mark.parametrize("n", [0, 1, 2, 33, 1025, 4097])
@pytest.mark.parametrize("kind", ["random", "one"])
def test_reverse_segments_every_form(path, n, kind, rng):
    gen, seed = rng
    starts, offsets = random_segments(gen, n, kind)
    x = data(gen, np.int32, n)
    keys = np.cumsum(starts).astype(np.int64) * 7 - 3
    nonempty = offsets[np.flatnonzero(np.diff(offsets) > 0)]
    nonempty = np.append(nonempty, n) if n else np.array([0])
    forms = [("offsets", offsets.astype(np.uint32), offsets), ("flags", starts.astype(np.uint8) * 5, nonempty),
             ("keys", keys, nonempty)]
    ends = segment_ends(starts)
    for form, array, total_offsets in forms:
        for op, exclusive, init in (("cumsum", False, None), ("cummax", True, 100)):
            what = f"reverse {form} {op} exclusive {exclusive} init {init} n {n}, seed {seed}"
            got, aggs = getattr(scangen, op)(path.put(x), reverse=True, exclusive=exclusive, init=init,
                                             return_aggregates=True, **{form: path.put(array)})
            # flip, scan forward (the flipped array's segments start at the segments' ends), flip back
            want = segment_reference(op, x[::-1], ends[::-1], exclusive, init, x.dtype)[::-1]
            check(path.get(got), want, what)
            totals = segment_totals(op, x, total_offsets) if n else segment_totals(op, x, offsets if form == "offsets"
                                                                                    else [0])
            check(path.get(aggs), totals, "aggregates of " + what)


def test_reverse_segments_of_a_non_commutative_operator(rng):
    gen, seed = rng
    affine = scangen.compile(AFFINE_U32)
    for n in (1, 257, 4097):
        starts, offsets = random_segments(gen, n, "random")
        x = affine_data(gen, n)
        for exclusive in (False, True):
            want = affine_reference(x, reverse=True, exclusive=exclusive, starts=segment_ends(starts))
            check(affine(x, offsets=offsets.astype(np.uint64), exclusive=exclusive, reverse=True), want,
                  f"affine reverse offsets n {n}, seed {seed}")
            check(affine(x, flags=starts, exclusive=exclusive, reverse=True), want,
                  f"affine reverse flags n {n}, seed {seed}")


def test_segment_errors(path):
    x = path.put(np.arange(10, dtype=np.int32))
    bad = {"[0] is 1; the first offset must be 0": [1, 5, 10],
           "less than the offset before it": [0, 6, 5, 10],
           r"not n = 10": [0, 5, 9],
           "beyond n = 10": [0, 11, 10]}
    for message, offsets in bad.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            scangen.cumsum(x, offsets=path.put(np.array(offsets, np.int32)))
    with pytest.raises(ValueError, match="one entry per element"):
        scangen.cumsum(x, flags=path.put(np.ones(9, np.uint8)))
    with pytest.raises(ValueError, match="n_segments"):
        scangen.cumsum(x, offsets=path.put(np.zeros(0, np.int32)))
    with pytest.raises(TypeError, match="one of offsets=, flags= and keys="):
        scangen.cumsum(x, flags=path.put(np.ones(10, np.uint8)), keys=path.put(np.ones(10, np.int32)))
    with pytest.raises(TypeError, match="keys= must be of an integer dtype, float32 or float64"):
        scangen.cumsum(x, keys=path.put(np.ones(10, np.float16)))
    if path.name == "cuda":  # no conversions of CUDA memory: the dtypes the kernel takes
        with pytest.raises(TypeError, match="x's kind"):
            scangen.cumsum(x, flags=np.ones(10, np.uint8))
        with pytest.raises(TypeError, match="flags= must be bool or uint8"):
            scangen.cumsum(x, flags=path.put(np.ones(10, np.int32)))
        with pytest.raises(TypeError, match="offsets= must be int32"):
            scangen.cumsum(x, offsets=path.put(np.array([0, 10], np.int16)))
    else:  # NumPy's are converted
        assert scangen.cumsum(x, offsets=np.array([0, 4, 10], np.int16)).tolist() == \
            [0, 1, 3, 6, 4, 9, 15, 22, 30, 39]
        assert scangen.cumsum(x, flags=np.array([0, 0, 0, 0, 3, 0, 0, 0, 0, 0], np.int32))[4] == 4
    # unchecked offsets are the caller's duty; checked ones (the default) raise a ScanError (a ValueError)
    with pytest.raises(scangen.ScanError):
        scangen.cumsum(x, offsets=path.put(np.array([0, 5, 9], np.int32)))
    assert path.get(scangen.cumsum(x, offsets=path.put(np.array([0, 5, 10], np.int32)),
                                   check_segments=False)).tolist() == [0, 1, 3, 6, 10, 5, 11, 18, 26, 35]


def test_axis_errors():
    x = np.zeros((3, 4), np.int32)
    with pytest.raises(ValueError, match="axis 2 is out of range for a 2-D array"):
        scangen.cumsum(x, axis=2)
    with pytest.raises(ValueError, match="axis -3 is out of range"):
        scangen.cumsum(x, axis=-3)
    scangen.cumsum(x, axis=1)
    with pytest.raises(TypeError, match="axis must be an int"):
        scangen.cumsum(x, axis=1.0)  # not the cached layout of axis=1
    with pytest.raises(TypeError, match="axis must be an int"):
        scangen.cumsum(x, axis=True)
    # A 0-D array along axis 0 or -1, as NumPy takes it (a 1-D result); other axes are out of its range.
    for axis in (0, -1):
        got = scangen.cumsum(np.array(3, np.int32), axis=axis)
        assert got.shape == (1,) and got.tolist() == [3]
    assert scangen.cummax(np.array(np.nan), axis=0).shape == (1,)
    with pytest.raises(ValueError, match="axis 1 is out of range for a 0-D array"):
        scangen.cumsum(np.array(3, np.int32), axis=1)


# Broadcast views (stride 0) repeat elements: copied, not read as a short buffer; and NaN propagates the same
# along every layout (the rows and strided kernels as the flat one).
def test_broadcast_views_and_nan_by_layout(path):
    row = np.arange(1, 5, dtype=np.int32)
    b = np.broadcast_to(row, (3, 4))
    assert b.strides[0] == 0
    got = path.get(scangen.cumsum(path.put(b), axis=1))
    assert np.array_equal(got, np.cumsum(b, axis=1)), got
    got = path.get(scangen.cumsum(path.put(b), axis=0))
    assert np.array_equal(got, np.cumsum(b, axis=0)), got
    col = np.broadcast_to(np.array([[1], [2]], np.int32), (2, 5))
    assert np.array_equal(path.get(scangen.cumsum(path.put(col), axis=1)), np.cumsum(col, axis=1))
    m = np.array([[np.nan, 1.0, 2.0], [3.0, np.nan, 1.0]])
    for axis in (0, 1):
        want = np.maximum.accumulate(m, axis=axis)
        got = path.get(scangen.cummax(path.put(np.ascontiguousarray(m)), axis=axis))
        assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(got[~np.isnan(want)],
                                                                              want[~np.isnan(want)]), (axis, got)
    assert np.array_equal(np.isnan(scangen.cummax(np.array([np.nan, 1.0, 2.0]))), [True, True, True])
    with pytest.raises(NotImplementedError, match="return_aggregates with a tuple"):
        scangen.compile(AFFINE_U32)((np.ones(3, np.uint32), np.ones(3, np.uint32)), return_aggregates=True)


def test_layouts():
    """Which scan a call becomes: the cheapest that fits (flat, rows, strided; merged dimensions)."""
    lay = _shape.layout((4, 5), None, -1, False)
    assert lay.kind == "rows" and lay.agg_shape == (4,) and not lay.copy
    assert _shape.layout((4, 5), None, 0, False).kind == "strided"
    assert _shape.layout((1, 5), None, 1, True).kind == "flat"  # one line
    assert _shape.layout((4, 5), None, 0, True).kind == "strided"  # reverse: the forward layout
    assert _shape.layout((2, 3, 4, 5, 6), None, -1, False).kind == "rows"  # 2*3*4*5 rows of 6
    lay = _shape.layout((2, 3, 4, 5, 6), None, 2, False)  # (6, 4, 30): merged around the axis
    assert lay.kind == "strided" and lay.shape.span == 720 and not lay.copy
    assert _shape.layout((3,), (-1,), 0, False).copy  # strides the call does not take: a copy
    # a transposed matrix's columns are rows of its memory, but not of the (C-contiguous) result: strided
    lay = _shape.layout((3, 4), (1, 3), 0, False)
    assert lay.kind == "strided" and lay.shape.span == 12 and lay.shape.out_span == 12
