"""Buffers in and out, encoding names, and C results turned into exceptions.

Everything here is a thin layer over the C core (csrc/, reached through the
cffi extension ``utfkit._native``): no per-byte Python loops.  Input buffers
are handed to C in place, never copied.
"""

from __future__ import annotations

import array as _array
import codecs
import functools
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Tuple

from ._kernels import available_backends, backend, backend_of, cpu_features, set_backend
from ._native import ffi, lib

if TYPE_CHECKING:  # typeshed ships typing_extensions; nothing is imported at run time
    from typing_extensions import Buffer

__all__ = [
    "available_backends",
    "backend",
    "check",
    "count",
    "decode",
    "encode",
    "sanitize",
    "set_backend",
    "transcode",
    "transcoded_length",
    "valid_up_to",
    "validate",
    "validate_many",
]

# ---------------------------------------------------------------- encodings

UTF_8 = "utf-8"

# Canonical name (as codecs.lookup spells it) -> C encoding form.
_FORMS: Dict[str, int] = {
    "utf-8": lib.UTFKIT_UTF8,
    "utf-16-le": lib.UTFKIT_UTF16LE,
    "utf-16-be": lib.UTFKIT_UTF16BE,
    "utf-32-le": lib.UTFKIT_UTF32LE,
    "utf-32-be": lib.UTFKIT_UTF32BE,
    "wtf-8": lib.UTFKIT_WTF8,
    "cesu-8": lib.UTFKIT_CESU8,
    "mutf-8": lib.UTFKIT_MUTF8,
}
SUPPORTED_ENCODINGS: Tuple[str, ...] = tuple(_FORMS)

# The UTF-8-based forms CPython has no codec for (src/utfkit/_utf8_family.py),
# by every spelling utfkit accepts once case, '-', '_' and space are folded.
_UTF8_FAMILY_NAMES = {
    "wtf-8": "wtf-8", "wtf8": "wtf-8",
    "cesu-8": "cesu-8", "cesu8": "cesu-8",
    "mutf-8": "mutf-8", "mutf8": "mutf-8",
}

# Forms that carry lone surrogates (csrc/utfkit.h): between them and UTF-16,
# a lone surrogate converts like any other code point.
_UTF8_FAMILY_FORMS = frozenset({"wtf-8", "cesu-8", "mutf-8"})
_CARRY_LONE_SURROGATES = frozenset({"wtf-8", "mutf-8"})
_TAKE_LONE_SURROGATES = frozenset({"wtf-8", "mutf-8", "utf-16-le", "utf-16-be"})

# Bytes per code unit, for the worst-case size of a conversion's output.
_UNIT_SIZE = {"utf-8": 1, "utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4,
              "wtf-8": 1, "cesu-8": 1, "mutf-8": 1}

# CPython's decoders for the same forms; they read any buffer in place.
_CPYTHON_DECODERS: Dict[str, Callable[..., Tuple[str, int]]] = {
    "utf-8": codecs.utf_8_decode,
    "utf-16-le": codecs.utf_16_le_decode,
    "utf-16-be": codecs.utf_16_be_decode,
    "utf-32-le": codecs.utf_32_le_decode,
    "utf-32-be": codecs.utf_32_be_decode,
}


@functools.lru_cache(maxsize=128)
def _canonical(encoding: str) -> str:
    folded = encoding.strip().lower().replace("_", "-").replace(" ", "-")
    if folded in _UTF8_FAMILY_NAMES:
        return _UTF8_FAMILY_NAMES[folded]
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise LookupError(f"unknown encoding: {encoding}") from None
    if name not in _FORMS:
        raise LookupError(
            f"utfkit does not handle the encoding {encoding!r}; "
            f"it handles: {', '.join(SUPPORTED_ENCODINGS)} "
            "(UTF-16 and UTF-32 with an explicit byte order)"
        )
    return name


def _normalize_encoding(encoding: object, function: str, argument: str = "encoding") -> str:
    """Canonical name of a supported encoding (case, '-', '_' and space are
    read as the codecs module reads them), or LookupError."""
    if encoding is UTF_8 or encoding == UTF_8:  # the default, without a lookup
        return UTF_8
    if not isinstance(encoding, str):
        raise TypeError(
            f"{function}() argument '{argument}' must be str, not {type(encoding).__name__}"
        )
    return _canonical(encoding)


