"""Scans across MPI ranks (mpi4py): ``scangen.mpi.scan(comm, scan, x)``.

Every rank holds one part of a 1-D array, the parts in rank order (any
sizes, empty ones included). The scan of the whole array, each rank getting
its part of the result, in three steps, as scangen::mpi does in C++
(docs/distributed.md):

1. the part's aggregate: the spec's reduce build (reduce_then_scan's reduce
   and spine kernels), one read of the part;
2. the collective: the aggregates of every rank, one element each, gathered
   by ``allgather`` (their bytes: any element type, structs included), and
   scanned exclusively with the operator and ``init`` on every rank alike
   (P elements): the rank's carry. Gathering rather than ``MPI_Exscan`` with
   a user ``MPI_Op`` keeps the operator out of MPI's callbacks, and every
   rank computes the same carries in the same order (the result does not
   depend on the MPI library's reduction tree);
3. the part scanned from its carry: the spec's running-total build, the
   carry its seed from host memory, one read and one write of the part.

Only the per-rank aggregates cross ranks, through host memory (CUDA-aware
MPI is not assumed); the parts stay where they are (NumPy: the OpenCL
device; CuPy / PyTorch CUDA arrays: the CUDA device).
"""

from __future__ import annotations

import numpy as np

from ._segments import _segments_arg, _to_numpy


def scan(comm, scan_or_text, x, *, exclusive: bool = False, init=None, reverse: bool = False, offsets=None,
         flags=None, keys=None):
    """This rank's part of the scan of the array whose parts the ranks of ``comm`` hold, in rank order.

    comm: an mpi4py communicator (every rank of it calls this, collectively).
    scan_or_text: a :class:`scangen.Scan` or ``.scan`` text (the same on every rank).
    x: this rank's part, 1-D, of ``scan.input_dtype``: NumPy, CuPy or PyTorch.
    exclusive, init, reverse: those of :meth:`scangen.Scan.__call__`, for the whole array
        (``reverse``: from the end of the last rank's part).
    flags, offsets: segments (one of them, or neither), each scanned from ``init``, local to this part
        and of x's kind: ``flags`` one per element, nonzero where a segment starts; ``offsets`` 0, the
        places where segments start in the part, then len(x) (as :meth:`scangen.Scan.__call__` takes
        them: a repeated 0 is a head at the first element, empty segments change nothing). A part whose
        first element is no head continues the last segment of the ranks before it; rank 0's first
        element always starts one. ``keys`` are refused (NotImplementedError).
    Returns this rank's part of the result, x's kind, ``scan.dtype``.
    """
    import scangen
    s = scan_or_text if isinstance(scan_or_text, scangen.Scan) else scangen.compile(scan_or_text)
    shape = tuple(x.shape)
    if len(shape) != 1:
        raise ValueError(f"scangen.mpi.scan: each rank's part is 1-D, not of shape {shape}")
    segments = _segments_arg(offsets, flags, keys)
    if segments is not None:
        return _segmented(comm, s, x, *segments, exclusive, init, reverse)
    # 1. This rank's aggregate (the identity for an empty part): one read of the part.
    agg = np.frombuffer(s._part_aggregate(x, reverse), dtype=s.dtype).copy()
    # 2. Every rank's aggregate; this rank's carry: init and the aggregates before it, combined on the host.
    everyone = b"".join(comm.allgather(agg.tobytes()))
    carry, _total = s._kernel.carry(everyone, comm.Get_rank(), s._init_bytes(init), bool(reverse))
    # 3. The part scanned from its carry: one read and one write.
    return s._from_carry(x, exclusive, reverse, carry)


# ---- segmented scans: a segment may span ranks ----

_EMPTY, _PASS, _RESET, _FRESH = range(4)  # what a part does to a segment running into it (as scangen::mpi's pairs)


def _heads(form, seg, n):
    """The first and last heads of a part of n elements (first == n: none): flags, nonzero where a segment
    starts (the first element's too); offsets, 0, the places where segments start, then n."""
    if form == "flags":
        found = seg.nonzero()  # NumPy and CuPy: a tuple of index arrays; PyTorch: a tensor of them
        idx = found[0] if isinstance(found, tuple) else found.reshape(-1)
        return (int(idx[0]), int(idx[-1])) if len(idx) else (n, n)
    offs = np.asarray(seg if isinstance(seg, np.ndarray) else _to_numpy(seg)).astype(np.int64).reshape(-1)
    if len(offs) < 1 or offs[0] != 0 or offs[-1] != n or np.any(np.diff(offs) < 0):
        raise ValueError(f"scangen.mpi.scan: offsets= must go from 0 to the part's length ({n}), not decreasing")
    starts = offs[1:-1]
    starts = starts[starts < n]
    return (int(starts[0]), int(starts[-1])) if len(starts) else (n, n)


def _combine(s, a: bytes, b: bytes) -> bytes:
    """a . b with the spec's operator, on the host."""
    return s._kernel.carry(b + b, 1, a, False)[0]


def _result_at(s, x, local, i, exclusive):
    """The inclusive result at element i of a part whose segmented scan is ``local`` (exclusive: that result
    combined with element i, converted by a reduce of that one element)."""
    value = np.ascontiguousarray(_host(local[i:i + 1]), dtype=s.dtype).tobytes()
    return _combine(s, value, s._part_aggregate(x[i:i + 1], False)) if exclusive else value


def _host(a):
    return a if isinstance(a, np.ndarray) else _to_numpy(a)


def _segmented(comm, s, x, form, seg, exclusive, init, reverse):
    n = int(x.shape[0])
    if form == "keys":
        raise NotImplementedError("scangen.mpi.scan: keys= are not carried across ranks yet (a key compared with "
                                  "the previous rank's last key): pass flags=, nonzero where the key changes")
    if form == "flags" and int(seg.shape[0]) != n:
        raise ValueError(f"scangen.mpi.scan: flags= must have one entry per element of x ({n}); it has "
                         f"{int(seg.shape[0])}")
    first, last = _heads(form, seg, n) if n else (0, 0)
    has_head = first < n
    start = s._init_bytes(init) or s._kernel.carry(s.identity.tobytes(), 0, None, False)[0]
    # 1. The part's segmented scan, right but in the segment that runs in from (out to) other ranks; its pair.
    local, kind, value = None, _EMPTY, b""
    if n and has_head:
        local = s(x, exclusive=exclusive, init=init, reverse=reverse, **{form: seg})
        if reverse and first == 0:
            kind = _FRESH
        else:
            kind, value = _RESET, _result_at(s, x, local, 0 if reverse else n - 1, exclusive)
    elif n:
        kind, value = _PASS, s._part_aggregate(x, reverse)
    # 2. Every rank's pair; this rank's carry: init, then the pairs of the ranks before it (after it, reverse).
    pairs = comm.allgather((kind, value))
    rank = comm.Get_rank()
    carry, fresh = start, True
    for k, v in (reversed(pairs[rank + 1:]) if reverse else pairs[:rank]):
        if k == _PASS:
            carry = _combine(s, carry, v)
        elif k == _RESET:
            carry = v
        elif k == _FRESH:
            carry = start
        if k != _EMPTY:
            fresh = k == _FRESH
    # 3. The elements before the first head (from the last head on, reverse), scanned again from the carry.
    if not has_head:
        return s._from_carry(x, exclusive, reverse, carry)
    if fresh or (not reverse and first == 0):
        return local
    part = slice(last, n) if reverse else slice(0, first)
    local[part] = s._from_carry(x[part], exclusive, reverse, carry)
    return local


__all__ = ["scan"]
