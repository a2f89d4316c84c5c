"""utfkit.validate, check, count, sanitize, valid_up_to, transcode, transcoded_length, decode and
encode, as called by users.

Each is a C function of the extension utfkit._direct: the common calls are
answered there, with no Python frame and no cffi call in between -- below
about 256 bytes those two cost more than CPython's own codec spends on the
whole input.  validate, check, count, sanitize and valid_up_to answer one ``bytes``
object in UTF-8, or in another form without a byte-order mark once its
name is in _oneshot.FIXED_FORMS (filled as the names are first looked up);
transcode and transcoded_length answer the conversions in _oneshot.DIRECT_PLANS,
into a new ``bytes`` (inputs up to _oneshot.ONE_PASS_ROOM) or an ``out=``
buffer; decode and encode answer UTF-8, strict, between ``bytes`` and
``str`` (the core converts into the str's own storage, or from it), and
call CPython's codec without a Python frame for the encodings it answers
(_text.CPYTHON_DECODERS_BY_SPELLING, CPYTHON_ENCODERS_BY_SPELLING).  Every
other call (another encoding or buffer type, other keyword
arguments, and any input whose answer is an error to raise or a repair to
make) goes, with the same arguments, to the function of the same name in
_oneshot (decode, encode: _text), which is the reference for what each one
does.
"""

from ._binding import core_address
from ._direct import (
    check,
    count,
    decode,
    encode,
    sanitize,
    set_cpython_codecs,
    set_form_entries,
    set_length_entries,
    set_text_entries,
    set_transcode_entry,
    set_utf8_entries,
    transcode,
    transcoded_length,
    valid_up_to,
    validate,
)
from ._oneshot import DIRECT_PLANS, FIXED_FORMS, ONE_PASS_ROOM, UTF_8
from ._oneshot import check as _check_any
from ._oneshot import count as _count_any
from ._oneshot import sanitize as _sanitize_any
from ._oneshot import transcode as _transcode_any
from ._oneshot import transcoded_length as _transcoded_length_any
from ._oneshot import valid_up_to as _valid_up_to_any
from ._oneshot import validate as _validate_any
from ._text import CPYTHON_DECODERS_BY_SPELLING, CPYTHON_ENCODERS_BY_SPELLING
from ._text import decode as _decode_any
from ._text import encode as _encode_any

__all__ = ["check", "count", "decode", "encode", "sanitize", "transcode", "transcoded_length", "valid_up_to",
           "validate"]

set_utf8_entries(core_address("utfkit_utf8_validate"), core_address("utfkit_utf8_count"), UTF_8,
                 _validate_any, _check_any, _count_any, _sanitize_any)
set_form_entries(core_address("utfkit_validate"), core_address("utfkit_count"), FIXED_FORMS)
set_transcode_entry(DIRECT_PLANS, "strict", _transcode_any, ONE_PASS_ROOM)
set_text_entries(core_address("utfkit_ascii_length"), core_address("utfkit_utf8_validate_lengths"),
                 core_address("utfkit_incomplete_suffix_length"), _decode_any, _encode_any)
set_cpython_codecs(CPYTHON_DECODERS_BY_SPELLING, CPYTHON_ENCODERS_BY_SPELLING)
set_length_entries(core_address("utfkit_transcoded_length"), _valid_up_to_any, _transcoded_length_any)
