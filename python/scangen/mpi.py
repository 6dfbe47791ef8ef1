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
    # 1. This rank's aggregate (the identity for an empty part): one read of the part.
    agg = np.frombuffer(s._part_aggregate(x, reverse), dtype=s.dtype).copy()
    # 2. Every rank's aggregate; this rank's carry: init and the aggregates before it, combined on the host.
    everyone = b"".join(comm.allgather(agg.tobytes()))
    carry, _total = s._kernel.carry(everyone, comm.Get_rank(), s._init_bytes(init), bool(reverse))
    # 3. The part scanned from its carry: one read and one write.
    return s._from_carry(x, exclusive, reverse, carry)


__all__ = ["scan"]
