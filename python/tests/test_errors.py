"""Errors: scangen's diagnostics, dtype and layout mismatches, what is not there yet."""
import numpy as np
import pytest

import scangen

SUM_I32 = "scan add_i32 { type = i32; op = add; level = device; }"  # the text cumsum compiles


def test_diagnostic_has_location_and_caret():
    with pytest.raises(scangen.ScanError) as e:
        scangen.compile("scan s { type = i32; op = sum; }")
    text = str(e.value)
    assert "<scan text>:1:27: error: unknown operator 'sum'; did you mean 'add'?" in text
    assert "\n                            ^" in text
    assert isinstance(e.value, ValueError)


def test_diagnostic_from_a_file(tmp_path):
    bad = tmp_path / "bad.scan"
    bad.write_text("scan s {\n  type = i33;\n  op = add;\n}\n")
    with pytest.raises(scangen.ScanError, match=r"bad\.scan:2:10: error: .*i33"):
        scangen.compile(str(bad))
    with pytest.raises(scangen.ScanError, match="cannot read"):
        scangen.compile(str(tmp_path / "missing.scan"))


def test_not_associative():
    with pytest.raises(scangen.ScanError, match="no kernel is made"):
        scangen.associative_scan("x - y", np.arange(5, dtype=np.int32), identity=0)


def test_dtype_mismatch():
    scan = scangen.compile(SUM_I32)
    with pytest.raises(TypeError, match="takes int32 elements .* has dtype int64"):
        scan(np.arange(5, dtype=np.int64))
    with pytest.raises(TypeError, match="bool"):
        scangen.cumsum(np.ones(3, dtype=bool))
    with pytest.raises(TypeError, match="expected a NumPy array"):
        scan([1, 2, 3])


def test_struct_layout_mismatch():
    scan = scangen.compile("type P { a: f32, b: f64 }\n"
                           "scan p { type = P; combine(x, y) = P { a: x.a + y.a, b: x.b + y.b };"
                           " identity = P { a: 0.0, b: 0.0 }; }")
    assert scan.dtype.itemsize == 16 and scan.dtype.fields["b"][1] == 8
    packed = np.zeros(4, np.dtype([("a", np.float32), ("b", np.float64)]))  # 12 bytes, b at 4
    with pytest.raises(TypeError, match="C layout"):
        scan(packed)
    aligned = np.ones(4, np.dtype([("a", np.float32), ("b", np.float64)], align=True))
    assert scan(aligned)["b"].tolist() == [1, 2, 3, 4]
    swapped = np.zeros(4, np.dtype([("b", np.float64), ("a", np.float32)], align=True))
    with pytest.raises(TypeError):
        scan(swapped)


def test_not_implemented_yet():
    scan = scangen.compile(SUM_I32)
    # What scangen's shaped and segmented scans do not combine with: named.
    with pytest.raises(NotImplementedError, match="flags= with a 2-D array"):
        scan(np.zeros((2, 2), np.int32), flags=np.ones(4, np.uint8))
    with pytest.raises(NotImplementedError, match="level = block"):
        scangen.compile("scan b { type = i32; op = add; level = block; threads = 64; }")


def test_bad_out_and_init():
    scan = scangen.compile(SUM_I32)
    with pytest.raises(ValueError, match="out must have shape"):
        scan(np.arange(4, dtype=np.int32), out=np.empty(3, np.int32))
    with pytest.raises(ValueError, match="out must have shape"):
        scan(np.arange(4, dtype=np.int32), out=np.empty(4, np.int64))
    with pytest.raises(ValueError, match="out of range"):
        scan(np.arange(4, dtype=np.int32), axis=1)
    with pytest.raises(OverflowError):
        scangen.cumsum(np.arange(4, dtype=np.int8), init=1000)


def test_diagnostic_of_a_custom_operator():
    # The generated text is what the location counts in: the combine line, the caret under the mistake.
    with pytest.raises(scangen.ScanError) as e:
        scangen.associative_scan("max(x, z)", np.arange(3, dtype=np.int32), identity=0)
    lines = str(e.value).splitlines()
    at = next(i for i, line in enumerate(lines) if "error: unknown name 'z'" in line)
    assert lines[at].startswith("<scan text>:3:26: error:")
    assert lines[at + 1].strip() == "combine(x, y) = max(x, z);"
    assert lines[at + 2].index("^") == lines[at + 1].index("z")


def test_out_rules():
    x = np.arange(1, 9, dtype=np.int32)
    ref = np.cumsum(x, dtype=np.int32)
    # out may be x itself, or overlap it: the kernel reads a copy of x (OpenCL buffers).
    y = x.copy()
    assert scangen.cumsum(y, out=y) is y and np.array_equal(y, ref)
    z = np.concatenate([x, [0]]).astype(np.int32)
    assert np.array_equal(scangen.cumsum(z[:8], out=z[1:]), ref) and np.array_equal(z[1:], ref)
    frozen = np.empty(8, np.int32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="scangen: out is read-only"):  # before the kernel runs, not NumPy's copy
        scangen.cumsum(x, out=frozen)
    with pytest.raises(ValueError, match="scangen: out is read-only"):  # the general path too (axis, reverse)
        scangen.cumsum(x.reshape(2, 4), out=frozen.reshape(2, 4), axis=0, reverse=True)
    with pytest.raises(TypeError, match="out must be a numpy array"):
        scangen.cumsum(x, out=[0] * 8)
    with pytest.raises(ValueError, match=r"out must have shape \(8,\) and dtype int32; it has shape \(2, 4\)"):
        scangen.cumsum(x, out=np.empty((2, 4), np.int32))
