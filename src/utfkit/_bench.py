"""The engine of ``utfkit bench``: utfkit against CPython's own UTF-8 codec.

For each text (the generated corpus of :mod:`utfkit._corpus` by default, or
the ``*.txt`` files under ``--corpus DIR`` and a dirty variant of each), every
operation is timed against its CPython counterpart in the same run:

==============  ============================  ====================================
operation       utfkit                        CPython
==============  ============================  ====================================
``validate``    ``utfkit.validate(b)``        ``b.decode("utf-8")``
``count``       ``utfkit.count(b)``           ``len(b.decode("utf-8", "replace"))``
``replace``     ``utfkit.sanitize(b)``        ``b.decode("utf-8", "replace")``
``valid_up_to`` ``utfkit.valid_up_to(b)``     ``b.decode("utf-8")`` raising;
                                              ``UnicodeDecodeError.start``
``read``        --                            ``b.find(byte)`` of a byte absent
                                              from ``b``: memchr, the speed of
                                              reading the text at all
==============  ============================  ====================================

``validate`` and ``valid_up_to`` on a dirty text stop at its first
ill-formed subsequence, so their throughput is counted over the bytes up to
the end of it (the ``bytes`` column), not the whole text.  ``valid_up_to``
is timed on dirty texts only: on clean ones it is ``validate``.

Timing is built for a noisy machine: each contender runs a calibrated number
of calls per round (enough for a few milliseconds), the contenders take turns
round by round and swap which goes first on every round, so that drift in the
machine's speed (frequency scaling, neighbours) falls on both alike; the
table shows the best round, the JSON document also the median.  Before any
timing, each utfkit result is compared with CPython's; a disagreement is
reported, and makes the exit status 1.

GB/s = bytes / seconds / 1e9; ratio = utfkit GB/s / CPython GB/s, so a ratio
above 1 means utfkit is faster.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib.metadata
import itertools
import json
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import utfkit
from utfkit import _corpus

__all__ = [
    "Contender",
    "Measurement",
    "Result",
    "Task",
    "absent_byte",
    "add_arguments",
    "machine_info",
    "main",
    "measure",
    "parse_size",
    "tasks_for_text",
]

#: Default number of timed rounds per contender.
DEFAULT_REPEAT: int = 9

#: A round lasts at least this long (calls are repeated until it does), so
#: that the timer's resolution and the cost of the loop do not matter.
ROUND_TARGET_NS: int = 3_000_000

#: The operations, in the order rows are printed, with what each compares.
OPERATIONS: dict[str, tuple[str, str]] = {
    "validate": ("utfkit.validate(b)", 'b.decode("utf-8")'),
    "count": ("utfkit.count(b)", 'len(b.decode("utf-8", "replace"))'),
    "replace": ("utfkit.sanitize(b)", 'b.decode("utf-8", "replace")'),
    "valid_up_to": ("utfkit.valid_up_to(b)", 'b.decode("utf-8") raising, .start'),
    "read": ("-", "b.find(absent byte), the memchr baseline"),
}

# Bytes tried, in turn, as the absent byte of the read baseline: first those
# that never occur in UTF-8 (Table 3-7), then control characters.
_ABSENT_BYTE_CANDIDATES: tuple[int, ...] = (
    *range(0xFF, 0xF4, -1),
    0xC0,
    0xC1,
    *range(0x00, 0x20),
)


@dataclass(frozen=True)
class Contender:
    """One side of a comparison: a call with its arguments bound."""

    label: str
    call: Callable[[], object]


@dataclass(frozen=True)
class Task:
    """One operation on one text: utfkit's call, CPython's, and how many
    bytes each reads."""

    text: str
    op: str
    processed: int
    cpython: Contender
    utfkit: Contender | None
    agrees: bool
    disagreement: str = ""


@dataclass
class Measurement:
    """Per-call times of one contender, one entry per round."""

    label: str
    loops: int
    per_call_ns: list[float] = field(default_factory=list)

    @property
    def best_ns(self) -> float:
        return min(self.per_call_ns)

    @property
    def median_ns(self) -> float:
        return statistics.median(self.per_call_ns)


@dataclass(frozen=True)
class Result:
    """A row of the report."""

    task: Task
    cpython: Measurement
    utfkit: Measurement | None

    @property
    def cpython_gbps(self) -> float:
        return _gbps(self.task.processed, self.cpython.best_ns)

    @property
    def utfkit_gbps(self) -> float | None:
        if self.utfkit is None:
            return None
        return _gbps(self.task.processed, self.utfkit.best_ns)

    @property
    def ratio(self) -> float | None:
        if self.utfkit is None:
            return None
        return self.cpython.best_ns / self.utfkit.best_ns if self.utfkit.best_ns else None

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.task.text,
            "op": self.task.op,
            "bytes": self.task.processed,
            "utfkit": _measurement_json(self.utfkit, self.task.processed),
            "cpython": _measurement_json(self.cpython, self.task.processed),
            "ratio": self.ratio,
            "agrees": self.task.agrees,
            "disagreement": self.task.disagreement or None,
        }


def _gbps(processed: int, per_call_ns: float) -> float:
    """GB/s = bytes / seconds / 1e9, which is bytes per nanosecond."""
    return processed / per_call_ns if per_call_ns > 0 else float("inf")


def _measurement_json(measurement: Measurement | None, processed: int) -> dict[str, Any] | None:
    if measurement is None:
        return None
    return {
        "call": measurement.label,
        "loops": measurement.loops,
        "rounds": len(measurement.per_call_ns),
        "best_ns": measurement.best_ns,
        "median_ns": measurement.median_ns,
        "gbps": _gbps(processed, measurement.best_ns),
        "median_gbps": _gbps(processed, measurement.median_ns),
    }


# ---------------------------------------------------------------- tasks


def _decode_strict_error(data: bytes) -> UnicodeDecodeError | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error
    return None


def _first_error_start(data: bytes) -> int:
    """CPython's answer to valid_up_to: where strict decoding fails."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return len(data)


