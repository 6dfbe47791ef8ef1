"""scangen.dask: scans of Dask arrays against NumPy, a Python loop over the operator and scangen's scan of the
whole array, with blocks of awkward sizes (1, uneven, empty, more blocks than elements) along and across the
axis, non-commutative operators (affine maps, 2x2 matrices), every mode, and on Dask's threads, processes and a
dask.distributed LocalCluster. Integer results are compared exactly, f64 ones within 1e-12 (rtol and atol)."""
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


MAT2 = ("type M { a: u64, b: u64, c: u64, d: u64 }\nscan mat2_dask { type = M; combine(x, y) = M { a: x.a * y.a + "
        "x.b * y.c, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; identity = "
        "M { a: 1, b: 0, c: 0, d: 1 }; level = device; }")  # 2x2 matrices, wrapping mod 2^64: exact


def affine_combine(x, y):
    return (y[0] * x[0], y[0] * x[1] + y[1])


def mat2_combine(x, y):
    m = (1 << 64) - 1
    return ((x[0] * y[0] + x[1] * y[2]) & m, (x[0] * y[1] + x[1] * y[3]) & m,
            (x[2] * y[0] + x[3] * y[2]) & m, (x[2] * y[1] + x[3] * y[3]) & m)


def loop_scan(combine, identity, xs, exclusive=False, reverse=False, init=None):
    """The scan as its definition says, one element at a time (reverse: from the last, the running value on
    the left), from init (the identity when None)."""
    acc, out = (identity if init is None else init), []
    for v in (xs[::-1] if reverse else xs):
        if exclusive:
            out.append(acc)
        acc = combine(acc, v)
        if not exclusive:
            out.append(acc)
    return out[::-1] if reverse else out


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


# 1-D chunkings: sizes of the blocks, or the number of elements to cut at random (empty blocks likely).
CHUNKINGS = {"one block": (700,), "uneven, empty ones": (0, 1, 6, 0, 0, 300, 393, 0),
             "more blocks than elements": (0, 1, 0, 0, 2, 0, 1, 0, 0, 1, 0), "one element each": (1,) * 9,
             "empty array": (0, 0, 0), "random cuts": 1000}
MODES = {"inclusive": dict(), "exclusive": dict(exclusive=True), "reverse": dict(reverse=True),
         "init": dict(init=True), "exclusive reverse init": dict(exclusive=True, reverse=True, init=True)}


def chunks_of(chunking, rng):
    if isinstance(chunking, tuple):
        return chunking
    cuts = np.sort(rng.integers(0, chunking + 1, size=39))
    return tuple(np.diff(np.concatenate([[0], cuts, [chunking]])).tolist())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chunking", CHUNKINGS)
def test_one_dimensional_operators_and_chunkings(chunking, mode, rng):
    """Affine maps (f64), 2x2 matrices (u64, exact) and an i32 sum into i64 (exact), each against the loop
    over its operator (NumPy's cumsum for the sum), in every mode."""
    rng, seed = rng
    chunks = chunks_of(CHUNKINGS[chunking], rng)
    n = sum(chunks)
    kw = MODES[mode]

    affine = scangen.compile(AFFINE)
    x = affine_array(rng, (n,))
    init = (2.0, 0.5) if kw.get("init") else None
    got = sd.scan(affine, da.from_array(x, chunks=(chunks,)), **{**kw, "init": init}).compute()
    want = np.array(loop_scan(affine_combine, (1.0, 0.0), x.tolist(), kw.get("exclusive", False),
                              kw.get("reverse", False), init), dtype=affine.dtype).reshape(n)
    assert got.shape == (n,) and got.dtype == affine.dtype
    close(got, want, seed)

    mat2 = scangen.compile(MAT2)
    m = np.zeros(n, mat2.dtype)
    for f in "abcd":
        m[f] = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    init = (3, 1, 4, 1) if kw.get("init") else None
    got = sd.scan(mat2, da.from_array(m, chunks=(chunks,)), **{**kw, "init": init}).compute()
    want = np.array(loop_scan(mat2_combine, (1, 0, 0, 1), [tuple(int(v) for v in e) for e in m.tolist()],
                              kw.get("exclusive", False), kw.get("reverse", False), init),
                    dtype=mat2.dtype).reshape(n)
    assert got.dtype == mat2.dtype and np.array_equal(got, want), f"seed {seed}"

    v = rng.integers(-2**31, 2**31, size=n, dtype=np.int32)
    init = 7 if kw.get("init") else 0
    got = sd.cumsum(da.from_array(v, chunks=(chunks,)), dtype=np.int64,
                    **{**kw, "init": init if kw.get("init") else None}).compute()
    w = v[::-1] if kw.get("reverse") else v
    want = init + np.cumsum(w, dtype=np.int64)
    if kw.get("exclusive"):
        want = np.concatenate([[init], want])[:n].astype(np.int64)
    want = want[::-1] if kw.get("reverse") else want
    assert got.dtype == np.int64 and np.array_equal(got, want), f"seed {seed}"


