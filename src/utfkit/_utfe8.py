"""UTF-E-8 (seed 002) and the original ISO 10646 / RFC 2279 UTF-8 (seed
004) on the Python side: code points 0 .. limit to bytes and back
(``utfe8_encode``, ``utfe8_decode``), and ``str`` in and out for the
encoding names ``utf-e-8`` and ``utf-8-rfc2279``.

The C core (csrc/utfe8.c) does the work; this module only turns Python
sequences of integers into a buffer of uint64 and back into
``array('Q')``, and calls error handlers.
"""

from __future__ import annotations

import codecs
import sys
from array import array
from typing import TYPE_CHECKING, Any, Iterable, List, Union

from ._binding import (
    ENCODINGS,
    ERROR_MODES,
    as_bytes,
    decode_error,
    error_mode,
    ffi,
    input_view,
    lib,
    new_uninitialized,
    raise_for,
    release,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["decode_utfe8_text", "encode_utfe8_text", "utfe8_decode", "utfe8_encode", "UTFE8_MAX"]

UTFE8_NAME = "utf-e-8"
UTFE8_MAX = 0x7FFFFFFFFFFFFFFF  # U+7FFFFFFFFFFFFFFF, the last code point of UCS-E
RFC2279_MAX = 0x7FFFFFFF  # U+7FFFFFFF, the last of ISO 10646's 31 bits (seed 004)
_LONGEST_SEQUENCE = 13  # FF + 12 continuation bytes


def _limit_argument(limit: object, function: str) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise TypeError(f"{function}() argument 'limit' must be int, not {type(limit).__name__}")
    if not 0 <= limit <= UTFE8_MAX:
        raise ValueError(
            f"{function}() argument 'limit' must be in 0 .. 0x7FFFFFFFFFFFFFFF "
            f"(the last code point UTF-E-8 encodes), not {limit:#x}"
        )
    return limit

# memoryview formats of native unsigned 64-bit integers
_NATIVE_PREFIXES = ("", "@", "=", "<" if sys.byteorder == "little" else ">")
_UINT64_FORMATS = frozenset(
    prefix + code for prefix in _NATIVE_PREFIXES for code in ("Q", "L")
)


def _as_uint64_buffer(code_points: object) -> Any:
    """A C-contiguous buffer of native uint64 holding `code_points`: the
    object itself when it is one (array('Q'), a NumPy uint64 array),
    else a new array('Q') (OverflowError for values outside 0 .. 2**64 - 1)."""
    if isinstance(code_points, str):
        raise TypeError(
            "utfe8_encode() argument must be an iterable of ints or a buffer of uint64, not 'str' "
            "(for text use encode(text, 'utf-8'), or [ord(c) for c in text])"
        )
    try:
        view = memoryview(code_points)  # type: ignore[arg-type]
    except TypeError:
        view = None
    if view is not None:
        with view:
            if view.format in _UINT64_FORMATS and view.itemsize == 8 and view.c_contiguous:
                return code_points
            if view.format in ("f", "d", "e") or view.format.endswith(("f", "d", "e")):
                raise TypeError(
                    f"utfe8_encode() needs integers, not a buffer of format {view.format!r}"
                )
            return array("Q", view.tolist())
    try:
        return array("Q", code_points)  # type: ignore[call-overload]
    except TypeError as error:
        if not hasattr(code_points, "__iter__"):
            raise TypeError(
                "utfe8_encode() argument must be an iterable of ints or a buffer of uint64, "
                f"not {type(code_points).__name__!r}"
            ) from None
        raise TypeError(f"utfe8_encode() needs integers: {error}") from None


def utfe8_encode(code_points: Union[Iterable[int], "Buffer"], limit: int = UTFE8_MAX) -> bytes:
    """The UTF-E-8 bytes of `code_points` (shortest form, seed 002).

    `code_points` is any iterable of ints or a buffer of native uint64
    (``array('Q')``, a NumPy ``uint64`` array, read in place).  Raises
    ValueError for a value above `limit` (at most and by default
    0x7FFFFFFFFFFFFFFF; 0x7FFFFFFF writes RFC 2279) and OverflowError for a
    negative one or one of 2**64 or more.
    """
    limit = _limit_argument(limit, "utfe8_encode")
    values = _as_uint64_buffer(code_points)
    source = ffi.from_buffer("uint64_t[]", values)
    try:
        count = len(source)
        capacity = _LONGEST_SEQUENCE * count
        scratch = new_uninitialized("uint8_t[]", max(capacity, 1))
        result = lib.utfkit_utfe8_encode(source, count, limit, scratch, capacity)
        if result.status == lib.UTFKIT_TOO_LARGE and result.subpart_length == 1:
            last = "the last one UTF-E-8 encodes" if limit == UTFE8_MAX else "the limit"
            raise ValueError(
                f"utfe8_encode(): code point {source[result.position]:#x} at index "
                f"{result.position} is above {limit:#x}, {last}"
            )
        if result.status != lib.UTFKIT_OK:
            raise MemoryError("utfe8_encode(): input too large")
        return bytes(ffi.buffer(scratch, result.written))
    finally:
        ffi.release(source)


def utfe8_decode(data: "Buffer", errors: str = "strict", limit: int = UTFE8_MAX) -> "array[int]":
    """The code points of UTF-E-8 `data`, as ``array('Q')``.

    Shortest form only: overlong sequences (E0 80..9F, ..., FE 80..81, a
    13-byte FF form of a value below 2**36) are ill-formed, as are values
    above `limit` (at most and by default 0x7FFFFFFFFFFFFFFF; 0x7FFFFFFF
    reads RFC 2279 exactly, as the encoding ``utf-8-rfc2279`` does).
    errors="strict" raises UnicodeDecodeError (encoding "utf-e-8", or
    "utf-8-rfc2279" for that limit) with the byte offsets of the first
    maximal subpart; "replace" yields 0xFFFD for each; "ignore" leaves each
    out.  A sequence above the limit is cut before the byte that puts it
    there (at least its lead byte): reason "code point above U+<limit>".
    """
    mode = error_mode(errors, "utfe8_decode")
    limit = _limit_argument(limit, "utfe8_decode")
    source = input_view(data, "utfe8_decode")
    try:
        length = len(source)
        decoded = new_uninitialized("uint64_t[]", max(length, 1))
        result = lib.utfkit_utfe8_decode(source, length, mode, limit, decoded, length)
    finally:
        release(source)
    if result.status != lib.UTFKIT_OK:
        if result.subpart_length == 0:
            raise MemoryError("utfe8_decode(): output larger than its bound (please report this)")
        name = "utf-8-rfc2279" if limit == RFC2279_MAX else UTFE8_NAME
        error = decode_error(data, name, result.status, result.position, result.subpart_length)
        if result.status == lib.UTFKIT_TOO_LARGE and limit not in (UTFE8_MAX, RFC2279_MAX):
            error.reason = f"code point above U+{limit:X}"
        raise error
    code_points = array("Q")
    code_points.frombytes(ffi.buffer(decoded, 8 * result.written))
    return code_points


# ------------------------------------------------------------ str in and out


def decode_utfe8_text(data: "Buffer", name: str, errors: str) -> str:
    """``decode(data, name, errors)`` for ``utf-e-8`` and ``utf-8-rfc2279``.

    A ``str`` holds Unicode code points: a well-formed sequence of a
    surrogate, or of a code point above U+10FFFF, is an ill-formed
    subsequence here (issue 15), as is anything ill-formed in the form
    itself; `errors` treats each as CPython's decoders do.
    """
    form = ENCODINGS[name].form
    mode = ERROR_MODES.get(errors)
    if mode is not None:
        return _decode_in_c(data, form, mode, name)
    # Other handlers: one call into C per ill-formed subsequence, to find it.
    whole = as_bytes(data)
    view = memoryview(whole)
    handler: Any = None  # looked up at the first error, as CPython does
    pieces: List[str] = []
    position = 0
    while True:
        rest = ffi.from_buffer("uint8_t[]", view[position:])
        result = lib.utfkit_transcoded_length(rest, len(rest), form, lib.UTFKIT_UTF8, lib.UTFKIT_STRICT)
        ffi.release(rest)
        if result.status == lib.UTFKIT_OK:
            pieces.append(_decode_in_c(view[position:], form, lib.UTFKIT_STRICT, name))
            return "".join(pieces)
        start = position + result.position
        pieces.append(_decode_in_c(view[position:start], form, lib.UTFKIT_STRICT, name))
        error = decode_error(whole, name, result.status, start, result.subpart_length)
        if handler is None:
            handler = codecs.lookup_error(errors)
        answer = handler(error)
        if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], str)):
            raise TypeError("decoding error handler must return (str, int) tuple")
        pieces.append(answer[0])
        position = answer[1]
        if not isinstance(position, int):
            raise TypeError("error handler must return a (replacement, new position) tuple")
        if position < 0:
            position += len(whole)
        if not 0 <= position <= len(whole):
            raise IndexError(f"position {answer[1]} from error handler out of bounds")


def _decode_in_c(data: object, form: int, mode: int, name: str) -> str:
    """The str of `data` through UTF-8: C converts, CPython builds the str."""
    source = input_view(data, "decode")
    length = len(source)
    capacity = 3 * length  # a byte is at most one U+FFFD
    space = new_uninitialized("uint8_t[]", max(capacity, 1))
    result = lib.utfkit_transcode(source, length, form, lib.UTFKIT_UTF8, mode, space, capacity)
    if result.status != lib.UTFKIT_OK:
        release(source)
        raise_for(result, data, name)
    return codecs.utf_8_decode(ffi.buffer(space, result.written), "strict", True)[0]


def encode_utfe8_text(text: str, name: str, errors: str) -> bytes:
    """``encode(text, name, errors)`` for ``utf-e-8`` and ``utf-8-rfc2279``:
    Unicode text is written as UTF-8 writes it (seed 002 section 3.2); a
    surrogate of `text` goes to the error handler, as decoding would refuse
    it."""
    try:
        return text.encode("utf-8", errors)
    except UnicodeEncodeError as error:
        raise UnicodeEncodeError(name, error.object, error.start, error.end, error.reason) from None
