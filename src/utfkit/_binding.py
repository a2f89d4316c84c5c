"""The binding to the C core: encoding names to C forms, buffers in and out
without copies, and C results turned into the standard exceptions.

Everything above this module (the byte API, the ``str`` API, the streams,
the codecs, the CLI) reaches C through the names here, which are public
inside the package.  The cffi extension is ``utfkit._native``.
"""

from __future__ import annotations

import array
import codecs
import sys
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from ._direct import ROOM_SLACK, set_transcoder, transcode_into, transcode_new
from ._native import ffi, lib

__all__ = [
    "CPYTHON_DECODERS",
    "ROOM_SLACK",
    "ENCODINGS",
    "ERROR_MODES",
    "Encoding",
    "OutputBufferError",
    "SIZE_MAX",
    "SIZE_T_CODE",
    "UTF8_FAMILY",
    "UTFE8_FORMS",
    "after",
    "as_bytes",
    "decode_error",
    "encode_error",
    "error_mode",
    "ffi",
    "input_view",
    "lib",
    "lookup",
    "new_uninitialized",
    "output_view",
    "raise_for",
    "read_mark",
    "reason",
    "relocated",
    "release",
    "Scratch",
    "give_scratch",
    "new_scratch",
    "scratch",
    "take_scratch",
    "surrogate_sequence_unit",
    "core_address",
    "transcode_into",
    "transcode_new",
    "worst_case_size",
]

# ---------------------------------------------------------------- encodings


class Encoding(NamedTuple):
    """What the binding knows of one encoding form."""

    name: str  # canonical, as codecs.lookup spells it ("utf-16-le")
    form: int  # the C core's utfkit_form
    unit_size: int  # bytes per code unit
    # CPython's codec functions for the same form, or None (WTF-8, CESU-8,
    # MUTF-8): decode(data, errors, final) -> (str, consumed) reading any
    # buffer in place, encode(text, errors) -> (bytes, consumed).
    cpython_decode: Optional[Callable[..., Tuple[str, int]]]
    cpython_encode: Optional[Callable[..., Tuple[bytes, int]]]
    # The byte-order-mark forms (utf-16, utf-32, utf-8-sig): each mark a
    # decoder reads and strips at the start, with the fixed form it means;
    # without one, the data is in `form` (the fixed form named first).
    marks: Tuple[Tuple[bytes, str], ...] = ()


def _encoding(name: str, form: int, unit_size: int, cpython: Optional[str]) -> Encoding:
    if cpython is None:
        return Encoding(name, form, unit_size, None, None)
    return Encoding(
        name, form, unit_size,
        getattr(codecs, f"{cpython}_decode"), getattr(codecs, f"{cpython}_encode"),
    )


def _final_ignored(decode: Callable[[Any, str], Tuple[str, int]]) -> Callable[..., Tuple[str, int]]:
    """A codec function without a `final` argument (Latin-1 and ASCII never
    keep bytes for later; encodings.utf_8_sig.decode is one-shot), in the
    form decode(data, errors, final)."""
    def decode_whole(data: Any, errors: str = "strict", final: bool = False) -> Tuple[str, int]:
        return decode(data, errors)
    return decode_whole


def _narrow(name: str, form: int, cpython: str) -> Encoding:
    return Encoding(
        name, form, 1,
        _final_ignored(getattr(codecs, f"{cpython}_decode")), getattr(codecs, f"{cpython}_encode"),
    )


def _marked(name: str, marks: Tuple[Tuple[bytes, str], ...]) -> Encoding:
    """A byte-order-mark form, on CPython's codec of the same name: the
    mark it writes is marks[0] (the host's byte order, as CPython's)."""
    fixed = _FIXED[marks[0][1]]
    info = codecs.lookup(name)
    decode: Callable[..., Tuple[str, int]] = getattr(codecs, name.replace("-", "_") + "_decode", None) \
        or _final_ignored(info.decode)
    return Encoding(name, fixed.form, fixed.unit_size, decode, info.encode, marks)


