"""scangen's types as NumPy dtypes, and back: DSL spellings, constants, DLPack codes."""

from __future__ import annotations

import numpy as np

SCALAR_DTYPES = {
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "bool": np.bool_,
}
DTYPE_SCALARS = {np.dtype(v): k for k, v in SCALAR_DTYPES.items()}

# DLPack's type codes (dlpack.h: kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool).
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_BOOL = 0, 1, 2, 4, 6


def dtype_from_desc(desc) -> np.dtype:
    """The NumPy dtype of a scangen type as _core describes it."""
    if isinstance(desc, str):
        return np.dtype(SCALAR_DTYPES[desc])
    _name, fields, size = desc
    return np.dtype({
        "names": [f[0] for f in fields],
        "formats": [dtype_from_desc(f[1]) for f in fields],
        "offsets": [f[2] for f in fields],
        "itemsize": size,
    })


def type_name(desc) -> str:
    return desc if isinstance(desc, str) else desc[0]


def dsl_type_of(dtype: np.dtype, structs: list, name: str) -> str:
    """The DSL spelling of a NumPy dtype; struct definitions are appended to ``structs``."""
    dtype = np.dtype(dtype)
    if dtype.fields is None:
        if dtype.subdtype is not None:
            raise TypeError(f"scangen: a sub-array dtype ({dtype}) has no scangen type; "
                            "use a structured dtype with one field per element")
        if dtype not in DTYPE_SCALARS:
            raise TypeError(f"scangen: dtype {dtype} has no scangen type (supported: int8..int64, "
                            "uint8..uint64, float16, float32, float64, bool and structured dtypes of them)")
        return DTYPE_SCALARS[dtype]
    fields = []
    for field in dtype.names:
        sub = dtype.fields[field][0]
        fields.append(f"{field}: {dsl_type_of(sub, structs, name + '_' + field)}")
    structs.append(f"type {name} {{ {', '.join(fields)} }}")
    return name


def literal(value, dtype: np.dtype, name: str) -> str:
    """A DSL constant of ``dtype`` from a Python value (a number, a tuple or dict for a struct, or DSL text)."""
    if isinstance(value, str):
        return value
    dtype = np.dtype(dtype)
    if dtype.fields is None:
        if dtype.kind == "f":
            v = float(value)
            if v != v:
                return "nan"
            if v in (float("inf"), float("-inf")):
                return "inf" if v > 0 else "-inf"
            return repr(v)
        if dtype.kind == "b":
            return "true" if value else "false"
        return str(int(value))
    if isinstance(value, np.void):
        value = tuple(value)
    if isinstance(value, dict):
        value = tuple(value[f] for f in dtype.names)
    if len(value) != len(dtype.names):
        raise ValueError(f"scangen: {value!r} has {len(value)} values; type {name} has "
                         f"{len(dtype.names)} fields ({', '.join(dtype.names)})")
    parts = [f"{f}: {literal(v, dtype.fields[f][0], name + '_' + f)}" for f, v in zip(dtype.names, value)]
    return f"{name} {{ {', '.join(parts)} }}"


def to_element(value, dtype: np.dtype):
    """One element of ``dtype`` (a 0-D or 1-element array) from a number, tuple, dict or record."""
    if dtype.fields is None:
        return np.asarray(value, dtype=dtype)
    if isinstance(value, dict):
        value = tuple(value[f] for f in dtype.names)
    return np.array([tuple(value)], dtype=dtype)


def dtype_hint(want: np.dtype, got) -> str:
    if want.fields is not None:
        return (f"Make the array with dtype=scan.dtype (fields in order, C layout: {want.descr}); "
                "np.dtype([...], align=True) gives the same layout, or pass a tuple of arrays, one per field")
    return f"Convert it (x.astype(np.{want.name})) or compile a scan of that type"


def dtype_from_dlpack(code: int, bits: int, lanes: int, what: str) -> np.dtype:
    """The NumPy dtype of a DLPack (code, bits, lanes), or a TypeError naming what has no scangen type."""
    kinds = {_DL_INT: "i", _DL_UINT: "u", _DL_FLOAT: "f", _DL_BOOL: "b"}
    if lanes == 1 and code in kinds and bits in (8, 16, 32, 64):
        dtype = np.dtype(bool) if code == _DL_BOOL else np.dtype(f"{kinds[code]}{bits // 8}")
        if code != _DL_BOOL or bits == 8:
            return dtype
    name = {_DL_BFLOAT: "bfloat"}.get(code, f"type code {code}")
    raise TypeError(f"scangen: {what} has elements of DLPack {name}, {bits} bits x {lanes} lanes, which have no "
                    "scangen type (int8..int64, uint8..uint64, float16/32/64, bool)")


def leaves(dtype: np.dtype, path=(), offset=0):
    """The scalar fields of a (structured) dtype in order: (path of names, dtype, byte offset)."""
    if dtype.fields is None:
        return [(path, dtype, offset)]
    out = []
    for name in dtype.names:
        sub, off = dtype.fields[name][:2]
        out.extend(leaves(sub, path + (name,), offset + off))
    return out


def describe_fields(dtype: np.dtype) -> str:
    return ", ".join(f"{'.'.join(p)}: {d}" for p, d, _ in leaves(dtype))
