"""One stream primitive for every form (csrc/stream.c): Validator,
IncrementalTranscoder and IncrementalDecoder, fed at every cut and at random
cuts, give what the one-shot calls give for the whole input -- in UTF-8,
UTF-16 and UTF-32 (both byte orders), WTF-8, CESU-8 and MUTF-8 -- and fail
in the feed that delivers the deciding byte.  The oracle is the one-shot
C call (checked against CPython elsewhere, and against each form's tables in
test_utf8_family.py).  Stream objects pickle and copy."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import utfkit
from utfkit.compat import Utf8Validator

pytest.register_assert_rewrite("utf16_utf32_strategies", "utf8_family_strategies")
from utf16_utf32_strategies import inputs_in  # noqa: E402
from utf8_family_strategies import surrogate_laden, utf8_family_bytes  # noqa: E402

FAMILY = ["wtf-8", "cesu-8", "mutf-8"]
EVERY_FORM = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", *FAMILY]
END_OF_DATA = {"unexpected end of data", "truncated data"}


def inputs(encoding: str) -> st.SearchStrategy[bytes]:
    return utf8_family_bytes if encoding in FAMILY else inputs_in(encoding)


def split_at(data: bytes, cuts) -> list[bytes]:
    bounds = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def split_inputs(draw, encoding: str):
    data = draw(inputs(encoding))
    cuts = draw(st.lists(st.integers(0, len(data)), max_size=8))
    return data, split_at(data, cuts)


def one_shot_error(data: bytes, encoding: str):
    try:
        utfkit.check(data, encoding)
    except UnicodeDecodeError as error:
        return (error.start, error.end, error.reason)
    return None


def deciding_call(chunks: list[bytes], encoding: str):
    """The call (len(chunks) = finish) that must raise: the one delivering
    the first byte after which no continuation can be well-formed."""
    fed = b""
    for index, chunk in enumerate(chunks):
        for byte in chunk:
            fed += bytes((byte,))
            error = one_shot_error(fed, encoding)
            if error is not None and error[2] not in END_OF_DATA:
                return index
    return None if one_shot_error(fed, encoding) is None else len(chunks)


def validate_in_chunks(chunks, encoding):
    validator = utfkit.Validator(encoding)
    for index, chunk in enumerate(chunks):
        try:
            validator.feed(chunk)
        except UnicodeDecodeError as error:
            return index, (error.start, error.end, error.reason)
    try:
        validator.finish()
    except UnicodeDecodeError as error:
        return len(chunks), (error.start, error.end, error.reason)
    return None, None


def transcode_in_chunks(chunks, from_, to, errors):
    transcoder = utfkit.IncrementalTranscoder(from_, to, errors)
    pieces = []
    try:
        for chunk in chunks:
            pieces.append(transcoder.feed(chunk))
        pieces.append(transcoder.finish())
    except UnicodeDecodeError as error:
        return ("raised", error.start, error.end, error.reason), len(pieces)
    return ("returned", b"".join(pieces)), None


def transcode_one_shot(whole, from_, to, errors):
    try:
        return ("returned", utfkit.transcode(whole, from_, to, errors))
    except UnicodeDecodeError as error:
        return ("raised", error.start, error.end, error.reason)


def decode_in_chunks(chunks, encoding, errors):
    decoder = utfkit.IncrementalDecoder(encoding, errors)
    text = []
    try:
        for chunk in chunks:
            text.append(decoder.decode(chunk))
        text.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError as error:
        return ("raised", error.reason)
    return ("returned", "".join(text))


def decode_one_shot(whole, encoding, errors):
    try:
        return ("returned", utfkit.decode(whole, encoding, errors))
    except UnicodeDecodeError as error:
        return ("raised", error.reason)


# ---- at random cuts -------------------------------------------------------------
@pytest.mark.parametrize("encoding", EVERY_FORM)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_validator_equals_one_shot_check_and_fails_in_the_deciding_feed(encoding, data):
    whole, chunks = data.draw(split_inputs(encoding))
    index, error = validate_in_chunks(chunks, encoding)
    assert error == one_shot_error(whole, encoding)
    assert index == deciding_call(chunks, encoding)


@pytest.mark.parametrize("from_", EVERY_FORM)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_transcoder_equals_one_shot_transcode_in_every_form(from_, data):
    whole, chunks = data.draw(split_inputs(from_))
    to = data.draw(st.sampled_from(EVERY_FORM))
    errors = data.draw(st.sampled_from(["strict", "replace", "ignore"]))
    streamed, failing_call = transcode_in_chunks(chunks, from_, to, errors)
    assert streamed == transcode_one_shot(whole, from_, to, errors)
    if failing_call is not None and one_shot_error(whole, from_) is not None \
            and streamed[1] == one_shot_error(whole, from_)[0]:
        assert failing_call == deciding_call(chunks, from_)  # fail-fast, as the Validator


@pytest.mark.parametrize("from_", ["wtf-8", "mutf-8"])
@pytest.mark.parametrize("cut", range(1, 8))
def test_wtf8_output_joins_a_lead_and_a_trail_that_ignore_made_adjacent_across_chunks(from_, cut):
    # A lead surrogate, an ill-formed byte, a trail surrogate: with "ignore"
    # the two become adjacent, and WTF-8 output writes them as one
    # supplementary character (WTF-8 section 6.1), wherever the stream is cut
    # -- also when the lead's output ends one call and the trail's starts the
    # next (found by hypothesis with the cut after b"\xed\xa0\x80\xed\xed").
    whole = b"\xed\xa0\x80\xed\xed\xb0\x80" if from_ == "mutf-8" else b"\xed\xa0\x80\xff\xed\xb0\x80"
    chunks = [whole[:cut], whole[cut:]]
    assert transcode_one_shot(whole, from_, "wtf-8", "ignore") == ("returned", b"\xf0\x90\x80\x80")
    assert transcode_in_chunks(chunks, from_, "wtf-8", "ignore")[0] == ("returned", b"\xf0\x90\x80\x80")
    transcoder = utfkit.IncrementalTranscoder(from_, "wtf-8", "ignore")
    first = transcoder.feed(chunks[0])
    transcoder = pickle.loads(pickle.dumps(transcoder))  # the held-back lead travels with it
    assert first + transcoder.feed(chunks[1]) + transcoder.finish() == b"\xf0\x90\x80\x80"


@pytest.mark.parametrize("from_", ["wtf-8", "cesu-8", "mutf-8", "utf-16-le", "utf-16-be"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_transcoder_joins_and_splits_surrogates_as_one_shot_transcode_does(from_, data):
    # Whatever the chunks (empty ones too), the handler and the destination;
    # a pickle between two chunks carries a held-back lead surrogate along.
    whole = data.draw(surrogate_laden(from_, max_parts=10))
    chunks = split_at(whole, data.draw(st.lists(st.integers(0, len(whole)), max_size=10)))
    to = data.draw(st.sampled_from(["wtf-8", "wtf-8", "utf-8", "utf-16-le", "utf-32-be", "cesu-8", "mutf-8"]))
    errors = data.draw(st.sampled_from(["strict", "replace", "ignore"]))
    pickled_after = data.draw(st.integers(0, len(chunks)))
    transcoder = utfkit.IncrementalTranscoder(from_, to, errors)
    pieces = []
    try:
        for index, chunk in enumerate(chunks):
            if index == pickled_after:
                transcoder = pickle.loads(pickle.dumps(transcoder))
            pieces.append(transcoder.feed(chunk))
        pieces.append(transcoder.finish())
        streamed = ("returned", b"".join(pieces))
    except UnicodeDecodeError as error:
        streamed = ("raised", error.start, error.end, error.reason)
    assert streamed == transcode_one_shot(whole, from_, to, errors)


def test_a_transcoder_pickled_while_python_held_the_lead_still_joins_it():
    # Pickled by the session-5 IncrementalTranscoder, which kept a WTF-8
    # output's last lead surrogate in Python: MUTF-8 -> WTF-8, ignore, fed
    # b"a\xed\xa0\x80\xff" (it returned b"a" and held ED A0 80).
    state = (b"\x80\x04\x95i\x00\x00\x00\x00\x00\x00\x00\x8c\rutfkit.stream\x94\x8c\x13_restore_transcoder"
             b"\x94\x93\x94(\x8c\x06mutf-8\x94\x8c\x05wtf-8\x94\x8c\x06ignore\x94(Nh\x03\x89K\x00(K\x07K\x00"
             b"K\x05K\x00K\x00K\x00C\x00\x94t\x94C\x03\xed\xa0\x80\x94t\x94t\x94R\x94.")
    transcoder = pickle.loads(state)
    assert transcoder.offset == 5
    assert transcoder.feed(b"\xed\xb0\x80") + transcoder.finish() == b"\xf0\x90\x80\x80"


@pytest.mark.parametrize("encoding", FAMILY)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_decoder_of_the_utf8_relatives_equals_one_shot_decode(encoding, data):
    whole, chunks = data.draw(split_inputs(encoding))
    errors = data.draw(st.sampled_from(["strict", "replace", "ignore", "surrogateescape"]))
    assert decode_in_chunks(chunks, encoding, errors) == decode_one_shot(whole, encoding, errors)


# ---- at every cut, on the inputs where the forms differ --------------------------
LEAD, TRAIL = b"\xed\xa0\x80", b"\xed\xb0\x80"
AROUND_SURROGATES = [
    LEAD + TRAIL, LEAD + b"a", LEAD + LEAD + TRAIL, LEAD + b"\xed\xb0\xe4\xb8\xad",
    LEAD + b"\xed\xe4\xb8\xad", LEAD + b"\xed\xb0", LEAD + b"\xed", TRAIL + LEAD,
    b"\xe4\xb8" + LEAD + TRAIL, b"\xc0\x80\xc0", "a€😀".encode("utf-8") + LEAD,
    b"\xf0\x9f\x98\x80" + LEAD + b"\xed\xb0\xe4\xb8",
]


@pytest.mark.parametrize("encoding", FAMILY)
@pytest.mark.parametrize("whole", AROUND_SURROGATES)
def test_every_pair_of_cuts_gives_the_one_shot_answer(encoding, whole):
    expected_error = one_shot_error(whole, encoding)
    for first in range(len(whole) + 1):
        for second in range(first, len(whole) + 1):
            chunks = split_at(whole, [first, second])
            assert validate_in_chunks(chunks, encoding)[1] == expected_error
            for to in ("utf-16-le", "wtf-8", "utf-8"):
                for errors in ("strict", "replace"):
                    assert transcode_in_chunks(chunks, encoding, to, errors)[0] == \
                        transcode_one_shot(whole, encoding, to, errors), (chunks, to, errors)
            assert decode_in_chunks(chunks, encoding, "replace") == \
                decode_one_shot(whole, encoding, "replace")


def test_streams_take_the_forms_the_cli_and_the_codecs_use():
    for encoding in FAMILY:
        utfkit.Validator(encoding).finish()
        assert utfkit.IncrementalTranscoder(encoding, "utf-16-le").feed(b"ab") == "ab".encode("utf-16-le")


def test_wtf8_lead_then_trail_in_the_next_chunk_fails_in_that_chunk():
    validator = utfkit.Validator("wtf-8")
    validator.feed(b"x" + LEAD)
    with pytest.raises(UnicodeDecodeError) as raised:
        validator.feed(TRAIL)
    assert (raised.value.start, raised.value.end) == (4, 7)


# ---- pickle and copy ------------------------------------------------------------
def _copies(obj):
    return [pickle.loads(pickle.dumps(obj)), copy.copy(obj), copy.deepcopy(obj)]


@pytest.mark.parametrize("encoding", EVERY_FORM)
def test_a_copied_validator_goes_on_independently_in_the_same_state(encoding):
    text = "a€😀\U0010ffff".encode(encoding if encoding not in FAMILY else "utf-8")
    if encoding in FAMILY:
        text = utfkit.transcode(text, "utf-8", encoding)
    head, tail = text[:6], text[6:]
    validator = utfkit.Validator(encoding)
    validator.feed(head)
    for twin in _copies(validator):
        assert twin.offset == validator.offset
        twin.feed(tail)
        twin.finish()
        with pytest.raises(UnicodeDecodeError):  # cut short at the same place
            clone = copy.copy(validator)
            clone.finish()
    validator.feed(tail)  # the original was not moved by its copies
    validator.finish()


def test_a_copied_validator_keeps_its_error():
    validator = utfkit.Validator()
    with pytest.raises(UnicodeDecodeError):
        validator.feed(b"ab\xff")
    for twin in _copies(validator):
        with pytest.raises(UnicodeDecodeError) as raised:
            twin.finish()
        assert (raised.value.start, raised.value.reason) == (2, "invalid start byte")


@pytest.mark.parametrize("encoding", EVERY_FORM)
def test_a_copied_transcoder_goes_on_independently(encoding):
    text = utfkit.transcode("a€😀é".encode("utf-8"), "utf-8", encoding)
    transcoder = utfkit.IncrementalTranscoder(encoding, "utf-16-le", "replace")
    first = transcoder.feed(text[:5])
    for twin in _copies(transcoder):
        assert first + twin.feed(text[5:]) + twin.finish() == "a€😀é".encode("utf-16-le")
        assert twin.errors == "replace"
    assert first + transcoder.feed(text[5:]) + transcoder.finish() == "a€😀é".encode("utf-16-le")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16-be", "cesu-8"])
def test_a_copied_decoder_goes_on_independently(encoding):
    text = "a€😀é"
    data = utfkit.transcode(text.encode(), "utf-8", encoding)
    decoder = utfkit.IncrementalDecoder(encoding, "strict")
    first = decoder.decode(data[:5])
    for twin in _copies(decoder):
        assert first + twin.decode(data[5:], final=True) == text
    assert first + decoder.decode(data[5:], final=True) == text


def test_a_copied_autobahn_validator_goes_on_independently():
    validator = Utf8Validator()
    assert validator.validate(b"a\xe2\x82")[:2] == (True, False)
    for twin in _copies(validator):
        assert twin.validate(b"\xac") == (True, True, 1, 4)
    assert validator.validate(b"\xac") == (True, True, 1, 4)
