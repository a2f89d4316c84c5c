"""Streams: Validator, IncrementalDecoder and IncrementalTranscoder against
one-shot processing and CPython's own incremental decoders, split anywhere.

The oracles:
  * one-shot: ``bytes(whole).decode(encoding)`` (start, end, reason) and
    ``utfkit.transcode(whole, ...)`` -- what a stream must equal however split;
  * the deciding byte, from CPython's one-shot decoder on every prefix: the
    first byte after which the prefix has an error other than running out
    of input.  Validator must raise in the call that delivers it (for UTF-8,
    RFC 6455's "first byte that cannot be valid"; for UTF-16/32 the last
    byte of the deciding code unit).  CPython's own incremental decoder is
    not this oracle: it holds "ED A0..BF" back (for surrogatepass,
    bpo-24214) and raises one byte later;
  * CPython's incremental decoder, call by call, for IncrementalDecoder.
"""

from __future__ import annotations

import codecs
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import utfkit

pytest.register_assert_rewrite("transcode_oracle", "utf16_utf32_strategies")
from transcode_oracle import cpython_error  # noqa: E402  (after the rewrite registration)
from utf16_utf32_strategies import inputs_in  # noqa: E402

ENCODINGS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]


# ---- helpers --------------------------------------------------------------------
def split_at(data: bytes, cuts) -> list[bytes]:
    cuts = sorted(set(min(max(c, 0), len(data)) for c in cuts))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def split_inputs(draw, encoding: str):
    data = draw(inputs_in(encoding))
    cuts = draw(st.lists(st.integers(0, len(data)), max_size=6))
    empty = draw(st.lists(st.integers(0, 6), max_size=2))  # empty chunks too
    chunks = split_at(data, cuts)
    for position in empty:
        chunks.insert(min(position, len(chunks)), b"")
    return data, chunks


END_REASONS = {"unexpected end of data", "truncated data"}


def is_decided(prefix: bytes, encoding: str) -> bool:
    """True if no bytes appended to `prefix` can make it well-formed: CPython's
    one-shot decoder finds an error that is not just the input running out."""
    error = cpython_error(prefix, encoding)
    return error is not None and error[2] not in END_REASONS


def expected_failing_call(chunks: list[bytes], encoding: str):
    """Index of the call that must raise (len(chunks) = finish()), or None:
    the chunk holding the first byte after which the stream is decided."""
    fed = b""
    for index, chunk in enumerate(chunks):
        for byte in chunk:
            fed += bytes((byte,))
            if is_decided(fed, encoding):
                return index
    return None if cpython_error(fed, encoding) is None else len(chunks)


def validator_failure(chunks: list[bytes], encoding: str):
    """(index of the raising call, (start, end, reason)) or (None, None)."""
    validator = utfkit.Validator(encoding)
    for index, chunk in enumerate(chunks):
        try:
            validator.feed(chunk)
        except UnicodeDecodeError as error:
            assert error.encoding == encoding
            return index, (error.start, error.end, error.reason)
    try:
        validator.finish()
    except UnicodeDecodeError as error:
        return len(chunks), (error.start, error.end, error.reason)
    return None, None


# ---- Validator --------------------------------------------------------------------
@pytest.mark.parametrize("encoding", ENCODINGS)
@given(data=st.data())
def test_validator_error_equals_one_shot_check_and_fails_in_cpythons_call(encoding, data):
    whole, chunks = data.draw(split_inputs(encoding))
    index, error = validator_failure(chunks, encoding)
    assert error == cpython_error(whole, encoding)
    assert index == expected_failing_call(chunks, encoding)


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(data=st.data())
def test_validator_fails_in_the_feed_that_delivers_the_deciding_byte(encoding, data):
    """Byte by byte: the failing feed is the one whose byte makes the
    prefix impossible to complete."""
    whole = data.draw(inputs_in(encoding))
    chunks = [whole[i : i + 1] for i in range(len(whole))]
    index, _ = validator_failure(chunks, encoding)
    decided = next((p for p in range(1, len(whole) + 1) if is_decided(whole[:p], encoding)), None)
    if decided is None:
        assert index in (None, len(chunks))  # well-formed, or cut short at the end
    else:
        assert index == decided - 1


