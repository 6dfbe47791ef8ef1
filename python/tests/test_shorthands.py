"""cumsum, cumprod, cummax, cummin against NumPy on random data of every size class."""
import numpy as np
import pytest

import scangen
from conftest import SIZES

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]

# Float results against a float64 reference: |got - ref| <= TOL * (sum of |terms| so far + 1).
# f16 data are multiples of 1/8 in [-1, 1], whose partial sums f16 holds exactly.
TOL = {np.float16: 2.0**-10, np.float32: 1e-5, np.float64: 1e-12}


def random_data(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    if dtype == np.float16:
        return (rng.integers(-8, 8, size=n, endpoint=True) / 8).astype(dtype)
    return rng.uniform(-1, 1, size=n).astype(dtype)


def check(got, ref, x, dtype, seed, what, magnitude=None):
    assert got.dtype == np.dtype(dtype), f"{what}: dtype {got.dtype}"
    assert got.shape == ref.shape, f"{what}: shape {got.shape}, expected {ref.shape} (seed {seed})"
    if np.dtype(dtype).kind in "iu":
        bad = np.flatnonzero(got != ref)
    else:
        scale = magnitude if magnitude is not None else np.cumsum(np.abs(x.astype(np.float64)))
        bad = np.flatnonzero(np.abs(got.astype(np.float64) - ref) > TOL[dtype] * (scale + 1))
    assert bad.size == 0, (f"{what}, n = {x.size}: {bad.size} wrong, first at {bad[0]}: got {got[bad[0]]}, "
                           f"expected {ref[bad[0]]} (seed {seed})")


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_cumsum(rng, dtype):
    gen, seed = rng
    for n in SIZES:
        x = random_data(gen, dtype, n)
        ref = np.cumsum(x, dtype=dtype) if np.dtype(dtype).kind in "iu" else np.cumsum(x.astype(np.float64))
        check(scangen.cumsum(x), ref, x, dtype, seed, f"cumsum {np.dtype(dtype).name}")


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64], ids=lambda d: np.dtype(d).name)
def test_cumprod(rng, dtype):
    gen, seed = rng
    for n in SIZES:
        if np.dtype(dtype).kind in "iu":
            x = random_data(gen, dtype, n)  # wraps around, as NumPy's does
            ref = np.cumprod(x, dtype=dtype)
            check(scangen.cumprod(x), ref, x, dtype, seed, "cumprod")
        else:
            x = gen.uniform(0.95, 1.05, size=n).astype(dtype)
            ref = np.cumprod(x.astype(np.float64))
            got = scangen.cumprod(x)
            # Any order of k products is within about k roundings of the exact one.
            rel = np.abs(got.astype(np.float64) - ref) / np.abs(ref)
            bound = 4 * np.finfo(dtype).eps * (np.arange(n) + 1)
            bad = np.flatnonzero(rel > bound)
            assert bad.size == 0, f"cumprod {np.dtype(dtype).name}, n = {n}: first wrong at {bad[0]} (seed {seed})"


@pytest.mark.parametrize("op,ufunc,dtype", [
    ("cummax", np.maximum, np.int8), ("cummax", np.maximum, np.float16), ("cummax", np.maximum, np.float32),
    ("cummin", np.minimum, np.int32), ("cummin", np.minimum, np.uint32), ("cummin", np.minimum, np.float64),
], ids=lambda v: v if isinstance(v, str) else getattr(v, "__name__", ""))
def test_cummax_cummin(rng, op, ufunc, dtype):
    gen, seed = rng
    for n in SIZES:
        x = random_data(gen, dtype, n)
        got = getattr(scangen, op)(x)
        ref = ufunc.accumulate(x) if n else x.copy()
        assert got.dtype == x.dtype and np.array_equal(got, ref), f"{op}, n = {n} (seed {seed})"


def test_exclusive_and_init(rng):
    gen, seed = rng
    for n in SIZES:
        x = random_data(gen, np.int32, n)
        incl = np.cumsum(x, dtype=np.int32)
        excl = np.concatenate([[0], incl[:-1]]).astype(np.int32) if n else incl
        assert np.array_equal(scangen.cumsum(x, exclusive=True), excl), f"exclusive, n = {n} (seed {seed})"
        with np.errstate(over="ignore"):
            ref = incl + np.int32(100)
        assert np.array_equal(scangen.cumsum(x, init=100), ref), f"init, n = {n} (seed {seed})"
        lowest = np.iinfo(np.int32).min
        ref = np.maximum.accumulate(np.concatenate([[lowest], x[:-1]]).astype(np.int32)) if n else x
        assert np.array_equal(scangen.cummax(x, exclusive=True), ref), f"cummax exclusive, n = {n} (seed {seed})"


def test_accumulator_dtype(rng):
    gen, seed = rng
    x = random_data(gen, np.uint8, 5000)
    got = scangen.cumsum(x, dtype=np.uint32)
    assert got.dtype == np.uint32
    assert np.array_equal(got, np.cumsum(x, dtype=np.uint32)), f"seed {seed}"


