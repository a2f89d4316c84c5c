"""Buffers in and out, encoding names, and C results turned into exceptions.

Everything here is a thin layer over the C core (csrc/, reached through the
cffi extension ``utfkit._native``): no per-byte Python loops.  Input buffers
are handed to C in place, never copied.
"""

from __future__ import annotations

import codecs
import os
from typing import TYPE_CHECKING, Any, Optional

from ._native import ffi, lib

if TYPE_CHECKING:  # typeshed ships typing_extensions; nothing is imported at run time
    from typing_extensions import Buffer

__all__ = [
    "available_backends",
    "backend",
    "check",
    "count",
    "decode",
    "sanitize",
    "set_backend",
    "valid_up_to",
    "validate",
]

# ---------------------------------------------------------------- encodings

UTF_8 = "utf-8"

# Spellings of UTF-8 after normalisation (lower case; '-' and ' ' read as
# '_', as the codecs module reads them), CPython's aliases included.
_UTF_8_SPELLINGS = frozenset({"utf_8", "utf8", "u8", "utf", "cp65001", "utf8_ucs2", "utf8_ucs4"})

SUPPORTED_ENCODINGS = (UTF_8,)


def _normalize_encoding(encoding: object, function: str) -> str:
    """Canonical name of a supported encoding, or LookupError."""
    if encoding is UTF_8 or encoding == UTF_8:  # the default, without the work below
        return UTF_8
    if not isinstance(encoding, str):
        raise TypeError(
            f"{function}() argument 'encoding' must be str, not {type(encoding).__name__}"
        )
    key = encoding.strip().lower().replace("-", "_").replace(" ", "_")
    if key in _UTF_8_SPELLINGS:
        return UTF_8
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise LookupError(f"unknown encoding: {encoding}") from None
    raise LookupError(
        f"utfkit does not handle the encoding {encoding!r}; "
        f"it handles: {', '.join(SUPPORTED_ENCODINGS)}"
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


def _as_bytes(data: object) -> bytes:
    return data if type(data) is bytes else bytes(data)  # type: ignore[call-overload]


# Output scratch space that C overwrites anyway: no zero-filling.
_new_uninitialized = ffi.new_allocator(should_clear_after_alloc=False)

# Reasons, worded as CPython's UTF-8 decoder words them.
_UTF_8_REASONS = {
    lib.UTFKIT_INVALID_START: "invalid start byte",
    lib.UTFKIT_INVALID_CONTINUATION: "invalid continuation byte",
    lib.UTFKIT_END_OF_DATA: "unexpected end of data",
}


def reason(status: int) -> str:
    """CPython's wording for a C status of a UTF-8 reader."""
    return _UTF_8_REASONS[status]


def _decode_error(data: object, result: Any) -> UnicodeDecodeError:
    start = result.position
    return UnicodeDecodeError(
        UTF_8, _as_bytes(data), start, start + result.subpart_length, reason(result.status)
    )


def first_error(data: "Buffer", function: str = "first_error") -> Any:
    """The C result of utfkit_utf8_check: status, position, subpart_length.

    For callers (the CLI) that need the position without building a
    UnicodeDecodeError, which copies the whole input.
    """
    source = _input(data, function)
    return lib.utfkit_utf8_check(source, len(source))


# ---------------------------------------------------------------- the API


def validate(data: "Buffer", encoding: str = UTF_8) -> bool:
    """True if `data` is well-formed in `encoding` (UTF-8: Table 3-7 exactly)."""
    _normalize_encoding(encoding, "validate")
    source = _input(data, "validate")
    return bool(lib.utfkit_utf8_validate(source, len(source)))


def check(data: "Buffer", encoding: str = UTF_8) -> None:
    """Raise UnicodeDecodeError at the first ill-formed subsequence of `data`.

    ``start``, ``end`` and ``reason`` are those of
    ``bytes(data).decode(encoding)``: ``end - start`` is the length of the
    maximal subpart (Unicode 3.9, D93b).
    """
    _normalize_encoding(encoding, "check")
    source = _input(data, "check")
    result = lib.utfkit_utf8_check(source, len(source))
    if result.status != lib.UTFKIT_OK:
        raise _decode_error(data, result)


def valid_up_to(data: "Buffer", encoding: str = UTF_8) -> int:
    """Length in bytes of the longest well-formed prefix ending on a character boundary."""
    _normalize_encoding(encoding, "valid_up_to")
    source = _input(data, "valid_up_to")
    return int(lib.utfkit_utf8_check(source, len(source)).position)


def sanitize(data: "Buffer", encoding: str = UTF_8) -> bytes:
    """`data` with each maximal subpart of ill-formed text replaced by U+FFFD.

    Returns `data` itself when it is a ``bytes`` object and already valid.
    """
    _normalize_encoding(encoding, "sanitize")
    source = _input(data, "sanitize")
    length = len(source)
    if lib.utfkit_utf8_check(source, length).status == lib.UTFKIT_OK:
        return _as_bytes(data)
    return _repair(lib.utfkit_utf8_sanitize, source, length)


def _repair(writer: Any, source: Any, length: int) -> bytes:
    """Run a C repair writer (sanitize) in one pass into scratch space sized
    by a guess (ill-formed text is usually sparse), and again at the exact
    size the first call reports if the guess was short; then copy the bytes
    out.  Measured here, one pass plus a copy beats an exact-size first pass
    plus writing in place: the DFA pass costs more than the copy.
    """
    capacity = length + max(64, length >> 5)
    scratch = _new_uninitialized("uint8_t[]", capacity)
    result = writer(source, length, scratch, capacity)
    if result.status == lib.UTFKIT_OUTPUT_TOO_SMALL:
        capacity = result.written
        scratch = _new_uninitialized("uint8_t[]", max(capacity, 1))
        result = writer(source, length, scratch, capacity)
    if result.status != lib.UTFKIT_OK:
        raise MemoryError("utfkit: the repaired text would not fit in memory")
    return ffi.buffer(scratch, result.written)[:]


def decode(data: "Buffer", encoding: str = UTF_8, errors: str = "strict") -> str:
    """Identical to ``bytes(data).decode(encoding, errors)``, without the copy.

    The ``str`` is built by CPython's own UTF-8 decoder, reading `data` in
    place: nothing outside CPython can build a ``str`` faster, and measured
    here, repairing the bytes in C first and then decoding was slower than
    CPython's built-in ``replace`` and ``ignore`` paths.  Every handler
    CPython accepts works, registered ones included, and an unknown handler
    name raises LookupError exactly when CPython would: on meeting the first
    ill-formed byte.
    """
    _normalize_encoding(encoding, "decode")
    if not isinstance(errors, str):
        raise TypeError(f"decode() argument 'errors' must be str, not {type(errors).__name__}")
    _input(data, "decode")  # the same TypeError / BufferError as every other call
    return codecs.utf_8_decode(data, errors, True)[0]  # type: ignore[arg-type]


def count(data: "Buffer", encoding: str = UTF_8) -> int:
    """Number of code points ``decode(data, encoding, errors="replace")`` yields."""
    _normalize_encoding(encoding, "count")
    source = _input(data, "count")
    return int(lib.utfkit_utf8_count(source, len(source)))


# ---------------------------------------------------------------- kernels

_KERNEL_NAMES = ("scalar", "sse2", "avx2", "avx512")


def available_backends() -> list:
    """Kernels this CPU can run, slowest first (the last is the default)."""
    return [name for name in _KERNEL_NAMES if lib.utfkit_backend_available(name.encode())]


def set_backend(name: Optional[str]) -> None:
    """Make `name` the active kernel (None: the best for this CPU).

    Meant for tests and benchmarks; not safe while other threads call utfkit.
    """
    if name is None:
        lib.utfkit_set_backend(ffi.NULL)
        return
    status = lib.utfkit_set_backend(name.encode())
    if status == -1:
        raise ValueError(f"unknown utfkit backend {name!r}; known: {', '.join(_KERNEL_NAMES)}")
    if status == -2:
        raise ValueError(
            f"utfkit backend {name!r} cannot run on this CPU; "
            f"available: {', '.join(available_backends())}"
        )


def backend() -> str:
    """The active kernel: 'scalar', 'sse2', 'avx2' or 'avx512'."""
    return ffi.string(lib.utfkit_backend()).decode("ascii")


def cpu_features() -> str:
    """CPU features the dispatcher detected, space-separated."""
    return ffi.string(lib.utfkit_cpu_features()).decode("ascii")


set_backend(os.environ.get("UTFKIT_BACKEND") or None)