_ERROR_MODES = {"strict": lib.UTFKIT_STRICT, "replace": lib.UTFKIT_REPLACE, "ignore": lib.UTFKIT_IGNORE}


def _error_mode(errors: object, function: str) -> int:
    if not isinstance(errors, str):
        raise TypeError(f"{function}() argument 'errors' must be str, not {type(errors).__name__}")
    try:
        return _ERROR_MODES[errors]
    except KeyError:
        pass
    codecs.lookup_error(errors)  # LookupError for names no codec knows, as CPython says it
    raise ValueError(
        f"{function}() handles errors='strict', 'replace' or 'ignore', not {errors!r}; "
        "for other handlers use decode() and encode()"
    )


# ------------------------------------------------------------------ buffers


def _input(data: object, function: str) -> Any:
    """A uint8_t[] view of `data`'s memory (no copy) for passing to C.

    Its len() is the buffer's size in bytes, whatever the item size.  A
    ``bytes`` object is returned as it is: cffi passes its internal buffer
    to a ``const uint8_t *`` parameter directly, which is cheaper than
    ffi.from_buffer for the small inputs servers see most.
    """
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        raise TypeError(
            f"{function}() argument 'data' must be a bytes-like object, not 'str' "
            "(encode the text first, e.g. text.encode('utf-8'))"
        )
    try:
        return ffi.from_buffer("uint8_t[]", data)
    except TypeError:
        raise TypeError(
            f"{function}() argument 'data' must be a bytes-like object, "
            f"not {type(data).__name__!r}"
        ) from None
    except (BufferError, ValueError) as error:  # NumPy says ValueError for non-contiguous arrays
        raise BufferError(
            f"{function}() needs a C-contiguous buffer ({error}); "
            "pass a contiguous copy such as bytes(data)"
        ) from None


def _output(out: object, function: str) -> Any:
    """A writable uint8_t[] view of `out` (no copy)."""
    try:
        return ffi.from_buffer("uint8_t[]", out, require_writable=True)
    except TypeError:
        raise TypeError(
            f"{function}() argument 'out' must be a writable bytes-like object "
            f"(e.g. bytearray), not {type(out).__name__!r}"
        ) from None
    except (BufferError, ValueError) as error:
        raise BufferError(f"{function}() needs a writable C-contiguous 'out' buffer ({error})") from None


def _release(view: Any) -> None:
    """Stop exporting the caller's buffer now, not when `view` is collected:
    an exception's traceback keeps the frames -- and their views -- alive,
    which would leave a bytearray unresizable and an mmap unclosable."""
    if type(view) is not bytes:
        ffi.release(view)


def _as_bytes(data: object) -> bytes:
    return data if type(data) is bytes else bytes(data)  # type: ignore[call-overload]


# array.array's code for C size_t, to hand lengths to C in place.
_SIZE_T_CODE = next(code for code in "QLI" if _array.array(code).itemsize == ffi.sizeof("size_t"))
_SIZE_MAX = int(ffi.cast("size_t", -1))

# Output scratch space that C overwrites anyway: no zero-filling.
_new_uninitialized = ffi.new_allocator(should_clear_after_alloc=False)

# ------------------------------------------------------------------ errors

# Reasons, worded as CPython's decoders word them.
_UTF_8_REASONS = {
    lib.UTFKIT_INVALID_START: "invalid start byte",
    lib.UTFKIT_INVALID_CONTINUATION: "invalid continuation byte",
    lib.UTFKIT_END_OF_DATA: "unexpected end of data",
}
_UTF_32_REASONS = {
    lib.UTFKIT_END_OF_DATA: "truncated data",
    lib.UTFKIT_SURROGATE: "code point in surrogate code point range(0xd800, 0xe000)",
    lib.UTFKIT_TOO_LARGE: "code point not in range(0x110000)",
}


def reason(
    status: int, encoding: str = UTF_8, unit: int = 0, subpart_length: int = 0,
    to: Optional[str] = None,
) -> str:
    """CPython's wording for an ill-formed subsequence the C core reported.

    For UTF-16, `unit` is the code unit at the error (a lead surrogate with
    no trail, or a lone trail surrogate) and `subpart_length` tells a final
    odd byte from a surrogate pair cut short.  For WTF-8, CESU-8 and MUTF-8
    (whose reasons utfkit defines, in UTF-8's words where UTF-8's apply),
    `unit` is the first byte of the subsequence -- or, for a surrogate byte
    sequence, the surrogate code point it encodes -- and `to` the encoding
    a conversion was writing, if any.
    """
    if encoding == UTF_8:
        return _UTF_8_REASONS[status]
    if encoding in _CARRY_LONE_SURROGATES or encoding == "cesu-8":
        return _utf8_family_reason(status, encoding, unit, to)
    if encoding.startswith("utf-32"):
        return _UTF_32_REASONS[status]
    if status == lib.UTFKIT_END_OF_DATA:
        return "truncated data" if subpart_length < 2 else "unexpected end of data"
    return "illegal UTF-16 surrogate" if 0xD800 <= unit <= 0xDBFF else "illegal encoding"


