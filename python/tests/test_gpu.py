"""PyTorch CUDA tensors, CuPy arrays, JAX arrays and __cuda_array_interface__ arrays on a CUDA GPU: zero-copy,
on the current stream, every dtype against NumPy, struct fields as tuples, out= (skipped where there is no
CUDA GPU, or without torch; the CuPy and JAX tests without those). scripts/gpu-check python runs them."""
import os

import numpy as np
import pytest

import scangen

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX, if imported, takes memory as it goes

try:
    import torch
except ImportError:
    pytest.skip("needs a CUDA GPU and PyTorch (torch is not installed)", allow_module_level=True)
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU (PyTorch sees none)", allow_module_level=True)
if scangen.runtime_info()["backend"] != "cuda":
    pytest.skip("needs a CUDA GPU (scangen's runtime is on OpenCL: "
                f"{scangen.runtime_info()['fallback_reason']})", allow_module_level=True)

SIZES = [0, 1, 2, 31, 33, 1023, 1025, 4097, 20001, 2**20 + 3]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
AFFINE = "T { a: y.a * x.a, b: y.a * x.b + y.b }"
AFFINE_TEXT = """
type Affine { a: f32, b: f32 }
scan affine { type = Affine; combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };
              identity = Affine { a: 1.0, b: 0.0 }; }
"""


