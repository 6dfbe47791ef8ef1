"""The Runtimes (the default device, and one per backend a call needs), the package's lock, and
runtime_info."""

from __future__ import annotations

import os
import threading

from . import _core

_lock = threading.RLock()
_runtimes: dict = {}


def _runtime(backend=None) -> "_core.Runtime":
    """The default Runtime (backend None: CUDA when there is a GPU, else OpenCL) or one of a backend."""
    with _lock:
        if backend is None and None not in _runtimes:
            forced = os.environ.get("SCANGEN_BACKEND") or None
            _runtimes[None] = _runtime(forced) if forced else _core.Runtime(None)
        elif backend is not None and backend not in _runtimes:
            default = _runtimes.get(None)
            _runtimes[backend] = default if default is not None and default.backend == backend else \
                _core.Runtime(backend)
        return _runtimes[backend]


def runtime_info() -> dict:
    """The default device: ``backend`` ("cuda" or "opencl"), ``device_name``,
    ``fallback_reason`` (why not CUDA, or "") and the cache statistics."""
    rt = _runtime()
    return {"backend": rt.backend, "device_name": rt.device_name,
            "fallback_reason": rt.fallback_reason, **rt.stats()}


def _compile_kernel(rt, source, name):
    if source.startswith("file:"):
        return rt.compile_file(source[5:], name)
    return rt.compile(source[5:], name)
