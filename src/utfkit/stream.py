"""Text that arrives in pieces: Validator, IncrementalDecoder, IncrementalTranscoder.

Servers see text in chunks -- HTTP bodies, WebSocket frames split anywhere.
Each object here reads a stream chunk by chunk and gives exactly what the
one-shot function gives for the whole stream, however it is split:

* ``Validator`` checks, failing fast (RFC 6455 section 8.1): ``feed``
  raises in the very call that delivers the byte that makes the stream
  ill-formed, with ``start``/``end``/``reason`` of ``utfkit.check(whole
  stream)``.  Its state lives in C (``utfkit_stream``, csrc/stream.c).
* ``IncrementalDecoder`` is a ``codecs.IncrementalDecoder``: the output of
  ``bytes(whole).decode(encoding, errors)``.
* ``IncrementalTranscoder`` converts buffer to buffer: the output of
  ``utfkit.transcode(whole, from_, to, errors)``.

All three cut each chunk where a reader of the whole stream is between
characters, which the C core finds from the chunk's last bytes
(``utfkit_incomplete_suffix_length``); only an unfinished character (at most
3 bytes) is carried to the next chunk, and a chunk is never copied: the
carried bytes are completed from the chunk's first few bytes in a small
buffer, and the rest of the chunk is read in place.

One stream is read in order, so an object refuses to be used from two threads
at once (``RuntimeError``) rather than mix their chunks up; give each thread
(or connection) its own object.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Any, List, NoReturn, Optional, Tuple

from ._binding import (
    CPYTHON_DECODERS,
    ENCODINGS,
    as_bytes,
    error_mode,
    ffi,
    input_view,
    lib,
    lookup,
    reason,
    release,
)
from ._oneshot import CPYTHON_UP_TO, ISASCII_UP_TO, UTF_8, transcode, validate

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["Exclusive", "IncrementalDecoder", "IncrementalTranscoder", "Validator"]

# A character (UTF-8), a surrogate pair (UTF-16) or a code unit (UTF-32) is
# at most 4 bytes: 4 - len(carried) more bytes always settle what the
# carried bytes begin (csrc/stream.c, STREAM_DECISION_BYTES).
_DECISION_BYTES = 4
# UTF-E-8's longest sequence is 13 bytes (seed 002 section 3.4; csrc/stream.c,
# UTFE8_DECISION_BYTES), and RFC 2279 is read by the same reader.
_LONG_DECISION_BYTES = {"utf-e-8": 13, "utf-8-rfc2279": 13}

# A piece cut before an unfinished character that ends inside a character
# is, in the whole stream, cut short by that character's first byte: a
# lead byte (UTF-8) or a lead surrogate (UTF-16), which cannot continue it.
# The one-shot reader then gives this reason instead of "end of data"
# (csrc/stream.c, check_before_suffix).
# Forms whose characters are one byte each: a chunk never ends inside one.
_ONE_BYTE_CHARACTERS = frozenset({"latin-1", "ascii"})

_INTERRUPTED_REASON = {
    "utf-8": "invalid continuation byte",
    "utf-e-8": "invalid continuation byte",
    "utf-8-rfc2279": "invalid continuation byte",
    "utf-16-le": "illegal UTF-16 surrogate",
    "utf-16-be": "illegal UTF-16 surrogate",
}
_END_OF_DATA_REASON = "unexpected end of data"


class Exclusive:
    """A non-blocking lock: a second caller, from any thread, gets a clear
    RuntimeError instead of waiting or interleaving its chunks.

    It is one token in a list: ``take()`` pops it (IndexError when another
    caller holds it) and ``give()`` puts it back -- each one C call that is
    atomic under the GIL (and locks the list in free-threaded builds), and
    cheaper than ``threading.Lock.acquire(False)``, whose argument parsing
    costs more than a whole short message.  Hot paths use::

        try:
            guard.take()
        except IndexError:
            guard.refuse()
        try:
            ...
        finally:
            guard.give(True)
    """

    __slots__ = ("take", "give", "_owner")

    def __init__(self, owner: str) -> None:
        token: List[bool] = [True]
        self.take = token.pop
        self.give = token.append
        self._owner = owner

    def refuse(self) -> NoReturn:
        raise RuntimeError(
            f"this {self._owner} is already in use (by another thread, or re-entered "
            "from a callback); a stream must be read in order: give each thread or "
            "connection its own object, or serialise the calls with a lock"
        ) from None

    def __enter__(self) -> None:
        try:
            self.take()
        except IndexError:
            self.refuse()

    def __exit__(self, *exc_info: object) -> None:
        self.give(True)


def _byte_view(data: object, function: str) -> memoryview:
    """A flat view of `data`'s bytes (no copy), with utfkit's TypeError and
    BufferError for what is not a contiguous bytes-like object."""
    release(input_view(data, function))  # the same errors as every other call
    view = memoryview(data)  # type: ignore[arg-type]
    return view if view.format == "B" and view.ndim == 1 else view.cast("B")


def _stream_form(name: str, owner: str) -> int:
    form = ENCODINGS[name].form
    probe = ffi.new("utfkit_stream *")
    if ENCODINGS[name].marks or lib.utfkit_stream_init(probe, form) != 0:
        streamed = ", ".join(e.name for e in ENCODINGS.values()
                             if not e.marks and lib.utfkit_stream_init(probe, e.form) == 0)
        raise LookupError(f"{owner} does not handle the encoding {name!r}; streams handle: {streamed}")
    return form


# Forms in which a well-formed chunk leaves nothing for the next one to
# complete or contradict: UTF-8 (Table 3-7), UTF-16, UTF-32, UTF-E-8 and
# RFC 2279 UTF-8.  (WTF-8 is
# not among them: a chunk ending in a lead surrogate sequence is well-formed,
# and a trail surrogate sequence starting the next chunk makes the pair
# ill-formed.)  For these, a stream between characters needs no C state:
# a chunk that validates whole just moves the offset on.
_SELF_CONTAINED_CHUNKS = frozenset(
    {lib.UTFKIT_UTF8, lib.UTFKIT_UTF16LE, lib.UTFKIT_UTF16BE, lib.UTFKIT_UTF32LE, lib.UTFKIT_UTF32BE,
     lib.UTFKIT_UTFE8, lib.UTFKIT_UTF8_RFC2279}
)
_validate = lib.utfkit_validate
_utf8_validate = lib.utfkit_utf8_validate
_stream_init = lib.utfkit_stream_init
_stream_feed = lib.utfkit_stream_feed
_OK = lib.UTFKIT_OK

# A Validator's states: between characters (no C state needed), inside the
# C stream state, finished, failed (its error kept).
_BETWEEN_CHARACTERS, _IN_C, _FINISHED, _FAILED = 0, 1, 2, 3


# ------------------------------------------------------------------ Validator


class Validator:
    """Checks a stream chunk by chunk, failing fast.

    ``feed(chunk)`` raises ``UnicodeDecodeError`` in the very call that
    delivers the first byte after which the stream can no longer be
    well-formed (UTF-8: the byte the Table 3-7 automaton rejects, as RFC
    6455 section 8.1 requires of a WebSocket endpoint; UTF-16 and UTF-32:
    the last byte of the code unit that decides the error).  The error's
    ``start``, ``end`` and ``reason`` are counted from the start of the
    stream and equal those ``utfkit.check`` gives for the whole stream,
    even when the maximal subpart began in an earlier chunk; its ``object``
    is the chunk that was being fed.  After an error every ``feed`` and
    ``finish`` raises the same error again until ``reset()``.

    ``finish()`` raises if the stream ends inside a character (``reason``
    "unexpected end of data" for UTF-8, ``object`` the unfinished bytes);
    ``feed`` after ``finish`` is a ValueError.  ``offset`` is the number of
    bytes fed so far (a failing feed adds none).

    One message costs about what CPython's incremental decoder costs for
    it: while the stream is between characters, a chunk that is
    well-formed as a whole is settled by one validation, and the C stream
    state (csrc/stream.c) is set up only when a chunk ends inside a
    character or holds an error.
    """

    __slots__ = ("encoding", "_form", "_stream", "_guard", "_take", "_give", "_error", "_state", "_base",
                 "_fast", "_validate_as")

    def __init__(self, encoding: str = "utf-8") -> None:
        self.encoding = lookup(encoding, "Validator").name
        self._form = _stream_form(self.encoding, "Validator")
        self._fast = self._form in _SELF_CONTAINED_CHUNKS
        # validate()'s own UTF-8 constant takes its shortest path
        self._validate_as = UTF_8 if self.encoding == UTF_8 else self.encoding
        self._stream = ffi.new("utfkit_stream *")
        self._guard = guard = Exclusive("Validator")
        self._take = guard.take
        self._give = guard.give
        self._error: Optional[UnicodeDecodeError] = None
        self._base = 0  # stream offset where the C state starts counting
        self._state = _BETWEEN_CHARACTERS
        if not self._fast:
            self._start_c(0)

    def _start_c(self, base: int) -> None:
        _stream_init(self._stream, self._form)
        self._base = base
        self._state = _IN_C

    def reset(self) -> None:
        """Start a new stream at offset 0."""
        try:
            self._take()
        except IndexError:
            self._guard.refuse()
        self._base = 0
        if self._fast:
            self._state = _BETWEEN_CHARACTERS
        else:
            self._start_c(0)
        self._give(True)

    @property
    def offset(self) -> int:
        """Bytes fed so far (the stream offset of the next byte)."""
        return self._base + int(self._stream.offset) if self._state == _IN_C else self._base

    def feed(self, chunk: "Buffer") -> None:
        """Check the next chunk of the stream (any bytes-like object, read in place)."""
        try:
            self._take()
        except IndexError:
            self._guard.refuse()
        try:
            state = self._state
            if state == _BETWEEN_CHARACTERS and type(chunk) is bytes:
                length = len(chunk)
                if self._validate_as is UTF_8:  # validate()'s paths, inline
                    whole = (length <= ISASCII_UP_TO and chunk.isascii()) or (
                        validate(chunk) if length <= CPYTHON_UP_TO else _utf8_validate(chunk, length))
                else:
                    whole = validate(chunk, self._validate_as)
                if whole:
                    self._base += length
                    return
                self._start_c(self._base)
            elif state > _IN_C:
                self._refuse_feed()
            source = input_view(chunk, "feed")
            length = len(source)
            if self._state == _BETWEEN_CHARACTERS:
                if _validate(source, length, self._form):
                    self._base += length
                    return
                self._start_c(self._base)
            stream = self._stream
            result = _stream_feed(stream, source, length)
            if result.status != _OK:
                release(source)
                self._fail(as_bytes(chunk))
            if self._fast and stream.pending_length == 0:
                # between characters again: the C state is not needed
                self._base += int(stream.offset)
                self._state = _BETWEEN_CHARACTERS
        finally:
            self._give(True)

    def finish(self) -> None:
        """End the stream: raise if it ends inside a character."""
        try:
            self._take()
        except IndexError:
            self._guard.refuse()
        try:
            state = self._state
            if state == _BETWEEN_CHARACTERS:
                self._state = _FINISHED
                return
            if state == _FAILED:
                self._raise_earlier_error()
            if state == _FINISHED:
                return
            stream = self._stream
            unfinished = ffi.buffer(stream.pending, stream.pending_length)[:]
            if lib.utfkit_stream_finish(stream).status != _OK:
                self._fail(unfinished)
            self._base += int(stream.offset)  # the count moves out of the C state
            self._state = _FINISHED
        finally:
            self._give(True)

    def _refuse_feed(self) -> None:
        self._raise_earlier_error()
        raise ValueError("Validator.feed() after finish(); call reset() to start a new stream")

    def _raise_earlier_error(self) -> None:
        error = self._error
        if self._state == _FAILED and error is not None:
            raise UnicodeDecodeError(error.encoding, error.object, error.start, error.end, error.reason)

    def _fail(self, chunk: bytes) -> NoReturn:
        """Record and raise the C state's error; the count moves out of it."""
        stream = self._stream
        why = reason(stream.status, self.encoding, stream.error_unit, stream.error_length)
        start = self._base + int(stream.error_position)
        self._error = UnicodeDecodeError(self.encoding, chunk, start, start + int(stream.error_length), why)
        self._base += int(stream.offset)
        self._state = _FAILED
        self._raise_earlier_error()
        raise AssertionError("unreachable")

    def __repr__(self) -> str:
        state = "failed" if self._state == _FAILED else "finished" if self._state == _FINISHED else "open"
        return f"<utfkit.Validator {self.encoding} offset={self.offset} {state}>"


