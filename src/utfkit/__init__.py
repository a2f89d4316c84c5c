"""utfkit: validate, repair and transcode Unicode text in buffers, spec-exact, at C speed.

The public API (DESIGN.md section 2).  ``data`` is any C-contiguous
bytes-like object -- bytes, bytearray, memoryview, mmap, array.array, a NumPy
array -- and is never copied on the way in; positions are byte offsets.
"""

from ._core import (
    backend,
    check,
    count,
    decode,
    encode,
    sanitize,
    transcode,
    transcoded_length,
    valid_up_to,
    validate,
    validate_many,
)
from .stream import IncrementalDecoder, IncrementalTranscoder, Validator

__version__ = "0.1.0"

__all__ = [
    "IncrementalDecoder",
    "IncrementalTranscoder",
    "Validator",
    "backend",
    "check",
    "count",
    "decode",
    "encode",
    "sanitize",
    "transcode",
    "transcoded_length",
    "valid_up_to",
    "validate",
    "validate_many",
]
