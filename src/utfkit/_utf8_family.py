"""``str`` in and out for the UTF-8-based forms CPython has no codec for:
WTF-8 (seed 003), CESU-8 (Unicode Technical Report #26) and Java's Modified
UTF-8; and WTF-8 concatenation (seed 003 section 6.5).

The bytes are converted by the C core to a form one of CPython's codecs
decodes exactly and fast, and CPython builds the ``str``:

* well-formed WTF-8 is UTF-8 plus lone surrogate byte sequences, which is
  what CPython's UTF-8 decoder with ``surrogatepass`` reads (it never meets
  a surrogate pair byte sequence, which WTF-8 forbids);
* MUTF-8 goes to WTF-8 first (its surrogate pairs joined, U+0000 made 00);
* CESU-8 goes to UTF-8 (it carries no lone surrogates).

Error handlers other than the ones the C core applies itself are called
from a loop that asks the core for each ill-formed subsequence in turn: one
Python step per error, never per byte.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Any, List

from ._binding import ENCODINGS, as_bytes, decode_error, ffi, input_view, lib, release
from ._oneshot import check, transcode

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = [
    "decode_utf8_family", "encode_utf8_family", "is_lead_surrogate_bytes", "is_trail_surrogate_bytes",
    "wtf8_concat",
]

# Where each form's bytes go before CPython decodes them, and how.
_DECODED_VIA = {"wtf-8": "wtf-8", "mutf-8": "wtf-8", "cesu-8": "utf-8"}
_CPYTHON_HANDLER_FOR = {"wtf-8": "surrogatepass", "utf-8": "strict"}

# ------------------------------------------------------------------ decode


def _decode_well_formed(data: Any, name: str) -> str:
    """The str of `data`, well-formed in `name` (or ill-formed, handled as
    `errors` says -- see decode_utf8_family)."""
    via = _DECODED_VIA[name]
    text_bytes = data if name == via else transcode(data, name, via)
    return codecs.utf_8_decode(text_bytes, _CPYTHON_HANDLER_FOR[via], True)[0]


def decode_utf8_family(data: "Buffer", name: str, errors: str) -> str:
    """``decode(data, name, errors)`` for ``wtf-8``, ``cesu-8``, ``mutf-8``."""
    if errors in ("strict", "replace") or (errors == "ignore" and name == "cesu-8"):
        # The core applies these itself.  (ignore is left to the loop for
        # the forms with lone surrogates: a lead and a trail surrogate with
        # an ignored subsequence between them are two code points of the
        # str, which no conversion through WTF-8 or UTF-16 keeps apart.)
        via = _DECODED_VIA[name]
        text_bytes = transcode(data, name, via, errors)
        return codecs.utf_8_decode(text_bytes, _CPYTHON_HANDLER_FOR[via], True)[0]
    return _decode_with_handler(data, name, errors)


def is_lead_surrogate_bytes(whole: bytes, at: int) -> bool:
    return (at >= 0 and len(whole) - at >= 3 and whole[at] == 0xED
            and 0xA0 <= whole[at + 1] <= 0xAF and 0x80 <= whole[at + 2] <= 0xBF)


def is_trail_surrogate_bytes(whole: bytes, at: int) -> bool:
    return (len(whole) - at >= 3 and whole[at] == 0xED
            and 0xB0 <= whole[at + 1] <= 0xBF and 0x80 <= whole[at + 2] <= 0xBF)


def _resume_position(newpos: object, length: int) -> int:
    if not isinstance(newpos, int):
        raise TypeError("error handler must return a (replacement, new position) tuple")
    if newpos < 0:
        newpos += length
    if not 0 <= newpos <= length:
        raise IndexError(f"position {newpos} from error handler out of bounds")
    return newpos


def _decode_with_handler(data: "Buffer", name: str, errors: str) -> str:
    whole = as_bytes(data)
    view = memoryview(whole)
    form = ENCODINGS[name].form
    handler: Any = None  # looked up at the first error, as CPython does
    pieces: List[str] = []
    position = 0
    while True:
        if (name == "wtf-8" and is_lead_surrogate_bytes(whole, position - 3)
                and is_trail_surrogate_bytes(whole, position)):
            # resumed right between the halves of a surrogate pair byte
            # sequence: the trail is ill-formed (seed 003 section 6)
            status, length, subpart = lib.UTFKIT_SURROGATE, 0, 3
        else:
            rest = ffi.from_buffer("uint8_t[]", view[position:])
            result = lib.utfkit_check(rest, len(rest), form)
            ffi.release(rest)
            status, length, subpart = result.status, result.position, result.subpart_length
        if length:
            pieces.append(_decode_well_formed(view[position : position + length], name))
        if status == lib.UTFKIT_OK:
            return "".join(pieces)
        start = position + length
        error = decode_error(whole, name, status, start, subpart)
        if handler is None:
            handler = codecs.lookup_error(errors)
        answer = handler(error)
        if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], str)):
            raise TypeError("decoding error handler must return (str, int) tuple")
        pieces.append(answer[0])
        position = _resume_position(answer[1], len(whole))


# ------------------------------------------------------------------ encode


def encode_utf8_family(text: str, name: str, errors: str) -> bytes:
    """``encode(text, name, errors)`` for ``wtf-8``, ``cesu-8``, ``mutf-8``."""
    if name == "wtf-8":
        try:
            return text.encode("utf-8")  # no surrogates: the same bytes
        except UnicodeEncodeError:
            pass
        # As potentially ill-formed UTF-16 (seed 003 section 4.1), whose
        # conversion to WTF-8 joins each lead + trail pair (section 6.3).
        return transcode(text.encode("utf-16-le", "surrogatepass"), "utf-16-le", "wtf-8")
    if name == "mutf-8":
        if text.isascii() and "\0" not in text:
            return text.encode("ascii")
        # Java's String: UTF-16 code units, lone surrogates included
        return transcode(text.encode("utf-16-le", "surrogatepass"), "utf-16-le", "mutf-8")
    return _encode_cesu8(text, errors)


def _encode_cesu8(text: str, errors: str) -> bytes:
    """CESU-8 of Unicode text: a surrogate code point in `text` goes to the
    error handler, as CPython's UTF-8 and UTF-16 encoders send it."""
    try:
        units = text.encode("utf-16-le")
    except UnicodeEncodeError:
        pass
    else:
        return transcode(units, "utf-16-le", "cesu-8")
    # UTF-32, whose offsets are the str's indices times 4
    code_points = memoryview(text.encode("utf-32-le", "surrogatepass"))
    handler: Any = None
    pieces: List[bytes] = []
    position = 0
    while True:
        rest = input_view(code_points[4 * position :], "encode")
        result = lib.utfkit_check(rest, len(rest), lib.UTFKIT_UTF32LE)
        release(rest)
        end_of_run = position + result.position // 4
        if end_of_run > position:
            pieces.append(transcode(code_points[4 * position : 4 * end_of_run], "utf-32-le", "cesu-8"))
        if result.status == lib.UTFKIT_OK:
            return b"".join(pieces)
        start = end = end_of_run
        while end < len(text) and 0xD800 <= ord(text[end]) <= 0xDFFF:
            end += 1
        error = UnicodeEncodeError("cesu-8", text, start, end, "surrogates not allowed")
        if errors == "strict":
            raise error
        if handler is None:
            handler = codecs.lookup_error(errors)
        answer = handler(error)
        if not (isinstance(answer, tuple) and len(answer) == 2
                and isinstance(answer[0], (str, bytes))):
            raise TypeError("encoding error handler must return (str/bytes, int) tuple")
        replacement = answer[0]
        if isinstance(replacement, str):
            try:
                replacement = replacement.encode("utf-16-le")
            except UnicodeEncodeError:
                raise error from None  # the replacement cannot be encoded either
            replacement = transcode(replacement, "utf-16-le", "cesu-8")
        pieces.append(replacement)
        position = _resume_position(answer[1], len(text))


