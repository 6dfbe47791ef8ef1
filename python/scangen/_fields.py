"""Struct elements as one array per field (a tuple or dict, nested as the struct is): their length, and
their arrays flattened to one per scalar field and nested back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ._scan import Scan

def _fields_length(shape, axis) -> int:
    """The length of the arrays of a tuple (one per field): 1-D ones (or any, with axis=None)."""
    n = 1
    for d in shape:
        n *= int(d)
    if axis is None:
        return n
    if len(shape) != 1:
        raise NotImplementedError(f"scangen: a tuple of {len(shape)}-D arrays (one per field) along axis {axis}: "
                                  "pass 1-D arrays, axis=None, or a structured NumPy array")
    if axis not in (0, -1):
        raise ValueError(f"scangen: axis {axis} is out of range for a 1-D array")
    return n


def _field(a: np.ndarray, path):
    for name in path:
        a = a[name]
    return a


def _flatten_fields(parts, dtype: np.dtype, where: str, scan: "Scan") -> list:
    """The arrays of a tuple (or dict) of arrays, one per field of ``dtype``, nested as the struct is."""
    if dtype.fields is None:
        if isinstance(parts, (tuple, dict)):
            raise TypeError(f"scangen: {where} is a {type(parts).__name__}; field {where} of scan '{scan.name}' "
                            f"is a {dtype} array")
        return [parts]
    if isinstance(parts, dict):
        missing = [f for f in dtype.names if f not in parts]
        if missing or len(parts) != len(dtype.names):
            raise TypeError(f"scangen: scan '{scan.name}' takes a dict of the fields {', '.join(dtype.names)}; "
                            f"{where} has {', '.join(map(str, parts))}")
        parts = tuple(parts[f] for f in dtype.names)
    if not isinstance(parts, tuple) or len(parts) != len(dtype.names):
        got = f"a tuple of {len(parts)}" if isinstance(parts, tuple) else f"a {type(parts).__name__}"
        raise TypeError(f"scangen: scan '{scan.name}' takes a tuple of {len(dtype.names)} arrays for {where}, one "
                        f"per field ({', '.join(dtype.names)}); it is {got}")
    out = []
    for name, part in zip(dtype.names, parts):
        out.extend(_flatten_fields(part, dtype.fields[name][0], f"{where}.{name}" if where != "x" else name, scan))
    return out


def _mirror(dtype: np.dtype, items):
    """Arrays (an iterator, one per scalar field) nested as the fields of ``dtype``: a tuple for a struct."""
    if dtype.fields is None:
        return next(items)
    return tuple(_mirror(dtype.fields[name][0], items) for name in dtype.names)