_FIXED: Dict[str, Encoding] = {
    e.name: e
    for e in (
        _encoding("utf-8", lib.UTFKIT_UTF8, 1, "utf_8"),
        _encoding("utf-16-le", lib.UTFKIT_UTF16LE, 2, "utf_16_le"),
        _encoding("utf-16-be", lib.UTFKIT_UTF16BE, 2, "utf_16_be"),
        _encoding("utf-32-le", lib.UTFKIT_UTF32LE, 4, "utf_32_le"),
        _encoding("utf-32-be", lib.UTFKIT_UTF32BE, 4, "utf_32_be"),
        _encoding("wtf-8", lib.UTFKIT_WTF8, 1, None),
        _encoding("cesu-8", lib.UTFKIT_CESU8, 1, None),
        _encoding("mutf-8", lib.UTFKIT_MUTF8, 1, None),
        _narrow("latin-1", lib.UTFKIT_LATIN1, "latin_1"),
        _narrow("ascii", lib.UTFKIT_ASCII, "ascii"),
        _encoding("utf-e-8", lib.UTFKIT_UTFE8, 1, None),
        _encoding("utf-8-rfc2279", lib.UTFKIT_UTF8_RFC2279, 1, None),
    )
}

# The marks as CPython's utf-16, utf-32 and utf-8-sig codecs read them: the
# host's byte order first (what their encoders write and what data without
# a mark is read as), and a mark only when it is there whole.
_HOST, _OTHER = ("le", "be") if sys.byteorder == "little" else ("be", "le")
_MARKS_16 = {"le": b"\xff\xfe", "be": b"\xfe\xff"}
_MARKS_32 = {"le": b"\xff\xfe\x00\x00", "be": b"\x00\x00\xfe\xff"}

ENCODINGS: Dict[str, Encoding] = dict(_FIXED)
ENCODINGS.update(
    (e.name, e)
    for e in (
        _marked("utf-16", tuple((_MARKS_16[o], f"utf-16-{o}") for o in (_HOST, _OTHER))),
        _marked("utf-32", tuple((_MARKS_32[o], f"utf-32-{o}") for o in (_HOST, _OTHER))),
        _marked("utf-8-sig", ((codecs.BOM_UTF8, "utf-8"),)),
    )
)
UTF8 = ENCODINGS["utf-8"]

# codecs.lookup's names that are not utfkit's.
_CODEC_NAMES = {"iso8859-1": "latin-1"}

# The UTF-8-based forms CPython has no codec for, by every spelling utfkit
# accepts once case, '-', '_' and space are folded.
UTF8_FAMILY = frozenset({"wtf-8", "cesu-8", "mutf-8"})
# UTF-E-8 (seed 002) and the original ISO 10646 / RFC 2279 UTF-8 (seed 004):
# code points beyond Unicode's, surrogates included.
UTFE8_FORMS = frozenset({"utf-e-8", "utf-8-rfc2279"})
_FAMILY_SPELLINGS = {name.replace("-", ""): name for name in UTF8_FAMILY | UTFE8_FORMS}

# Forms that carry lone surrogates (csrc/utfkit.h): between them and UTF-16
# a lone surrogate converts like any other code point.
_CARRY_LONE_SURROGATES = frozenset({"wtf-8", "mutf-8"})
_TAKE_LONE_SURROGATES = frozenset({"wtf-8", "mutf-8", "utf-16-le", "utf-16-be"})

# CPython's decoders that keep no state between chunks beyond unfinished
# bytes (so not the byte-order-mark forms, whose byte order is decided once).
CPYTHON_DECODERS: Dict[str, Callable[..., Tuple[str, int]]] = {
    e.name: e.cpython_decode for e in ENCODINGS.values() if e.cpython_decode is not None and not e.marks
}


