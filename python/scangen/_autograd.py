"""The backward pass of a scan, derived from its operator (dsl/adjoint.h).

``vjp(scan, x, grad)`` is the vector-Jacobian product of a scan: the gradient
of a loss with respect to ``x`` from its gradient ``grad`` with respect to the
scan's output. The backward pass is itself a scan, generated from the
operator's symbolic partial derivatives (``scangen.Scan.adjoint_spec`` shows
its text): one pass from the end over the elements, whose inclusive result
holds each element's gradient. It needs y[i-1], the forward scan's exclusive
result, which this computes first (one more forward pass).
"""

from __future__ import annotations

import numpy as np


def _leaf(a: np.ndarray, path):
    for name in path:
        a = a[name]
    return a


class Adjoint:
    """The backward scan of one Scan, compiled once."""

    def __init__(self, scan, compile_fn):
        text, name, float_type, leaves = scan._kernel.adjoint
        self.text = text
        self.scan = compile_fn(text, name)
        self.paths = [tuple(leaf.split(".")[1:]) for leaf in leaves]
        self.float_dtype = np.dtype(np.float64 if float_type == "f64" else np.float32)


def _as_host(a, dtype, what):
    if hasattr(a, "__cuda_array_interface__") or (hasattr(a, "device") and "cuda" in str(getattr(a, "device", ""))):
        raise TypeError(f"scangen.vjp: {what} is on a CUDA device; vjp takes NumPy arrays (the CUDA path is the "
                        "autograd of the shorthands)")
    arr = np.asarray(a)
    if arr.dtype != dtype:
        raise TypeError(f"scangen.vjp: {what} has dtype {arr.dtype}, the scan's elements are {dtype}")
    return arr


def vjp_1d(scan, adj: Adjoint, x: np.ndarray, grad: np.ndarray, exclusive: bool, init, reverse: bool) -> np.ndarray:
    n = x.shape[0]
    xbar = np.zeros(n, dtype=scan.dtype)
    if n == 0:
        return xbar
    # y[i-1] in scan order: the forward exclusive scan (its first element the seed).
    yp = scan(x, exclusive=True, init=init, reverse=reverse)
    order = np.arange(n - 1, -1, -1) if reverse else np.arange(n)
    xs, yps, gs = x[order], yp[order], grad[order]
    # The gradient of the inclusive results: an exclusive result at i is the inclusive one at i - 1.
    yb = np.zeros(n, dtype=scan.dtype)
    if exclusive:
        yb[:-1] = gs[1:]
    else:
        yb[:] = gs
    packed = np.zeros(n, dtype=adj.scan.input_dtype)
    packed["yp"] = yps[::-1]
    packed["x"] = xs[::-1]
    packed["yb"] = yb[::-1]
    g = adj.scan(packed, exclusive=False)[::-1]  # element i (scan order) of the backward pass
    out_s = np.zeros(n, dtype=scan.dtype)
    if scan.dtype.fields is None:
        out_s[:] = g["w0"]
    else:
        for l, path in enumerate(adj.paths):
            _leaf(out_s, path)[...] = g[f"w{l}"]
    xbar[order] = out_s
    return xbar


def vjp(scan, adj: Adjoint, x, grad, exclusive, init, axis, reverse):
    x = _as_host(x, scan.input_dtype, "x")
    grad = _as_host(grad, scan.dtype, "grad")
    if x.shape != grad.shape:
        raise ValueError(f"scangen.vjp: grad has shape {grad.shape}, the scan's output {x.shape}")
    if axis is None:
        return vjp_1d(scan, adj, x.reshape(-1), grad.reshape(-1), exclusive, init, reverse)
    if x.ndim == 0:
        return vjp_1d(scan, adj, x.reshape(1), grad.reshape(1), exclusive, init, reverse).reshape(())
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(axis, x.ndim) if hasattr(np, "exceptions") else ValueError(
            f"scangen.vjp: axis {axis} is out of bounds for an array of {x.ndim} dimensions")
    xm = np.moveaxis(x, axis, -1)
    gm = np.moveaxis(grad, axis, -1)
    rows = int(np.prod(xm.shape[:-1]))
    rows_x = xm.reshape(rows, xm.shape[-1])
    rows_g = gm.reshape(rows, gm.shape[-1])
    out = np.empty(rows_x.shape, dtype=scan.dtype)
    for r in range(rows_x.shape[0]):
        out[r] = vjp_1d(scan, adj, np.ascontiguousarray(rows_x[r]), np.ascontiguousarray(rows_g[r]), exclusive, init,
                        reverse)
    return np.moveaxis(out.reshape(xm.shape), -1, axis)