def _decode_fails(data: bytes) -> bool:
    """CPython's answer to validate on a dirty text: False, once decoding fails."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _cpython_count(data: bytes) -> int:
    return len(data.decode("utf-8", "replace"))


def absent_byte(data: bytes) -> bytes | None:
    """A byte that does not occur in ``data``, for the memchr read baseline:
    preferably one that never occurs in UTF-8 (FF, FE, ... F5, C0, C1), so
    that it is absent from every well-formed text; None if all 256 occur."""
    for candidate in _ABSENT_BYTE_CANDIDATES:
        needle = bytes((candidate,))
        if data.find(needle) < 0:
            return needle
    return None


def _compare(op: str, got: object, expected: object) -> tuple[bool, str]:
    if got == expected:
        return True, ""
    shown_got = repr(got) if not isinstance(got, bytes) else f"{len(got)} bytes"
    shown_expected = (
        repr(expected) if not isinstance(expected, bytes) else f"{len(expected)} bytes"
    )
    return False, f"{op}: utfkit gives {shown_got}, CPython {shown_expected}"


def tasks_for_text(name: str, data: bytes) -> list[Task]:
    """The operations timed on one text, each checked against CPython first.

    Which operations apply depends on whether CPython decodes ``data``: a
    clean text gets validate, count, replace and read; a dirty one replace,
    count, validate and valid_up_to (both up to the first error) and read.
    """
    error = _decode_strict_error(data)
    tasks: list[Task] = []

    def add(
        op: str,
        processed: int,
        utfkit_call: Callable[[], object] | None,
        cpython_call: Callable[[], object],
        expected: object = None,
    ) -> None:
        utfkit_label, cpython_label = OPERATIONS[op]
        agrees, disagreement = True, ""
        if utfkit_call is not None:
            try:
                got = utfkit_call()
            except Exception as exc:  # reported as a wrong result, not timed
                agrees = False
                disagreement = f"{op}: utfkit raised {type(exc).__name__}: {exc}"
                utfkit_call = None
            else:
                agrees, disagreement = _compare(op, got, expected)
        tasks.append(
            Task(
                text=name,
                op=op,
                processed=processed,
                cpython=Contender(cpython_label, cpython_call),
                utfkit=None if utfkit_call is None else Contender(utfkit_label, utfkit_call),
                agrees=agrees,
                disagreement=f"{name} {disagreement}" if disagreement else "",
            )
        )

    replaced = data.decode("utf-8", "replace")
    if error is None:
        add(
            "validate",
            len(data),
            functools.partial(utfkit.validate, data),
            functools.partial(data.decode, "utf-8"),
            expected=True,
        )
    add(
        "count",
        len(data),
        functools.partial(utfkit.count, data),
        functools.partial(_cpython_count, data),
        expected=len(replaced),
    )
    add(
        "replace",
        len(data),
        functools.partial(utfkit.sanitize, data),
        functools.partial(data.decode, "utf-8", "replace"),
        expected=replaced.encode("utf-8"),
    )
    if error is not None:
        add(
            "validate",
            error.end,
            functools.partial(utfkit.validate, data),
            functools.partial(_decode_fails, data),
            expected=False,
        )
        add(
            "valid_up_to",
            error.end,
            functools.partial(utfkit.valid_up_to, data),
            functools.partial(_first_error_start, data),
            expected=error.start,
        )
    absent = absent_byte(data)
    if absent is not None:
        add("read", len(data), None, functools.partial(data.find, absent))
    return tasks


# ---------------------------------------------------------------- timing


def _time_calls(call: Callable[[], object], loops: int) -> int:
    """Nanoseconds ``loops`` calls take."""
    repeat = itertools.repeat(None, loops)
    start = time.perf_counter_ns()
    for _ in repeat:
        call()
    return time.perf_counter_ns() - start


def _calibrate(call: Callable[[], object], target_ns: int) -> int:
    """Calls per round so that a round takes at least ``target_ns``."""
    loops = 1
    while True:
        elapsed = _time_calls(call, loops)
        if elapsed >= target_ns:
            return loops
        # Aim 20 % past the target, at least doubling, as timeit.autorange does.
        scale = target_ns * 1.2 / elapsed if elapsed > 0 else 10.0
        loops = max(loops * 2, int(loops * scale))


def measure(task: Task, repeat: int, target_ns: int = ROUND_TARGET_NS) -> Result:
    """Times the contenders of ``task`` in ``repeat`` interleaved rounds."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    contenders = [task.cpython] if task.utfkit is None else [task.utfkit, task.cpython]
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        measurements = [
            Measurement(contender.label, _calibrate(contender.call, target_ns))
            for contender in contenders
        ]
        pairs = list(zip(contenders, measurements))
        for round_number in range(repeat):
            # Swap who goes first every round, so neither always runs on the
            # heels of the other (warm caches, turbo budget spent).
            order = pairs if round_number % 2 == 0 else pairs[::-1]
            for contender, measurement in order:
                elapsed = _time_calls(contender.call, measurement.loops)
                measurement.per_call_ns.append(elapsed / measurement.loops)
    finally:
        if gc_was_enabled:
            gc.enable()
    if task.utfkit is None:
        return Result(task, cpython=measurements[0], utfkit=None)
    return Result(task, cpython=measurements[1], utfkit=measurements[0])


