"""JAX arrays: scans as XLA FFI calls (jax.ffi), differentiable through jax.custom_vjp.

A scan of a JAX array is one call of the FFI target ``scangen_scan``, whose
handlers (python/src/jax_ffi.cpp) run the compiled scan on the CPU through
the OpenCL runtime and on a CUDA GPU through the CUDA runtime, on XLA's
stream. The call takes the array with the scanned axis last (the lines laid
end to end; ``length`` elements each) and the scan's handle, mode and
direction as attributes; struct elements travel as bytes (``(..., length,
itemsize)`` uint8, packed and unpacked by bitcasts). It works under
``jax.jit``; under ``jax.vmap`` the batch is a leading dimension, more lines
of the same length (``vmap_method="broadcast_all"``).

The gradient (``jax.custom_vjp``) is the backward scan derived from the
operator, the one ``scangen.vjp`` runs (``Scan.adjoint_spec``): the forward
exclusive scan, then the adjoint scan from the other end over ``{yp, x, yb,
last}`` elements; a float sum's is the sum of the later gradients (the same
scan, run the other way).
"""

from __future__ import annotations

import numpy as np

from . import _arrays, _core, _device
from ._fields import _flatten_fields, _mirror
from ._types import leaves

_TARGET = "scangen_scan"
_state: dict = {}


def is_jax(x) -> bool:
    """x is a JAX array or tracer (a tuple or dict of them: its first)."""
    while isinstance(x, (tuple, list, dict)):
        if not x:
            return False
        x = next(iter(x.values())) if isinstance(x, dict) else x[0]
    return _arrays._module_of(x) in ("jax", "jaxlib")


def _jax():
    """jax, with scangen's FFI target registered (once), or an error saying why it cannot be."""
    jax = _state.get("jax")
    if jax is not None:
        return jax
    if not getattr(_core, "jax_ffi", False):
        raise RuntimeError("scangen: this build of scangen has no JAX support (jax was not installed when it was "
                           "built): reinstall scangen with jax installed (pip install jax, then pip install "
                           "--no-build-isolation ./python)")
    import jax
    if not hasattr(jax, "ffi"):
        raise RuntimeError(f"scangen: JAX {jax.__version__} has no jax.ffi; scangen's JAX support needs jax >= 0.4.38")
    with _device._lock:
        if "jax" not in _state:
            for platform, capsule in _core.jax_targets().items():
                jax.ffi.register_ffi_target(_TARGET, capsule, platform=platform)
            # The handlers share the package's Runtimes (and their caches) where they can be made.
            backends = ["opencl"] + (["cuda"] if any(d.platform == "gpu" for d in jax.devices()) else [])
            for backend in backends:
                try:
                    _core.jax_use_runtime(_device._runtime(backend))
                except Exception:  # none here: the handler makes its own, or says why it cannot
                    pass
            _state["jax"] = jax
    return jax


def _handle(scan) -> int:
    h = scan.__dict__.get("_jax_handle")
    if h is None:
        h = scan.__dict__["_jax_handle"] = _core.jax_register(scan._kernel)
    return h


_SCALARS = "int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64"


def check_dtype(dtype) -> np.dtype:
    """A JAX array's dtype as scangen's, or a TypeError naming it."""
    d = np.dtype(dtype)
    if d.kind not in "iufb" or d.name not in _SCALARS.split(", ") + ["bool"]:
        raise TypeError(f"scangen: JAX arrays of dtype {d} have no scangen element type ({_SCALARS})")
    return d


# ---- one FFI call: the lines along the last axis ----

def _ffi(scan, x, exclusive: bool, reverse: bool, length: int, flat: bool = False):
    jax = _jax()
    struct = scan.dtype.fields is not None
    shape = tuple(x.shape[:-1]) + (scan.dtype.itemsize,) if struct else tuple(x.shape)
    out = jax.ShapeDtypeStruct(shape, np.uint8 if struct else scan.dtype)
    call = jax.ffi.ffi_call(_TARGET, out, vmap_method="broadcast_all")
    return call(x, handle=np.int64(_handle(scan)), exclusive=bool(exclusive), reverse=bool(reverse),
                length=np.int64(length), flat=bool(flat))


