"""PyTorch CUDA tensors and CuPy arrays on a CUDA GPU, zero-copy, on the
current stream (skipped where there is no CUDA GPU, or without torch / CuPy)."""
import numpy as np
import pytest

import scangen

try:
    import torch
except ImportError:
    pytest.skip("needs a CUDA GPU and PyTorch (torch is not installed)", allow_module_level=True)
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU (PyTorch sees none)", allow_module_level=True)
if scangen.runtime_info()["backend"] != "cuda":
    pytest.skip("needs a CUDA GPU (scangen's runtime is on OpenCL: "
                f"{scangen.runtime_info()['fallback_reason']})", allow_module_level=True)

SIZES = [1, 2, 31, 33, 1023, 1025, 4097, 20001, 2**20 + 3]


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint32, np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
def test_torch_cumsum(dtype):
    rng = np.random.default_rng(7)
    for n in SIZES:
        if np.dtype(dtype).kind == "f":
            host = (rng.integers(-8, 8, size=n, endpoint=True) / 8).astype(dtype)  # exact partial sums
        else:
            host = rng.integers(0, 100, size=n).astype(dtype)
        x = torch.from_numpy(host).cuda()
        got = scangen.cumsum(x)
        assert got.is_cuda and got.device == x.device and got.shape == x.shape
        ref = np.cumsum(host, dtype=dtype) if host.dtype.kind != "f" else np.cumsum(host.astype(np.float64))
        if dtype == np.float16:
            ok = np.all(np.abs(got.cpu().numpy().astype(np.float64) - ref) <= 2.0**-10 * (np.abs(ref) + 1) * 64)
        else:
            ok = np.allclose(got.cpu().numpy(), ref, rtol=1e-5) if host.dtype.kind == "f" else \
                np.array_equal(got.cpu().numpy(), ref)
        assert ok, f"{np.dtype(dtype).name}, n = {n}"


def test_torch_stream_out_exclusive_strided():
    n = 2**22 + 5
    s = torch.cuda.Stream()
    x = torch.empty(n, dtype=torch.int32, device="cuda")
    out = torch.empty(n, dtype=torch.int32, device="cuda")
    with torch.cuda.stream(s):
        x.fill_(1)  # on s: the scan must see it without a synchronisation
        assert scangen.cumsum(x, out=out) is out
        excl = scangen.cummax(torch.arange(n, device="cuda", dtype=torch.int32).flip(0)[::1], exclusive=True)
    s.synchronize()
    assert torch.equal(out, torch.arange(1, n + 1, device="cuda", dtype=torch.int32))
    assert excl[0].item() == np.iinfo(np.int32).min and excl[1].item() == n - 1
    strided = torch.ones(2 * n, dtype=torch.int32, device="cuda")[::2]
    assert torch.equal(scangen.cumsum(strided), torch.arange(1, n + 1, device="cuda", dtype=torch.int32))


def test_torch_custom_operator():
    x = torch.randint(0, 2**31 - 1, (100_001,), dtype=torch.int64, device="cuda")
    got = scangen.associative_scan("max(x, y)", x, identity="i64.min")
    assert torch.equal(got, torch.cummax(x, 0).values)


def test_cupy():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(1, 300_001, dtype=cupy.float64)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        y = scangen.cumsum(x, exclusive=True)
        m = scangen.cummin(x[::-1].copy())
    s.synchronize()
    host = cupy.asnumpy(x)
    assert np.allclose(cupy.asnumpy(y), np.concatenate([[0.0], np.cumsum(host)[:-1]]), rtol=1e-12)
    assert np.array_equal(cupy.asnumpy(m), np.minimum.accumulate(host[::-1]))  # CuPy has no minimum.accumulate
