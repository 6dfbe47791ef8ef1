"""scangen.vjp of segmented scans (offsets=, flags=, keys=): against central differences of the segmented
forward scan in float64, for a sum, a product and a non-commutative custom operator (affine maps), inclusive
and exclusive, forward and reverse, from the identity and from an init; layouts with empty segments, one
segment, a head at every element, and long ones whose segments span tiles (against each segment's own
gradient)."""
import numpy as np
import pytest

import scangen
from test_autograd import OPS, draw, flat_floats, loss, perturbed
from torch_params import torch_devices

INITS = {"sum": 0.5, "prod": 1.25, "affine": (1.5, -0.25)}
CASES = [dict(), dict(exclusive=True), dict(reverse=True), dict(exclusive=True, reverse=True)]


def offsets_of(layout, n, rng):
    """CSR offsets of n elements: random (empty segments included), one segment, or one per element."""
    if layout == "one":
        return np.array([0, n], np.int64)
    if layout == "each":
        return np.arange(n + 1, dtype=np.int64)
    cuts = np.sort(rng.integers(0, n + 1, size=max(2, n // 3)))
    cuts = np.concatenate([[0, 0], cuts, cuts[:1], [n, n]])  # empty segments at both ends and a repeated cut
    return np.sort(cuts).astype(np.int64)


def flags_of(offsets, n):
    flags = np.zeros(n, np.uint8)
    starts = offsets[:-1]
    flags[starts[starts < n]] = 1
    return flags


def segments_kw(form, offsets, n):
    return {"offsets": offsets} if form == "offsets" else {"flags": flags_of(offsets, n)}


def check_against_differences(scan, leaves, lo, hi, n, kw, rng, seed):
    x = draw(scan, leaves, lo, hi, (n,), rng)
    yb = draw(scan, leaves, -1, 1, (n,), rng)
    grad = flat_floats(scangen.vjp(scan, x, yb, **kw), leaves)
    h = 1e-6
    directions = np.eye(grad.size) if n <= 9 else rng.uniform(-1, 1, size=(3, grad.size))
    for d in directions:
        numeric = (loss(scan, perturbed(x, leaves, h * d), yb, leaves, **kw) -
                   loss(scan, perturbed(x, leaves, -h * d), yb, leaves, **kw)) / (2 * h)
        assert abs(numeric - grad @ d) <= 1e-5 * (1 + abs(numeric)), (kw, n, seed)


@pytest.mark.parametrize("op", ["sum", "prod", "affine"])
@pytest.mark.parametrize("form", ["offsets", "flags"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_segmented_vjp_matches_central_differences(op, form, case, rng):
    rng, seed = rng
    text, leaves, (lo, hi) = OPS[op]
    scan = scangen.compile(text)
    for layout, n in (("random", 9), ("one", 5), ("each", 4), ("random", 1), ("random", 300)):
        offsets = offsets_of(layout, n, rng)
        for init in (None, INITS[op]):
            kw = dict(CASES[case], init=init, **segments_kw(form, offsets, n))
            check_against_differences(scan, leaves, lo, hi, n, kw, rng, seed)


@pytest.mark.parametrize("op", ["prod", "affine"])
def test_segmented_vjp_is_each_segment_s(op, rng):
    # Long segments span tiles: the segmented gradient is, segment by segment, that segment's own gradient.
    rng, seed = rng
    text, leaves, (lo, hi) = OPS[op]
    scan = scangen.compile(text)
    n = 1500
    offsets = np.array([0, 0, 1, 700, 700, 1100, 1499, 1500], np.int64)
    x = draw(scan, leaves, lo, hi, (n,), rng)
    g = draw(scan, leaves, -1, 1, (n,), rng)
    for kw in (dict(init=INITS[op]), dict(exclusive=True, reverse=True, init=INITS[op])):
        got = scangen.vjp(scan, x, g, offsets=offsets, **kw)
        for a, b in zip(offsets[:-1], offsets[1:]):
            if a < b:
                want = scangen.vjp(scan, x[a:b], g[a:b], **kw)
                for name in leaves or (None,):
                    u = got[a:b] if name is None else got[name][a:b]
                    v = want if name is None else want[name]
                    np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12, err_msg=f"{op} {kw} {a} {seed}")


def test_segmented_vjp_keys_axis_none_and_closed_form(rng):
    rng, seed = rng
    prod = scangen.compile(OPS["prod"][0])
    x = rng.uniform(0.5, 1.5, size=(3, 4))
    g = rng.uniform(-1, 1, size=(3, 4))
    keys = np.array([7, 7, 7, 2, 2, 9, 9, 9, 9, 7, 7, 7])  # a key seen before starts a segment of its own
    flags = np.array([1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0], np.uint8)
    want = scangen.vjp(prod, x.reshape(-1), g.reshape(-1), flags=flags, exclusive=True)
    got = scangen.vjp(prod, x, g, keys=keys, exclusive=True, axis=None)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got.reshape(-1), want, rtol=1e-12, atol=1e-12, err_msg=f"seed {seed}")
    # One segment is the unsegmented scan.
    np.testing.assert_allclose(scangen.vjp(prod, x[0], g[0], reverse=True, flags=np.zeros(4, bool)),
                               scangen.vjp(prod, x[0], g[0], reverse=True), rtol=1e-12, atol=1e-12)
    # A segmented cumsum's gradient: each segment's reverse cumsum of g.
    s = scangen.compile(OPS["sum"][0])
    gv = np.arange(1.0, 7.0)
    np.testing.assert_array_equal(scangen.vjp(s, np.ones(6), gv, offsets=np.array([0, 2, 2, 6])),
                                  [3, 2, 18, 15, 11, 6])
    np.testing.assert_array_equal(scangen.vjp(s, np.ones(6), gv, offsets=[0, 2, 2, 6], exclusive=True),
                                  [2, 0, 15, 11, 6, 0])


def test_segmented_vjp_refusals():
    prod = scangen.compile(OPS["prod"][0])
    with pytest.raises(NotImplementedError, match="segmented scans take one line"):
        scangen.vjp(prod, np.ones((2, 3)), np.ones((2, 3)), flags=np.ones(6, np.uint8), axis=1)
    with pytest.raises(TypeError, match="pass one of"):
        scangen.vjp(prod, np.ones(3), np.ones(3), flags=np.ones(3, np.uint8), offsets=np.array([0, 3]))
    keyed = scangen.compile("scan kprod { type = f64; op = mul; segments = keys; key = i32; "
                            "key_equal(a, b) = a / 10 == b / 10; "
                            "level = device; }")
    with pytest.raises(NotImplementedError, match="key_equal"):
        scangen.vjp(keyed, np.ones(3), np.ones(3), keys=np.array([1, 2, 30], np.int32))


@pytest.mark.parametrize("device", torch_devices())
def test_torch_autograd_of_segmented_scans(device, rng):
    import torch
    rng, seed = rng
    gen = torch.Generator().manual_seed(seed)
    lse = scangen.compile(OPS["logaddexp"][0])
    flags = torch.tensor([1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0], dtype=torch.uint8, device=device)
    offsets = torch.tensor([0, 3, 3, 4, 8, 11], device=device)
    x = (torch.rand(11, generator=gen, dtype=torch.float64) + 0.5).to(device).requires_grad_()
    for f in (lambda v: scangen.cumsum(v, flags=flags), lambda v: scangen.cumprod(v, offsets=offsets),
              lambda v: scangen.cumprod(v, flags=flags, exclusive=True, reverse=True),
              lambda v: lse(v, offsets=offsets, reverse=True), lambda v: scangen.cummax(v, flags=flags)):
        assert torch.autograd.gradcheck(f, (x,), eps=1e-6, atol=1e-6, rtol=1e-5), seed
    with pytest.raises(NotImplementedError, match="aggregates"):
        scangen.cumsum(x, flags=flags, return_aggregates=True)


def test_jax_refuses_segments_as_its_forward_calls_do():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.ones(3)
    with pytest.raises(NotImplementedError, match="segments"):
        scangen.vjp(scangen.compile(OPS["prod"][0]), x, x, flags=np.array([1, 0, 1], np.uint8))
