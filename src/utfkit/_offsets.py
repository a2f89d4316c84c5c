"""Columns of strings in Apache Arrow's layout: a data buffer and int32 or
int64 offsets, item i being ``data[offsets[i]:offsets[i + 1]]`` (Arrow
Columnar Format, "Variable-size Binary Layout").

validate_offsets, sanitize_offsets and count_offsets read any buffers --
Arrow's own, NumPy arrays, array.array, bytes -- in place and call C once
per column (csrc/offsets.c), which checks the offsets before it reads an
item.  utfkit.arrow builds on repair_column and convert_column, which hand
back C's output without copying it.
"""

from __future__ import annotations

import array
import sys
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Optional, Tuple

from ._binding import (
    Encoding,
    decode_error,
    error_mode,
    ffi,
    input_view,
    lib,
    lookup,
    new_uninitialized,
    release,
    worst_case_size,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = [
    "Column",
    "ColumnOutput",
    "convert_column",
    "count_offsets",
    "repair_column",
    "sanitize_offsets",
    "validate_offsets",
]

UTF_8 = "utf-8"

# memoryview formats of native signed integers, by item size.
_NATIVE = "<" if sys.byteorder == "little" else ">"
_SIGNED_FORMATS = {"i", "l", "q", "n"}
_OFFSET_TYPECODES = {4: "i", 8: "q"}  # array.array codes of int32 and int64


class Column:
    """A column's data and offsets as C reads them, checked for shape (the
    offsets' values are C's to check); `release()` ends the buffer exports."""

    __slots__ = ("data", "source", "offsets", "entries", "width")

    def __init__(self, data: object, offsets: object, function: str, width: Optional[int] = None) -> None:
        self.data = data
        if width is None:
            width = _offset_width(offsets, function)
        elif width not in _OFFSET_TYPECODES:
            raise ValueError(f"{function}() offsets are 4 or 8 bytes wide, not {width}")
        self.width = width
        self.source = input_view(data, function)
        try:
            self.offsets = ffi.from_buffer("uint8_t[]", offsets)
        except TypeError:
            release(self.source)
            raise TypeError(
                f"{function}() argument 'offsets' must be a buffer of int32 or int64, "
                f"not {type(offsets).__name__!r}"
            ) from None
        except (BufferError, ValueError) as error:
            release(self.source)
            raise BufferError(
                f"{function}() needs C-contiguous offsets ({error}); pass a contiguous copy"
            ) from None
        size = len(self.offsets)
        if size % width:
            self.release()
            raise ValueError(
                f"{function}() offsets buffer of {size} bytes is not a whole number of {width}-byte offsets"
            )
        self.entries = size // width

    def offset(self, index: int) -> int:
        """offsets[index], read as C reads it (native byte order, signed)."""
        at = self.offsets + index * self.width
        return int.from_bytes(ffi.buffer(at, self.width)[:], sys.byteorder, signed=True)

    @property
    def span(self) -> int:
        """Bytes between the first and the last offset, read as C will read
        them and clamped to the data: what the output is sized from (C
        checks every offset before it writes anything)."""
        if self.entries == 0:
            return 0
        first, last = self.offset(0), self.offset(self.entries - 1)
        length = len(self.source)
        return max(0, min(last, length) - max(first, 0))

    @property
    def items(self) -> int:
        return max(self.entries - 1, 0)

    def release(self) -> None:
        release(self.source)
        ffi.release(self.offsets)

    def offset_error(self, result: Any, function: str) -> Exception:
        """The exception for a C result about the offsets themselves."""
        status, index = result.status, result.index
        values = {i: self.offset(i) for i in (index - 1, index) if 0 <= i < self.entries}
        kind = f"int{8 * self.width}"
        if status == lib.UTFKIT_OFFSETS_NEGATIVE:
            return ValueError(f"{function}(): offsets[{index}] is {values[index]}, below 0")
        if status == lib.UTFKIT_OFFSETS_PAST_END:
            return ValueError(
                f"{function}(): offsets[{index}] is {values[index]}, past the end of the data "
                f"({len(self.source)} bytes)"
            )
        if status == lib.UTFKIT_OFFSETS_DECREASING:
            return ValueError(
                f"{function}(): offsets decrease at index {index}: offsets[{index - 1}] is "
                f"{values[index - 1]}, offsets[{index}] is {values[index]}"
            )
        if status == lib.UTFKIT_OFFSETS_TOO_LARGE:
            return ValueError(
                f"{function}(): the output would not fit {kind} offsets (item {index} ends past "
                f"{2 ** (8 * self.width - 1) - 1} bytes); use int64 offsets (large_string)"
            )
        return ValueError(f"{function}(): offsets rejected (status {status})")


def _offset_width(offsets: object, function: str) -> int:
    """4 or 8: the item size of `offsets`, which must be a one-dimensional
    buffer of native signed integers of that size."""
    if isinstance(offsets, str):
        raise TypeError(f"{function}() argument 'offsets' must be a buffer of int32 or int64, not 'str'")
    try:
        view = memoryview(offsets)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{function}() argument 'offsets' must be a buffer of int32 or int64 "
            f"(NumPy array, array.array, Arrow buffer), not {type(offsets).__name__!r}"
        ) from None
    with view:
        form, width, dimensions = view.format, view.itemsize, view.ndim
    code = form[1:] if form[:1] in ("@", "=", _NATIVE) else form
    if dimensions != 1:
        raise ValueError(f"{function}() argument 'offsets' must be one-dimensional, not {dimensions}-dimensional")
    if code not in _SIGNED_FORMATS or width not in _OFFSET_TYPECODES:
        raise ValueError(
            f"{function}() argument 'offsets' must hold native int32 or int64 items (Arrow's offsets), "
            f"not format {form!r} ({width}-byte items); raw bytes can be read as "
            "memoryview(buffer).cast('i') or .cast('q')"
        )
    return width