# --------------------------------------------------------- IncrementalDecoder

# Handlers that resume right after the ill-formed subsequence they were
# given, so that cutting the input between characters cannot change what
# they see.  A registered handler may resume anywhere: it gets CPython's own
# way, the carried bytes joined to each input.
_RESUMING_HANDLERS = frozenset(
    {"strict", "replace", "ignore", "surrogateescape", "surrogatepass", "backslashreplace"}
)


class IncrementalDecoder(codecs.IncrementalDecoder):
    """``codecs.IncrementalDecoder`` for utfkit's encodings.

    ``decode(chunk, final)`` returns what CPython's incremental decoder
    returns, however the input is split -- a character or an encoded
    surrogate split across chunks included (bpo-24214) -- and raises where
    it raises (with ``final=False`` as soon as the bytes cannot be
    completed), with ``start``/``end`` relative to the carried bytes plus
    `chunk`, as CPython's.  The ``str`` is built by CPython's decoder, as
    ``utfkit.decode`` builds it; every handler CPython knows works.  The
    chunk is read in place: only the (at most 3) carried bytes and the few
    bytes that complete them are copied.
    """

    def __init__(self, encoding: str = "utf-8", errors: str = "strict") -> None:
        super().__init__(errors)
        self.encoding = lookup(encoding, "IncrementalDecoder").name
        # The byte-order-mark forms: CPython's incremental decoder, which
        # decides the byte order once, however the mark is split.
        self._marked: Optional[codecs.IncrementalDecoder] = None
        if ENCODINGS[self.encoding].marks:
            self._marked = codecs.getincrementaldecoder(self.encoding)(errors)
        decode_part = CPYTHON_DECODERS.get(self.encoding)
        if decode_part is None and self._marked is None:
            raise LookupError(
                f"IncrementalDecoder does not handle the encoding {self.encoding!r}; it handles: "
                f"{', '.join(CPYTHON_DECODERS)} (for the others, utfkit.register_codecs() "
                "and codecs.getincrementaldecoder)"
            )
        self._decode_part = decode_part or CPYTHON_DECODERS[UTF_8]
        self._carried = b""
        self._guard = Exclusive("IncrementalDecoder")

    def decode(self, input: "Buffer", final: bool = False) -> str:
        with self._guard:
            view = _byte_view(input, "decode")
            if self._marked is not None:
                self._marked.errors = self.errors
                return self._marked.decode(view, final)
            carried, errors = self._carried, self.errors
            if not isinstance(errors, str):
                raise TypeError(f"decode() 'errors' must be str, not {type(errors).__name__}")
            if errors not in _RESUMING_HANDLERS:
                return self._decode_joined(carried + view.tobytes(), errors, final)
            head_text, resume = "", 0
            if carried:
                taken = min(len(view), _DECISION_BYTES - len(carried))
                head = carried + view[:taken].tobytes()
                head_final = final and taken == len(view)
                head_text, consumed = self._decode_piece(head, errors, head_final, 0, carried, view)
                if consumed < len(carried):
                    if taken != len(view):  # cannot happen for these handlers; stay exact anyway
                        return self._decode_joined(carried + view.tobytes(), errors, final)
                    self._carried = head[consumed:]
                    return head_text
                resume = consumed - len(carried)
            text, consumed = self._decode_piece(view[resume:], errors, final, len(carried) + resume, carried, view)
            self._carried = view[resume + consumed:].tobytes()
            return head_text + text

    def _decode_piece(
        self, piece: Any, errors: str, final: bool, base: int, carried: bytes, view: memoryview
    ) -> Tuple[str, int]:
        try:
            return self._decode_part(piece, errors, final)
        except UnicodeDecodeError as error:
            # Positions relative to carried + input, as CPython's incremental decoder gives them.
            raise UnicodeDecodeError(
                error.encoding, carried + view.tobytes(), error.start + base, error.end + base, error.reason
            ) from None

    def _decode_joined(self, data: bytes, errors: str, final: bool) -> str:
        text, consumed = self._decode_part(data, errors, final)
        self._carried = data[consumed:]
        return text

    def reset(self) -> None:
        with self._guard:
            self._carried = b""
            if self._marked is not None:
                self._marked.reset()

    def getstate(self) -> Tuple[bytes, int]:
        """(carried bytes, 0), as codecs.BufferedIncrementalDecoder gives it
        (for utf-16 and utf-32, CPython's state: the byte order decided)."""
        if self._marked is not None:
            return self._marked.getstate()
        return (self._carried, 0)

    def setstate(self, state: Tuple[bytes, int]) -> None:
        with self._guard:
            if self._marked is not None:
                self._marked.setstate(state)
                return
            carried = state[0]
            if not isinstance(carried, (bytes, bytearray)):
                raise TypeError(f"setstate() needs (bytes, int), not ({type(carried).__name__}, ...)")
            self._carried = bytes(carried)