def test_validator_maximal_subpart_spanning_three_chunks():
    validator = utfkit.Validator()
    validator.feed(b"abc\xf0")
    validator.feed(b"\x9f")
    validator.feed(b"\x98")
    assert validator.offset == 6
    with pytest.raises(UnicodeDecodeError) as raised:
        validator.feed(b"A")
    error = raised.value
    assert (error.start, error.end, error.reason) == (3, 6, "invalid continuation byte")
    assert error.object == b"A"
    assert (error.start, error.end, error.reason) == cpython_error(b"abc\xf0\x9f\x98A", "utf-8")


def test_validator_error_is_sticky_until_reset():
    validator = utfkit.Validator()
    with pytest.raises(UnicodeDecodeError):
        validator.feed(b"ok\xff")
    for again in (lambda: validator.feed(b"fine"), validator.finish):
        with pytest.raises(UnicodeDecodeError) as raised:
            again()
        assert (raised.value.start, raised.value.end) == (2, 3)
    validator.reset()
    validator.feed(b"fine")
    validator.finish()
    assert validator.offset == 4


def test_validator_finish_reports_unfinished_character_and_closes_the_stream():
    validator = utfkit.Validator()
    validator.feed(b"x\xe2\x82")
    with pytest.raises(UnicodeDecodeError) as raised:
        validator.finish()
    assert (raised.value.start, raised.value.end, raised.value.reason) == (1, 3, "unexpected end of data")
    assert raised.value.object == b"\xe2\x82"
    done = utfkit.Validator()
    done.feed(b"x")
    done.finish()
    with pytest.raises(ValueError, match="after finish"):
        done.feed(b"y")


@pytest.mark.parametrize("chunk", [bytearray(b"ab\xc3"), memoryview(b"ab\xc3"), b"ab\xc3"])
def test_validator_reads_any_bytes_like_object(chunk):
    validator = utfkit.Validator()
    validator.feed(chunk)
    validator.feed(bytearray(b"\xa9"))
    validator.finish()


def test_validator_rejects_str_and_unknown_encodings():
    with pytest.raises(TypeError, match="str"):
        utfkit.Validator().feed("text")
    with pytest.raises(LookupError):
        utfkit.Validator("no-such-encoding")
    latin_1 = utfkit.Validator("latin-1")  # every fixed form streams
    latin_1.feed(b"\xff\xe9")
    latin_1.finish()


def test_validator_offset_counts_bytes_of_successful_feeds():
    validator = utfkit.Validator("utf-16-le")
    validator.feed(b"a\x00b")
    assert validator.offset == 3
    with pytest.raises(UnicodeDecodeError):
        validator.feed(b"\x00\x00\xdc")  # lone trail surrogate
    assert validator.offset == 3


# ---- IncrementalTranscoder --------------------------------------------------------
def transcode_in_chunks(chunks, from_, to, errors):
    transcoder = utfkit.IncrementalTranscoder(from_, to, errors)
    pieces = []
    try:
        for chunk in chunks:
            pieces.append(transcoder.feed(chunk))
        pieces.append(transcoder.finish())
    except UnicodeDecodeError as error:
        return ("raised", error.start, error.end, error.reason, len(pieces))
    assert all(type(piece) is bytes for piece in pieces)
    return ("returned", b"".join(pieces))


def transcode_one_shot(whole, from_, to, errors):
    try:
        return ("returned", utfkit.transcode(whole, from_, to, errors))
    except UnicodeDecodeError as error:
        return ("raised", error.start, error.end, error.reason)


