"""Scans of Dask arrays with scangen's operators: ``scangen.dask.scan(scan, x, axis=...)``.

A scan along an axis that Dask splits into k blocks, in three steps, two of
them passes over the data:

1. every block's aggregates (the total of each of its lines along the axis),
   by a scangen scan of the block (``return_aggregates``): a pass;
2. the carries: the exclusive scan, with the operator and ``init``, of those
   aggregates along the axis (one small array, k elements a line): the
   collective, one task;
3. every block scanned from its carry: a pass. Each line's carry goes in as
   an extra element before the line (after it for ``reverse``), scanned from
   the identity, then dropped (a copy of the block: an ``init`` is compiled
   into a kernel, so a carry as ``init`` would be a kernel per block). The
   blocks are scanned with the axis last (that copy moves it there): rows,
   not strided lines.

The blocks run wherever Dask runs them (threads, processes, a
``dask.distributed`` cluster), on NumPy chunks (OpenCL) or CuPy chunks
(CUDA); a worker compiles the scan from its text once (the runtime's caches
keep it). Works for every operator, non-commutative ones included: the
carry is always combined on the left.
"""

from __future__ import annotations

import os

import numpy as np

import dask.array as da



def _key(scan):
    """What a worker compiles the scan from: (source, name), both strings (picklable)."""
    return scan._source, scan.name


def _scan_of(key):
    import scangen
    source, name = key
    if source.startswith("file:"):
        return scangen.compile(os.fspath(source[5:]), name)
    return scangen.compile(source[5:], name)


def _xp(a):
    return __import__("cupy") if type(a).__module__.split(".")[0] == "cupy" else np


def _last_axis(xp, a, axis):
    """a with axis moved last, contiguous: its lines are rows (a rows kernel, not a strided one)."""
    return xp.ascontiguousarray(xp.moveaxis(a, axis, -1))


def _aggregates(block, key, axis, reverse):
    scan = _scan_of(key)
    xp = _xp(block)
    if block.shape[axis] == 0:
        shape = block.shape[:axis] + (1,) + block.shape[axis + 1:]
        return xp.full(shape, scan.identity, dtype=scan.dtype)
    _result, agg = scan(_last_axis(xp, block, axis), axis=-1, reverse=reverse, return_aggregates=True)
    return xp.expand_dims(xp.asarray(agg), axis)


def _carries(aggs, key, axis, reverse, init):
    xp = _xp(aggs)
    out = _scan_of(key)(_last_axis(xp, aggs, axis), axis=-1, exclusive=True, reverse=reverse, init=init)
    return xp.moveaxis(out, -1, axis)


def _block(block, carry, key, axis, reverse, exclusive):
    scan = _scan_of(key)
    xp = _xp(block)
    n = block.shape[axis]
    if n == 0:
        return xp.empty(block.shape, scan.dtype)
    # The carry as the line's first element (its last, reverse): an init would be a kernel of its own per
    # value (init is compiled into the kernel), this is one kernel for every block.
    ext = xp.concatenate([block, carry] if reverse else [carry, block], axis=axis)
    out = scan(_last_axis(xp, ext, axis), init=scan.identity, axis=-1, reverse=reverse)
    # inclusive: the elements after the carry; exclusive: those from the carry on, one short.
    start = (1 if exclusive else 0) if reverse else (0 if exclusive else 1)
    return xp.moveaxis(out[..., start:start + n], -1, axis)


def scan(scan_or_text, x, *, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """Scan the Dask array ``x`` along ``axis`` with a :class:`scangen.Scan` (or ``.scan`` text).

    The result is a Dask array of ``x``'s shape and chunks and the scan's
    dtype. ``exclusive``, ``init`` and ``reverse`` are those of
    :meth:`scangen.Scan.__call__`; ``axis`` must be an axis of ``x`` (None is
    not taken: reshape first).
    """
    import scangen
    scan_ = scan_or_text if isinstance(scan_or_text, scangen.Scan) else scangen.compile(scan_or_text)
    if not isinstance(x, da.Array):
        raise TypeError(f"scangen.dask.scan takes a dask.array.Array, not {type(x).__name__}")
    if x.dtype != scan_.input_dtype:
        raise TypeError(f"scangen.dask.scan: x has dtype {x.dtype}, scan '{scan_.name}' takes {scan_.input_dtype}")
    if x.ndim == 0:
        raise ValueError("scangen.dask.scan: x is 0-D; a scan runs along an axis")
    if axis is None or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"scangen.dask.scan: axis {axis} is not an axis of an array of {x.ndim} dimensions")
    axis = axis % x.ndim
    key = _key(scan_)
    if init is not None:
        init = np.asarray(init if not isinstance(init, tuple) else tuple(init), dtype=scan_.dtype)
    # 1. Each block's aggregates: one element a line, the blocks along axis side by side.
    agg_chunks = tuple((1,) * len(c) if i == axis else c for i, c in enumerate(x.chunks))
    aggs = x.map_blocks(_aggregates, key, axis, reverse, dtype=scan_.dtype, chunks=agg_chunks,
                        meta=np.empty((0,) * x.ndim, scan_.dtype))
    # 2. The carries: one exclusive scan of the aggregates along axis (a collective), then one per block.
    carries = aggs.rechunk({axis: -1}).map_blocks(_carries, key, axis, reverse, init, dtype=scan_.dtype,
                                                  meta=np.empty((0,) * x.ndim, scan_.dtype))
    carries = carries.rechunk(agg_chunks)
    # 3. Each block scanned from its carry.
    return da.map_blocks(_block, x, carries, key, axis, reverse, exclusive, dtype=scan_.dtype, chunks=x.chunks,
                         meta=np.empty((0,) * x.ndim, scan_.dtype))


def _shorthand(op, x, dtype, axis, exclusive, init, reverse):
    import scangen
    acc = np.dtype(dtype) if dtype is not None else np.dtype(x.dtype)
    return scan(scangen._builtin_scan(op, np.dtype(x.dtype), acc), x, axis=axis, exclusive=exclusive, init=init,
                reverse=reverse)


def cumsum(x, *, dtype=None, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """The running sum of a Dask array along ``axis`` (``dask.array.cumsum``'s, with scangen's options)."""
    return _shorthand("add", x, dtype, axis, exclusive, init, reverse)


def cumprod(x, *, dtype=None, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """The running product of a Dask array along ``axis``."""
    return _shorthand("mul", x, dtype, axis, exclusive, init, reverse)


def cummax(x, *, dtype=None, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """The running maximum of a Dask array along ``axis`` (a NaN propagates)."""
    return _shorthand("max", x, dtype, axis, exclusive, init, reverse)


def cummin(x, *, dtype=None, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """The running minimum of a Dask array along ``axis`` (a NaN propagates)."""
    return _shorthand("min", x, dtype, axis, exclusive, init, reverse)


def logcumsumexp(x, *, dtype=None, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """log(cumsum(exp(x))) of a Dask array along ``axis``, without overflow."""
    return _shorthand("logaddexp", x, dtype, axis, exclusive, init, reverse)


__all__ = ["scan", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]
