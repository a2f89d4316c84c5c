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

Every form utfkit knows streams (UTF-8, UTF-16 and UTF-32 in either byte
order, WTF-8, CESU-8, MUTF-8).  Where a chunk may be cut, and what must be
held back for the next one, is decided in one place, the C stream
(csrc/stream.c): ``Validator`` and ``IncrementalTranscoder`` keep their state
there (``utfkit_stream_feed``, ``utfkit_stream_transcode``), and
``IncrementalDecoder`` cuts where ``utfkit_incomplete_suffix_length`` says --
or, for CPython's own codecs, lets CPython's incremental decoder hold back
what it holds back, so that its ``str`` and its errors are CPython's.  At
most 7 bytes are held back, and a chunk is read in place.

All three pickle and copy (``pickle``, ``copy.copy``, ``copy.deepcopy``):
the copy is an independent object in the same state.

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
    core_address,
    encode_error,
    error_mode,
    ffi,
    give_scratch,
    input_view,
    lib,
    lookup,
    reason,
    release,
    scratch,
    worst_case_size,
)
from ._direct import (
    BETWEEN_CHARACTERS,
    FAILED,
    FINISHED,
    IN_C,
    DecoderBase,
    TranscoderBase,
    ValidatorBase,
    set_stream_entry,
    stream_transcode_new,
)
from ._entries import validate
from ._oneshot import UTF_8
from ._text import decode as decode_text

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = [
    "Exclusive", "IncrementalDecoder", "IncrementalTranscoder", "Validator", "held_back_length",
    "new_stream", "stream_state",
]

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

    __slots__ = ("take", "give", "token", "_owner")

    def __init__(self, owner: str) -> None:
        self.token: List[bool] = [True]  # empty while a caller holds it
        token = self.token
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


def held_back_length(data: "Buffer", encoding: str) -> int:
    """How many bytes at the end of `data`, read as the beginning of a
    longer stream in `encoding` (a canonical name), must wait for the next
    bytes: the C stream's rule (``utfkit_incomplete_suffix_length``)."""
    source = input_view(data, "held_back_length")
    try:
        return int(lib.utfkit_incomplete_suffix_length(source, len(source), ENCODINGS[encoding].form))
    finally:
        release(source)


# ------------------------------------------------- the C stream state, as data

_STREAM_FIELDS = ("form", "status", "offset", "error_position", "error_length", "error_unit", "held_lead")
# A state pickled before held_lead was a field (a stream that held no lead)
_EARLIER_STREAM_FIELDS = _STREAM_FIELDS[:-1]


def stream_state(stream: Any) -> Tuple[Any, ...]:
    """A utfkit_stream as plain values (what pickle stores): portable
    between machines, unlike the struct's bytes."""
    held = ffi.buffer(stream.pending, stream.pending_length)[:]
    return tuple(int(getattr(stream, field)) for field in _STREAM_FIELDS) + (held,)


def new_stream(state: Optional[Tuple[Any, ...]], form: int) -> Any:
    stream = ffi.new("utfkit_stream *")
    lib.utfkit_stream_init(stream, form)
    if state is not None:
        *numbers, held = state
        if len(numbers) not in (len(_STREAM_FIELDS), len(_EARLIER_STREAM_FIELDS)) \
                or not isinstance(held, bytes) or len(held) > len(stream.pending) or numbers[0] != form:
            raise ValueError("not the state of a utfkit stream of this encoding")
        for field, value in zip(_STREAM_FIELDS, numbers):
            setattr(stream, field, value)
        stream.pending_length = len(held)
        ffi.memmove(stream.pending, held, len(held))
    return stream


# Forms in which a well-formed chunk leaves nothing for the next one to
# complete or contradict: UTF-8 (Table 3-7), UTF-16 and UTF-32.  (WTF-8 is
# not among them: a chunk ending in a lead surrogate sequence is well-formed,
# and a trail surrogate sequence starting the next chunk makes the pair
# ill-formed; nor are CESU-8 and MUTF-8, where the trail completes a pair.)
# For these, a stream between characters needs no C state: a chunk that
# validates whole just moves the offset on.
_SELF_CONTAINED_CHUNKS = frozenset(
    {lib.UTFKIT_UTF8, lib.UTFKIT_UTF16LE, lib.UTFKIT_UTF16BE, lib.UTFKIT_UTF32LE, lib.UTFKIT_UTF32BE,
     lib.UTFKIT_UTFE8, lib.UTFKIT_UTF8_RFC2279}
)
_validate = lib.utfkit_validate
_stream_init = lib.utfkit_stream_init
_stream_feed = lib.utfkit_stream_feed
_stream_transcode = lib.utfkit_stream_transcode
# Room for the bytes a stream holds back (utfkit_stream.pending), read again
# with the next chunk: twice their most.
_PENDING_ROOM = 2 * len(ffi.new("utfkit_stream *").pending)
set_stream_entry(core_address("utfkit_stream_transcode"))
_OK = lib.UTFKIT_OK

