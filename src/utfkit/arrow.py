"""utfkit over pyarrow: validate, repair, count and transcode the values of
binary and string arrays in place (the optional extra ``utfkit[arrow]``).

Each function takes a ``pyarrow.Array`` or ``ChunkedArray`` of ``binary``,
``large_binary``, ``string`` or ``large_string`` (and ``binary_view`` /
``string_view`` where the installed pyarrow has them), sliced or not, and
hands Arrow's own data and offsets buffers to one C call per chunk
(validate_offsets and friends); nulls stay null.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple, Union

from ._offsets import ColumnOutput, convert_column, count_offsets, repair_column, validate_offsets

try:
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError as error:  # pragma: no cover - exercised only without pyarrow
    raise ImportError(
        "utfkit.arrow needs pyarrow: pip install 'utfkit[arrow]'"
    ) from error

__all__ = ["count", "sanitize", "transcode", "validate"]

ArrayLike = Union["pa.Array", "pa.ChunkedArray"]

UTF_8 = "utf-8"


def validate(arr: ArrayLike, encoding: str = UTF_8) -> ArrayLike:
    """A ``BooleanArray`` (``ChunkedArray`` for one): True where the value is
    well-formed in `encoding`, null where the value is null."""
    def one(chunk: "pa.Array") -> "pa.Array":
        data, offsets, width, chunk = _layout(chunk, "validate")
        valid = validate_offsets(data, _cast(offsets, width), encoding) if len(chunk) else bytearray()
        as_bytes = pa.Array.from_buffers(pa.uint8(), len(chunk), [None, pa.py_buffer(valid)])
        bits = pc.not_equal(as_bytes, 0).buffers()[1]
        return pa.Array.from_buffers(pa.bool_(), len(chunk), [_validity(chunk), bits], chunk.null_count)

    return _each_chunk(arr, one, pa.bool_())


def count(arr: ArrayLike, encoding: str = UTF_8) -> ArrayLike:
    """An ``Int64Array``: code points per value, as ``utfkit.count`` counts
    them (``decode(value, encoding, errors="replace")``'s length); null
    where the value is null."""
    def one(chunk: "pa.Array") -> "pa.Array":
        data, offsets, width, chunk = _layout(chunk, "count")
        counts = count_offsets(data, _cast(offsets, width), encoding) if len(chunk) else bytearray()
        return pa.Array.from_buffers(
            pa.int64(), len(chunk), [_validity(chunk), pa.py_buffer(counts)], chunk.null_count,
        )

    return _each_chunk(arr, one, pa.int64())


def sanitize(arr: ArrayLike) -> ArrayLike:
    """A ``StringArray`` (``LargeStringArray`` for large types, ``string_view``
    for view types): each UTF-8 value with every ill-formed subsequence
    replaced by U+FFFD, as ``utfkit.sanitize`` does.  When every value is
    well-formed the result shares the input's buffers (no copy)."""
    target = _string_type(_type_of(arr))

    def one(chunk: "pa.Array") -> "pa.Array":
        original = chunk
        data, offsets, width, chunk = _layout(chunk, "sanitize")
        repaired = (repair_column(data, offsets, UTF_8, "sanitize", width, _allocate) if len(chunk) else None)
        if repaired is None:
            if original.type == target:
                return original
            if pa.types.is_binary_view(original.type):
                return original.view(target)
            return pa.Array.from_buffers(
                target, len(chunk), chunk.buffers(), chunk.null_count, chunk.offset,
            )
        result = _from_output(_plain_type(target), chunk, repaired)
        return result if result.type == target else result.cast(target)

    return _each_chunk(arr, one, target)


def transcode(arr: ArrayLike, from_: str, errors: str = "strict") -> ArrayLike:
    """A UTF-8 string array (``large_string`` for large and view types) from
    a binary array whose values are text in `from_` (UTF-16 or UTF-32 with
    their byte order, any form utfkit reads), each converted as
    ``utfkit.transcode(value, from_, "utf-8", errors)``.  With
    ``errors="strict"`` the first ill-formed value raises
    ``UnicodeDecodeError`` (positions within the value, its index in the
    reason)."""
    source_type = _type_of(arr)
    target = pa.large_string() if _is_large(source_type) else pa.string()

    def one(chunk: "pa.Array") -> "pa.Array":
        data, offsets, width, chunk = _layout(chunk, "transcode")
        if not len(chunk):
            return pa.array([], target)
        converted = convert_column(data, offsets, from_, UTF_8, errors, "transcode", width, _allocate)
        return _from_output(target, chunk, converted)

    return _each_chunk(arr, one, target)


# ------------------------------------------------------------------ layout


def _type_of(arr: ArrayLike) -> "pa.DataType":
    if not isinstance(arr, (pa.Array, pa.ChunkedArray)):
        raise TypeError(f"expected a pyarrow Array or ChunkedArray, not {type(arr).__name__!r}")
    kind = arr.type
    if not (_is_plain(kind) or _is_view(kind)):
        raise TypeError(
            f"expected a binary or string array (binary, large_binary, string, large_string), not {kind}"
        )
    return kind


def _is_plain(kind: "pa.DataType") -> bool:
    types = pa.types
    return bool(types.is_binary(kind) or types.is_large_binary(kind)
                or types.is_string(kind) or types.is_large_string(kind))


def _is_view(kind: "pa.DataType") -> bool:
    is_binary_view = getattr(pa.types, "is_binary_view", None)
    is_string_view = getattr(pa.types, "is_string_view", None)
    return bool(is_binary_view is not None and (is_binary_view(kind) or is_string_view(kind)))  # type: ignore[misc]


def _is_large(kind: "pa.DataType") -> bool:
    return bool(pa.types.is_large_binary(kind) or pa.types.is_large_string(kind) or _is_view(kind))


def _string_type(kind: "pa.DataType") -> "pa.DataType":
    if _is_view(kind):
        return pa.string_view()
    return pa.large_string() if _is_large(kind) else pa.string()


def _plain_type(kind: "pa.DataType") -> "pa.DataType":
    return pa.large_string() if _is_view(kind) else kind


def _layout(chunk: "pa.Array", function: str) -> Tuple[Any, Any, int, "pa.Array"]:
    """(data buffer, offsets of this slice, offset width, the array they
    belong to): Arrow's own buffers, no copy -- except for view types, whose
    values are first gathered into a large_binary array."""
    if _is_view(chunk.type):
        chunk = chunk.cast(pa.large_binary())
    width = 8 if _is_large(chunk.type) else 4
    buffers = chunk.buffers()
    offsets, data = buffers[1], buffers[2]
    if offsets is None or len(chunk) == 0:
        return b"", b"", width, chunk
    begin = chunk.offset * width
    offsets = offsets.slice(begin, (len(chunk) + 1) * width)
    return (data if data is not None else b""), offsets, width, chunk


def _cast(offsets: Any, width: int) -> memoryview:
    """Arrow's offsets buffer read as int32 or int64 items."""
    return memoryview(offsets).cast("i" if width == 4 else "q")


def _validity(chunk: "pa.Array") -> Optional["pa.Buffer"]:
    """chunk's validity bitmap starting at its first value, or None."""
    if chunk.null_count == 0:
        return None
    if chunk.offset == 0:
        return chunk.buffers()[0]
    return chunk.is_valid().buffers()[1]


def _allocate(size: int) -> "pa.ResizableBuffer":
    """Output memory from Arrow's own pool: not zero-filled, and pages a
    previous result gave back are used again instead of faulted in anew."""
    return pa.allocate_buffer(size, resizable=True)


def _from_output(target: "pa.DataType", chunk: "pa.Array", output: ColumnOutput) -> "pa.Array":
    """A string array over the buffers C wrote (no copy)."""
    data = output.data
    data.resize(output.written, shrink_to_fit=output.written < data.size // 2)
    return pa.Array.from_buffers(
        target, len(chunk), [_validity(chunk), pa.py_buffer(output.offsets), data], chunk.null_count,
    )


def _each_chunk(arr: ArrayLike, one: Callable[["pa.Array"], "pa.Array"], kind: "pa.DataType") -> ArrayLike:
    _type_of(arr)
    if isinstance(arr, pa.ChunkedArray):
        return pa.chunked_array([one(chunk) for chunk in arr.chunks], type=kind)
    return one(arr)

