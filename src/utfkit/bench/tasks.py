"""The tasks ``utfkit bench`` times: one operation on one text, utfkit's
call and CPython's bound to their arguments, checked against each other
before any timing (a utfkit result that differs is reported, not timed).

Which operations apply to a text depends on whether CPython decodes it:
a clean UTF-8 text gets validate, count, replace, decode and read; a dirty
one replace, count, decode, and validate and valid_up_to counted up to the
end of its first error (they stop there).  Transcoding uses ``strict`` on a
clean text and ``replace`` on a dirty one.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import utfkit

from .corpus import Text
from .operations import (
    DEFAULT_OPS,
    DIRECTIONS,
    FORMS,
    OPERATIONS,
    OUT_SUFFIX,
    SHORT_INPUT_OPERATIONS,
    UTF8_OPERATIONS,
    direction_name,
)

__all__ = ["Contender", "Task", "Verdict", "absent_byte", "tasks_for_text", "transcode_tasks"]

# Bytes tried, in turn, as the absent byte of the read baseline: first those
# that never occur in UTF-8 (Table 3-7), then control characters.
_ABSENT_BYTE_CANDIDATES: tuple[int, ...] = (
    *range(0xFF, 0xF4, -1),
    0xC0,
    0xC1,
    *range(0x20),
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
        except Exception as exc:
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
    if "read" in wanted and absent is not None:
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


def transcode_tasks(text: Text, ops: Iterable[str] = DEFAULT_OPS) -> list[Task]:
    """The transcoding operations among ``ops`` timed on one text, each
    checked against CPython's ``decode(...).encode(...)`` first: ``strict``
    on a clean text, ``replace`` on a dirty one."""
    wanted = set(ops)
    errors = "replace" if text.is_dirty else "strict"
    encoded: dict[str, bytes] = {}
    tasks: list[Task] = []
    for source, target in DIRECTIONS:
        name = direction_name(source, target)
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