def _to_bytes(jnp, lax, a, dtype):
    if dtype.kind == "b":
        return a.astype(jnp.uint8)[..., None]
    b = lax.bitcast_convert_type(a.astype(dtype), jnp.uint8)
    return b[..., None] if dtype.itemsize == 1 else b


def _pack(dtype, arrays):
    """Arrays of dtype's scalar fields (in leaves order, one shape S) as S + (itemsize,) bytes in its layout."""
    import jax.numpy as jnp
    from jax import lax
    shape = tuple(arrays[0].shape)
    pieces, pos = [], 0
    for (_path, leaf, off), a in zip(leaves(dtype), arrays):
        if off > pos:
            pieces.append(jnp.zeros(shape + (off - pos,), jnp.uint8))
        pieces.append(_to_bytes(jnp, lax, a, leaf))
        pos = off + leaf.itemsize
    if dtype.itemsize > pos:
        pieces.append(jnp.zeros(shape + (dtype.itemsize - pos,), jnp.uint8))
    return jnp.concatenate(pieces, axis=-1)


def _unpack(dtype, y):
    """The scalar fields of S + (itemsize,) bytes of dtype's layout, in leaves order."""
    from jax import lax
    out = []
    for _path, leaf, off in leaves(dtype):
        b = y[..., off:off + leaf.itemsize]
        if leaf.kind == "b":
            out.append(b[..., 0] != 0)
        else:
            out.append(lax.bitcast_convert_type(b[..., 0] if leaf.itemsize == 1 else b, leaf))
    return out


def _forward(scan, exclusive: bool, reverse: bool, xs, flat: bool = False):
    """The scan of every line along the last axis of the arrays xs (one per scalar field of the input):
    the arrays of the output's scalar fields. ``flat``: the lines laid end to end scanned as one (a
    backward scan, which separates them itself)."""
    import jax.numpy as jnp
    shape = tuple(xs[0].shape)
    if int(np.prod(shape)) == 0:
        return [jnp.zeros(shape, leaf) for _path, leaf, _off in leaves(scan.dtype)]
    if scan.input_dtype.fields is None and scan.dtype.fields is None:
        return [_ffi(scan, xs[0], exclusive, reverse, shape[-1], flat)]
    packed = xs[0] if scan.input_dtype.fields is None else _pack(scan.input_dtype, xs)
    y = _ffi(scan, packed, exclusive, reverse, shape[-1], flat)
    return [y] if scan.dtype.fields is None else _unpack(scan.dtype, y)


# ---- the gradient ----

def _shifted(jnp, v, reverse: bool):
    """The gradient of the inclusive results from that of the exclusive ones (along the last axis)."""
    zero = jnp.zeros_like(v[..., :1])
    return jnp.concatenate([zero, v[..., :-1]], -1) if reverse else jnp.concatenate([v[..., 1:], zero], -1)


def _backward(scan, exclusive: bool, reverse: bool, xs, gs):
    """The cotangents of xs (None for integer and bool fields) from those of the output, gs."""
    jax = _jax()
    import jax.numpy as jnp
    out_leaves = leaves(scan.dtype)
    gs = [jnp.zeros(x.shape, leaf) if g.dtype == jax.dtypes.float0 else g
          for g, x, (_p, leaf, _o) in zip(gs, xs, out_leaves)]
    floats = [leaf.kind == "f" for _p, leaf, _o in leaves(scan.input_dtype)]
    if int(np.prod(xs[0].shape)) == 0:
        return [jnp.zeros_like(x) if f else None for x, f in zip(xs, floats)]
    if scan._kernel.op == "add" and scan.dtype.kind == "f":  # a sum's: the later gradients summed
        return _forward(scan, exclusive, not reverse, gs)
    adj = scan._adjoint(reverse)
    yp = _forward(scan, True, reverse, xs)
    yb = [_shifted(jnp, g, reverse) for g in gs] if exclusive else gs
    last = jnp.zeros(xs[0].shape, jnp.uint8).at[..., 0 if reverse else -1].set(1)
    parts = {"yp": dict(zip((p for p, _l, _o in out_leaves), yp)),
             "x": dict(zip((p for p, _l, _o in leaves(scan.input_dtype)), xs)),
             "yb": dict(zip((p for p, _l, _o in out_leaves), yb)),
             "last": {(): last}}
    ins = [parts[path[0]][tuple(path[1:])] for path, _leaf, _off in leaves(adj.scan.input_dtype)]
    w = dict(zip((p[0] for p, _l, _o in leaves(adj.scan.dtype)), _forward(adj.scan, False, not reverse, ins, True)))
    by_path = {path: w[f"w{k}"] for k, path in enumerate(adj.paths)}
    out = []
    for (path, leaf, _off), x, f in zip(leaves(scan.input_dtype), xs, floats):
        g = by_path.get(path)
        out.append(None if not f else jnp.zeros_like(x) if g is None else g.astype(leaf))
    return out


