"""The package's functions over Scans: the shorthands (cumsum, cummax, ..., logcumsumexp), whose Scans are
compiled once per operator and dtypes, linear_recurrence, associative_scan, vjp and dtype_of."""

from __future__ import annotations

import numpy as np

from . import _arrays, _autograd, _fast, _jax, _recurrence
from ._arrays import Host
from ._scan import Scan, compile
from ._segments import _segments_arg
from ._types import dsl_type_of, literal


def dtype_of(scan: "Scan | str", *, input: bool = False) -> np.dtype:
    """The NumPy dtype of a scan's elements (``input=True``: of its input)."""
    if not isinstance(scan, Scan):
        scan = compile(scan)
    return scan.input_dtype if input else scan.dtype


def _builtin_scan(op: str, in_dtype: np.dtype, acc: np.dtype) -> "Scan":
    """The Scan of a shorthand: ``op`` (add, mul, min, max, fmin, fmax, logaddexp) over ``in_dtype`` elements
    accumulated in ``acc``; compiled once (``_builtin_scans``)."""
    key = (op, in_dtype, acc)
    scan = _builtin_scans.get(key)
    if scan is None:
        if in_dtype.fields is not None or acc.fields is not None:
            raise TypeError(f"scangen: '{op}' is a scalar operator; for struct elements use associative_scan")
        in_name, acc_name = dsl_type_of(in_dtype, [], "T"), dsl_type_of(acc, [], "T")
        if in_dtype.kind == "b" or acc.kind == "b":
            raise TypeError(f"scangen: '{op}' on bool arrays: convert them to an integer type first")
        convert = f" input = {in_name};" if in_name != acc_name else ""
        if op == "logaddexp":
            if acc.kind != "f":
                raise TypeError(f"scangen: logcumsumexp computes in a float type, not {acc} (pass dtype=)")
            # abs(m) == inf: both operands -inf (the identity with itself), or one of them +inf.
            body = ("combine(x, y) { let m = max(x, y); return abs(m) == inf ? m : m + log(exp(x - m) + "
                    "exp(y - m)); } identity = -inf;")
        else:
            spec_op = op[1:] if op in ("fmin", "fmax") and acc.kind != "f" else op  # integers have no NaN
            body = f"op = {spec_op};"
        scan = _builtin_scans[key] = compile(f"scan {op}_{acc_name} {{ type = {acc_name};{convert} {body} "
                                             "level = device; }")
    return scan


def _builtin(op: str, x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
             check_segments):
    by_dtype = None  # (operator, type of x, x.dtype, dtype=): the key of the Scan found for calls like this
    grad = _autograd.wants_grad(x)
    if offsets is None and flags is None and keys is None and init is None and not return_aggregates and not grad:
        try:
            by_dtype = (op, type(x), x.dtype, dtype)
            scan = _builtin_by_dtype.get(by_dtype)
        except Exception:  # no dtype (a tuple, a dict), an unhashable one: the general path says what is wrong
            by_dtype = scan = None
        if scan is not None:
            result = _fast.call(scan, x, out, exclusive, axis, reverse, check_segments)
            if result is not None:
                return result
            by_dtype = None  # kept already
    if _jax.is_jax(x):  # an XLA FFI call, under jit, grad and vmap too
        return _jax.builtin(op, x, dtype, out, exclusive, init, axis, reverse,
                            offsets is not None or flags is not None or keys is not None, return_aggregates,
                            _builtin_scan)
    if isinstance(x, (tuple, dict)):
        raise TypeError(f"scangen: '{op}' scans one array, not a {type(x).__name__} of them")
    operand = _arrays.operand(x, True)
    in_dtype = operand.dtype
    acc = np.dtype(dtype) if dtype is not None else in_dtype
    scan = _builtin_scan(op, in_dtype, acc)
    segments = None
    if offsets is not None or flags is not None or keys is not None:
        segments = _segments_arg(offsets, flags, keys)
    if grad:  # through torch.autograd (Scan.__call__)
        return scan(x, out=out, exclusive=exclusive, init=init, axis=axis, reverse=reverse, offsets=offsets,
                    flags=flags, keys=keys, return_aggregates=return_aggregates, check_segments=check_segments)
    if by_dtype is not None:
        if len(_builtin_by_dtype) >= 256:
            _builtin_by_dtype.clear()
        _builtin_by_dtype[by_dtype] = scan
    return scan._call_operand(operand, out, exclusive, init, axis, reverse, segments, return_aggregates,
                              check_segments)