def _utf8_family_reason(status: int, encoding: str, unit: int, to: Optional[str]) -> str:
    """The reasons utfkit defines for WTF-8, CESU-8 and MUTF-8 input
    (README, "Errors"); the cuts are in csrc/utfkit.h."""
    if status == lib.UTFKIT_INVALID_START:
        if encoding != "wtf-8" and 0xF0 <= unit <= 0xF4:
            return f"invalid start byte ({encoding} has no 4-byte form: a supplementary " \
                   "character is a surrogate pair of 3-byte sequences)"
        if encoding == "mutf-8" and unit == 0:
            return "invalid start byte (mutf-8 writes U+0000 as C0 80)"
        return "invalid start byte"
    if status == lib.UTFKIT_SURROGATE:
        if encoding == "cesu-8":
            which = "lead" if unit < 0xDC00 else "trail"
            return f"unpaired {which} surrogate byte sequence"
        if to is not None and to not in _TAKE_LONE_SURROGATES:
            return f"lone surrogate byte sequence cannot be converted to {to}"
        return "surrogate pair byte sequence (wtf-8 writes the pair as one 4-byte sequence)"
    return _UTF_8_REASONS[status]


def _utf8_family_unit(subsequence: bytes, status: int) -> int:
    """reason()'s `unit` for WTF-8, CESU-8, MUTF-8: the first byte of the
    ill-formed subsequence, or the surrogate a surrogate byte sequence
    (ED A0..BF 80..BF) encodes."""
    if status == lib.UTFKIT_SURROGATE:
        return 0xD000 | (subsequence[1] & 0x3F) << 6 | (subsequence[2] & 0x3F)
    return subsequence[0]


def _decode_error(data: object, encoding: str, result: Any, to: Optional[str] = None) -> UnicodeDecodeError:
    whole = _as_bytes(data)
    start = result.position
    unit = 0
    if encoding.startswith("utf-16") and result.status == lib.UTFKIT_SURROGATE:
        unit = int.from_bytes(whole[start : start + 2], "little" if encoding.endswith("le") else "big")
    elif encoding in _UTF8_FAMILY_FORMS and start < len(whole):
        unit = _utf8_family_unit(whole[start : start + 3], result.status)
    why = reason(result.status, encoding, unit, result.subpart_length, to)
    return UnicodeDecodeError(encoding, whole, start, start + result.subpart_length, why)


def first_error(data: "Buffer", function: str = "first_error", encoding: str = UTF_8) -> Any:
    """The C result of utfkit_check: status, position, subpart_length.

    For callers (the CLI) that need the position without building a
    UnicodeDecodeError, which copies the whole input.
    """
    source = _input(data, function)
    return lib.utfkit_check(source, len(source), _FORMS[_normalize_encoding(encoding, function)])


# ---------------------------------------------------------------- the API


# Up to this size, bytes.isascii() (no C call through cffi) answers for
# ASCII input faster than the call to the C core costs; above it the kernels
# are faster (see benchmarks/test_bench_small.py).
_ISASCII_FIRST_UP_TO = 4096
_utf8_validate = lib.utfkit_utf8_validate


def validate(data: "Buffer", encoding: str = UTF_8) -> bool:
    """True if `data` is well-formed in `encoding` (UTF-8: Table 3-7 exactly)."""
    if type(data) is bytes and encoding is UTF_8:
        # The common server case, with as little Python around the C call
        # as possible: short ASCII text needs no call at all.
        if len(data) <= _ISASCII_FIRST_UP_TO and data.isascii():
            return True
        return _utf8_validate(data, len(data)) != 0
    form = _FORMS[_normalize_encoding(encoding, "validate")]
    source = _input(data, "validate")
    return bool(lib.utfkit_validate(source, len(source), form))


