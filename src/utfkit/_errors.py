"""Errors as data: every ill-formed subsequence of a buffer, in order.

``iter_errors`` reads the input with the core's first-error check
(``utfkit_check``, the active kernel), resuming right after each ill-formed
subsequence -- where CPython's decoder resumes after calling an error handler
-- so the input is read once, never again from its start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, NamedTuple

from ._binding import UTF8_FAMILY, UTFE8_FORMS, decode_error, ffi, input_view, lib, lookup, reason, release

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["IllFormed", "iter_errors"]


class IllFormed(NamedTuple):
    """One ill-formed subsequence: bytes ``start`` to ``end`` of the input,
    and the reason CPython's decoder gives for it (utfkit's words for WTF-8,
    CESU-8 and MUTF-8)."""

    start: int
    end: int
    reason: str


def iter_errors(data: "Buffer", encoding: str = "utf-8") -> Iterator[IllFormed]:
    """Every ill-formed subsequence of `data` in `encoding`, in order: the
    positions and reasons CPython's decoder passes to an error handler
    (``UnicodeDecodeError.start/end/reason``), for the UTF-8 relatives those
    ``utfkit.decode`` passes.  The arguments are checked at the call; the
    input is read as the iterator advances, and must not change meanwhile."""
    known = lookup(encoding, "iter_errors")
    source = input_view(data, "iter_errors")
    release(source)  # TypeError/BufferError now, not at the first next()
    return _errors(data, known.name, known.form)


def _errors(data: object, name: str, form: int) -> Iterator[IllFormed]:
    source = ffi.from_buffer("uint8_t[]", data)
    check = lib.utfkit_check
    needs_unit = name.startswith("utf-16") or name in UTF8_FAMILY or name in UTFE8_FORMS
    try:
        length = len(source)
        position = 0
        while position < length:
            found = check(source + position, length - position, form)
            if found.status == lib.UTFKIT_OK:
                return
            start = position + found.position
            end = start + found.subpart_length
            if needs_unit:  # the code unit or surrogate the reason depends on
                around = ffi.buffer(source + start, min(4, length - start))[:]
                why = decode_error(around, name, found.status, 0, found.subpart_length).reason
            else:
                why = reason(found.status, name, 0, found.subpart_length)
            yield IllFormed(start, end, why)
            position = end
    finally:
        ffi.release(source)
