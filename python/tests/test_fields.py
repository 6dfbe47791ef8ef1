"""Struct elements as one array per field (a tuple or dict of arrays), against the structured-array path
and plain loops; the field checks."""
import pathlib

import numpy as np
import pytest

import scangen
from conftest import SIZES
from test_custom import affine_loop
from test_dlpack import Producer

ROOT = pathlib.Path(__file__).resolve().parents[2]
AFFINE = ROOT / "examples" / "affine.scan"

# A nested struct of mixed sizes: a (value, count) pair inside, a running max of a u8 and an i64 sum.
NESTED = """
type Pair { v: f64, c: i32 }
type Acc { p: Pair, m: u8, s: i64 }
scan acc {
  type = Acc;
  combine(x, y) = Acc { p: Pair { v: x.p.v + y.p.v, c: x.p.c + y.p.c }, m: max(x.m, y.m), s: x.s + y.s };
  identity = Acc { p: Pair { v: 0.0, c: 0 }, m: 0, s: 0 };
}
"""


def test_tuple_against_the_structured_array(rng):
    gen, seed = rng
    scan = scangen.compile(AFFINE)
    for n in SIZES:
        a = gen.uniform(0.5, 1.0, n).astype(np.float32)
        b = gen.uniform(-1, 1, n).astype(np.float32)
        ra, rb = scan((a, b))
        assert ra.dtype == rb.dtype == np.float32 and ra.shape == rb.shape == (n,)
        assert ra.flags.c_contiguous and rb.flags.c_contiguous
        packed = np.empty(n, scan.dtype)
        packed["a"], packed["b"] = a, b
        ref = scan(packed)
        # Two calls of a float scan by decoupled look-back may differ in their last bits.
        assert np.allclose(ra, ref["a"], rtol=1e-5, atol=1e-6), f"n = {n} (seed {seed})"
        assert np.allclose(rb, ref["b"], rtol=1e-5, atol=1e-6), f"n = {n} (seed {seed})"
        loop_a, loop_b = affine_loop(a, b, exclusive=True)
        ea, eb = scan((a, b), exclusive=True)
        assert np.allclose(eb, loop_b, rtol=1e-4, atol=1e-4), f"exclusive, n = {n} (seed {seed})"


def test_dict_strided_fields_and_out(rng):
    gen, seed = rng
    scan = scangen.compile(AFFINE)
    a = gen.uniform(0.5, 1.0, 2 * 3001).astype(np.float32)[::2]  # strided: copied in the packing
    b = gen.uniform(-1, 1, 3001).astype(np.float32)[::-1]
    got = scan({"b": b, "a": a})  # a dict: by name, in any order; returns a dict
    assert list(got) == ["a", "b"]
    ref_a, ref_b = affine_loop(a, b)
    assert np.allclose(got["b"], ref_b, rtol=1e-4, atol=1e-4), f"seed {seed}"
    out = (np.empty(3001, np.float32), np.zeros(6002, np.float32)[::2])
    assert scan((a, b), out=out) is out
    # Two calls of a float scan by decoupled look-back may differ in their last bits.
    same = lambda u, v: np.allclose(u, v, rtol=1e-5, atol=1e-6)  # noqa: E731
    assert same(out[0], got["a"]) and same(out[1], got["b"]), f"seed {seed}"
    assert scan((a[:0], b[:0]))[0].shape == (0,)
    ia, ib = a.copy(), b.copy()
    assert scan((ia, ib), out=(ia, ib))[1] is ib  # in place: the kernel writes a temporary, copied to out
    assert same(ia, got["a"]) and same(ib, got["b"]), f"seed {seed}"


def test_nested_struct(rng):
    gen, seed = rng
    scan = scangen.compile(NESTED)
    n = 5003
    v = gen.uniform(-1, 1, n)
    c = gen.integers(-100, 100, n, dtype=np.int32)
    m = gen.integers(0, 255, n, dtype=np.uint8, endpoint=True)
    s = gen.integers(-2**40, 2**40, n, dtype=np.int64)
    (gv, gc), gm, gs = scan(((v, c), m, s))  # nested as the struct is
    assert np.allclose(gv, np.cumsum(v), atol=1e-9), f"seed {seed}"
    assert np.array_equal(gc, np.cumsum(c, dtype=np.int32)), f"seed {seed}"
    assert np.array_equal(gm, np.maximum.accumulate(m)), f"seed {seed}"
    assert np.array_equal(gs, np.cumsum(s)), f"seed {seed}"


def test_associative_scan_of_fields(rng):
    gen, seed = rng
    a = gen.uniform(0.5, 1.0, 1000).astype(np.float32)
    b = gen.uniform(-1, 1, 1000).astype(np.float32)
    combine = "T { a: y.a * x.a, b: y.a * x.b + y.b }"
    by_name = scangen.associative_scan(combine, {"a": a, "b": b}, identity=(1.0, 0.0))
    by_position = scangen.associative_scan(combine, (a, b), names=("a", "b"), identity=(1.0, 0.0))
    ref_a, ref_b = affine_loop(a, b)
    assert np.allclose(by_name["b"], ref_b, rtol=1e-4, atol=1e-4), f"seed {seed}"
    assert np.array_equal(by_name["b"], by_position[1]) and np.array_equal(by_name["a"], by_position[0])
    with pytest.raises(TypeError, match="needs names="):
        scangen.associative_scan(combine, (a, b), identity=(1.0, 0.0))