def validate_many(items: "Iterable[Buffer]", encoding: str = UTF_8) -> List[bool]:
    """``[validate(item, encoding) for item in items]``, in one call to the C core.

    For many short buffers (a server checking request fields, a batch of
    messages): the per-call cost of crossing into C is paid once, not per
    item.  Each item is any C-contiguous bytes-like object; the items are
    copied once, end to end, into one buffer (bytes.join).
    """
    form = _FORMS[_normalize_encoding(encoding, "validate_many")]
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
    count = len(items)
    if count == 0:
        return []
    try:
        joined = b"".join(items)
    except (TypeError, BufferError):
        _raise_for_bad_item(items)
        raise
    # len() counts bytes for every buffer of one-byte items (bytes,
    # bytearray, most memoryviews); the C core refuses lengths that do not
    # add up, and then each item's size is taken from its buffer.
    lengths = _array.array(_SIZE_T_CODE, map(len, items))
    valid = _new_uninitialized("uint8_t[]", count)
    well_formed = lib.utfkit_validate_many(
        joined, len(joined), ffi.from_buffer("size_t[]", lengths), count, form, valid
    )
    if well_formed == _SIZE_MAX:
        lengths = _array.array(_SIZE_T_CODE, (memoryview(item).nbytes for item in items))
        well_formed = lib.utfkit_validate_many(
            joined, len(joined), ffi.from_buffer("size_t[]", lengths), count, form, valid
        )
    if well_formed == count:
        return [True] * count
    return list(map(bool, ffi.buffer(valid, count)[:]))


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
                f"validate_many() item {index} must be a bytes-like object, "
                f"not {type(item).__name__!r}"
            ) from None
        if not view.c_contiguous:
            raise BufferError(
                f"validate_many() item {index} is not a C-contiguous buffer; "
                "pass a contiguous copy such as bytes(item)"
            )


def check(data: "Buffer", encoding: str = UTF_8) -> None:
    """Raise UnicodeDecodeError at the first ill-formed subsequence of `data`.

    ``start``, ``end`` and ``reason`` are those of
    ``bytes(data).decode(encoding)``; for UTF-8, ``end - start`` is the
    length of the maximal subpart (Unicode 3.9, D93b).
    """
    name = _normalize_encoding(encoding, "check")
    source = _input(data, "check")
    result = lib.utfkit_check(source, len(source), _FORMS[name])
    _release(source)
    if result.status != lib.UTFKIT_OK:
        raise _decode_error(data, name, result)


def valid_up_to(data: "Buffer", encoding: str = UTF_8) -> int:
    """Length in bytes of the longest well-formed prefix ending on a character boundary."""
    form = _FORMS[_normalize_encoding(encoding, "valid_up_to")]
    source = _input(data, "valid_up_to")
    return int(lib.utfkit_check(source, len(source), form).position)


def sanitize(data: "Buffer", encoding: str = UTF_8) -> bytes:
    """`data` with each ill-formed subsequence replaced by U+FFFD, in the same form.

    For UTF-8 each maximal subpart becomes EF BF BD; for UTF-16 and UTF-32,
    each unit CPython's ``replace`` handler replaces.  Returns `data` itself
    when it is a ``bytes`` object and already valid.
    """
    name = _normalize_encoding(encoding, "sanitize")
    form = _FORMS[name]
    source = _input(data, "sanitize")
    try:
        length = len(source)
        if lib.utfkit_validate(source, length, form):
            return _as_bytes(data)
        if form == lib.UTFKIT_UTF8:  # valid runs copied whole, not re-encoded
            return _write_fresh(
                lambda dst, cap: lib.utfkit_utf8_sanitize(source, length, dst, cap),
                length * 3, data, name,
            )
        # a final partial unit becomes a whole U+FFFD; in the UTF-8-based
        # forms a single byte can become one (3 bytes)
        capacity = 3 * length if _UNIT_SIZE[name] == 1 else length + _UNIT_SIZE[name]
        return _write_fresh(
            lambda dst, cap: lib.utfkit_transcode(source, length, form, form, lib.UTFKIT_REPLACE, dst, cap),
            capacity, data, name,
        )
    finally:
        _release(source)