# ------------------------------------------------------ IncrementalTranscoder


class IncrementalTranscoder:
    """Converts a stream chunk by chunk, buffer to buffer.

    The outputs of ``feed(chunk)`` calls and the final ``finish()``, joined,
    equal ``utfkit.transcode(whole stream, from_, to, errors)`` however the
    stream is split.  With ``errors="strict"`` a ``UnicodeDecodeError`` is
    raised as soon as a chunk holds the byte that decides it (as
    ``Validator`` does), with ``start``, ``end`` and ``reason`` those of the
    one-shot ``transcode`` on the whole stream (offsets from the stream's
    start; ``object`` the chunk); the failing chunk is then not consumed.
    ``errors`` is ``strict``, ``replace`` or ``ignore``.  After a
    successful ``finish()`` the object starts a new stream at offset 0.
    """

    __slots__ = ("from_", "to", "errors", "_from_form", "_carried", "_offset", "_guard", "_interrupted",
                 "_source", "_target", "_head", "_signature", "_signed", "_decision_bytes")

    def __init__(self, from_: str, to: str, errors: str = "strict") -> None:
        source = lookup(from_, "IncrementalTranscoder", "from_")
        target = lookup(to, "IncrementalTranscoder", "to")
        self.from_, self.to = source.name, target.name
        error_mode(errors, "IncrementalTranscoder")
        self.errors = errors
        # A byte-order-mark form is read as the fixed form its mark names,
        # decided once the first bytes are in (_head holds them until then);
        # one is written with its mark before the first output.
        self._source = source.marks[0][1] if source.marks else source.name
        self._target = target.marks[0][1] if target.marks else target.name
        self._signature = target.marks[0][0] if target.marks else b""
        self._head: Optional[bytes] = b"" if source.marks else None
        self._signed = False
        if source.name in _ONE_BYTE_CHARACTERS:
            self._from_form = source.form  # nothing is ever carried
        else:
            self._from_form = _stream_form(self._source, "IncrementalTranscoder")
        self._interrupted = _INTERRUPTED_REASON.get(self._source)
        self._decision_bytes = _LONG_DECISION_BYTES.get(self._source, _DECISION_BYTES)
        self._guard = Exclusive("IncrementalTranscoder")
        self._carried = b""
        self._offset = 0

    def reset(self) -> None:
        """Start a new stream (carried bytes dropped)."""
        with self._guard:
            self._start_again()

    def _start_again(self) -> None:
        self._carried = b""
        self._offset = 0
        self._signed = False
        if ENCODINGS[self.from_].marks:
            self._head = b""

    def _after_mark(self, chunk: "Buffer", final: bool) -> Optional[bytes]:
        """The stream's bytes after its mark, once the mark is decided (as
        CPython's decoder decides it: a whole mark at the start, else the
        host's byte order); None while the bytes so far may still begin one."""
        head = (self._head or b"") + _byte_view(chunk, "feed").tobytes()
        marks = ENCODINGS[self.from_].marks
        found = next(((mark, name) for mark, name in marks if head.startswith(mark)), None)
        if found is None and not final and any(mark.startswith(head) for mark, _ in marks):
            self._head = head
            return None
        mark, self._source = found if found is not None else (b"", marks[0][1])
        self._from_form = ENCODINGS[self._source].form
        self._interrupted = _INTERRUPTED_REASON.get(self._source)
        self._head = None
        # utf-16 and utf-32 count error positions from the stream's start,
        # utf-8-sig from after its mark (CPython's decoders)
        self._offset = len(mark) if self.from_ != "utf-8-sig" else 0
        return head[len(mark):]

    def _signed_output(self, output: bytes) -> bytes:
        if self._signed or not self._signature:
            return output
        self._signed = True
        return self._signature + output

    @property
    def offset(self) -> int:
        """Bytes fed so far."""
        return self._offset

    def feed(self, chunk: "Buffer") -> bytes:
        """Convert the next chunk; returns the output of its complete characters."""
        with self._guard:
            if self._head is not None:
                rest = self._after_mark(chunk, final=False)
                if rest is None:
                    return b""
                chunk = rest
            return self._signed_output(self._convert(chunk, final=False))

    def finish(self) -> bytes:
        """End the stream: converts (or, with strict, raises for) an unfinished character."""
        with self._guard:
            rest = self._after_mark(b"", final=True) if self._head is not None else b""
            output = self._signed_output(self._convert(rest or b"", final=True))
            self._start_again()
            return output

    def _convert(self, chunk: "Buffer", final: bool) -> bytes:
        view = _byte_view(chunk, "feed")
        carried, form, length = self._carried, self._from_form, len(view)
        outputs, resume = [], 0
        while carried and (resume < length or final):
            # Settle the carried character with the next bytes of the chunk.
            taken = min(length - resume, self._decision_bytes - len(carried))
            head = carried + view[resume : resume + taken].tobytes()
            ends = final and resume + taken == length
            suffix = 0 if ends else lib.utfkit_incomplete_suffix_length(head, len(head), form)
            base = self._offset + resume - len(carried)
            outputs.append(self._piece(head[: len(head) - suffix], suffix, base, view))
            resume += taken
            if suffix > taken:  # it begins in the carried bytes: carry it on
                carried = head[len(head) - suffix :]
            else:
                resume -= suffix
                carried = b""
            if ends:
                break
        if carried:  # the chunk is used up
            self._carried = carried
            self._offset += length
            return b"".join(outputs)
        rest = view[resume:]
        suffix = 0 if final else self._suffix(rest)
        output = self._piece(rest[: len(rest) - suffix], suffix, self._offset + resume, view)
        self._carried = rest[len(rest) - suffix :].tobytes()
        self._offset += length
        if outputs:
            outputs.append(output)
            return b"".join(outputs)
        return output

    def _suffix(self, rest: memoryview) -> int:
        source = ffi.from_buffer("uint8_t[]", rest)
        try:
            return int(lib.utfkit_incomplete_suffix_length(source, len(source), self._from_form))
        finally:
            ffi.release(source)

    def _piece(self, piece: Any, suffix: int, base: int, chunk: memoryview) -> bytes:
        if not len(piece):
            return b""
        try:
            output = transcode(piece, self._source, self._target, self.errors)
        except UnicodeDecodeError as error:
            why = error.reason
            if suffix and why == _END_OF_DATA_REASON and self._interrupted:
                why = self._interrupted
            start, end = error.start + base, error.end + base
            raise UnicodeDecodeError(error.encoding, chunk.tobytes(), start, end, why) from None
        return output if type(output) is bytes else bytes(output)

    def __repr__(self) -> str:
        return f"<utfkit.IncrementalTranscoder {self.from_} -> {self.to} errors={self.errors!r} offset={self._offset}>"
