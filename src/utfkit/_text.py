"""The ``str`` API: decode and encode, every encoding and error handler.

``utfkit.decode`` and ``utfkit.encode`` are C functions (``_direct.c``,
bound in ``_entries``): UTF-8, strict, between ``bytes`` and ``str`` is
answered there, the core converting straight into the new str's own
storage (or from it), several times faster than CPython's codec on text
that is not ASCII.  Every other call comes here with the same arguments:
the ``str`` is built by CPython's own codec, reading the caller's buffer in
place; WTF-8, CESU-8 and MUTF-8, which CPython lacks, go through the C core
first (``_utf8_family``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, Tuple

from ._binding import UTF8_FAMILY, UTFE8_FORMS, input_view, lookup, release
from ._utf8_family import decode_utf8_family, encode_utf8_family
from ._utfe8 import decode_utfe8_text, encode_utfe8_text

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["decode", "encode"]

UTF_8 = "utf-8"

# The encodings named to decode and encode that CPython's own codecs
# answer, as the caller spelt them: CPython's decoder and encoder functions
# (codecs.utf_16_le_decode, ...).  The C functions (_direct.c, see
# _entries) call them without a Python frame; filled as names are first
# looked up, bounded as lookup's own table.
CPYTHON_DECODERS_BY_SPELLING: Dict[str, Callable[..., Tuple[str, int]]] = {}
CPYTHON_ENCODERS_BY_SPELLING: Dict[str, Callable[..., Tuple[bytes, int]]] = {}


def decode(data: "Buffer", encoding: str = UTF_8, errors: str = "strict") -> str:
    """Identical to ``bytes(data).decode(encoding, errors)``, without the copy.

    UTF-8 ``bytes`` with ``errors="strict"`` are converted by the C core
    straight into the new ``str``'s storage (``_direct.c``).  Otherwise the
    ``str`` is built by CPython's own decoder, reading `data` in place:
    measured here, repairing the bytes in C first and then decoding was
    slower than CPython's built-in ``replace`` and ``ignore`` paths.  Every handler
    CPython accepts works, registered ones included, and an unknown handler
    name raises LookupError exactly when CPython would: on meeting the first
    ill-formed code unit.

    ``wtf-8``, ``cesu-8`` and ``mutf-8``, which CPython lacks, decode as
    their specifications say: WTF-8 and MUTF-8 yield lone surrogates as
    they are (a MUTF-8 surrogate pair joins into one character), and every
    error handler is called with utfkit's positions and reasons.
    ``utf-e-8`` and ``utf-8-rfc2279`` yield Unicode text only: a sequence of
    a surrogate or of a code point above U+10FFFF is ill-formed here.
    """
    if type(data) is bytes and encoding is UTF_8:
        # The common case, as directly as CPython's own call (CPython raises
        # the same TypeError for a non-str errors).
        return data.decode(UTF_8, errors)
    known = lookup(encoding, "decode")
    if not isinstance(errors, str):
        raise TypeError(f"decode() argument 'errors' must be str, not {type(errors).__name__}")
    release(input_view(data, "decode"))  # the same TypeError / BufferError as every other call
    if known.name in UTFE8_FORMS:
        return decode_utfe8_text(data, known.name, errors)
    if known.cpython_decode is None:
        return decode_utf8_family(data, known.name, errors)
    if type(encoding) is str and len(CPYTHON_DECODERS_BY_SPELLING) < 1024:
        CPYTHON_DECODERS_BY_SPELLING[encoding] = known.cpython_decode
    return known.cpython_decode(data, errors, True)[0]


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
    known = lookup(encoding, "encode")
    if not isinstance(errors, str):
        raise TypeError(f"encode() argument 'errors' must be str, not {type(errors).__name__}")
    if known.name in UTF8_FAMILY:
        return encode_utf8_family(text, known.name, errors)
    if known.name in UTFE8_FORMS:
        return encode_utfe8_text(text, known.name, errors)
    if type(encoding) is str and known.cpython_encode is not None and len(CPYTHON_ENCODERS_BY_SPELLING) < 1024:
        CPYTHON_ENCODERS_BY_SPELLING[encoding] = known.cpython_encode
    return text.encode(known.name, errors)
