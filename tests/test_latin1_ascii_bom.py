"""latin-1, ascii and the byte-order-mark forms utf-16, utf-32 and utf-8-sig,
with CPython's codecs as the oracle, for every call that takes an encoding.

CPython's rules being checked (Lib/encodings and Objects/unicodeobject.c):
  - latin-1: each byte is the code point of its value; decoding never fails;
    encoding fails for a character above U+00FF ("ordinal not in range(256)").
  - ascii: a byte 80..FF is ill-formed, one byte at a time ("ordinal not in
    range(128)"); encoding fails above U+007F.  Encoders report a run of
    unencodable characters as one error; replace writes one '?' per character.
  - utf-16 / utf-32: a whole leading byte-order mark picks the byte order and
    is stripped; without one the data is in the host's order; errors name the
    fixed form ('utf-16-le') and count positions in the whole input; encoders
    write the host's mark first, even for empty text.
  - utf-8-sig: a leading EF BB BF is stripped, and errors are those of decoding
    the rest as UTF-8 (positions in the rest).

Inputs go in as ``bytes`` (which short-input paths may hand to CPython itself)
and as ``bytearray`` (always through the C core), under every kernel.
"""

from __future__ import annotations

import codecs
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import utfkit

NEW_FORMS = ["latin-1", "ascii", "utf-16", "utf-32", "utf-8-sig"]
CPYTHON_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", *NEW_FORMS]
ERRORS = ["strict", "replace", "ignore"]
MARKS = [codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE]
HOST_16, HOST_32 = ("utf-16-le", "utf-32-le") if sys.byteorder == "little" else ("utf-16-be", "utf-32-be")

# Text with ASCII, Latin-1, other BMP and supplementary characters; the mark
# character U+FEFF now and then, so that a mark may also appear inside.
texts = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0x7F),
        st.characters(min_codepoint=0x80, max_codepoint=0xFF),
        st.characters(blacklist_categories=("Cs",)),
        st.just("\ufeff"),
    ),
    max_size=80,
)


