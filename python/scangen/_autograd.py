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

Segmented scans (``offsets=``, ``flags=``, ``keys=``) are independent scans,
one per segment: their backward pass is the same scan with each segment one
line, ``last`` set on each segment's last element in the forward order and
``yp`` the segmented exclusive scan (``init`` at each segment's first).
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


def _segment_heads(xp, segments, n, like):
    """1 (uint8) where a segment starts, in index order (element 0 always), from the call's offsets, flags or
    keys (without the spec's key_equal: a segment starts where the key changes)."""
    form, seg = segments
    heads = _last_flags(xp, (n,), True, like)  # 1 at element 0
    if form == "offsets":
        starts = seg[:-1].long() if xp.__name__ == "torch" else seg[:-1].astype(np.int64)
        heads[starts[starts < n]] = 1  # an empty segment's start is the next one's (or n)
    elif form == "flags":
        heads[1:] = seg[1:] != 0
    else:
        heads[1:] = seg[1:] != seg[:-1]
    return heads


def _segment_last(xp, segments, n, reverse, like):
    """1 at the last element of every segment in the forward scan's order (its first index when reverse)."""
    heads = _segment_heads(xp, segments, n, like)
    if reverse:
        return heads
    last = _last_flags(xp, (n,), False, like)
    last[:-1] = heads[1:]
    return last


def _exclusive_grad(grad, reverse, last):
    """The gradient of the inclusive results from that of the exclusive ones; with segments (``last`` given)
    none flows from a segment's first exclusive result (the init) into the segment before it."""
    yb = _shifted(grad, reverse)
    if last is not None:
        def cut(v):
            v[last != 0] = 0
            return v
        yb = _map(cut, yb)
    return yb


def _seg_kw(segments):
    return {} if segments is None else {segments[0]: segments[1]}


def _vjp_host(scan, adj: Adjoint, x: np.ndarray, grad: np.ndarray, exclusive: bool, init, reverse: bool, axis,
              segments=None):
    """x and grad: NumPy arrays of at least one dimension; every line along axis at once (with segments:
    1-D, every segment at once)."""
    xbar = np.zeros(x.shape, dtype=scan.dtype)
    if x.size == 0:
        return xbar
    yp = scan(x, exclusive=True, init=init, reverse=reverse, axis=axis, **_seg_kw(segments))
    xm, ypm, gm = (np.moveaxis(v, axis, -1) for v in (x, yp, grad))
    packed = np.empty(xm.shape, dtype=adj.scan.input_dtype)
    packed["yp"], packed["x"] = ypm, xm
    if segments is None:
        last = _last_flags(np, xm.shape, reverse, None)
    else:
        last = _segment_last(np, segments, x.size, reverse, None)
    packed["yb"] = _exclusive_grad(gm, reverse, None if segments is None else last) if exclusive else gm
    packed["last"] = last
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


def _vjp_cuda(scan, adj: Adjoint, x, grad, exclusive: bool, init, reverse: bool, axis=-1, segments=None):
    """x and grad: a CUDA array of a scalar type (any dimensions, every line along axis at once; with
    segments 1-D), or a 1-D tuple / dict of them, one per field (a struct)."""
    kw = _seg_kw(segments)
    if not isinstance(x, (tuple, dict)):
        xp = _module(x)
        if x.numel() == 0 if xp.__name__ == "torch" else x.size == 0:
            return xp.zeros_like(x)
        yp = scan(x, exclusive=True, init=init, reverse=reverse, axis=axis, **kw)
        xm, ypm, gm = (xp.moveaxis(v, axis, -1) for v in (x, yp, grad))
        shape = tuple(xm.shape)
        if segments is None:
            last, cut = _last_flags(xp, shape, reverse, x).reshape(-1), None
        else:
            last = cut = _segment_last(xp, segments, shape[0], reverse, x)
        yb = _exclusive_grad(gm, reverse, cut) if exclusive else gm
        flat = [xp.ascontiguousarray(v).reshape(-1) if xp.__name__ != "torch" else v.contiguous().reshape(-1)
                for v in (ypm, xm, yb)]
        g = adj.scan({"yp": flat[0], "x": flat[1], "yb": flat[2], "last": last}, exclusive=False,
                     reverse=not reverse)
        return xp.moveaxis(_cast(g["w0"], x).reshape(shape), -1, axis)
    yp = scan(x, exclusive=True, init=init, reverse=reverse, **kw)
    first = x[0] if isinstance(x, tuple) else next(iter(x.values()))
    while isinstance(first, (tuple, dict)):
        first = first[0] if isinstance(first, tuple) else next(iter(first.values()))
    xp = _module(first)
    if segments is None:
        last, cut = _last_flags(xp, tuple(first.shape), reverse, first), None
    else:
        last = cut = _segment_last(xp, segments, first.shape[0], reverse, first)
    yb = _exclusive_grad(grad, reverse, cut) if exclusive else grad
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


def _host_segments(segments):
    """The segments' array as NumPy (a list, or a CPU tensor beside a CPU x)."""
    if segments is None:
        return None
    form, a = segments
    return form, a.detach().numpy() if _module(a).__name__ == "torch" else np.asarray(a)


def check_segments(scan, segments, x, axis):
    """Refuses the segmented scans whose gradient is not derived (keys under the spec's key_equal) and, as
    the forward call does, segments of an N-d array along an axis."""
    if segments is None:
        return
    form = segments[0]
    if form == "keys" and scan._kernel.has_key_equal:
        raise NotImplementedError("scangen: the gradient of a scan segmented by keys= under the spec's "
                                  "key_equal is not derived; pass flags= (1 where a segment starts)")
    ndim = len(x.shape) if not isinstance(x, (tuple, dict)) else 1
    if axis is not None and ndim > 1:
        raise NotImplementedError(f"scangen: {form}= with a {ndim}-D array along axis {axis}: segmented scans "
                                  "take one line; pass a 1-D array or axis=None")


def vjp(scan, adjoint_for, x, grad, exclusive, init, axis, reverse, segments=None):
    xp = _module(x)
    if xp is np:
        x = np.asarray(x)
        grad = np.asarray(grad)
        if x.dtype != scan.input_dtype or grad.dtype != scan.dtype:
            bad, what = (x, "x") if x.dtype != scan.input_dtype else (grad, "grad")
            raise TypeError(f"scangen.vjp: {what} has dtype {bad.dtype}, the scan's elements are "
                            f"{scan.input_dtype if what == 'x' else scan.dtype}")
        one = _vjp_host
        segments = _host_segments(segments)
    else:
        one = _vjp_cuda
        if isinstance(x, (tuple, dict)):
            if axis not in (0, -1, None):
                raise NotImplementedError("scangen.vjp: a tuple of arrays (one per field) is 1-D")
            check_segments(scan, segments, x, axis)
            return one(scan, adjoint_for(reverse), x, grad, exclusive, init, reverse, segments=segments)
        if xp.__name__ == "torch" and not x.is_cuda:  # a CPU tensor: the NumPy path
            out = vjp(scan, adjoint_for, x.detach().numpy(), grad.detach().numpy(), exclusive, init, axis, reverse,
                      _host_segments(segments))
            return xp.from_numpy(out)
    if tuple(x.shape) != tuple(grad.shape):
        raise ValueError(f"scangen.vjp: grad has shape {tuple(grad.shape)}, the scan's output {tuple(x.shape)}")
    check_segments(scan, segments, x, axis)
    if segments is not None:  # one line: the flattened array (segments index it)
        axis = None if x.ndim != 1 else axis
    if scan._kernel.op == "add" and scan.dtype.kind == "f":
        # A sum's gradient is the sum of the later gradients (in the same segment): the same scan, run the
        # other way, one pass.
        return scan(grad, exclusive=exclusive, axis=axis, reverse=not reverse, **_seg_kw(segments)).reshape(x.shape)
    adj = adjoint_for(reverse)
    if axis is None or x.ndim == 0:
        return one(scan, adj, x.reshape(-1), grad.reshape(-1), exclusive, init, reverse, 0,
                   segments).reshape(x.shape)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"scangen.vjp: axis {axis} is out of bounds for an array of {x.ndim} dimensions")
    return one(scan, adj, x, grad, exclusive, init, reverse, axis, segments)