def test_out(rng):
    gen, seed = rng
    x = random_data(gen, np.int32, 3000)
    out = np.empty(3000, np.int32)
    assert scangen.cumsum(x, out=out) is out
    assert np.array_equal(out, np.cumsum(x, dtype=np.int32)), f"seed {seed}"
    strided = np.zeros(6000, np.int32)[::2]
    assert scangen.cumsum(x, out=strided) is strided
    assert np.array_equal(strided, np.cumsum(x, dtype=np.int32)), f"seed {seed}"


def test_non_contiguous(rng):
    gen, seed = rng
    base = random_data(gen, np.int64, 10001)
    for x in (base[::3], base[::-1], base[1::2]):
        assert not x.flags.c_contiguous
        assert np.array_equal(scangen.cumsum(x), np.cumsum(x)), f"seed {seed}"
    m = random_data(gen, np.int64, 60 * 70).reshape(60, 70).T  # Fortran order
    assert np.array_equal(scangen.cumsum(m, axis=None), np.cumsum(m, axis=None)), f"seed {seed}"
    assert scangen.cumsum(np.array(5, dtype=np.int64), axis=None).tolist() == [5]


def with_nans(gen, dtype, n, where):
    """Random floats (multiples of 1/8, every zero -0.0) with NaNs at the start, in the middle, at the end,
    everywhere or scattered."""
    x = (gen.integers(-8, 8, size=n, endpoint=True) / 8).astype(dtype)
    x[x == 0] = -0.0
    if n:
        if where == "start":
            x[0] = np.nan
        elif where == "middle":
            x[n // 2] = np.nan
        elif where == "end":
            x[-1] = np.nan
        elif where == "everywhere":
            x[:] = np.nan
        else:
            x[gen.random(n) < 0.01] = np.nan
    return x


def same_floats(got, want):
    """Equal values, NaN where NumPy has NaN, and the sign of every zero as NumPy's."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return (got.shape == want.shape and np.array_equal(np.isnan(got), np.isnan(want))
            and np.array_equal(got[~np.isnan(want)], want[~np.isnan(want)])
            and np.array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)])))


# cummax / cummin propagate a NaN as np.maximum / np.minimum.accumulate; cumfmax / cumfmin ignore NaNs as
# np.fmax / np.fmin.accumulate. Each operator on one float dtype (PoCL compiles a kernel for each pair; the
# C++ sweeps run every type at every level), NaNs at the start, middle, end, everywhere and scattered.
def test_nan_like_numpy(rng):
    gen, seed = rng
    ops = [("cummax", np.maximum, np.float64), ("cummin", np.minimum, np.float32),
           ("cumfmax", np.fmax, np.float16), ("cumfmin", np.fmin, np.float64)]
    for op, ufunc, dtype in ops:
        for n in SIZES:
            for where in ("start", "middle", "end", "everywhere", "scattered"):
                x = with_nans(gen, dtype, n, where)
                want = ufunc.accumulate(x) if n else x.copy()
                got = getattr(scangen, op)(x)
                assert same_floats(got, want), (f"{op} {np.dtype(dtype).name}, NaN {where}, n = {n}: {got[:8]} "
                                                f"(seed {seed})")
    x = with_nans(gen, np.float64, 4097, "middle")
    assert same_floats(scangen.cummax(x, reverse=True), np.maximum.accumulate(x[::-1])[::-1]), f"seed {seed}"


def test_nan_examples_from_numpy():
    nan = np.nan
    assert same_floats(scangen.cummax(np.array([nan, 1, 2])), [nan, nan, nan])
    assert same_floats(scangen.cummax(np.array([nan, nan, nan])), [nan, nan, nan])
    assert same_floats(scangen.cummin(np.array([1.0, nan, 0.0], np.float32)), [1.0, nan, nan])
    assert same_floats(scangen.cumfmax(np.array([nan, 1, nan, 2])), [nan, 1, 1, 2])
    assert same_floats(scangen.cumfmin(np.array([nan, nan], np.float16)), [nan, nan])
    assert scangen.cumfmax(np.array([3, 1, 4], np.int32)).tolist() == [3, 3, 4]  # on integers: cummax
    # The exclusive scan starts from the identity: -inf for max, NaN for fmax.
    assert same_floats(scangen.cummax(np.array([1.0, 2.0]), exclusive=True), [-np.inf, 1.0])
    assert same_floats(scangen.cumfmax(np.array([1.0, 2.0]), exclusive=True), [nan, 1.0])


# The sum's identity is -0.0: a lone -0.0 stays -0.0, as in NumPy, PyTorch and C; +0.0 + -0.0 is +0.0.
def test_cumsum_keeps_negative_zero():
    for dtype in FLOATS:
        for x in ([-0.0], [-0.0, -0.0, -0.0], [-0.0, 0.0, -0.0], [1.0, -1.0, -0.0], [-0.0, 2.0, -2.0]):
            a = np.array(x, dtype)
            assert same_floats(scangen.cumsum(a), np.cumsum(a)), f"cumsum({x}) = {scangen.cumsum(a)}"
    a = np.full(5000, -0.0)
    assert np.signbit(scangen.cumsum(a, reverse=True)).all()
    assert np.signbit(scangen.cumsum(np.array([5.0]), exclusive=True)[0])
