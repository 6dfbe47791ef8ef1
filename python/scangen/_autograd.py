"""The backward pass of a scan, derived from its operator (dsl/adjoint.h), and PyTorch's autograd over it.

``vjp(scan, x, grad)`` is the vector-Jacobian product of a scan: the gradient
of a loss with respect to ``x`` from its gradient ``grad`` with respect to the
scan's output. The backward pass is itself a scan, generated from the
operator's symbolic partial derivatives (``Scan.adjoint_spec`` shows its
text), run in the direction opposite to the forward one over one array of
``{yp, x, yb, last}`` elements: y[i-1] (the forward scan's exclusive result,
which this computes first), x[i], the gradient of the inclusive result y[i],
and a flag on the last element of each line (so that every line of an N-d
array is one backward scan). Its inclusive result holds each element's
gradient in its fields w0 ...
"""

from __future__ import annotations

import importlib

import numpy as np


def _leaf(a, path):
    for name in path:
        a = a[name]
    return a


class Adjoint:
    """The backward scan of one Scan in one direction, compiled once."""

    def __init__(self, scan, reverse: bool, compile_fn):
        text, name, _float_type, leaves = scan._kernel.adjoint(reverse)
        self.text = text
        self.scan = compile_fn(text, name)
        self.paths = [tuple(leaf.split(".")[1:]) for leaf in leaves]  # "x.a.b" -> ("a", "b")


def _module(a):
    """numpy, torch or cupy: the library of an array (a tuple's first leaf for struct elements)."""
    while isinstance(a, (tuple, list)):
        a = a[0]
    if isinstance(a, dict):
        return _module(next(iter(a.values())))
    name = type(a).__module__.split(".")[0]
    if name in ("torch", "cupy"):
        return importlib.import_module(name)
    return np


def wants_grad(x) -> bool:
    """x is a PyTorch tensor that requires a gradient, with autograd recording."""
    if type(x).__module__.split(".")[0] != "torch" or not getattr(x, "requires_grad", False):
        return False
    import torch
    return isinstance(x, torch.Tensor) and torch.is_grad_enabled()


def _map(f, a):
    """f over every array of a (an array, or a tuple / dict of them: one per field)."""
    if isinstance(a, tuple):
        return tuple(_map(f, b) for b in a)
    if isinstance(a, dict):
        return {k: _map(f, b) for k, b in a.items()}
    return f(a)


def _shifted(a, reverse: bool):
    """The gradient of the inclusive results from that of the exclusive ones (along the last axis): an
    exclusive result is the inclusive one of the element before it in the scan's order."""
    def shift(v):
        out = _module(v).zeros_like(v)
        if v.shape[-1] > 1:
            if reverse:
                out[..., 1:] = v[..., :-1]
            else:
                out[..., :-1] = v[..., 1:]
        return out
    return _map(shift, a)


def _last_flags(xp, shape, reverse, like):
    """1 at the last element of every line (along the last axis) in the forward scan's order, else 0."""
    if xp is np:
        last = np.zeros(shape, np.uint8)
    elif xp.__name__ == "torch":
        last = xp.zeros(shape, dtype=xp.uint8, device=like.device)
    else:
        last = xp.zeros(shape, dtype=xp.uint8)
    last[..., 0 if reverse else -1] = 1
    return last


def _vjp_host(scan, adj: Adjoint, x: np.ndarray, grad: np.ndarray, exclusive: bool, init, reverse: bool, axis):
    """x and grad: NumPy arrays of at least one dimension; every line along axis at once."""
    xbar = np.zeros(x.shape, dtype=scan.dtype)
    if x.size == 0:
        return xbar
    yp = scan(x, exclusive=True, init=init, reverse=reverse, axis=axis)
    xm, ypm, gm = (np.moveaxis(v, axis, -1) for v in (x, yp, grad))
    packed = np.empty(xm.shape, dtype=adj.scan.input_dtype)
    packed["yp"], packed["x"] = ypm, xm
    packed["yb"] = _shifted(gm, reverse) if exclusive else gm
    packed["last"] = _last_flags(np, xm.shape, reverse, None)
    g = adj.scan(packed.reshape(-1), exclusive=False, reverse=not reverse).reshape(xm.shape)
    out = np.moveaxis(xbar, axis, -1)  # a view: filling it fills xbar
    if scan.dtype.fields is None:
        out[...] = g["w0"]
    else:
        for l, path in enumerate(adj.paths):
            _leaf(out, path)[...] = g[f"w{l}"]
    return xbar


def _cast(w, like):
    return w if w.dtype == like.dtype else w.to(like.dtype) if hasattr(w, "to") else w.astype(like.dtype)