# A Validator's states: between characters (no C state needed), inside the
# C stream state, finished, failed (its error kept).  Its base type
# (_direct.c, ValidatorBase) holds them and answers the commonest calls.
_BETWEEN_CHARACTERS, _IN_C, _FINISHED, _FAILED = BETWEEN_CHARACTERS, IN_C, FINISHED, FAILED


# ------------------------------------------------------------------ Validator


def _restore_validator(encoding: str, state: Tuple[Any, ...]) -> "Validator":
    validator = Validator(encoding)
    validator._restore(state)
    return validator


class Validator(ValidatorBase):
    """Checks a stream chunk by chunk, failing fast.

    ``feed(chunk)`` raises ``UnicodeDecodeError`` in the very call that
    delivers the first byte after which the stream can no longer be
    well-formed (UTF-8 and its relatives: the byte the reader rejects, as
    RFC 6455 section 8.1 requires of a WebSocket endpoint; UTF-16 and
    UTF-32: the last byte of the code unit that decides the error).  The error's
    ``start``, ``end`` and ``reason`` are counted from the start of the
    stream and equal those ``utfkit.check`` gives for the whole stream,
    even when the maximal subpart began in an earlier chunk; its ``object``
    is the chunk that was being fed.  After an error every ``feed`` and
    ``finish`` raises the same error again until ``reset()``.

    A byte-order-mark form (``utf-16``, ``utf-32``, ``utf-8-sig``) holds
    its first bytes until they are a whole mark or cannot begin one, then
    validates the rest in the fixed form that decides (CPython's decoders'
    rule); its errors are those of ``utfkit.check`` on the whole stream,
    named after the fixed form (``utf-16-le``, ...; ``utf-8-sig`` counts
    from after its mark, as CPython does).

    ``finish()`` raises if the stream ends inside a character (``reason``
    "unexpected end of data" for UTF-8, ``object`` the unfinished bytes);
    ``feed`` after ``finish`` is a ValueError.  ``offset`` is the number of
    bytes fed so far (a failing feed adds none).

    One message costs less than CPython's incremental decoder spends on
    it: for UTF-8, UTF-16 and UTF-32, while the stream is between
    characters, a chunk that is well-formed as a whole is settled by one
    validation, and the C stream state (csrc/stream.c) is set up only when
    a chunk ends inside a character or holds an error.  For a UTF-8 stream
    (its form decided) between characters, ``feed`` of a ``bytes`` chunk,
    ``reset`` and ``finish`` are answered by the C base type
    (``utfkit._direct.ValidatorBase``) with no Python frame; every other
    call runs ``_feed_slow``, ``_reset_slow`` or ``_finish_slow`` below.
    The state (``_state``, ``_base``, ``_error``, ``_utf8_direct``,
    ``_plain_reset``, ``_token``) lives in the base.
    """

    __slots__ = ("encoding", "_form", "_stream", "_guard", "_take", "_give",
                 "_fast", "_validate_as", "_head", "_reported_as", "_error_shift", "_marks")

    def __init__(self, encoding: str = "utf-8") -> None:
        self.encoding = lookup(encoding, "Validator").name
        self._stream = ffi.new("utfkit_stream *")
        self._guard = guard = Exclusive("Validator")
        self._take = guard.take
        self._give = guard.give
        self._token = guard.token  # the base's C calls honour the same guard
        self._error = None
        self._marks = ENCODINGS[self.encoding].marks
        self._plain_reset = 0 if self._marks else 1
        self._begin()

    def _begin(self) -> None:
        """The state at the start of a stream."""
        marks = self._marks
        # A byte-order-mark form: the first bytes are held until they are a
        # mark or cannot begin one (_after_mark), as CPython's decoders decide.
        self._head: Optional[bytes] = b"" if marks else None
        self._base = 0  # stream offset where the C state starts counting
        self._use_form(marks[0][1] if marks else self.encoding, 0)

    def _use_form(self, fixed: str, error_shift: int) -> None:
        """Validate in the fixed form `fixed` from here on; errors are named
        after it and their positions moved by error_shift."""
        self._reported_as = fixed
        self._error_shift = error_shift
        self._form = ENCODINGS[fixed].form
        self._fast = self._form in _SELF_CONTAINED_CHUNKS
        # validate()'s own UTF-8 constant takes its shortest path
        self._validate_as = UTF_8 if fixed == UTF_8 else fixed
        # the base answers feed, reset and finish of UTF-8 once no mark is pending
        self._utf8_direct = 1 if fixed == UTF_8 and self._head is None else 0
        self._state = _BETWEEN_CHARACTERS
        if not self._fast:
            self._start_c(self._base)

    def _after_mark(self, chunk: "Buffer", final: bool) -> Optional[bytes]:
        """The stream's bytes after its mark, once the mark is decided (a
        whole mark at the start, else the fixed form named first, as
        CPython's decoders decide); None while the bytes so far may still
        begin one."""
        head = (self._head or b"") + _byte_view(chunk, "feed").tobytes()
        marks = ENCODINGS[self.encoding].marks
        found = next(((mark, name) for mark, name in marks if head.startswith(mark)), None)
        if found is None and not final and any(mark.startswith(head) for mark, _ in marks):
            self._head = head
            return None
        mark, name = found if found is not None else (b"", marks[0][1])
        self._head = None
        self._base = len(mark)
        # utf-16 and utf-32 count error positions from the stream's start,
        # utf-8-sig from after its mark (CPython's decoders, and check())
        self._use_form(name, -len(mark) if self.encoding == "utf-8-sig" else 0)
        return head[len(mark):]

    def _start_c(self, base: int) -> None:
        _stream_init(self._stream, self._form)
        self._base = base
        self._state = _IN_C

    def _reset_slow(self) -> None:
        """reset() (the base's feed, reset and finish answer a UTF-8 stream
        between characters in C; every other call runs these)."""
        try:
            self._take()
        except IndexError:
            self._guard.refuse()
        self._error = None
        if self._marks:
            self._begin()
        else:  # the fixed form stays: only the position and the C state restart
            self._base = 0
            self._state = _BETWEEN_CHARACTERS
            if not self._fast:
                self._start_c(0)
        self._give(True)

    @property
    def offset(self) -> int:
        """Bytes fed so far (the stream offset of the next byte)."""
        if self._head is not None:
            return len(self._head)
        return self._base + int(self._stream.offset) if self._state == _IN_C else self._base

    def _feed_slow(self, chunk: "Buffer") -> None:
        """feed(chunk), when the base does not answer it."""
        try:
            self._take()
        except IndexError:
            self._guard.refuse()
        try:
            if self._head is not None and self._state <= _IN_C:
                rest = self._after_mark(chunk, final=False)
                if rest is None:
                    return
                chunk = rest
            self._feed(chunk)
        finally:
            self._give(True)

    def _feed(self, chunk: "Buffer") -> None:
        """feed(), the guard held and the mark (if any) decided."""
        state = self._state
        if state == _BETWEEN_CHARACTERS and type(chunk) is bytes:
            length = len(chunk)
            # the public validate: UTF-8 bytes are answered in C (_entries)
            whole = validate(chunk) if self._validate_as is UTF_8 else validate(chunk, self._validate_as)
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

    def _finish_slow(self) -> None:
        """finish(), when the base does not answer it."""
        try:
            self._take()
        except IndexError:
            self._guard.refuse()
        try:
            if self._head is not None and self._state <= _IN_C:
                self._feed(self._after_mark(b"", final=True) or b"")
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
        why = reason(stream.status, self._reported_as, stream.error_unit, stream.error_length)
        start = self._base + self._error_shift + int(stream.error_position)
        self._error = UnicodeDecodeError(self._reported_as, chunk, start, start + int(stream.error_length), why)
        self._base += int(stream.offset)
        self._state = _FAILED
        self._raise_earlier_error()
        raise AssertionError("unreachable")

    # pickle and copy: the state as plain values, restored into a new object
    def __reduce__(self) -> Tuple[Any, ...]:
        with self._guard:
            error = self._error
            saved_error = None if error is None else (error.object, error.start, error.end, error.reason)
            in_c = self._state == _IN_C
            state = (saved_error, self._state, self._base, stream_state(self._stream) if in_c else None,
                     self._head, self._reported_as, self._error_shift)
        return (_restore_validator, (self.encoding, state))

    def _restore(self, state: Tuple[Any, ...]) -> None:
        saved_error, validator_state, base, saved_stream = state[:4]
        if len(state) > 4:  # the byte-order mark: still undecided, or the fixed form it named
            head, reported_as, error_shift = state[4:]
            if head is not None:
                self._head = bytes(head)
            elif self._head is not None:
                self._head = None
                self._use_form(str(reported_as), int(error_shift))
        if saved_error is not None:
            self._error = UnicodeDecodeError(self._reported_as, *saved_error)
        self._state = int(validator_state)
        self._base = int(base)
        if self._state == _IN_C:
            self._stream = new_stream(saved_stream, self._form)

    def __repr__(self) -> str:
        state = "failed" if self._state == _FAILED else "finished" if self._state == _FINISHED else "open"
        return f"<utfkit.Validator {self.encoding} offset={self.offset} {state}>"