# ---------------------------------------------------------------- reporting


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _utfkit_version() -> str:
    version = getattr(utfkit, "__version__", None)
    if isinstance(version, str):
        return version
    try:
        return importlib.metadata.version("utfkit")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    return {
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "system": platform.system(),
        "kernel": platform.release(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "utfkit": _utfkit_version(),
        "backend": utfkit.backend(),
    }


def _header(info: dict[str, Any], repeat: int, source: str) -> list[str]:
    legend = [f"  {op:<12} {mine:<24} vs {theirs}" for op, (mine, theirs) in OPERATIONS.items()]
    return [
        f"utfkit bench: CPU {info['cpu']} ({info['cpu_count']} logical) | "
        f"{info['system']} {info['kernel']} | {info['python']} | "
        f"utfkit {info['utfkit']}, backend {info['backend']}",
        f"texts: {source}; best of {repeat} interleaved rounds; "
        "GB/s = bytes / seconds / 1e9; ratio = utfkit GB/s / CPython GB/s (> 1: utfkit faster)",
        "operations:",
        *legend,
        "  validate and valid_up_to on a -dirty text stop at its first error: "
        "bytes = the prefix read",
        "",
    ]


class _Table:
    """Rows printed as they are measured, in fixed columns."""

    def __init__(self, out: TextIO, text_width: int) -> None:
        self.out = out
        self.columns = (
            ("text", max(text_width, 4), "<"),
            ("bytes", 10, ">"),
            ("op", 11, "<"),
            ("utfkit GB/s", 11, ">"),
            ("CPython GB/s", 12, ">"),
            ("ratio", 7, ">"),
        )

    def _line(self, cells: Sequence[str]) -> str:
        parts = [
            f"{cell:{align}{width}}" for cell, (_, width, align) in zip(cells, self.columns)
        ]
        return "  ".join(parts).rstrip()

    def header(self) -> None:
        print(self._line([name for name, _, _ in self.columns]), file=self.out)
        print(self._line(["-" * width for _, width, _ in self.columns]), file=self.out)

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
        ]
        line = self._line(cells)
        if not result.task.agrees:
            line += f"   WRONG RESULT: {result.task.disagreement}"
        print(line, file=self.out, flush=True)


# ---------------------------------------------------------------- command line


