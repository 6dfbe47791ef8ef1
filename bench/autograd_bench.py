"""autograd_bench.py: scans trained through, forward and backward, against what PyTorch users have.

    python3 bench/autograd_bench.py [--reps 20] [--csv FILE] [--quick]

On a CUDA GPU with PyTorch; every time is the median of --reps runs timed by CUDA events after 3
warm-up runs, all comparisons in the same run:

- the linear recurrence h[t] = a[t] h[t-1] + b[t] (f32, shape (B, D, T), along T):
  scangen.linear_recurrence, forward and forward + backward (the gradients of a and b from a
  random gradient of h), against accelerated-scan's CUDA (warp) and Triton (scalar) kernels when
  the package is importable (PyPI `accelerated-scan`), torch.compile'd
  torch._higher_order_ops.associative_scan where it runs, and a loop over t (forward only);
- the backward of cumsum and logcumsumexp of a (4096, 4096) f32 tensor along each axis, alone
  (torch.autograd.grad of a retained graph), against PyTorch's own backward.

"of copy" is the time a copy of the same bytes takes (a device-to-device copy's rate, measured in
the same run) over the time taken: 1.0 is a pass at the copy's speed. Every scangen result is checked
against the comparison's (max relative error printed) so that a wrong answer is not timed.
"""
import argparse
import csv
import importlib
import statistics
import subprocess

import torch

import scangen

parser = argparse.ArgumentParser()
parser.add_argument("--reps", type=int, default=20)
parser.add_argument("--csv", default=None)
parser.add_argument("--quick", action="store_true", help="small shapes, to check the script")
args = parser.parse_args()
dev = "cuda"
rows = []


def timed(fn, reps=None):
    """Median seconds of fn() over reps runs (CUDA events), after 3 warm-up runs."""
    reps = reps or args.reps
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(times)


def copy_rate():
    """Bytes a second a device-to-device copy moves (read + written), of a 1 GiB buffer."""
    src = torch.empty(1 << 28, dtype=torch.float32, device=dev)
    dst = torch.empty_like(src)
    return 2 * src.numel() * 4 / timed(lambda: dst.copy_(src))


RATE = copy_rate()


def rel_err(got, want):
    return float(((got.double() - want.double()).abs().max() / want.double().abs().max().clamp_min(1e-30)))


def row(case, impl, seconds, nbytes, err=None, note=""):
    rows.append(dict(case=case, impl=impl, ms=seconds * 1e3 if seconds else None,
                     of_copy=(nbytes / RATE) / seconds if seconds else None,
                     err=err, note=note))
    ms = f"{seconds * 1e3:9.3f}" if seconds else "        -"
    frac = f"{(nbytes / RATE) / seconds:5.2f}" if seconds else "    -"
    print(f"| {case} | {impl} | {ms} | {frac} | {'' if err is None else f'{err:.1e}'} | {note} |", flush=True)


