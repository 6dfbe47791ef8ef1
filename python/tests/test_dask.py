"""scangen.dask: scans of Dask arrays against NumPy and against scangen's scan of the whole array, with
blocks of awkward sizes (1, uneven, empty) along and across the axis, non-commutative operators, every
mode, and on Dask's threads, processes and a dask.distributed LocalCluster."""
import numpy as np
import pytest

import scangen

da = pytest.importorskip("dask.array", reason="needs Dask (scripts/setup-deps installs it)")
import scangen.dask as sd  # noqa: E402

AFFINE = ("type A { a: f64, b: f64 }\nscan affine_dask { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b "
          "+ y.b }; identity = A { a: 1.0, b: 0.0 }; level = device; }")


def affine_array(rng, shape):
    x = np.zeros(shape, dtype=scangen.compile(AFFINE).dtype)
    x["a"] = rng.uniform(0.5, 1.0, size=shape)
    x["b"] = rng.uniform(-1, 1, size=shape)
    return x


def close(got, want, seed):
    if want.dtype.names:
        for f in want.dtype.names:
            np.testing.assert_allclose(got[f], want[f], rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")


@pytest.mark.parametrize("kw", [dict(), dict(exclusive=True), dict(reverse=True),
                                dict(exclusive=True, reverse=True, init=(1.0, 0.5))])
def test_one_dimensional_blocks_of_every_size(kw, rng):
    rng, seed = rng
    scan = scangen.compile(AFFINE)
    x = affine_array(rng, (700,))
    d = da.from_array(x, chunks=((1, 6, 0, 300, 393),))
    close(sd.scan(scan, d, **kw).compute(), scan(x, **kw), seed)


@pytest.mark.parametrize("axis", [0, 1])
def test_two_dimensional_blocks_along_and_across_the_axis(axis, rng):
    rng, seed = rng
    scan = scangen.compile(AFFINE)
    x = affine_array(rng, (50, 37))
    d = da.from_array(x, chunks=((20, 1, 29), (10, 27)))
    # (Each variant along axis 0 is a strided kernel of its own: PoCL compiles each for tens of seconds.)
    kw = dict(exclusive=True, init=(2.0, -1.0)) if axis == 0 else dict(reverse=True)
    close(sd.scan(scan, d, axis=axis, **kw).compute(), scan(x, axis=axis, **kw), seed)
    v = rng.standard_normal((50, 37))
    dv = da.from_array(v, chunks=((20, 1, 29), (10, 27)))
    close(sd.cumsum(dv, axis=axis).compute(), np.cumsum(v, axis=axis), seed)


def test_shorthands_of_one_dimensional_arrays(rng):
    rng, seed = rng
    v = rng.standard_normal(500)
    dv = da.from_array(v, chunks=((1, 99, 0, 400),))
    close(sd.logcumsumexp(dv).compute(), np.logaddexp.accumulate(v), seed)
    close(sd.cummax(dv, reverse=True).compute(), np.maximum.accumulate(v[::-1])[::-1], seed)
    close(sd.cumprod(dv[:20] * 0 + 1.5).compute(), np.cumprod(np.full(20, 1.5)), seed)
    close(sd.cummin(dv, exclusive=True, init=0.0).compute(),
          np.minimum.accumulate(np.concatenate([[0.0], v[:-1]])), seed)


def test_processes_and_a_local_cluster(rng):
    rng, seed = rng
    scan = scangen.compile(AFFINE)
    x = affine_array(rng, (3000,))
    d = da.from_array(x, chunks=1000)
    close(sd.scan(scan, d).compute(scheduler="processes", num_workers=2), scan(x), seed)
    distributed = pytest.importorskip("distributed", reason="needs dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c):
        close(sd.scan(scan, d, reverse=True).compute(), scan(x, reverse=True), seed)


def test_refusals():
    scan = scangen.compile(AFFINE)
    with pytest.raises(TypeError, match="dask.array.Array"):
        sd.scan(scan, np.zeros(3, scan.dtype))
    with pytest.raises(TypeError, match="takes"):
        sd.scan(scan, da.zeros(3, chunks=1))
    with pytest.raises(ValueError, match="axis 2"):
        sd.scan(scan, da.from_array(np.zeros((2, 2), scan.dtype)), axis=2)
