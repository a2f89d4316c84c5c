"""CESU-8 (Unicode Technical Report #26) and Java's Modified UTF-8: the
external vectors (the mutf8 package's tests, cesu8-rs), and properties
against an oracle built from CPython's own codecs: a form's bytes are the
UTF-16 code units of the text, each written by CPython's UTF-8 encoder with
``surrogatepass`` (which writes any code point below U+10000 in generalized
UTF-8), with U+0000 as C0 80 for MUTF-8."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import utfkit
from utf8_family_strategies import code_units
from vector_files import vector_params

VECTORS = "mutf8_cesu8_vectors.json"


def cpython_oracle(text: str, form: str) -> bytes:
    """CESU-8 / MUTF-8 of `text` from CPython's codecs alone."""
    units = text.encode("utf-16-be", "surrogatepass")
    as_code_points = "".join(chr(int.from_bytes(units[k : k + 2], "big")) for k in range(0, len(units), 2))
    encoded = as_code_points.encode("utf-8", "surrogatepass")
    return encoded.replace(b"\x00", b"\xc0\x80") if form == "mutf-8" else encoded


def text_of(code_points) -> str:
    return "".join(map(chr, code_points))


# ---- the external vectors ----------------------------------------------------------------------


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["roundtrip"]))
def test_vectors_mutf8_round_trip(vector):
    text = text_of(vector["text_cps"])
    data = bytes.fromhex(vector["mutf8_hex"])
    assert utfkit.decode(data, "mutf-8") == text
    assert utfkit.validate(data, "mutf-8")
    if "decode only" not in vector["source"]:
        assert utfkit.encode(text, "mutf-8") == data
    # CESU-8 is the same bytes wherever the text is Unicode text (no lone
    # surrogates, no U+0000)
    if not any(0xD800 <= c <= 0xDFFF or c == 0 for c in vector["text_cps"]):
        assert utfkit.decode(data, "cesu-8") == text
        assert utfkit.encode(text, "cesu-8") == data


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["rejects"]))
def test_vectors_mutf8_rejects(vector):
    data = bytes.fromhex(vector["mutf8_hex"])
    assert not utfkit.validate(data, "mutf-8")
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.decode(data, "mutf-8")
    assert raised.value.start == 0 and raised.value.end == len(data)
    assert raised.value.encoding == "mutf-8"


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["cesu8_rs"]))
def test_vectors_cesu8_rs(vector):
    text = text_of(vector["text_cps"])
    data = bytes.fromhex(vector["bytes_hex"])
    forms = {"cesu8+java": ["cesu-8", "mutf-8"], "java": ["mutf-8"], "cesu8": ["cesu-8"]}[vector["variant"]]
    for form in forms:
        assert utfkit.decode(data, form) == text
        assert utfkit.encode(text, form) == data
    if vector["variant"] == "cesu8":  # plain CESU-8 keeps NUL as 00; Java does not
        assert not utfkit.validate(data, "mutf-8")
    if vector["variant"] == "java":
        assert not utfkit.validate(data, "cesu-8")


# ---- the forms' rules, one by one ----------------------------------------------------------------


def test_utr26_a_supplementary_character_is_six_bytes_and_the_4_byte_form_is_ill_formed():
    assert utfkit.encode("\U00010401", "cesu-8") == b"\xed\xa0\x81\xed\xb0\x81"
    assert utfkit.transcode(b"\xf0\x90\x90\x81", "utf-8", "cesu-8") == b"\xed\xa0\x81\xed\xb0\x81"
    for form in ("cesu-8", "mutf-8"):
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(b"ab\xf0\x90\x90\x81", form)
        assert (raised.value.start, raised.value.end) == (2, 3)
        assert "4-byte form" in raised.value.reason
        assert utfkit.decode(b"\xf0\x90\x90\x81", form, "replace") == "\ufffd" * 4


def test_cesu8_lone_surrogates_are_errors_cut_as_utf16_cuts_them():
    cases = {
        b"\xed\xa0\x80A": (0, 3, "unpaired lead surrogate byte sequence"),
        b"A\xed\xb0\x80": (1, 4, "unpaired trail surrogate byte sequence"),
        b"\xed\xa0\x80\xed\x80\x80": (0, 3, "unpaired lead surrogate byte sequence"),
        b"\xed\xa0\x80": (0, 3, "unexpected end of data"),         # the pair cut short
        b"\xed\xa0\x80\xed": (0, 4, "unexpected end of data"),
        b"\xed\xa0\x80\xed\xb0": (0, 5, "unexpected end of data"),
        b"\xed\xa0\x80\xed\xa0": (0, 3, "unpaired lead surrogate byte sequence"),
    }
    for data, (start, end, reason) in cases.items():
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(data, "cesu-8")
        assert (raised.value.start, raised.value.end, raised.value.reason) == (start, end, reason), data
        # UTF-16 has the same error at the same unit
        units = utfkit.decode(data, "mutf-8", "replace").encode("utf-16-le", "surrogatepass")
        with pytest.raises(UnicodeDecodeError):
            units.decode("utf-16-le")