@st.composite
def encoded_inputs(draw: st.DrawFn) -> bytes:
    """Text encoded in some form, maybe behind a mark, maybe damaged: bytes
    inserted, the end cut off; or bytes at random."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.binary(max_size=120))
    text = draw(texts)
    form = draw(st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "latin-1"]))
    data = text.encode(form, "replace")
    if draw(st.booleans()):
        data = draw(st.sampled_from(MARKS)) + data
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at:]
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data


def outcome(call, *args):
    """What a call returns, or the exception it raises, field by field."""
    try:
        return call(*args)
    except UnicodeError as error:
        return (type(error).__name__, error.encoding, error.object, error.start, error.end, error.reason)


def both(data: bytes):
    return [data, bytearray(data)]


def cpython_transcode(data: bytes, from_: str, to: str, errors: str) -> bytes:
    return data.decode(from_, errors).encode(to, errors)


# ---- names -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling, name",
    [
        ("latin-1", "latin-1"), ("latin1", "latin-1"), ("Latin_1", "latin-1"), ("iso-8859-1", "latin-1"),
        ("ISO8859-1", "latin-1"), ("l1", "latin-1"), ("8859", "latin-1"), ("cp819", "latin-1"),
        ("ascii", "ascii"), ("US-ASCII", "ascii"), ("646", "ascii"),
        ("utf-16", "utf-16"), ("UTF16", "utf-16"), ("utf_32", "utf-32"), ("U32", "utf-32"),
        ("utf-8-sig", "utf-8-sig"), ("UTF_8_SIG", "utf-8-sig"),
    ],
)
def test_every_cpython_spelling_names_the_same_encoding(spelling, name):
    data = bytes(range(256)) if name == "latin-1" else "ab".encode(name)
    assert utfkit.decode(data, spelling) == data.decode(name)
    assert utfkit.transcode(bytearray(data), spelling, "utf-8") == data.decode(name).encode()


def test_encodings_other_than_utfkits_raise_lookup_error():
    with pytest.raises(LookupError):
        utfkit.validate(b"abc", "cp1252")
    with pytest.raises(LookupError):
        utfkit.transcode(b"abc", "utf-8", "koi8-r")


# ---- the byte API against CPython's decoders --------------------------------------------


@pytest.mark.parametrize("encoding", NEW_FORMS)
@given(data=encoded_inputs())
def test_validate_check_valid_up_to_count_agree_with_cpython(encoding, data):
    expected = outcome(data.decode, encoding)
    well_formed = isinstance(expected, str)
    marked = encoding == "utf-8-sig" and data.startswith(codecs.BOM_UTF8)
    for given_data in both(data):
        assert utfkit.validate(given_data, encoding) is well_formed
        assert outcome(utfkit.check, given_data, encoding) == (None if well_formed else expected)
        assert utfkit.valid_up_to(given_data, encoding) == (
            len(data) if well_formed else expected[3] + (3 if marked else 0)
        )
        assert utfkit.count(given_data, encoding) == len(data.decode(encoding, "replace"))


@pytest.mark.parametrize("encoding", NEW_FORMS)
@given(data=encoded_inputs())
def test_sanitize_keeps_the_mark_and_repairs_the_rest_as_cpython_replaces(encoding, data):
    if encoding in ("latin-1", "ascii"):
        expected = data.decode(encoding, "replace").encode(encoding, "replace")  # U+FFFD is '?' in ASCII
    else:
        marks = {"utf-16": [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE],
                 "utf-32": [codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE], "utf-8-sig": [codecs.BOM_UTF8]}[encoding]
        mark = next((m for m in marks if data.startswith(m)), b"")
        fixed = {codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be",
                 codecs.BOM_UTF32_LE: "utf-32-le", codecs.BOM_UTF32_BE: "utf-32-be",
                 codecs.BOM_UTF8: "utf-8"}.get(mark, {"utf-16": HOST_16, "utf-32": HOST_32}.get(encoding, "utf-8"))
        expected = mark + data[len(mark):].decode(fixed, "replace").encode(fixed)
    for given_data in both(data):
        assert utfkit.sanitize(given_data, encoding) == expected
        assert utfkit.validate(utfkit.sanitize(given_data, encoding), encoding)


def test_sanitize_returns_well_formed_bytes_themselves():
    data = codecs.BOM_UTF16_BE + "ok".encode("utf-16-be")
    assert utfkit.sanitize(data, "utf-16") is data
    latin = bytes(range(256))
    assert utfkit.sanitize(latin, "latin-1") is latin


@pytest.mark.parametrize("encoding", NEW_FORMS)
@pytest.mark.parametrize("errors", ["strict", "replace", "ignore", "backslashreplace", "surrogateescape"])
@given(data=encoded_inputs())
def test_decode_is_cpythons(encoding, errors, data):
    for given_data in both(data):
        assert outcome(utfkit.decode, given_data, encoding, errors) == outcome(data.decode, encoding, errors)


@pytest.mark.parametrize("encoding", NEW_FORMS)
@pytest.mark.parametrize("errors", ["strict", "replace", "ignore", "xmlcharrefreplace", "surrogatepass"])
@given(text=st.one_of(texts, st.text(max_size=30)))
def test_encode_is_cpythons(encoding, errors, text):
    assert outcome(utfkit.encode, text, encoding, errors) == outcome(text.encode, encoding, errors)


# ---- transcode: every pair, every handler --------------------------------------------------


@pytest.mark.parametrize("errors", ERRORS)
@given(
    data=encoded_inputs(),
    from_=st.sampled_from(CPYTHON_FORMS),
    to=st.sampled_from(CPYTHON_FORMS),
    repeat=st.integers(1, 40),
)
def test_transcode_is_decode_then_encode(errors, data, from_, to, repeat):
    data = data * repeat  # long enough, now and then, for the kernels' blocks
    expected = outcome(cpython_transcode, data, from_, to, errors)
    for given_data in both(data):
        assert outcome(utfkit.transcode, given_data, from_, to, errors) == expected
        if isinstance(expected, bytes):
            assert utfkit.transcoded_length(given_data, from_, to, errors) == len(expected)
            out = bytearray(len(expected) + 3)
            assert utfkit.transcode(given_data, from_, to, errors, out=out) == len(expected)
            assert bytes(out[: len(expected)]) == expected


@pytest.mark.parametrize("from_", ["latin-1", "ascii"])
@pytest.mark.parametrize("to", ["utf-8", "utf-16-le", "utf-32-be", "wtf-8", "cesu-8", "mutf-8", "utf-16", "latin-1"])
def test_every_byte_of_latin1_and_ascii_converts_as_cpython_decodes_it(from_, to):
    data = bytes(range(256)) * 9  # long enough for the kernels' blocks
    for errors in ["replace", "ignore"]:
        text = data.decode(from_, errors)
        expected = utfkit.encode(text, to, "replace") if to in ("wtf-8", "cesu-8", "mutf-8") else text.encode(to, "replace")
        assert utfkit.transcode(bytearray(data), from_, to, errors) == expected


@pytest.mark.parametrize("to", ["latin-1", "ascii"])
@pytest.mark.parametrize("from_", ["wtf-8", "cesu-8", "mutf-8"])
@pytest.mark.parametrize("errors", ERRORS)
@given(text=texts, repeat=st.integers(1, 30))
def test_utf8_family_to_latin1_and_ascii_encodes_the_decoded_text(to, from_, errors, text, repeat):
    text = text * repeat
    data = utfkit.encode(text, from_)
    expected = outcome(lambda: text.encode(to, errors))
    assert outcome(utfkit.transcode, bytearray(data), from_, to, errors) == expected


def test_unencodable_characters_before_an_ill_formed_byte_raise_the_decode_error_first():
    data = bytearray("€€".encode() + b"x" * 600 + b"\xff")  # as bytes.decode().encode(): decoding first
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(data, "utf-8", "latin-1")
    assert (raised.value.start, raised.value.end, raised.value.reason) == (606, 607, "invalid start byte")
    data = bytearray("a€€b".encode() * 300)
    with pytest.raises(UnicodeEncodeError) as encode_error:
        utfkit.transcode(data, "utf-8", "ascii")
    assert (encode_error.value.encoding, encode_error.value.start, encode_error.value.end) == ("ascii", 1, 3)
    assert encode_error.value.reason == "ordinal not in range(128)"


def test_replace_writes_one_question_mark_per_character_and_per_replaced_subsequence():
    data = bytearray("é€😀".encode() + b"\xe2\x82" + b"a" * 600)
    assert utfkit.transcode(data, "utf-8", "latin-1", "replace") == b"\xe9???" + b"a" * 600
    assert utfkit.transcode(data, "utf-8", "ascii", "replace") == b"????" + b"a" * 600
    assert utfkit.transcode(data, "utf-8", "latin-1", "ignore") == b"\xe9" + b"a" * 600



@pytest.mark.parametrize("to", ["latin-1", "ascii"])
@pytest.mark.parametrize("from_", ["utf-8", "utf-16-le"])
@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("wide", [1, 15, 16, 17, 127, 128, 255, 256, 257, 700, 2047, 2049])
@pytest.mark.parametrize("narrow", [0, 1, 40, 300])
def test_runs_of_characters_above_the_destination_read_in_pieces_of_every_size(to, from_, errors, wide, narrow):
    # The narrowing reads straight what it can and takes the rest in pieces
    # whose size depends on what came before and on how much is left: runs
    # of characters above U+00FF of every length around those sizes, Latin-1
    # text between them, and an ill-formed byte after, at the end of a run.
    text = ("\u0436\u4e2d" * wide)[:wide] + "\xe9a" * narrow + "\u20ac" * (wide // 2)
    data = text.encode(from_)
    for case in [data, data + b"\xff" + data[:64], data[: len(data) // 2 * 2 - 1] if from_ == "utf-8" else data + b"\x00"]:
        expected = outcome(cpython_transcode, case, from_, to, errors)
        assert outcome(utfkit.transcode, bytearray(case), from_, to, errors) == expected
        if isinstance(expected, bytes):
            assert utfkit.transcoded_length(case, from_, to, errors) == len(expected)


@pytest.mark.parametrize("to", ["latin-1", "ascii"])
@pytest.mark.parametrize(
    "from_, data",
    [
        ("utf-8", b"\xff" * 700),  # a '?' for every byte
        ("utf-8", b"\x80" * 699 + b"\xc3"),  # ... and for a lead byte cut off at the end
        ("utf-16-le", b"\x00\xdc" * 350 + b"\x41"),  # every unit a lone surrogate, and half a unit
        ("utf-32-le", b"\x00\x00\x11\x00" * 175 + b"\x41\x00"),  # every unit too large, and half a unit
    ],
)
def test_replace_makes_at_most_one_byte_per_code_unit_and_the_output_can_be_that_long(from_, to, data):
    expected = data.decode(from_, "replace").encode(to, "replace")
    assert len(expected) == -(-len(data) // {"utf-8": 1, "utf-16-le": 2, "utf-32-le": 4}[from_])
    assert utfkit.transcode(bytearray(data), from_, to, "replace") == expected
    assert utfkit.transcode(data, from_, to, "replace") == expected
    assert utfkit.transcoded_length(data, from_, to, "replace") == len(expected)


@pytest.mark.parametrize("from_", ["utf-8", "utf-16-be", "utf-32-le"])
@pytest.mark.parametrize("to", ["latin-1", "ascii"])
@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("tail", ["", "\u20ac", "\xe9" * 5 + "\u4e2d", "x\udc80"])
def test_an_out_buffer_of_about_the_outputs_size_is_filled_or_refused_with_nothing_written_past_it(
        from_, to, errors, tail):
    # Thousands of characters, so that the output fills out= while the
    # input goes on: a buffer of the exact size is filled straight, and one a
    # byte short is refused without a byte written past its end.
    text = ("Le d\xe9part de l'\xe9quipe \xe0 Montr\xe9al, " * 150) + tail
    data = text.encode(from_, "surrogatepass")
    expected = outcome(cpython_transcode, data, from_, to, errors)
    for room in [0, 1, -1, -2, -len(text) // 2]:
        size = (len(expected) if isinstance(expected, bytes) else len(text)) + room
        arena = bytearray(b"\xaa" * (size + 64))
        out = memoryview(arena)[:size]
        into_out = lambda: utfkit.transcode(bytearray(data), from_, to, errors, out=out)  # noqa: E731
        if not isinstance(expected, bytes):  # the error, whatever the room
            assert outcome(into_out) == expected
        elif len(expected) > size:
            with pytest.raises(ValueError, match="has room for") as refused:
                into_out()
            assert not isinstance(refused.value, UnicodeError)
        else:
            assert into_out() == len(expected)
            assert bytes(out[: len(expected)]) == expected
        assert arena[size:] == b"\xaa" * 64


# ---- the byte-order-mark rules ------------------------------------------------------------


@pytest.mark.parametrize(
    "data, encoding, text",
    [
        (codecs.BOM_UTF16_BE + "hé".encode("utf-16-be"), "utf-16", "hé"),
        (codecs.BOM_UTF16_LE + "hé".encode("utf-16-le"), "utf-16", "hé"),
        ("hé".encode(HOST_16), "utf-16", "hé"),  # no mark: the host's order
        (codecs.BOM_UTF32_BE + "h😀".encode("utf-32-be"), "utf-32", "h😀"),
        (codecs.BOM_UTF8 + "hé".encode(), "utf-8-sig", "hé"),
        ("hé".encode(), "utf-8-sig", "hé"),
        (codecs.BOM_UTF8 * 2, "utf-8-sig", "\ufeff"),  # only the first mark is stripped
    ],
)
def test_a_leading_mark_is_read_and_stripped(data, encoding, text):
    assert utfkit.decode(data, encoding) == text
    assert utfkit.transcode(bytearray(data), encoding, "utf-8") == text.encode()
    assert utfkit.count(data, encoding) == len(text)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8-sig"])
@pytest.mark.parametrize("text", ["", "hé😀", "x" * 700])
def test_encoders_write_cpythons_mark_even_for_empty_text(encoding, text):
    expected = text.encode(encoding)
    assert utfkit.encode(text, encoding) == expected
    for source in (text.encode(), bytearray(text.encode())):
        assert utfkit.transcode(source, "utf-8", encoding) == expected
        assert utfkit.transcoded_length(source, "utf-8", encoding) == len(expected)


def test_an_out_buffer_too_small_for_the_mark_is_refused():
    with pytest.raises(ValueError):
        utfkit.transcode(bytearray(b"x" * 600), "utf-8", "utf-16", out=bytearray(1))


# ---- Latin-1 and ASCII in the fixed forms' streams -------------------------------------


def test_latin1_decoding_never_fails():
    data = bytes(range(256)) * 4
    assert utfkit.validate(data, "latin-1")
    utfkit.check(data, "latin-1")
    assert utfkit.valid_up_to(data, "latin-1") == len(data)
    assert utfkit.count(data, "latin-1") == len(data)


# ---- columns (data + offsets) ------------------------------------------------------------


def test_columns_take_latin1_and_ascii_item_by_item_and_refuse_the_mark_forms():
    import array

    items = [b"caf\xe9", b"abc", b"\xff", b""]
    data = b"".join(items)
    offsets = array.array("i", [0, 4, 7, 8, 8])
    for encoding in ["latin-1", "ascii"]:
        assert list(utfkit.validate_offsets(data, offsets, encoding)) == [
            int(utfkit.validate(item, encoding)) for item in items]
        assert list(utfkit.count_offsets(data, offsets, encoding)) == [utfkit.count(item, encoding) for item in items]
        repaired, _ = utfkit.sanitize_offsets(data, offsets, encoding)
        assert repaired == b"".join(utfkit.sanitize(item, encoding) for item in items)
    for encoding in ["utf-16", "utf-32", "utf-8-sig"]:
        with pytest.raises(ValueError, match="byte-order-mark"):
            utfkit.validate_offsets(data, offsets, encoding)
