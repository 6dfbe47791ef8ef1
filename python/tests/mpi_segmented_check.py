"""Run by test_mpi.py under mpirun: segmented scans whose segments span ranks. Every rank makes the same
array and heads, keeps its part and its part's flags or offsets (local to the part: a part whose first
element is no head continues the last segment of the ranks before it), scans it with scangen.mpi.scan and
compares it, exactly, with its part of scangen's segmented scan of the whole array. Layouts: parts of
uneven sizes (empty ones, more ranks than elements), one segment over every rank, a head at every element,
parts without heads, random heads; integer affine maps (non-commutative), a sum and a conversion (u8 sizes
to u32 offsets); inclusive and exclusive, forward and reverse, init. Exits 1 on a mismatch, naming the
rank, the case and the seed."""
import sys

import numpy as np
from mpi4py import MPI

import scangen
import scangen.mpi

AFFINE = ("type A { a: i64, b: i64 }\nscan affine_seg_mpi { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * "
          "x.b + y.b }; identity = A { a: 1, b: 0 }; level = device; }")
SPECS = (AFFINE, "scan sum_seg_mpi { type = i64; op = add; level = device; }",
         "scan sizes_seg_mpi { type = u32; input = u8; op = add; level = device; }")
# (spec, segments form, call settings) for each case.
CASES = ((0, "flags", dict(init=(-1, 3))), (0, "offsets", dict(exclusive=True, reverse=True)),
         (1, "offsets", dict(exclusive=True, init=3)), (1, "flags", dict(reverse=True, init=-2)),
         (2, "flags", dict(exclusive=True)))

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
seed = int(sys.argv[1])
failures = 0
scans = [scangen.compile(text) for text in SPECS]


def offsets_of(heads, rng):
    """The part's offsets: 0, the places of its heads (some twice: empty segments), its length (maybe twice)."""
    places = np.flatnonzero(heads)
    places = np.repeat(places, 1 + (rng.integers(0, 8, size=len(places)) == 0))
    return np.concatenate([[0], places, [len(heads)] * int(1 + rng.integers(0, 2))]).astype(np.int64)


# Rank 0 compiles every build first (one element, alone); the other ranks then find them in the disk cache.
if rank != 0:
    comm.Barrier()
else:
    try:
        for spec, form, kw in CASES:
            s = scans[spec]
            one = np.zeros(1, s.input_dtype)
            for heads in (np.ones(1, np.uint8), np.zeros(1, np.uint8)):  # the segmented build, and the flat ones
                seg = heads if form == "flags" else offsets_of(heads, np.random.default_rng(0))
                scangen.mpi.scan(MPI.COMM_SELF, s, one, **{form: seg}, **kw)
    except BaseException as e:  # the other ranks wait at the barrier: stop them all, not hang
        print(f"mpi_segmented_check: rank 0 failed before the barrier: {e!r} (seed {seed})", flush=True)
        comm.Abort(1)
    comm.Barrier()
layouts = [(total, chance) for total in (0, 1, size - 1, 700, 3000) for chance in (0.0, 1.0, 0.002, 0.3)]
for index, (total, chance) in enumerate(layouts):
    rng = np.random.default_rng(seed * 1000 + index)  # the same global array on every rank
    cuts = np.sort(rng.integers(0, total + 1, size=size - 1))
    if size > 2:
        cuts[0] = 0  # rank 0's part empty
    bounds = np.concatenate([[0], cuts, [total]]).astype(np.int64)
    heads = (rng.random(total) < chance).astype(np.uint8)
    part = slice(bounds[rank], bounds[rank + 1])
    x = np.zeros(total, scans[0].dtype)
    x["a"] = rng.choice([-1, 1], total)
    x["b"] = rng.integers(-1000, 1001, total)
    data = (x, rng.integers(-10**6, 10**6, total), rng.integers(0, 256, total).astype(np.uint8))
    local = offsets_of(heads[part], np.random.default_rng(seed + rank))
    for spec, form, kw in CASES:
        s = scans[spec]
        seg = heads[part] if form == "flags" else local
        try:
            got = scangen.mpi.scan(comm, s, np.ascontiguousarray(data[spec][part]), **{form: seg}, **kw)
            want = s(data[spec], flags=heads, **kw)[part]
            ok = got.shape == want.shape and np.array_equal(got, want)
        except Exception as e:  # every rank must reach the next collective: count it, go on
            ok, got = False, repr(e)
        if not ok:
            failures += 1
            print(f"rank {rank} of {size}: {s.name} {form} {kw} total {total} heads {chance} parts "
                  f"{bounds.tolist()}: mismatch {got!r:.300} (seed {seed})", flush=True)
failures = comm.allreduce(failures)
if rank == 0:
    print(f"mpi_segmented_check: {size} ranks, {'ok' if failures == 0 else f'{failures} mismatches'} (seed {seed})")
sys.exit(1 if failures else 0)