def recurrence_cases(shape):
    B, D, T = shape
    n = B * D * T
    case = f"linear recurrence f32 {shape}"
    gen = torch.Generator(device=dev).manual_seed(7)
    a = torch.rand(shape, device=dev, generator=gen) * 0.1 + 0.9
    b = torch.randn(shape, device=dev, generator=gen)
    g = torch.randn(shape, device=dev, generator=gen)
    fwd_bytes, bwd_bytes = 3 * 4 * n, 5 * 4 * n  # forward: a, b in, h out; backward: a, h, grad in, 2 out
    a_, b_ = a.clone().requires_grad_(), b.clone().requires_grad_()

    def ours_fwd():
        return scangen.linear_recurrence(a, b)

    def ours_both():
        h = scangen.linear_recurrence(a_, b_)
        return torch.autograd.grad(h, (a_, b_), g)

    want_h = ours_fwd()
    want_ga, want_gb = ours_both()
    row(case, "scangen forward", timed(ours_fwd), fwd_bytes)
    row(case, "scangen forward + backward", timed(ours_both), fwd_bytes + bwd_bytes)
    # accelerated-scan's two kernels (PyPI `accelerated-scan`; its CUDA one compiles at first use).
    for label, module in (("CUDA", "accelerated_scan.warp"), ("Triton", "accelerated_scan.scalar")):
        try:
            their_scan = importlib.import_module(module).scan
            row(case, f"accelerated-scan {label} forward", timed(lambda: their_scan(a, b)), fwd_bytes,
                rel_err(their_scan(a, b), want_h))

            def theirs_both():
                h = their_scan(a_, b_)
                return torch.autograd.grad(h, (a_, b_), g)
            ga, gb = theirs_both()
            row(case, f"accelerated-scan {label} forward + backward", timed(theirs_both), fwd_bytes + bwd_bytes,
                max(rel_err(ga, want_ga), rel_err(gb, want_gb)))
        except Exception as e:  # not installed, or not this shape
            row(case, f"accelerated-scan {label}", None, fwd_bytes, note=f"not run: {type(e).__name__}: {str(e)[:80]}")
    try:
        if T > 4096:
            raise RuntimeError("not tried past T = 4096: its backward holds T x T elements a line")
        from torch._higher_order_ops.associative_scan import associative_scan

        def combine(x, y):
            return (x[0] * y[0], x[1] * y[0] + y[1])

        def assoc(a, b):
            return associative_scan(combine, (a, b), dim=2, combine_mode="generic")[1]
        compiled = torch.compile(assoc, fullgraph=True)
        row(case, "torch.compile associative_scan forward", timed(lambda: compiled(a, b), 5), fwd_bytes,
            rel_err(compiled(a, b), want_h))

        def assoc_both():
            h = compiled(a_, b_)
            return torch.autograd.grad(h, (a_, b_), g)
        ga, gb = assoc_both()
        row(case, "torch.compile associative_scan forward + backward", timed(assoc_both, 5),
            fwd_bytes + bwd_bytes, max(rel_err(ga, want_ga), rel_err(gb, want_gb)))
    except Exception as e:
        row(case, "torch.compile associative_scan", None, fwd_bytes,
            note=f"not run: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}")
        torch.cuda.empty_cache()
    if T <= 4096:
        def loop():
            h = torch.empty_like(b)
            prev = torch.zeros_like(b[..., 0])
            for t in range(T):
                prev = a[..., t] * prev + b[..., t]
                h[..., t] = prev
            return h
        row(case, "loop over t, forward", timed(loop, 3), fwd_bytes, rel_err(loop(), want_h))


def backward_cases(n):
    gen = torch.Generator(device=dev).manual_seed(11)
    x = torch.randn((n, n), device=dev, generator=gen).requires_grad_()
    g = torch.randn((n, n), device=dev, generator=gen)
    for name, ours, theirs, nbytes in (
            ("cumsum", scangen.cumsum, torch.cumsum, 2 * 4 * n * n),  # grad in, grad out
            ("logcumsumexp", scangen.logcumsumexp, torch.logcumsumexp, 4 * 4 * n * n)):  # x, y, grad in; out
        for axis in (0, 1):
            case = f"{name} backward f32 ({n}, {n}) axis {axis}"
            y_ours = ours(x, axis=axis)
            y_theirs = theirs(x, axis)
            got = torch.autograd.grad(y_ours, x, g, retain_graph=True)[0]
            want = torch.autograd.grad(y_theirs, x, g, retain_graph=True)[0]
            row(case, "scangen", timed(lambda: torch.autograd.grad(y_ours, x, g, retain_graph=True)), nbytes,
                rel_err(got, want))
            row(case, "PyTorch", timed(lambda: torch.autograd.grad(y_theirs, x, g, retain_graph=True)), nbytes)
            del y_ours, y_theirs


commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
print(f"autograd_bench: {torch.cuda.get_device_name()}, torch {torch.__version__}, commit {commit or '?'}, "
      f"median of {args.reps}, copy {RATE / 1e9:.0f} GB/s\n")
print("| case | implementation | ms | of copy | max rel. error | note |")
print("|---|---|---:|---:|---:|---|")
for shape in ([(2, 64, 1024)] if args.quick else [(8, 1024, 4096), (2, 256, 65536)]):
    recurrence_cases(shape)
backward_cases(512 if args.quick else 4096)
if args.csv:
    with open(args.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