_Function = None


def _function():
    """The torch.autograd.Function of a scan call (made once torch is imported)."""
    global _Function
    if _Function is None:
        import torch

        class ScanFunction(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, scan, exclusive, init, axis, reverse, segments, check):
                ctx.scan, ctx.call, ctx.segments = scan, (exclusive, init, axis, reverse), segments
                ctx.save_for_backward(x)
                return scan(x, exclusive=exclusive, init=init, axis=axis, reverse=reverse, check_segments=check,
                            **_seg_kw(segments))

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                exclusive, init, axis, reverse = ctx.call
                scan = ctx.scan
                return (vjp(scan, scan._adjoint, x.detach(), grad.detach().contiguous(), exclusive, init, axis,
                            reverse, ctx.segments), None, None, None, None, None, None, None)

        _Function = ScanFunction
    return _Function


def torch_call(scan, x, out, exclusive, init, axis, reverse, segments, return_aggregates, check):
    """A scan of a tensor that requires a gradient: through autograd, its backward the derived scan (with
    segments, each segment its own line; ``segments``: (form, array) or None)."""
    if out is not None:
        raise RuntimeError("scangen: out= does not take part in autograd (x requires grad), as in PyTorch; "
                           "call without out=, or under torch.no_grad()")
    if return_aggregates:
        raise NotImplementedError("scangen: the gradient of a scan's aggregates is not derived yet; call under "
                                  "torch.no_grad() for the values")
    check_segments(scan, segments, x, axis)
    if exclusive is None:
        exclusive = scan._kernel.mode == "exclusive"
    if reverse is None:
        reverse = scan._reverse
    scan._adjoint(bool(reverse))  # derived and compiled now: what cannot be derived fails here, not in backward
    return _function().apply(x, scan, bool(exclusive), init, axis, bool(reverse), segments, bool(check))
