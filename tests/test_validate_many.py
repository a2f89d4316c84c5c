"""validate_many: one C call for a list of buffers, equal to validate() on each."""

from __future__ import annotations

import array
import mmap

import pytest
from hypothesis import given
from hypothesis import strategies as st

import utfkit
from utf8_strategies import utf8_inputs

SAMPLES = [
    b"",
    b"plain ASCII",
    "naïve café".encode(),
    "東京 😀".encode(),
    b"\xff",
    b"ab\xed\xa0\x80cd",  # an encoded surrogate
    b"\xf0\x9f\x98",  # cut short
    "x".encode() * 300,
    ("é" * 200).encode() + b"\xc3",
]


def test_validate_many_equals_validate_on_each_item():
    assert utfkit.validate_many(SAMPLES) == [utfkit.validate(item) for item in SAMPLES]
    assert utfkit.validate_many(SAMPLES) == [True, True, True, True, False, False, False, True, False]


def test_validate_many_of_nothing_is_an_empty_list():
    assert utfkit.validate_many([]) == []
    assert utfkit.validate_many(()) == []


def test_validate_many_returns_bools():
    result = utfkit.validate_many([b"a", b"\xff"])
    assert result == [True, False]
    assert all(type(flag) is bool for flag in result)
    assert all(type(flag) is bool for flag in utfkit.validate_many([b"a", b"b"]))


def test_validate_many_takes_mixed_buffer_types():
    with mmap.mmap(-1, 4) as mapped:
        mapped[:] = b"\xe2\x82\xac!"
        items = [
            b"abc",
            bytearray("é".encode()),
            memoryview(b"\xc3\xa9xyz")[1:],  # starts with a lone continuation byte
            array.array("B", b"\xf0\x9f\x98\x80"),
            array.array("H", [0x4141, 0x00C3]),  # 4 bytes: 41 41 C3 00 (little-endian) or 41 41 00 C3
            mapped,
            memoryview(b"\xff\xfe").cast("B"),
        ]
        expected = [utfkit.validate(bytes(memoryview(item).cast("B"))) for item in items]
        assert utfkit.validate_many(items) == expected
        assert expected[:4] == [True, True, False, True] and expected[-2:] == [True, False]


def test_validate_many_accepts_any_iterable():
    assert utfkit.validate_many(item for item in [b"a", b"\x80"]) == [True, False]
    assert utfkit.validate_many(iter((b"ok",))) == [True]


def test_validate_many_handles_other_encodings():
    items = [b"a\x00", b"\x00\xd8", b"\x00\xd8\x00\xdc", b"a"]
    assert utfkit.validate_many(items, "utf-16-le") == [True, False, True, False]
    assert utfkit.validate_many(items, encoding="UTF-16LE") == [True, False, True, False]
    assert utfkit.validate_many([b"\x00\x00\x11\x00", b"A\x00\x00\x00"], "utf-32-le") == [False, True]


@pytest.mark.parametrize(
    "bad, type_name",
    [("text", "str"), (3, "int"), (None, "NoneType"), ([b"a"], "list")],
)
def test_validate_many_names_the_type_of_a_bad_item(bad, type_name):
    with pytest.raises(TypeError, match=rf"item 1 must be a bytes-like object, not '{type_name}'"):
        utfkit.validate_many([b"ok", bad, b"ok"])


@pytest.mark.parametrize("bad, type_name", [(b"abc", "bytes"), ("abc", "str"), (5, "int")])
def test_validate_many_refuses_a_single_buffer_or_non_iterable(bad, type_name):
    with pytest.raises(TypeError, match=rf"not '{type_name}'"):
        utfkit.validate_many(bad)


def test_validate_many_refuses_non_contiguous_items():
    with pytest.raises(BufferError, match="item 0 is not a C-contiguous"):
        utfkit.validate_many([memoryview(b"abcd")[::2]])


def test_validate_many_refuses_unknown_encodings():
    with pytest.raises(LookupError):
        utfkit.validate_many([b"a"], "no-such-encoding")


@given(st.lists(utf8_inputs, max_size=40))
def test_validate_many_agrees_with_cpython(items):
    expected = []
    for item in items:
        try:
            item.decode("utf-8")
            expected.append(True)
        except UnicodeDecodeError:
            expected.append(False)
    assert utfkit.validate_many(items) == expected
    assert utfkit.validate_many([bytearray(item) for item in items]) == expected
