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

from typing import TYPE_CHECKING, Any, Dict, Iterable, List, NoReturn, Optional, Tuple, Union, overload

from . import _binding
from ._binding import (
    ROOM_SLACK,
    SIZE_MAX,
    SIZE_T_CODE,
    UTF8,
    Encoding,
    after,
    as_bytes,
    decode_error,
    encode_error,
    error_mode,
    ffi,
    give_scratch,
    input_view,
    lib,
    lookup,
    new_uninitialized,
    output_view,
    raise_for,
    read_mark,
    release,
    relocated,
    scratch,
    transcode_into,
    transcode_new,
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
    "transcode_partial",
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

# The forms in which ASCII text is its own bytes, read and written alike
# (MUTF-8 is not: U+0000 is C0 80 there).
_ASCII_AS_ITSELF = frozenset({
    lib.UTFKIT_UTF8, lib.UTFKIT_WTF8, lib.UTFKIT_CESU8, lib.UTFKIT_LATIN1, lib.UTFKIT_ASCII,
    lib.UTFKIT_UTFE8, lib.UTFKIT_UTF8_RFC2279,
})
_ASCII_FORM = lib.UTFKIT_ASCII
_ONE_BYTE_FORMS = frozenset({lib.UTFKIT_LATIN1, lib.UTFKIT_ASCII})
_UTF8_FAMILY = frozenset({lib.UTFKIT_UTF8, lib.UTFKIT_WTF8, lib.UTFKIT_CESU8, lib.UTFKIT_MUTF8})
_check = lib.utfkit_check
_count = lib.utfkit_count
_utf8_count = lib.utfkit_utf8_count
_transcode = lib.utfkit_transcode
_from_buffer = ffi.from_buffer
_BYTES = ffi.typeof("uint8_t[]")
_packed = lib.utfkit_transcode_packed
_OK = lib.UTFKIT_OK
_REPLACE = lib.UTFKIT_REPLACE
_OUTPUT_TOO_SMALL = lib.UTFKIT_OUTPUT_TOO_SMALL
_OVERLAPPING = lib.UTFKIT_OVERLAPPING_BUFFERS
_unpack = ffi.unpack


def _packed_how(from_form: int, to_form: int, mode: int) -> int:
    """utfkit_transcode_packed's `how` argument: both forms and the error mode in one int."""
    return from_form | to_form << 4 | mode << 8


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
    _, fixed, skip, source = _source(data, encoding, "validate")
    return bool(_validate(after(source, skip), len(source) - skip, fixed.form))


# The encodings named to validate, check, count and sanitize that have no
# byte-order mark to read: the name as the caller spelt it -> the core's
# form.  The C functions (_direct.c, see _entries) answer bytes in these
# forms without calling this module.  Bounded, as lookup's own table.
FIXED_FORMS: Dict[str, int] = {}


def _source(data: object, encoding: object, function: str) -> Tuple[Encoding, Encoding, int, Any]:
    """The encoding named, the fixed form `data` is in (after a byte-order
    mark, for utf-16, utf-32 and utf-8-sig), the mark's length, and what to
    hand C for `data`."""
    known = lookup(encoding, function)
    if not known.marks and type(encoding) is str and len(FIXED_FORMS) < 1024:
        FIXED_FORMS[encoding] = known.form
    source = input_view(data, function)
    fixed, skip = read_mark(known, source)
    return known, fixed, skip, source


def _decode_error(data: object, known: Encoding, fixed: Encoding, skip: int, result: Any) -> UnicodeDecodeError:
    """The UnicodeDecodeError CPython's decoder of `known` raises, for a C
    result on `data` after its mark."""
    if known.name == "utf-8-sig" and skip:  # CPython decodes what follows the mark, as UTF-8
        return decode_error(as_bytes(data)[skip:], "utf-8", result.status, result.position, result.subpart_length)
    return decode_error(data, fixed.name, result.status, skip + result.position, result.subpart_length)


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
        known, fixed, skip, source = UTF8, UTF8, 0, data
    else:
        known, fixed, skip, source = _source(data, encoding, "check")
    result = _check(after(source, skip), len(source) - skip, fixed.form)
    if result.status != _OK:
        release(source)
        raise _decode_error(data, known, fixed, skip, result)


def valid_up_to(data: "Buffer", encoding: str = UTF_8) -> int:
    """Length in bytes of the longest well-formed prefix ending on a character boundary."""
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return length
        if _utf8_validate(data, length):
            return length
        return int(_check(data, length, lib.UTFKIT_UTF8).position)
    _, fixed, skip, source = _source(data, encoding, "valid_up_to")
    return skip + int(_check(after(source, skip), len(source) - skip, fixed.form).position)


def count(data: "Buffer", encoding: str = UTF_8) -> int:
    """Number of code points ``decode(data, encoding, errors="replace")`` yields."""
    if encoding is UTF_8 and type(data) is bytes:
        length = len(data)
        if length <= ISASCII_UP_TO and data.isascii():
            return length
        if length <= CPYTHON_UP_TO:
            return len(data.decode(UTF_8, "replace"))
        return int(_utf8_count(data, length))
    _, fixed, skip, source = _source(data, encoding, "count")
    return int(_count(after(source, skip), len(source) - skip, fixed.form))


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
        if known.marks:  # the mark kept as it is, the rest repaired in the form it names
            source = input_view(data, "sanitize")
            fixed, skip = read_mark(known, source)
            if _validate(after(source, skip), len(source) - skip, fixed.form):
                return as_bytes(data)
            whole = as_bytes(data)
            return whole[:skip] + sanitize(memoryview(whole)[skip:], fixed.name)
    source = input_view(data, "sanitize")
    length = len(source)
    if _validate(source, length, known.form):
        return as_bytes(data)
    # a final partial unit becomes a whole U+FFFD; in the UTF-8-based forms
    # a single byte can become one (3 bytes)
    capacity = 3 * length if known.unit_size == 1 else length + known.unit_size
    if known is not UTF8 and (known.unit_size > 1 or capacity <= ONE_PASS_ROOM):
        # repaired straight into the result, as transcode into a new bytes
        # (UTF-16/UTF-32: the output fills its room but for one unit)
        output = transcode_new(data, _packed_how(known.form, known.form, _REPLACE), capacity)
        if output is not None:
            return output
    buffer = scratch(capacity + ROOM_SLACK)
    room = buffer[2]  # the worst case and more: the core's readers write straight into the output
    try:
        if known is UTF8:  # valid runs copied whole, not re-encoded
            result = lib.utfkit_utf8_sanitize(source, length, buffer[0], room)
        else:
            result = _transcode(source, length, known.form, known.form, lib.UTFKIT_REPLACE, buffer[0], room)
        raise_for(result, data, known.name)
        return _unpack(buffer[1], result.written)  # type: ignore[no-any-return]
    finally:
        give_scratch(buffer)
        release(source)


# ------------------------------------------------------------------ transcode


class _Plan:
    """Everything a transcode call needs to know about (from_, to, errors),
    worked out once."""

    __slots__ = ("source", "target", "mode", "errors", "identity", "marked", "decode", "encode", "from_utf8",
                 "unit", "per_unit", "from_form", "to_form", "how", "ascii_identity", "exact_room",
                 "ascii_fills_room")

    def __init__(self, source: Encoding, target: Encoding, errors: str, mode: int) -> None:
        self.source = source
        self.target = target
        self.errors = errors
        self.mode = mode
        # well-formed input converts to itself: UTF-8 is WTF-8 unchanged (seed 003 section 6.4)
        self.identity = (source is target and not source.marks) or {source.name, target.name} == {"utf-8", "wtf-8"}
        # a byte-order-mark form at either end: read or written around the conversion
        self.marked = bool(source.marks or target.marks)
        # CPython's codec functions, for tiny inputs: bytes(data).decode(from_,
        # errors).encode(to) is transcode's contract (DESIGN.md section 2)
        # (not for an identity: well-formed input is returned as it is)
        self.decode = None if self.identity or target.cpython_encode is None else source.cpython_decode
        self.encode = target.cpython_encode
        self.from_utf8 = source is UTF8  # decoded by bytes.decode: no (str, consumed) tuple
        # the output's room: -(-length // unit) * per_unit, worst_case_size(length)
        self.unit = source.unit_size
        self.per_unit = worst_case_size(source.unit_size, source, target)
        self.from_form = source.form
        self.to_form = target.form
        self.how = _packed_how(source.form, target.form, mode)
        # one unit of UTF-16 or UTF-32 per byte: the output fills its worst-case room exactly
        # (a byte that is not ASCII becomes U+FFFD, one unit too, or nothing with ignore, rare)
        self.exact_room = source.form in _ONE_BYTE_FORMS and target.unit_size > 1
        # from UTF-8 or a relative into UTF-16/32, ASCII input fills that room
        # exactly too (an ASCII byte is one character there, Unicode 3.9 Table 3-7)
        self.ascii_fills_room = source.form in _UTF8_FAMILY and target.unit_size > 1
        # ASCII input converts to itself (Latin-1 <-> UTF-8, say): the output is the input
        self.ascii_identity = (not self.identity and not self.marked and source.form in _ASCII_AS_ITSELF
                               and target.form in _ASCII_AS_ITSELF)


_PLANS: Dict[Tuple[str, str, str], _Plan] = {}
# The plans utfkit.transcode (a C function, see _entries) runs without
# calling this module: (from_, to, errors) -> (how, unit, per_unit), for
# conversions that need nothing but the core -- no byte-order mark, and no
# input returned as it is when well-formed (identity) -- with a last 1 where
# an ASCII input is returned as it is (ascii_identity).  Filled as _PLANS
# is; read by the C function.
DIRECT_PLANS: Dict[Tuple[str, str, str], Tuple[int, int, int, int]] = {}


def _plan(from_: object, to: object, errors: object, function: str) -> _Plan:
    source = lookup(from_, function, "from_")
    target = lookup(to, function, "to")
    mode = error_mode(errors, function)
    plan = _Plan(source, target, errors, mode)  # type: ignore[arg-type]
    if len(_PLANS) < 4096:
        _PLANS[(from_, to, errors)] = plan  # type: ignore[index]
        if not (plan.identity or plan.marked):
            DIRECT_PLANS[(from_, to, errors)] = (  # type: ignore[index]
                plan.how, plan.unit, plan.per_unit, 1 if plan.ascii_identity else 0)
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
            converted = encode(data.decode(UTF_8, errors), errors)[0]  # type: ignore[misc]
        else:
            converted = encode(plan.decode(data, errors, True)[0], errors)[0]  # type: ignore[misc]
        return converted
    if plan.marked:
        return _transcode_marked(data, plan, out)
    if out is not None:
        # Both buffers taken by the extension: no cffi views to make.  None
        # hands anything else (a refused buffer, too little room, an error
        # to raise) to the cffi path below, which runs the call again.
        done = transcode_into(data, plan.how, out)
        if done is not None:
            return done
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


def _without_mark(data: object, plan: _Plan, function: str) -> Tuple[object, Encoding, int, bytes, str]:
    """For a conversion from or to a byte-order-mark form: the data after
    its mark, the fixed form it is in, the mark's length, the mark to
    write first, and the fixed form to write."""
    try:  # (a memoryview reads the mark with no cffi view to make and release)
        view: Any = data if type(data) is bytes else memoryview(data).cast("B")  # type: ignore[arg-type]
    except (TypeError, ValueError, BufferError):
        input_view(data, function)  # raises the error every call gives for such data
        raise
    fixed, skip = read_mark(plan.source, view)
    rest = view[skip:] if skip else data
    marks = plan.target.marks
    return rest, fixed, skip, marks[0][0] if marks else b"", marks[0][1] if marks else plan.target.name


def _transcode_marked(data: object, plan: _Plan, out: object) -> Union[bytes, int]:
    rest, fixed, skip, signature, to = _without_mark(data, plan, "transcode")
    try:
        if out is None:
            if signature:
                return _transcode_signed(rest, _find_plan(fixed.name, to, plan.errors, "transcode"), signature)
            converted: bytes = transcode(rest, fixed.name, to, plan.errors)  # type: ignore[call-overload]
            return converted
        target = memoryview(out).cast("B")  # type: ignore[arg-type]
        if len(target) < len(signature):
            raise ValueError(
                f"transcode(): 'out' has room for {len(target)} bytes; the byte-order mark alone needs {len(signature)}"
            )
        written: int = transcode(rest, fixed.name, to, plan.errors, out=target[len(signature):])  # type: ignore[call-overload]
        target[: len(signature)] = signature
        return written + len(signature)
    except UnicodeDecodeError as error:
        raise relocated(error, data, plan.source, skip) from None


_last_plan: Tuple[object, object, object, _Plan] = ("", "", "", _Plan(UTF8, UTF8, "strict", 0))


def _find_plan(from_: object, to: object, errors: object, function: str) -> _Plan:
    global _last_plan
    try:
        plan = _PLANS[(from_, to, errors)]  # type: ignore[index]
    except (KeyError, TypeError):  # TypeError: an unhashable argument, refused in _plan
        plan = _plan(from_, to, errors, function)
    _last_plan = (from_, to, errors, plan)  # one tuple, replaced whole: safe between threads
    return plan


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
    if plan.ascii_identity and _validate(source, length, _ASCII_FORM):
        # One read that stops at the first byte above 7F (early, in most
        # other text), and at most one copy: CPython's decode().encode()
        # copies ASCII twice.
        return as_bytes(data)
    output = _into_new_bytes(source, data, plan, b"")
    if output is not None:
        return output
    _raise_measured(source, data, plan)


# A new bytes with room for the worst case is allocated by malloc: above
# glibc's mmap threshold (128 KiB at first, then the largest block freed) a
# fresh mapping, whose pages the kernel maps and zeroes as the core writes
# them.  Where the output can be much smaller than its worst case (Latin-1
# -> UTF-8: up to twice the input), a large room costs more than the copy it
# saves.  Measured (French text, same process, one pass / kept scratch and a
# copy): Latin-1 -> UTF-8 of 64 KiB 6.3 / 8.7 us, 256 KiB 41 / 51 us, but
# 800,000 bytes 510 / 168 us and 1 MiB 680 / 224 us.  So a room up to this
# size, or one the output fills (narrowing, one unit per byte, or ASCII
# input from UTF-8 into UTF-16/32), is written in one pass; above it the
# kept scratch buffer and one copy out serve (up to SCRATCH_KEPT), and above
# that the output is measured first, then written once into a new bytes of
# exactly its size.  The ASCII test stops at the first byte above 7F, early
# in most other text; 1 MiB of ASCII UTF-8 into UTF-16LE took 264 us with
# the copy, 102 us in one pass.
ONE_PASS_ROOM = 512 << 10


def _into_new_bytes(source: Any, data: object, plan: _Plan, signature: bytes) -> Optional[bytes]:
    """`signature`, then the conversion of `source` (`data`), as a new bytes
    written in place; None when the core reports an error."""
    length = len(source)
    capacity = -(-length // plan.unit) * plan.per_unit
    if (capacity <= ONE_PASS_ROOM or capacity <= length or plan.exact_room
            or (plan.ascii_fills_room and _validate(source, length, _ASCII_FORM))):
        # One pass straight into the result: a new bytes object with room
        # for the worst case, not zero-filled, shrunk in place to what was
        # written (no scratch buffer, no copy out of it).
        return transcode_new(data, plan.how, capacity, signature)
    if capacity <= _binding.SCRATCH_KEPT:
        skip = len(signature)
        # the kept buffer, or one of its own if another thread holds it; the
        # worst case and more, so that the core's readers write straight into it
        buffer = scratch(skip + capacity + ROOM_SLACK)
        ffi.memmove(buffer[0], signature, skip)
        written: int = _packed(source, length, plan.how, buffer[0] + skip, buffer[2] - skip)
        output: Optional[bytes] = _unpack(buffer[1], skip + written) if written >= 0 else None
        give_scratch(buffer)
        return output
    measured = lib.utfkit_transcoded_length(source, length, plan.from_form, plan.to_form, plan.mode)
    if measured.status != _OK:
        return None
    return transcode_new(data, plan.how, int(measured.written), signature)


def _raise_measured(source: Any, data: object, plan: _Plan) -> NoReturn:
    """Raise what a conversion of `source` into a new bytes reported: the
    core is deterministic, so measuring the same input reports the same
    error, whole, without a buffer to write into."""
    measured = lib.utfkit_transcoded_length(source, len(source), plan.from_form, plan.to_form, plan.mode)
    release(source)
    raise_for(measured, data, plan.source.name, plan.target.name)
    raise MemoryError("utfkit: output larger than its worst-case bound (please report this)")


def _transcode_signed(data: object, plan: _Plan, signature: bytes) -> bytes:
    """`signature` (a byte-order mark), then transcode's output, written
    after it into the result in place."""
    source = input_view(data, "transcode")
    output = _into_new_bytes(source, data, plan, signature)
    if output is not None:
        return output
    _raise_measured(source, data, plan)


def transcoded_length(data: "Buffer", from_: str, to: str, errors: str = "strict") -> int:
    """Exact length in bytes of ``transcode(data, from_, to, errors)``.

    Raises UnicodeDecodeError, as transcode does, for ill-formed input with
    ``errors="strict"``.
    """
    plan = _find_plan(from_, to, errors, "transcoded_length")
    if plan.marked:
        rest, fixed, skip, signature, to_fixed = _without_mark(data, plan, "transcoded_length")
        try:
            return len(signature) + transcoded_length(rest, fixed.name, to_fixed, plan.errors)  # type: ignore[arg-type]
        except UnicodeDecodeError as error:
            raise relocated(error, data, plan.source, skip) from None
    source = input_view(data, "transcoded_length")
    result = lib.utfkit_transcoded_length(source, len(source), plan.source.form, plan.target.form, plan.mode)
    if result.status != _OK:
        release(source)
        raise_for(result, data, plan.source.name, plan.target.name)
    return int(result.written)


def transcode_partial(
    data: "Buffer", from_: str, to: str, out: "Buffer", errors: str = "strict", final: bool = True,
) -> Tuple[int, int]:
    """Convert as much of `data` as fits in `out`; return ``(consumed, written)``.

    The conversion stops on a character boundary, where converting
    ``data[consumed:]`` next continues the output exactly: calling it again
    on the rest, with the output so far kept, gives exactly ``transcode``'s
    output, whatever the size of `out` (down to the longest single
    character's output) and wherever the input is cut.  With
    ``final=False`` an unfinished character at the end of `data` is left
    unconsumed, to be passed again with the input that follows.  A strict
    error raises as ``transcode`` does, with positions in this call's `data`,
    once the text before it has been converted -- but for a WTF-8 pair
    written as two 3-byte sequences (ill-formed at the trail, WTF-8 section
    4.3), which the call that starts at the lead raises, with the lead's
    output written to `out` (a call that consumed the lead would leave the
    next one a lone, well-formed trail).  Into WTF-8 with ``ignore``, no call
    ends in a lone lead surrogate that a trail after dropped bytes joins
    (WTF-8 section 6.1).

    The byte-order-mark forms (``utf-16``, ``utf-32``, ``utf-8-sig``) are
    refused (ValueError): their byte order is decided once for a whole
    text, while each call here starts afresh -- read the mark, then pass the
    fixed form it names (``utf-16-le``, ...), or use IncrementalTranscoder.
    """
    plan = _find_plan(from_, to, errors, "transcode_partial")
    if plan.marked:
        name = plan.source.name if plan.source.marks else plan.target.name
        raise ValueError(
            f"transcode_partial() does not take the byte-order-mark form {name!r}: each call starts afresh, "
            "so pass the fixed form the mark names (e.g. 'utf-16-le'), or use IncrementalTranscoder"
        )
    source = input_view(data, "transcode_partial")
    target = output_view(out, "transcode_partial")
    result = lib.utfkit_transcode_partial(
        source, len(source), plan.from_form, plan.to_form, plan.mode, 1 if final else 0, target, len(target)
    )
    status = result.status
    if status in (_OK, _OUTPUT_TOO_SMALL):
        return int(result.position), int(result.written)
    release(target)
    release(source)
    if status == _OVERLAPPING:
        raise ValueError(
            "transcode_partial(): 'out' overlaps the input's memory; utfkit does not convert in place "
            "(pass a separate output buffer)"
        )
    if status == lib.UTFKIT_UNENCODABLE:
        raise encode_error(data, plan.source.name, plan.target.name)
    raise_for(result, data, plan.source.name, plan.target.name)
    raise AssertionError("unreachable")  # raise_for raised


# --------------------------------------------------------------- validate_many


def validate_many(items: "Iterable[Buffer]", encoding: str = UTF_8) -> List[bool]:
    """``[validate(item, encoding) for item in items]``, in one call to the C core.

    For many short buffers (a server checking request fields, a batch of
    messages): the per-call cost of crossing into C is paid once, not per
    item.  Each item is any C-contiguous bytes-like object; the items are
    copied once, end to end, into one buffer (bytes.join).
    """
    known = lookup(encoding, "validate_many")
    if known.marks:  # each item has its own mark
        return [validate(item, known.name) for item in items]
    form = known.form
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
    _, fixed, skip, source = _source(data, encoding, "first_error")
    result = _check(after(source, skip), len(source) - skip, fixed.form)
    release(source)
    if skip and result.status != _OK:  # positions in the whole input
        moved = ffi.new("utfkit_result *", {"status": result.status, "position": skip + result.position,
                                            "subpart_length": result.subpart_length})
        return moved[0]
    return result
