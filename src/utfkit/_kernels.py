"""Kernel selection: which instruction set runs the C core.

The C core probes the CPU once and keeps one table of kernels
(csrc/dispatch.c); this module only asks it.  ``UTFKIT_BACKEND`` in the
environment forces a kernel at import (``scalar`` for the tests).
"""

from __future__ import annotations

import os
from typing import List, Optional

from ._native import ffi, lib

__all__ = ["available_backends", "backend", "cpu_features", "known_backends", "set_backend"]


def known_backends() -> List[str]:
    """Every kernel this build knows, slowest first, whether or not this CPU runs it."""
    names: List[str] = []
    index = 0
    while True:
        name = lib.utfkit_backend_name(index)
        if name == ffi.NULL:
            return names
        names.append(ffi.string(name).decode("ascii"))
        index += 1


def available_backends() -> List[str]:
    """Kernels this CPU can run, slowest first (the last is the default)."""
    return [name for name in known_backends() if lib.utfkit_backend_available(name.encode())]


def set_backend(name: Optional[str]) -> None:
    """Make `name` the active kernel (None: the best for this CPU).

    Meant for tests and benchmarks.  A call running meanwhile in another
    thread finishes with the old kernel or the new one (they give identical
    results).
    """
    if name is None:
        lib.utfkit_set_backend(ffi.NULL)
        return
    if not isinstance(name, str):
        raise TypeError(f"set_backend() argument must be str or None, not {type(name).__name__}")
    status = lib.utfkit_set_backend(name.encode())
    if status == -1:
        raise ValueError(f"unknown utfkit backend {name!r}; known: {', '.join(known_backends())}")
    if status == -2:
        raise ValueError(
            f"utfkit backend {name!r} cannot run on this CPU; "
            f"available: {', '.join(available_backends())}"
        )


def backend() -> str:
    """The active kernel, which runs every operation: one of :func:`known_backends`."""
    return str(ffi.string(lib.utfkit_backend()).decode("ascii"))


def cpu_features() -> str:
    """CPU features the dispatcher detected, space-separated."""
    return str(ffi.string(lib.utfkit_cpu_features()).decode("ascii"))


set_backend(os.environ.get("UTFKIT_BACKEND") or None)