def test_one_dimensional_strided_blocks_and_many_of_them(rng):
    """Blocks that are strided views (a step along the axis), and 2000 blocks (the carries' task)."""
    rng, seed = rng
    scan = scangen.compile(AFFINE)
    x = affine_array(rng, (6000,))
    d = da.from_array(x, chunks=700)[::3]
    close(sd.scan(scan, d, reverse=True).compute(), scan(x[::3].copy(), reverse=True), seed)
    v = rng.integers(-2**31, 2**31, size=6000, dtype=np.int32)
    got = sd.cumsum(da.from_array(v, chunks=3), dtype=np.int64, exclusive=True).compute()
    assert np.array_equal(got, np.concatenate([[0], np.cumsum(v[:-1], dtype=np.int64)])), f"seed {seed}"


SQUARES = "scan squares_dask { type = f64; convert(v) = v * v; op = add; level = device; }"
SIZES = "scan sizes_dask { type = u32; input = u8; op = add; level = device; }"


@pytest.mark.parametrize("axis", [0, 1])
def test_converting_scans(axis, rng):
    """Scans whose aggregates and carries are not inputs: a convert of the same type (squares), an input
    type of their own (u8 into u32, i32 into i64); 2-D along either axis, and 1-D."""
    rng, seed = rng
    chunks = ((20, 0, 17), (10, 40))
    v = rng.standard_normal((37, 50))
    got = sd.scan(SQUARES, da.from_array(v, chunks=chunks), axis=axis, reverse=True, exclusive=True,
                  init=1.5).compute()
    want = 1.5 + np.cumsum(np.flip(v * v, axis), axis=axis)
    want = np.flip(np.concatenate([np.full_like(np.take(want, [0], axis), 1.5), want], axis=axis), axis)
    close(got, np.take(want, range(1, v.shape[axis] + 1), axis), seed)
    u8 = rng.integers(0, 256, size=(37, 50), dtype=np.uint8)
    got = sd.scan(SIZES, da.from_array(u8, chunks=chunks), axis=axis).compute()
    assert np.array_equal(got, np.cumsum(u8, axis=axis, dtype=np.uint32)), f"seed {seed}"
    i32 = rng.integers(-2**31, 2**31, size=(37, 50), dtype=np.int32)
    got = sd.cumsum(da.from_array(i32, chunks=chunks), axis=axis, dtype=np.int64, exclusive=True).compute()
    want = np.cumsum(i32, axis=axis, dtype=np.int64) - i32
    assert got.dtype == np.int64 and np.array_equal(got, want), f"seed {seed}"
    line = v.reshape(-1)[axis * 37:axis * 37 + 37]
    close(sd.scan(SQUARES, da.from_array(line, chunks=((5, 0, 32),))).compute(), np.cumsum(line * line), seed)


def test_converts_that_read_the_index_are_refused():
    index = "scan index_dask { type = u64; input = u8; convert(v, i) = i; op = add; level = device; }"
    for shape, chunks in (((10,), 4), ((3, 10), (3, 4))):
        with pytest.raises(ValueError, match="index"):
            sd.scan(index, da.from_array(np.zeros(shape, np.uint8), chunks=chunks)).compute()


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