def read_mark(known: Encoding, source: Any) -> Tuple[Encoding, int]:
    """For a byte-order-mark form, the fixed form `source` (bytes, a
    memoryview of bytes or a uint8_t[] view) is in and the length of its
    mark, as CPython's decoder decides them; for any other form, (known, 0)."""
    if not known.marks:
        return known, 0
    longest = len(known.marks[0][0])
    if type(source) is bytes:
        head = source[:longest]
    elif type(source) is memoryview:
        head = source[:longest].tobytes()
    else:
        head = ffi.buffer(source, min(longest, len(source)))[:]
    for mark, name in known.marks:
        if head.startswith(mark):
            return _FIXED[name], len(mark)
    return _FIXED[known.marks[0][1]], 0


def after(source: Any, skip: int) -> Any:
    """What to hand C for `source` (from input_view) without its first
    `skip` bytes."""
    if skip == 0:
        return source
    return (ffi.from_buffer("uint8_t[]", source) if type(source) is bytes else source) + skip

# Every spelling met so far -> its Encoding: a call pays for name folding
# and codecs.lookup once per spelling, then one dict lookup.
_SPELLED: Dict[str, Encoding] = dict(ENCODINGS)


def _fold(encoding: str) -> Encoding:
    folded = encoding.strip().lower().replace("_", "-").replace(" ", "-")
    name = _FAMILY_SPELLINGS.get(folded.replace("-", ""))
    if name is None:
        try:
            name = codecs.lookup(encoding).name
        except LookupError:
            raise LookupError(f"unknown encoding: {encoding}") from None
    known = ENCODINGS.get(_CODEC_NAMES.get(name, name))
    if known is None:
        raise LookupError(
            f"utfkit does not handle the encoding {encoding!r}; it handles: {', '.join(ENCODINGS)}"
        )
    return known


def lookup(encoding: object, function: str, argument: str = "encoding") -> Encoding:
    """The Encoding an encoding name means (case, '-', '_' and space read as
    the codecs module reads them): TypeError for a non-str, LookupError for
    an encoding utfkit does not handle."""
    known = _SPELLED.get(encoding) if type(encoding) is str else None
    if known is not None:
        return known
    if not isinstance(encoding, str):
        raise TypeError(f"{function}() argument '{argument}' must be str, not {type(encoding).__name__}")
    known = _fold(encoding)
    if len(_SPELLED) < 1024:  # bounded: a caller inventing names cannot grow it without end
        _SPELLED[encoding] = known
    return known


ERROR_MODES: Dict[str, int] = {
    "strict": lib.UTFKIT_STRICT, "replace": lib.UTFKIT_REPLACE, "ignore": lib.UTFKIT_IGNORE,
}


def error_mode(errors: object, function: str) -> int:
    """The C core's utfkit_errors for `errors`: TypeError for a non-str,
    LookupError for a handler no codec knows, ValueError for a handler the
    core does not apply."""
    if not isinstance(errors, str):
        raise TypeError(f"{function}() argument 'errors' must be str, not {type(errors).__name__}")
    mode = ERROR_MODES.get(errors)
    if mode is not None:
        return mode
    codecs.lookup_error(errors)  # LookupError for names no codec knows, as CPython says it
    raise ValueError(
        f"{function}() handles errors='strict', 'replace' or 'ignore', not {errors!r}; "
        "for other handlers use decode() and encode()"
    )


# ------------------------------------------------------------------ buffers

_BYTES = ffi.typeof("uint8_t[]")  # parsed once, not per call
_from_buffer = ffi.from_buffer


def input_view(data: object, function: str) -> Any:
    """What to hand C as ``const uint8_t *`` for `data`, without a copy.

    ``bytes`` is returned as it is (cffi passes its internal buffer
    directly, which is cheaper than ffi.from_buffer); any other
    C-contiguous buffer becomes a uint8_t[] view whose len() is its size in
    bytes, whatever its item size.
    """
    if type(data) is bytes:
        return data
    if isinstance(data, str):
        raise TypeError(
            f"{function}() argument 'data' must be a bytes-like object, not 'str' "
            "(encode the text first, e.g. text.encode('utf-8'))"
        )
    try:
        return _from_buffer(_BYTES, data)
    except TypeError:
        raise TypeError(
            f"{function}() argument 'data' must be a bytes-like object, not {type(data).__name__!r}"
        ) from None
    except (BufferError, ValueError) as error:  # NumPy says ValueError for non-contiguous arrays
        raise BufferError(
            f"{function}() needs a C-contiguous buffer ({error}); pass a contiguous copy such as bytes(data)"
        ) from None


