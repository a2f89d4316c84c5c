"""How ``utfkit bench`` shows its figures as text: the header and legend,
the table printed row by row as rows are measured, the table of a size
sweep, and the short-input table.  (The JSON form is :mod:`.schema`.)"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from .operations import (
    DEFAULT_OPS,
    FORMS,
    OPERATIONS,
    TRANSCODE_OPERATIONS,
    UTF8_OPERATIONS,
)
from .sizes import format_size
from .small import MANY_COUNT
from .timing import Measurement, Result

__all__ = [
    "Table",
    "header",
    "legend",
    "per_item_ns",
    "print_small_results",
    "print_sweep",
]


def legend(ops: Sequence[str], sweep: bool = False) -> list[str]:
    """What the chosen operations compare: a line per UTF-8 operation, and
    the transcoding ones described once for every direction.  A sweep's
    table has no read baseline column."""
    transcoding = [op for op in ops if op in TRANSCODE_OPERATIONS]
    width = 37 if transcoding else 24  # the longest call shown, so the "vs" line up
    lines = [
        f"  {op:<12} {mine:<{width}} vs {theirs}"
        for op, (mine, theirs) in UTF8_OPERATIONS.items()
        if op in ops
    ]
    if "validate" in ops and not sweep:
        lines.append(
            "  read GB/s, of read (validate rows): b.find(absent byte) timed in the same "
            "interleaved rounds; of read = utfkit GB/s / read GB/s"
        )
    if {"validate", "valid_up_to"} & set(ops):
        lines.append(
            "  validate and valid_up_to on a -dirty text stop at its first error: "
            "bytes = the prefix read"
        )
    if transcoding:
        forms = ", ".join(f"{short} = {name.upper()}" for short, name in FORMS.items())
        lines += [
            f"  {'A>B':<12} {'utfkit.transcode(b, A, B, E)':<{width}} vs b.decode(A, E).encode(B)",
            (
                f"  {'A>B out=':<12} {'utfkit.transcode(b, A, B, E, out=buf)':<{width}} vs the "
                "same; buf: one bytearray of the output's length, reused by every call"
            ),
            f"  A, B: {forms}; E = strict on clean texts, replace on -dirty ones",
            (
                "  bytes = the INPUT's length; a -dirty UTF-16/UTF-32 input is the clean text "
                "re-encoded, with one unpaired surrogate / invalid unit per KiB"
            ),
            (
                "  A>B returns a new bytes and pays for its memory (page faults of fresh pages "
                "included: --json gives minor_faults_per_call); A>B out= is the conversion alone"
            ),
        ]
    return lines


def header(
    info: dict[str, Any],
    repeat: int,
    source: str,
    ops: Sequence[str] = DEFAULT_OPS,
    sweep: bool = False,
) -> list[str]:
    """The lines above the table: the machine, the settings, the legend."""
    return [
        f"utfkit bench: CPU {info['cpu']} ({info['cpu_count']} logical) | "
        f"{info['system']} {info['kernel']} | {info['python']} | "
        f"utfkit {info['utfkit']}, backend {info['backend']}"
        + (
            ""
            if info.get("load_average_1min") is None
            else f" | load average {info['load_average_1min']:.2f} at start"
        ),
        (
            f"texts: {source}; median of {repeat} interleaved rounds "
            f"({info.get('clock', 'wall time')}); ratio = CPython time / utfkit time "
            "in the same round (> 1: utfkit faster)"
            if sweep
            else f"texts: {source}; best of {repeat} interleaved rounds "
            f"({info.get('clock', 'wall time')}); GB/s = bytes / seconds / 1e9; "
            "ratio = utfkit GB/s / CPython GB/s (> 1: utfkit faster)"
        ),
        "operations:",
        *legend(ops, sweep),
        "",
    ]


class Table:
    """Rows printed as they are measured, in fixed columns."""

    def __init__(self, out: TextIO, text_width: int, op_width: int = 11) -> None:
        self.out = out
        self.columns = (
            ("text", max(text_width, 4), "<"),
            ("bytes", 10, ">"),
            ("op", max(op_width, 2), "<"),
            ("utfkit GB/s", 11, ">"),
            ("CPython GB/s", 12, ">"),
            ("ratio", 7, ">"),
            ("read GB/s", 9, ">"),
            ("of read", 7, ">"),
        )

    def line(self, cells: Sequence[str]) -> str:
        parts = [
            f"{cell:{align}{width}}" for cell, (_, width, align) in zip(cells, self.columns)
        ]
        return "  ".join(parts).rstrip()

    def header(self) -> None:
        print(self.line([name for name, _, _ in self.columns]), file=self.out)
        print(self.line(["-" * width for _, width, _ in self.columns]), file=self.out)

    def row(self, result: Result) -> None:
        utfkit_gbps = result.utfkit_gbps
        ratio = result.ratio
        cells = [
            result.task.text,
            str(result.task.processed),
            result.task.op,
            "-" if utfkit_gbps is None else f"{utfkit_gbps:.2f}",
            f"{result.cpython_gbps:.2f}",
            "-" if ratio is None else f"{ratio:.2f}x",
            "" if result.baseline_gbps is None else f"{result.baseline_gbps:.2f}",
            "" if result.of_baseline is None else f"{result.of_baseline:.2f}",
        ]
        line = self.line(cells)
        if not result.task.agrees:
            line += f"   WRONG RESULT: {result.task.disagreement}"
        print(line, file=self.out, flush=True)


def per_item_ns(result: Result, measurement: Measurement) -> float:
    """Nanoseconds per call (small) or per string (many)."""
    items = MANY_COUNT if result.task.op == "many" else 1
    return measurement.best_ns / items


def print_small_results(results: Sequence[Result], out: TextIO) -> None:
    """The table of per-call (small) and per-string (many) times."""
    if not results:
        return
    print(file=out)
    print(
        "short inputs: small = utfkit.validate(b) vs b.decode(\"utf-8\"), floor b.isascii(), "
        "ns per call; many = utfkit.validate_many(items) vs a loop of b.decode, ns per string",
        file=out,
    )
    widths = (16, 5, 9, 10, 7, 10)
    print(
        f"{'input':<16}  {'op':<5}  {'utfkit ns':>9}  {'CPython ns':>10}  {'ratio':>7}  {'isascii ns':>10}",
        file=out,
    )
    print("  ".join("-" * width for width in widths), file=out)
    for result in results:
        if result.utfkit is None:  # a short-input task always has a utfkit call
            continue
        mine = per_item_ns(result, result.utfkit)
        theirs = per_item_ns(result, result.cpython)
        floor = "" if result.baseline is None else f"{per_item_ns(result, result.baseline):10.1f}"
        line = (f"{result.task.text:<16}  {result.task.op:<5}  {mine:9.1f}  {theirs:10.1f}  "
                f"{theirs / mine:6.2f}x  {floor:>10}")
        if not result.task.agrees:
            line += f"   WRONG RESULT: {result.task.disagreement}"
        print(line.rstrip(), file=out, flush=True)


def print_sweep(results: Sequence[Result], out: TextIO) -> None:
    """The ratios of a size sweep: a row per operation and size, a column
    per text, so that where utfkit overtakes CPython reads down a column.
    Operations without a utfkit call (the read baseline) are left out."""
    texts = list(dict.fromkeys(result.task.text for result in results))
    timed = {result.task.op for result in results if result.utfkit is not None}
    ops = [op for op in OPERATIONS if op in timed]
    sizes = sorted({result.size for result in results if result.size is not None})
    cells = {(result.task.op, result.size, result.task.text): result for result in results}
    op_width = max([len("op"), *map(len, ops)])
    size_width = max([len("size"), *(len(format_size(size)) for size in sizes)])
    widths = [max(len(text), 6) for text in texts]
    print(
        "  ".join(
            [f"{'op':<{op_width}}", f"{'size':>{size_width}}"]
            + [f"{text:>{width}}" for text, width in zip(texts, widths)]
        ),
        file=out,
    )
    print("  ".join("-" * width for width in (op_width, size_width, *widths)), file=out)
    for op in ops:
        for index, size in enumerate(sizes):
            row = [f"{op if index == 0 else '':<{op_width}}", f"{format_size(size):>{size_width}}"]
            for text, width in zip(texts, widths):
                result = cells.get((op, size, text))
                row.append(f"{_sweep_cell(result):>{width}}")
            print("  ".join(row).rstrip(), file=out)
    wrong = [result for result in results if not result.task.agrees]
    for result in wrong:
        print(f"WRONG RESULT: {result.task.disagreement}", file=out)


def _sweep_cell(result: Result | None) -> str:
    if result is None:
        return ""
    if not result.task.agrees:
        return "WRONG"
    ratio = result.median_ratio
    return "-" if ratio is None else f"{ratio:.2f}x"
