"""What ``utfkit bench`` can time: each operation's name, the utfkit call
and the CPython call it compares, and the groups ``--ops`` selects."""

from __future__ import annotations

import argparse

__all__ = [
    "DEFAULT_OPS",
    "DIRECTIONS",
    "FORMS",
    "OPERATIONS",
    "OP_GROUPS",
    "OUT_SUFFIX",
    "SHORT_INPUT_OPERATIONS",
    "TRANSCODE_OPERATIONS",
    "UTF8_OPERATIONS",
    "direction_name",
    "parse_ops",
]

#: The UTF-8 operations, in the order rows are printed, with what each compares.
UTF8_OPERATIONS: dict[str, tuple[str, str]] = {
    "validate": ("utfkit.validate(b)", 'b.decode("utf-8")'),
    "count": ("utfkit.count(b)", 'len(b.decode("utf-8", "replace"))'),
    "replace": ("utfkit.sanitize(b)", 'b.decode("utf-8", "replace")'),
    "valid_up_to": ("utfkit.valid_up_to(b)", 'b.decode("utf-8") raising, .start'),
    "decode": ("utfkit.decode(b, errors=E)", 'b.decode("utf-8", E)'),
    "read": ("-", "b.find(absent byte), the memchr baseline"),
    # Short inputs (utfkit.bench.small), timed once per run, not per text:
    "small": ("utfkit.validate(b), 16 B..1 KiB", 'b.decode("utf-8"); floor b.isascii()'),
    "many": ("utfkit.validate_many(items)", "for b in items: b.decode() (10,000 strings)"),
}

#: Operations timed once per run rather than on each text.
SHORT_INPUT_OPERATIONS: tuple[str, ...] = ("small", "many")

#: The encoding forms transcoding is timed between: short name (as used in
#: operation names) -> the encoding name passed to utfkit and to CPython.
FORMS: dict[str, str] = {
    "utf8": "utf-8",
    "utf16le": "utf-16-le",
    "utf32le": "utf-32-le",
}

#: The transcoding directions, (from, to) short names, in the order printed.
DIRECTIONS: tuple[tuple[str, str], ...] = (
    ("utf8", "utf16le"),
    ("utf16le", "utf8"),
    ("utf8", "utf32le"),
    ("utf32le", "utf8"),
    ("utf16le", "utf32le"),
    ("utf32le", "utf16le"),
)

#: Appended to a direction's name for its variant that writes into a reused buffer.
OUT_SUFFIX: str = " out="


def direction_name(source: str, target: str) -> str:
    """The name of a transcoding operation: ``"utf8>utf16le"``."""
    return f"{source}>{target}"


def _transcode_operations() -> dict[str, tuple[str, str]]:
    operations: dict[str, tuple[str, str]] = {}
    for source, target in DIRECTIONS:
        src, dst = FORMS[source], FORMS[target]
        cpython = f'b.decode("{src}", E).encode("{dst}")'
        name = direction_name(source, target)
        operations[name] = (f'utfkit.transcode(b, "{src}", "{dst}", E)', cpython)
        operations[name + OUT_SUFFIX] = (
            f'utfkit.transcode(b, "{src}", "{dst}", E, out=buf)',
            cpython,
        )
    return operations


#: The transcoding operations: for each direction the allocating call and
#: the call writing into a reused buffer (``... out=``).
TRANSCODE_OPERATIONS: dict[str, tuple[str, str]] = _transcode_operations()

#: Every operation, in the order rows are printed, with what each compares.
OPERATIONS: dict[str, tuple[str, str]] = {**UTF8_OPERATIONS, **TRANSCODE_OPERATIONS}

#: What ``--ops`` accepts: a group name -> the operations it selects.
OP_GROUPS: dict[str, tuple[str, ...]] = {
    "all": tuple(OPERATIONS),
    "validate": ("validate", "valid_up_to"),
    "count": ("count",),
    "replace": ("replace",),
    "decode": ("decode",),
    "read": ("read",),
    "small": ("small",),
    "many": ("many",),
    "transcode": tuple(TRANSCODE_OPERATIONS),
    **{
        direction_name(source, target): (
            direction_name(source, target),
            direction_name(source, target) + OUT_SUFFIX,
        )
        for source, target in DIRECTIONS
    },
}

#: The operations a run without ``--ops`` times.
DEFAULT_OPS: tuple[str, ...] = OP_GROUPS["all"]


def parse_ops(text: str) -> tuple[str, ...]:
    """``"validate,transcode"`` -> the operations those groups select, in
    the order rows are printed (see :data:`OP_GROUPS`)."""
    chosen: set[str] = set()
    for selector in text.split(","):
        selector = selector.strip()
        if not selector:
            continue
        if selector not in OP_GROUPS:
            raise argparse.ArgumentTypeError(
                f"unknown operation group {selector!r}; choose from "
                f"{', '.join(OP_GROUPS)} (comma-separated)"
            )
        chosen.update(OP_GROUPS[selector])
    if not chosen:
        raise argparse.ArgumentTypeError(
            f"no operation group given; choose from {', '.join(OP_GROUPS)}"
        )
    return tuple(op for op in OPERATIONS if op in chosen)
