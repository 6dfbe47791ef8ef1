"""mpi_bench.py: what scangen.mpi.scan costs over one process's scan of the same total size, step by step,
with every rank's part on the CUDA device (PyTorch tensors). Run under mpirun with P ranks:

    mpirun -n P python3 bench/mpi_bench.py [--log2n 28] [--runs 20] [--dtype int64]

The array (TOTAL = 2^log2n elements, i64 sums by default) is split evenly over the ranks. All ranks use
device 0 unless there are more (rank % device count): on a one-GPU machine the ranks share it, each its own
process and CUDA context. Rank 0 first times one process's scan of the whole array (alone, the other ranks
waiting). Then every rank times, RUNS times after a warm-up, a barrier before each: the whole
scangen.mpi.scan, and its steps alone: the reduce of the part (one read), the collective (allgather of one
element per rank and the carry combined on the host) and the scan of the part from its carry (one read, one
write). A step's time is the slowest rank's (each rank synchronises its device before it stops the clock);
rank 0 prints the medians and the passes over the data. The result is checked against the whole-array scan.
"""
import argparse
import statistics
import time

import numpy as np
import torch
from mpi4py import MPI

import scangen
import scangen.mpi

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
parser = argparse.ArgumentParser()
parser.add_argument("--log2n", type=int, default=28)
parser.add_argument("--runs", type=int, default=20)
parser.add_argument("--dtype", default="int64", choices=["int32", "int64", "float32", "float64"])
args = parser.parse_args()
torch.cuda.set_device(rank % torch.cuda.device_count())
dtype = np.dtype(args.dtype)
tdtype = getattr(torch, args.dtype)
ELEMENT = {"int32": "i32", "int64": "i64", "float32": "f32", "float64": "f64"}[args.dtype]
s = scangen.compile(f"scan mpi_bench_sum {{ type = {ELEMENT}; op = add; level = device; }}")
total = 1 << args.log2n
bounds = [total * r // size for r in range(size + 1)]
gen = torch.Generator(device="cuda").manual_seed(1234)
whole = torch.randint(-100, 100, (total,), generator=gen, device="cuda").to(tdtype) if dtype.kind == "i" \
    else torch.randn(total, generator=gen, device="cuda", dtype=tdtype)
part = whole[bounds[rank]:bounds[rank + 1]].contiguous()


def timed(step, runs):
    """The median over runs of the slowest rank's seconds for step() (a barrier before each run)."""
    step()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        comm.Barrier()
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(comm.allreduce(time.perf_counter() - t0, op=MPI.MAX))
    return statistics.median(times)


# One process's scan of the whole array: every rank's reference for its part; rank 0 times it alone.
want = s(whole)[bounds[rank]:bounds[rank + 1]].clone()
single = None
if rank == 0:
    torch.cuda.synchronize()
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        s(whole)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    single = statistics.median(times)
comm.Barrier()

got = scangen.mpi.scan(comm, s, part)
ok = torch.equal(got, want) if dtype.kind == "i" else torch.allclose(got, want, rtol=1e-4, atol=1e-2)
if not comm.allreduce(bool(ok), op=MPI.LAND):
    raise SystemExit(f"mpi_bench: {size} ranks: the distributed scan differs from one process's")
del want, got
del whole

agg_holder = {}


def reduce_step():
    agg_holder["agg"] = np.frombuffer(s._part_aggregate(part, False), dtype=s.dtype).copy()


def collective_step():
    everyone = b"".join(comm.allgather(agg_holder["agg"].tobytes()))
    agg_holder["carry"] = s._kernel.carry(everyone, rank, None, False)[0]


reduce_step()
collective_step()
t_run = timed(lambda: scangen.mpi.scan(comm, s, part), args.runs)
t_reduce = timed(reduce_step, args.runs)
t_collective = timed(collective_step, args.runs)
t_scan = timed(lambda: s._from_carry(part, False, False, agg_holder["carry"]), args.runs)
if rank == 0:
    gpu = torch.cuda.get_device_name()
    nbytes = total * dtype.itemsize
    print(f"mpi_bench.py: {gpu}, {size} ranks sharing {torch.cuda.device_count()} GPU(s), 2^{args.log2n} "
          f"{dtype}, median of {args.runs}")
    print("| step | ms | GB/s of the whole array's traffic |")
    print("|---|---:|---:|")
    print(f"| one process's scan (2 passes: read, write) | {single * 1e3:.3f} | {2 * nbytes / single / 1e9:.0f} |")
    print(f"| scangen.mpi.scan, all steps (3 passes: read, read + write) | {t_run * 1e3:.3f} | "
          f"{3 * nbytes / t_run / 1e9:.0f} |")
    print(f"| 1. reduce of the parts (1 pass) | {t_reduce * 1e3:.3f} | {nbytes / t_reduce / 1e9:.0f} |")
    print(f"| 2. allgather + carry on the host | {t_collective * 1e3:.3f} | |")
    print(f"| 3. scan from the carry (2 passes) | {t_scan * 1e3:.3f} | {2 * nbytes / t_scan / 1e9:.0f} |")
    print(f"distributed / one process: {t_run / single:.2f}")
