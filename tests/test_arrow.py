"""utfkit.arrow: validate, sanitize, count and transcode over pyarrow arrays
give value for value what bytes.decode gives (strict, errors="replace"),
for every binary and string type, sliced arrays, chunked arrays and nulls
(which stay null); sanitize shares the input's buffers when all is valid."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from utf8_strategies import utf8_mixtures

pa = pytest.importorskip("pyarrow", reason="utfkit.arrow needs pyarrow (pip install 'utfkit[arrow]')")
import utfkit  # noqa: E402
import utfkit.arrow  # noqa: E402

BINARY_TYPES = [pa.binary(), pa.large_binary()]
STRING_TYPES = [pa.string(), pa.large_string()]
VIEW_TYPES = [pa.binary_view(), pa.string_view()] if hasattr(pa, "binary_view") else []

values_strategy = st.lists(st.one_of(st.none(), utf8_mixtures), max_size=30)


def strict_ok(value):
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def replaced(value):
    return None if value is None else value.decode("utf-8", "replace")


def as_array(values, kind):
    """values in an array of `kind`; string types hold ill-formed values too,
    as an array built from buffers (a Parquet reader, another process) may."""
    binary = pa.array(values, pa.large_binary() if kind in (pa.large_string(), pa.large_binary()) else pa.binary())
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return pa.Array.from_buffers(kind, len(binary), binary.buffers(), binary.null_count)
    if VIEW_TYPES and kind == pa.string_view():
        return binary.cast(pa.binary_view()).view(kind)
    return binary.cast(kind) if kind != binary.type else binary


@given(values_strategy, st.sampled_from(BINARY_TYPES + STRING_TYPES + VIEW_TYPES), st.data())
def test_every_value_is_what_bytes_decode_says(values, kind, data):
    arr = as_array(values, kind)
    start = data.draw(st.integers(0, len(values)))
    stop = data.draw(st.integers(start, len(values)))
    arr, values = arr[start:stop], values[start:stop]  # sliced: offset != 0
    assert utfkit.arrow.validate(arr).to_pylist() == [None if v is None else strict_ok(v) for v in values]
    assert utfkit.arrow.count(arr).to_pylist() == [None if v is None else len(replaced(v)) for v in values]
    repaired = utfkit.arrow.sanitize(arr)
    assert repaired.to_pylist() == [replaced(v) for v in values]
    repaired.validate(full=True)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [(pa.binary(), pa.string()), (pa.large_binary(), pa.large_string()), (pa.string(), pa.string()),
     (pa.large_string(), pa.large_string())]
    + [(kind, pa.string_view()) for kind in VIEW_TYPES],
)
def test_sanitize_result_types(kind, expected):
    assert utfkit.arrow.sanitize(as_array([b"a", b"\xff"], kind)).type == expected
    assert utfkit.arrow.sanitize(as_array([b"a", b"b"], kind)).type == expected


@pytest.mark.parametrize("kind", BINARY_TYPES + STRING_TYPES)
def test_sanitize_reuses_the_buffers_when_every_value_is_valid(kind):
    arr = as_array([b"abc", None, "\u20ac".encode()] * 100, kind)[3:]
    repaired = utfkit.arrow.sanitize(arr)
    assert repaired.buffers()[2].address == arr.buffers()[2].address
    assert repaired.buffers()[1].address == arr.buffers()[1].address
    assert repaired.to_pylist() == [v.decode() if v is not None else None for v in arr.cast(pa.large_binary()).to_pylist()]


def test_chunked_arrays_keep_their_chunks():
    chunked = pa.chunked_array([pa.array([b"a", b"\xff"]), pa.array([], pa.binary()), pa.array([None, b"\xc3\xa9"])])
    assert utfkit.arrow.validate(chunked).to_pylist() == [True, False, None, True]
    assert utfkit.arrow.count(chunked).num_chunks == 3
    repaired = utfkit.arrow.sanitize(chunked)
    assert isinstance(repaired, pa.ChunkedArray) and repaired.type == pa.string()
    assert repaired.to_pylist() == ["a", "\ufffd", None, "\u00e9"]


def test_validate_returns_booleans_with_nulls_kept():
    result = utfkit.arrow.validate(pa.array([b"a", None, b"\xff"], pa.binary())[1:])
    assert result.type == pa.bool_() and result.to_pylist() == [None, False]


@given(st.lists(st.one_of(st.none(), st.text(max_size=20)), max_size=20),
       st.sampled_from(["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]),
       st.sampled_from(BINARY_TYPES))
def test_transcode_gives_utf8_strings(texts, encoding, kind):
    arr = pa.array([None if t is None else t.encode(encoding, "surrogatepass") for t in texts], kind)
    result = utfkit.arrow.transcode(arr, encoding, errors="replace")
    assert result.type == (pa.large_string() if kind == pa.large_binary() else pa.string())
    assert result.to_pylist() == [
        None if t is None else t.encode(encoding, "surrogatepass").decode(encoding, "replace") for t in texts
    ]


def test_transcode_strict_names_the_ill_formed_value():
    arr = pa.array(["ok".encode("utf-16-le"), b"\x00\xd8a\x00"], pa.binary())
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.arrow.transcode(arr, "utf-16-le")
    error = raised.value
    expected = pytest.raises(UnicodeDecodeError, b"\x00\xd8a\x00".decode, "utf-16-le").value
    assert (error.start, error.end, error.object) == (expected.start, expected.end, b"\x00\xd8a\x00")
    assert "item 1" in error.reason


def test_wrong_types():
    with pytest.raises(TypeError, match="binary or string"):
        utfkit.arrow.validate(pa.array([1, 2]))
    with pytest.raises(TypeError, match="pyarrow Array"):
        utfkit.arrow.validate([b"a"])