@pytest.mark.parametrize("from_", ENCODINGS)
@settings(max_examples=150)
@given(data=st.data())
def test_incremental_transcoder_equals_one_shot_transcode(from_, data):
    whole, chunks = data.draw(split_inputs(from_))
    to = data.draw(st.sampled_from(ENCODINGS))
    errors = data.draw(st.sampled_from(["strict", "replace", "ignore"]))
    streamed = transcode_in_chunks(chunks, from_, to, errors)
    one_shot = transcode_one_shot(whole, from_, to, errors)
    assert streamed[:4] == one_shot
    if streamed[0] == "raised":  # fail-fast, in the call the Validator fails in
        assert streamed[4] == expected_failing_call(chunks, from_)


@pytest.mark.parametrize("from_", ENCODINGS + ["utf-16", "wtf-8"])
@settings(max_examples=60)
@given(data=st.data())
def test_incremental_transcoder_bytes_and_other_buffers_agree(from_, data):
    """bytes chunks are converted by _direct (stream_transcode_new), other
    buffers through cffi: the same outputs and the same errors."""
    whole, chunks = data.draw(split_inputs(from_ if from_ in ENCODINGS else "utf-16-le"))
    to = data.draw(st.sampled_from(ENCODINGS + ["wtf-8", "utf-32"]))
    errors = data.draw(st.sampled_from(["strict", "replace", "ignore"]))
    as_bytes = transcode_in_chunks(chunks, from_, to, errors)
    as_views = transcode_in_chunks([memoryview(bytearray(chunk)) for chunk in chunks], from_, to, errors)
    assert as_bytes == as_views


def test_incremental_transcoder_character_split_at_every_byte():
    text = "a€😀é".encode("utf-8")
    for cut in range(len(text) + 1):
        transcoder = utfkit.IncrementalTranscoder("utf-8", "utf-16-le")
        out = transcoder.feed(text[:cut]) + transcoder.feed(text[cut:]) + transcoder.finish()
        assert out == "a€😀é".encode("utf-16-le")


def test_incremental_transcoder_rejects_unsupported_errors_and_types():
    with pytest.raises(ValueError, match="strict"):
        utfkit.IncrementalTranscoder("utf-8", "utf-16-le", "surrogateescape")
    with pytest.raises(LookupError):
        utfkit.IncrementalTranscoder("utf-8", "koi8-r")
    with pytest.raises(TypeError):
        utfkit.IncrementalTranscoder("utf-8", "utf-16-le").feed("text")


# ---- threads ------------------------------------------------------------------------
def test_stateful_objects_refuse_concurrent_use():
    """A call made while another is inside the object raises RuntimeError;
    the object is unharmed.  Deterministic: the first call is held inside
    the object (its guard taken) while the second is made."""
    objects = [
        (utfkit.Validator(), lambda o: o.feed(b"abc")),
        (utfkit.Validator(), lambda o: o.reset()),
        (utfkit.Validator(), lambda o: o.finish()),
        (utfkit.Validator(), lambda o: o.feed(b"x" * 5000)),  # a chunk the base checks without the GIL
        (utfkit.IncrementalTranscoder("utf-8", "utf-32-le"), lambda o: o.feed(b"abc")),
        (utfkit.IncrementalDecoder(), lambda o: o.decode(b"abc")),
        (utfkit.IncrementalDecoder(), lambda o: o.decode("\u0436".encode() * 3000, True)),  # GIL released
    ]
    for obj, call in objects:
        with obj._guard:  # another thread is inside
            errors = []
            worker = threading.Thread(target=lambda: errors.append(_raises(call, obj)))
            worker.start()
            worker.join()
            assert errors == [RuntimeError]
        call(obj)  # usable again afterwards


