"""UTF-E-8 (seed 002): the seed's examples, Perl's extended-UTF-8 vectors,
and properties against a reference written here from the seed's layout:
round trips of any 63-bit value, shortest form only, exact error cuts."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st
from utfe8_reference import code_points, reference_decode, reference_encode, utfe8_bytes
from vector_files import vector_params

import utfkit

VECTORS = "perl_extended_utf8_vectors.json"
MAX = 0x7FFFFFFFFFFFFFFF


# ---- seed 002, section 4 ----------------------------------------------------------------------

SEED_EXAMPLES = [
    (0x41, "41"),
    (0x10FFFF, "F4 8F BF BF"),
    (0x110000, "F4 90 80 80"),
    (0x7FFFFFFF, "FD BF BF BF BF BF"),
    (0x80000000, "FE 82 80 80 80 80 80"),
    (0xFFFFFFFFF, "FE BF BF BF BF BF BF"),
    (0x1000000000, "FF 80 80 80 80 80 81 80 80 80 80 80 80"),
    (0x7FFFFFFFFFFFFFFF, "FF 80 87 BF BF BF BF BF BF BF BF BF BF"),
]


@pytest.mark.parametrize("code_point, hex_bytes", SEED_EXAMPLES)
def test_seed_002_examples(code_point, hex_bytes):
    data = bytes.fromhex(hex_bytes)
    assert utfkit.utfe8_encode([code_point]) == data
    assert utfkit.utfe8_decode(data) == array("Q", [code_point])
    assert reference_encode(code_point) == data


# ---- Perl's vectors --------------------------------------------------------------------------------


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["valid_extended"]))
def test_perl_valid_extended(vector):
    code_point = int(vector["cp"], 16)
    data = bytes.fromhex(vector["bytes_hex"])
    assert utfkit.utfe8_encode([code_point]) == data
    assert utfkit.utfe8_decode(data).tolist() == [code_point]


@pytest.mark.parametrize("vector", vector_params(VECTORS, lambda d: d["from_warn_base"]))
def test_perl_malformations(vector):
    data = bytes.fromhex(vector["bytes_hex"])
    note = vector["note"]
    if note == "valid" or note.startswith("32-bit-only"):  # this is a 64-bit UTF-E-8
        decoded = utfkit.utfe8_decode(data).tolist()
        assert len(decoded) == 1 and utfkit.utfe8_encode(decoded) == data
        return
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.utfe8_decode(data)
    assert raised.value.start == 0 and raised.value.encoding == "utf-e-8"
    if "overflow" in note:
        assert raised.value.reason == "code point above U+7FFFFFFFFFFFFFFF"


# ---- properties ------------------------------------------------------------------------------------


@given(values=st.lists(code_points, max_size=20))
def test_encode_then_decode_round_trips_any_63_bit_value(values):
    data = utfkit.utfe8_encode(values)
    assert data == b"".join(map(reference_encode, values))
    assert utfkit.utfe8_decode(data).tolist() == values
    assert utfkit.utfe8_encode(array("Q", values)) == data  # a uint64 buffer, read in place


def payload_bits(continuation: int) -> int:
    """Bits a form holds: 6 - c in a 2-6 byte lead plus 6 per continuation
    byte; FE and FF carry none in the lead."""
    return 5 * continuation + 6 if continuation <= 5 else 6 * continuation


@given(value=code_points, prefix=st.binary(max_size=3).map(lambda b: bytes(x & 0x7F for x in b)))
def test_every_overlong_form_is_ill_formed(value, prefix):
    shortest = len(reference_encode(value)) - 1
    for continuation in (1, 2, 3, 4, 5, 6, 12):
        if continuation <= shortest or value >= 2 ** payload_bits(continuation):
            continue
        overlong = reference_encode(value, continuation)
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.utfe8_decode(prefix + overlong)
        assert raised.value.start == len(prefix)
        assert raised.value.reason in ("invalid continuation byte", "invalid start byte")
        assert utfkit.utfe8_decode(prefix + overlong, errors="replace")[len(prefix)] == 0xFFFD


def test_error_cuts_are_maximal_subparts():
    cases = [
        (b"\x80", 0, 1, "invalid start byte"),
        (b"\xc1\xbf", 0, 1, "invalid start byte"),
        (b"\xe0\x9f\xbf", 0, 1, "invalid continuation byte"),
        (b"\xf8\x87\xbf\xbf\xbf", 0, 1, "invalid continuation byte"),
        (b"\xfe\x81\xbf", 0, 1, "invalid continuation byte"),
        (b"\xff\x81", 0, 1, "code point above U+7FFFFFFFFFFFFFFF"),
        (b"\xff\x80\x88", 0, 2, "code point above U+7FFFFFFFFFFFFFFF"),
        (b"\xff\x80\x80\x80\x80\x80\x80", 0, 6, "invalid continuation byte"),  # below 2^36
        (b"A\xfe\x82\x80\x80", 1, 5, "unexpected end of data"),
        (b"\xfd\xbf\xbfA", 0, 3, "invalid continuation byte"),
    ]
    for data, start, end, reason in cases:
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.utfe8_decode(data)
        assert (raised.value.start, raised.value.end, raised.value.reason) == (start, end, reason), data


def test_errors_replace_and_ignore():
    data = b"A\xff\x80\x88B\xed\xa0\x80\xf4\x90\x80\x80"
    assert utfkit.utfe8_decode(data, errors="replace").tolist() == [0x41, 0xFFFD, 0xFFFD, 0x42, 0xD800, 0x110000]
    assert utfkit.utfe8_decode(data, errors="ignore").tolist() == [0x41, 0x42, 0xD800, 0x110000]
    with pytest.raises(ValueError):
        utfkit.utfe8_decode(data, errors="backslashreplace")


def test_bad_input_raises_the_standard_errors():
    with pytest.raises(ValueError, match="0x8000000000000000"):
        utfkit.utfe8_encode([1, 2**63])
    with pytest.raises(OverflowError):
        utfkit.utfe8_encode([-1])
    with pytest.raises(OverflowError):
        utfkit.utfe8_encode([2**64])
    with pytest.raises(TypeError):
        utfkit.utfe8_encode("text")
    with pytest.raises(TypeError):
        utfkit.utfe8_encode(5)
    with pytest.raises(TypeError):
        utfkit.utfe8_encode([1.5])
    with pytest.raises(TypeError):
        utfkit.utfe8_decode("text")
    assert utfkit.utfe8_encode(b"AB") == b"AB"  # a bytes object is an iterable of ints
    assert utfkit.utfe8_encode(x for x in (0x41, 0x110000)) == b"A\xf4\x90\x80\x80"
    assert utfkit.utfe8_encode([]) == b"" and utfkit.utfe8_decode(b"").tolist() == []


# ---- any bytes, against a reference that knows only the value ranges ---------------------------------


@given(data=utfe8_bytes)
def test_decode_cuts_any_bytes_into_the_references_maximal_subparts(data):
    expected = reference_decode(data)
    replaced = [item[0] if isinstance(item[0], int) else 0xFFFD for item in expected]
    assert utfkit.utfe8_decode(data, errors="replace").tolist() == replaced
    assert utfkit.utfe8_decode(data, errors="ignore").tolist() == [
        item[0] for item in expected if isinstance(item[0], int)]
    errors = [item for item in expected if not isinstance(item[0], int)]
    if not errors:
        assert utfkit.utfe8_encode(utfkit.utfe8_decode(data)) == data
        return
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.utfe8_decode(data)
    assert (raised.value.reason, raised.value.start, raised.value.end) == errors[0]
