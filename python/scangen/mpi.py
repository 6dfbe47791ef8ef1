"""Scans across MPI ranks (mpi4py): ``scangen.mpi.scan(comm, scan, x)``.

Every rank holds one part of a 1-D array, the parts in rank order (any
sizes, empty ones included). The scan of the whole array, each rank getting
its part of the result, in three steps:

1. the rank's aggregate: a scangen scan of its part (``return_aggregates``),
   a pass over the data;
2. the collective: the aggregates of every rank, one element each, gathered
   by ``allgather`` (their bytes: any element type, structs included), and
   scanned exclusively with the operator and ``init`` on every rank alike
   (P elements): the rank's carry. An ``MPI_Exscan`` with a user ``MPI_Op``
   would need the operator evaluated in an MPI callback; gathering P
   elements costs one collective of the same latency for the P of a
   machine's or a cluster's ranks, and every rank computes the same carries
   in the same order (the result does not depend on the MPI library's
   reduction tree);
3. the part scanned from its carry: a pass (the carry goes in as an extra
   first element, last for ``reverse``, then dropped: a copy of the part; an
   ``init`` is compiled into the kernel, so a carry as ``init`` would be a
   kernel per value).

Only the per-rank aggregates cross ranks, through host memory (CUDA-aware
MPI is not assumed); the parts stay where they are (NumPy: the OpenCL
device; CuPy / PyTorch CUDA arrays: the CUDA device).
"""

from __future__ import annotations

import numpy as np


def _xp(a):
    name = type(a).__module__.split(".")[0]
    if name in ("cupy", "torch"):
        return __import__(name)
    return np


def _to_host(a) -> np.ndarray:
    if hasattr(a, "get"):  # CuPy
        return a.get()
    if type(a).__module__.split(".")[0] == "torch":
        return a.detach().cpu().numpy()
    return np.asarray(a)


def _like(host: np.ndarray, a):
    """host (one element, a NumPy array) as an array of a's kind and device."""
    xp = _xp(a)
    if xp is np:
        return host
    if xp.__name__ == "cupy":
        return xp.asarray(host)
    return xp.from_numpy(host).to(a.device)


def scan(comm, scan_or_text, x, *, exclusive: bool = False, init=None, reverse: bool = False):
    """This rank's part of the scan of the array whose parts the ranks of ``comm`` hold, in rank order.

    comm: an mpi4py communicator (every rank of it calls this, collectively).
    scan_or_text: a :class:`scangen.Scan` or ``.scan`` text (the same on every rank).
    x: this rank's part, 1-D, of ``scan.input_dtype``: NumPy, CuPy or PyTorch.
    exclusive, init, reverse: those of :meth:`scangen.Scan.__call__`, for the whole array
        (``reverse``: from the end of the last rank's part).
    Returns this rank's part of the result, x's kind, ``scan.dtype``.
    """
    import scangen
    s = scan_or_text if isinstance(scan_or_text, scangen.Scan) else scangen.compile(scan_or_text)
    shape = tuple(x.shape)
    if len(shape) != 1:
        raise ValueError(f"scangen.mpi.scan: each rank's part is 1-D, not of shape {shape}")
    if s.input_dtype != s.dtype:
        raise NotImplementedError("scangen.mpi.scan: a scan that converts its input (input = ...) is not "
                                  "carried across ranks yet")
    n = shape[0]
    # 1. This rank's aggregate (the identity for an empty part).
    if n:
        _result, agg = s(x, return_aggregates=True, reverse=reverse)
        agg = _to_host(agg).reshape(1).astype(s.dtype, copy=False)
    else:
        agg = s.identity.reshape(1)
    # 2. Every rank's aggregate, then the exclusive scan of them: this rank's carry.
    everyone = np.concatenate([np.frombuffer(b, dtype=s.dtype) for b in comm.allgather(agg.tobytes())])
    carries = s(everyone, exclusive=True, init=init, reverse=reverse)
    carry = carries[comm.Get_rank():comm.Get_rank() + 1]
    if n == 0:
        return s(x)
    # 3. The part scanned from its carry (an extra element before it, after it for reverse).
    xp = _xp(x)
    c = _like(carry.astype(s.dtype), x)
    if xp.__name__ == "torch":
        ext = xp.cat([x, c] if reverse else [c, x])
    else:
        ext = xp.concatenate([x, c] if reverse else [c, x])
    out = s(ext, init=s.identity, reverse=reverse)
    start = (1 if exclusive else 0) if reverse else (0 if exclusive else 1)
    return out[start:start + n]


__all__ = ["scan"]