class _CountingValidator(utfkit.Validator):
    """A Validator that records which calls its C base handed to the Python
    methods (_feed_slow, _reset_slow, _finish_slow)."""

    __slots__ = ("slow",)

    def __init__(self, encoding: str = "utf-8") -> None:
        self.slow: list[str] = []
        super().__init__(encoding)

    def _feed_slow(self, chunk):
        self.slow.append("feed")
        return super()._feed_slow(chunk)

    def _reset_slow(self):
        self.slow.append("reset")
        return super()._reset_slow()

    def _finish_slow(self):
        self.slow.append("finish")
        return super()._finish_slow()


def test_validator_base_answers_utf8_bytes_between_characters_and_hands_on_the_rest():
    validator = _CountingValidator()
    for chunk in (b"", b"abc", "κόσμε".encode(), b"y" * 5000):  # 5000: checked without the GIL
        validator.feed(chunk)
    validator.finish()
    validator.reset()
    assert validator.slow == []
    assert validator._token == [True]  # the guard given back after the long chunk
    assert validator.offset == 0
    # another buffer type, a character cut across chunks, an error: the Python methods
    validator.feed(bytearray(b"ab"))
    validator.feed(b"\xe2\x82")
    validator.feed(b"\xac")  # back between characters: the base answers again
    validator.feed(b"d")
    assert validator.slow == ["feed", "feed", "feed"]
    assert validator.offset == 6
    with pytest.raises(UnicodeDecodeError) as raised:
        validator.feed(b"ok\xff")
    assert (raised.value.start, raised.value.end) == (8, 9)
    with pytest.raises(UnicodeDecodeError):
        validator.finish()  # failed: the Python method raises the kept error
    assert validator.slow[-2:] == ["feed", "finish"]
    validator.reset()  # a fixed UTF-8 stream: the base restarts it
    assert validator.slow[-1] == "finish"
    assert (validator.offset, validator._error) == (0, None)
    validator.feed(b"\xe2")
    with pytest.raises(UnicodeDecodeError) as raised:
        validator.finish()  # inside a character: the Python method
    assert raised.value.reason == "unexpected end of data"
    validator.finish  # noqa: B018 - the attribute is the base's method
    assert validator.slow[-1] == "finish"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32-be", "wtf-8", "cesu-8", "mutf-8"])
def test_validator_base_hands_every_call_of_other_forms_to_the_python_methods(encoding):
    validator = _CountingValidator(encoding)
    validator.feed(b"\0\0\0a\0\0\0b" if encoding.startswith("utf-32") else b"ab")
    validator.finish()
    validator.reset()
    assert validator.slow == ["feed", "finish", "reset"]


def test_validator_base_after_a_byte_order_mark_is_decided():
    """utf-8-sig: once its mark is read the stream is plain UTF-8, which the
    base answers; reset() must read a mark again, so it stays in Python."""
    validator = _CountingValidator("utf-8-sig")
    validator.feed(b"\xef\xbb")
    validator.feed(b"\xbfab")
    validator.feed(b"cd")
    validator.finish()
    assert validator.slow == ["feed", "feed"]
    assert validator.offset == 7
    validator.reset()
    assert validator.slow[-1] == "reset"
    validator.feed(b"\xef\xbb\xbf")
    assert validator.offset == 3


class _CountingDecoder(utfkit.IncrementalDecoder):
    """An IncrementalDecoder that records the calls its C base handed to
    the Python method (_decode_slow)."""

    def __init__(self, encoding: str = "utf-8", errors: str = "strict") -> None:
        self.slow = 0
        super().__init__(encoding, errors)

    def _decode_slow(self, input, final=False):
        self.slow += 1
        return super()._decode_slow(input, final)


