"""The engine of ``utfkit bench``: utfkit against CPython's own codecs.

For each text (the generated corpus of :mod:`utfkit._corpus` by default, or
the ``*.txt`` files under ``--corpus DIR`` and a dirty variant of each), every
operation chosen with ``--ops`` is timed against its CPython counterpart in
the same run.  The UTF-8 operations:

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

The transcoding operations, one pair per direction of :data:`DIRECTIONS`
(UTF-8, UTF-16-LE and UTF-32-LE to each other), named ``A>B`` from the
short names of :data:`FORMS` (``utf8>utf16le``):

=================  ======================================  ==========================
operation          utfkit                                  CPython
=================  ======================================  ==========================
``A>B``            ``utfkit.transcode(b, A, B, E)``        ``b.decode(A, E).encode(B)``
``A>B out=``       ``utfkit.transcode(b, A, B, E,          ``b.decode(A, E).encode(B)``
                   out=buf)``
=================  ======================================  ==========================

``E`` is ``"strict"`` on clean texts and ``"replace"`` on dirty ones.  ``b``
is the text in form ``A``: the UTF-8 text itself, or the clean text
re-encoded by CPython, with (for a dirty text) one unpaired surrogate or
invalid UTF-32 unit inserted per KiB (:meth:`utfkit._corpus.Text.encoded`).
GB/s count the INPUT bytes, ``len(b)``.  ``A>B`` returns a new ``bytes``, so
it pays for its output's memory, as CPython's decode + encode pays for a
``str`` and a ``bytes``; memory the allocator takes fresh from the kernel
page-faults on first touch, a large part of the cost for outputs of 128 KiB
and more when it happens.  ``A>B out=`` writes into ``buf``, one
``bytearray`` of exactly the output's length made once and reused by every
call, which shows the conversion alone.  ``--json`` gives, per contender,
the minor page faults per call during the timed rounds.

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
import dataclasses
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

try:  # Unix only: the page faults a contender causes, reported in --json
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None  # type: ignore[assignment]

import utfkit
from utfkit import _corpus
from utfkit._kernels import backend_of as _core_backend_of

__all__ = [
    "DIRECTIONS",
    "FORMS",
    "OPERATIONS",
    "OP_GROUPS",
    "Contender",
    "Measurement",
    "Result",
    "Task",
    "absent_byte",
    "add_arguments",
    "machine_info",
    "main",
    "measure",
    "parse_ops",
    "parse_size",
    "tasks_for_text",
    "transcode_tasks",
]

#: Default number of timed rounds per contender.
DEFAULT_REPEAT: int = 9

#: A round lasts at least this long (calls are repeated until it does), so
#: that the timer's resolution and the cost of the loop do not matter.
ROUND_TARGET_NS: int = 3_000_000

#: The UTF-8 operations, in the order rows are printed, with what each compares.
UTF8_OPERATIONS: dict[str, tuple[str, str]] = {
    "validate": ("utfkit.validate(b)", 'b.decode("utf-8")'),
    "count": ("utfkit.count(b)", 'len(b.decode("utf-8", "replace"))'),
    "replace": ("utfkit.sanitize(b)", 'b.decode("utf-8", "replace")'),
    "valid_up_to": ("utfkit.valid_up_to(b)", 'b.decode("utf-8") raising, .start'),
    "decode": ("utfkit.decode(b, errors=E)", 'b.decode("utf-8", E)'),
    "read": ("-", "b.find(absent byte), the memchr baseline"),
    # Short inputs (utfkit._bench_small), timed once per run, not per text:
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


def _direction_name(source: str, target: str) -> str:
    return f"{source}>{target}"


def _transcode_operations() -> dict[str, tuple[str, str]]:
    operations: dict[str, tuple[str, str]] = {}
    for source, target in DIRECTIONS:
        src, dst = FORMS[source], FORMS[target]
        cpython = f'b.decode("{src}", E).encode("{dst}")'
        name = _direction_name(source, target)
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
        _direction_name(source, target): (
            _direction_name(source, target),
            _direction_name(source, target) + OUT_SUFFIX,
        )
        for source, target in DIRECTIONS
    },
}

#: The operations a run without ``--ops`` times.
DEFAULT_OPS: tuple[str, ...] = OP_GROUPS["all"]

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
    errors: str | None = None  # the error handler of a transcoding operation
    # Timed in the same interleaved rounds: the read baseline (memchr of an
    # absent byte over the same bytes), where the task has one.
    baseline: Contender | None = None


@dataclass
class Measurement:
    """Per-call times of one contender, one entry per round."""

    label: str
    loops: int
    per_call_ns: list[float] = field(default_factory=list)
    # Minor page faults (memory the kernel maps on first touch) during the
    # timed rounds; None where the platform cannot count them.
    minor_faults: int | None = 0

    @property
    def minor_faults_per_call(self) -> float | None:
        if self.minor_faults is None or not self.per_call_ns:
            return None
        return self.minor_faults / (self.loops * len(self.per_call_ns))

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
    baseline: Measurement | None = None

    @property
    def baseline_gbps(self) -> float | None:
        if self.baseline is None:
            return None
        return _gbps(self.task.processed, self.baseline.best_ns)

    @property
    def of_baseline(self) -> float | None:
        """utfkit's speed as a fraction of the read baseline's, same rounds."""
        if self.baseline is None or self.utfkit is None or not self.utfkit.best_ns:
            return None
        return self.baseline.best_ns / self.utfkit.best_ns

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
            "errors": self.task.errors,
            "ratio": self.ratio,
            "read_baseline": _measurement_json(self.baseline, self.task.processed),
            "of_read_baseline": self.of_baseline,
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
        "minor_faults_per_call": measurement.minor_faults_per_call,
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


def _shown(value: object) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"{len(value)} bytes"
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _compare(op: str, got: object, expected: object) -> str:
    """"" when ``got`` equals ``expected`` and has its type, else what differs."""
    if type(got) is not type(expected):
        return (
            f"{op}: utfkit gives a {type(got).__name__} ({_shown(got)}), "
            f"CPython a {type(expected).__name__} ({_shown(expected)})"
        )
    if got == expected:
        return ""
    if isinstance(got, bytes) and isinstance(expected, bytes):
        differs_at = next(
            (i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
            min(len(got), len(expected)),
        )
        return (
            f"{op}: utfkit gives {_shown(got)}, CPython {_shown(expected)}, "
            f"first difference at byte {differs_at}"
        )
    return f"{op}: utfkit gives {_shown(got)}, CPython {_shown(expected)}"


Verdict = Callable[[object], str]


def _equals(op: str, expected: object) -> Verdict:
    return lambda got: _compare(op, got, expected)


def _make_task(
    name: str,
    op: str,
    processed: int,
    utfkit_call: Callable[[], object] | None,
    cpython_call: Callable[[], object],
    verdict: Verdict | None = None,
    errors: str | None = None,
) -> Task:
    """A task whose utfkit call has been run once and judged by ``verdict``
    (what differs from CPython's answer, or ""); a call that raises or gives
    a wrong answer is reported and not timed."""
    utfkit_label, cpython_label = OPERATIONS[op]
    disagreement = ""
    if utfkit_call is not None and verdict is not None:
        try:
            got = utfkit_call()
        except Exception as exc:  # reported as a wrong result, not timed
            disagreement = f"{op}: utfkit raised {type(exc).__name__}: {exc}"
        else:
            disagreement = verdict(got)
        if disagreement:
            utfkit_call = None
    return Task(
        text=name,
        op=op,
        processed=processed,
        cpython=Contender(cpython_label, cpython_call),
        utfkit=None if utfkit_call is None else Contender(utfkit_label, utfkit_call),
        agrees=not disagreement,
        disagreement=f"{name} {disagreement}" if disagreement else "",
        errors=errors,
    )


def tasks_for_text(name: str, data: bytes, ops: Iterable[str] = DEFAULT_OPS) -> list[Task]:
    """The UTF-8 operations among ``ops`` timed on one text, each checked
    against CPython first.

    Which operations apply depends on whether CPython decodes ``data``: a
    clean text gets validate, count, replace and read; a dirty one replace,
    count, validate and valid_up_to (both up to the first error) and read.
    """
    wanted = set(ops) - set(SHORT_INPUT_OPERATIONS)
    if not wanted & set(UTF8_OPERATIONS):
        return []
    error = _decode_strict_error(data)
    tasks: list[Task] = []

    def add(
        op: str,
        processed: int,
        utfkit_call: Callable[[], object] | None,
        cpython_call: Callable[[], object],
        expected: object = None,
    ) -> None:
        if op in wanted:
            verdict = None if utfkit_call is None else _equals(op, expected)
            tasks.append(_make_task(name, op, processed, utfkit_call, cpython_call, verdict))

    absent = absent_byte(data)
    if error is None:
        add(
            "validate",
            len(data),
            functools.partial(utfkit.validate, data),
            functools.partial(data.decode, "utf-8"),
            expected=True,
        )
        if tasks and tasks[-1].op == "validate" and absent is not None:
            tasks[-1] = dataclasses.replace(
                tasks[-1], baseline=Contender("read", functools.partial(data.find, absent))
            )
    if wanted & {"count", "replace"}:
        replaced = data.decode("utf-8", "replace")
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
    if "decode" in wanted:
        errors = "strict" if error is None else "replace"
        add(
            "decode",
            len(data),
            functools.partial(utfkit.decode, data, "utf-8", errors),
            functools.partial(data.decode, "utf-8", errors),
            expected=data.decode("utf-8", errors),
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
    if "read" in wanted:
        if absent is not None:
            add("read", len(data), None, functools.partial(data.find, absent))
    return tasks


def _cpython_transcode(data: bytes, source: str, target: str, errors: str) -> bytes:
    return data.decode(source, errors).encode(target)


def _length_problem(op: str, data: bytes, source: str, target: str, errors: str,
                    expected: bytes) -> str:
    """What is wrong with ``utfkit.transcoded_length`` for this conversion, or ""."""
    try:
        length = utfkit.transcoded_length(data, source, target, errors)
    except Exception as exc:
        return f"{op}: utfkit.transcoded_length raised {type(exc).__name__}: {exc}"
    if length != len(expected):
        return f"{op}: utfkit.transcoded_length gives {length}, CPython's output has {len(expected)}"
    return ""


def _written_into(op: str, buffer: bytearray, expected: bytes, length_problem: str) -> Verdict:
    """Judges a ``transcode(..., out=buffer)`` call: it must return the
    output's length and have written CPython's bytes into ``buffer``; and
    ``transcoded_length`` must have been right (``length_problem`` is "")."""

    def verdict(got: object) -> str:
        if type(got) is not int or got != len(expected):
            return (
                f"{op}: utfkit returns a {type(got).__name__} ({_shown(got)}) as the "
                f"number of bytes written, CPython's output has {len(expected)}"
            )
        return length_problem or _compare(op, bytes(buffer), expected)

    return verdict


def transcode_tasks(text: _corpus.Text, ops: Iterable[str] = DEFAULT_OPS) -> list[Task]:
    """The transcoding operations among ``ops`` timed on one text, each
    checked against CPython's ``decode(...).encode(...)`` first: ``strict``
    on a clean text, ``replace`` on a dirty one."""
    wanted = set(ops)
    errors = "replace" if text.is_dirty else "strict"
    encoded: dict[str, bytes] = {}
    tasks: list[Task] = []
    for source, target in DIRECTIONS:
        name = _direction_name(source, target)
        out_name = name + OUT_SUFFIX
        if not wanted & {name, out_name}:
            continue
        src, dst = FORMS[source], FORMS[target]
        if source not in encoded:
            encoded[source] = text.encoded(src)
        data = encoded[source]
        expected = _cpython_transcode(data, src, dst, errors)
        cpython_call = functools.partial(_cpython_transcode, data, src, dst, errors)
        if name in wanted:
            tasks.append(
                _make_task(
                    text.name,
                    name,
                    len(data),
                    functools.partial(utfkit.transcode, data, src, dst, errors),
                    cpython_call,
                    _equals(name, expected),
                    errors,
                )
            )
        if out_name in wanted:
            # Filled with a byte that is not 0, so that bytes left unwritten show.
            buffer = bytearray(b"\xa5") * len(expected)
            length_problem = _length_problem(out_name, data, src, dst, errors, expected)
            tasks.append(
                _make_task(
                    text.name,
                    out_name,
                    len(data),
                    functools.partial(utfkit.transcode, data, src, dst, errors, out=buffer),
                    cpython_call,
                    _written_into(out_name, buffer, expected, length_problem),
                    errors,
                )
            )
    return tasks


# ---------------------------------------------------------------- timing


#: The clock rounds are timed with: wall time by default; ``--cpu-time``
#: switches to the thread's CPU time, which leaves out the time the thread
#: spends descheduled when other processes share the cores.
_clock: Callable[[], int] = time.perf_counter_ns


def use_cpu_time(enabled: bool) -> None:
    """Time rounds by this thread's CPU time (True) or by wall time (False)."""
    global _clock
    _clock = time.thread_time_ns if enabled else time.perf_counter_ns


def _time_calls(call: Callable[[], object], loops: int) -> int:
    """Nanoseconds ``loops`` calls take."""
    repeat = itertools.repeat(None, loops)
    clock = _clock
    start = clock()
    for _ in repeat:
        call()
    return clock() - start


def _minor_faults() -> int | None:
    if resource is None:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


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
    if task.baseline is not None:
        contenders.append(task.baseline)
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
                faults_before = _minor_faults()
                elapsed = _time_calls(contender.call, measurement.loops)
                faults_after = _minor_faults()
                measurement.per_call_ns.append(elapsed / measurement.loops)
                if faults_before is None or faults_after is None:
                    measurement.minor_faults = None
                elif measurement.minor_faults is not None:
                    measurement.minor_faults += faults_after - faults_before
    finally:
        if gc_was_enabled:
            gc.enable()
    baseline = measurements[-1] if task.baseline is not None else None
    if task.utfkit is None:
        return Result(task, cpython=measurements[0], utfkit=None, baseline=baseline)
    return Result(task, cpython=measurements[1], utfkit=measurements[0], baseline=baseline)


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
        "validation_backend": _core_backend_of("validate"),
        "load_average_1min": _load_average(),
    }


