"""IncrementalDecoder against CPython's incremental decoders, call by call,
however the input is split.  The str is built by CPython's decoders (as
utfkit.decode builds it), so no kernel is involved: each test runs once.
"""

from __future__ import annotations

import codecs
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import utfkit
from test_stream import ENCODINGS, _raises, split_inputs


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation (no C kernel here)."""
    return None


# ---- IncrementalDecoder -----------------------------------------------------------
DECODER_ERRORS = ["strict", "replace", "ignore", "surrogateescape", "backslashreplace", "surrogatepass"]


def run_decoder(decoder, chunks: list[bytes]):
    """Per call: the str returned, or the error's (start, end, reason, object)."""
    outcomes = []
    for index, chunk in enumerate([*chunks, b""]):
        final = index == len(chunks)
        try:
            outcomes.append(decoder.decode(chunk, final))
        except UnicodeDecodeError as error:
            outcomes.append((error.start, error.end, error.reason, bytes(error.object)))
            break
    return outcomes


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=300)
@given(data=st.data())
def test_incremental_decoder_matches_cpythons_call_by_call(encoding, data):
    whole, chunks = data.draw(split_inputs(encoding))
    errors = data.draw(st.sampled_from(DECODER_ERRORS))
    ours = run_decoder(utfkit.IncrementalDecoder(encoding, errors), chunks)
    theirs = run_decoder(codecs.getincrementaldecoder(encoding)(errors), chunks)
    assert ours == theirs


def test_incremental_decoder_encoded_surrogate_split_across_chunks_bpo_24214():
    surrogate = b"\xed\xa0\x80"  # U+D800 spelled in UTF-8
    for cut in range(1, 3):
        decoder = utfkit.IncrementalDecoder("utf-8", "surrogatepass")
        assert decoder.decode(surrogate[:cut]) == ""
        assert decoder.decode(surrogate[cut:], final=True) == "\ud800"
    # strict: like CPython's, the decoder holds ED A0 back (it could still be
    # a surrogate for surrogatepass) and raises on the next byte, with
    # positions relative to the held bytes + input (Validator raises at A0).
    decoder = utfkit.IncrementalDecoder("utf-8")
    assert decoder.decode(b"\xed\xa0") == ""
    with pytest.raises(UnicodeDecodeError) as raised:
        decoder.decode(b"A")
    assert (raised.value.start, raised.value.end, raised.value.object) == (0, 1, b"\xed\xa0A")


def test_incremental_decoder_getstate_setstate_resume_another_decoder():
    first = utfkit.IncrementalDecoder("utf-16-be")
    assert first.decode(b"\x00a\xd8\x3d\xde") == "a"
    state = first.getstate()
    assert state == (b"\xd8\x3d\xde", 0)
    second = utfkit.IncrementalDecoder("utf-16-be")
    second.setstate(state)
    assert second.decode(b"\x00", final=True) == "\U0001f600"
    first.reset()
    assert first.getstate() == (b"", 0)
    assert isinstance(first, codecs.IncrementalDecoder)


def test_incremental_decoder_registered_handler_takes_cpythons_path():
    codecs.register_error("utfkit-test-question", lambda error: ("?", error.end))
    decoder = utfkit.IncrementalDecoder("utf-8", "utfkit-test-question")
    assert decoder.decode(b"a\xe2\x82") == "a"
    assert decoder.decode(b"x\xff", final=True) == "?x?"



def test_decoder_used_concurrently_raises_runtime_error():
    decoder = utfkit.IncrementalDecoder()
    failures = []
    with decoder._guard:  # a call is in progress in another thread
        worker = threading.Thread(target=lambda: failures.append(_raises(lambda d: d.decode(b"abc"), decoder)))
        worker.start()
        worker.join()
    assert failures == [RuntimeError]
    assert decoder.decode(b"abc") == "abc"


def test_decoder_reentered_from_an_error_handler_raises_runtime_error():
    """A registered handler that calls back into the same decoder (the only
    way Python code runs inside decode) gets RuntimeError."""
    decoder = utfkit.IncrementalDecoder("utf-8", "utfkit-test-reenter")
    seen = []

    def handler(error):
        try:
            decoder.decode(b"x")
        except RuntimeError as inner:
            seen.append(str(inner))
        return ("?", error.end)

    codecs.register_error("utfkit-test-reenter", handler)
    assert decoder.decode(b"a\xffb", final=True) == "a?b"
    assert seen and "already in use" in seen[0]


