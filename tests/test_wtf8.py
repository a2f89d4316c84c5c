"""WTF-8 (seed 003): the external vectors (Rust std / rust-wtf8 and the
spec), the spec's own tables and algorithms, and the properties section 6
promises -- lossless to and from potentially ill-formed UTF-16, lossy and
strict conversion to UTF-8, concatenation."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

import utf8_family_oracle as oracle
import utfkit
from utf8_family_strategies import code_units
from vector_files import vector_params

VECTORS = "wtf8_vectors.json"


def units_to_bytes(units, order="le") -> bytes:
    return struct.pack(("<" if order == "le" else ">") + "%dH" % len(units), *units)


def bytes_to_units(data: bytes, order="le"):
    return list(struct.unpack(("<" if order == "le" else ">") + "%dH" % (len(data) // 2), data))


def hex_bytes(text: str) -> bytes:
    return bytes.fromhex(text)


# ---- the external vectors ----------------------------------------------------------------------


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["from_utf16"]))
def test_vectors_from_utf16(vector):
    wtf8 = hex_bytes(vector["wtf8_hex"])
    for order, form in (("le", "utf-16-le"), ("be", "utf-16-be")):
        units = units_to_bytes(vector["utf16"], order)
        assert utfkit.transcode(units, form, "wtf-8") == wtf8
        assert utfkit.transcoded_length(units, form, "wtf-8") == len(wtf8)
        assert utfkit.transcode(wtf8, "wtf-8", form) == units


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["from_code_points"]))
def test_vectors_from_code_points(vector):
    """encode() of a str holding the code points: a lead + trail pair joins."""
    text = "".join(map(chr, vector["cps"]))
    wtf8 = hex_bytes(vector["wtf8_hex"])
    assert utfkit.encode(text, "wtf-8") == wtf8
    assert utfkit.validate(wtf8, "wtf-8")


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["concat"]))
def test_vectors_concat(vector):
    left, right = hex_bytes(vector["left_hex"]), hex_bytes(vector["right_hex"])
    assert utfkit.wtf8_concat(left, right) == hex_bytes(vector["result_hex"])


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["to_utf8"]))
def test_vectors_to_utf8(vector):
    wtf8 = hex_bytes(vector["wtf8_hex"])
    lossy = hex_bytes(vector["lossy_utf8_hex"])
    assert utfkit.transcode(wtf8, "wtf-8", "utf-8", errors="replace") == lossy
    if vector["strict_ok"]:
        assert utfkit.transcode(wtf8, "wtf-8", "utf-8") == wtf8
    else:
        with pytest.raises(UnicodeDecodeError):
            utfkit.transcode(wtf8, "wtf-8", "utf-8")


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["to_utf16"]))
def test_vectors_to_utf16(vector):
    wtf8 = hex_bytes(vector["wtf8_hex"])
    assert bytes_to_units(utfkit.transcode(wtf8, "wtf-8", "utf-16-le")) == vector["utf16"]
    assert [ord(c) for c in utfkit.decode(wtf8, "wtf-8")] == oracle.wtf16_code_points(vector["utf16"])


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: [d["boundaries"]]))
def test_vectors_boundaries(vector):
    """A cut at a non-boundary leaves a prefix that is not well-formed."""
    string = hex_bytes(vector["string"])
    for offset in vector["valid_cut_offsets"]:
        assert utfkit.validate(string[:offset], "wtf-8")
        assert utfkit.valid_up_to(string[:offset], "wtf-8") == offset
    for offset in vector["invalid_cut_offsets"]:
        assert not utfkit.validate(string[:offset], "wtf-8")
        assert utfkit.valid_up_to(string[:offset], "wtf-8") < offset


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["spec_rejects"]))
def test_vectors_spec_rejects(vector):
    wtf8 = hex_bytes(vector["wtf8_hex"])
    assert not utfkit.validate(wtf8, "wtf-8")
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.check(wtf8, "wtf-8")
    # the lead stands; the trail surrogate byte sequence after it is the error
    assert (raised.value.start, raised.value.end) == (3, 6)
    assert "surrogate pair byte sequence" in raised.value.reason


# ---- seed 003 -------------------------------------------------------------------------------


def test_seed_table_1_surrogate_byte_sequences_are_well_formed_alone():
    """Table 1: ED A0..AF 80..BF (lead), ED B0..BF 80..BF (trail)."""
    for second in range(0xA0, 0xC0):
        for third in (0x80, 0xBF):
            sequence = bytes([0xED, second, third])
            assert utfkit.validate(sequence, "wtf-8")
            assert not utfkit.validate(sequence, "utf-8")
            code_point = 0xD000 | (second & 0x3F) << 6 | (third & 0x3F)
            assert utfkit.decode(sequence, "wtf-8") == chr(code_point)
            assert utfkit.count(sequence, "wtf-8") == 1


def test_seed_generalized_utf8_keeps_every_other_rule_of_table_3():
    for ill_formed in (b"\xc0\x80", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5",
                       b"\x80", b"\xed\xa0", b"\xed\xa0\x7f"):
        assert not utfkit.validate(ill_formed, "wtf-8"), ill_formed


def test_seed_section_6_3_example_utf16_with_a_lone_lead_before_a_pair():
    units = [0x61, 0xE9, 0x20, 0xD83D, 0xD83D, 0xDCA9]
    wtf8 = utfkit.transcode(units_to_bytes(units), "utf-16-le", "wtf-8")
    assert wtf8 == b"a\xc3\xa9 \xed\xa0\xbd\xf0\x9f\x92\xa9"
    assert bytes_to_units(utfkit.transcode(wtf8, "wtf-8", "utf-16-le")) == units


def test_seed_section_6_4_lossy_conversion_is_the_same_length():
    wtf8 = b"\xed\xa0\xbdx\xed\xb2\xa9"
    lossy = utfkit.transcode(wtf8, "wtf-8", "utf-8", errors="replace")
    assert lossy == b"\xef\xbf\xbdx\xef\xbf\xbd" and len(lossy) == len(wtf8)
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(wtf8, "wtf-8", "utf-8")
    assert (raised.value.start, raised.value.end) == (0, 3)
    assert raised.value.reason == "lone surrogate byte sequence cannot be converted to utf-8"


def test_seed_section_6_4_utf8_to_wtf8_is_the_identity():
    data = "a\u00e9\u20ac\U0001f4a9".encode()
    assert utfkit.transcode(data, "utf-8", "wtf-8") is data
    with pytest.raises(UnicodeDecodeError):
        utfkit.transcode(b"\xed\xa0\x80", "utf-8", "wtf-8")  # not UTF-8 in the first place


def test_seed_section_6_5_concatenation_joins_across_empty_parts_and_many_parts():
    lead, trail = b"\xed\xa0\xbd", b"\xed\xb2\xa9"
    assert utfkit.wtf8_concat(lead, b"", trail) == b"\xf0\x9f\x92\xa9"
    assert utfkit.wtf8_concat(b"a" + lead, trail + lead, trail, b"b") == b"a\xf0\x9f\x92\xa9\xf0\x9f\x92\xa9b"
    assert utfkit.wtf8_concat() == b""
    assert utfkit.wtf8_concat(bytearray(lead), memoryview(trail)) == b"\xf0\x9f\x92\xa9"
    with pytest.raises(UnicodeDecodeError):
        utfkit.wtf8_concat(b"\xff")
    with pytest.raises(TypeError):
        utfkit.wtf8_concat("text")


def test_decode_keeps_lone_surrogates_and_encode_joins_a_pair_of_the_str():
    assert utfkit.decode(b"\xed\xa0\xbd", "wtf-8") == "\ud83d"
    assert utfkit.encode("\ud83d\udca9", "wtf-8") == b"\xf0\x9f\x92\xa9"
    # CPython's surrogatepass is not WTF-8: it writes the pair as 6 bytes
    assert "\ud83d\udca9".encode("utf-8", "surrogatepass") == b"\xed\xa0\xbd\xed\xb2\xa9"
    assert not utfkit.validate(b"\xed\xa0\xbd\xed\xb2\xa9", "wtf-8")


def test_ignoring_what_stands_between_a_lead_and_a_trail_joins_them_in_wtf8_output():
    """transcode = decode then encode: the str has lead, trail; WTF-8 joins."""
    data = b"\xed\xa0\xbd\xff\xed\xb2\xa9"
    assert utfkit.decode(data, "wtf-8", "ignore") == "\ud83d\udca9"
    assert utfkit.transcode(data, "wtf-8", "wtf-8", "ignore") == b"\xf0\x9f\x92\xa9"
    assert utfkit.transcode(data, "wtf-8", "wtf-8", "replace") == b"\xed\xa0\xbd\xef\xbf\xbd\xed\xb2\xa9"


# ---- properties ----------------------------------------------------------------------------


@given(units=code_units, order=st.sampled_from(["le", "be"]))
def test_any_16_bit_units_survive_utf16_to_wtf8_to_utf16(units, order):
    form = "utf-16-" + order
    source = units_to_bytes(units, order)
    wtf8 = utfkit.transcode(source, form, "wtf-8")
    assert utfkit.validate(wtf8, "wtf-8")
    assert wtf8 == oracle.encode(oracle.wtf16_code_points(units), "wtf-8")
    assert utfkit.transcoded_length(source, form, "wtf-8") == len(wtf8)
    assert utfkit.transcode(wtf8, "wtf-8", form) == source
    assert utfkit.transcode(wtf8, "wtf-8", "mutf-8") == utfkit.transcode(source, form, "mutf-8")


@given(left=code_units, right=code_units)
def test_concatenation_equals_encoding_the_joined_units(left, right):
    def wtf8(units):
        return utfkit.transcode(units_to_bytes(units), "utf-16-le", "wtf-8")

    assert utfkit.wtf8_concat(wtf8(left), wtf8(right)) == wtf8(left + right)


@given(units=code_units)
def test_lossy_conversion_equals_cpython_utf16_replace_decode_encoded_as_utf8(units):
    source = units_to_bytes(units)
    wtf8 = utfkit.transcode(source, "utf-16-le", "wtf-8")
    expected = source.decode("utf-16-le", "replace").encode("utf-8")
    assert utfkit.transcode(wtf8, "wtf-8", "utf-8", errors="replace") == expected
    assert len(expected) == len(wtf8)


@given(units=code_units)
def test_decode_is_cpython_utf16_surrogatepass_of_the_units(units):
    source = units_to_bytes(units)
    wtf8 = utfkit.transcode(source, "utf-16-le", "wtf-8")
    text = source.decode("utf-16-le", "surrogatepass")
    assert utfkit.decode(wtf8, "wtf-8") == text
    assert utfkit.encode(text, "wtf-8") == wtf8
    assert utfkit.count(wtf8, "wtf-8") == len(text)


@given(text=st.text(alphabet=st.characters(blacklist_categories=())))
def test_encode_is_seed_section_6_1_for_any_str(text):
    assert utfkit.encode(text, "wtf-8") == oracle.encode([ord(c) for c in text], "wtf-8")