_SIZE_PATTERN = re.compile(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*", re.IGNORECASE)


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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``utfkit bench``."""
    parser.description = (
        "Time utfkit's UTF-8 validation, counting and repair against CPython's own "
        "codec (bytes.decode) on the same texts, interleaved, and print GB/s and ratios."
    )
    parser.add_argument(
        "--corpus",
        metavar="DIR",
        dest="corpus",
        default=None,
        help="time the *.txt files under DIR (recursively, each at most 256 MiB) and a "
        "dirty variant of each, instead of the generated texts",
    )
    parser.add_argument(
        "--json",
        dest="json",
        action="store_true",
        help="print one JSON document with the machine, the settings and every "
        "measurement, instead of the table",
    )
    parser.add_argument(
        "--size",
        metavar="BYTES",
        dest="size",
        type=parse_size,
        default=_corpus.DEFAULT_SIZE,
        help="size of each generated text, e.g. 65536, 64K, 16M (default 1M); "
        "ignored with --corpus",
    )
    parser.add_argument(
        "--repeat",
        metavar="N",
        dest="repeat",
        type=_positive_int,
        default=DEFAULT_REPEAT,
        help=f"timed rounds per contender, best one reported (default {DEFAULT_REPEAT})",
    )
    parser.add_argument(
        "--backend",
        metavar="NAME",
        dest="backend",
        default=None,
        help="run utfkit with this kernel (scalar, sse2, avx2, avx512) instead of the "
        "best one for this CPU",
    )


def _load_texts(corpus: str | None, size: int) -> tuple[dict[str, bytes], str]:
    if corpus is None:
        texts = {name: _corpus.generate(name, size) for name in _corpus.all_names()}
        return texts, f"generated, {size} bytes each (dirty: one error per KiB)"
    loaded = _corpus.load_dir(corpus)
    if not loaded:
        raise FileNotFoundError(f"no *.txt files of at most 256 MiB under {corpus!r}")
    clean: dict[str, bytes] = {}
    dirty: dict[str, bytes] = {}
    for name, data in loaded.items():
        if _decode_strict_error(data) is None:
            clean[name] = data
            dirty[name + _corpus.DIRTY_SUFFIX] = _corpus.dirty(data)
        else:
            # Already ill-formed: it is timed as found, as a dirty text.
            dirty[name] = data
    return {**clean, **dirty}, f"{corpus} ({len(loaded)} files; dirty: one error per KiB)"


def _error(message: str) -> int:
    print(f"utfkit bench: error: {message}", file=sys.stderr)
    return 2


def _select_backend(name: str | None) -> None:
    if name is None:
        return
    from utfkit import _core

    _core.set_backend(name)


def run(
    texts: dict[str, bytes],
    repeat: int,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Measures every task of every text, calling ``on_result`` after each."""
    results: list[Result] = []
    for name, data in texts.items():
        for task in _ordered(tasks_for_text(name, data)):
            result = measure(task, repeat)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def _ordered(tasks: Iterable[Task]) -> list[Task]:
    order = list(OPERATIONS)
    return sorted(tasks, key=lambda task: order.index(task.op))


def main(args: argparse.Namespace) -> int:
    """Runs ``utfkit bench``; returns the exit status: 0, 1 if a utfkit result
    disagreed with CPython's, 2 for a usage or I/O error."""
    try:
        _select_backend(args.backend)
    except ValueError as error:
        return _error(f"--backend {args.backend}: {error}")
    try:
        texts, source = _load_texts(args.corpus, args.size)
    except OSError as error:
        return _error(str(error))
    info = machine_info()
    out = sys.stdout

    if args.json:
        results = run(texts, args.repeat)
        document = {
            "machine": info,
            "settings": {
                "texts": source,
                "corpus": args.corpus,
                "size": None if args.corpus else args.size,
                "repeat": args.repeat,
                "round_target_ns": ROUND_TARGET_NS,
                "statistic": "best round; median also given",
                "gbps": "bytes / seconds / 1e9",
                "ratio": "utfkit GB/s / CPython GB/s",
            },
            "operations": {
                op: {"utfkit": mine, "cpython": theirs}
                for op, (mine, theirs) in OPERATIONS.items()
            },
            "texts": {name: len(data) for name, data in texts.items()},
            "results": [result.to_json() for result in results],
            "disagreements": sum(not result.task.agrees for result in results),
        }
        json.dump(document, out, indent=2)
        out.write("\n")
    else:
        for line in _header(info, args.repeat, source):
            print(line, file=out)
        table = _Table(out, max(len(name) for name in texts))
        table.header()
        results = run(texts, args.repeat, on_result=table.row)

    wrong = [result.task.disagreement for result in results if not result.task.agrees]
    for disagreement in wrong:
        print(f"utfkit bench: WRONG RESULT on {disagreement}", file=sys.stderr)
    return 1 if wrong else 0


def _standalone(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="utfkit bench")
    add_arguments(parser)
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(_standalone())