def _raise_offsets(column: Column, result: Any, function: str) -> None:
    error = column.offset_error(result, function)
    column.release()
    raise error


# ------------------------------------------------------------------ validate


def _fixed_order(encoding: object, function: str, argument: str = "encoding") -> Encoding:
    """The Encoding named, refusing the byte-order-mark forms: a column's
    items have no marks of their own to read or write."""
    known = lookup(encoding, function, argument)
    if known.marks:
        raise ValueError(
            f"{function}() does not take the byte-order-mark form {known.name!r}: name the byte order "
            f"({known.marks[0][1]!r}, ...)"
        )
    return known


def validate_offsets(data: "Buffer", offsets: "Buffer", encoding: str = UTF_8) -> bytearray:
    """One byte per item of the column ``data`` + ``offsets`` (Arrow's
    layout): 1 if the item is well-formed in `encoding`, else 0.

    ``offsets`` is a one-dimensional buffer of int32 or int64 (a NumPy
    array, array.array('i') or ('q'), an Arrow offsets buffer cast with
    memoryview.cast); the result reads as NumPy booleans with
    ``np.frombuffer(result, dtype=bool)``.  Offsets below 0, past the end of
    `data` or decreasing raise ValueError; nothing outside `data` is read.
    """
    form = _fixed_order(encoding, "validate_offsets").form
    column = Column(data, offsets, "validate_offsets")
    valid = bytearray(column.items)
    result = lib.utfkit_offsets_validate(
        column.source, len(column.source), column.offsets, column.entries, column.width, form,
        ffi.from_buffer("uint8_t[]", valid),
    )
    if result.status != lib.UTFKIT_OFFSETS_OK:
        _raise_offsets(column, result, "validate_offsets")
    column.release()
    return valid


def count_offsets(data: "Buffer", offsets: "Buffer", encoding: str = UTF_8) -> "array.array[int]":
    """Code points per item of the column ``data`` + ``offsets``, as
    ``count`` gives them (``decode(item, encoding, errors="replace")``'s
    length), as ``array.array('q')``."""
    form = _fixed_order(encoding, "count_offsets").form
    column = Column(data, offsets, "count_offsets")
    counts = array.array("q", [0]) * column.items
    result = lib.utfkit_offsets_count(
        column.source, len(column.source), column.offsets, column.entries, column.width, form,
        ffi.from_buffer("int64_t[]", counts),
    )
    if result.status != lib.UTFKIT_OFFSETS_OK:
        _raise_offsets(column, result, "count_offsets")
    column.release()
    return counts


# ---------------------------------------------------------------- writing


class ColumnOutput(NamedTuple):
    """A column C wrote: the items end to end and their offsets (starting
    at 0, of the input's width), both buffer objects that own their memory."""

    data: Any  # what allocate() gave, holding the items in its first `written` bytes
    written: int
    offsets: "array.array[int]"
    repaired: int  # items that held an ill-formed subsequence (sanitize), else 0


def _new_offsets(column: Column) -> "Tuple[array.array[int], Any]":
    offsets = array.array(_OFFSET_TYPECODES[column.width], [0]) * column.entries
    return offsets, ffi.from_buffer("uint8_t[]", offsets)


def _uninitialized(size: int) -> Any:
    return new_uninitialized("uint8_t[]", max(size, 1))


def _write(
    column: Column, capacity: int, call: Any, function: str, allocate: Callable[[int], Any],
) -> Tuple[Any, Any, "array.array[int]"]:
    """Runs `call(dst, cap, new_offsets, new_offsets_cap)` with room for
    `capacity` bytes from `allocate`, and once more with the exact room C
    asks for if that was too little.  Returns (C's result, the output
    space, the offsets)."""
    new_offsets, offsets_view = _new_offsets(column)
    for _ in range(2):
        space = allocate(capacity)
        target = space if isinstance(space, ffi.CData) else ffi.from_buffer("uint8_t[]", space,
                                                                             require_writable=True)
        result = call(target, capacity, offsets_view, len(offsets_view))
        if target is not space:
            ffi.release(target)
        if result.status != lib.UTFKIT_OFFSETS_OUTPUT_TOO_SMALL:
            return result, space, new_offsets
        capacity = int(result.value)
    raise MemoryError(f"utfkit: {function}() output larger than measured (please report this)")