class OutputBufferError(BufferError, ValueError):
    """An `out=` buffer that cannot be written in place (read-only, or not
    C-contiguous): a BufferError, and a ValueError as every other bad
    `out=` is."""


def output_view(out: object, function: str) -> Any:
    """A writable uint8_t[] view of `out` (no copy)."""
    try:
        return _from_buffer(_BYTES, out, True)  # require_writable, passed by position: half the cost
    except TypeError:
        raise TypeError(
            f"{function}() argument 'out' must be a writable bytes-like object "
            f"(e.g. bytearray), not {type(out).__name__!r}"
        ) from None
    except (BufferError, ValueError) as error:
        raise OutputBufferError(f"{function}() needs a writable C-contiguous 'out' buffer ({error})") from None


def release(view: Any) -> None:
    """Stop exporting the caller's buffer now, not when `view` is collected.

    Needed before raising: an exception's traceback keeps the frames -- and
    their views -- alive, which would leave a bytearray unresizable and an
    mmap unclosable.  On success the view dies with the call's frame.
    """
    if type(view) is not bytes:
        ffi.release(view)


def as_bytes(data: object) -> bytes:
    return data if type(data) is bytes else bytes(data)  # type: ignore[call-overload]


# array.array's code for C size_t, to hand lengths to C in place.
SIZE_T_CODE = next(code for code in "QLI" if array.array(code).itemsize == ffi.sizeof("size_t"))
SIZE_MAX = int(ffi.cast("size_t", -1))

# A new ``bytes`` that the core fills in place, with no zero-filling and no
# copy out of a scratch buffer: transcode_new(data, how, capacity[, prefix])
# returns prefix + utfkit_transcode_packed(data, how) written into room for
# `capacity` bytes, shrunk to what was written, or None when the core
# reports a status other than OK (the caller calls C again for the whole
# result).  The CPython extension utfkit._direct does not link the core a
# second time: it is handed the cffi module's utfkit_transcode_packed here.
# Its transcode_into(data, how, out) writes into a caller's buffer the same
# way, returning the length written, or None for anything the cffi path
# must handle (a refused buffer, too little room, an error to raise).
def core_address(name: str) -> int:
    """The address of the core's function `name` in the cffi module, for
    the extension utfkit._direct to call (it does not link the core)."""
    return int(ffi.cast("uintptr_t", ffi.addressof(lib, name)))


set_transcoder(core_address("utfkit_transcode_packed"))

# Memory that C overwrites anyway: no zero-filling.
new_uninitialized = ffi.new_allocator(should_clear_after_alloc=False)

# Scratch space for output, reused from call to call: a conversion writes
# there and the result is copied out, so no call touches more fresh pages
# than its result's.  Kept up to this size; a larger conversion measures its
# output first (see the byte API).
SCRATCH_KEPT = 4 << 20

# A scratch buffer: as ``uint8_t *`` for C to write, as ``char *`` for
# ffi.unpack to copy out as ``bytes`` in one call, its size, and the memory
# that holds it (which the pointers do not keep alive).
Scratch = Tuple[Any, Any, int, Any]


def new_scratch(size: int) -> Scratch:
    """Scratch space that begins at a 64-byte boundary: a kernel's vector
    stores then never straddle two cache lines, which malloc's 16-byte
    alignment lets half of them do (measured: Latin-1 -> UTF-16 of 64 KiB
    took 3.2 us into a 64-byte-aligned buffer, 7.8 us 16 bytes past one)."""
    size = max(size, 1 << 16)
    space = new_uninitialized("uint8_t[]", size + 63)
    start = space + (-int(ffi.cast("uintptr_t", space)) & 63)
    return (start, ffi.cast("char *", start), size, space)


