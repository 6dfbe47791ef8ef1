"""How an array, an ``axis`` and ``reverse`` map onto one of scangen's scans.

A call scans one of three shapes (docs/dsl.md §5.11): ``flat`` (one
contiguous line), ``rows`` (rows of a contiguous last axis, at a row stride)
or ``strided`` (any axis of an array of up to 4 dimensions, given by extents
and strides in elements). :func:`layout` picks the cheapest one for the
array's shape and strides; the output is always C-contiguous of the array's
shape (as NumPy's ``cumsum`` returns), the aggregates of the shape without
the axis.
"""

from __future__ import annotations

import numpy as np

from . import _core

#: The most dimensions the strided kernel takes (Scan::ShapeArgs::Strided).
MAX_RANK = 4


class Layout:
    """One call's shape: ``kind`` ("flat", "rows" or "strided"), ``n`` (flat: the elements), ``shape`` (the
    _core.Shape of a shaped scan, else None), ``copy`` (the input must be made C-contiguous first),
    ``out_shape`` and ``agg_shape`` (of the result and of the aggregates), ``agg_count``."""

    __slots__ = ("kind", "n", "shape", "copy", "out_shape", "agg_shape", "agg_count")

    def __init__(self, kind, n, shape, copy, out_shape, agg_shape):
        self.kind, self.n, self.shape, self.copy = kind, n, shape, copy
        self.out_shape, self.agg_shape = out_shape, agg_shape
        count = 1
        for d in agg_shape:
            count *= d
        self.agg_count = count


def c_strides(shape) -> tuple:
    """The strides, in elements, of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(int(d), 1)
    return tuple(reversed(strides))


def is_c_contiguous(shape, strides) -> bool:
    if strides is None:
        return True
    step = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != step:
            return False
        step *= d
    return True


def normalize_axis(axis, ndim: int) -> int:
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"scangen: axis must be an int or None, not {type(axis).__name__}")
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"scangen: axis {axis} is out of range for a {ndim}-D array")
    return axis + ndim if axis < 0 else axis


_layouts: dict = {}


def layout(shape, strides, axis, reverse: bool) -> Layout:
    """The Layout of a scan of an array of ``shape`` and ``strides`` (in elements; None: C order) along
    ``axis`` (None: the flattened array); cached (a Layout is not changed after it is made)."""
    if axis is not None and type(axis) is not int:  # not cached: 1.0 and True are keys equal to 1
        return _layout(shape, strides, axis, reverse)
    key = (shape, strides, axis, reverse)
    lay = _layouts.get(key)
    if lay is not None:
        return lay
    lay = _layout(shape, strides, axis, reverse)
    if len(_layouts) >= 4096:
        _layouts.clear()
    _layouts[key] = lay
    return lay


def _layout(shape, strides, axis, reverse: bool) -> Layout:
    del reverse  # a reverse scan has the forward layout: its kernels read each line from its end
    shape = tuple(int(d) for d in shape)
    ndim = len(shape)
    n = 1
    for d in shape:
        n *= d
    # Negative strides (and the host's (-1,): strides it does not take): a copy in C order.
    copy = strides is not None and any(s < 0 for s in strides)
    if copy:
        strides = None
    contiguous = not copy and is_c_contiguous(shape, strides)
    if axis is None:
        return Layout("flat", n, None, not contiguous, (n,), ())
    if ndim == 0:  # one element, along axis 0 or -1 as PyTorch takes it: a 0-D result
        try:
            normalize_axis(axis, 1)
        except ValueError:
            raise ValueError(f"scangen: axis {axis} is out of range for a 0-D array (0 and -1 are its axis)") from None
        return Layout("flat", 1, None, False, (), ())
    axis = normalize_axis(axis, ndim)
    agg_shape = shape[:axis] + shape[axis + 1:]
    if n == 0 or n == shape[axis]:  # one line (or nothing): the flat scan, of a contiguous copy if need be
        return Layout("flat", n, None, not contiguous and n > 1, shape, agg_shape)
    if strides is None:
        strides = c_strides(shape)
    dims = _merged(shape, strides, c_strides(shape), axis)
    if dims is None:  # more than 4 dimensions that do not merge: those of a C-contiguous copy do
        copy, strides = True, c_strides(shape)
        dims = _merged(shape, strides, strides, axis)
    where = next(i for i, d in enumerate(dims) if d[3])
    if len(dims) == 2 and where == 1 and dims[1][1] == 1 and dims[0][1] >= dims[1][0]:
        (rows, row_stride, out_row_stride, _), (length, _, _, _) = dims
        return Layout("rows", 0, _core.rows_shape(rows, length, row_stride, out_row_stride), copy, shape, agg_shape)
    strided = _core.strided_shape(where, [d[0] for d in dims], [d[1] for d in dims], [d[2] for d in dims])
    return Layout("strided", 0, strided, copy, shape, agg_shape)


def _merged(shape, strides, out_strides, axis):
    """(extent, stride, out stride, is_axis) of each dimension, those of extent 1 dropped and neighbours
    that are one dimension in both the input and the output merged; None when more than 4 remain."""
    dims = [(e, s, o, i == axis) for i, (e, s, o) in enumerate(zip(shape, strides, out_strides))
            if e != 1 or i == axis]
    merged = [dims[0]]
    for e, s, o, is_axis in dims[1:]:
        pe, ps, po, p_axis = merged[-1]
        if not is_axis and not p_axis and ps == s * e and po == o * e:
            merged[-1] = (pe * e, s, o, False)
        else:
            merged.append((e, s, o, is_axis))
    return merged if len(merged) <= MAX_RANK else None
