"""Input sizes as people write them: ``64K``, ``1M`` <-> bytes (powers of 1024)."""

from __future__ import annotations

import argparse
import re

__all__ = ["DEFAULT_SWEEP_SIZES", "format_size", "parse_size", "parse_sizes"]

#: What ``--sizes`` times when only ``--plot`` asks for a sweep: from a
#: header field to a large document, each 16 times the last.
DEFAULT_SWEEP_SIZES: tuple[int, ...] = (16, 256, 4 << 10, 64 << 10, 1 << 20)

_SIZE_PATTERN = re.compile(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*", re.IGNORECASE)

_UNITS: tuple[tuple[int, str], ...] = ((30, "GiB"), (20, "MiB"), (10, "KiB"))


def parse_size(text: str) -> int:
    """``"65536"``, ``"64K"``, ``"64KiB"``, ``"1M"``, ``"2G"`` -> bytes (powers of 1024)."""
    match = _SIZE_PATTERN.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: give a number of bytes, optionally with K, M or G "
            "(powers of 1024), e.g. 65536, 64K, 1M"
        )
    number, unit = match.groups()
    shift = {None: 0, "k": 10, "m": 20, "g": 30}[unit.lower() if unit else None]
    size = int(number) << shift
    if size <= 0:
        raise argparse.ArgumentTypeError(f"size must be more than 0 bytes, got {text!r}")
    return size


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"16,256,4K,64K,1M"`` -> the sizes in bytes, smallest first, each once."""
    parts = [part for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("no size given; e.g. --sizes 16,256,4K,64K,1M")
    return tuple(sorted({parse_size(part) for part in parts}))


def format_size(size: int) -> str:
    """Bytes as the largest whole unit: 16 -> ``"16 B"``, 65536 -> ``"64 KiB"``."""
    for shift, unit in _UNITS:
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"