def _lines():
    """The differentiable scan of the lines along the last axis: (scan, exclusive, reverse, *xs) -> outputs."""
    f = _state.get("lines")
    if f is None:
        jax = _jax()

        def lines(scan, exclusive, reverse, *xs):
            return tuple(_forward(scan, exclusive, reverse, list(xs)))

        def fwd(scan, exclusive, reverse, *xs):
            if not (scan._kernel.op == "add" and scan.dtype.kind == "f"):
                scan._adjoint(reverse)  # derived now: what cannot be derived fails here, naming why
            return lines(scan, exclusive, reverse, *xs), xs

        def bwd(scan, exclusive, reverse, xs, gs):
            return tuple(_backward(scan, exclusive, reverse, list(xs), list(gs)))

        f = jax.custom_vjp(lines, nondiff_argnums=(0, 1, 2))
        f.defvjp(fwd, bwd)
        _state["lines"] = f
    return f


# ---- the package's entry points ----

def _refuse(out, init, segmented, return_aggregates):
    if out is not None:
        raise TypeError("scangen: out= is not supported for JAX arrays (they are immutable); use the result")
    if init is not None:
        raise NotImplementedError("scangen: init= with JAX arrays is not supported; compile a spec with "
                                  "`init = ...;`, or combine init into the result")
    if segmented:
        raise NotImplementedError("scangen: segments (offsets=, flags=, keys=) with JAX arrays are not supported")
    if return_aggregates:
        raise NotImplementedError("scangen: return_aggregates with JAX arrays is not supported; the aggregates "
                                  "are the inclusive result's last elements along the axis")


def _along(arrays, axis):
    """The arrays with the scanned axis last (flattened for axis None), and the function that undoes it."""
    import jax.numpy as jnp
    shape = tuple(arrays[0].shape)
    if axis is None or not shape:
        return [jnp.reshape(a, (-1,)) for a in arrays], lambda r: r
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"scangen: axis must be an int or None, not {type(axis).__name__}")
    axis = int(axis)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"scangen: axis {axis} is out of range for a {len(shape)}-D array")
    return [jnp.moveaxis(a, axis, -1) for a in arrays], lambda r: jnp.moveaxis(r, -1, axis)


def scan_call(scan, x, out, exclusive, init, axis, reverse, segmented, return_aggregates):
    """``scan(x, ...)`` for a JAX array x (or a tuple / dict of them, one per field of a struct)."""
    _refuse(out, init, segmented, return_aggregates)
    import jax.numpy as jnp
    arrays = [jnp.asarray(a) for a in _flatten_fields(x, scan.input_dtype, "x", scan)]
    for a, (path, leaf, _off) in zip(arrays, leaves(scan.input_dtype)):
        got = check_dtype(a.dtype)
        if got != leaf:
            what = "x" if not path else f"field {'.'.join(path)}"
            raise TypeError(f"scangen: scan '{scan.name}' takes {leaf} elements for {what}; it has dtype {got}")
        if a.shape != arrays[0].shape:
            raise ValueError(f"scangen: the arrays of a tuple must have one shape; they have {arrays[0].shape} "
                             f"and {a.shape}")
    if exclusive is None:
        exclusive = scan._kernel.mode == "exclusive"
    if reverse is None:
        reverse = scan._reverse
    lines, back = _along(arrays, axis)
    results = [back(r) for r in _lines()(scan, bool(exclusive), bool(reverse), *lines)]
    if scan.dtype.fields is None:
        return results[0]
    nested = _mirror(scan.dtype, iter(results))
    return dict(zip(scan.dtype.names, nested)) if isinstance(x, dict) else nested


