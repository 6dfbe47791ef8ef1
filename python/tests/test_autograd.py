"""scangen.vjp: the gradient of a scan through the backward scan derived from its operator, against
central differences of the forward scan in float64 (every entry for short arrays; random directions for
long ones, which span many tiles), for the built-in operators and custom ones (non-commutative included),
inclusive and exclusive, forward and reverse, from the identity and from an init, along either axis."""
import numpy as np
import pytest

import scangen
from conftest import FULL_TIER
from torch_params import torch_devices

OPS = {
    "sum": ("scan sum64 { type = f64; op = add; level = device; }", None, (-2, 2)),
    "prod": ("scan prod64 { type = f64; op = mul; level = device; }", None, (0.5, 1.5)),
    "max": ("scan max64 { type = f64; op = max; level = device; }", None, (-2, 2)),
    "min": ("scan min64 { type = f64; op = min; level = device; }", None, (-2, 2)),
    "logaddexp": ("scan lse64 { type = f64; combine(x, y) { let m = max(x, y); return m == -inf ? m : m + "
                  "log(exp(x - m) + exp(y - m)); } identity = -inf; level = device; }", None, (-3, 3)),
    "affine": ("type A { a: f64, b: f64 }\nscan affine64 { type = A; combine(x, y) = A { a: y.a * x.a, b: y.a * "
               "x.b + y.b }; identity = A { a: 1.0, b: 0.0 }; level = device; }", ("a", "b"), (-1.1, 1.1)),
    "mat2": ("type M { a: f64, b: f64, c: f64, d: f64 }\nscan mat2_64 { type = M; combine(x, y) = M { a: x.a * "
             "y.a + x.b * y.c, b: x.a * y.b + x.b * y.d, c: x.c * y.a + x.d * y.c, d: x.c * y.b + x.d * y.d }; "
             "identity = M { a: 1.0, b: 0.0, c: 0.0, d: 1.0 }; level = device; }",
             ("a", "b", "c", "d"), (-0.7, 0.7)),
    "softmax": ("type S { m: f64, s: f64 }\nscan softmax64 { type = S; combine(x, y) { let m = max(x.m, y.m); "
                "return S { m: m, s: (x.m == m ? x.s : x.s * exp(x.m - m)) + (y.m == m ? y.s : y.s * exp(y.m - m)) }; } "
                "identity = S { m: -inf, s: 0.0 }; "
                "level = device; }", ("m", "s"), (0.1, 2)),
    "argmax": ("type V { v: f64, i: i64 }\nscan argmax64 { type = V; combine(x, y) = y.v > x.v ? y : x; "
               "identity = V { v: -inf, i: 0 }; level = device; }", ("v",), (-2, 2)),
}


def draw(scan, leaves, lo, hi, shape, rng):
    x = np.zeros(shape, dtype=scan.dtype)
    for name in leaves or (None,):
        target = x if name is None else x[name]
        target[...] = rng.uniform(lo, hi, size=shape)
    if leaves and "i" in scan.dtype.names:
        x["i"] = np.arange(x.size).reshape(shape)
    return x


def flat_floats(a, leaves):
    if leaves is None:
        return a.reshape(-1).astype(np.float64)
    return np.stack([a[name].reshape(-1) for name in leaves], axis=-1).reshape(-1)


def loss(scan, x, yb, leaves, **kw):
    y = scan(x, **kw)
    yv, ybv = flat_floats(y, leaves), flat_floats(yb, leaves)
    keep = np.isfinite(yv)  # an exclusive scan's seed (-inf for max) is a constant
    return float(np.sum(yv[keep] * ybv[keep]))


def perturbed(x, leaves, direction):
    out = x.copy()
    if leaves is None:
        out += direction.reshape(x.shape)
        return out
    d = direction.reshape(x.shape + (len(leaves),))
    for k, name in enumerate(leaves):
        out[name] += d[..., k]
    return out


CASES = [dict(), dict(exclusive=True), dict(reverse=True), dict(exclusive=True, reverse=True)]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_vjp_matches_central_differences(op, case, rng):
    rng, seed = rng
    text, leaves, (lo, hi) = OPS[op]
    scan = scangen.compile(text)
    kw = CASES[case]
    for n in (1, 2, 5, 700):
        x = draw(scan, leaves, lo, hi, (n,), rng)
        yb = draw(scan, leaves, -1, 1, (n,), rng)
        grad = flat_floats(scangen.vjp(scan, x, yb, **kw), leaves)
        h = 1e-6
        size = grad.size
        directions = np.eye(size) if n <= 5 else rng.uniform(-1, 1, size=(3, size))
        for d in directions:
            numeric = (loss(scan, perturbed(x, leaves, h * d), yb, leaves, **kw) -
                       loss(scan, perturbed(x, leaves, -h * d), yb, leaves, **kw)) / (2 * h)
            assert abs(numeric - grad @ d) <= 1e-5 * (1 + abs(numeric)), (op, kw, n, seed)


