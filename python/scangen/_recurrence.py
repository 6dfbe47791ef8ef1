"""linear_recurrence: h[t] = a[t] * h[t-1] + b[t] along an axis, as one scan of affine maps.

Every line along the axis is one stretch of a single 1-D scan over the whole
array (the lines laid end to end, the axis last): the first element of each
line in the scan's order gets a = 0 (with h0 folded into its b), so no carry
crosses from one line into the next. Its gradient is the same recurrence run
the other way (PyTorch's autograd): for the forward recurrence

    g[t] = gh[t] + a[t+1] * g[t+1],   b̄ = g,   ā[t] = g[t] * h[t-1],   h̄0 = a[0] * g[0].
"""

from __future__ import annotations

import numpy as np

from . import _jax
from ._autograd import _module, wants_grad

_SPEC = ("type Affine_{t} {{ a: {t}, b: {t} }}\n"
         "scan linear_recurrence_{t} {{ type = Affine_{t}; "
         "combine(x, y) = Affine_{t} {{ a: y.a * x.a, b: y.a * x.b + y.b }}; "
         "identity = Affine_{t} {{ a: 1.0, b: 0.0 }}; level = device; }}")


def _dtype_name(xp, b) -> str:
    name = str(b.dtype).replace("torch.", "")
    if name not in ("float32", "float64"):
        raise TypeError(f"scangen.linear_recurrence: b has dtype {name}; float32 and float64 are supported")
    return "f32" if name == "float32" else "f64"


def _contiguous(xp, a):
    return a.contiguous() if xp.__name__ == "torch" else xp.ascontiguousarray(a)


def _copy(xp, a):
    return a.clone() if xp.__name__ == "torch" else a.copy()


def _as_array(xp, v, like):
    """v (an array of xp, a number, or a NumPy array) as an array of like's library, dtype and device."""
    if xp.__name__ == "torch":
        return xp.as_tensor(v, dtype=like.dtype, device=like.device)
    return xp.asarray(v, dtype=like.dtype)


def _forward(xp, a, b, axis, reverse, h0, compile_fn):
    """h, with a broadcast to b; the lines along axis laid end to end as one 1-D scan."""
    t = _dtype_name(xp, b)
    scan = compile_fn(_SPEC.format(t=t), f"linear_recurrence_{t}")
    a = _as_array(xp, a, b)
    if b.ndim == 0:
        raise ValueError("scangen.linear_recurrence: b is 0-D; a recurrence runs along an axis")
    if not -b.ndim <= axis < b.ndim:
        raise ValueError(f"scangen.linear_recurrence: axis {axis} is out of bounds for b of {b.ndim} dimensions")
    try:
        a = xp.broadcast_to(a, b.shape)
    except (ValueError, RuntimeError) as e:
        raise ValueError(f"scangen.linear_recurrence: a of shape {tuple(a.shape)} does not broadcast to b's "
                         f"{tuple(b.shape)}") from e
    am = _copy(xp, _contiguous(xp, xp.moveaxis(a, axis, -1)))
    bm = _copy(xp, _contiguous(xp, xp.moveaxis(b, axis, -1)))
    shape = tuple(bm.shape)
    length = shape[-1]
    if bm.numel() == 0 if xp.__name__ == "torch" else bm.size == 0:
        return xp.moveaxis(bm, -1, axis)
    rows = int(np.prod(shape[:-1]))
    a2, b2 = am.reshape(rows, length), bm.reshape(rows, length)
    first = length - 1 if reverse else 0
    if h0 is not None:
        h0v = _as_array(xp, h0, b)
        try:
            h0v = xp.broadcast_to(h0v, shape[:-1]).reshape(rows)
        except (ValueError, RuntimeError) as e:
            raise ValueError(f"scangen.linear_recurrence: h0 of shape {tuple(h0v.shape)} does not broadcast to "
                             f"{shape[:-1]}, b's shape without axis {axis}") from e
        b2[:, first] = b2[:, first] + a2[:, first] * h0v
    a2[:, first] = 0  # each line starts afresh: no carry from the line before it
    _ra, h = scan((a2.reshape(-1), b2.reshape(-1)), reverse=reverse)
    return xp.moveaxis(h.reshape(shape), -1, axis)


_Function = None


def _function():
    global _Function
    if _Function is None:
        import torch

        class LinearRecurrence(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, h0, axis, reverse, compile_fn):
                h = _forward(torch, a, b, axis, reverse, h0, compile_fn)
                ctx.save_for_backward(a, h, h0)
                ctx.call = (axis, reverse, compile_fn, tuple(a.shape), h0 is not None)
                return h

            @staticmethod
            def backward(ctx, gh):
                a, h, h0 = ctx.saved_tensors
                axis, reverse, compile_fn, a_shape, has_h0 = ctx.call
                ab = torch.broadcast_to(a, h.shape).movedim(axis, -1)
                hm = h.movedim(axis, -1)
                gm = gh.movedim(axis, -1)
                # The coefficient of g[t+1] in g[t] (t+1: the next element in the recurrence's order).
                a_next = torch.zeros_like(ab)
                h_prev = torch.zeros_like(hm)
                if reverse:
                    a_next[..., 1:] = ab[..., :-1]
                    h_prev[..., :-1] = hm[..., 1:]
                    first = -1
                else:
                    a_next[..., :-1] = ab[..., 1:]
                    h_prev[..., 1:] = hm[..., :-1]
                    first = 0
                if has_h0:
                    h_prev[..., first] = torch.broadcast_to(h0, hm.shape[:-1])
                g = _forward(torch, a_next, gm.contiguous(), -1, not reverse, None, compile_fn)
                ga = (g * h_prev).movedim(-1, axis).sum_to_size(a_shape) if ctx.needs_input_grad[0] else None
                gb = g.movedim(-1, axis) if ctx.needs_input_grad[1] else None
                gh0 = None
                if has_h0 and ctx.needs_input_grad[2]:
                    gh0 = (g[..., first] * ab[..., first]).sum_to_size(h0.shape)
                return ga, gb, gh0, None, None, None

        _Function = LinearRecurrence
    return _Function


def linear_recurrence(a, b, axis, reverse, h0, compile_fn):
    if any(v is not None and _jax.is_jax(v) for v in (a, b, h0)):  # differentiable under jax.grad
        return _jax.linear_recurrence(a, b, axis, reverse, h0, compile_fn)
    xp = _module(b)
    if xp.__name__ == "torch" and any(v is not None and wants_grad(v) for v in (a, b, h0)):
        import torch
        a_t = a if isinstance(a, torch.Tensor) else torch.as_tensor(a, dtype=b.dtype, device=b.device)
        h0_t = h0 if h0 is None or isinstance(h0, torch.Tensor) else torch.as_tensor(h0, dtype=b.dtype,
                                                                                    device=b.device)
        return _function().apply(a_t, b, h0_t, axis, bool(reverse), compile_fn)
    if xp is np:
        b = np.asarray(b)
    return _forward(xp, a, b, axis, bool(reverse), h0, compile_fn)
