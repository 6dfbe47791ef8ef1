#!/usr/bin/env python3
"""The Python package on a CUDA GPU against PyTorch and Triton (issue 20's performance table).

  python overhead   a cached ``scan(x, out=out)`` of N = 2^10 int32 PyTorch elements, host side (no wait
                    for the GPU), against the C++ ``Scan::run`` host cost (``.gpu/jit_bench --cuda``'s
                    "launch, host side" row, when that binary is there; scripts/gpu-check build makes it);
                    the Python layer alone (the launch stubbed); both again on the general path
                    (``scangen._fast.enabled = False``: what a call cost before the fast path)
  f32 sum 2^28      ``scangen.cumsum`` against ``torch.cumsum``
  affine f32 2^24   x[i] = a[i] * x[i-1] + b[i] with a tuple of two tensors (the packing into structs and
                    back included, and the kernel alone on packed structs), against
                    ``torch._higher_order_ops.associative_scan`` under ``torch.compile`` and a Triton
                    kernel of ``tl.associative_scan`` (three passes: block aggregates, their scan, the
                    blocks' scans from their carries)
  first call        a new operator, caches empty: ``associative_scan`` of a text never seen (NVRTC)

GPU times: CUDA events around each call, after warm-up calls; the median of --runs calls. Host times:
``time.perf_counter_ns`` around each call; the median. Every result is checked against a reference
first. Writes ``python_bench.md`` (a Markdown table) under --out (default $OUT, else the current
folder). Run it on the GPU machine: ``scripts/gpu-check python`` runs it after the tests.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder of python_bench.md")
    parser.add_argument("--runs", type=int, default=50, help="timed GPU calls per case (median)")
    parser.add_argument("--host-runs", type=int, default=5000, help="timed host calls (median)")
    parser.add_argument("--log2-sum", type=int, default=28)
    parser.add_argument("--log2-affine", type=int, default=24)
    args = parser.parse_args()

    # The first-call row needs empty caches: a fresh disk cache for this process, before scangen starts.
    cache = tempfile.mkdtemp(prefix="scangen-python-bench-")
    os.environ["SCANGEN_CACHE_DIR"] = cache
    try:
        import torch
    except ImportError:
        print("python_bench: needs PyTorch on a CUDA GPU (torch is not installed)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("python_bench: needs a CUDA GPU (PyTorch sees none)", file=sys.stderr)
        return 2
    import scangen
    info = scangen.runtime_info()
    if info["backend"] != "cuda":
        print(f"python_bench: scangen's runtime is on OpenCL ({info['fallback_reason']})", file=sys.stderr)
        return 2

    rows = []
    bench = Bench(torch, scangen, args)
    rows += bench.first_call()
    rows += bench.overhead()
    rows += bench.sum_f32(args.log2_sum)
    rows += bench.affine(args.log2_affine)

    device = torch.cuda.get_device_name(0)
    lines = [f"## python_bench: {device}, torch {torch.__version__}, Python {sys.version.split()[0]}", "",
             "| case | scangen | comparison | ratio | goal |", "|---|---:|---:|---:|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "python_bench.md").write_text(text)
    return 0


def us(x):
    return f"{x:.2f} µs" if x < 100 else f"{x:.0f} µs"


class Bench:
    def __init__(self, torch, scangen, args):
        self.torch, self.scangen, self.args = torch, scangen, args

    def gpu_median_us(self, fn, runs=None, warmup=5):
        """The median over ``runs`` calls of ``fn``'s GPU time on the current stream (CUDA events), in µs."""
        torch = self.torch
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(runs or self.args.runs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
        return statistics.median(times)

    def host_median_us(self, fn, runs):
        """The median host time of ``fn`` (no wait for the GPU; a synchronisation every 256 calls)."""
        torch = self.torch
        for _ in range(200):
            fn()
        times = []
        for i in range(runs):
            t0 = time.perf_counter_ns()
            fn()
            times.append((time.perf_counter_ns() - t0) / 1000.0)
            if i % 256 == 255:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        return statistics.median(times)

    # ---- rows ----

    def first_call(self):
        torch, scangen = self.torch, self.scangen
        x = torch.randint(0, 1000, (1 << 20,), dtype=torch.int32, device="cuda")
        text = f"max(x, y) + 0 * {time.time_ns() % 1000003}"  # a text never compiled before
        t0 = time.perf_counter()
        got = scangen.associative_scan(text, x, identity="i32.min")
        torch.cuda.synchronize()
        cold = time.perf_counter() - t0
        assert torch.equal(got, torch.cummax(x, 0).values), "first call: wrong result"
        return [("first call, new operator, empty caches (NVRTC)", f"{cold * 1000:.0f} ms",
                 "1300 ms (cuda.compute, ANCHORS.md)", f"{cold / 1.3:.2f} ×", "≤ 0.2 ×")]

    def overhead(self):
        torch, scangen = self.torch, self.scangen
        n = 1 << 10
        x = torch.randint(0, 1000, (n,), dtype=torch.int32, device="cuda")
        out = torch.empty_like(x)
        scan = scangen.compile("scan add_i32 { type = i32; op = add; level = device; }")
        assert torch.equal(scan(x), torch.cumsum(x, 0, dtype=torch.int32))
        call_out = self.host_median_us(lambda: scan(x, out=out), self.args.host_runs)
        if not scan._cuda_plans:
            print("python_bench: the fast path (scangen/_fast.py) did not take scan(x, out=out)", file=sys.stderr)
        call_new = self.host_median_us(lambda: scan(x), self.args.host_runs)
        shorthand = self.host_median_us(lambda: scangen.cumsum(x, out=out), self.args.host_runs)
        kernel = scan._variant(scan._kernel_for("cuda"), None, None)
        stream = torch.cuda.current_stream().cuda_stream
        raw = self.host_median_us(lambda: kernel.run_cuda(x.data_ptr(), out.data_ptr(), n, stream, 0, 0),
                                  self.args.host_runs)
        # The Python layer alone: the same call with the launch stubbed out (what the package adds to
        # Kernel.run_cuda: argument checks, torch's attributes, the layout, the variant look-up).
        stub = StubKernel(kernel)
        scan._variants = {key: stub for key in scan._variants}
        python_only = self.host_median_us(lambda: scan(x, out=out), self.args.host_runs)
        # The same two without the fast path of cached calls (scangen/_fast.py): the general path.
        fast = scangen._fast
        fast.enabled = False
        try:
            python_general = self.host_median_us(lambda: scan(x, out=out), self.args.host_runs)
            scan._variants = {}
            call_general = self.host_median_us(lambda: scan(x, out=out), self.args.host_runs)
        finally:
            fast.enabled = True
        scan._variants = {}
        cxx = jit_bench_launch_us()
        base = f"{us(cxx)} (C++ Scan::run, jit_bench)" if cxx is not None else "n/a (no .gpu/jit_bench)"
        rows = []
        for what, t in (("cached scan(x, out=out), N = 2^10", call_out), ("cached scan(x), N = 2^10 (allocates)", call_new),
                        ("scangen.cumsum(x, out=out), N = 2^10", shorthand),
                        ("Kernel.run_cuda (the binding alone), N = 2^10", raw),
                        ("a cached call, out given, the launch stubbed (the Python layer alone)", python_only),
                        ("cached scan(x, out=out), N = 2^10, general path (fast path off)", call_general),
                        ("the Python layer alone, general path (fast path off)", python_general)):
            above = f"+{t - cxx:.2f} µs" if cxx is not None else "n/a"
            goal = "≤ +10 µs" if "out=out" in what and "general" not in what else ""
            rows.append((f"host side: {what}", us(t), base, above, goal))
        return rows

    def sum_f32(self, log2n):
        torch, scangen = self.torch, self.scangen
        n = 1 << log2n
        x = torch.rand(n, device="cuda") - 0.5
        out, ref_out = torch.empty_like(x), torch.empty_like(x)
        scan = scangen.compile("scan add_f32 { type = f32; op = add; level = device; }")
        scan(x, out=out)
        torch.cumsum(x, 0, out=ref_out)
        ref = torch.cumsum(x.double(), 0)
        err = ((out.double() - ref).abs().max() / x.abs().sum().double()).item()
        assert err < 1e-6, f"f32 sum: relative error {err}"
        t_scan = self.gpu_median_us(lambda: scan(x, out=out))
        t_torch = self.gpu_median_us(lambda: torch.cumsum(x, 0, out=ref_out))
        return [(f"f32 sum, N = 2^{log2n}", us(t_scan), f"{us(t_torch)} (torch.cumsum)",
                 f"{t_torch / t_scan:.2f} × torch", "≥ 1.2 ×")]

    def affine(self, log2n):
        torch, scangen = self.torch, self.scangen
        n = 1 << log2n
        a = torch.rand(n, device="cuda") * 0.5 + 0.5
        b = torch.rand(n, device="cuda") * 2 - 1
        text = ("type Affine { a: f32, b: f32 }\n"
                "scan affine { type = Affine; combine(x, y) = Affine { a: y.a * x.a, b: y.a * x.b + y.b };"
                " identity = Affine { a: 1.0, b: 0.0 }; }")
        scan = scangen.compile(text)
        ra, rb = scan((a, b))
        ref_b = affine_reference(torch, a, b)
        check_close(rb, ref_b, "scangen affine")
        t_tuple = self.gpu_median_us(lambda: scan((a, b)))
        # The kernel alone, on structs packed once.
        packed = torch.stack([a, b], 1).contiguous()
        result = torch.empty_like(packed)
        kernel = scan._variant(scan._kernel_for("cuda"), None, None)
        ws = torch.empty(max(kernel.workspace_bytes(n), 1), dtype=torch.uint8, device="cuda")
        stream = torch.cuda.current_stream().cuda_stream
        run = lambda: kernel.run_cuda(packed.data_ptr(), result.data_ptr(), n, stream, ws.data_ptr(),  # noqa: E731
                                      kernel.workspace_bytes(n))
        run()
        check_close(result[:, 1], ref_b, "scangen affine (packed)")
        t_kernel = self.gpu_median_us(run)

        others = []
        try:
            f = torch_associative_scan(torch)
            ta, tb = f(a, b)
            check_close(tb, ref_b, "torch associative_scan")
            others.append(("torch associative_scan (compiled)", self.gpu_median_us(lambda: f(a, b))))
        except Exception as e:  # recorded in the table: a version without it, a compile failure
            others.append((f"torch associative_scan: {type(e).__name__}: {str(e).splitlines()[0][:80]}", None))
        try:
            tri = TritonAffine(torch, n)
            ta, tb = tri(a, b)
            check_close(tb, ref_b, "Triton tl.associative_scan")
            others.append(("Triton tl.associative_scan (3 passes)", self.gpu_median_us(lambda: tri(a, b))))
        except Exception as e:
            others.append((f"Triton: {type(e).__name__}: {str(e).splitlines()[0][:80]}", None))
        timed = [t for _, t in others if t is not None]
        fastest = min(timed) if timed else None
        rows = []
        for what, t in (("tuple (a, b), packing included", t_tuple), ("kernel alone, packed structs", t_kernel)):
            cmp = "; ".join(f"{name} {us(v)}" if v is not None else name for name, v in others)
            ratio = f"{fastest / t:.2f} × the faster" if fastest else "n/a"
            rows.append((f"affine f32, N = 2^{log2n}: {what}", us(t), cmp, ratio, "≥ 3 ×"))
        return rows


def affine_reference(torch, a, b):
    """x[i] = a[i] x[i-1] + b[i] from x[-1] = 0, in float64 on the GPU: x[i] = P[i] * cumsum(b / P)[i]
    with P the running product of a, in chunks (P would underflow over 2^24 elements)."""
    out = torch.empty(a.numel(), dtype=torch.float64, device=a.device)
    carry = torch.zeros((), dtype=torch.float64, device=a.device)
    chunk = 512
    a64, b64 = a.double(), b.double()
    for s in range(0, a.numel(), chunk):
        ca, cb = a64[s:s + chunk], b64[s:s + chunk]
        p = torch.cumprod(ca, 0)
        x = p * (carry + torch.cumsum(cb / p, 0))
        out[s:s + chunk] = x
        carry = x[-1]
    return out


def check_close(got, ref, what):
    err = ((got.double() - ref).abs().max() / (ref.abs().max() + 1)).item()
    assert err < 1e-3, f"{what}: relative error {err}"


def torch_associative_scan(torch):
    from torch._higher_order_ops.associative_scan import associative_scan

    def combine(x, y):
        return (y[0] * x[0], y[0] * x[1] + y[1])

    @torch.compile(fullgraph=True)
    def f(a, b):
        return associative_scan(combine, (a, b), 0, combine_mode="pointwise")

    return f


class TritonAffine:
    """The affine scan in Triton: each block scans its tile for the tile's map (pass 1), one program scans
    the blocks' maps (pass 2), each block scans its tile with tl.associative_scan from the carry of the
    blocks before it (pass 3). Reads the input twice, writes the output once."""

    BLOCK = 4096

    def __init__(self, torch, n):
        import triton
        import triton.language as tl

        self.torch, self.triton, self.n = torch, triton, n
        self.blocks = triton.cdiv(n, self.BLOCK)
        self.agg = torch.empty(2, self.blocks, device="cuda")

        @triton.jit
        def combine(a1, b1, a2, b2):
            return a2 * a1, a2 * b1 + b2

        @triton.jit
        def reduce_tiles(a_ptr, b_ptr, agg_ptr, n, nblocks, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            a = tl.load(a_ptr + offs, mask=mask, other=1.0)
            b = tl.load(b_ptr + offs, mask=mask, other=0.0)
            # The tile's map is its scan's last element (tl.reduce's butterfly does not keep the order of
            # the operands, which this operator needs); picked out with a sum of one non-zero term.
            sa, sb = tl.associative_scan((a, b), 0, combine)
            last = tl.arange(0, BLOCK) == BLOCK - 1
            tl.store(agg_ptr + pid, tl.sum(tl.where(last, sa, 0.0), 0))
            tl.store(agg_ptr + nblocks + pid, tl.sum(tl.where(last, sb, 0.0), 0))

        @triton.jit
        def scan_blocks(agg_ptr, nblocks, BLOCKS: tl.constexpr):
            offs = tl.arange(0, BLOCKS)
            mask = offs < nblocks
            a = tl.load(agg_ptr + offs, mask=mask, other=1.0)
            b = tl.load(agg_ptr + nblocks + offs, mask=mask, other=0.0)
            sa, sb = tl.associative_scan((a, b), 0, combine)
            tl.store(agg_ptr + offs, sa, mask=mask)
            tl.store(agg_ptr + nblocks + offs, sb, mask=mask)

        @triton.jit
        def scan_tiles(a_ptr, b_ptr, agg_ptr, oa_ptr, ob_ptr, n, nblocks, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            a = tl.load(a_ptr + offs, mask=mask, other=1.0)
            b = tl.load(b_ptr + offs, mask=mask, other=0.0)
            sa, sb = tl.associative_scan((a, b), 0, combine)
            prev = tl.maximum(pid - 1, 0)
            ca = tl.load(agg_ptr + prev)
            cb = tl.load(agg_ptr + nblocks + prev)
            ca = tl.where(pid > 0, ca, 1.0)
            cb = tl.where(pid > 0, cb, 0.0)
            tl.store(oa_ptr + offs, sa * ca, mask=mask)
            tl.store(ob_ptr + offs, sa * cb + sb, mask=mask)

        self.k1, self.k2, self.k3 = reduce_tiles, scan_blocks, scan_tiles

    def __call__(self, a, b):
        oa, ob = self.torch.empty_like(a), self.torch.empty_like(b)
        grid = (self.blocks,)
        self.k1[grid](a, b, self.agg, self.n, self.blocks, BLOCK=self.BLOCK)
        self.k2[(1,)](self.agg, self.blocks, BLOCKS=self.triton.next_power_of_2(self.blocks))
        self.k3[grid](a, b, self.agg, oa, ob, self.n, self.blocks, BLOCK=self.BLOCK)
        return oa, ob


class StubKernel:
    """A variant whose launch does nothing: times the Python layer of a call without the C++ launch."""

    def __init__(self, kernel):
        self.kernel = kernel

    def workspace_bytes(self, n):
        return self.kernel.workspace_bytes(n)

    def shape_workspace_bytes(self, shape):
        return self.kernel.shape_workspace_bytes(shape)

    def run_cuda(self, *args):
        return None


def jit_bench_launch_us():
    """The C++ Scan::run host cost of N = 2^10 from .gpu/jit_bench --cuda, or None without that binary."""
    binary = ROOT / ".gpu" / "jit_bench"
    if not binary.exists():
        return None
    try:
        text = subprocess.run([str(binary), "--cuda"], capture_output=True, text=True, timeout=300).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"launch, host side: run\(n = 1024\) \| ([0-9.]+) us", text)
    return float(m.group(1)) if m else None


if __name__ == "__main__":
    sys.exit(main())