def test_field_errors():
    scan = scangen.compile(AFFINE)
    a = np.ones(4, np.float32)
    with pytest.raises(TypeError, match=r"takes a tuple of 2 arrays for x, one per field \(a, b\); it is a tuple of 3"):
        scan((a, a, a))
    with pytest.raises(TypeError, match=r"takes the fields a: float32, b: float32 \(type Affine\); field b has "
                                        r"dtype float64"):
        scan((a, np.ones(4)))
    with pytest.raises(ValueError, match=r"one length; they have \[3, 4\]"):
        scan((a, a[:3]))
    with pytest.raises(TypeError, match="dict of the fields a, b"):
        scan({"a": a, "c": a})
    with pytest.raises(TypeError, match="one kind; field a is a numpy array, field b a test_dlpack"):
        scan((a, Producer(a)))
    with pytest.raises(TypeError, match="expected a NumPy array"):
        scan(([1.0], [2.0]))
    with pytest.raises(ValueError, match="out must have shape"):
        scan((a, a), out=(np.empty(4, np.float32), np.empty(4, np.float64)))
    with pytest.raises(TypeError, match="a tuple is for struct types"):
        scangen.compile("scan add_i32 { type = i32; op = add; level = device; }")((a, a))
    with pytest.raises(TypeError, match="scans one array, not a tuple"):
        scangen.cumsum((a, a))


# A struct input converted to another type, with the index: the kernel reads the fields as arrays and
# applies the spec's convert to the struct they make.
WEIGHTED = """
type Sample { value: f32, weight: u16, tag: i8 }
type Sum { s: f64, w: u64 }
scan weighted {
  type = Sum;
  input = Sample;
  convert(x, i) = Sum { s: f64(x.value) * f64(x.weight) + f64(x.tag), w: u64(x.weight) + i };
  combine(p, q) = Sum { s: p.s + q.s, w: p.w + q.w };
  identity = Sum { s: 0.0, w: 0 };
}
"""


def test_fields_read_as_arrays_without_packing(rng):
    gen, seed = rng
    affine = scangen.compile(AFFINE)
    kernel = affine._variant(affine._kernel_for(affine.backend), None, None)
    direct = kernel.fields()
    assert direct is not None  # the spec's field-array form: input = f32, f32
    assert "input = f32, f32;" in direct.spec_text
    scan = scangen.compile(WEIGHTED)
    for n in (0, 1, 4097, 100003):
        value = gen.uniform(-2, 2, n).astype(np.float32)
        weight = gen.integers(0, 1000, n, dtype=np.uint16)
        tag = gen.integers(-128, 127, n, dtype=np.int8, endpoint=True)
        gs, gw = scan((value, weight, tag))
        packed = np.empty(n, scan.input_dtype)
        packed["value"], packed["weight"], packed["tag"] = value, weight, tag
        ref = scan(packed)
        assert np.allclose(gs, ref["s"], rtol=1e-9, atol=1e-6), f"n = {n} (seed {seed})"
        assert np.array_equal(gw, ref["w"]), f"n = {n} (seed {seed})"
        assert np.array_equal(gw, np.cumsum(weight.astype(np.uint64) + np.arange(n, dtype=np.uint64)))
        # reverse = True has no field-array form: packed, the same results.
        rs, rw = scan((value, weight, tag), reverse=True)
        assert np.array_equal(rw, scan(packed, reverse=True)["w"]), f"reverse, n = {n} (seed {seed})"


def test_fields_of_a_convert_that_reads_its_neighbours():
    # prev(e) is the element before: the fields are packed into structs (a segfault before).
    s = scangen.compile("type P { a: f64, b: f64 }\nscan nbp { type = f64; input = P; "
                        "convert(e) = prev(e).a * 10.0 + e.b; op = add; level = device; }")
    a, b = np.arange(5.0), np.ones(5)
    packed = np.zeros(5, s.input_dtype)
    packed["a"], packed["b"] = a, b
    want = np.cumsum(np.concatenate([[a[0]], a[:-1]]) * 10.0 + b)
    assert s((a, b)).tolist() == want.tolist()
    assert s(packed).tolist() == want.tolist()


def test_a_convert_reading_its_neighbours_refuses_the_lines_of_an_nd_array():
    # The rows and column kernels read no neighbours: every line took the first line's (a wrong result
    # before); an N-d array is refused with the reason, a 1-D array scans, and so does each line alone.
    s = scangen.compile("scan nd_next { type = f64; convert(e) = next(e); op = add; level = device; }")
    x = np.arange(15.0).reshape(3, 5)
    for axis in (-1, 0):
        with pytest.raises(scangen.ScanError, match=r"prev\(\.\.\.\) / next\(\.\.\.\)"):
            s(x, axis=axis)
    for row in x:
        want = np.cumsum(np.append(row[1:], row[-1]))
        np.testing.assert_array_equal(s(row), want)
