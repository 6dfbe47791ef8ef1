"""The fast path of a cached call: a C-contiguous NumPy array or PyTorch CUDA tensor, no segments, no
``init``, no aggregates.

The decisions of the general path that depend only on the array's dtype and shape and the call's
``axis``, ``reverse`` and ``exclusive`` (the input dtype check, the layout, the variant, the workspace
size, the output's shape) are made once by the general path's own functions and kept in a
:class:`Plan`, per Scan, keyed by those values. A call then reads the array's pointer, device and
stream, checks ``out=`` from its attributes, and launches. Whatever the plan does not cover (another
kind of array, a strided one, ``out=`` of another dtype, shape or device, overlapping memory, a device
other than 0, ...) returns None: the caller takes the general path, which gives the same results and
raises the same errors.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _arrays, _core, _shape
from ._arrays import Torch, workspace as _workspace

_MAX_PLANS = 1024

#: False sends every call the general way (the tests compare the two; bench/python_host_profile.py times both).
enabled = True


class Plan:
    """What a call of one dtype, shape, axis, reverse and exclusive needs: the variant (``kernel``, valid
    while the Scan's ``base`` kernel and ``variants`` dict are those it was made from), ``n`` and
    ``shape`` (the launch's length and _core.Shape), ``out_shape``, the bytes the input spans and the
    output covers (for the overlap check), the workspace bytes, and (CUDA) the output's library dtype."""

    __slots__ = ("base", "variants", "kernel", "n", "shape", "out_shape", "in_bytes", "out_bytes", "ws_bytes",
                 "lib", "out_dtype", "size")


def _plan(scan, op, backend, axis, reverse, exclusive):
    """A Plan for ``op`` (a C-contiguous operand of the scan's input dtype), or None where the general
    path must decide (it raises what is wrong)."""
    if op.dtype != scan.input_dtype or (axis is not None and type(axis) is not int) or not op.shape:
        return None  # 0-D arrays: the general path (NumPy's take a 1-D result)
    rev = scan._reverse if reverse is None else reverse
    try:
        lay = _shape.layout(tuple(op.shape), None, axis, rev)
    except Exception:  # the general path raises it again, with the same text
        return None
    if lay.copy:
        return None
    base = scan._kernel_for(backend)
    plan = Plan()
    plan.base, plan.variants = base, scan._variants
    plan.kernel = kernel = scan._variant(base, exclusive, None, rev, lay.kind, None, False)
    plan.n, plan.shape, plan.out_shape = lay.n, lay.shape, lay.out_shape
    size = 1
    for d in lay.out_shape:
        size *= d
    plan.size = size
    in_span = lay.n if lay.shape is None else lay.shape.span
    plan.in_bytes, plan.out_bytes = in_span * scan.input_dtype.itemsize, size * scan.dtype.itemsize
    plan.ws_bytes = 0
    if backend == "cuda" and size:
        plan.ws_bytes = kernel.workspace_bytes(lay.n) if lay.shape is None else kernel.shape_workspace_bytes(lay.shape)
    plan.lib = plan.out_dtype = None
    return plan


def _new_plan(scan, plans, key, x, backend, axis, reverse, exclusive):
    """The Plan of ``key``, made (by the general path's functions) and kept; None: the general path."""
    plan = _plan(scan, _arrays.operand(x), backend, axis, reverse, exclusive)
    if plan is not None:
        if len(plans) >= _MAX_PLANS:
            plans.clear()
        plans[key] = plan
    return plan


def call(scan, x, out, exclusive, axis, reverse, check):
    """The result of ``scan(x, out=out, ...)`` (no segments, init or aggregates), or None: take the
    general path."""
    if not enabled or (axis is not None and type(axis) is not int):  # True and 1.0 are keys equal to 1
        return None
    if type(x) is np.ndarray:
        return _host(scan, x, out, exclusive, axis, reverse, check)
    if _arrays._modules.get(type(x)) == "torch":
        return _torch(scan, x, out, exclusive, axis, reverse, check)
    return None


def _host(scan, x, out, exclusive, axis, reverse, check):
    if not x.flags.c_contiguous:
        return None
    key = (x.dtype, x.shape, axis, reverse, exclusive)
    try:
        plan = scan._host_plans.get(key)
        if plan is None or plan.variants is not scan._variants or plan.base is not scan._kernel_for("opencl"):
            plan = _new_plan(scan, scan._host_plans, key, x, "opencl", axis, reverse, exclusive)
            if plan is None:
                return None
    except TypeError:  # an unhashable reverse or exclusive, a dtype with no scangen type: the general path
        return None
    if out is None:
        result = np.empty(plan.out_shape, dtype=scan.dtype)
    elif (type(out) is np.ndarray and out.dtype == scan.dtype and out.shape == plan.out_shape
          and out.flags.c_contiguous and out.flags.writeable):
        result = out
    else:
        return None
    if plan.size:  # the kernel reads a device buffer copied from x: out may be x or overlap it
        pointer = _core.data_pointer
        plan.kernel.run_host(pointer(x) or x.ctypes.data, pointer(result) or result.ctypes.data, plan.n, plan.shape,
                             0, 0, 0, 0, check)
    return result


def _torch(scan, x, out, exclusive, axis, reverse, check):
    lib = _arrays._libraries.get(Torch)
    if lib is None or lib.module is not sys.modules.get("torch") or not x.is_contiguous():
        return None
    device = x.get_device()
    if device != 0:  # a CPU tensor (-1), another device: the general path
        return None
    key = (x.dtype, x.shape, axis, reverse, exclusive)
    try:
        plan = scan._cuda_plans.get(key)
        if plan is None or plan.variants is not scan._variants or plan.base is not scan._kernel_for("cuda"):
            plan = _new_plan(scan, scan._cuda_plans, key, x, "cuda", axis, reverse, exclusive)
            if plan is None:
                return None
    except TypeError:
        return None
    if plan.lib is not lib:
        plan.lib, plan.out_dtype = lib, lib.torch_dtypes.get(scan.dtype)
    if plan.out_dtype is None:
        return None
    raw = lib._raw_stream
    stream = raw(device) if raw is not None else lib.stream(device)
    ptr = x.data_ptr()
    if out is None:
        result = lib.empty(plan.out_shape, scan.dtype, device)
        out_ptr = result.data_ptr()
    elif (type(out) is type(x) and out.dtype is plan.out_dtype and out.shape == plan.out_shape
          and out.get_device() == device and out.is_contiguous()):
        result, out_ptr = out, out.data_ptr()
        if plan.in_bytes and plan.out_bytes and ptr < out_ptr + plan.out_bytes and out_ptr < ptr + plan.in_bytes:
            return None  # x and out overlap: through a temporary, on the general path
    else:
        return None
    if plan.size:
        ws_bytes = plan.ws_bytes
        ws = _workspace(lib, device, stream, ws_bytes) if ws_bytes else 0
        plan.kernel.run_cuda(ptr, out_ptr, plan.n, stream, ws, ws_bytes, plan.shape, 0, 0, 0, 0, check)
    return result


