"""Scans of Dask arrays with scangen's operators: ``scangen.dask.scan(scan, x, axis=...)``.

A scan along an axis that Dask splits into k blocks, in three steps, as
``scangen.mpi`` takes them across ranks (docs/distributed.md):

1. every block's aggregates: a task a block;
2. the carries: init combined with the aggregates of the blocks before each
   block (after it, ``reverse``), in one task that holds every block's
   aggregates (k elements a line);
3. every block scanned from its carries: a task a block.

A 1-D array takes three passes over the data and copies no block: step 1 is
the spec's reduce build (one read of the block, one element out), step 2
runs on the host (``Kernel.carry``, k elements), and step 3 is the spec's
running-total build seeded with the block's carry (one read and one write
of the block; ``exclusive`` shifts within the block).

An array of more dimensions carries a value a line of each block. Step 1 is
a scangen scan of the block with ``return_aggregates``; step 2 an exclusive
scan of the aggregates along the axis, seeded with ``init``; in step 3 each
line's carry goes in as an extra element before the line (after it for
``reverse``), the block is scanned from the identity and the carries dropped:
two scans and a copy of every block (an ``init`` is compiled into a kernel,
so a carry as ``init`` would be a kernel a line). The copy also moves the
axis last: the blocks are scanned as rows, not strided lines. A scan that
converts its input (``convert``, or an ``input`` type of its own) cannot
scan its aggregates or take a carry as an input element: there step 2
combines each line's carries on the host and step 3 scans each line of a
block from its carry with the running-total build, a launch a line.

The blocks run wherever Dask runs them (threads, processes, a
``dask.distributed`` cluster), on NumPy chunks (OpenCL) or CuPy chunks
(CUDA); a worker compiles the scan from its text once (the runtime's caches
keep it). Every operator works, non-commutative ones included: a carry is
always the left operand, as a scan's running value is (in both directions).
Converts that read the element's index or its neighbours are refused when
the result is computed (a block does not know its place in the array).
"""

from __future__ import annotations

import os
import re

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


def _host(a):
    return a if _xp(a) is np else a.get()


# ---- 1-D: a carry a block ----

def _line_carries(scan, aggs, init, reverse):
    """The carries of one line's blocks from their aggregates (``aggs``, 1-D NumPy, in block order) and
    ``init`` (one element's bytes, or None: the spec's), on the host: init combined with the aggregates of
    the blocks before each (after it, reverse). One ``Kernel.carry`` call a block, each taking the carry
    before it one block on: the combines, in their order, of ``carry(aggs, i, init)`` for every i, in k
    steps rather than k^2."""
    kernel = scan._kernel
    aggs = np.ascontiguousarray(aggs, dtype=scan.dtype)
    k = aggs.shape[0]
    carries = np.empty(k, dtype=scan.dtype)
    carry = None
    for i in (range(k - 1, -1, -1) if reverse else range(k)):
        if carry is None:  # the first block in scan order: init (the spec's where init is None)
            carry, _total = kernel.carry(aggs.tobytes(), i, init, bool(reverse))
        else:  # the carry before the previous block, combined with that block's aggregate
            prev = aggs[i + 1 if reverse else i - 1].tobytes()
            carry, _total = kernel.carry(prev + prev, 0 if reverse else 1, carry, bool(reverse))
        carries[i] = np.frombuffer(carry, dtype=scan.dtype)[0]
    return carries


def _aggregate_1d(block, key, reverse):
    """The block's aggregate, a 1-element NumPy array (host memory, whatever the block's kind)."""
    scan = _scan_of(key)
    return np.frombuffer(scan._part_aggregate(block, reverse), dtype=scan.dtype).copy()


def _carries_1d(aggs, key, reverse, init):
    """Every block's carry, in one task that holds every block's aggregate."""
    return _line_carries(_scan_of(key), aggs, init, reverse)


def _block_1d(block, carry, key, exclusive, reverse):
    """The block scanned from its carry (a 1-element NumPy array): one read and one write of the block."""
    scan = _scan_of(key)
    if block.shape[0] == 0:
        return _xp(block).empty(block.shape, scan.dtype)
    return scan._from_carry(block, exclusive, reverse, np.ascontiguousarray(carry, dtype=scan.dtype).tobytes())