def random_data(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    return (rng.integers(-8, 8, size=n, endpoint=True) / 8).astype(dtype)


def reference(op, host):
    """NumPy's loop; float sums in float64 (exact here: multiples of 1/8, small)."""
    if op == "cumsum":
        return np.cumsum(host, dtype=host.dtype) if host.dtype.kind != "f" else np.cumsum(host.astype(np.float64))
    ufunc = {"cummax": np.maximum, "cummin": np.minimum}[op]
    return ufunc.accumulate(host) if host.size else host.copy()


# Float sums against the float64 loop: |got - ref| <= TOL * (sum of |terms| so far + 1) (test_shorthands').
TOL = {np.dtype(np.float16): 2.0**-10, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def check(got_host, ref, what, host=None):
    """Exact, but for float sums (``host``: the input), within TOL of the float64 reference."""
    assert got_host.shape == ref.shape, what
    if host is not None and host.dtype.kind == "f":
        scale = np.cumsum(np.abs(host.astype(np.float64)))
        bad = np.flatnonzero(np.abs(got_host.astype(np.float64) - ref) > TOL[host.dtype] * (scale + 1))
    else:
        bad = np.flatnonzero(got_host.astype(ref.dtype) != ref)
    assert bad.size == 0, f"{what}: {bad.size} wrong, first at {bad[0]}: {got_host[bad[0]]} != {ref[bad[0]]}"


@pytest.mark.parametrize("op", ["cumsum", "cummax", "cummin"])
@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_torch_every_dtype(op, dtype, rng):
    gen, seed = rng
    for n in SIZES:
        host = random_data(gen, dtype, n)
        x = torch.from_numpy(host).cuda()
        got = getattr(scangen, op)(x)
        assert isinstance(got, torch.Tensor) and got.is_cuda and got.dtype == x.dtype and got.shape == x.shape
        check(got.cpu().numpy(), reference(op, host), f"{op} {np.dtype(dtype).name}, n = {n} (seed {seed})",
              host if op == "cumsum" else None)


@pytest.mark.parametrize("dtype", INTS + FLOATS, ids=lambda d: np.dtype(d).name)
def test_cupy_every_dtype(dtype, rng):
    cupy = pytest.importorskip("cupy")
    gen, seed = rng
    for n in SIZES:
        host = random_data(gen, dtype, n)
        got = scangen.cumsum(cupy.asarray(host))
        assert isinstance(got, cupy.ndarray) and got.dtype == host.dtype
        check(cupy.asnumpy(got), reference("cumsum", host), f"cumsum {np.dtype(dtype).name}, n = {n} (seed {seed})",
              host)


def test_torch_stream_out_exclusive_strided():
    n = 2**22 + 5
    s = torch.cuda.Stream()
    x = torch.empty(n, dtype=torch.int32, device="cuda")
    out = torch.empty(n, dtype=torch.int32, device="cuda")
    with torch.cuda.stream(s):
        x.fill_(1)  # on s: the scan must see it without a synchronisation
        assert scangen.cumsum(x, out=out) is out
        excl = scangen.cummax(torch.arange(n, device="cuda", dtype=torch.int32).flip(0), exclusive=True)
    s.synchronize()
    assert torch.equal(out, torch.arange(1, n + 1, device="cuda", dtype=torch.int32))
    assert excl[0].item() == np.iinfo(np.int32).min and excl[1].item() == n - 1
    strided = torch.ones(2 * n, dtype=torch.int32, device="cuda")[::2]
    assert torch.equal(scangen.cumsum(strided), torch.arange(1, n + 1, device="cuda", dtype=torch.int32))


def test_torch_out_aliasing_and_checks():
    n = 300_001
    x = torch.ones(n, dtype=torch.int64, device="cuda")
    assert scangen.cumsum(x, out=x) is x  # in place: through a temporary
    assert torch.equal(x, torch.arange(1, n + 1, device="cuda"))
    y = torch.ones(n + 1, dtype=torch.int64, device="cuda")
    scangen.cumsum(y[:-1], out=y[1:])  # overlapping, shifted
    assert torch.equal(y[1:], torch.arange(1, n + 1, device="cuda")) and y[0].item() == 1
    with pytest.raises(ValueError, match="of dtype int32"):
        scangen.cumsum(x, out=torch.empty(n, dtype=torch.int32, device="cuda"))
    with pytest.raises(ValueError, match="not contiguous"):
        scangen.cumsum(x, out=torch.empty(2 * n, dtype=torch.int64, device="cuda")[::2])
    with pytest.raises(TypeError, match="out must be a torch"):
        scangen.cumsum(x, out=np.empty(n, np.int64))
    with pytest.raises(TypeError, match="bfloat16"):
        scangen.cumsum(torch.ones(4, dtype=torch.bfloat16, device="cuda"))


def test_torch_half_and_cpu_tensors():
    x = torch.full((2048,), 0.125, dtype=torch.half, device="cuda")  # every partial sum k/8 <= 256: exact in f16
    got = scangen.cumsum(x)
    ref = (torch.arange(1, 2049, device="cuda", dtype=torch.float32) * 0.125).half()
    assert got.dtype == torch.half and torch.equal(got, ref)
    cpu = torch.arange(10, dtype=torch.int32)
    got = scangen.cumsum(cpu)  # the NumPy way, on the OpenCL device; a CPU tensor back
    assert isinstance(got, torch.Tensor) and not got.is_cuda and got.tolist() == np.cumsum(np.arange(10)).tolist()


def test_torch_custom_operator():
    x = torch.randint(0, 2**31 - 1, (100_001,), dtype=torch.int64, device="cuda")
    got = scangen.associative_scan("max(x, y)", x, identity="i64.min")
    assert torch.equal(got, torch.cummax(x, 0).values)


def affine_loop(a, b):
    out, c = np.empty(len(a)), 0.0
    for i in range(len(a)):
        c = float(a[i]) * c + float(b[i])
        out[i] = c
    return out


@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_struct_fields_as_a_tuple(lib, rng):
    gen, seed = rng
    xp = torch if lib == "torch" else pytest.importorskip("cupy")
    to = (lambda h: torch.from_numpy(h).cuda()) if lib == "torch" else xp.asarray
    back = (lambda t: t.cpu().numpy()) if lib == "torch" else xp.asnumpy
    for n in [0, 1, 1025, 100_003]:
        a = gen.uniform(0.5, 1.0, n).astype(np.float32)
        b = gen.uniform(-1, 1, n).astype(np.float32)
        ra, rb = scangen.associative_scan(AFFINE, (to(a), to(b)), names=("a", "b"), identity=(1.0, 0.0))
        assert type(ra).__module__.split(".")[0] == lib
        assert np.allclose(back(rb), affine_loop(a, b), rtol=1e-4, atol=1e-4), f"{lib}, n = {n} (seed {seed})"
        # Against the NumPy structured path (OpenCL): the same operator, the same results up to rounding.
        packed = np.empty(n, np.dtype([("a", np.float32), ("b", np.float32)], align=True))
        packed["a"], packed["b"] = a, b
        ref = scangen.associative_scan(AFFINE, packed, identity=(1.0, 0.0))
        assert np.allclose(back(ra), ref["a"], rtol=1e-5, atol=1e-30), f"{lib}, n = {n} (seed {seed})"
    with pytest.raises(TypeError, match="field b has dtype float64"):
        scangen.compile(AFFINE_TEXT)((to(a), to(b.astype(np.float64))))



def test_cupy_streams():
    cupy = pytest.importorskip("cupy")
    n = 2**22 + 1
    s = cupy.cuda.Stream(non_blocking=True)
    x = cupy.empty(n, dtype=cupy.int32)
    with s:
        x.fill(1)  # on s, not synchronised: the scan runs on s too
        y = scangen.cumsum(x, exclusive=True)
        m = scangen.cummin(cupy.arange(n, 0, -1, dtype=cupy.int32)[::-1])  # strided: copied on s
    s.synchronize()
    assert bool((y == cupy.arange(n, dtype=cupy.int32)).all())
    assert bool((m == 1).all())


class DLPackOnly:
    """A producer that speaks only DLPack (as a library scangen does not know): a torch tensor inside."""

    def __init__(self, t):
        self.t, self.streams = t, []

    def __dlpack__(self, stream=None, **kwargs):
        self.streams.append(stream)
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_dlpack_producer_stream_protocol():
    n = 2**22 + 7  # partial sums k / 2 < 2^22: exact in f32
    s = torch.cuda.Stream()
    x = torch.empty(n, dtype=torch.float32, device="cuda")
    with torch.cuda.stream(s):
        x.fill_(0.5)  # queued on s: torch's __dlpack__ orders it before the consumer's stream
        wrapped = DLPackOnly(x)
        got = scangen.cumsum(wrapped)
    torch.cuda.synchronize()
    assert wrapped.streams and wrapped.streams[0] not in (None, 0)
    host = got.get() if hasattr(got, "get") else got.cpu().numpy()
    assert np.array_equal(host, np.arange(1, n + 1, dtype=np.float64).astype(np.float32) * 0.5)


class CaiOnly:
    """An array that has only __cuda_array_interface__ (as Numba's), with the stream its work is on."""

    def __init__(self, t, stream):
        self.t = t
        self.__cuda_array_interface__ = {"shape": tuple(t.shape), "typestr": "<i4", "data": (t.data_ptr(), False),
                                         "strides": None, "version": 3, "stream": stream}


def test_cuda_array_interface_waits_for_the_producers_stream():
    n = 2**24 + 3
    s = torch.cuda.Stream()
    x = torch.empty(n, dtype=torch.int32, device="cuda")
    with torch.cuda.stream(s):
        x.fill_(2)
    got = scangen.cumsum(CaiOnly(x, s.cuda_stream))  # the scan's stream waits for s
    torch.cuda.synchronize()
    host = got.get() if hasattr(got, "get") else got.cpu().numpy()
    assert np.array_equal(host, 2 * np.arange(1, n + 1, dtype=np.int64))


def test_jax():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    x = jnp.arange(1, 100_001, dtype=jnp.int32)
    got = scangen.cumsum(x)
    assert type(got).__module__.split(".")[0] in ("jax", "jaxlib"), type(got)
    assert np.array_equal(np.asarray(got), np.cumsum(np.arange(1, 100_001, dtype=np.int32), dtype=np.int32))
    with pytest.raises(TypeError, match="out= is not supported"):
        scangen.cumsum(x, out=x)


# ---- axis=, reverse= and segments on the GPU (test_shapes.py runs the same through a stand-in) ----

@pytest.mark.parametrize("shape", [(3, 257), (1025, 3), (2, 33, 5), (2, 3, 4, 5), (4097, 2), (0, 5), (5, 0)],
                         ids=str)
def test_torch_every_axis_and_strides(shape, rng):
    gen, seed = rng
    host = gen.integers(-1000, 1000, size=shape, dtype=np.int64).astype(np.int32)
    base = torch.from_numpy(host).cuda()
    for name, x in (("c", base), ("T", base.T), ("sliced", base[..., ::2]), ("flipped", base.flip(0))):
        for axis in [None] + list(range(-x.ndim, x.ndim)):
            got, aggs = scangen.cumsum(x, axis=axis, return_aggregates=True)
            ref = x.reshape(-1) if axis is None else x
            want = torch.cumsum(ref, 0 if axis is None else axis, dtype=torch.int32)
            assert torch.equal(got, want), f"{name} {tuple(x.shape)} axis {axis}, seed {seed}"
            if axis is not None:
                assert torch.equal(aggs, ref.sum(axis, dtype=torch.int32)), f"aggregates {name} axis {axis}"
        got = scangen.cummax(x, axis=0, exclusive=True, init=-5000)
        want = torch.cat([torch.full_like(x[:1], -5000), torch.cummax(x, 0).values[:-1].clamp(min=-5000)], 0)
        assert torch.equal(got, want[: x.shape[0]]), f"cummax exclusive {name}, seed {seed}"


@pytest.mark.parametrize("shape", [(3, 257), (1025, 3), (2, 33, 5), (2, 3, 4, 5), (4097, 2), (0, 5), (5, 0)],
                         ids=str)
def test_torch_reverse_along_every_axis(shape, rng):
    gen, seed = rng
    host = gen.integers(-1000, 1000, size=shape, dtype=np.int64).astype(np.int32)
    base = torch.from_numpy(host).cuda()
    for name, x in (("c", base), ("T", base.T), ("sliced", base[..., ::2])):
        for axis in range(-x.ndim, x.ndim):
            got, aggs = scangen.cumsum(x, axis=axis, reverse=True, return_aggregates=True)
            want = torch.flip(torch.cumsum(torch.flip(x, [axis]), axis, dtype=torch.int32), [axis])
            assert torch.equal(got, want), f"reverse {name} {tuple(x.shape)} axis {axis}, seed {seed}"
            assert torch.equal(aggs, x.sum(axis, dtype=torch.int32)), f"reverse aggregates {name} axis {axis}"


def test_cupy_axis_and_strides(rng):
    cupy = pytest.importorskip("cupy")
    gen, seed = rng
    host = gen.integers(-1000, 1000, size=(33, 70, 3), dtype=np.int64)
    x = cupy.asarray(host)
    for view, ref in ((x, host), (x.transpose(2, 0, 1), host.transpose(2, 0, 1)), (x[:, ::-3], host[:, ::-3])):
        for axis in range(-3, 3):
            got = scangen.cumsum(view, axis=axis)
            assert isinstance(got, cupy.ndarray) and np.array_equal(cupy.asnumpy(got), np.cumsum(ref, axis=axis)), \
                f"axis {axis}, seed {seed}"


@pytest.mark.parametrize("n", [0, 1, 2, 1023, 1025, 4097, 2**20 + 3])
def test_torch_reverse_and_segments(n, rng):
    gen, seed = rng
    host = gen.integers(-1000, 1000, size=n, dtype=np.int64).astype(np.int32)
    x = torch.from_numpy(host).cuda()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):  # on a side stream, not synchronised before the checks' work
        rev = scangen.cumsum(x, reverse=True)
        rev_x = scangen.cumsum(x, reverse=True, exclusive=True, init=7)
    s.synchronize()
    want = torch.flip(torch.cumsum(torch.flip(x, [0]), 0, dtype=torch.int32), [0])
    assert torch.equal(rev, want), f"reverse n {n}, seed {seed}"
    zero = torch.zeros(1 if n else 0, dtype=torch.int32, device="cuda")
    assert torch.equal(rev_x, torch.cat([want[1:], zero]) + 7), f"reverse exclusive n {n}, seed {seed}"
    count = int(gen.integers(1, 50))
    cuts = np.sort(gen.integers(0, n + 1, size=count - 1))
    offsets = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    starts = np.zeros(n, bool)
    starts[offsets[:-1][offsets[:-1] < n]] = True
    ref = host.copy()
    for a, b in zip(offsets, offsets[1:]):
        ref[a:b] = np.cumsum(host[a:b], dtype=np.int32)
    totals = [int(host[a:b].sum(dtype=np.int32)) for a, b in zip(offsets, offsets[1:])]
    got, aggs = scangen.cumsum(x, offsets=torch.from_numpy(offsets).cuda(), return_aggregates=True)
    assert np.array_equal(got.cpu().numpy(), ref) and aggs.tolist() == totals, f"offsets n {n}, seed {seed}"
    got = scangen.cumsum(x, flags=torch.from_numpy(starts).cuda())
    assert np.array_equal(got.cpu().numpy(), ref), f"flags n {n}, seed {seed}"
    keys = torch.from_numpy(np.cumsum(starts).astype(np.int64)).cuda()
    got, aggs = scangen.cumsum(x, keys=keys, return_aggregates=True)
    assert np.array_equal(got.cpu().numpy(), ref), f"keys n {n}, seed {seed}"
    assert aggs.tolist() == [t for t, (a, b) in zip(totals, zip(offsets, offsets[1:])) if b > a]
    # reverse: every segment from its last element, the totals in segment order
    rev_ref = host.copy()
    for a, b in zip(offsets, offsets[1:]):
        rev_ref[a:b] = np.cumsum(host[a:b][::-1], dtype=np.int32)[::-1]
    got, aggs = scangen.cumsum(x, offsets=torch.from_numpy(offsets).cuda(), reverse=True, return_aggregates=True)
    assert np.array_equal(got.cpu().numpy(), rev_ref) and aggs.tolist() == totals, f"reverse offsets n {n}, seed {seed}"
    got = scangen.cumsum(x, flags=torch.from_numpy(starts).cuda(), reverse=True)
    assert np.array_equal(got.cpu().numpy(), rev_ref), f"reverse flags n {n}, seed {seed}"
    got, aggs = scangen.cumsum(x, keys=keys, reverse=True, return_aggregates=True)
    assert np.array_equal(got.cpu().numpy(), rev_ref), f"reverse keys n {n}, seed {seed}"
    assert aggs.tolist() == [t for t, (a, b) in zip(totals, zip(offsets, offsets[1:])) if b > a]
    with pytest.raises(ValueError, match="offsets"):
        scangen.cumsum(x, offsets=torch.tensor([0, n + 1], device="cuda"))


@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_keys_compared_by_key_equal(lib, rng):
    """A spec's key_equal on CUDA arrays: the results, and the aggregates' count (the keys copied to the host
    and compared there with key_equal)."""
    mod = torch if lib == "torch" else pytest.importorskip("cupy")
    gen, seed = rng
    by_decade = scangen.compile("scan by_decade { type = i32; op = add; segments = keys; key = i32; "
                                "key_equal(a, b) = a / 10 == b / 10; }")
    for n in (0, 1, 1025, 2**20 + 3):
        keys = np.sort(gen.integers(0, 2000, n)).astype(np.int32)
        host = random_data(gen, np.int32, n)
        starts = np.ones(n, bool)
        starts[1:] = keys[1:] // 10 != keys[:-1] // 10
        offsets = np.append(np.flatnonzero(starts), n) if n else np.array([0])
        ref = host.copy()
        for a, b in zip(offsets, offsets[1:]):
            ref[a:b] = np.cumsum(host[a:b], dtype=np.int32)
        put = (lambda a: torch.from_numpy(a).cuda()) if lib == "torch" else mod.asarray
        got, aggs = by_decade(put(host), keys=put(keys), return_aggregates=True)
        get = (lambda a: a.cpu().numpy()) if lib == "torch" else (lambda a: a.get())
        assert np.array_equal(get(got), ref), f"{lib} key_equal n {n}, seed {seed}"
        want = [int(host[a:b].sum(dtype=np.int32)) for a, b in zip(offsets, offsets[1:])]
        assert get(aggs).tolist() == want, f"{lib} key_equal aggregates n {n}"


# NaN propagates through cummax / cummin and is ignored by cumfmax / cumfmin, as NumPy's ufuncs; float sums
# keep -0.0: on the GPU (PyTorch and CuPy), at the start, middle and end and everywhere.
@pytest.mark.parametrize("lib", ["torch", "cupy"])
def test_nan_and_negative_zero_on_the_gpu(lib, rng):
    gen, seed = rng
    mod = torch if lib == "torch" else pytest.importorskip("cupy")
    to_gpu = (lambda a: torch.from_numpy(a).cuda()) if lib == "torch" else mod.asarray
    to_host = (lambda t: t.cpu().numpy()) if lib == "torch" else mod.asnumpy
    ufuncs = {"cummax": np.maximum, "cummin": np.minimum, "cumfmax": np.fmax, "cumfmin": np.fmin}
    for dtype in FLOATS:
        for n in (1, 2, 1023, 4097, 2**20 + 3):
            for where in ("start", "middle", "end", "everywhere", "scattered"):
                x = (gen.integers(-8, 8, size=n, endpoint=True) / 8).astype(dtype)
                x[x == 0] = -0.0
                pick = {"start": [0], "middle": [n // 2], "end": [n - 1], "everywhere": slice(None),
                        "scattered": gen.random(n) < 0.01}[where]
                x[pick] = np.nan
                for op, ufunc in ufuncs.items():
                    got = to_host(getattr(scangen, op)(to_gpu(x)))
                    want = ufunc.accumulate(x)
                    ok = np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(
                        got[~np.isnan(want)], want[~np.isnan(want)])
                    assert ok, f"{lib} {op} {np.dtype(dtype).name} NaN {where}, n = {n} (seed {seed})"
        z = np.full(4097, -0.0, dtype)
        assert np.signbit(to_host(scangen.cumsum(to_gpu(z)))).all(), f"{lib} cumsum of -0.0 {np.dtype(dtype).name}"