def test_mutf8_carries_lone_surrogates_and_joins_pairs_as_java_does():
    assert utfkit.decode(b"\xed\xa0\x80A", "mutf-8") == "\ud800A"
    assert utfkit.decode(b"\xed\xa0\x80\xed\xb0\x80", "mutf-8") == "\U00010000"
    assert utfkit.transcode(b"\xed\xa0\x80A", "mutf-8", "utf-16-le") == b"\x00\xd8A\x00"
    assert utfkit.transcode(b"\xed\xa0\x80A", "mutf-8", "wtf-8") == b"\xed\xa0\x80A"
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(b"\xed\xa0\x80A", "mutf-8", "utf-8")
    assert raised.value.reason == "lone surrogate byte sequence cannot be converted to utf-8"


def test_mutf8_writes_u0000_as_c0_80_and_rejects_a_raw_00():
    assert utfkit.encode("a\0b", "mutf-8") == b"a\xc0\x80b"
    assert utfkit.transcode(b"a\x00b", "utf-8", "mutf-8") == b"a\xc0\x80b"
    assert utfkit.transcode(b"a\x00\x00\x00b\x00", "utf-16-le", "mutf-8") == b"a\xc0\x80b"
    assert utfkit.transcode(b"a\xc0\x80b", "mutf-8", "utf-8") == b"a\x00b"
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.check(b"ab\x00", "mutf-8")
    assert (raised.value.start, raised.value.end) == (2, 3)
    assert "C0 80" in raised.value.reason
    for data, status in ((b"\xc0", "unexpected end of data"), (b"\xc0A", "invalid continuation byte"),
                         (b"\xc0\x81", "invalid continuation byte"), (b"\xc1\x80", "invalid start byte")):
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(data, "mutf-8")
        assert (raised.value.start, raised.value.end, raised.value.reason) == (0, 1, status)
    assert not utfkit.validate(b"\xc0\x80", "cesu-8")  # overlong outside Java


@pytest.mark.parametrize("form", ["cesu-8", "mutf-8"])
@pytest.mark.parametrize("text", ["a" * 300 + "xyz", "héllo wörld ア " * 24], ids=["ascii", "mixed"])
def test_validate_finds_a_foreign_byte_at_every_boundary_of_a_long_text(form, text):
    """F0..FF start nothing in either form (no 4-byte form, UTR #26 section 2), and a raw 00 is
    ill-formed MUTF-8 (U+0000 is C0 80, JVM specification 4.4.7): wherever one stands -- in an
    ASCII run that the validators skip, where they split the text in two, at either end."""
    data = cpython_oracle(text, form)
    assert utfkit.validate(data, form)
    boundaries = [at for at in range(len(data) + 1) if at == len(data) or data[at] & 0xC0 != 0x80]
    for foreign in (b"\x00", b"\xf0", b"\xf4", b"\xff"):
        for at in boundaries:
            damaged = data[:at] + foreign + data[at:]
            well_formed = foreign == b"\x00" and form == "cesu-8"
            assert utfkit.validate(damaged, form) == well_formed, (foreign, at)
            if not well_formed:
                with pytest.raises(UnicodeDecodeError) as raised:
                    utfkit.check(damaged, form)
                assert (raised.value.start, raised.value.end) == (at, at + 1)


@pytest.mark.parametrize("source", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("text", ["a" * 200 + "xyz", "héllo wörld ア " * 12], ids=["ascii", "mixed"])
def test_utf16_and_utf32_into_mutf8_write_u0000_as_c0_80_at_every_position(source, text):
    """U+0000 is C0 80 in MUTF-8 (JVM specification 4.4.7) wherever it stands in the units: inside
    a run of ASCII the block converters take whole, or among longer characters."""
    for at in range(len(text) + 1):
        with_nul = text[:at] + "\0" + text[at:]
        assert utfkit.transcode(with_nul.encode(source), source, "mutf-8") == cpython_oracle(with_nul, "mutf-8")


# Runs of one kind of character, as the kernels' UTF-16/UTF-32 -> UTF-8 blocks take them (ASCII
# runs, units below 0800, other units of the BMP, surrogate pairs, and all of them mixed), long
# enough that a character inserted at each position lands in every lane of several blocks.
RUNS = {
    "ascii": "a" * 150,
    "two-byte": "ж" * 150,
    "three-byte": "ア" * 150,
    "pairs": "\U0001F600" * 75,
    "mixed": "aж ア\U0001F600é" * 30,
}
UNIT_FORMS = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]


@pytest.mark.parametrize("source", UNIT_FORMS)
@pytest.mark.parametrize("run", RUNS)
def test_u0000_into_mutf8_is_c0_80_at_every_lane_of_every_kind_of_block(source, run):
    """U+0000 is C0 80 in MUTF-8 (JVM specification 4.4.7) at each position of each kind of run."""
    text = RUNS[run]
    for at in range(len(text) + 1):
        with_nul = text[:at] + "\0" + text[at:]
        assert utfkit.transcode(with_nul.encode(source), source, "mutf-8") == cpython_oracle(with_nul, "mutf-8"), at