def _vjp_cuda(scan, adj: Adjoint, x, grad, exclusive: bool, init, reverse: bool, axis=-1):
    """x and grad: a CUDA array of a scalar type (any dimensions, every line along axis at once), or a
    1-D tuple / dict of them, one per field (a struct)."""
    if not isinstance(x, (tuple, dict)):
        xp = _module(x)
        if x.numel() == 0 if xp.__name__ == "torch" else x.size == 0:
            return xp.zeros_like(x)
        yp = scan(x, exclusive=True, init=init, reverse=reverse, axis=axis)
        xm, ypm, gm = (xp.moveaxis(v, axis, -1) for v in (x, yp, grad))
        shape = tuple(xm.shape)
        yb = _shifted(gm, reverse) if exclusive else gm
        flat = [xp.ascontiguousarray(v).reshape(-1) if xp.__name__ != "torch" else v.contiguous().reshape(-1)
                for v in (ypm, xm, yb)]
        last = _last_flags(xp, shape, reverse, x).reshape(-1)
        g = adj.scan({"yp": flat[0], "x": flat[1], "yb": flat[2], "last": last}, exclusive=False,
                     reverse=not reverse)
        return xp.moveaxis(_cast(g["w0"], x).reshape(shape), -1, axis)
    yp = scan(x, exclusive=True, init=init, reverse=reverse)
    yb = _shifted(grad, reverse) if exclusive else grad
    first = x[0] if isinstance(x, tuple) else next(iter(x.values()))
    while isinstance(first, (tuple, dict)):
        first = first[0] if isinstance(first, tuple) else next(iter(first.values()))
    xp = _module(first)
    last = _last_flags(xp, tuple(first.shape), reverse, first)
    g = adj.scan({"yp": yp, "x": x, "yb": yb, "last": last}, exclusive=False, reverse=not reverse)
    by_path = {path: g[f"w{l}"] for l, path in enumerate(adj.paths)}

    def fill(part, path):
        if isinstance(part, tuple):
            names = scan.dtype.names if not path else _leaf(np.empty(0, scan.dtype), path).dtype.names
            return tuple(fill(p, path + (name,)) for p, name in zip(part, names))
        if isinstance(part, dict):
            return {k: fill(p, path + (k,)) for k, p in part.items()}
        w = by_path.get(path)
        if w is None:  # an integer or bool field: no gradient
            return _module(part).zeros_like(part)
        return _cast(w, part)
    return fill(x, ())


def vjp(scan, adjoint_for, x, grad, exclusive, init, axis, reverse):
    xp = _module(x)
    if xp is np:
        x = np.asarray(x)
        grad = np.asarray(grad)
        if x.dtype != scan.input_dtype or grad.dtype != scan.dtype:
            bad, what = (x, "x") if x.dtype != scan.input_dtype else (grad, "grad")
            raise TypeError(f"scangen.vjp: {what} has dtype {bad.dtype}, the scan's elements are "
                            f"{scan.input_dtype if what == 'x' else scan.dtype}")
        one = _vjp_host
    else:
        one = _vjp_cuda
        if isinstance(x, (tuple, dict)):
            if axis not in (0, -1, None):
                raise NotImplementedError("scangen.vjp: a tuple of arrays (one per field) is 1-D")
            return one(scan, adjoint_for(reverse), x, grad, exclusive, init, reverse)
        if xp.__name__ == "torch" and not x.is_cuda:  # a CPU tensor: the NumPy path
            out = vjp(scan, adjoint_for, x.detach().numpy(), grad.detach().numpy(), exclusive, init, axis, reverse)
            return xp.from_numpy(out)
    if tuple(x.shape) != tuple(grad.shape):
        raise ValueError(f"scangen.vjp: grad has shape {tuple(grad.shape)}, the scan's output {tuple(x.shape)}")
    if scan._kernel.op == "add" and scan.dtype.kind == "f":
        # A sum's gradient is the sum of the later gradients: the same scan, run the other way, one pass.
        return scan(grad, exclusive=exclusive, axis=axis, reverse=not reverse).reshape(x.shape)
    adj = adjoint_for(reverse)
    if axis is None:
        return one(scan, adj, x.reshape(-1), grad.reshape(-1), exclusive, init, reverse, 0).reshape(x.shape)
    if x.ndim == 0:
        return one(scan, adj, x.reshape(1), grad.reshape(1), exclusive, init, reverse, 0).reshape(())
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"scangen.vjp: axis {axis} is out of bounds for an array of {x.ndim} dimensions")
    return one(scan, adj, x, grad, exclusive, init, reverse, axis)


_Function = None


def _function():
    """The torch.autograd.Function of a scan call (made once torch is imported)."""
    global _Function
    if _Function is None:
        import torch

        class ScanFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, scan, exclusive, init, axis, reverse):
                ctx.scan, ctx.call = scan, (exclusive, init, axis, reverse)
                ctx.save_for_backward(x)
                return scan(x, exclusive=exclusive, init=init, axis=axis, reverse=reverse)

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                exclusive, init, axis, reverse = ctx.call
                scan = ctx.scan
                return (vjp(scan, scan._adjoint, x.detach(), grad.detach().contiguous(), exclusive, init, axis,
                            reverse), None, None, None, None, None)

        _Function = ScanFunction
    return _Function


def torch_call(scan, x, out, exclusive, init, axis, reverse, segmented, return_aggregates):
    """A scan of a tensor that requires a gradient: through autograd, its backward the derived scan."""
    if out is not None:
        raise RuntimeError("scangen: out= does not take part in autograd (x requires grad), as in PyTorch; "
                           "call without out=, or under torch.no_grad()")
    if segmented or return_aggregates:
        raise NotImplementedError("scangen: the gradient of a segmented scan or of its aggregates is not "
                                  "derived yet; call under torch.no_grad() for the values")
    if exclusive is None:
        exclusive = scan._kernel.mode == "exclusive"
    if reverse is None:
        reverse = scan._reverse
    scan._adjoint(bool(reverse))  # derived and compiled now: what cannot be derived fails here, not in backward
    return _function().apply(x, scan, bool(exclusive), init, axis, bool(reverse))
