"""utfkit.decode and utfkit.encode of UTF-8, answered in C (_direct.c,
"decode and encode of UTF-8").

decode builds the str in the storage width CPython would pick (PEP 393: the
narrowest that holds the largest character), written by the core; encode
converts the str's own storage.  Both must equal CPython's codec exactly --
the str's value and its storage width (str comparison assumes the canonical
width), and every error's start, end and reason -- and hand every call they
do not answer to the Python functions, which call CPython's codec.

Inputs are made long enough to reach the core (decode from 48 bytes of
UTF-8; encode from 64, 384 and 128 bytes of str storage of 1, 2 and 4 bytes a
character) and short ones are checked too.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from concurrently import on_threads

import utfkit

# one character of each storage width at its edges (PEP 393), and the UTF-8
# lead bytes that decide it (Unicode 3.9 Table 3-7)
CHARACTERS = {
    "U+00E9 (C3 A9, 1 byte)": "\u00e9",
    "U+00FF (C3 BF, largest of 1 byte)": "\u00ff",
    "U+0100 (C4 80, smallest of 2 bytes)": "\u0100",
    "U+07FF (DF BF)": "\u07ff",
    "U+0800 (E0 A0 80)": "\u0800",
    "U+FFFF (EF BF BF, largest of 2 bytes)": "\uffff",
    "U+10000 (F0 90 80 80, smallest of 4 bytes)": "\U00010000",
    "U+10FFFF (F4 8F BF BF)": "\U0010ffff",
}


def same_str(ours: str, theirs: str) -> None:
    """Equal, and in the same storage width (getsizeof tells the width)."""
    assert type(ours) is str
    assert ours == theirs
    assert sys.getsizeof(ours) == sys.getsizeof(theirs)


def outcome(call):
    try:
        return ("ok", call())
    except UnicodeError as error:
        return (type(error).__name__, error.start, error.end, error.reason)


@pytest.mark.parametrize("name", list(CHARACTERS))
@pytest.mark.parametrize("filler", ["a", "\u00e9"])
def test_one_character_at_every_position_of_a_long_text(name, filler):
    character = CHARACTERS[name]
    for position in range(0, 300, 7):
        text = filler * position + character + filler * (300 - position)
        data = text.encode()
        same_str(utfkit.decode(data), data.decode())
        assert utfkit.encode(text) == data
        assert utfkit.encode(text * 3) == data * 3  # past the encode threshold in every width


@pytest.mark.parametrize("length", [0, 1, 31, 47, 48, 49, 95, 96, 97, 126, 128, 130, 200, 254, 256, 258, 382, 384, 386, 511, 512, 766, 768, 770, 1022,
                                    1024, 1026, 4096, 16500, 70000])
@pytest.mark.parametrize("kind", ["ascii", "latin1", "bmp", "astral"])
def test_lengths_around_the_thresholds_and_the_stack(length, kind):
    unit = {"ascii": "abc", "latin1": "d\u00e9f", "bmp": "\u0436\u4e2d", "astral": "x\U0001f600"}[kind]
    text = (unit * (length // len(unit.encode()) + 1))[: max(length // 2, 0)]
    data = text.encode()
    same_str(utfkit.decode(data), text)
    assert utfkit.encode(text) == data


@pytest.mark.parametrize("filler", ["\u0436", "\u00e9", "ab\u00ff"])
def test_ill_formed_utf8_raises_cpythons_error_at_every_position(filler):
    # Cyrillic goes through validation first; text of U+0080..U+00FF goes
    # straight to Latin-1, whose strict conversion must stop at each error
    base = (filler * 200).encode()[:200]
    for position in range(0, len(base), 5):
        for bad in (b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82"):
            data = base[:position] + bad + base[position:]
            assert outcome(lambda: utfkit.decode(data)) == outcome(lambda: data.decode())


def test_surrogates_in_a_str_raise_cpythons_encode_error():
    for wide in ("\u0436", "\u00e9", "\U0001f600"):
        for lone in ("\ud800", "\udfff", "\ud83d\ude00"):  # a pair in a str is two surrogates
            for position in (0, 1, 300, 599):
                text = wide * position + lone + wide * (600 - position)
                assert outcome(lambda: utfkit.encode(text)) == outcome(lambda: text.encode())



@pytest.mark.parametrize("inserted", ["\ud7ff", "\ud800", "\udbff", "\udc00", "\udfff", "\ue000",
                                      "\ud800\udc00", "\udbff\udfff"])
def test_a_surrogate_at_every_position_of_2_byte_storage_goes_to_cpython(inserted):
    # encode scans 2-byte storage for D800..DFFF (32 units a step, then one at a
    # time) before the core reads it as UTF-16: a pair must not become one
    # character, a lone one must raise CPython's error
    for length in (300, 333):
        for position in range(length):
            text = "\u0436" * position + inserted + "\u4e2d" * (length - position - 1)
            assert outcome(lambda: utfkit.encode(text)) == outcome(lambda: text.encode())

texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=200)


@given(core=texts, pad=st.integers(0, 700), padding=st.sampled_from(["a", "\u00e9", "\u0436", "\U0001f600"]))
def test_any_text_round_trips_as_cpythons_codec(core, pad, padding):
    """Any code points, surrogates included, padded past the thresholds."""
    text = padding * pad + core + padding * (pad // 3)
    assert outcome(lambda: utfkit.encode(text)) == outcome(lambda: text.encode())
    data = text.encode("utf-8", "surrogatepass")  # ill-formed where text has surrogates
    ours, theirs = outcome(lambda: utfkit.decode(data)), outcome(lambda: data.decode())
    assert ours == theirs
    if ours[0] == "ok":
        same_str(ours[1], theirs[1])


@given(data=st.binary(min_size=90, max_size=400))
def test_any_bytes_decode_as_cpythons_codec(data):
    assert outcome(lambda: utfkit.decode(data)) == outcome(lambda: data.decode())


def test_calls_the_core_does_not_answer_give_cpythons_results():
    text = "caf\u00e9 \u0436 \U0001f600 " * 40
    data = text.encode()
    bad = data + b"\xff" + data
    assert utfkit.decode(bad, "utf-8", "replace") == bad.decode("utf-8", "replace")
    assert utfkit.decode(bad, errors="surrogateescape") == bad.decode("utf-8", "surrogateescape")
    assert utfkit.decode(bytearray(data)) == text
    assert utfkit.decode(memoryview(data)) == text
    assert utfkit.decode(data, encoding="utf-8") == text
    assert utfkit.decode(data, "UTF8") == text
    assert utfkit.decode(text.encode("utf-16-le"), "utf-16-le") == text
    assert utfkit.encode(text, "utf-16-le") == text.encode("utf-16-le")
    assert utfkit.encode(text + "\ud800", "utf-8", "surrogatepass") == (text + "\ud800").encode("utf-8", "surrogatepass")
    assert utfkit.encode(text, errors="strict") == data

    class Str(str):
        pass

    assert utfkit.encode(Str(text)) == data
    with pytest.raises(TypeError):
        utfkit.decode("text")
    with pytest.raises(TypeError):
        utfkit.encode(b"bytes")
    with pytest.raises(TypeError):
        utfkit.decode(data, "utf-8", 3)
    with pytest.raises(LookupError):
        utfkit.decode(data, "no-such-encoding")
    with pytest.raises(LookupError):
        utfkit.encode(text, "no-such-encoding")


def test_long_texts_on_four_threads():
    """Long inputs convert with the GIL released (_direct.c, CORE_CALL)."""
    texts = ["\u0436\u4e2d" * 300_000, "caf\u00e9" * 300_000, "x\U0001f600" * 300_000, "ascii" * 300_000]
    encoded = [text.encode() for text in texts]

    def work():
        for text, data in zip(texts, encoded):
            same_str(utfkit.decode(data), text)
            assert utfkit.encode(text) == data

    on_threads(work)


# CPython's own codecs other than UTF-8: called from C without a Python frame
# once the name has been looked up (_text.CPYTHON_DECODERS_BY_SPELLING, ...)
OTHER_NAMES = ["utf-16-le", "UTF-16BE", "utf_32_le", "utf-32-be", "utf-16", "utf-32", "latin-1", "ascii", "utf-8-sig"]


@pytest.mark.parametrize("encoding", OTHER_NAMES)
@pytest.mark.parametrize("errors", [None, "strict", "replace", "surrogatepass", "backslashreplace"])
def test_cpythons_other_codecs_give_cpythons_answers(encoding, errors):
    from utfkit import _text

    extra = () if errors is None else (errors,)
    for text in ("plain", "caf\u00e9 \u0436 \U0001f600", "lone \ud800 surrogate", ""):
        for _ in range(2):  # the first call looks the name up, the second is answered in C
            expected = outcome(lambda: text.encode(encoding, *extra))
            assert outcome(lambda: utfkit.encode(text, encoding, *extra)) == expected
        assert encoding in _text.CPYTHON_ENCODERS_BY_SPELLING
        data = text.encode("utf-8" if encoding == "utf-8-sig" else encoding, "surrogatepass") \
            if "ascii" not in encoding and "latin" not in encoding else text.encode(encoding, "replace")
        for damaged in (data, data + b"\xff", b"\xff\xfe" + data, data[:-1]):
            for _ in range(2):
                expected = outcome(lambda: damaged.decode(encoding, *extra))
                assert outcome(lambda: utfkit.decode(damaged, encoding, *extra)) == expected
        assert encoding in _text.CPYTHON_DECODERS_BY_SPELLING
