#!/usr/bin/env python3
"""The comparison of bench/shape_bench.cu: torch.cumsum and Triton kernels of
our own (tl.cumsum) on the same f32 shapes, against a copy of the same bytes
(torch's clone into a preallocated tensor), timed with CUDA events: the median
of --reps runs after warm-up. Each result is checked against torch.cumsum in
float64.

  python3 bench/shape_compare.py [--reps 200] [--csv FILE]

Rows (dim=1): one Triton program scans ROWS rows of a block of the row
length with tl.cumsum(axis=1) (rows up to 8192 long fit one block). Columns
(dim=0): one Triton program per strip of up to 32 columns walks down the
rows in chunks, tl.cumsum(axis=0) plus the strip's running totals: a Triton
scan stays inside one program, so the axis is walked in order.
"""
import argparse
import csv
import statistics
import sys

try:
    import torch
except ImportError:  # the GPU machine has it; elsewhere there is nothing to compare
    print("shape_compare: torch is not installed; nothing measured", file=sys.stderr)
    sys.exit(0)

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

CASES = [
    ("rows 4096 x 4096", 1, 4096, 4096),
    ("rows 65536 x 256", 1, 65536, 256),
    ("rows 2^20 x 32", 1, 1 << 20, 32),
    ("columns 1M x 32", 0, 1 << 20, 32),
    ("columns 1M x 2", 0, 1 << 20, 2),
    ("columns 65536 x 1024", 0, 65536, 1024),
]

if triton is not None:

    @triton.jit
    def rows_cumsum_kernel(x, y, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
        r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
        c = tl.arange(0, BLOCK)[None, :]
        mask = (r < n_rows) & (c < n_cols)
        v = tl.load(x + r * n_cols + c, mask=mask, other=0.0)
        tl.store(y + r * n_cols + c, tl.cumsum(v, axis=1), mask=mask)

    @triton.jit
    def cols_cumsum_kernel(x, y, n_rows, n_cols, CHUNK: tl.constexpr, COLS: tl.constexpr):
        c = tl.program_id(0) * COLS + tl.arange(0, COLS)[None, :]
        carry = tl.zeros((COLS,), dtype=tl.float32)
        for start in range(0, n_rows, CHUNK):
            r = start + tl.arange(0, CHUNK)[:, None]
            mask = (r < n_rows) & (c < n_cols)
            v = tl.load(x + r * n_cols + c, mask=mask, other=0.0)
            tl.store(y + r * n_cols + c, tl.cumsum(v, axis=0) + carry[None, :], mask=mask)
            carry += tl.sum(v, axis=0)


def triton_scan(dim, x, y):
    n_rows, n_cols = x.shape
    if dim == 1:
        block = triton.next_power_of_2(n_cols)
        rows = max(1, min(128, 4096 // block))
        rows_cumsum_kernel[(triton.cdiv(n_rows, rows),)](x, y, n_rows, n_cols, ROWS=rows, BLOCK=block)
    else:
        cols = min(32, triton.next_power_of_2(n_cols))
        chunk = max(16, 4096 // cols)
        cols_cumsum_kernel[(triton.cdiv(n_cols, cols),)](x, y, n_rows, n_cols, CHUNK=chunk, COLS=cols)


def median_us(fn, reps):
    for _ in range(5):
        fn()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--csv")
    args = ap.parse_args()
    dev = torch.device("cuda")
    print(f"# shape_compare on {torch.cuda.get_device_name(0)}, torch {torch.__version__}"
          f"{', triton ' + triton.__version__ if triton else ', no triton'}; median of {args.reps} runs\n")
    print("| case | copy (us) | torch.cumsum (us) | torch / copy speed | triton (us) | triton / copy speed |")
    print("|---|---|---|---|---|---|")
    rows_out = []
    for name, dim, r, c in CASES:
        x = torch.rand(r, c, device=dev, dtype=torch.float32) - 0.5
        y = torch.empty_like(x)
        want = torch.cumsum(x.double(), dim=dim)
        copy = median_us(lambda: y.copy_(x), args.reps)
        t_torch = median_us(lambda: torch.cumsum(x, dim=dim, out=y), args.reps)
        err_torch = ((y.double() - want).abs() / want.abs().clamp(min=1.0)).max().item()
        t_triton, err_triton = float("nan"), float("nan")
        if triton is not None:
            y.zero_()
            triton_scan(dim, x, y)
            err_triton = ((y.double() - want).abs() / want.abs().clamp(min=1.0)).max().item()
            t_triton = median_us(lambda: triton_scan(dim, x, y), args.reps)
        print(f"| {name} | {copy:.1f} | {t_torch:.1f} | {copy / t_torch:.3f} | {t_triton:.1f} | "
              f"{copy / t_triton:.3f} |  (max rel. error torch {err_torch:.1e}, triton {err_triton:.1e})")
        rows_out.append([name, r, c, f"{copy:.2f}", f"{t_torch:.2f}", f"{t_triton:.2f}"])
        del x, y, want
        torch.cuda.empty_cache()
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "rows", "cols", "copy_us", "torch_us", "triton_us"])
            w.writerows(rows_out)


if __name__ == "__main__":
    main()