def test_decoder_base_answers_utf8_strict_bytes_chunks():
    decoder = _CountingDecoder()
    text = "κόσμε 中文 😀 " * 50
    data = text.encode()
    assert decoder.decode(data) == text
    assert decoder.decode(data[:6], final=True) == text[:3]
    assert decoder.decode(b"", True) == ""
    assert decoder.slow == 0
    cut = data.index("中".encode()) + 1  # inside a character
    assert decoder.decode(data[:cut]) == text[: text.index("中")]
    assert decoder.getstate() == (data[cut - 1 : cut], 0)
    assert decoder.slow == 0
    assert decoder.decode(data[cut:], final=True) == text[text.index("中") :]  # the carried byte joined
    assert decoder.slow == 0
    assert decoder.decode(memoryview(data)) == text  # another buffer type: Python
    assert decoder.slow == 1
    decoder.errors = "replace"  # another handler: Python
    assert decoder.decode(b"a\xffb" * 40) == "a\ufffdb" * 40
    assert decoder.slow == 2
    decoder.errors = "strict"
    assert decoder.decode(data[:cut]) == text[: text.index("中")]
    with pytest.raises(UnicodeDecodeError) as raised:
        decoder.decode(b"ab\xff")  # an error: CPython's, from Python, naming carried bytes and chunk
    assert (raised.value.start, raised.value.end, raised.value.object) == (0, 1, data[cut - 1 : cut] + b"ab\xff")
    assert decoder.slow == 3



class _CountingTranscoder(utfkit.IncrementalTranscoder):
    """An IncrementalTranscoder that records the calls its C base handed to
    the Python method (_feed_slow)."""

    def __init__(self, from_: str, to: str, errors: str = "strict") -> None:
        self.slow = 0
        super().__init__(from_, to, errors)

    def _feed_slow(self, chunk):
        self.slow += 1
        return super()._feed_slow(chunk)


@pytest.mark.parametrize("chunk_type", [bytes, bytearray, memoryview])
def test_transcoder_base_answers_chunks_once_the_marks_are_settled(chunk_type):
    text = "κόσμε 中文 😀 a\u0000b " * 300
    data = text.encode()
    transcoder = _CountingTranscoder("utf-8", "utf-16-le")
    cut = data.index("中".encode()) + 1  # inside a character: held back in the C stream
    out = transcoder.feed(chunk_type(data[:cut])) + transcoder.feed(chunk_type(data[cut:]))
    assert out + transcoder.finish() == text.encode("utf-16-le")
    assert transcoder.slow == 0
    # a mark to write (utf-16): the first feed in Python, the next ones in C
    marked = _CountingTranscoder("utf-8", "utf-16")
    out = marked.feed(chunk_type(data[:cut])) + marked.feed(chunk_type(data[cut:])) + marked.finish()
    assert out == text.encode("utf-16")
    assert marked.slow == 1
    # a mark to read (utf-16 source): Python until it is decided, then C
    source = "\ufeffab" + text
    reader = _CountingTranscoder("utf-16", "utf-8")
    units = source.encode("utf-16-le")
    out = reader.feed(chunk_type(units[:1])) + reader.feed(chunk_type(units[1:3])) + reader.feed(chunk_type(units[3:]))
    assert out + reader.finish() == source[1:].encode()
    assert reader.slow == 2
    # an error: raised by the class (_failed) with the one-shot call's fields, the chunk as object
    failing = _CountingTranscoder("utf-8", "utf-32-le")
    failing.feed(chunk_type(b"ab"))
    bad = chunk_type(b"cd\xe2\x82(")
    with pytest.raises(UnicodeDecodeError) as raised:
        failing.feed(bad)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (4, 6, "invalid continuation byte")
    assert raised.value.object == b"cd\xe2\x82("
    assert failing.slow == 0
    # not a buffer: the Python path's TypeError
    with pytest.raises(TypeError):
        failing.feed("text")
    assert failing.slow == 1


def test_transcoder_base_refuses_a_second_caller_while_it_converts_without_the_gil():
    transcoder = _CountingTranscoder("utf-8", "utf-16-le")
    transcoder._token.pop()  # as another thread in a long feed holds it
    with pytest.raises(RuntimeError, match="already in use"):
        transcoder.feed(b"abc")
    assert transcoder.slow == 1
    transcoder._token.append(True)
    assert transcoder.feed(b"abc") == "abc".encode("utf-16-le")


