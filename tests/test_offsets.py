"""validate_offsets, sanitize_offsets, count_offsets: a column in Apache
Arrow's layout (Arrow Columnar Format, "Variable-size Binary Layout") --
item i is data[offsets[i]:offsets[i + 1]] -- gives item for item what
bytes.decode gives (strict, and errors="replace"), whatever buffers hold it;
offsets that would read outside the data are refused with ValueError.
"""

from __future__ import annotations

import array
import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from utf8_strategies import utf8_mixtures

import utfkit

FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]


def column(items, typecode="i", skip=b"", tail=b""):
    """(data, offsets) laying `items` end to end after `skip` (a sliced array)."""
    offsets = array.array(typecode, [len(skip)])
    for item in items:
        offsets.append(offsets[-1] + len(item))
    return skip + b"".join(items) + tail, offsets


def strictly_valid(item, encoding="utf-8"):
    try:
        item.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def split(data, offsets):
    return [data[offsets[i] : offsets[i + 1]] for i in range(len(offsets) - 1)]


items_strategy = st.lists(utf8_mixtures, max_size=40)
# items that cut well-formed text anywhere, inside characters too
cut_text = st.tuples(st.text(min_size=1), st.lists(st.integers(0, 400), max_size=12)).map(
    lambda pair: [
        piece
        for encoded in [pair[0].encode()]
        for cuts in [sorted({0, len(encoded), *(c % (len(encoded) + 1) for c in pair[1])})]
        for piece in (encoded[a:b] for a, b in zip(cuts, cuts[1:]))
    ]
)


@given(st.one_of(items_strategy, cut_text), st.sampled_from("iq"), st.binary(max_size=3), st.binary(max_size=3))
def test_each_item_is_what_bytes_decode_says(items, typecode, skip, tail):
    data, offsets = column(items, typecode, skip, tail)
    assert list(utfkit.validate_offsets(data, offsets)) == [strictly_valid(item) for item in items]
    assert list(utfkit.count_offsets(data, offsets)) == [len(item.decode("utf-8", "replace")) for item in items]
    new_data, new_offsets = utfkit.sanitize_offsets(data, offsets)
    assert split(new_data, new_offsets) == [item.decode("utf-8", "replace").encode() for item in items]


@given(st.lists(st.text(max_size=20), max_size=20), st.sampled_from(FORMS), st.data())
def test_every_form_item_by_item(texts, encoding, data_strategy):
    items = [text.encode(encoding, "surrogatepass") for text in texts]
    # damage some: a byte cut off, a byte flipped
    items = [
        item[:-1] if item and data_strategy.draw(st.booleans()) else item
        for item in items
    ]
    data, offsets = column(items, data_strategy.draw(st.sampled_from("iq")))
    assert list(utfkit.validate_offsets(data, offsets, encoding)) == [
        strictly_valid(item, encoding) for item in items
    ]
    assert list(utfkit.count_offsets(data, offsets, encoding)) == [
        len(item.decode(encoding, "replace")) for item in items
    ]
    new_data, new_offsets = utfkit.sanitize_offsets(data, offsets, encoding)
    assert split(new_data, new_offsets) == [utfkit.sanitize(item, encoding) for item in items]


def test_validate_offsets_reads_as_numpy_booleans():
    data, offsets = column([b"ok", b"\xff", "\u00e9".encode(), b"\xc3"])
    flags = np.frombuffer(utfkit.validate_offsets(data, np.array(offsets, dtype=np.int64)), dtype=bool)
    assert flags.tolist() == [True, False, True, False]


def test_any_buffer_type_in_place():
    items = [b"abc", b"\xe2\x82", b"\xe2\x82\xac"]
    data, offsets = column(items)
    expected = [1, 0, 1]
    for data_as, offsets_as in itertools.product(
        (bytes, bytearray, memoryview, lambda d: np.frombuffer(d, dtype=np.uint8)),
        (lambda o: o, lambda o: np.array(o, dtype=np.int32), lambda o: np.array(o, dtype=np.int64),
         lambda o: memoryview(o.tobytes()).cast("i")),
    ):
        assert list(utfkit.validate_offsets(data_as(data), offsets_as(offsets))) == expected


