"""How ``utfkit bench`` shows its figures: the header and legend, the table
printed row by row as rows are measured, the short-input table, and the
JSON form of a result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

from .operations import DEFAULT_OPS, FORMS, TRANSCODE_OPERATIONS, UTF8_OPERATIONS
from .small import MANY_COUNT
from .timing import Measurement, Result, gbps

__all__ = [
    "Table",
    "header",
    "legend",
    "measurement_json",
    "per_item_ns",
    "print_small_results",
    "result_json",
]


def legend(ops: Sequence[str]) -> list[str]:
    """What the chosen operations compare: a line per UTF-8 operation, and
    the transcoding ones described once for every direction."""
    transcoding = [op for op in ops if op in TRANSCODE_OPERATIONS]
    width = 37 if transcoding else 24  # the longest call shown, so the "vs" line up
    lines = [
        f"  {op:<12} {mine:<{width}} vs {theirs}"
        for op, (mine, theirs) in UTF8_OPERATIONS.items()
        if op in ops
    ]
    if "validate" in ops:
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
    info: dict[str, Any], repeat: int, source: str, ops: Sequence[str] = DEFAULT_OPS
) -> list[str]:
    """The lines above the table: the machine, the settings, the legend."""
    return [
        f"utfkit bench: CPU {info['cpu']} ({info['cpu_count']} logical) | "
        f"{info['system']} {info['kernel']} | {info['python']} | "
        f"utfkit {info['utfkit']}, backend {info['backend']}"
        + (
            ""
            if info.get("validation_backend", info["backend"]) == info["backend"]
            else f" (validation: {info['validation_backend']}, measured faster here)"
        )
        + (
            ""
            if info.get("load_average_1min") is None
            else f" | load average {info['load_average_1min']:.2f} at start"
        ),
        (
            f"texts: {source}; best of {repeat} interleaved rounds "
            f"({info.get('clock', 'wall time')}); GB/s = bytes / seconds / 1e9; "
            "ratio = utfkit GB/s / CPython GB/s (> 1: utfkit faster)"
        ),
        "operations:",
        *legend(ops),
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


def measurement_json(measurement: Measurement | None, processed: int) -> dict[str, Any] | None:
    """One contender's figures, as ``--json`` gives them."""
    if measurement is None:
        return None
    return {
        "call": measurement.label,
        "loops": measurement.loops,
        "rounds": len(measurement.per_call_ns),
        "best_ns": measurement.best_ns,
        "median_ns": measurement.median_ns,
        "gbps": gbps(processed, measurement.best_ns),
        "median_gbps": gbps(processed, measurement.median_ns),
        "minor_faults_per_call": measurement.minor_faults_per_call,
    }


def result_json(result: Result) -> dict[str, Any]:
    """A row of the report, as ``--json`` gives it."""
    return {
        "text": result.task.text,
        "op": result.task.op,
        "bytes": result.task.processed,
        "utfkit": measurement_json(result.utfkit, result.task.processed),
        "cpython": measurement_json(result.cpython, result.task.processed),
        "errors": result.task.errors,
        "ratio": result.ratio,
        "read_baseline": measurement_json(result.baseline, result.task.processed),
        "of_read_baseline": result.of_baseline,
        "agrees": result.task.agrees,
        "disagreement": result.task.disagreement or None,
    }


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
        line = f"{result.task.text:<16}  {result.task.op:<5}  {mine:9.1f}  {theirs:10.1f}  {theirs / mine:6.2f}x  {floor:>10}"
        if not result.task.agrees:
            line += f"   WRONG RESULT: {result.task.disagreement}"
        print(line.rstrip(), file=out, flush=True)