# --------------------------------------------------------- IncrementalDecoder


def _restore_decoder(encoding: str, errors: str, state: Tuple[bytes, int]) -> "IncrementalDecoder":
    decoder = IncrementalDecoder(encoding, errors)
    decoder.setstate(state)
    return decoder


class IncrementalDecoder(DecoderBase, codecs.IncrementalDecoder):
    """``codecs.IncrementalDecoder`` for utfkit's encodings.

    ``decode(chunk, final)`` returns what one-shot decoding of the whole
    input returns, however the input is split -- a character or an encoded
    surrogate split across chunks included (bpo-24214) -- and raises where
    it raises (with ``final=False`` as soon as the bytes cannot be
    completed), with ``start``/``end`` relative to the carried bytes plus
    `chunk`, as CPython's.  For CPython's codecs this is CPython's own
    incremental decoder, fed the carried bytes and the chunk (every handler
    CPython knows works); for WTF-8, CESU-8 and MUTF-8 the chunk is cut
    where the C stream's rule says (``utfkit_incomplete_suffix_length``) and
    decoded as ``utfkit.decode`` decodes.  Only the carried bytes (at most
    7) are joined to a chunk; without them the chunk is read in place.

    UTF-8 with ``errors="strict"`` and a ``bytes`` chunk is answered by the
    C base type (``utfkit._direct.DecoderBase``): after the bytes carried
    from the last chunk, the bytes a next chunk may still complete are
    carried, and the rest is decoded as ``utfkit.decode`` decodes it, the
    core writing the ``str``.  Every other call, and any chunk with an error
    to raise, runs ``_decode_slow`` below.  ``errors``, ``_carried``, ``_utf8``
    and ``_token`` live in the base.
    """

    def __init__(self, encoding: str = "utf-8", errors: str = "strict") -> None:
        super().__init__(errors)
        self.encoding = lookup(encoding, "IncrementalDecoder").name
        self._form = ENCODINGS[self.encoding].form
        # The byte-order-mark forms: CPython's incremental decoder, which
        # decides the byte order once, however the mark is split.
        self._marked: Optional[codecs.IncrementalDecoder] = None
        if ENCODINGS[self.encoding].marks:
            self._marked = codecs.getincrementaldecoder(self.encoding)(errors)
        self._decode_part = CPYTHON_DECODERS.get(self.encoding)
        self._carried = b""
        self._guard = Exclusive("IncrementalDecoder")
        self._token = self._guard.token  # the base's C calls honour the same guard
        self._utf8 = 1 if self.encoding == UTF_8 else 0

    def _decode_slow(self, input: "Buffer", final: bool = False) -> str:
        """decode(input, final), when the base does not answer it."""
        with self._guard:
            view = _byte_view(input, "decode")
            if self._marked is not None:
                self._marked.errors = self.errors
                return self._marked.decode(view, final)
            errors = self.errors
            if not isinstance(errors, str):
                raise TypeError(f"decode() 'errors' must be str, not {type(errors).__name__}")
            data: Any = self._carried + view.tobytes() if self._carried else view
            decode_part = self._decode_part
            if decode_part is not None:
                text, consumed = decode_part(data, errors, final)
                self._carried = bytes(data[consumed:])
                return text
            return self._decode_family(data, errors, final)

    def _decode_family(self, data: Any, errors: str, final: bool) -> str:
        held = 0 if final else held_back_length(data, self.encoding)
        cut = len(data) - held
        try:
            text = decode_text(data[:cut], self.encoding, errors)
            if held and errors == "strict":
                # fail fast: an error already decided inside the held bytes
                result = lib.utfkit_check(bytes(data[cut:]), held, self._form)
                if result.status not in (_OK, lib.UTFKIT_END_OF_DATA):
                    decode_text(data, self.encoding, errors)
        except UnicodeDecodeError:
            if not held:
                raise
            # The part before the held bytes ended inside a sequence their
            # first byte interrupts: the whole reading gives that byte's verdict.
            decode_text(data, self.encoding, errors)
            raise
        self._carried = bytes(data[cut:])
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

    def __reduce__(self) -> Tuple[Any, ...]:
        errors = self.errors
        return (_restore_decoder, (self.encoding, errors, self.getstate()))