def _write_fresh(
    write: Callable[[Any, int], Any], capacity: int, data: object, from_name: str,
    to_name: Optional[str] = None,
) -> bytes:
    """Run a C writer, ``write(dst, cap)``, in one pass into uninitialised
    scratch space of the worst-case size (only the pages written are ever
    touched), raise what it reports, and copy the bytes written into a new
    ``bytes``.  Measured here, one pass plus a copy beats an exact-size
    first pass plus writing in place: a pass over the text costs more than
    the copy."""
    scratch = _new_uninitialized("uint8_t[]", max(capacity, 1))
    result = write(scratch, capacity)
    _raise_for(result, data, from_name, to_name)
    return ffi.buffer(scratch, result.written)[:]


def _raise_for(result: Any, data: object, from_name: str, to_name: Optional[str] = None) -> None:
    status = result.status
    if status == lib.UTFKIT_OK:
        return
    if status == lib.UTFKIT_OUTPUT_TOO_SMALL:
        raise MemoryError("utfkit: output larger than its worst-case bound (please report this)")
    if status == lib.UTFKIT_TOO_LARGE and result.subpart_length == 0:
        # (a UTF-32 unit above 10FFFF has a 4-byte subpart)
        raise MemoryError("utfkit: the input is too large to convert in memory")
    raise _decode_error(data, from_name, result, to_name)


