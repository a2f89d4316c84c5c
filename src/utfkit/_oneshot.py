"""The one-shot byte API: validate, check, valid_up_to, sanitize, count,
transcode, transcoded_length and validate_many.

Each call checks its arguments once, against tables built at import, and
calls C once.  An error's text is built only when there is an error.

For UTF-8 ``bytes`` up to a few hundred bytes, crossing into C through cffi
costs more than CPython's own codec spends on the whole input, so such calls
ask CPython's codec, whose answer is the same by contract (its UTF-8,
UTF-16 and UTF-32 decoders follow Unicode 3.9 Table 3-7 and D91/D90, and
cut errors where utfkit does); the crossovers are measured with
../shared/tools/pyspeed.py (README, "Speed at small sizes").  WTF-8, CESU-8
and MUTF-8, which CPython lacks, always go to C.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple, Union, overload

from . import _binding
from ._binding import (
    SIZE_MAX,
    SIZE_T_CODE,
    UTF8,
    Encoding,
    as_bytes,
    decode_error,
    error_mode,
    ffi,
    give_scratch,
    input_view,
    lib,
    lookup,
    new_scratch,
    new_uninitialized,
    output_view,
    raise_for,
    release,
    scratch,
    take_scratch,
    worst_case_size,
)

if TYPE_CHECKING:  # typeshed ships typing_extensions; nothing is imported at run time
    from typing_extensions import Buffer

import array

__all__ = [
    "check",
    "count",
    "sanitize",
    "transcode",
    "transcoded_length",
    "valid_up_to",
    "validate",
    "validate_many",
    "first_error",
]

UTF_8 = "utf-8"

# Up to this size, bytes.isascii() answers for ASCII input faster than a
# call into C; above it the kernels are faster (measured: equal at 4 KiB).
ISASCII_UP_TO = 4096
# Up to this size, CPython's UTF-8 decoder settles non-ASCII input faster
# than a call into C (a cffi call costs about as much as decoding 64-128
# bytes of Cyrillic or CJK text).
CPYTHON_UP_TO = 96
# transcode between UTF-8, UTF-16 and UTF-32 through CPython's codec
# functions up to this input size, and UTF-8 input that is ASCII up to the
# second (CPython converts ASCII by copying and widening, fast).
CPYTHON_TRANSCODE_UP_TO = 512
CPYTHON_ASCII_TRANSCODE_UP_TO = 8192

_utf8_validate = lib.utfkit_utf8_validate
_validate = lib.utfkit_validate
_check = lib.utfkit_check
_count = lib.utfkit_count
_utf8_count = lib.utfkit_utf8_count
_transcode = lib.utfkit_transcode
_from_buffer = ffi.from_buffer
_BYTES = ffi.typeof("uint8_t[]")
_packed = lib.utfkit_transcode_packed
_take_scratch = take_scratch
_OK = lib.UTFKIT_OK
_OUTPUT_TOO_SMALL = lib.UTFKIT_OUTPUT_TOO_SMALL
_OVERLAPPING = lib.UTFKIT_OVERLAPPING_BUFFERS
_unpack = ffi.unpack


def validate(data: "Buffer", encoding: str = UTF_8) -> bool:
    """True if `data` is well-formed in `encoding` (UTF-8: Table 3-7 exactly)."""
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return True
        if length <= CPYTHON_UP_TO:
            try:
                data.decode()
            except UnicodeDecodeError:
                return False
            return True
        return bool(_utf8_validate(data, length))
    form = lookup(encoding, "validate").form
    source = input_view(data, "validate")
    return bool(_validate(source, len(source), form))


def check(data: "Buffer", encoding: str = UTF_8) -> None:
    """Raise UnicodeDecodeError at the first ill-formed subsequence of `data`.

    ``start``, ``end`` and ``reason`` are those of
    ``bytes(data).decode(encoding)``; for UTF-8, ``end - start`` is the
    length of the maximal subpart (Unicode 3.9, D93b).
    """
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return
        if length <= CPYTHON_UP_TO:
            data.decode()  # CPython's own error: the same start, end and reason
            return
        if _utf8_validate(data, length):
            return
        known = UTF8
    else:
        known = lookup(encoding, "check")
    source = input_view(data, "check")
    result = _check(source, len(source), known.form)
    if result.status != _OK:
        release(source)
        raise decode_error(data, known.name, result.status, result.position, result.subpart_length)


def valid_up_to(data: "Buffer", encoding: str = UTF_8) -> int:
    """Length in bytes of the longest well-formed prefix ending on a character boundary."""
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return length
        if _utf8_validate(data, length):
            return length
        return int(_check(data, length, lib.UTFKIT_UTF8).position)
    form = lookup(encoding, "valid_up_to").form
    source = input_view(data, "valid_up_to")
    return int(_check(source, len(source), form).position)


def count(data: "Buffer", encoding: str = UTF_8) -> int:
    """Number of code points ``decode(data, encoding, errors="replace")`` yields."""
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return length
        if length <= CPYTHON_UP_TO:
            return len(data.decode(UTF_8, "replace"))
        return int(_utf8_count(data, length))
    form = lookup(encoding, "count").form
    source = input_view(data, "count")
    return int(_count(source, len(source), form))


def sanitize(data: "Buffer", encoding: str = UTF_8) -> bytes:
    """`data` with each ill-formed subsequence replaced by U+FFFD, in the same form.

    For UTF-8 each maximal subpart becomes EF BF BD; for UTF-16 and UTF-32,
    each unit CPython's ``replace`` handler replaces.  Returns `data` itself
    when it is a ``bytes`` object and already valid.
    """
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return data
        if length <= CPYTHON_UP_TO:
            try:
                data.decode()
            except UnicodeDecodeError:
                return data.decode(UTF_8, "replace").encode()
            return data
        known = UTF8
    else:
        known = lookup(encoding, "sanitize")
    source = input_view(data, "sanitize")
    length = len(source)
    if _validate(source, length, known.form):
        return as_bytes(data)
    # a final partial unit becomes a whole U+FFFD; in the UTF-8-based forms
    # a single byte can become one (3 bytes)
    capacity = 3 * length if known.unit_size == 1 else length + known.unit_size
    buffer = scratch(capacity)
    try:
        if known is UTF8:  # valid runs copied whole, not re-encoded
            result = lib.utfkit_utf8_sanitize(source, length, buffer[0], capacity)
        else:
            result = _transcode(source, length, known.form, known.form, lib.UTFKIT_REPLACE, buffer[0], capacity)
        raise_for(result, data, known.name)
        return _unpack(buffer[1], result.written)  # type: ignore[no-any-return]
    finally:
        give_scratch(buffer)
        release(source)


# ------------------------------------------------------------------ transcode


class _Plan:
    """Everything a transcode call needs to know about (from_, to, errors),
    worked out once."""

    __slots__ = ("source", "target", "mode", "errors", "identity", "decode", "encode", "from_utf8",
                 "unit", "per_unit", "from_form", "to_form", "how")

    def __init__(self, source: Encoding, target: Encoding, errors: str, mode: int) -> None:
        self.source = source
        self.target = target
        self.errors = errors
        self.mode = mode
        # well-formed input converts to itself: UTF-8 is WTF-8 unchanged (seed 003 section 6.4)
        self.identity = source is target or {source.name, target.name} == {"utf-8", "wtf-8"}
        # CPython's codec functions, for tiny inputs: bytes(data).decode(from_,
        # errors).encode(to) is transcode's contract (DESIGN.md section 2)
        # (not for an identity: well-formed input is returned as it is)
        self.decode = None if self.identity or target.cpython_encode is None else source.cpython_decode
        self.encode = target.cpython_encode
        self.from_utf8 = source is UTF8  # decoded by bytes.decode: no (str, consumed) tuple
        # worst_case_size(length) == -(-length // unit) * per_unit
        self.unit = source.unit_size
        self.per_unit = worst_case_size(source.unit_size, source, target)
        self.from_form = source.form
        self.to_form = target.form
        self.how = source.form | target.form << 4 | mode << 8  # utfkit_transcode_packed's argument


_PLANS: Dict[Tuple[str, str, str], _Plan] = {}


def _plan(from_: object, to: object, errors: object, function: str) -> _Plan:
    source = lookup(from_, function, "from_")
    target = lookup(to, function, "to")
    mode = error_mode(errors, function)
    plan = _Plan(source, target, errors, mode)  # type: ignore[arg-type]
    if len(_PLANS) < 4096:
        _PLANS[(from_, to, errors)] = plan  # type: ignore[index]
    return plan


@overload
def transcode(data: "Buffer", from_: str, to: str, errors: str = ..., out: None = ...) -> bytes: ...
@overload
def transcode(data: "Buffer", from_: str, to: str, errors: str = ..., *, out: "Buffer") -> int: ...
@overload
def transcode(data: "Buffer", from_: str, to: str, errors: str, out: "Buffer") -> int: ...


def transcode(
    data: "Buffer", from_: str, to: str, errors: str = "strict", out: "Optional[Buffer]" = None,
) -> Union[bytes, int]:
    """Convert `data` from one encoding form to another, buffer to buffer.

    Equal to ``bytes(data).decode(from_, errors).encode(to)`` with no
    ``str`` in between.  `errors` is ``"strict"`` (raise
    UnicodeDecodeError with CPython's start, end and reason), ``"replace"``
    (U+FFFD per maximal subpart of UTF-8, per unpaired surrogate or invalid
    unit of UTF-16/UTF-32) or ``"ignore"``.

    Returns ``bytes``; or, with `out` (any writable buffer), writes there
    and returns the number of bytes written, raising ValueError if `out` is
    too small or overlaps `data` -- nothing is ever written past its end.
    """
    last = _last_plan
    if last[0] is from_ and last[1] is to and last[2] is errors:
        plan = last[3]  # the same argument objects as last time: no lookup at all
    else:
        plan = _find_plan(from_, to, errors, "transcode")
    if type(data) is bytes and plan.decode is not None and out is None and (
            len(data) <= CPYTHON_TRANSCODE_UP_TO
            or (plan.from_utf8 and len(data) <= CPYTHON_ASCII_TRANSCODE_UP_TO and data.isascii())):
        encode = plan.encode
        if plan.from_utf8:
            converted = encode(data.decode(UTF_8, errors))[0]  # type: ignore[misc]
        else:
            converted = encode(plan.decode(data, errors, True)[0])[0]  # type: ignore[misc]
        if out is None:
            return converted
        return _copy_into(converted, out)
    source = data if type(data) is bytes else input_view(data, "transcode")
    if out is not None:
        try:
            target = _from_buffer(_BYTES, out, True)
        except Exception:
            target = output_view(out, "transcode")
        written: int = _packed(source, len(source), plan.how, target, len(target))
        if written >= 0:
            return written
        return _transcode_into_failed(source, data, plan, target)
    return _transcode_new(source, data, plan)


_last_plan: Tuple[object, object, object, _Plan] = ("", "", "", _Plan(UTF8, UTF8, "strict", 0))


def _find_plan(from_: object, to: object, errors: object, function: str) -> _Plan:
    global _last_plan
    try:
        plan = _PLANS[(from_, to, errors)]  # type: ignore[index]
    except (KeyError, TypeError):  # TypeError: an unhashable argument, refused in _plan
        plan = _plan(from_, to, errors, function)
    _last_plan = (from_, to, errors, plan)  # one tuple, replaced whole: safe between threads
    return plan


def _copy_into(converted: bytes, out: object) -> int:
    target = output_view(out, "transcode")
    if len(converted) > len(target):
        room = len(target)
        release(target)
        raise ValueError(f"transcode(): 'out' has room for {room} bytes; the output needs {len(converted)}")
    ffi.memmove(target, converted, len(converted))
    return len(converted)


def _transcode_into_failed(source: Any, data: object, plan: _Plan, target: Any) -> int:
    """Raise what the packed call into `target` reported: the same call
    again gives the whole result."""
    room = len(target)
    result = _transcode(source, len(source), plan.source.form, plan.target.form, plan.mode, target, room)
    status = result.status
    release(target)
    release(source)
    if status == _OUTPUT_TOO_SMALL:
        raise ValueError(f"transcode(): 'out' has room for {room} bytes; the output needs {result.written}")
    if status == _OVERLAPPING:
        raise ValueError(
            "transcode(): 'out' overlaps the input's memory; utfkit does not convert in place "
            "(pass a separate output buffer)"
        )
    raise_for(result, data, plan.source.name, plan.target.name)
    raise AssertionError("unreachable")  # raise_for raised


def _transcode_new(source: Any, data: object, plan: _Plan) -> bytes:
    length = len(source)
    form = plan.source.form
    # between UTF-8 and WTF-8 the input must be UTF-8 (no lone surrogates) both ways
    if plan.identity and (_validate(source, length, form) if plan.source is plan.target
                          else _utf8_validate(source, length)):
        return as_bytes(data)  # well-formed already: the output is the input, no copy
    capacity = -(-length // plan.unit) * plan.per_unit
    if capacity <= _binding.SCRATCH_KEPT:
        try:
            buffer = _take_scratch()
            if buffer[2] < capacity:
                buffer = new_scratch(capacity)
        except IndexError:  # another thread's call holds the kept buffer
            buffer = new_scratch(capacity)
        written: int = _packed(source, length, plan.how, buffer[0], capacity)
        if written >= 0:
            output = _unpack(buffer[1], written)
            give_scratch(buffer)
            return output  # type: ignore[no-any-return]
        # the same call again, for the whole result
        result = _transcode(source, length, form, plan.to_form, plan.mode, buffer[0], capacity)
        give_scratch(buffer)
        release(source)
        raise_for(result, data, plan.source.name, plan.target.name)
        raise AssertionError("unreachable")  # raise_for raised
    # Large: measure first, then write straight into the result, so that no
    # page is touched beyond the result's own.
    measured = lib.utfkit_transcoded_length(source, length, form, plan.target.form, plan.mode)
    if measured.status != _OK:
        release(source)
        raise_for(measured, data, plan.source.name, plan.target.name)
    if measured.written == 0:
        return b""
    output = _fresh_bytes(int(measured.written))
    target = ffi.from_buffer("uint8_t[]", output)
    result = _transcode(source, length, form, plan.target.form, plan.mode, target, len(target))
    del target
    if result.status != _OK:  # the same input converts as it measured
        release(source)
        raise_for(result, data, plan.source.name, plan.target.name)
    return output


def _fresh_bytes(size: int) -> bytes:
    """A new ``bytes`` of `size` (>= 1) bytes for C to fill before anyone
    else sees it -- what C code does with PyBytes_FromStringAndSize(NULL,
    size).  bytes(size) asks calloc, which for large sizes maps pages that
    the kernel zeroes only when first written."""
    return bytes(size)


def transcoded_length(data: "Buffer", from_: str, to: str, errors: str = "strict") -> int:
    """Exact length in bytes of ``transcode(data, from_, to, errors)``.

    Raises UnicodeDecodeError, as transcode does, for ill-formed input with
    ``errors="strict"``.
    """
    plan = _find_plan(from_, to, errors, "transcoded_length")
    source = input_view(data, "transcoded_length")
    result = lib.utfkit_transcoded_length(source, len(source), plan.source.form, plan.target.form, plan.mode)
    if result.status != _OK:
        release(source)
        raise_for(result, data, plan.source.name, plan.target.name)
    return int(result.written)


# --------------------------------------------------------------- validate_many


def validate_many(items: "Iterable[Buffer]", encoding: str = UTF_8) -> List[bool]:
    """``[validate(item, encoding) for item in items]``, in one call to the C core.

    For many short buffers (a server checking request fields, a batch of
    messages): the per-call cost of crossing into C is paid once, not per
    item.  Each item is any C-contiguous bytes-like object; the items are
    copied once, end to end, into one buffer (bytes.join).
    """
    form = lookup(encoding, "validate_many").form
    if not isinstance(items, (list, tuple)):
        if isinstance(items, (str, bytes, bytearray, memoryview)):
            raise TypeError(
                "validate_many() argument 'items' must be an iterable of bytes-like objects, "
                f"not {type(items).__name__!r} (use validate() for one buffer)"
            )
        try:
            items = list(items)
        except TypeError:
            raise TypeError(
                "validate_many() argument 'items' must be an iterable of bytes-like objects, "
                f"not {type(items).__name__!r}"
            ) from None
    number = len(items)
    if number == 0:
        return []
    try:
        joined = b"".join(items)
    except (TypeError, BufferError):
        _raise_for_bad_item(items)
        raise
    # len() counts bytes for every buffer of one-byte items (bytes,
    # bytearray, most memoryviews); the C core refuses lengths that do not
    # add up, and then each item's size is taken from its buffer.
    lengths = array.array(SIZE_T_CODE, map(len, items))  # type: ignore[arg-type,unused-ignore]
    valid = new_uninitialized("uint8_t[]", number)
    well_formed = lib.utfkit_validate_many(
        joined, len(joined), ffi.from_buffer("size_t[]", lengths), number, form, valid
    )
    if well_formed == SIZE_MAX:
        lengths = array.array(SIZE_T_CODE, (memoryview(item).nbytes for item in items))
        well_formed = lib.utfkit_validate_many(
            joined, len(joined), ffi.from_buffer("size_t[]", lengths), number, form, valid
        )
    if well_formed == number:
        return [True] * number
    return list(map(bool, ffi.buffer(valid, number)[:]))


def _raise_for_bad_item(items: Any) -> None:
    """The TypeError / BufferError for the first item bytes.join refused."""
    for index, item in enumerate(items):
        if isinstance(item, str):
            raise TypeError(
                f"validate_many() item {index} must be a bytes-like object, not 'str' "
                "(encode the text first, e.g. text.encode('utf-8'))"
            )
        try:
            view = memoryview(item)
        except TypeError:
            raise TypeError(
                f"validate_many() item {index} must be a bytes-like object, not {type(item).__name__!r}"
            ) from None
        if not view.c_contiguous:
            raise BufferError(
                f"validate_many() item {index} is not a C-contiguous buffer; "
                "pass a contiguous copy such as bytes(item)"
            )


def first_error(data: "Buffer", encoding: str) -> Any:
    """The C result of utfkit_check (status, position, subpart_length) for
    callers that need the position without building a UnicodeDecodeError,
    which copies the whole input (the CLI)."""
    known = lookup(encoding, "first_error")
    source = input_view(data, "first_error")
    result = _check(source, len(source), known.form)
    release(source)
    return result