# (operator, input dtype, accumulator dtype) -> its Scan: a shorthand's call without making its text.
_builtin_scans: dict = {}
# (operator, type of x, x.dtype as x has it, dtype=) -> its Scan: a shorthand's cached call goes to the
# fast path (_fast.call) without reading x as an operand first.
_builtin_by_dtype: dict = {}


def _element_dtype(x, names) -> np.dtype:
    """The dtype of x's elements: an array's, or for a tuple / dict of arrays (one per field) the struct of
    theirs, fields named by ``names`` (a tuple) or the keys (a dict), in C layout."""
    if isinstance(x, dict):
        names, x = tuple(x), tuple(x.values())
    if isinstance(x, tuple):
        if names is None or len(names) != len(x):
            raise TypeError(f"scangen: a tuple of {len(x)} arrays needs names=(...), a field name for each "
                            "(or pass a dict of them)")
        return np.dtype([(str(n), _element_dtype(a, None)) for n, a in zip(names, x)], align=True)
    operand = _arrays.operand(x)
    return operand.array.dtype if isinstance(operand, Host) else operand.dtype


def cumsum(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
           flags=None, keys=None, return_aggregates=False, check_segments=True):
    """The running sum of ``x`` (integers wrap around in the result's dtype).

    dtype: the accumulator and result type (default: ``x``'s), e.g.
    ``np.int64`` to sum ``int8`` values without overflow. The other
    arguments (``axis``, ``reverse``, ``offsets`` / ``flags`` / ``keys``,
    ``return_aggregates``, ...) are those of :meth:`Scan.__call__`.
    """
    return _builtin("add", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
                    check_segments)


def cumprod(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
           flags=None, keys=None, return_aggregates=False, check_segments=True):
    """The running product of ``x`` (integers wrap around)."""
    return _builtin("mul", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
                    check_segments)


def cummax(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
           flags=None, keys=None, return_aggregates=False, check_segments=True):
    """The running maximum of ``x`` (exclusive: element 0 is ``init``, else the identity: the lowest value).

    A NaN propagates, as in ``np.maximum.accumulate`` and ``torch.cummax``: every result from the first NaN
    on is NaN. :func:`cumfmax` ignores NaNs instead.
    """
    return _builtin("max", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
                    check_segments)


def cummin(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
           flags=None, keys=None, return_aggregates=False, check_segments=True):
    """The running minimum of ``x`` (exclusive: element 0 is ``init``, else the identity: the highest value).

    A NaN propagates, as in ``np.minimum.accumulate``; :func:`cumfmin` ignores NaNs instead.
    """
    return _builtin("min", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
                    check_segments)


def cumfmax(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
            flags=None, keys=None, return_aggregates=False, check_segments=True):
    """The running maximum of ``x`` ignoring NaNs, as ``np.fmax.accumulate``: a result is NaN only where every
    element so far is NaN. On integers it is :func:`cummax`."""
    return _builtin("fmax", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
                    check_segments)


def cumfmin(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
            flags=None, keys=None, return_aggregates=False, check_segments=True):
    """The running minimum of ``x`` ignoring NaNs, as ``np.fmin.accumulate``. On integers it is :func:`cummin`."""
    return _builtin("fmin", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys, return_aggregates,
                    check_segments)


def logcumsumexp(x, *, dtype=None, out=None, exclusive=False, init=None, axis=-1, reverse=False, offsets=None,
                 flags=None, keys=None, return_aggregates=False, check_segments=True):
    """log(cumsum(exp(x))) without overflow, as ``np.logaddexp.accumulate`` and ``torch.logcumsumexp``:
    float dtypes (or ``dtype=`` one); -inf is the identity (the exclusive result's first element), a NaN
    propagates, +inf stays. Differentiable under PyTorch's autograd."""
    return _builtin("logaddexp", x, dtype, out, exclusive, init, axis, reverse, offsets, flags, keys,
                    return_aggregates, check_segments)


def linear_recurrence(a, b, *, axis: int = -1, reverse: bool = False, h0=None):
    """The first-order linear recurrence ``h[t] = a[t] * h[t-1] + b[t]`` along ``axis`` (``h[-1] = h0``,
    default 0), as one scan of affine maps; ``reverse=True`` runs it from the end (``h[t] = a[t] * h[t+1]
    + b[t]``: discounted returns). ``a`` broadcasts to ``b`` (per element, or one per channel); ``h0``
    to the shape of ``b`` without ``axis``. Float32 or float64 (b's dtype), NumPy, PyTorch or CuPy arrays;
    differentiable in a, b and h0 under PyTorch's autograd. Returns h, of b's shape and dtype."""
    return _recurrence.linear_recurrence(a, b, axis, reverse, h0, compile)