def _scan_1d(scan_, x, key, exclusive, init, reverse):
    k = len(x.chunks[0])
    meta = np.empty((0,), scan_.dtype)
    one_each = ((1,) * k,)
    # 1. Each block's aggregate: the reduce build, one element a block.
    aggs = x.map_blocks(_aggregate_1d, key, reverse, dtype=scan_.dtype, chunks=one_each, meta=meta)
    # 2. Every block's carry, in one task that holds the k aggregates.
    carries = aggs.rechunk(((k,),)).map_blocks(_carries_1d, key, reverse, scan_._init_bytes(init),
                                                dtype=scan_.dtype, meta=meta).rechunk(one_each)
    # 3. Each block scanned from its carry (map_blocks pairs blocks by position, not by shape).
    return da.map_blocks(_block_1d, x, carries, key, exclusive, reverse, dtype=scan_.dtype, chunks=x.chunks,
                         meta=meta)



# ---- more dimensions: a carry a line ----

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


def _converts(scan):
    """The scan converts its input (a convert, or an input type of its own): its aggregates and carries are
    not inputs it could scan, so an N-D array takes the lines' way (_carries_host, _block_lines)."""
    return scan.input_dtype != scan.dtype or re.search(r"^\s*convert\s*\(", scan._kernel.spec_text, re.M) is not None


def _carries_host(aggs, key, axis, reverse, init):
    """The carries of every line (the aggregates along axis, one element a block), on the host."""
    scan = _scan_of(key)
    lines = np.ascontiguousarray(np.moveaxis(_host(aggs), axis, -1))
    flat = lines.reshape(-1, lines.shape[-1])
    init = scan._init_bytes(init)
    out = np.empty(flat.shape, scan.dtype)
    for j in range(flat.shape[0]):
        out[j] = _line_carries(scan, flat[j], init, reverse)
    return np.moveaxis(out.reshape(lines.shape), -1, axis)


def _block_lines(block, carry, key, axis, reverse, exclusive):
    """The block's lines, each scanned from its carry by the running-total build: a launch a line."""
    scan = _scan_of(key)
    xp = _xp(block)
    n = block.shape[axis]
    if n == 0 or block.size == 0:
        return xp.empty(block.shape, scan.dtype)
    lines = _last_axis(xp, block, axis)
    rows = lines.reshape(-1, n)
    carries = np.ascontiguousarray(np.moveaxis(_host(carry), axis, -1), dtype=scan.dtype).reshape(-1)
    out = xp.empty(rows.shape, scan.dtype)
    for j in range(rows.shape[0]):
        out[j] = scan._from_carry(rows[j], exclusive, reverse, carries[j:j + 1].tobytes())
    return xp.moveaxis(out.reshape(lines.shape), -1, axis)


def scan(scan_or_text, x, *, axis: int = -1, exclusive: bool = False, init=None, reverse: bool = False):
    """Scan the Dask array ``x`` along ``axis`` with a :class:`scangen.Scan` (or ``.scan`` text).

    The result is a Dask array of ``x``'s shape and chunks and the scan's
    dtype. ``exclusive``, ``init`` and ``reverse`` are those of
    :meth:`scangen.Scan.__call__`; ``axis`` must be an axis of ``x`` (None is
    not taken: reshape first). Nothing runs until the result is computed; a
    1-D ``x`` is then read twice and the result written once, an ``x`` of
    more dimensions scanned twice and copied once (the module's text).
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
    if x.ndim == 1:
        return _scan_1d(scan_, x, key, bool(exclusive), init, bool(reverse))
    # More dimensions: a carry a line. 1. Each block's aggregates: one element a line, the blocks side by side.
    agg_chunks = tuple((1,) * len(c) if i == axis else c for i, c in enumerate(x.chunks))
    aggs = x.map_blocks(_aggregates, key, axis, reverse, dtype=scan_.dtype, chunks=agg_chunks,
                        meta=np.empty((0,) * x.ndim, scan_.dtype))
    # 2. The carries: one exclusive scan of the aggregates along axis (a collective), then one per block.
    # A converting scan: on the host, line by line (its aggregates are not inputs it could scan).
    converts = _converts(scan_)
    carries = aggs.rechunk({axis: -1}).map_blocks(_carries_host if converts else _carries, key, axis, reverse,
                                                  init, dtype=scan_.dtype, meta=np.empty((0,) * x.ndim, scan_.dtype))
    carries = carries.rechunk(agg_chunks)
    # 3. Each block scanned from its carry (a converting scan: line by line, from the carry as a seed).
    return da.map_blocks(_block_lines if converts else _block, x, carries, key, axis, reverse, exclusive,
                         dtype=scan_.dtype, chunks=x.chunks, meta=np.empty((0,) * x.ndim, scan_.dtype))


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