def test_vjp_init_and_axes(rng):
    rng, seed = rng
    text, leaves, (lo, hi) = OPS["affine"]
    scan = scangen.compile(text)
    x = draw(scan, leaves, lo, hi, (3, 40), rng)
    yb = draw(scan, leaves, -1, 1, (3, 40), rng)
    init = (1.5, -0.25)
    cases = [dict(axis=0), dict(axis=1, init=init), dict(axis=-1, exclusive=True, init=init, reverse=True),
             dict(axis=None)]
    if not FULL_TIER:  # two of the four, drawn with the seed (each along axis 0 is a strided kernel of its own)
        cases = [cases[i] for i in sorted(rng.choice(len(cases), size=2, replace=False))]
    for kw in cases:
        grad = flat_floats(scangen.vjp(scan, x, yb, **kw), leaves)
        for d in rng.uniform(-1, 1, size=(3, grad.size)):
            h = 1e-6
            numeric = (loss(scan, perturbed(x, leaves, h * d), yb, leaves, **kw) -
                       loss(scan, perturbed(x, leaves, -h * d), yb, leaves, **kw)) / (2 * h)
            assert abs(numeric - grad @ d) <= 1e-5 * (1 + abs(numeric)), (kw, seed)


def test_vjp_empty_and_cumsum_closed_form():
    scan = scangen.compile(OPS["sum"][0])
    assert scangen.vjp(scan, np.zeros(0), np.zeros(0)).shape == (0,)
    assert scangen.vjp(scan, np.float64(2.0), np.float64(3.0)).shape == ()  # 0-D in, 0-D out
    prod = scangen.compile(OPS["prod"][0])
    assert scangen.vjp(prod, np.float64(2.0), np.float64(3.0)) == 3.0
    g = np.arange(1.0, 6.0)
    # d/dx_i sum_j g_j cumsum(x)_j = sum_{j >= i} g_j: a reverse cumsum of g.
    np.testing.assert_array_equal(scangen.vjp(scan, np.ones(5), g), np.cumsum(g[::-1])[::-1])
    np.testing.assert_array_equal(scangen.vjp(scan, np.ones(5), g, reverse=True), np.cumsum(g))
    np.testing.assert_array_equal(scangen.vjp(scan, np.ones(5), g, exclusive=True),
                                  np.concatenate([np.cumsum(g[:0:-1])[::-1], [0.0]]))
    # A sum from an init of its own: the init is a constant, the gradient the same.
    seeded = scangen.compile("scan sum64_init { type = f64; op = add; init = 5.0; level = device; }")
    np.testing.assert_array_equal(scangen.vjp(seeded, np.ones(5), g), np.cumsum(g[::-1])[::-1])


def test_vjp_refuses_what_it_cannot_derive():
    with pytest.raises(scangen.ScanError, match="i32 has no f16, f32 or f64 scalar"):
        scangen.vjp(scangen.compile("scan isum { type = i32; op = add; level = device; }"),
                    np.ones(3, np.int32), np.ones(3, np.int32))
    with pytest.raises(scangen.ScanError, match="converts its input"):
        scangen.compile("scan u8sum { type = f32; input = u8; op = add; level = device; }").adjoint_spec
    scan = scangen.compile(OPS["sum"][0])
    with pytest.raises(TypeError, match="dtype float32"):
        scangen.vjp(scan, np.ones(3, np.float32), np.ones(3))
    with pytest.raises(ValueError, match="grad has shape"):
        scangen.vjp(scan, np.ones(3), np.ones(4))


# ---- PyTorch: a tensor that requires a gradient goes through torch.autograd ----

@pytest.mark.parametrize("device", torch_devices())
def test_torch_gradcheck_of_the_shorthands_and_a_custom_scan(device, rng):
    import torch
    rng, seed = rng
    gen = torch.Generator().manual_seed(seed)
    lse = scangen.compile(OPS["logaddexp"][0])
    for n in (1, 7, 300):
        x = (torch.rand(n, generator=gen, dtype=torch.float64) + 0.5).to(device).requires_grad_()
        for f in (scangen.cumsum, scangen.cumprod, lambda v: scangen.cummax(v), lambda v: scangen.cummin(v),
                  lambda v: scangen.cumsum(v, exclusive=True), lambda v: scangen.cumprod(v, reverse=True), lse,
                  lambda v: lse(v, reverse=True)):
            assert torch.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-6, rtol=1e-5), (n, seed)