def associative_scan(combine: str, x, *, identity, out=None, exclusive=False, init=None, axis=-1,
                     name: str = "custom", names=None, reverse=False, offsets=None, flags=None, keys=None,
                     return_aggregates=False, check_segments=True):
    """Scan ``x`` with a custom operator written as a scangen ``combine`` expression.

    combine: the body of ``combine(x, y) = ...;`` in scangen's language
        (``x`` is the earlier element, ``y`` the later one), e.g.
        ``"max(x, y)"`` or, for a structured dtype with fields a and b,
        ``"T { a: y.a * x.a, b: y.a * x.b + y.b }"`` (the struct type is
        called ``T``; nested structs ``T_field``). A whole
        ``combine(x, y) = ...;`` line (with ``let``\\s) is taken as is.
    identity: the operator's identity: a number, a tuple / dict for a
        struct, or DSL text.
    x: an array (its dtype, scalar or structured, is the element type), or
        one array per field: a dict ``{field: array}``, or a tuple with
        ``names=`` (the fields' names, in order); the result is then a dict
        or a tuple of arrays.
    scangen checks the identity and associativity on random values before
    compiling. The other arguments are those of :meth:`Scan.__call__`.
    """
    dtype = _element_dtype(x, names)
    structs: list = []
    type_name = dsl_type_of(dtype, structs, "T")
    body = combine.strip().rstrip(";")
    line = body + ";" if body.startswith("combine") else f"combine(x, y) = {body};"
    text = "\n".join(structs + [
        f"scan {name} {{",
        f"  type = {type_name};",
        f"  {line}",
        f"  identity = {literal(identity, dtype, type_name)};",
        "  level = device;",
        "}",
    ])
    return compile(text)(x, out=out, exclusive=exclusive, init=init, axis=axis, reverse=reverse, offsets=offsets,
                         flags=flags, keys=keys, return_aggregates=return_aggregates, check_segments=check_segments)


def vjp(scan, x, grad, *, exclusive: bool | None = None, init=None, axis: int | None = -1,
        reverse: bool | None = None, offsets=None, flags=None, keys=None):
    """The gradient of a scan: the vector-Jacobian product ``grad . d scan(x) / d x``.

    scan: a :class:`Scan` (or ``.scan`` text, compiled) of a differentiable
        operator: any ``combine`` on floats (arithmetic, min/max, select,
        exp/log, ...), struct fields included; integer and bool fields carry
        no gradient (their entries in the result are 0).
    x: the scan's input, a NumPy array of ``scan.input_dtype`` (or a JAX
        array: the result is then a JAX array, through ``jax.vjp``).
    grad: the gradient of a loss with respect to ``scan(x, ...)``: an array
        of ``scan.dtype`` and x's shape.
    exclusive, init, axis, reverse: those of the forward call (``init`` is
        a constant: it gets no gradient).
    offsets, flags, keys: the forward call's segments (one of them; x 1-D
        or axis=None): each segment is differentiated as a scan of its own
        (keys under the spec's ``key_equal`` are refused: pass flags=).

    Returns the gradient with respect to ``x`` (``scan.dtype``, x's shape).
    The backward pass is a scan of its own, derived from the operator
    (``scan.adjoint_spec`` shows it): one pass from the end whose element is
    an affine map of (gradient of y[i], gradient of x[i]); with the forward
    exclusive scan it needs, two scans over the data. Where it cannot be
    derived (an integer type, an input conversion), ScanError says why.
    """
    if not isinstance(scan, Scan):
        scan = compile(scan)
    if exclusive is None:
        exclusive = scan._kernel.mode == "exclusive"
    if reverse is None:
        reverse = scan._reverse
    segments = _segments_arg(offsets, flags, keys)
    if _jax.is_jax(x):  # jax.vjp of the call: the same backward scan, as FFI calls
        if segments is not None:
            raise NotImplementedError("scangen: segments (offsets=, flags=, keys=) with JAX arrays are not supported")
        return _jax.vjp(scan, x, grad, bool(exclusive), init, axis, bool(reverse))
    return _autograd.vjp(scan, scan._adjoint, x, grad, bool(exclusive), init, axis, bool(reverse), segments)