# ------------------------------------------------------ IncrementalTranscoder


def _restore_transcoder(from_: str, to: str, errors: str, state: Tuple[Any, ...]) -> "IncrementalTranscoder":
    transcoder = IncrementalTranscoder(from_, to, errors)
    head, source, signed, base, stream = state[:5]
    transcoder._head = head
    transcoder._source = ENCODINGS[source]
    transcoder._signed = bool(signed)
    transcoder._base = int(base)
    transcoder._use_stream(new_stream(stream, transcoder._source.form))
    if len(state) > 5 and state[5]:
        # pickled when the WTF-8 output's held-back lead surrogate was kept
        # here, as its 3 bytes: now the C stream holds it (held_lead)
        held = bytes(state[5])
        transcoder._stream.held_lead = 0xD000 | (held[1] & 0x3F) << 6 | (held[2] & 0x3F)
    return transcoder


class IncrementalTranscoder(TranscoderBase):
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
    The state lives in C (``utfkit_stream_transcode``, csrc/stream.c), a WTF-8
    output's last lone lead surrogate included: it is held back until the next
    output, which may begin with the trail it joins (WTF-8 section 6.1).

    A byte-order-mark source (utf-16, utf-32, utf-8-sig) is read as the
    fixed form its mark names, decided once the first bytes are in; a
    byte-order-mark target is written with its mark before the first output.

    ``feed`` is answered by the C base type (``utfkit._direct.TranscoderBase``)
    once the marks are settled: the C stream converts the chunk (any
    bytes-like object) into a new ``bytes`` with no Python frame.  A chunk with
    an error goes to ``_failed``, which raises; every other call runs
    ``_feed_slow`` below.  ``_head``, ``_address``, ``_to_form``, ``_mode``,
    ``_unit``, ``_per_unit``, ``_signed``, ``_signature`` and ``_token`` live in
    the base.
    """

    __slots__ = ("from_", "to", "errors", "_stream", "_guard", "_source", "_target", "_base")

    def __init__(self, from_: str, to: str, errors: str = "strict") -> None:
        source = lookup(from_, "IncrementalTranscoder", "from_")
        target = lookup(to, "IncrementalTranscoder", "to")
        self.from_, self.to = source.name, target.name
        self._mode = error_mode(errors, "IncrementalTranscoder")
        self.errors = errors
        self._source = ENCODINGS[source.marks[0][1]] if source.marks else source  # decided by the mark
        self._target = ENCODINGS[target.marks[0][1]] if target.marks else target
        self._signature = target.marks[0][0] if target.marks else b""
        self._to_form = self._target.form
        self._guard = Exclusive("IncrementalTranscoder")
        self._token = self._guard.token  # the base's C calls honour the same guard
        self._start_again()

    def _start_again(self) -> None:
        self._head: Optional[bytes] = b"" if ENCODINGS[self.from_].marks else None
        self._signed = False
        self._base = 0  # stream offset of the C stream's offset 0 (after a mark)
        self._use_stream(new_stream(None, self._source.form))

    def _use_stream(self, stream: Any) -> None:
        """The C stream state from here on, its address for _direct, and
        the output's room per source unit (worst_case_size, which is linear
        in the units)."""
        self._stream = stream
        self._address = int(ffi.cast("uintptr_t", stream))
        self._unit = self._source.unit_size
        self._per_unit = worst_case_size(self._unit, self._source, self._target)

    def reset(self) -> None:
        """Start a new stream (held-back bytes dropped)."""
        with self._guard:
            self._start_again()

    @property
    def offset(self) -> int:
        """Bytes fed so far."""
        if self._head is not None:
            return len(self._head)
        return self._base + int(self._stream.offset)

    def _feed_slow(self, chunk: "Buffer") -> bytes:
        """feed(chunk), when the base does not answer it: a mark still to
        read or to write, or a guard held by another caller."""
        with self._guard:
            if self._head is not None:
                rest = self._after_mark(chunk, final=False)
                if rest is None:
                    return b""
                chunk = rest
            return self._signed_output(self._convert(chunk, 0))

    def finish(self) -> bytes:
        """End the stream: converts (or, with strict, raises for) the held-back bytes."""
        with self._guard:
            rest = self._after_mark(b"", final=True) if self._head is not None else b""
            output = self._signed_output(self._convert(rest or b"", 1))
            self._start_again()
            return output

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
        mark, name = found if found is not None else (b"", marks[0][1])
        self._source = ENCODINGS[name]
        self._use_stream(new_stream(None, self._source.form))
        self._head = None
        # utf-16 and utf-32 count error positions from the stream's start,
        # utf-8-sig from after its mark (CPython's decoders)
        self._base = len(mark) if self.from_ != "utf-8-sig" else 0
        return head[len(mark):]

    def _signed_output(self, output: bytes) -> bytes:
        if self._signed or not self._signature:
            return output
        self._signed = True
        return self._signature + output

    def _convert(self, chunk: "Buffer", final: int) -> bytes:
        if type(chunk) is bytes:
            # converted by _direct into a new bytes, without cffi (the same
            # room as below)
            room = -(-(len(chunk) + _PENDING_ROOM) // self._unit) * self._per_unit + 3
            output = stream_transcode_new(self._address, chunk, final, self._to_form, self._mode, room)
            if not isinstance(output, bytes):
                self._failed(output, chunk)
            return output
        source = input_view(chunk, "feed")
        length = len(source)
        stream = self._stream
        # (+3: a lead surrogate held back from the last WTF-8 output)
        capacity = worst_case_size(length + _PENDING_ROOM, self._source, self._target) + 3
        buffer = scratch(capacity)
        try:
            space, space_chars, size, _ = buffer
            result = _stream_transcode(stream, source, length, final, self._to_form, self._mode, space, size)
            if result.status != _OK:
                release(source)
                self._raise(result, chunk)
            return ffi.unpack(space_chars, result.written)  # type: ignore[no-any-return]
        finally:
            give_scratch(buffer)

    def _raise(self, result: Any, chunk: object) -> NoReturn:
        self._raise_status(int(result.status), int(result.position), int(result.subpart_length), chunk)

    def _failed(self, fields: Optional[Tuple[int, int, int]], chunk: object) -> NoReturn:
        """Raise for stream_transcode_new's (status, position, subpart_length)."""
        if fields is None:  # a bytes chunk is always taken there
            raise AssertionError("stream_transcode_new() refused a bytes chunk")
        self._raise_status(*fields, chunk)

    def _raise_status(self, status: int, position: int, subpart_length: int, chunk: object) -> NoReturn:
        if status == lib.UTFKIT_OUTPUT_TOO_SMALL:
            raise MemoryError("utfkit: output larger than its worst-case bound (please report this)")
        if status == lib.UTFKIT_UNENCODABLE:  # CPython's encoder says where and why, in this chunk's text
            raise encode_error(as_bytes(chunk), self._source.name, self._target.name)
        stream = self._stream
        name = self._source.name
        why = reason(status, name, stream.error_unit, subpart_length, self._target.name)
        start = self._base + position
        raise UnicodeDecodeError(name, as_bytes(chunk), start, start + subpart_length, why)

    def __reduce__(self) -> Tuple[Any, ...]:
        with self._guard:
            state = (self._head, self._source.name, self._signed, self._base, stream_state(self._stream))
        return (_restore_transcoder, (self.from_, self.to, self.errors, state))

    def __repr__(self) -> str:
        return (f"<utfkit.IncrementalTranscoder {self.from_} -> {self.to} errors={self.errors!r} "
                f"offset={self.offset}>")