@pytest.mark.parametrize("form", ["cesu-8", "mutf-8"])
@pytest.mark.parametrize("source", UNIT_FORMS)
@pytest.mark.parametrize("run", RUNS)
def test_a_supplementary_character_is_six_bytes_at_every_lane_of_every_kind_of_block(form, source, run):
    """A supplementary character is two 3-byte surrogate sequences in CESU-8 and MUTF-8 (UTR #26
    section 2), never the 4-byte form, at each position of each kind of run."""
    text = RUNS[run]
    for at in range(len(text) + 1):
        with_pair = text[:at] + "\U00010400" + text[at:]
        assert utfkit.transcode(with_pair.encode(source), source, form) == cpython_oracle(with_pair, form), at


@pytest.mark.parametrize("form", ["cesu-8", "mutf-8"])
@pytest.mark.parametrize("source", UNIT_FORMS)
@pytest.mark.parametrize("run", RUNS)
def test_a_lone_surrogate_is_replaced_at_every_lane_of_every_kind_of_block(form, source, run):
    """A unit D800..DFFF with no partner is ill-formed UTF-16 (D91), and any such unit ill-formed
    UTF-32 (D90): U+FFFD, as CPython's decoder gives, wherever it stands -- but MUTF-8 carries a
    lone UTF-16 surrogate as its own 3-byte sequence, as Java does."""
    text = RUNS[run]
    carried = form == "mutf-8" and source.startswith("utf-16")
    for at in range(len(text) + 1):
        units = text[:at].encode(source) + "\udc00".encode(source, "surrogatepass") + text[at:].encode(source)
        expected = cpython_oracle(units.decode(source, "surrogatepass" if carried else "replace"), form)
        assert utfkit.transcode(units, source, form, "replace") == expected, at


def test_cesu8_encode_of_a_surrogate_calls_the_error_handler():
    with pytest.raises(UnicodeEncodeError) as raised:
        utfkit.encode("ab\ud800\udc00c", "cesu-8")
    error = raised.value
    assert (error.encoding, error.start, error.end, error.reason) == ("cesu-8", 2, 4, "surrogates not allowed")
    assert utfkit.encode("ab\ud800c\udfff", "cesu-8", "replace") == b"ab?c?"
    assert utfkit.encode("a\ud800b", "cesu-8", "ignore") == b"ab"
    assert utfkit.encode("a\ud800b", "cesu-8", "backslashreplace") == b"a\\ud800b"
    assert utfkit.encode("a\udc80b\U00010000", "cesu-8", "surrogateescape") == b"a\x80b\xed\xa0\x80\xed\xb0\x80"


# ---- properties against CPython's codecs -----------------------------------------------------------


@pytest.mark.parametrize("form", ["cesu-8", "mutf-8"])
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_encode_equals_the_cpython_oracle_and_round_trips(form, text):
    data = utfkit.encode(text, form)
    assert data == cpython_oracle(text, form)
    assert utfkit.validate(data, form)
    assert utfkit.decode(data, form) == text
    assert utfkit.count(data, form) == len(text)
    utf8 = text.encode("utf-8")
    assert utfkit.transcode(utf8, "utf-8", form) == data
    assert utfkit.transcode(data, form, "utf-8") == utf8
    assert utfkit.transcode(data, form, "utf-32-be") == text.encode("utf-32-be")
    assert utfkit.transcoded_length(data, form, "utf-16-le") == len(text.encode("utf-16-le"))


@given(units=code_units)
def test_any_16_bit_units_survive_utf16_to_mutf8_to_utf16(units):
    """Java's String <-> Modified UTF-8 is lossless for any char sequence."""
    source = b"".join(unit.to_bytes(2, "little") for unit in units)
    data = utfkit.transcode(source, "utf-16-le", "mutf-8")
    text = source.decode("utf-16-le", "surrogatepass")
    assert data == cpython_oracle(text, "mutf-8")
    assert utfkit.validate(data, "mutf-8")
    assert utfkit.transcode(data, "mutf-8", "utf-16-le") == source
    assert utfkit.decode(data, "mutf-8") == text
    assert utfkit.encode(text, "mutf-8") == data


@given(units=code_units)
def test_cesu8_from_utf16_fails_exactly_where_cpython_utf16_fails(units):
    source = b"".join(unit.to_bytes(2, "little") for unit in units)
    try:
        text = source.decode("utf-16-le")
    except UnicodeDecodeError as cpython_error:
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.transcode(source, "utf-16-le", "cesu-8")
        assert (raised.value.start, raised.value.end, raised.value.reason) == (
            cpython_error.start, cpython_error.end, cpython_error.reason)
        replaced = source.decode("utf-16-le", "replace")
        assert utfkit.transcode(source, "utf-16-le", "cesu-8", "replace") == cpython_oracle(replaced, "cesu-8")
    else:
        assert utfkit.transcode(source, "utf-16-le", "cesu-8") == cpython_oracle(text, "cesu-8")