# The kept buffer, in a list used as a pool of one: take_scratch() pops it
# (IndexError while another thread's call holds it -- that call then gets
# a buffer of its own) and give_scratch() puts it back.  Each is one C call,
# atomic under the GIL; a thread-local would cost several times more.
_POOL: List[Scratch] = [new_scratch(1 << 16)]
take_scratch = _POOL.pop


def give_scratch(buffer: Scratch) -> None:
    """Keep `buffer` for the next call, unless one is kept already or it is
    larger than SCRATCH_KEPT."""
    if not _POOL and buffer[2] <= SCRATCH_KEPT:
        _POOL.append(buffer)


def scratch(size: int) -> Scratch:
    """A scratch buffer of at least `size` bytes for one call, to be handed
    back with give_scratch()."""
    try:
        buffer = take_scratch()
    except IndexError:
        return new_scratch(size)
    return buffer if buffer[2] >= size else new_scratch(size)


# The destinations of one byte per character.
_NARROW_FORMS = frozenset({lib.UTFKIT_LATIN1, lib.UTFKIT_ASCII})


def worst_case_size(length: int, source: Encoding, target: Encoding) -> int:
    """An upper bound of a conversion's output size.

    Every source code unit yields at most one code point (a character, or
    one U+FFFD for the subpart it starts), and so does a partial final
    unit.  A code point from a 1- or 2-byte unit is at most 3 bytes of
    UTF-8 (or WTF-8, CESU-8, MUTF-8) or 2 of UTF-16 (a supplementary one
    takes 2 such units, and 6 bytes of CESU-8); from a UTF-32 unit, at most
    4 bytes in any form but CESU-8 and MUTF-8, 6.  Into Latin-1 and ASCII
    every code point is one byte at most: a character, a '?' or nothing.
    """
    units = -(-length // source.unit_size)
    if target.form in _NARROW_FORMS:
        return units
    if source.unit_size == 4:
        per_unit = 6 if target.name in ("cesu-8", "mutf-8") else 4
    else:
        per_unit = (0, 3, 2, 0, 4)[target.unit_size]
    return units * per_unit


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
    status: int, encoding: str = "utf-8", unit: int = 0, subpart_length: int = 0,
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
    if encoding in ("utf-8", "utf-8-sig"):
        return _UTF_8_REASONS[status]
    if encoding == "ascii":
        return "ordinal not in range(128)"
    if encoding in UTF8_FAMILY:
        return _utf8_family_reason(status, encoding, unit, to)
    if encoding in UTFE8_FORMS:
        return _utfe8_reason(status, encoding, unit, subpart_length, to)
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
            return (f"invalid start byte ({encoding} has no 4-byte form: a supplementary "
                    "character is a surrogate pair of 3-byte sequences)")
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


# The code points UTF-E-8 and RFC 2279 encode, and the sequence length each
# lead byte announces (seed 002, seed 004).
_UTFE8_LAST = {"utf-e-8": "U+7FFFFFFFFFFFFFFF", "utf-8-rfc2279": "U+7FFFFFFF"}
_UTFE8_LENGTHS = (
    [1] * 0x80 + [0] * 0x42 + [2] * 0x1E + [3] * 0x10 + [4] * 8 + [5] * 4 + [6] * 2 + [7, 13]
)


def _utfe8_reason(
    status: int, encoding: str, lead: int, subpart_length: int, to: Optional[str]
) -> str:
    """The reasons utfkit defines for UTF-E-8 and RFC 2279 input (README,
    "Errors"): UTF-8's for a sequence cut short or broken, the form's limit
    for one above it; and for a whole sequence whose code point the target
    (`to`, or a ``str`` when None) cannot hold, why not."""
    if status == lib.UTFKIT_SURROGATE:
        return f"surrogate code point cannot be {_converted_to(to)}"
    if status == lib.UTFKIT_TOO_LARGE:
        if subpart_length != _UTFE8_LENGTHS[lead]:  # cut before the deciding byte
            return f"code point above {_UTFE8_LAST[encoding]}"
        last = "U+7FFFFFFF" if to == "utf-8-rfc2279" else "U+10FFFF"
        return f"code point above {last} cannot be {_converted_to(to)}"
    return _UTF_8_REASONS[status]


def _converted_to(to: Optional[str]) -> str:
    return "decoded to str" if to is None else f"converted to {to}"


def surrogate_sequence_unit(subsequence: bytes, status: int) -> int:
    """reason()'s `unit` for WTF-8, CESU-8, MUTF-8: the first byte of the
    ill-formed subsequence, or the surrogate a surrogate byte sequence
    (ED A0..BF 80..BF) encodes."""
    if status == lib.UTFKIT_SURROGATE:
        return 0xD000 | (subsequence[1] & 0x3F) << 6 | (subsequence[2] & 0x3F)
    return subsequence[0]


def decode_error(
    data: object, encoding: str, status: int, start: int, subpart_length: int,
    to: Optional[str] = None,
) -> UnicodeDecodeError:
    """The UnicodeDecodeError CPython's decoder would raise (utfkit's
    reasons for the forms CPython lacks); `object` is the whole input."""
    whole = as_bytes(data)
    unit = 0
    if encoding.startswith("utf-16") and status == lib.UTFKIT_SURROGATE:
        unit = int.from_bytes(whole[start : start + 2], "little" if encoding.endswith("le") else "big")
    elif encoding in UTF8_FAMILY and start < len(whole):
        unit = surrogate_sequence_unit(whole[start : start + 3], status)
    elif encoding in UTFE8_FORMS and start < len(whole):
        unit = whole[start]
    why = reason(status, encoding, unit, subpart_length, to)
    return UnicodeDecodeError(encoding, whole, start, start + subpart_length, why)


def raise_for(result: Any, data: object, source: str, target: Optional[str] = None) -> None:
    """Raise what a C result reports, if anything."""
    status = result.status
    if status == lib.UTFKIT_OK:
        return
    if status == lib.UTFKIT_OUTPUT_TOO_SMALL:
        raise MemoryError("utfkit: output larger than its worst-case bound (please report this)")
    if status == lib.UTFKIT_UNENCODABLE and target is not None:
        raise encode_error(data, source, target)
    if status == lib.UTFKIT_TOO_LARGE and result.subpart_length == 0:
        # (a UTF-32 unit above 10FFFF has a 4-byte subpart)
        raise MemoryError("utfkit: the input is too large to convert in memory")
    raise decode_error(data, source, status, result.position, result.subpart_length, target)


def encode_error(data: object, source: str, target: str) -> UnicodeEncodeError:
    """The UnicodeEncodeError of CPython's ``decode(source).encode(target)``
    for `data`, whose text the C core found a character in that `target`
    (latin-1, ascii) cannot encode: the text is built here, on the error
    path only, and CPython's encoder says where and why."""
    view = input_view(data, "transcode")
    utf32 = ENCODINGS["utf-32-le" if sys.byteorder == "little" else "utf-32-be"]
    capacity = 4 * len(view) + 4
    space = new_uninitialized("uint8_t[]", capacity)
    result = lib.utfkit_transcode(view, len(view), ENCODINGS[source].form, utf32.form, lib.UTFKIT_REPLACE,
                                  space, capacity)
    release(view)
    text = ffi.buffer(space, result.written)[:].decode(utf32.name)
    try:
        text.encode(target)
    except UnicodeEncodeError as error:
        return error
    raise AssertionError(f"utfkit: {target} encodes this text after all (please report this)")


def relocated(error: UnicodeDecodeError, data: object, known: Encoding, skip: int) -> UnicodeDecodeError:
    """`error`, raised for `data` without its byte-order mark of `skip`
    bytes, as CPython's decoder of the mark form `known` raises it: utf-16
    and utf-32 count positions in the whole input; utf-8-sig decodes what
    follows the mark as UTF-8 and reports positions in that."""
    if skip == 0 or known.name == "utf-8-sig":
        return error
    return UnicodeDecodeError(error.encoding, as_bytes(data), error.start + skip, error.end + skip, error.reason)