# ------------------------------------------------------------ concatenation


def wtf8_concat(*parts: "Buffer") -> bytes:
    """Concatenate well-formed WTF-8 byte strings (seed 003 section 6.5).

    Where one part ends with a lead surrogate byte sequence and the next
    begins with a trail surrogate byte sequence, the two become the 4-byte
    sequence of their supplementary code point, so the result is
    well-formed WTF-8: the same as converting each part to UTF-16,
    joining the code units and converting back.  Empty parts are skipped
    over (a lead before one still joins a trail after it).

    Raises UnicodeDecodeError (positions within that part) if a part is
    not well-formed WTF-8, TypeError if it is not a bytes-like object.
    """
    pieces: List[bytes] = []
    for part in parts:
        release(input_view(part, "wtf8_concat"))  # TypeError for str and non-buffers
        check(part, "wtf-8")
        piece = as_bytes(part)
        if not piece:
            continue
        if pieces and is_trail_surrogate_bytes(piece, 0) and is_lead_surrogate_bytes(
            pieces[-1], len(pieces[-1]) - 3
        ):
            left = pieces[-1]
            lead = 0xD000 | (left[-2] & 0x3F) << 6 | (left[-1] & 0x3F)
            trail = 0xD000 | (piece[1] & 0x3F) << 6 | (piece[2] & 0x3F)
            supplementary = chr(0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00))
            pieces[-1] = left[:-3] + supplementary.encode("utf-8")
            piece = piece[3:]
            if not piece:
                continue
        pieces.append(piece)
    return b"".join(pieces)
