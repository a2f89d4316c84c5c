"""What a benchmark ran on: the CPU, the system, Python, utfkit and its kernel.

``utfkit info`` and ``utfkit bench`` both describe the machine with
:func:`cpu_model`; :func:`machine_info` is the record a run saves with its
figures, so that runs can be told apart (``--compare`` warns when the CPU,
kernel or Python differ).
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
from typing import Any

import utfkit
from utfkit import _kernels

__all__ = ["cpu_model", "load_average", "machine_info", "utfkit_version"]

# Keys of /proc/cpuinfo that name the processor: x86 ("model name"), and
# ARM, where the kernel gives "Model" (the board) or "Hardware".
_CPU_NAME_KEYS = ("model name", "Model", "Hardware")


def cpu_model() -> str:
    """The processor's name, as /proc/cpuinfo gives it, else as platform does."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() in _CPU_NAME_KEYS and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def utfkit_version() -> str:
    """The version of the utfkit being measured."""
    version = getattr(utfkit, "__version__", None)
    if isinstance(version, str):
        return version
    try:
        return importlib.metadata.version("utfkit")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def load_average() -> float | None:
    """The 1-minute load average now: above ~0.5 on an idle-looking
    machine, something else is running and the numbers are noisier."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # not on Windows
        return None


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "system": platform.system(),
        "kernel": platform.release(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "utfkit": utfkit_version(),
        "backend": _kernels.backend(),
        "load_average_1min": load_average(),
    }
