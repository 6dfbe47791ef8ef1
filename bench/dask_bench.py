#!/usr/bin/env python3
"""scangen.dask on a dask.distributed LocalCluster against Dask's own ways (issue 56's benchmark).

  cumsum   an int32 array, running sum accumulated in int64 (no overflow, no wrapping):
           ``scangen.dask.cumsum(x, dtype=np.int64)`` against ``dask.array.cumsum(x, dtype=np.int64)``
  affine   h[t] = a[t] h[t-1] + b[t] from h = 0, a and b float32 (a struct {a: f32, b: f32}, a in
           [0.5, 1), b in [-1, 1)): ``scangen.dask.scan`` of the affine maps' composition (h is the
           result's field b) against map_blocks + a Python-loop carry: per block, NumPy computes the
           block's recurrence from h = 0 (rows of 32 elements: cumsum(b / cumprod(a)) * cumprod(a); the
           rows' carries the same recurrence one level up, by doubling; under 32 rows a Python loop) and
           the product of its a; one task carries h across the blocks in a Python loop; per block
           h += cumprod(a) * carry

The input (--n elements in --chunks blocks) is drawn by the workers (dask.array's random generator, a
generator per block for the structs) and persisted before the timing, so no array crosses from the
client. Each timed computation is the scan's result reduced on the workers, so it is never gathered:
``dask.compute(checksum, samples)`` with the checksum the int64 sum of the result (wrapping mod 2^64, so
exact) or the float64 sum of |h|, and the samples the result at both ends, either side of every block
boundary and 64 random positions; that reduction is timed on both sides alike. Each repetition runs
scangen, then the baseline; the table has the medians of --reps. Every repetition's checksum and samples
are compared with the other side's, and after the timing (untimed) every element, on the workers (the
number of elements that differ, computed blockwise and summed): exactly (cumsum), or within 1e-4 of
max(1, |h|) (affine, whose two sides associate the float32 products differently; the checksums within
1e-4 relative). A mismatch exits 1 without a table.

GB/s: the scan's input and output bytes (cumsum 4 + 8, affine 8 + 8 a element) over scangen's time.
Writes a Markdown table to stdout and, with --csv, every timing to a CSV file.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
AFFINE = ("type A { a: f32, b: f32 }\nscan affine_f32 { type = A; combine(x, y) = A { a: y.a * x.a, "
          "b: y.a * x.b + y.b }; identity = A { a: 1.0, b: 0.0 }; level = device; }")
ROW = 32  # the baseline's rows


def _affine_dtype():
    return np.dtype([("a", np.float32), ("b", np.float32)])


# ---- input, drawn on the workers ----

def _affine_block(block_id=None, *, sizes, seed):
    i = block_id[0]
    rng = np.random.default_rng([seed, i])
    out = np.empty(sizes[i], _affine_dtype())
    out["a"] = rng.random(sizes[i], dtype=np.float32) * np.float32(0.5) + np.float32(0.5)
    out["b"] = rng.random(sizes[i], dtype=np.float32) * np.float32(2) - np.float32(1)
    return out


# ---- the affine baseline: NumPy per block, a Python loop across blocks ----

def _recurrence(a, b, level=0):
    """h[t] = a[t] h[t-1] + b[t] from h = 0, float32, with whole-array NumPy operations on rows of ROW
    elements; the carries into the rows are the same recurrence over the rows' ends (one level up)."""
    n = a.shape[0]
    if n <= ROW:  # a Python loop
        h, c = np.empty(n, np.float32), np.float32(0)
        for t in range(n):
            c = a[t] * c + b[t]
            h[t] = c
        return h
    m = -(-n // ROW)
    p = np.ones(m * ROW, np.float32)
    p[:n] = a
    p = p.reshape(m, ROW)
    h = np.zeros(m * ROW, np.float32)
    h[:n] = b
    h = h.reshape(m, ROW)
    if level == 0:  # a in [0.5, 1): a row's products stay above 2^-32, so b / cumprod(a) is finite
        np.cumprod(p, axis=1, out=p)
        h /= p
        np.cumsum(h, axis=1, out=h)
        h *= p
    else:  # the rows' products may underflow: doubling (log2(ROW) steps), no division
        d = 1
        while d < ROW:
            h[:, d:] += p[:, d:] * h[:, :-d]
            p[:, d:] = p[:, d:] * p[:, :-d]
            d *= 2
    carry = np.empty(m, np.float32)
    carry[0] = 0
    carry[1:] = _recurrence(p[:-1, -1], h[:-1, -1], level + 1)
    h += p * carry[:, None]
    return h.reshape(-1)[:n]


def _local(block):
    if block.shape[0] == 0:
        return np.empty(0, np.float32)
    return _recurrence(np.ascontiguousarray(block["a"]), np.ascontiguousarray(block["b"]))


def _summary(block, local):
    """The block as one affine map: the product of its a and its h from h = 0 at its end."""
    if block.shape[0] == 0:
        return np.array([1.0, 0.0])
    return np.array([np.prod(block["a"], dtype=np.float64), float(local[-1])])


def _block_carries(summaries):
    """h before each block: a Python loop over the blocks."""
    carries, c = np.empty(summaries.shape[0] // 2), 0.0
    for j in range(carries.shape[0]):
        carries[j] = c
        c = summaries[2 * j] * c + summaries[2 * j + 1]
    return carries


def _fix(block, local, carry):
    if carry[0] == 0 or block.shape[0] == 0:
        return local
    return local + np.cumprod(block["a"]) * np.float32(carry[0])


def affine_baseline(da, x):
    k = len(x.chunks[0])
    local = x.map_blocks(_local, dtype=np.float32, meta=np.empty(0, np.float32))
    summaries = da.map_blocks(_summary, x, local, chunks=((2,) * k,), dtype=np.float64)
    carries = summaries.rechunk(((2 * k,),)).map_blocks(_block_carries, chunks=((k,),), dtype=np.float64)
    return da.map_blocks(_fix, x, local, carries.rechunk(((1,) * k,)), dtype=np.float32, chunks=x.chunks,
                         meta=np.empty(0, np.float32))


# ---- timing ----

def _warm(texts):
    """Compiles the scans in a worker (every build the timed runs take: its disk cache keeps them)."""
    import dask.array as da
    import scangen
    import scangen.dask
    s = scangen.compile(texts["affine"])
    x = np.zeros(40, s.input_dtype)
    scangen.dask.scan(s, da.from_array(x, chunks=7)).compute(scheduler="sync")
    v = da.from_array(np.arange(40, dtype=np.int32), chunks=7)
    scangen.dask.cumsum(v, dtype=np.int64).compute(scheduler="sync")
    return scangen.runtime_info().get("device_name", "?")


def samples_of(x, n, rng):
    edges = np.cumsum(x.chunks[0])[:-1]
    idx = np.concatenate([[0, n - 1], edges - 1, edges, rng.integers(0, n, size=64)])
    return np.unique(idx[(idx >= 0) & (idx < n)])


def agree(case, got, want):
    if case == "cumsum":
        return bool(got[0] == want[0] and np.array_equal(got[1], want[1]))
    return bool(np.isclose(got[0], want[0], rtol=1e-4, atol=0) and
                np.allclose(got[1], want[1], rtol=1e-4, atol=1e-4))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10**9, help="elements (default 10^9)")
    parser.add_argument("--chunks", type=int, default=100, help="blocks (default 100)")
    parser.add_argument("--reps", type=int, default=3, help="timed repetitions (the median)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="worker processes (default: cores)")
    parser.add_argument("--threads-per-worker", type=int, default=1)
    parser.add_argument("--cases", default="cumsum,affine", help="cumsum, affine or both (default)")
    parser.add_argument("--seed", type=int, default=56)
    parser.add_argument("--csv", help="every timing to this CSV file")
    args = parser.parse_args()

    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster, wait

    import scangen
    import scangen.dask as sd

    load_start = os.getloadavg()
    n, k = args.n, args.chunks
    size = -(-n // k)
    sizes = tuple(min(size, n - i * size) for i in range(-(-n // size)))
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        devices = set(client.run(_warm, {"affine": AFFINE}).values())
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True).stdout.strip() or "?"
        rng = np.random.default_rng(args.seed)
        rows, timings = [], []
        for case in args.cases.split(","):
            if case == "cumsum":
                x = da.random.default_rng(args.seed).integers(-2**31, 2**31, size=n, chunks=(sizes,),
                                                              dtype=np.int32)
                moved = n * (4 + 8)
            elif case == "affine":
                x = da.map_blocks(_affine_block, sizes=sizes, seed=args.seed, chunks=(sizes,),
                                  dtype=_affine_dtype(), meta=np.empty(0, _affine_dtype()))
                moved = n * (8 + 8)
            else:
                parser.error(f"unknown case {case!r}")
            x = x.persist()
            wait(x)
            idx = samples_of(x, n, rng)
            if case == "cumsum":
                ours, theirs = sd.cumsum(x, dtype=np.int64), da.cumsum(x, dtype=np.int64)
                jobs = {"scangen": (ours.sum(), ours[idx]), "baseline": (theirs.sum(), theirs[idx])}
            else:
                ours, theirs = sd.scan(scangen.compile(AFFINE), x)["b"], affine_baseline(da, x)
                jobs = {"scangen": (abs(ours).sum(dtype=np.float64), ours[idx]),
                        "baseline": (abs(theirs).sum(dtype=np.float64), theirs[idx])}
            times = {"scangen": [], "baseline": []}
            for rep in range(args.reps):
                results = {}
                for impl, job in jobs.items():
                    t0 = time.perf_counter()
                    results[impl] = dask.compute(*job)
                    dt = time.perf_counter() - t0
                    times[impl].append(dt)
                    timings.append((case, impl, rep, n, k, dt))
                    print(f"# {case} {impl} rep {rep}: {dt:.3f} s, checksum {results[impl][0]}", file=sys.stderr,
                          flush=True)
                if not agree(case, results["scangen"], results["baseline"]):
                    print(f"dask_bench: {case}: scangen and the baseline differ (rep {rep}): checksums "
                          f"{results['scangen'][0]} and {results['baseline'][0]}", file=sys.stderr)
                    return 1
            if case == "cumsum":
                wrong = ours != theirs
            else:
                wrong = abs(ours - theirs) > np.float32(1e-4) * da.maximum(np.float32(1), abs(theirs))
            wrong = int(wrong.sum().compute())
            print(f"# {case}: {wrong} elements differ", file=sys.stderr, flush=True)
            if wrong:
                print(f"dask_bench: {case}: scangen and the baseline differ in {wrong} elements", file=sys.stderr)
                return 1
            del x, jobs, ours, theirs
            ours_s, theirs_s = statistics.median(times["scangen"]), statistics.median(times["baseline"])
            rows.append((case, ours_s, theirs_s, theirs_s / ours_s, moved / ours_s / 1e9))
        if args.csv:
            with open(args.csv, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["case", "impl", "rep", "n", "chunks", "seconds"])
                w.writerows(timings)
        baseline_name = {"cumsum": "dask.array.cumsum", "affine": "map_blocks + Python-loop carry"}
        load = os.getloadavg()
        print(f"dask_bench: n = {n}, {len(sizes)} blocks, LocalCluster of {args.workers} processes x "
              f"{args.threads_per_worker} threads; {os.cpu_count()} CPUs, OpenCL device "
              f"{', '.join(sorted(devices))}; commit {commit}, {datetime.date.today()}; load average (1, 5, 15 "
              f"min) at the start {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f}, at the end "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; medians of {args.reps}")
        print()
        print("| case | scangen s | baseline | baseline s | ratio (baseline / scangen) | scangen GB/s |")
        print("|---|---:|---|---:|---:|---:|")
        for case, ours_s, theirs_s, ratio, gbs in rows:
            print(f"| {case} | {ours_s:.3f} | {baseline_name[case]} | {theirs_s:.3f} | {ratio:.2f} | {gbs:.2f} |")
    finally:
        client.close()
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