def _worst_case_size(length: int, from_name: str, to_name: str) -> int:
    """An upper bound of a conversion's output size.

    Every source code unit yields at most one code point (a character, or
    one U+FFFD for the subpart it starts), and so does a partial final
    unit.  A code point from a 1- or 2-byte unit is at most 3 bytes of
    UTF-8 (or WTF-8, CESU-8, MUTF-8) or 2 of UTF-16 (a supplementary one
    takes 2 such units, and 6 bytes of CESU-8); from a UTF-32 unit, at most
    4 bytes in any form but CESU-8 and MUTF-8, 6.
    """
    from_unit, to_unit = _UNIT_SIZE[from_name], _UNIT_SIZE[to_name]
    units = -(-length // from_unit)
    if from_unit == 4:
        per_unit = 6 if to_name in ("cesu-8", "mutf-8") else 4
    else:
        per_unit = {1: 3, 2: 2, 4: 4}[to_unit]
    return units * per_unit


def transcode(
    data: "Buffer",
    from_: str,
    to: str,
    errors: str = "strict",
    out: Optional[Any] = None,
) -> Any:
    """Convert `data` from one encoding form to another, buffer to buffer.

    Equal to ``bytes(data).decode(from_, errors).encode(to)`` with no
    ``str`` in between.  `errors` is ``"strict"`` (raise
    UnicodeDecodeError with CPython's start, end and reason), ``"replace"``
    (U+FFFD per maximal subpart of UTF-8, per unpaired surrogate or invalid
    unit of UTF-16/UTF-32) or ``"ignore"``.

    Returns ``bytes``; or, with `out` (any writable buffer), writes there
    and returns the number of bytes written, raising ValueError if `out` is
    too small -- nothing is ever written past its end.
    """
    from_name = _normalize_encoding(from_, "transcode", "from_")
    to_name = _normalize_encoding(to, "transcode", "to")
    mode = _error_mode(errors, "transcode")
    from_form, to_form = _FORMS[from_name], _FORMS[to_name]
    source = _input(data, "transcode")
    try:
        if out is not None:
            return _transcode_into(source, data, from_name, from_form, to_form, mode, out)
        return _transcode_new(source, data, from_name, to_name, from_form, to_form, mode)
    finally:
        _release(source)


def _transcode_into(
    source: Any, data: object, from_name: str, from_form: int, to_form: int, mode: int, out: Any
) -> int:
    target = _output(out, "transcode")
    try:
        result = lib.utfkit_transcode(
            source, len(source), from_form, to_form, mode, target, len(target)
        )
        room = len(target)
    finally:
        _release(target)
    if result.status == lib.UTFKIT_OUTPUT_TOO_SMALL:
        raise ValueError(
            f"transcode(): 'out' has room for {room} bytes; the output needs {result.written}"
        )
    _raise_for(result, data, from_name, _name_of_form(to_form))
    return int(result.written)


def _transcode_new(
    source: Any, data: object, from_name: str, to_name: str, from_form: int, to_form: int,
    mode: int,
) -> bytes:
    length = len(source)
    if from_form == to_form and lib.utfkit_validate(source, length, from_form):
        return _as_bytes(data)  # well-formed already: the output is the input, no copy
    if {from_name, to_name} == {"utf-8", "wtf-8"} and lib.utfkit_utf8_validate(source, length):
        return _as_bytes(data)  # UTF-8 is WTF-8 unchanged (seed 003 section 6.4)
    return _write_fresh(
        lambda dst, cap: lib.utfkit_transcode(source, length, from_form, to_form, mode, dst, cap),
        _worst_case_size(length, from_name, to_name), data, from_name, to_name,
    )


def transcoded_length(data: "Buffer", from_: str, to: str, errors: str = "strict") -> int:
    """Exact length in bytes of ``transcode(data, from_, to, errors)``.

    Raises UnicodeDecodeError, as transcode does, for ill-formed input with
    ``errors="strict"``.
    """
    from_name = _normalize_encoding(from_, "transcoded_length", "from_")
    to_name = _normalize_encoding(to, "transcoded_length", "to")
    mode = _error_mode(errors, "transcoded_length")
    source = _input(data, "transcoded_length")
    result = lib.utfkit_transcoded_length(
        source, len(source), _FORMS[from_name], _FORMS[to_name], mode
    )
    _release(source)
    _raise_for(result, data, from_name, to_name)
    return int(result.written)


def _name_of_form(form: int) -> str:
    for name, value in _FORMS.items():
        if value == form:
            return name
    raise ValueError(f"no encoding form {form}")


def decode(data: "Buffer", encoding: str = UTF_8, errors: str = "strict") -> str:
    """Identical to ``bytes(data).decode(encoding, errors)``, without the copy.

    The ``str`` is built by CPython's own decoder, reading `data` in place:
    nothing outside CPython can build a ``str`` faster, and measured here,
    repairing the bytes in C first and then decoding was slower than
    CPython's built-in ``replace`` and ``ignore`` paths.  Every handler
    CPython accepts works, registered ones included, and an unknown handler
    name raises LookupError exactly when CPython would: on meeting the first
    ill-formed code unit.

    ``wtf-8``, ``cesu-8`` and ``mutf-8``, which CPython lacks, decode as
    their specifications say: WTF-8 and MUTF-8 yield lone surrogates as
    they are (a MUTF-8 surrogate pair joins into one character), and every
    error handler is called with utfkit's positions and reasons.
    """
    if type(data) is bytes and encoding is UTF_8:
        # The common case, as directly as CPython's own call: at 64 KiB of
        # ASCII a decode takes a few microseconds, so even the checks below
        # would show (CPython raises the same TypeError for a non-str errors).
        return data.decode(UTF_8, errors)
    name = _normalize_encoding(encoding, "decode")
    if not isinstance(errors, str):
        raise TypeError(f"decode() argument 'errors' must be str, not {type(errors).__name__}")
    _input(data, "decode")  # the same TypeError / BufferError as every other call
    if name in _UTF8_FAMILY_FORMS:
        from ._utf8_family import decode_utf8_family

        return decode_utf8_family(data, name, errors)
    return _CPYTHON_DECODERS[name](data, errors, True)[0]


def encode(text: str, encoding: str = UTF_8, errors: str = "strict") -> bytes:
    """Identical to ``text.encode(encoding, errors)``.

    Lone surrogates follow `errors` exactly as CPython's encoders treat them
    (strict raises UnicodeEncodeError; surrogatepass, replace, ignore,
    backslashreplace and the rest as CPython does).

    ``wtf-8`` writes lone surrogates as surrogate byte sequences and joins a
    lead surrogate followed by a trail surrogate into one 4-byte sequence
    (seed 003 section 6.1); ``mutf-8`` writes every code point as Java's
    String does (U+0000 as C0 80, supplementary characters and surrogates
    as 3-byte surrogate sequences); ``cesu-8`` does so for Unicode text
    only: a surrogate in `text` goes to the `errors` handler.
    """
    if not isinstance(text, str):
        raise TypeError(f"encode() argument 'text' must be str, not {type(text).__name__}")
    name = _normalize_encoding(encoding, "encode")
    if not isinstance(errors, str):
        raise TypeError(f"encode() argument 'errors' must be str, not {type(errors).__name__}")
    if name in _UTF8_FAMILY_FORMS:
        from ._utf8_family import encode_utf8_family

        return encode_utf8_family(text, name, errors)
    return text.encode(name, errors)


def count(data: "Buffer", encoding: str = UTF_8) -> int:
    """Number of code points ``decode(data, encoding, errors="replace")`` yields."""
    form = _FORMS[_normalize_encoding(encoding, "count")]
    source = _input(data, "count")
    return int(lib.utfkit_count(source, len(source), form))