def _raises(call, obj):
    try:
        call(obj)
    except Exception as error:  # noqa: BLE001 - the type is the result
        return type(error)
    return None


def test_validators_in_many_threads_give_the_same_answers():
    good = ("κόσμε 中文 😀 " * 20000).encode()
    bad = good[:-7] + b"\xed\xa0\x80" + good[-4:]
    expected = cpython_error(bad, "utf-8")
    results = []

    def work(data):
        validator = utfkit.Validator()
        try:
            for start in range(0, len(data), 65536):
                validator.feed(memoryview(data)[start : start + 65536])
            validator.finish()
            results.append(None)
        except UnicodeDecodeError as error:
            results.append((error.start, error.end, error.reason))

    threads = [threading.Thread(target=work, args=(good if i % 2 else bad,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results, key=repr) == sorted([None] * 4 + [expected] * 4, key=repr)


# ---- a stateful model of the three objects ------------------------------------------
class StreamMachine(RuleBasedStateMachine):
    """Random interleavings of feed / finish / reset / getstate-setstate,
    checked against one-shot processing of the bytes fed so far."""

    @initialize(encoding=st.sampled_from(ENCODINGS), errors=st.sampled_from(["strict", "replace"]))
    def start(self, encoding, errors):
        self.encoding, self.errors = encoding, errors
        self.to = "utf-32-be" if encoding == "utf-8" else "utf-8"
        self.reset()

    def reset(self):
        self.fed = b""
        self.failed = False
        self.validator = utfkit.Validator(self.encoding)
        self.decoder = utfkit.IncrementalDecoder(self.encoding, self.errors)
        self.transcoder = utfkit.IncrementalTranscoder(self.encoding, self.to, self.errors)
        self.decoded, self.transcoded = "", b""

    @precondition(lambda self: not self.failed)
    @rule(data=st.data())
    def feed(self, data):
        chunk = data.draw(inputs_in(self.encoding))[:12]
        fed = self.fed + chunk
        decided = is_decided(fed, self.encoding)
        try:
            self.validator.feed(chunk)
            assert not decided
        except UnicodeDecodeError as error:
            assert decided
            assert (error.start, error.end, error.reason) == cpython_error(fed, self.encoding)
            self.failed = True
        if self.errors == "strict" and decided:
            with pytest.raises(UnicodeDecodeError):
                self.transcoder.feed(chunk)
            return
        self.decoded += self.decoder.decode(chunk)
        self.transcoded += self.transcoder.feed(chunk)
        self.fed = fed

    @precondition(lambda self: not self.failed)
    @rule()
    def move_decoder_state(self):
        state = self.decoder.getstate()
        self.decoder = utfkit.IncrementalDecoder(self.encoding, self.errors)
        self.decoder.setstate(state)

    @rule()
    def finish(self):
        if not self.failed:
            expected = cpython_error(self.fed, self.encoding)
            try:
                self.validator.finish()
                assert expected is None
            except UnicodeDecodeError as error:
                assert (error.start, error.end, error.reason) == expected
            if expected is None or self.errors != "strict":
                self.decoded += self.decoder.decode(b"", final=True)
                self.transcoded += self.transcoder.finish()
                assert self.decoded == self.fed.decode(self.encoding, self.errors)
                assert self.transcoded == utfkit.transcode(self.fed, self.encoding, self.to, self.errors)
        self.reset()

    @invariant()
    def offsets_agree(self):
        if not self.failed:
            assert self.validator.offset == len(self.fed) == self.transcoder.offset


def test_stream_objects_follow_the_one_shot_model():
    run_state_machine_as_test(
        StreamMachine, settings=settings(max_examples=60, stateful_step_count=12, deadline=None)
    )
