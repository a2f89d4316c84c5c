"""UTF-E-8 (seed 002): code points 0 .. 0x7FFFFFFFFFFFFFFF to bytes and back.

The C core (csrc/utfe8.c) does the work; this module only turns Python
sequences of integers into a buffer of uint64 and back into
``array('Q')``.
"""

from __future__ import annotations

import sys
from array import array
from typing import TYPE_CHECKING, Any, Iterable, Union

from ._binding import as_bytes, error_mode, ffi, input_view, lib, new_uninitialized, release

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["utfe8_decode", "utfe8_encode", "UTFE8_MAX"]

UTFE8_NAME = "utf-e-8"
UTFE8_MAX = 0x7FFFFFFFFFFFFFFF  # U+7FFFFFFFFFFFFFFF, the last code point of UCS-E
_LONGEST_SEQUENCE = 13  # FF + 12 continuation bytes

_REASONS = {
    lib.UTFKIT_INVALID_START: "invalid start byte",
    lib.UTFKIT_INVALID_CONTINUATION: "invalid continuation byte",
    lib.UTFKIT_END_OF_DATA: "unexpected end of data",
    lib.UTFKIT_TOO_LARGE: "code point above U+7FFFFFFFFFFFFFFF",
}

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


def utfe8_encode(code_points: Union[Iterable[int], "Buffer"]) -> bytes:
    """The UTF-E-8 bytes of `code_points` (shortest form, seed 002).

    `code_points` is any iterable of ints or a buffer of native uint64
    (``array('Q')``, a NumPy ``uint64`` array, read in place).  Raises
    ValueError for a value above 0x7FFFFFFFFFFFFFFF and OverflowError for
    a negative one or one of 2**64 or more.
    """
    values = _as_uint64_buffer(code_points)
    source = ffi.from_buffer("uint64_t[]", values)
    try:
        count = len(source)
        capacity = _LONGEST_SEQUENCE * count
        scratch = new_uninitialized("uint8_t[]", max(capacity, 1))
        result = lib.utfkit_utfe8_encode(source, count, scratch, capacity)
        if result.status == lib.UTFKIT_TOO_LARGE and result.subpart_length == 1:
            raise ValueError(
                f"utfe8_encode(): code point {source[result.position]:#x} at index "
                f"{result.position} is above 0x7FFFFFFFFFFFFFFF, the last one UTF-E-8 encodes"
            )
        if result.status != lib.UTFKIT_OK:
            raise MemoryError("utfe8_encode(): input too large")
        return bytes(ffi.buffer(scratch, result.written))
    finally:
        ffi.release(source)


def utfe8_decode(data: "Buffer", errors: str = "strict") -> "array[int]":
    """The code points of UTF-E-8 `data`, as ``array('Q')``.

    Shortest form only: overlong sequences (E0 80..9F, ..., FE 80..81, a
    13-byte FF form of a value below 2**36) are ill-formed, as are values
    above 0x7FFFFFFFFFFFFFFF.  errors="strict" raises UnicodeDecodeError
    (encoding "utf-e-8") with the byte offsets of the first maximal subpart;
    "replace" yields 0xFFFD for each; "ignore" leaves each out.
    """
    mode = error_mode(errors, "utfe8_decode")
    source = input_view(data, "utfe8_decode")
    try:
        length = len(source)
        decoded = new_uninitialized("uint64_t[]", max(length, 1))
        result = lib.utfkit_utfe8_decode(source, length, mode, decoded, length)
    finally:
        release(source)
    if result.status != lib.UTFKIT_OK:
        if result.status not in _REASONS or result.subpart_length == 0:
            raise MemoryError("utfe8_decode(): output larger than its bound (please report this)")
        whole = as_bytes(data)
        start = result.position
        raise UnicodeDecodeError(
            UTFE8_NAME, whole, start, start + result.subpart_length, _REASONS[result.status]
        )
    code_points = array("Q")
    code_points.frombytes(ffi.buffer(decoded, 8 * result.written))
    return code_points