def _load_average() -> float | None:
    """The 1-minute load average at the start: above ~0.5 on an idle-looking
    machine, something else is running and the numbers are noisier."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # not on Windows
        return None


def _legend(ops: Sequence[str]) -> list[str]:
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
            f"  {'A>B out=':<12} {'utfkit.transcode(b, A, B, E, out=buf)':<{width}} vs the same; "
            "buf: one bytearray of the output's length, reused by every call",
            f"  A, B: {forms}; E = strict on clean texts, replace on -dirty ones",
            "  bytes = the INPUT's length; a -dirty UTF-16/UTF-32 input is the clean text "
            "re-encoded, with one unpaired surrogate / invalid unit per KiB",
            "  A>B returns a new bytes and pays for its memory (page faults of fresh pages "
            "included: --json gives minor_faults_per_call); A>B out= is the conversion alone",
        ]
    return lines


def _header(
    info: dict[str, Any], repeat: int, source: str, ops: Sequence[str] = DEFAULT_OPS
) -> list[str]:
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
        f"texts: {source}; best of {repeat} interleaved rounds ({info.get('clock', 'wall time')}); "
        "GB/s = bytes / seconds / 1e9; ratio = utfkit GB/s / CPython GB/s (> 1: utfkit faster)",
        "operations:",
        *_legend(ops),
        "",
    ]


class _Table:
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
            "" if result.baseline_gbps is None else f"{result.baseline_gbps:.2f}",
            "" if result.of_baseline is None else f"{result.of_baseline:.2f}",
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``utfkit bench``."""
    parser.description = (
        "Time utfkit's UTF-8 validation, counting and repair, and its transcoding "
        "between UTF-8, UTF-16-LE and UTF-32-LE, against CPython's own codecs "
        "(bytes.decode, str.encode) on the same texts, interleaved, and print GB/s "
        "and ratios."
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
        "--ops",
        metavar="GROUPS",
        dest="ops",
        type=parse_ops,
        default=DEFAULT_OPS,
        help="comma-separated operation groups to time: validate (validate, "
        "valid_up_to), count, replace, decode (to str; E = strict on clean texts, "
        "replace on dirty ones), read (UTF-8), small (validate on 16 B to 1 KiB, "
        "per call), many (validate_many on 10,000 strings), transcode (every direction, "
        "allocating and out=), a single direction such as 'utf8>utf16le' (quote the "
        "'>' in a shell), or all (default: all)",
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
        "--cpu-time",
        dest="cpu_time",
        action="store_true",
        help="time by the thread's CPU time instead of wall time, so that time spent "
        "descheduled (other processes on the same cores) does not count; page faults "
        "and cache misses still do",
    )
    parser.add_argument(
        "--backend",
        metavar="NAME",
        dest="backend",
        default=None,
        help="run utfkit with this kernel (scalar, sse2, sse4, avx2, avx512, neon) instead "
        "of the best one for this CPU",
    )