def repair_column(
    data: "Buffer", offsets: "Buffer", encoding: str, function: str, width: Optional[int] = None,
    allocate: Callable[[int], Any] = _uninitialized,
) -> Optional[ColumnOutput]:
    """The column with each ill-formed item repaired as ``sanitize`` repairs
    it, or None when every item is well-formed (nothing is written).

    `allocate(size)` gives the output's memory: a writable buffer of at
    least `size` bytes (by default uninitialized cffi memory); the result's
    ``data`` is that object and ``written`` the bytes C wrote there."""
    known = _fixed_order(encoding, function)
    column = Column(data, offsets, function, width)
    form = known.form
    if known.unit_size == 1:
        # mostly well-formed text grows little; more damage is measured and written again
        capacity = column.span + column.span // 8 + 64
    else:  # only a final partial code unit grows, by less than one unit per item
        capacity = column.span + known.unit_size * column.items

    def call(dst: Any, cap: int, new_offsets: Any, new_offsets_cap: int) -> Any:
        return lib.utfkit_offsets_sanitize(
            column.source, len(column.source), column.offsets, column.entries, column.width, form,
            dst, cap, new_offsets, new_offsets_cap,
        )

    result, space, new_offsets = _write(column, capacity, call, function, allocate)
    if result.status != lib.UTFKIT_OFFSETS_OK:
        _raise_offsets(column, result, function)
    column.release()
    if result.repaired == 0:
        return None
    return ColumnOutput(space, int(result.value), new_offsets, int(result.repaired))


def convert_column(
    data: "Buffer", offsets: "Buffer", from_: str, to: str, errors: str, function: str,
    width: Optional[int] = None, allocate: Callable[[int], Any] = _uninitialized,
) -> ColumnOutput:
    """Every item converted as ``transcode(item, from_, to, errors)``; with
    errors="strict" the first ill-formed item raises UnicodeDecodeError
    (its positions counted within the item, its index in the reason)."""
    source = _fixed_order(from_, function, "from_")
    target = _fixed_order(to, function, "to")
    mode = error_mode(errors, function)
    column = Column(data, offsets, function, width)
    # every item's last partial code unit may become a whole character
    capacity = worst_case_size(column.span + source.unit_size * column.items, source, target)

    def call(dst: Any, cap: int, new_offsets: Any, new_offsets_cap: int) -> Any:
        return lib.utfkit_offsets_transcode(
            column.source, len(column.source), column.offsets, column.entries, column.width,
            source.form, target.form, mode, dst, cap, new_offsets, new_offsets_cap,
        )

    result, space, new_offsets = _write(column, capacity, call, function, allocate)
    if result.status == lib.UTFKIT_OFFSETS_ILL_FORMED:
        error = _item_error(column, result, source, target)
        column.release()
        raise error
    if result.status != lib.UTFKIT_OFFSETS_OK:
        _raise_offsets(column, result, function)
    column.release()
    return ColumnOutput(space, int(result.value), new_offsets, 0)


def _item_error(column: Column, result: Any, source: Encoding, target: Encoding) -> Exception:
    """The UnicodeDecodeError of the ill-formed item, naming its index."""
    index = result.index
    start, end = column.offset(index), column.offset(index + 1)
    item = bytes(ffi.buffer(column.source)[start:end]) if type(column.source) is not bytes \
        else column.source[start:end]
    status = result.item.status
    if status == lib.UTFKIT_TOO_LARGE and result.item.subpart_length == 0:
        return MemoryError("utfkit: the column is too large to convert in memory")
    error = decode_error(item, source.name, status, result.item.position, result.item.subpart_length,
                         target.name)
    return UnicodeDecodeError(error.encoding, error.object, error.start, error.end,
                              f"{error.reason} (item {index} of the column)")


def sanitize_offsets(
    data: "Buffer", offsets: "Buffer", encoding: str = UTF_8,
) -> "Tuple[bytes, Any]":
    """The column ``data`` + ``offsets`` with each item repaired as
    ``sanitize`` repairs it: ``(new_data, new_offsets)``, the offsets an
    ``array.array`` of the input's width ('i' for int32, 'q' for int64)
    starting at 0.  When every item is well-formed, returns ``data`` (as
    ``bytes``: itself when it is ``bytes``) and ``offsets`` unchanged."""
    repaired = repair_column(data, offsets, encoding, "sanitize_offsets")
    if repaired is None:
        return (data if type(data) is bytes else bytes(data)), offsets
    return ffi.buffer(repaired.data, repaired.written)[:], repaired.offsets
