"""Run by test_mpi.py under mpirun: every rank scans its part of one array with scangen.mpi.scan and
compares it with its part of scangen's scan of the whole array. Parts of uneven sizes, empty ones
included (more ranks than elements too); the affine operator (non-commutative), a sum and a conversion (u8
sizes to u32 offsets), "the last nonzero" (non-commutative, scalar), inclusive forward and exclusive
reverse from an init. With a second argument ``torch`` or ``cupy`` the parts are CUDA arrays of that kind
(the scalar cases: neither has struct elements), compared with NumPy's whole-array scan.
Exits 1 on a mismatch, naming the rank, the case and the seed."""
import os
import sys

import numpy as np
from mpi4py import MPI

import scangen
import scangen.mpi

AFFINE = ("type A { a: f64, b: f64 }\nscan affine_mpi { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * x.b "
          "+ y.b }; identity = A { a: 1.0, b: 0.0 }; level = device; }")

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
seed = int(sys.argv[1])
kind = sys.argv[2] if len(sys.argv) > 2 else "numpy"
failures = 0
SPECS = (AFFINE, "scan sum_mpi { type = f64; op = add; level = device; }",
         "scan sizes_mpi { type = u32; input = u8; op = add; level = device; }",  # converts
         "scan last_mpi { type = i32; combine(a, b) = b != 0 ? b : a; identity = 0; level = device; }")
INITS = {"affine_mpi": (2.0, 0.5), "sum_mpi": 3.0, "sizes_mpi": 7, "last_mpi": 5}


def to_kind(a):
    """A NumPy part as the array kind this run scans (a CUDA array for torch / cupy)."""
    if kind == "torch":
        import torch
        return torch.from_numpy(a).cuda()
    if kind == "cupy":
        import cupy
        return cupy.asarray(a)
    return a


def to_numpy(a):
    if kind == "torch":
        return a.cpu().numpy()
    if kind == "cupy":
        return a.get()
    return a

# The settings each operator is run with: both in the full tier; in the quick one (scripts/test), one of
# the two, drawn with the seed (each is two builds for every rank to load).
MODES = {name: [dict(), dict(exclusive=True, reverse=True, init=init)] for name, init in INITS.items()}
if os.environ.get("SCANGEN_TEST_FULL", "") in ("", "0"):
    MODES = {name: [kws[(seed + k) % 2]] for k, (name, kws) in enumerate(MODES.items())}
# Rank 0 compiles every build first (on one element, alone); the other ranks then find them in the disk
# cache rather than each compiling the same kernels at once.
if rank != 0:
    comm.Barrier()
else:
    try:
        for text in SPECS:
            s = scangen.compile(text)
            for kw in MODES[s.name]:
                if kind == "numpy" or s.input_dtype.names is None:
                    scangen.mpi.scan(MPI.COMM_SELF, s, to_kind(np.zeros(1, s.input_dtype)), **kw)
    except BaseException as e:  # the other ranks wait at the barrier: stop them all, not hang
        print(f"mpi_check: rank 0 failed before the barrier: {e!r} (seed {seed})", flush=True)
        comm.Abort(1)
    comm.Barrier()
for total in (0, 1, size - 1, 1000, 4099):
    rng = np.random.default_rng(seed + total)  # the same global array on every rank
    cuts = np.sort(rng.integers(0, total + 1, size=size - 1)) if total else np.zeros(size - 1, np.int64)
    if size > 2:
        cuts[0] = 0  # rank 0's part empty
    bounds = np.concatenate([[0], cuts, [total]]).astype(np.int64)
    affine, sum64, sizes, last = (scangen.compile(text) for text in SPECS)
    x = np.zeros(total, affine.dtype)
    x["a"] = rng.uniform(0.5, 1.0, total)
    x["b"] = rng.uniform(-1, 1, total)
    v = rng.standard_normal(total)
    u8 = rng.integers(0, 256, size=total).astype(np.uint8)
    sparse = (rng.integers(0, 4, size=total) * rng.integers(-9, 10, size=total)).astype(np.int32)
    part = slice(bounds[rank], bounds[rank + 1])
    cases = ((affine, x), (sum64, v), (sizes, u8), (last, sparse))
    for s, data in cases if kind == "numpy" else cases[1:]:
        for kw in MODES[s.name]:
            got = to_numpy(scangen.mpi.scan(comm, s, to_kind(np.ascontiguousarray(data[part])), **kw))
            want = s(data, **kw)[part]
            fields = want.dtype.names or (None,)
            ok = got.shape == want.shape and all(
                np.allclose(got if f is None else got[f], want if f is None else want[f], rtol=1e-12, atol=1e-12)
                for f in fields)
            if not ok:
                failures += 1
                print(f"rank {rank} of {size}: {s.name} {kw} total {total} parts {bounds.tolist()}: mismatch "
                      f"(seed {seed})", flush=True)
failures = comm.allreduce(failures)
if rank == 0:
    where = "" if kind == "numpy" else f" ({kind})"
    print(f"mpi_check: {size} ranks{where}, {'ok' if failures == 0 else f'{failures} mismatches'} (seed {seed})")
sys.exit(1 if failures else 0)
