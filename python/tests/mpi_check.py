"""Run by test_mpi.py under mpirun: every rank scans its part of one array with scangen.mpi.scan and
compares it with its part of scangen's scan of the whole array. Parts of uneven sizes, empty ones
included (more ranks than elements too); the affine operator (non-commutative), a sum and a conversion (u8
sizes to u32 offsets), inclusive forward and exclusive reverse from an init.
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
failures = 0
SPECS = (AFFINE, "scan sum_mpi { type = f64; op = add; level = device; }",
         "scan sizes_mpi { type = u32; input = u8; op = add; level = device; }")  # the last converts
INITS = {"affine_mpi": (2.0, 0.5), "sum_mpi": 3.0, "sizes_mpi": 7}
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
                scangen.mpi.scan(MPI.COMM_SELF, s, np.zeros(1, s.input_dtype), **kw)
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
    affine, sum64, sizes = (scangen.compile(text) for text in SPECS)
    x = np.zeros(total, affine.dtype)
    x["a"] = rng.uniform(0.5, 1.0, total)
    x["b"] = rng.uniform(-1, 1, total)
    v = rng.standard_normal(total)
    u8 = rng.integers(0, 256, size=total).astype(np.uint8)
    part = slice(bounds[rank], bounds[rank + 1])
    for s, data in ((affine, x), (sum64, v), (sizes, u8)):
        for kw in MODES[s.name]:
            got = scangen.mpi.scan(comm, s, np.ascontiguousarray(data[part]), **kw)
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
    print(f"mpi_check: {size} ranks, {'ok' if failures == 0 else f'{failures} mismatches'} (seed {seed})")
sys.exit(1 if failures else 0)