def test_unaligned_offsets_are_read_correctly():
    raw = bytearray(1) + array.array("q", [0, 1, 3]).tobytes()
    offsets = np.frombuffer(raw, dtype=np.int64, offset=1)
    assert not offsets.flags.aligned
    assert list(utfkit.validate_offsets(b"a\xc3\xa9", offsets)) == [1, 1]


def test_sanitize_offsets_keeps_the_width_and_starts_at_zero():
    data, offsets = column([b"a\xff", b"b"], "q", skip=b"xx")
    new_data, new_offsets = utfkit.sanitize_offsets(data, offsets)
    assert (new_data, new_offsets.typecode, list(new_offsets)) == (b"a\xef\xbf\xbdb", "q", [0, 4, 5])
    data, offsets = column([b"a\xff", b"b"], "i")
    assert utfkit.sanitize_offsets(data, offsets)[1].typecode == "i"


def test_sanitize_offsets_returns_the_input_when_every_item_is_valid():
    data, offsets = column([b"abc", "\u20ac".encode()])
    new_data, new_offsets = utfkit.sanitize_offsets(data, offsets)
    assert new_data is data and new_offsets is offsets


def test_sanitize_offsets_output_larger_than_first_guess():
    # every byte ill-formed: 3 bytes out for each byte in, past the 1/8 slack
    items = [b"\xff" * n for n in range(50)]
    data, offsets = column(items, "q")
    new_data, new_offsets = utfkit.sanitize_offsets(data, offsets)
    assert split(new_data, new_offsets) == [b"\xef\xbf\xbd" * n for n in range(50)]


def test_empty_columns():
    for offsets in (array.array("i"), array.array("i", [0]), array.array("q", [3])):
        assert utfkit.validate_offsets(b"abc", offsets) == bytearray()
        assert list(utfkit.count_offsets(b"abc", offsets)) == []
        assert utfkit.sanitize_offsets(b"abc", offsets) == (b"abc", offsets)


@pytest.mark.parametrize("function", [utfkit.validate_offsets, utfkit.count_offsets, utfkit.sanitize_offsets])
@pytest.mark.parametrize("typecode", "iq")
@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([0, 2, 1], r"offsets decrease at index 2: offsets\[1\] is 2, offsets\[2\] is 1"),
        ([0, -1, 2], r"offsets\[1\] is -1, below 0"),
        ([-4, 0], r"offsets\[0\] is -4, below 0"),
        ([0, 2, 4], r"offsets\[2\] is 4, past the end of the data \(3 bytes\)"),
        ([0, 1, 3, 2**31 - 1], r"offsets\[3\] is 2147483647, past the end"),
    ],
)
def test_bad_offsets_raise_value_error_saying_which(function, typecode, values, message):
    with pytest.raises(ValueError, match=message):
        function(b"a\xffc", array.array(typecode, values))


@pytest.mark.parametrize(
    "offsets",
    [
        np.array([0, 1], dtype=np.int16),
        np.array([0, 1], dtype=np.uint8),
        np.array([0.0, 1.0]),
        b"\x00\x00\x00\x00\x01\x00\x00\x00",
        np.zeros((2, 2), dtype=np.int32),
        np.array([0, 1], dtype=">i4" if np.little_endian else "<i4"),
    ],
    ids=["int16", "uint8", "float64", "raw bytes", "2-d", "foreign byte order"],
)
def test_offsets_of_the_wrong_item_type_raise_value_error(offsets):
    with pytest.raises(ValueError, match="offsets"):
        utfkit.validate_offsets(b"ab", offsets)


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match="offsets"):
        utfkit.validate_offsets(b"ab", [0, 1, 2])
    with pytest.raises(TypeError, match="offsets"):
        utfkit.validate_offsets(b"ab", "01")
    with pytest.raises(TypeError, match="data"):
        utfkit.validate_offsets("ab", array.array("i", [0, 1]))
    with pytest.raises(LookupError):
        utfkit.validate_offsets(b"ab", array.array("i", [0, 1]), "klingon")


def test_a_failed_call_leaves_the_buffers_free():
    data = bytearray(b"abc")
    offsets = bytearray(array.array("i", [0, 5]).tobytes())
    with pytest.raises(ValueError):
        utfkit.validate_offsets(data, memoryview(offsets).cast("i"))
    data.extend(b"d")  # would raise BufferError if a view were still exported