@pytest.mark.parametrize("device", torch_devices())
def test_torch_backward_matches_torch_own(device, rng):
    import torch
    rng, seed = rng
    gen = torch.Generator().manual_seed(seed)
    x0 = torch.rand(4, 33, generator=gen, dtype=torch.float64).to(device)
    x0[1, 5] = 0.0  # cumprod's gradient through a zero, exactly as PyTorch gives it
    x0[2, 3] = x0[2, 7] = 0.0
    g = torch.rand(4, 33, generator=gen, dtype=torch.float64).to(device)
    for ours, theirs in ((lambda v: scangen.cumsum(v, axis=0), lambda v: torch.cumsum(v, 0)),
                         (lambda v: scangen.cumprod(v, axis=1), lambda v: torch.cumprod(v, 1)),
                         (lambda v: scangen.cummax(v), lambda v: torch.cummax(v, -1).values),
                         (lambda v: scangen.cumsum(v, reverse=True), lambda v: torch.cumsum(v.flip(-1), -1).flip(-1))):
        a = x0.clone().requires_grad_()
        b = x0.clone().requires_grad_()
        ours(a).backward(g)
        theirs(b).backward(g)
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-12, atol=1e-12, msg=f"seed {seed}")


@pytest.mark.parametrize("device", torch_devices())
def test_torch_autograd_refusals(device):
    import torch
    x = torch.ones(5, dtype=torch.float64, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="out= does not take part in autograd"):
        scangen.cumsum(x, out=torch.empty_like(x))
    with pytest.raises(NotImplementedError, match="aggregates"):
        scangen.cumsum(x, offsets=torch.tensor([0, 2, 5], device=device), return_aggregates=True)
    with pytest.raises(scangen.ScanError, match="converts its input"):
        scangen.cumsum(x, dtype=np.float32)
    with torch.no_grad():  # no gradient asked for: the values, as ever
        assert scangen.cumsum(x, dtype=np.float32).tolist() == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("device", torch_devices())
def test_vjp_of_tensors_and_tuples_of_tensors_matches_numpy(device, rng):
    import torch
    rng, seed = rng
    text, leaves, (lo, hi) = OPS["affine"]
    scan = scangen.compile(text)
    x = draw(scan, leaves, lo, hi, (500,), rng)
    yb = draw(scan, leaves, -1, 1, (500,), rng)
    want = scangen.vjp(scan, x, yb, exclusive=True)
    parts = tuple(torch.from_numpy(np.ascontiguousarray(x[f])).to(device) for f in ("a", "b"))
    grads = tuple(torch.from_numpy(np.ascontiguousarray(yb[f])).to(device) for f in ("a", "b"))
    ga, gb = scangen.vjp(scan, parts, grads, exclusive=True)
    np.testing.assert_allclose(ga.cpu().numpy(), want["a"], rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")
    np.testing.assert_allclose(gb.cpu().numpy(), want["b"], rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")
    s = scangen.compile(OPS["prod"][0])
    v = torch.from_numpy(rng.uniform(0.5, 1.5, size=(3, 40))).to(device)
    g = torch.from_numpy(rng.uniform(-1, 1, size=(3, 40))).to(device)
    np.testing.assert_allclose(scangen.vjp(s, v, g, axis=0, reverse=True).cpu().numpy(),
                               scangen.vjp(s, v.cpu().numpy(), g.cpu().numpy(), axis=0, reverse=True),
                               rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")


def test_vjp_of_many_lines_is_each_line_s(rng):
    # Every line along the axis in one backward scan (lines of 300 span tiles): a line's first and last
    # elements must not leak into the lines beside it.
    rng, seed = rng
    # Along the last axis: the forward scans along axis 0 are strided kernels, each compiled for tens of
    # seconds by PoCL (test_vjp_init_and_axes differentiates along axis 0).
    cases = ((dict(), (5, 300), 1), (dict(exclusive=True), (40, 3), 1), (dict(reverse=True), (40, 3), 1),
             (dict(exclusive=True, reverse=True), (5, 300), 1))
    for op in ("prod", "softmax"):
        text, leaves, (lo, hi) = OPS[op]
        scan = scangen.compile(text)
        for kw, shape, axis in cases:
            x = draw(scan, leaves, lo, hi, shape, rng)
            g = draw(scan, leaves, -1, 1, shape, rng)
            got = scangen.vjp(scan, x, g, axis=axis, **kw)
            lines = [scangen.vjp(scan, np.ascontiguousarray(np.take(x, r, axis=1 - axis)),
                                 np.ascontiguousarray(np.take(g, r, axis=1 - axis)), **kw)
                     for r in range(x.shape[1 - axis])]
            want = np.stack(lines, axis=1 - axis)
            for name in leaves or (None,):
                a = got if name is None else got[name]
                b = want if name is None else want[name]
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=f"{op} {kw} {axis} {seed}")
