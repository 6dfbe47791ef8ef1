"""linear_recurrence and logcumsumexp against loops in float64 and NumPy's logaddexp.accumulate."""
import numpy as np
import pytest

import scangen
from torch_params import torch_devices


def recurrence_loop(a, b, axis, reverse, h0):
    a = np.broadcast_to(a, b.shape).astype(np.float64)
    am, bm = np.moveaxis(a, axis, -1), np.moveaxis(b.astype(np.float64), axis, -1)
    h = np.empty_like(bm)
    prev = np.zeros(bm.shape[:-1]) if h0 is None else np.broadcast_to(np.asarray(h0, np.float64), bm.shape[:-1])
    order = range(bm.shape[-1] - 1, -1, -1) if reverse else range(bm.shape[-1])
    for t in order:
        prev = am[..., t] * prev + bm[..., t]
        h[..., t] = prev
    return np.moveaxis(h, -1, axis)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
def test_linear_recurrence_against_a_loop(dtype, reverse, rng):
    rng, seed = rng
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for shape, axis, a_shape, h0 in (((1,), 0, (1,), None), ((700,), -1, (700,), 0.5), ((3, 301), 1, (3, 1), None),
                                     ((3, 301), 1, (3, 301), np.arange(3.0)), ((40, 6), 0, (6,), 2.0),
                                     ((2, 5, 33), 1, (2, 5, 33), np.ones((2, 33)))):
        a = rng.uniform(-1, 1, size=a_shape).astype(dtype)
        b = rng.uniform(-1, 1, size=shape).astype(dtype)
        h = scangen.linear_recurrence(a, b, axis=axis, reverse=reverse, h0=h0)
        assert h.dtype == dtype and h.shape == b.shape
        np.testing.assert_allclose(h, recurrence_loop(a, b, axis, reverse, h0), rtol=tol, atol=tol,
                                   err_msg=f"{shape} axis {axis} seed {seed}")


def test_linear_recurrence_edges_and_errors():
    assert scangen.linear_recurrence(np.ones(0), np.ones(0)).shape == (0,)
    # Discounted returns: G[t] = r[t] + 0.5 * G[t+1].
    np.testing.assert_array_equal(scangen.linear_recurrence(0.5, np.array([1.0, 2.0, 4.0]), reverse=True),
                                  [3.0, 4.0, 4.0])
    with pytest.raises(TypeError, match="float32 and float64"):
        scangen.linear_recurrence(np.ones(3), np.ones(3, np.int32))
    with pytest.raises(ValueError, match="does not broadcast"):
        scangen.linear_recurrence(np.ones(4), np.ones(3))
    with pytest.raises(ValueError, match="h0 of shape"):
        scangen.linear_recurrence(np.ones((2, 3)), np.ones((2, 3)), h0=np.ones(3))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        scangen.linear_recurrence(np.ones((2, 3)), np.ones((2, 3)), axis=2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.filterwarnings("ignore:invalid value encountered in accumulate")
def test_logcumsumexp_against_numpy(dtype, rng):
    rng, seed = rng
    x = (rng.standard_normal((4, 513)) * 30).astype(dtype)
    x[0, 7] = np.inf
    x[1, 9] = np.nan
    x[2, :5] = -np.inf
    x[3, :] = -np.inf
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for axis in (0, 1):
        want = np.logaddexp.accumulate(x, axis=axis)
        np.testing.assert_allclose(scangen.logcumsumexp(x, axis=axis), want, rtol=tol, atol=tol,
                                   err_msg=f"seed {seed}")
    got = scangen.logcumsumexp(x, reverse=True)
    np.testing.assert_allclose(got, np.logaddexp.accumulate(x[:, ::-1], axis=1)[:, ::-1], rtol=tol, atol=tol)
    ex = scangen.logcumsumexp(x, exclusive=True)
    assert np.all(ex[:, 0] == -np.inf)
    np.testing.assert_allclose(ex[:, 1:], np.logaddexp.accumulate(x, axis=1)[:, :-1], rtol=tol, atol=tol)
    with pytest.raises(TypeError, match="float type"):
        scangen.logcumsumexp(np.arange(3))
    np.testing.assert_allclose(scangen.logcumsumexp(np.arange(3), dtype=np.float64),
                               np.logaddexp.accumulate(np.arange(3.0)))


def test_logcumsumexp_gradient_is_softmax_weights():
    # d/dx_i of logcumsumexp(x)[-1] is softmax(x)_i.
    x = np.array([0.5, -1.0, 2.0, 0.25])
    scangen.logcumsumexp(x)  # compiles the shorthand's scan
    scan = scangen._builtin_scans[("logaddexp", np.dtype(np.float64), np.dtype(np.float64))]
    g = np.zeros(4)
    g[-1] = 1.0
    np.testing.assert_allclose(scangen.vjp(scan, x, g), np.exp(x) / np.exp(x).sum(), rtol=1e-12)


@pytest.mark.parametrize("device", torch_devices())
def test_torch_gradients_of_linear_recurrence_and_logcumsumexp(device, rng):
    import torch
    rng, seed = rng
    gen = torch.Generator().manual_seed(seed)

    def t(*shape):
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) - 0.5).to(device).requires_grad_()
    for reverse in (False, True):
        a, b, h0 = t(3, 1), t(3, 20), t(3)
        assert torch.autograd.gradcheck(
            lambda a, b, h0: scangen.linear_recurrence(a, b, reverse=reverse, h0=h0), (a, b, h0)), seed
        a2, b2 = t(9, 4), t(9, 4)
        assert torch.autograd.gradcheck(lambda a, b: scangen.linear_recurrence(a, b, axis=0, reverse=reverse),
                                        (a2, b2)), seed
    x = t(5, 30)
    assert torch.autograd.gradcheck(lambda v: scangen.logcumsumexp(v, axis=0), (x,)), seed
    y = x.detach().clone().requires_grad_()
    scangen.logcumsumexp(x).sum().backward()
    torch.logcumsumexp(y, -1).sum().backward()
    torch.testing.assert_close(x.grad, y.grad)
