"""Custom operators: scalar and struct, non-commutative, against plain Python loops."""
import pathlib

import numpy as np

import scangen
from conftest import SIZES

AFFINE = np.dtype([("a", np.float32), ("b", np.float32)])
ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_scalar_custom_operator(rng):
    gen, seed = rng
    # x * y + x + y = (x + 1)(y + 1) - 1 on u32, wrapping: associative, identity 0.
    for n in SIZES:
        x = gen.integers(0, 2**32 - 1, size=n, dtype=np.uint32, endpoint=True)
        got = scangen.associative_scan("x * y + x + y", x, identity=0)
        ref = np.empty(n, np.uint32)
        c = 0
        for i in range(n):  # the loop, in Python integers, reduced mod 2^32
            c = (c * int(x[i]) + c + int(x[i])) % 2**32
            ref[i] = c
        bad = np.flatnonzero(got != ref)
        assert bad.size == 0, f"n = {n}: first wrong at {bad[0]} (seed {seed})"


def affine_loop(a, b, exclusive=False):
    """x[i] = a[i] * x[i-1] + b[i], in float64, from x[-1] = 0 (identity (1, 0))."""
    out_a, out_b = np.empty(len(a)), np.empty(len(a))
    ca, cb = 1.0, 0.0
    for i in range(len(a)):
        if exclusive:
            out_a[i], out_b[i] = ca, cb
        ca, cb = float(a[i]) * ca, float(a[i]) * cb + float(b[i])
        if not exclusive:
            out_a[i], out_b[i] = ca, cb
    return out_a, out_b


def test_affine_non_commutative(rng):
    gen, seed = rng
    for n in SIZES:
        x = np.empty(n, AFFINE)
        x["a"] = gen.uniform(0.5, 1.0, n)
        x["b"] = gen.uniform(-1, 1, n)
        got = scangen.associative_scan("T { a: y.a * x.a, b: y.a * x.b + y.b }", x, identity=(1.0, 0.0))
        assert got.dtype == AFFINE
        ref_a, ref_b = affine_loop(x["a"], x["b"])
        # f32 against the float64 loop: within 1e-4, relative and absolute (a in [0.5, 1] keeps b moderate).
        assert np.allclose(got["b"], ref_b, rtol=1e-4, atol=1e-4), f"affine b, n = {n} (seed {seed})"
        assert np.allclose(got["a"], ref_a, rtol=1e-3, atol=1e-30), f"affine a, n = {n} (seed {seed})"


def test_affine_file_exclusive(rng):
    gen, seed = rng
    scan = scangen.compile(ROOT / "examples" / "affine.scan")
    assert scan.dtype == AFFINE and scan.name == "affine_recurrence"
    x = np.zeros(5000, scan.dtype)
    x["a"] = gen.uniform(0.5, 1.0, 5000)
    x["b"] = gen.uniform(-1, 1, 5000)
    got = scan(x, exclusive=True)
    ref_a, ref_b = affine_loop(x["a"], x["b"], exclusive=True)
    assert np.allclose(got["b"], ref_b, rtol=1e-4, atol=1e-4), f"seed {seed}"
    assert got["a"][0] == 1 and got["b"][0] == 0
    # A strided structured view is copied, not misread.
    view = np.zeros(10000, scan.dtype)[::2]
    view[:] = x
    # Float scans by decoupled look-back may differ in their last bits from call to
    # call (the tiles' totals combine in an order that depends on timing).
    again = scan(view, exclusive=True)
    assert all(np.allclose(again[f], got[f], rtol=1e-5, atol=1e-6) for f in ("a", "b")), f"seed {seed}"


def test_compile_is_cached():
    text = "scan add_i32 { type = i32; op = add; level = device; }"  # the text cumsum compiles
    assert scangen.compile(text) is scangen.compile(text)
    info = scangen.runtime_info()
    assert info["backend"] in ("opencl", "cuda") and info["device_name"]


def test_threads():
    import concurrent.futures

    x = np.arange(30000, dtype=np.int32)
    ref = np.cumsum(x, dtype=np.int32)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: scangen.cumsum(x), range(16)))
    assert all(np.array_equal(r, ref) for r in results)
