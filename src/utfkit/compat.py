"""Drop-in replacements for other libraries' streaming validators.

``Utf8Validator`` has the interface of autobahn-python's
``autobahn.websocket.utf8validator.Utf8Validator`` (which websocket-client
also uses when present), so that code using it switches by changing an
import::

    from utfkit.compat import Utf8Validator

It runs on utfkit's C stream (``utfkit_stream``, the same one behind
``utfkit.Validator``), so it rejects exactly the bytes Table 3-7 rejects --
which are the bytes autobahn's automaton rejects -- at C speed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Tuple

from ._binding import ffi, input_view, lib, release
from ._entries import validate as _validate_bytes
from .stream import Exclusive, new_stream, stream_state

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["UTF8_ACCEPT", "UTF8_REJECT", "Utf8Validator"]

# The values autobahn's decode() returns at a character boundary and after
# ill-formed input; any other positive value means "more bytes needed".
UTF8_ACCEPT = 0
UTF8_REJECT = 1


def _sequence_length(lead: int) -> int:
    """Bytes of the Table 3-7 row a (well-formed) lead byte begins."""
    return 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


class Utf8Validator:
    """Incremental UTF-8 validator with autobahn's interface.

    ``validate(chunk)`` returns ``(valid, endsOnCodePoint, currentIndex,
    totalIndex)``: while the bytes so far can begin well-formed UTF-8,
    ``(True, at a character boundary, len(chunk), bytes validated so far)``;
    in the call whose chunk holds the first byte that cannot,
    ``(False, False, index of that byte in the chunk, index of that byte in
    the stream)``.  After that, as autobahn does, a non-empty chunk gives
    ``(False, False, 0, totalIndex)`` and an empty one ``(True, False, 0,
    totalIndex)`` until ``reset()``.

    ``decode(byte)`` eats one byte (an int 0..255): returns ``UTF8_ACCEPT``
    (0) when it ends a character, whose value is then ``codepoint``;
    ``UTF8_REJECT`` (1) once the input is ill-formed; another positive
    number (2 + bytes still needed) in the middle of a character.  It does
    not advance ``validate``'s ``totalIndex``, as in autobahn.
    """

    __slots__ = ("_stream", "_index", "_codepoint", "_guard", "_in_c")

    def __init__(self) -> None:
        self._stream = ffi.new("utfkit_stream *")
        self._guard = Exclusive("Utf8Validator")
        self._index = 0
        self._codepoint = 0
        # Whether the C stream state holds the message: only once a chunk
        # ends inside a character or holds an error, or decode() is used.
        # Between characters, a chunk that is well-formed as a whole just
        # moves the index on.
        self._in_c = False

    def reset(self) -> None:
        """Start a new message (stream) at index 0."""
        guard = self._guard
        try:
            guard.take()
        except IndexError:
            guard.refuse()
        self._index = 0
        self._codepoint = 0
        self._in_c = False
        guard.give(True)

    # pickle and copy: an independent validator in the same state
    def __reduce__(self) -> Tuple[Any, ...]:
        with self._guard:
            state = stream_state(self._stream) if self._in_c else None
        return (_restore_utf8_validator, (self._index, self._codepoint, state))

    def _start_c(self) -> None:
        lib.utfkit_stream_init(self._stream, lib.UTFKIT_UTF8)
        self._in_c = True

    @property
    def codepoint(self) -> int:
        """The code point decode() last completed."""
        return self._codepoint

    def decode(self, b: int) -> int:
        """Eat one byte; see the class docstring for the result."""
        if not isinstance(b, int) or not 0 <= b <= 0xFF:
            raise ValueError(f"decode() takes one byte as an int in 0..255, not {b!r}")
        with self._guard:
            if not self._in_c:
                self._start_c()
            stream = self._stream
            starts_character = stream.pending_length == 0
            if lib.utfkit_stream_feed(stream, bytes((b,)), 1).status != lib.UTFKIT_OK:
                return UTF8_REJECT
            if starts_character:
                self._codepoint = b & (0x7F, 0x1F, 0x0F, 0x07)[_sequence_length(b) - 1]
            else:
                self._codepoint = (self._codepoint << 6) | (b & 0x3F)
            kept = stream.pending_length
            if kept == 0:
                return UTF8_ACCEPT
            return 2 + _sequence_length(int(stream.pending[0])) - int(kept)

    def validate(self, ba: "Buffer") -> Tuple[bool, bool, int, int]:
        """Validate the next chunk; returns (valid, endsOnCodePoint, currentIndex, totalIndex)."""
        guard = self._guard
        try:
            guard.take()
        except IndexError:
            guard.refuse()
        try:
            if not self._in_c and type(ba) is bytes and _validate_bytes(ba):
                # between characters, a well-formed bytes chunk: answered in C
                # (utfkit.validate), with no buffer to take
                self._index += len(ba)
                return (True, True, len(ba), self._index)
            source = input_view(ba, "validate")
            length = len(source)
            if not self._in_c:
                if _utf8_validate(source, length):
                    self._index += length
                    return (True, True, length, self._index)
                self._start_c()
            stream = self._stream
            if stream.status != lib.UTFKIT_OK:
                release(source)
                return (length == 0, False, 0, self._index)
            chunk_start = int(stream.offset)
            result = lib.utfkit_stream_feed(stream, source, length)
            release(source)
            if result.status == lib.UTFKIT_OK:
                self._index += length
                return (True, stream.pending_length == 0, length, self._index)
            # The rejected byte: the subpart itself for a byte that begins
            # nothing, else the byte just after the subpart it cut short.
            rejected = int(stream.error_position)
            if result.status != lib.UTFKIT_INVALID_START:
                rejected += int(stream.error_length)
            current = rejected - chunk_start
            self._index += current
            return (False, False, current, self._index)
        finally:
            guard.give(True)


_utf8_validate = lib.utfkit_utf8_validate


def _restore_utf8_validator(index: int, codepoint: int, state: Any) -> Utf8Validator:
    validator = Utf8Validator()
    validator._index, validator._codepoint = int(index), int(codepoint)
    if state is not None:
        validator._stream = new_stream(state, lib.UTFKIT_UTF8)
        validator._in_c = True
    return validator
