"""utfkit.iter_errors: every ill-formed subsequence, in order, as
IllFormed(start, end, reason) -- exactly what CPython's decoder passes to an
error handler (for WTF-8, CESU-8 and MUTF-8: what utfkit.decode passes)."""

from __future__ import annotations

import codecs
import pathlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import utfkit

pytest.register_assert_rewrite("utf16_utf32_strategies", "utf8_family_strategies")
from utf16_utf32_strategies import inputs_in  # noqa: E402
from utf8_family_strategies import utf8_family_bytes  # noqa: E402

CPYTHON_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]
FAMILY = ["wtf-8", "cesu-8", "mutf-8"]
CORPUS = pathlib.Path("/work/shared/corpus/lipsum")


def recorded(data: bytes, decode) -> list:
    """(start, end, reason) of every call of a recording error handler."""
    seen = []

    def record(error: UnicodeDecodeError):
        seen.append((error.start, error.end, error.reason))
        return ("\ufffd", error.end)

    codecs.register_error("utfkit-test-record", record)
    decode(data, "utfkit-test-record")
    return seen


def cpython_positions(data: bytes, encoding: str) -> list:
    return recorded(data, lambda d, errors: d.decode(encoding, errors))


def listed(data, encoding):
    return [tuple(error) for error in utfkit.iter_errors(data, encoding)]


@pytest.mark.parametrize("encoding", CPYTHON_FORMS)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_iter_errors_equals_what_cpythons_decoder_passes_its_error_handler(encoding, data):
    whole = data.draw(inputs_in(encoding))
    assert listed(whole, encoding) == cpython_positions(whole, encoding)


@pytest.mark.parametrize("encoding", FAMILY)
@settings(max_examples=100, deadline=None)
@given(whole=utf8_family_bytes)
def test_iter_errors_equals_what_utfkit_decode_passes_its_error_handler(encoding, whole):
    expected = recorded(whole, lambda d, errors: utfkit.decode(d, encoding, errors))
    assert listed(whole, encoding) == expected


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.txt")) if CORPUS.is_dir() else [])
def test_iter_errors_on_damaged_real_text(name):
    text = (CORPUS / name).read_bytes()[: 64 << 10].decode("utf-8", "ignore").encode()
    rng = random.Random(name)
    damaged = bytearray(text)
    for _ in range(200):  # bytes overwritten, dropped and cut, anywhere
        at = rng.randrange(len(damaged))
        if rng.random() < 0.5:
            damaged[at] = rng.randrange(256)
        else:
            del damaged[at]
    for encoding in ("utf-8", "utf-16-le", "utf-32-be"):
        data = bytes(damaged) if encoding == "utf-8" else \
            utfkit.transcode(text, "utf-8", encoding)[:-1] + bytes(damaged[:99])
        assert listed(data, encoding) == cpython_positions(data, encoding)


def test_iter_errors_yields_named_tuples_and_nothing_for_valid_input():
    assert list(utfkit.iter_errors("héllo".encode())) == []
    first = next(utfkit.iter_errors(memoryview(b"ab\xc3(")))
    assert first == utfkit.IllFormed(2, 3, "invalid continuation byte")
    assert (first.start, first.end, first.reason) == (2, 3, "invalid continuation byte")


def test_iter_errors_checks_its_arguments_at_the_call():
    with pytest.raises(TypeError):
        utfkit.iter_errors("text")
    with pytest.raises(LookupError):
        utfkit.iter_errors(b"", "no-such-encoding")