def _load_texts(corpus: str | None, size: int) -> tuple[list[_corpus.Text], str]:
    if corpus is None:
        texts = [_corpus.generated_text(name, size) for name in _corpus.all_names()]
        return texts, f"generated, {size} bytes of UTF-8 each (dirty: one error per KiB)"
    # Each file, then a dirty variant of each; a file already ill-formed is
    # timed as found, as a dirty text.
    texts = _corpus.corpus_texts(corpus)
    files = len({text.path for text in texts})
    return texts, f"{corpus} ({files} files; dirty: one error per KiB)"


def _error(message: str) -> int:
    print(f"utfkit bench: error: {message}", file=sys.stderr)
    return 2


def _select_backend(name: str | None) -> None:
    if name is None:
        return
    from utfkit import _kernels as _core

    _core.set_backend(name)


def run(
    texts: Sequence[_corpus.Text],
    repeat: int,
    on_result: Callable[[Result], None] | None = None,
    ops: Sequence[str] = DEFAULT_OPS,
) -> list[Result]:
    """Measures every chosen operation on every text, calling ``on_result``
    after each.  The tasks of one text are made (and checked) just before
    they are timed, so only one text's inputs and outputs are held at once."""
    results: list[Result] = []
    for text in texts:
        tasks = tasks_for_text(text.name, text.utf8, ops) + transcode_tasks(text, ops)
        for task in _ordered(tasks):
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
    ops: Sequence[str] = getattr(args, "ops", None) or DEFAULT_OPS
    use_cpu_time(bool(getattr(args, "cpu_time", False)))
    info = machine_info()
    info["clock"] = "thread CPU time" if getattr(args, "cpu_time", False) else "wall time"
    out = sys.stdout

    from utfkit._bench_small import print_small_results, run_small

    if args.json:
        results = run(texts, args.repeat, ops=ops) + run_small(ops, args.repeat)
        document = {
            "machine": info,
            "settings": {
                "texts": source,
                "corpus": args.corpus,
                "size": None if args.corpus else args.size,
                "ops": list(ops),
                "repeat": args.repeat,
                "round_target_ns": ROUND_TARGET_NS,
                "statistic": "best round; median also given",
                "gbps": "bytes / seconds / 1e9, bytes of the input",
                "ratio": "utfkit GB/s / CPython GB/s",
                "errors": "transcoding: strict on clean texts, replace on dirty ones",
                "out": "transcoding 'out=': one bytearray of the output's length, reused",
            },
            "operations": {
                op: {"utfkit": mine, "cpython": theirs}
                for op, (mine, theirs) in OPERATIONS.items()
                if op in ops
            },
            "texts": {
                text.name: {"utf8_bytes": len(text.utf8), "dirty": text.is_dirty, "path": text.path}
                for text in texts
            },
            "results": [result.to_json() for result in results],
            "disagreements": sum(not result.task.agrees for result in results),
        }
        json.dump(document, out, indent=2)
        out.write("\n")
    else:
        for line in _header(info, args.repeat, source, ops):
            print(line, file=out)
        if set(ops) - set(SHORT_INPUT_OPERATIONS):
            table = _Table(out, max(len(text.name) for text in texts), max(len(op) for op in ops))
            table.header()
            results = run(texts, args.repeat, on_result=table.row, ops=ops)
        else:
            results = []
        short_results = run_small(ops, args.repeat)
        print_small_results(short_results, out)
        results += short_results

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
