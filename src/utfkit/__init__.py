"""utfkit: validate, repair and transcode Unicode text in buffers, spec-exact, at C speed.

The public API (DESIGN.md section 2).  ``data`` is any C-contiguous
bytes-like object -- bytes, bytearray, memoryview, mmap, array.array, a NumPy
array -- and is never copied on the way in; positions are byte offsets.
"""

from ._entries import check, count, decode, encode, sanitize, transcode, transcoded_length, valid_up_to, validate
from ._errors import IllFormed, iter_errors
from ._kernels import backend
from ._offsets import count_offsets, sanitize_offsets, validate_offsets
from ._oneshot import transcode_partial, validate_many
from ._utf8_family import wtf8_concat
from ._utfe8 import utfe8_decode, utfe8_encode
from .codec import register_codecs
from .stream import IncrementalDecoder, IncrementalTranscoder, Validator

__version__ = "0.1.0"

__all__ = [
    "IncrementalDecoder",
    "IllFormed",
    "IncrementalTranscoder",
    "Validator",
    "backend",
    "check",
    "count",
    "count_offsets",
    "decode",
    "encode",
    "iter_errors",
    "register_codecs",
    "sanitize",
    "sanitize_offsets",
    "transcode",
    "transcode_partial",
    "transcoded_length",
    "utfe8_decode",
    "utfe8_encode",
    "valid_up_to",
    "validate",
    "validate_many",
    "validate_offsets",
    "wtf8_concat",
]