def vjp(scan, x, grad, exclusive, init, axis, reverse):
    """scangen.vjp of JAX arrays: jax.vjp of the call (its backward pass the derived scan)."""
    jax = _jax()
    _refuse(None, init, False, False)
    _y, pullback = jax.vjp(lambda v: scan_call(scan, v, None, exclusive, None, axis, reverse, False, False), x)
    return pullback(grad)[0]


def builtin(op, x, dtype, out, exclusive, init, axis, reverse, segmented, return_aggregates, builtin_scan):
    """A shorthand (cumsum, ...) of a JAX array."""
    _refuse(out, init, segmented, return_aggregates)
    if isinstance(x, (tuple, dict)):
        raise TypeError(f"scangen: '{op}' scans one array, not a {type(x).__name__} of them")
    in_dtype = check_dtype(x.dtype)
    acc = check_dtype(dtype) if dtype is not None else in_dtype
    scan = builtin_scan(op, in_dtype, acc)
    return scan_call(scan, x, None, exclusive, None, axis, reverse, False, False)


_RECURRENCE = ("type Affine_{t} {{ a: {t}, b: {t} }}\n"
               "scan linear_recurrence_{t} {{ type = Affine_{t}; "
               "combine(x, y) = Affine_{t} {{ a: y.a * x.a, b: y.a * x.b + y.b }}; "
               "identity = Affine_{t} {{ a: 1.0, b: 0.0 }}; level = device; }}")


def linear_recurrence(a, b, axis, reverse, h0, compile_fn):
    """h[t] = a[t] * h[t-1] + b[t] along axis for JAX arrays: one scan of affine maps over the lines, each
    line's first map with a = 0 (h0 folded into its b); differentiable in a, b and h0."""
    import jax.numpy as jnp
    b = jnp.asarray(b)
    name = check_dtype(b.dtype).name
    if name not in ("float32", "float64"):
        raise TypeError(f"scangen.linear_recurrence: b has dtype {name}; float32 and float64 are supported")
    t = "f32" if name == "float32" else "f64"
    scan = compile_fn(_RECURRENCE.format(t=t), f"linear_recurrence_{t}")
    if b.ndim == 0:
        raise ValueError("scangen.linear_recurrence: b is 0-D; a recurrence runs along an axis")
    if not -b.ndim <= axis < b.ndim:
        raise ValueError(f"scangen.linear_recurrence: axis {axis} is out of bounds for b of {b.ndim} dimensions")
    a = jnp.asarray(a, dtype=b.dtype)
    try:
        a = jnp.broadcast_to(a, b.shape)
    except ValueError as e:
        raise ValueError(f"scangen.linear_recurrence: a of shape {tuple(a.shape)} does not broadcast to b's "
                         f"{tuple(b.shape)}") from e
    am, bm = jnp.moveaxis(a, axis, -1), jnp.moveaxis(b, axis, -1)
    first = -1 if reverse else 0
    if h0 is not None:
        h0v = jnp.asarray(h0, dtype=b.dtype)
        try:
            h0v = jnp.broadcast_to(h0v, bm.shape[:-1])
        except ValueError as e:
            raise ValueError(f"scangen.linear_recurrence: h0 of shape {tuple(h0v.shape)} does not broadcast to "
                             f"{tuple(bm.shape[:-1])}, b's shape without axis {axis}") from e
        bm = bm.at[..., first].add(am[..., first] * h0v)
    am = am.at[..., first].set(0)  # each line starts afresh: no carry from the line before it
    _ra, h = _lines()(scan, False, bool(reverse), am, bm)
    return jnp.moveaxis(h, -1, axis)
