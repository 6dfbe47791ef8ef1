"""The backward pass of a scan, derived from its operator (dsl/adjoint.h), and PyTorch's autograd over it.

``vjp(scan, x, grad)`` is the vector-Jacobian product of a scan: the gradient
of a loss with respect to ``x`` from its gradient ``grad`` with respect to the
scan's output. The backward pass is itself a scan, generated from the
operator's symbolic partial derivatives (``Scan.adjoint_spec`` shows its
text), run in the direction opposite to the forward one over one array of
``{yp, x, yb}`` elements: y[i-1] (the forward scan's exclusive result, which
this computes first), x[i], and the gradient of the inclusive result y[i].
Its inclusive result holds each element's gradient in its fields w0 ...
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
        text, name, float_type, leaves = scan._kernel.adjoint(reverse)
        self.text = text
        self.scan = compile_fn(text, name)
        self.paths = [tuple(leaf.split(".")[1:]) for leaf in leaves]
        self.float_dtype = np.dtype(np.float64 if float_type == "f64" else np.float32)


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
    """The gradient of the inclusive results from that of the exclusive ones: an exclusive result is the
    inclusive one of the element before it in the scan's order."""
    def shift(v):
        out = _module(v).zeros_like(v)
        if v.shape[0] > 1:
            if reverse:
                out[1:] = v[:-1]
            else:
                out[:-1] = v[1:]
        return out
    return _map(shift, a)


def _vjp_host(scan, adj: Adjoint, x: np.ndarray, grad: np.ndarray, exclusive: bool, init, reverse: bool):
    n = x.shape[0]
    xbar = np.zeros(n, dtype=scan.dtype)
    if n == 0:
        return xbar
    packed = np.empty(n, dtype=adj.scan.input_dtype)
    packed["yp"] = scan(x, exclusive=True, init=init, reverse=reverse)
    packed["x"] = x
    packed["yb"] = _shifted(grad, reverse) if exclusive else grad
    g = adj.scan(packed, exclusive=False, reverse=not reverse)
    if scan.dtype.fields is None:
        xbar[:] = g["w0"]
    else:
        for l, path in enumerate(adj.paths):
            _leaf(xbar, path)[...] = g[f"w{l}"]
    return xbar


def _vjp_cuda(scan, adj: Adjoint, x, grad, exclusive: bool, init, reverse: bool):
    """x and grad: a CUDA array (a scalar type) or a tuple / dict of them, one per field (a struct)."""
    yp = scan(x, exclusive=True, init=init, reverse=reverse)
    yb = _shifted(grad, reverse) if exclusive else grad
    g = adj.scan({"yp": yp, "x": x, "yb": yb}, exclusive=False, reverse=not reverse)
    if scan.dtype.fields is None:
        w = g["w0"]
        return w if w.dtype == x.dtype else w.to(x.dtype) if hasattr(w, "to") else w.astype(x.dtype)
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
        return w if w.dtype == part.dtype else w.to(part.dtype) if hasattr(w, "to") else w.astype(part.dtype)
    return fill(x, ())


def _rows(xp, a, axis):
    """The lines of a along axis, as a 2-D array (rows), and how to put rows back."""
    moved = xp.moveaxis(a, axis, -1)
    shape = tuple(moved.shape)
    rows = int(np.prod(shape[:-1]))
    return moved.reshape(rows, shape[-1]), shape


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
        out = scan(grad, exclusive=exclusive, axis=axis, reverse=not reverse)
        return out.reshape(x.shape) if axis is None else out
    adj = adjoint_for(reverse)
    if axis is None:
        return one(scan, adj, x.reshape(-1), grad.reshape(-1), exclusive, init, reverse)
    if x.ndim == 0:
        return one(scan, adj, x.reshape(1), grad.reshape(1), exclusive, init, reverse).reshape(())
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"scangen.vjp: axis {axis} is out of bounds for an array of {x.ndim} dimensions")
    if x.ndim == 1:
        return one(scan, adj, x, grad, exclusive, init, reverse)
    rows_x, shape = _rows(xp, x, axis)
    rows_g, _ = _rows(xp, grad, axis)
    out = [one(scan, adj, rows_x[r], rows_g[r], exclusive, init, reverse) for r in range(rows_x.shape[0])]
    stacked = xp.stack(out) if out else xp.zeros_like(rows_x)
    return xp.moveaxis(stacked.reshape(shape), -1, axis)


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
