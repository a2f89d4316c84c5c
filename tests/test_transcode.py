"""Conversion between the encoding forms (Unicode 3.9 D93): transcode,
transcoded_length and encode, every pair of forms, both byte orders.

The spec's own examples (Table 3-4; D90, D91, D92) first, written down from
the spec; then CPython as the oracle -- ``transcode(b, from_, to, errors)``
must equal ``bytes(b).decode(from_, errors).encode(to)`` and a strict failure
must raise CPython's UnicodeDecodeError -- on structured random inputs, on
errors placed at every offset of long text, and into caller buffers (``out=``)
of every kind and of every size near the exact one.
"""

from __future__ import annotations

import array
import mmap
import sys

import pytest

pytest.register_assert_rewrite("transcode_oracle", "utf16_utf32_strategies")

from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import utfkit  # noqa: E402
from transcode_oracle import (  # noqa: E402
    FORM_PAIRS,
    FORMS,
    TRANSCODE_ERRORS,
    UNIT_SIZE,
    code_units,
    cpython_error,
    cpython_transcode_outcome,
    encode_outcome,
    transcode_disagreements,
    utfkit_error,
)
from utf16_utf32_strategies import inputs_in  # noqa: E402

PAIR_IDS = [f"{from_}-to-{to}" for from_, to in FORM_PAIRS]
SENTINEL = 0xAA
SENTINEL_LENGTH = 16

# ---- Table 3-4. Examples of Unicode Encoding Forms ------------------------------------
# Code unit sequences as the table prints them; the byte order of the
# 16- and 32-bit units is applied per form by code_units().
TABLE_3_4 = [
    (0x004D, {"UTF-32": [0x0000004D], "UTF-16": [0x004D], "UTF-8": [0x4D]}),
    (0x0430, {"UTF-32": [0x00000430], "UTF-16": [0x0430], "UTF-8": [0xD0, 0xB0]}),
    (0x4E8C, {"UTF-32": [0x00004E8C], "UTF-16": [0x4E8C], "UTF-8": [0xE4, 0xBA, 0x8C]}),
    (0x10302, {"UTF-32": [0x00010302], "UTF-16": [0xD800, 0xDF02], "UTF-8": [0xF0, 0x90, 0x8C, 0x82]}),
]
TABLE_3_4_IDS = [f"U+{code_point:04X}" for code_point, _ in TABLE_3_4]

# D90, D91, D92: the code point sequence <004D, 0430, 4E8C, 10302> in each form.
D90_TO_D92_CODE_POINTS = [0x004D, 0x0430, 0x4E8C, 0x10302]
D90_TO_D92_UNITS = {
    "UTF-32": [0x0000004D, 0x00000430, 0x00004E8C, 0x00010302],  # D90
    "UTF-16": [0x004D, 0x0430, 0x4E8C, 0xD800, 0xDF02],  # D91
    "UTF-8": [0x4D, 0xD0, 0xB0, 0xE4, 0xBA, 0x8C, 0xF0, 0x90, 0x8C, 0x82],  # D92
}


def table_form(encoding: str) -> str:
    """The Table 3-4 column for a byte-ordered form name."""
    return {"utf-8": "UTF-8", "utf-16-le": "UTF-16", "utf-16-be": "UTF-16"}.get(encoding, "UTF-32")


def in_form(units_by_form: dict, encoding: str) -> bytes:
    return code_units(units_by_form[table_form(encoding)], encoding)


def assert_converts_in_every_way(source: bytes, from_: str, to: str, expected: bytes) -> None:
    """transcode with each error mode, the exact length, and out= of exactly
    that length all give `expected` for well-formed input."""
    for errors in TRANSCODE_ERRORS:
        assert utfkit.transcode(source, from_, to, errors) == expected
        assert utfkit.transcoded_length(source, from_, to, errors) == len(expected)
    out = bytearray(len(expected))
    assert utfkit.transcode(source, from_, to, out=out) == len(expected)
    assert out == expected
    assert utfkit.transcode(bytearray(source), from_, to) == expected
    assert utfkit.transcode(memoryview(source), from_, to) == expected


@pytest.mark.parametrize("code_point, units_by_form", TABLE_3_4, ids=TABLE_3_4_IDS)
@pytest.mark.parametrize("from_, to", FORM_PAIRS, ids=PAIR_IDS)
def test_table_3_4_each_character_converts_between_every_pair_of_forms(code_point, units_by_form, from_, to):
    source, expected = in_form(units_by_form, from_), in_form(units_by_form, to)
    assert_converts_in_every_way(source, from_, to, expected)
    assert utfkit.count(source, from_) == 1
    assert utfkit.decode(source, from_) == chr(code_point)
    assert utfkit.encode(chr(code_point), to) == expected


@pytest.mark.parametrize("code_point, units_by_form", TABLE_3_4, ids=TABLE_3_4_IDS)
def test_table_3_4_transcription_matches_cpythons_encoders(code_point, units_by_form):
    """The table above is typed in by hand; CPython confirms every entry."""
    for encoding in FORMS:
        assert in_form(units_by_form, encoding) == chr(code_point).encode(encoding)


@pytest.mark.parametrize("from_, to", FORM_PAIRS, ids=PAIR_IDS)
def test_d90_d91_d92_code_point_sequence_converts_between_every_pair_of_forms(from_, to):
    source, expected = in_form(D90_TO_D92_UNITS, from_), in_form(D90_TO_D92_UNITS, to)
    assert_converts_in_every_way(source, from_, to, expected)
    assert utfkit.count(source, from_) == len(D90_TO_D92_CODE_POINTS)
    assert [ord(c) for c in utfkit.decode(source, from_)] == D90_TO_D92_CODE_POINTS
    assert utfkit.validate(source, from_) is True


@pytest.mark.parametrize("width", ["UTF-16", "UTF-32"])
def test_byte_order_swap_reverses_each_code_unit(width):
    """<004D 0430 4E8C D800 DF02> LE -> BE is each unit's bytes reversed."""
    little, big = (f"{width.lower()}-le", f"{width.lower()}-be")
    size = UNIT_SIZE[little]
    le_bytes = in_form(D90_TO_D92_UNITS, little)
    be_bytes = b"".join(le_bytes[i : i + size][::-1] for i in range(0, len(le_bytes), size))
    assert utfkit.transcode(le_bytes, little, big) == be_bytes
    assert utfkit.transcode(be_bytes, big, little) == le_bytes
    # Read in the wrong order, each UTF-16 unit is another BMP character
    # (4D00 3004 8C4E 00D8 02DF); each UTF-32 unit is past 10FFFF.
    if width == "UTF-16":
        assert utfkit.decode(le_bytes, big) == "\u4d00\u3004\u8c4e\u00d8\u02df"
    else:
        assert utfkit.validate(le_bytes, big) is False
        assert utfkit_error(le_bytes, big) == (0, 4, "code point not in range(0x110000)")


# ---- round trips -----------------------------------------------------------------------------
scalar_value_text = st.one_of(
    st.text(st.characters(exclude_categories=["Cs"]), max_size=60),
    st.text(st.characters(min_codepoint=0x10000), max_size=20),  # astral only: surrogate pairs in UTF-16
    st.text(st.characters(max_codepoint=0x7F), min_size=8, max_size=80),  # ASCII blocks
)


@given(text=scalar_value_text)
@example(text="")
@example(text="\x00\x7f\x80\u07ff\u0800\ud7ff\ue000\uffff\U00010000\U0010ffff")
def test_text_without_surrogates_survives_every_form_to_every_form_and_back(text):
    for from_, to in FORM_PAIRS:
        source = text.encode(from_)
        converted = utfkit.transcode(source, from_, to)
        assert converted == text.encode(to), (from_, to)
        assert utfkit.transcode(converted, to, from_) == source, (from_, to)
        assert utfkit.transcoded_length(source, from_, to) == len(converted)


@given(text=scalar_value_text, route=st.permutations(FORMS))
def test_text_survives_a_chain_through_all_five_forms(text, route):
    data, current = text.encode(route[0]), route[0]
    for following in route[1:] + [route[0]]:
        data, current = utfkit.transcode(data, current, following), following
    assert data == text.encode(route[0])


# ---- CPython as the oracle -----------------------------------------------------------------------
@pytest.mark.parametrize("from_", FORMS)
@given(data=st.data())
def test_transcode_equals_cpython_decode_then_encode(from_, data):
    """Every target form, strict / replace / ignore, and transcoded_length;
    a strict failure is CPython's UnicodeDecodeError whatever the target."""
    raw = data.draw(inputs_in(from_), label="input")
    failures = transcode_disagreements(raw, from_)
    assert not failures, "\n".join(failures)

    as_bytearray = bytearray(raw)  # read in place from any buffer
    assert utfkit.transcode(as_bytearray, from_, "utf-8", "replace") == raw.decode(from_, "replace").encode()

    # Replacing while converting is repairing in place, then converting;
    # replace and ignore both give well-formed output.
    sanitized = utfkit.sanitize(raw, from_)
    for to in FORMS:
        replaced = utfkit.transcode(raw, from_, to, "replace")
        assert replaced == utfkit.transcode(sanitized, from_, to, "strict")
        assert utfkit.validate(replaced, to) is True
        assert utfkit.validate(utfkit.transcode(raw, from_, to, "ignore"), to) is True


@pytest.mark.parametrize("encoding", FORMS)
def test_transcode_to_the_same_form_returns_well_formed_bytes_itself(encoding):
    well_formed = "M\u0430\u4e8c\U00010302".encode(encoding)
    for errors in TRANSCODE_ERRORS:
        assert utfkit.transcode(well_formed, encoding, encoding, errors) is well_formed
    copied = utfkit.transcode(bytearray(well_formed), encoding, encoding)
    assert type(copied) is bytes and copied == well_formed
    ill_formed = well_formed + ill_formed_pieces(encoding)[0] + well_formed
    assert utfkit.transcode(ill_formed, encoding, encoding, "replace") == utfkit.sanitize(ill_formed, encoding)
    assert utfkit.transcode(ill_formed, encoding, encoding, "ignore") == well_formed + well_formed


# ---- encode ---------------------------------------------------------------------------------------
ENCODE_ERROR_HANDLERS = (
    "strict",
    "surrogatepass",
    "replace",
    "ignore",
    "backslashreplace",
    "xmlcharrefreplace",
    "namereplace",
    "surrogateescape",
)

text_with_lone_surrogates = st.lists(
    st.one_of(
        st.characters(exclude_categories=["Cs"]),
        st.integers(0xD800, 0xDFFF).map(chr),  # lone surrogates, leads and trails
        st.sampled_from(["\ud83d\ude00", "\ude00\ud83d", "\udc80", "\udcff"]),  # adjacent halves, escapes
    ),
    max_size=16,
).map("".join)


def cpython_encode(text, encoding, errors):
    return text.encode(encoding, errors)


@given(text=text_with_lone_surrogates)
@example(text="a\ud800b")
@example(text="\udfff")
@example(text="\ud83d\ude00")
def test_encode_equals_cpython_for_lone_surrogates_with_every_handler(text):
    for encoding in FORMS:
        for errors in ENCODE_ERROR_HANDLERS:
            expected = encode_outcome(cpython_encode, text, encoding, errors)
            assert encode_outcome(utfkit.encode, text, encoding, errors) == expected, (encoding, errors)


@pytest.mark.parametrize("encoding", FORMS)
def test_encode_strict_raises_cpythons_unicode_encode_error(encoding):
    text = "ok \U00010302 then \udc00 and \ud800"
    with pytest.raises(UnicodeEncodeError) as raised:
        utfkit.encode(text, encoding)
    error = raised.value
    assert (error.encoding, error.object, error.start, error.end, error.reason) == (
        encoding,
        text,
        len("ok \U00010302 then "),
        len("ok \U00010302 then ") + 1,
        "surrogates not allowed",
    )


@pytest.mark.parametrize("encoding", FORMS)
def test_encode_surrogatepass_output_is_ill_formed_exactly_where_the_surrogate_was(encoding):
    encoded = utfkit.encode("ab\ud800cd", encoding, "surrogatepass")
    unit = UNIT_SIZE[encoding]
    assert utfkit.valid_up_to(encoded, encoding) == 2 * unit
    assert utfkit.decode(encoded, encoding, "replace").startswith("ab\ufffd")


@pytest.mark.parametrize(
    "arguments, exception",
    [
        ((b"text", "utf-8"), TypeError),
        (("text", "koi8-r"), LookupError),
        (("text", "cp1252"), LookupError),
        (("text", "no-such-encoding"), LookupError),
        (("text", "utf-8", 1), TypeError),
        (("text", 8), TypeError),
    ],
    ids=["bytes-text", "koi8-r", "cp1252", "unknown-encoding", "errors-int", "encoding-int"],
)
def test_encode_rejects_bad_arguments(arguments, exception):
    with pytest.raises(exception):
        utfkit.encode(*arguments)


# ---- bad arguments ------------------------------------------------------------------------------------
CONVERTERS = {
    "transcode": lambda data, from_, to, errors="strict": utfkit.transcode(data, from_, to, errors),
    "transcode-out": lambda data, from_, to, errors="strict": utfkit.transcode(
        data, from_, to, errors, out=bytearray(64)
    ),
    "transcoded_length": lambda data, from_, to, errors="strict": utfkit.transcoded_length(data, from_, to, errors),
}
WELL_FORMED_UTF8 = "M\u0430\u4e8c\U00010302".encode()


@pytest.mark.parametrize("converter", list(CONVERTERS))
@pytest.mark.parametrize(
    "not_a_buffer, type_name",
    [("text", "str"), (5, "int"), (None, "None"), ([0x61], "list")],
    ids=["str", "int", "None", "list"],
)
def test_non_buffer_data_raises_type_error_naming_the_type(converter, not_a_buffer, type_name):
    with pytest.raises(TypeError) as raised:
        CONVERTERS[converter](not_a_buffer, "utf-8", "utf-16-le")
    assert type_name in str(raised.value)


@pytest.mark.parametrize("converter", list(CONVERTERS))
@pytest.mark.parametrize("name", ["utf-9", "koi8-r", "cp1252", "no-such-encoding", ""])
@pytest.mark.parametrize("side", ["from_", "to"])
def test_unknown_or_unsupported_encoding_raises_lookup_error(converter, name, side):
    names = {"from_": "utf-8", "to": "utf-16-le", side: name}
    with pytest.raises(LookupError):
        CONVERTERS[converter](WELL_FORMED_UTF8, names["from_"], names["to"])


@pytest.mark.parametrize("converter", list(CONVERTERS))
@pytest.mark.parametrize("encoding", [8, None, b"utf-8"], ids=["int", "None", "bytes"])
def test_encoding_that_is_not_a_str_raises_type_error(converter, encoding):
    with pytest.raises(TypeError):
        CONVERTERS[converter](WELL_FORMED_UTF8, encoding, "utf-8")
    with pytest.raises(TypeError):
        CONVERTERS[converter](WELL_FORMED_UTF8, "utf-8", encoding)


@pytest.mark.parametrize("converter", list(CONVERTERS))
@pytest.mark.parametrize(
    "errors, exception",
    [
        ("surrogateescape", ValueError),
        ("surrogatepass", ValueError),
        ("backslashreplace", ValueError),
        ("xmlcharrefreplace", ValueError),
        ("nonexistent", LookupError),
        (1, TypeError),
        (None, TypeError),
        (b"strict", TypeError),
    ],
    ids=[
        "surrogateescape", "surrogatepass", "backslashreplace", "xmlcharrefreplace", "nonexistent",
        "int", "None", "bytes",
    ],  # fmt: skip
)
@pytest.mark.parametrize("data", [b"", WELL_FORMED_UTF8, b"a\xffb"], ids=["empty", "well-formed", "ill-formed"])
def test_errors_other_than_strict_replace_ignore_are_refused_up_front(converter, errors, exception, data):
    """Known handlers transcode does not take -> ValueError; unknown names ->
    LookupError; non-str -> TypeError -- whatever the input holds."""
    with pytest.raises(exception) as raised:
        CONVERTERS[converter](data, "utf-8", "utf-16-le", errors)
    assert str(raised.value)


def test_errors_mode_names_are_case_sensitive_like_cpythons():
    """CPython's handler registry is case-sensitive: "Strict" is not a handler."""
    with pytest.raises(LookupError):
        b"\xff".decode("utf-8", "Strict")
    with pytest.raises(LookupError):
        utfkit.transcode(b"a", "utf-8", "utf-16-le", "Strict")


# ---- out=: kinds of caller buffer ------------------------------------------------------------------------
SOURCE_TEXT = "out \u0430\u4e8c\U00010302 buffers"


def _numpy():
    return pytest.importorskip("numpy", reason="numpy is optional; its buffers are tested when installed")


class Region:
    """A writable buffer of `size` bytes with SENTINEL_LENGTH sentinel bytes
    after it, all filled with SENTINEL; `view` is what transcode gets."""

    def __init__(self, kind: str, size: int, request):
        total = size + SENTINEL_LENGTH
        if kind == "bytearray":
            self.storage = bytearray([SENTINEL]) * total
            self.view = memoryview(self.storage)[:size]
        elif kind == "array-B":
            self.storage = array.array("B", [SENTINEL] * total)
            self.view = memoryview(self.storage)[:size]
        elif kind == "numpy-uint8":
            numpy = _numpy()
            self.storage = numpy.full(total, SENTINEL, dtype=numpy.uint8)
            self.view = self.storage[:size]  # a NumPy view, not a memoryview
        elif kind == "mmap":
            self.storage = mmap.mmap(-1, total)
            self.storage.write(bytes([SENTINEL]) * total)
            self.view = memoryview(self.storage)[:size]
            request.addfinalizer(self.close)
        else:
            raise AssertionError(kind)
        self.size = size

    def close(self):
        if isinstance(self.view, memoryview):
            self.view.release()
        self.storage.close()

    def contents(self) -> bytes:
        return bytes(memoryview(self.storage).cast("B"))[: self.size]

    def sentinels(self) -> bytes:
        return bytes(memoryview(self.storage).cast("B"))[self.size :]


OUT_KINDS = ["bytearray", "array-B", "numpy-uint8", "mmap"]


def whole_out_buffer(kind: str, size: int, request):
    """An out buffer of exactly `size` bytes, passed as the object itself."""
    if kind == "bytearray":
        return bytearray(size)
    if kind == "memoryview-of-bytearray":
        return memoryview(bytearray(size))
    if kind == "array-B":
        return array.array("B", bytes(size))
    if kind == "numpy-uint8":
        return _numpy().zeros(size, dtype=_numpy().uint8)
    if kind == "mmap":
        mapped = mmap.mmap(-1, max(size, 1))
        request.addfinalizer(mapped.close)
        return mapped if size else memoryview(mapped)[:0]
    raise AssertionError(kind)


def holds_a_prefix_then_untouched_bytes(contents: bytes, expected: bytes) -> bool:
    """`contents` (an out= too small, pre-filled with SENTINEL) is a prefix
    of `expected` followed by SENTINEL bytes -- utfkit.h: "dst[0..cap) then
    holds a prefix of the output"."""
    written = len(contents.rstrip(bytes([SENTINEL])))
    return contents[:written] == expected[:written]


def assert_prefix_then_untouched(region: Region, expected: bytes) -> None:
    """After a too-small out=: nothing past its end changed (the sentinels),
    and inside it a prefix of the output followed by untouched bytes."""
    assert region.sentinels() == bytes([SENTINEL]) * SENTINEL_LENGTH, "written past the end of out"
    contents = region.contents()
    assert holds_a_prefix_then_untouched_bytes(contents, expected), (
        f"out holds {contents.hex(' ')}, which is not a prefix of {expected.hex(' ')} then untouched bytes"
    )


@pytest.mark.parametrize("kind", ["bytearray", "memoryview-of-bytearray", "array-B", "numpy-uint8", "mmap"])
@pytest.mark.parametrize("from_, to", FORM_PAIRS, ids=PAIR_IDS)
def test_out_of_exact_size_returns_the_byte_count(kind, from_, to, request):
    source = SOURCE_TEXT.encode(from_)
    expected = SOURCE_TEXT.encode(to)
    out = whole_out_buffer(kind, len(expected), request)
    written = utfkit.transcode(source, from_, to, out=out)
    assert type(written) is int and written == len(expected)
    assert bytes(memoryview(out).cast("B")) == expected


@pytest.mark.parametrize("kind", OUT_KINDS)
@pytest.mark.parametrize("from_, to", FORM_PAIRS, ids=PAIR_IDS)
def test_out_one_byte_short_raises_value_error_and_writes_nothing_past_its_end(kind, from_, to, request):
    source = SOURCE_TEXT.encode(from_)
    expected = SOURCE_TEXT.encode(to)
    region = Region(kind, len(expected) - 1, request)
    with pytest.raises(ValueError) as raised:
        utfkit.transcode(source, from_, to, out=region.view)
    message = str(raised.value)
    del raised  # its traceback would keep `out` exported (see test_buffers_are_released_when_a_call_raises)
    # The message says how much room is needed, so the caller can retry.
    assert str(len(expected)) in message
    assert_prefix_then_untouched(region, expected)


@pytest.mark.parametrize("kind", OUT_KINDS)
def test_larger_out_holds_the_output_at_its_start(kind, request):
    expected = SOURCE_TEXT.encode("utf-16-be")
    region = Region(kind, len(expected) + 7, request)
    assert utfkit.transcode(SOURCE_TEXT.encode(), "utf-8", "utf-16-be", out=region.view) == len(expected)
    assert region.contents()[: len(expected)] == expected
    assert region.sentinels() == bytes([SENTINEL]) * SENTINEL_LENGTH


def test_out_of_wider_items_counts_bytes():
    """UTF-16 straight into an array of 16-bit code units (native order)."""
    native = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"
    text = "M\u0430\u4e8c\U00010302"
    units = array.array("H", [0] * 5)
    assert utfkit.transcode(text.encode(), "utf-8", native, out=units) == 10
    assert list(units) == [0x004D, 0x0430, 0x4E8C, 0xD800, 0xDF02]
    with pytest.raises(ValueError):
        utfkit.transcode(text.encode(), "utf-8", native, out=array.array("H", [0] * 4))


def test_out_of_numpy_uint16_receives_utf16_code_units():
    numpy = _numpy()
    native = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"
    units = numpy.zeros(5, dtype=numpy.uint16)
    assert utfkit.transcode(in_form(D90_TO_D92_UNITS, "utf-32-be"), "utf-32-be", native, out=units) == 10
    assert units.tolist() == D90_TO_D92_UNITS["UTF-16"]


def _read_only_outs(request):
    outs = {"bytes": b"\x00" * 64, "memoryview-of-bytes": memoryview(b"\x00" * 64)}
    path = request.getfixturevalue("tmp_path") / "read-only.bin"
    path.write_bytes(b"\x00" * 64)
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    request.addfinalizer(mapped.close)
    outs["mmap-read-only"] = mapped
    try:
        import numpy
    except ImportError:
        return outs
    frozen = numpy.zeros(64, dtype=numpy.uint8)
    frozen.flags.writeable = False
    outs["numpy-read-only"] = frozen
    return outs


@pytest.mark.parametrize("kind", ["bytes", "memoryview-of-bytes", "mmap-read-only", "numpy-read-only"])
def test_read_only_out_is_refused_with_a_clear_message(kind, request):
    outs = _read_only_outs(request)
    if kind not in outs:
        pytest.skip("numpy is optional; its buffers are tested when installed")
    out = outs[kind]
    before = bytes(out)
    with pytest.raises((TypeError, BufferError)) as raised:
        utfkit.transcode(WELL_FORMED_UTF8, "utf-8", "utf-16-le", out=out)
    message = str(raised.value)
    del raised
    assert "out" in message and "writable" in message, message
    assert bytes(out) == before


@pytest.mark.parametrize(
    "out, type_name",
    [("text", "str"), (5, "int"), ([0] * 64, "list")],
    ids=["str", "int", "list"],
)
def test_out_that_is_not_a_buffer_raises_type_error_naming_the_type(out, type_name):
    with pytest.raises(TypeError) as raised:
        utfkit.transcode(WELL_FORMED_UTF8, "utf-8", "utf-16-le", out=out)
    assert type_name in str(raised.value)


def test_non_contiguous_out_is_refused():
    storage = bytearray(128)
    with pytest.raises(BufferError) as raised:
        utfkit.transcode(WELL_FORMED_UTF8, "utf-8", "utf-16-le", out=memoryview(storage)[::2])
    assert str(raised.value)
    assert storage == bytearray(128)


@pytest.mark.parametrize("room", ["too-small", "exact", "ample"])
@pytest.mark.parametrize("from_", FORMS)
def test_strict_error_raises_unicode_decode_error_whatever_room_out_has(from_, room):
    """The library's choice, documented: with errors="strict" ill-formed input
    raises CPython's UnicodeDecodeError even when `out` is also too small --
    the input's fault is reported before the buffer's."""
    well_formed = ("x" * 40).encode(from_)
    ill_formed = well_formed + ill_formed_pieces(from_)[1] + well_formed
    prefix_length = len(("x" * 40).encode("utf-16-le"))
    size = {"too-small": 3, "exact": prefix_length, "ample": 4096}[room]
    expected = cpython_transcode_outcome(ill_formed, from_, "utf-16-le", "strict")
    assert expected[0] == "UnicodeDecodeError"
    out = bytearray([SENTINEL]) * (size + SENTINEL_LENGTH)
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(ill_formed, from_, "utf-16-le", out=memoryview(out)[:size])
    error = raised.value
    got = ("UnicodeDecodeError", error.encoding, error.object, error.start, error.end, error.reason)
    del raised, error  # the traceback would keep `out` exported
    assert got == expected
    assert out[size:] == bytes([SENTINEL]) * SENTINEL_LENGTH


@pytest.mark.parametrize("from_, to", FORM_PAIRS, ids=PAIR_IDS)
def test_empty_input_converts_to_empty_output(from_, to):
    for errors in TRANSCODE_ERRORS:
        assert utfkit.transcode(b"", from_, to, errors) == b""
        assert utfkit.transcoded_length(b"", from_, to, errors) == 0
        assert utfkit.transcode(b"", from_, to, errors, out=bytearray()) == 0
        assert utfkit.transcode(bytearray(), from_, to, errors, out=memoryview(bytearray(4))[:0]) == 0


@pytest.mark.parametrize("call", ["transcode-out-too-small", "transcode-strict", "transcoded_length-strict", "check"])
def test_buffers_are_released_when_a_call_raises(call):
    """Inside the `except` block the caller may resize or close its buffers
    again; a view still exported makes that raise BufferError (and an
    exception caught in a reference cycle with an mmap's memoryview has
    crashed CPython's garbage collector)."""
    data = bytearray("ab".encode("utf-16-le") + b"\x00\xdc")
    out = bytearray(1)
    try:
        if call == "transcode-out-too-small":
            utfkit.transcode(b"abc", "utf-8", "utf-16-le", out=out)
        elif call == "transcode-strict":
            utfkit.transcode(data, "utf-16-le", "utf-8")
        elif call == "transcoded_length-strict":
            utfkit.transcoded_length(data, "utf-16-le", "utf-8")
        else:
            utfkit.check(data, "utf-16-le")
    except (ValueError, UnicodeDecodeError):
        data.extend(b"more")  # BufferError while a view of it is exported
        out.extend(b"more")
    else:
        raise AssertionError(f"{call} did not raise")


def test_buffers_are_released_after_each_call():
    """A buffer still exported would stop a bytearray resizing or an mmap closing."""
    source = bytearray(SOURCE_TEXT.encode("utf-16-le") + b"\x00\xdc")
    out = bytearray(256)
    mapped = mmap.mmap(-1, 256)
    utfkit.transcode(source, "utf-16-le", "utf-8", "replace", out=out)
    utfkit.transcode(source, "utf-16-le", "utf-8", "replace", out=mapped)
    utfkit.transcoded_length(source, "utf-16-le", "utf-8", "ignore")
    with pytest.raises(ValueError):
        utfkit.transcode(source, "utf-16-le", "utf-8", "replace", out=bytearray(1))
    with pytest.raises(UnicodeDecodeError):
        utfkit.transcode(source, "utf-16-le", "utf-8", out=out)
    source.extend(b"more")
    out.extend(b"more")
    mapped.close()


# ---- boundaries: errors at every offset, out= of every size near the exact one ----------------------------
# Text before the error: 1-unit characters take the ASCII block paths, the
# others the per-character ones; 0..130 characters cross every 8/16/32/64-byte
# block edge, and the output's end meets the sink's near-capacity staging.
FILLERS = {"ascii": "a", "2-byte": "\u00e9", "bmp": "\u4e8c", "astral": "\U00010302"}
ILL_FORMED_PIECES = {
    "utf-8": [b"\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"],
    "utf-16": [[0xD800], [0xDFFF], [0xDC00, 0xD800]],
    "utf-32": [[0xD800], [0x110000], [0xFFFFFFFF]],
}
FINAL_PARTIAL_UNIT = {"utf-8": b"\xf0\x9f", "utf-16": b"\x00", "utf-32": b"\x00\x00"}


def family(encoding: str) -> str:
    return encoding[:6]


def ill_formed_pieces(encoding: str) -> list[bytes]:
    pieces = ILL_FORMED_PIECES[family(encoding)]
    return pieces if encoding == "utf-8" else [code_units(piece, encoding) for piece in pieces]


def inputs_with_an_error_after(filler: str, count: int, encoding: str) -> list[bytes]:
    prefix = (filler * count).encode(encoding)
    tail = "z\u00e9\u4e8c\U00010302".encode(encoding) * 3 + FINAL_PARTIAL_UNIT[family(encoding)]
    return [prefix + piece + ending for piece in ill_formed_pieces(encoding) for ending in (b"", tail)]


# A 2-byte UTF-8 character is one code unit in UTF-16 and UTF-32, like the bmp one.
ERROR_OFFSET_CASES = [
    pytest.param(from_, filler, id=f"{from_}-{name}")
    for from_ in FORMS
    for name, filler in FILLERS.items()
    if name != "2-byte" or from_ == "utf-8"
]


@pytest.mark.parametrize("from_, filler", ERROR_OFFSET_CASES)
def test_error_after_each_prefix_length_converts_as_cpython_does(from_, filler):
    failures = []
    for count in range(131):
        prefix_bytes = len((filler * count).encode(from_))
        for data in inputs_with_an_error_after(filler, count, from_):
            error = cpython_error(data, from_)
            assert error is not None and error[0] == prefix_bytes  # the input is what it claims to be
            if utfkit_error(data, from_) != error or utfkit.valid_up_to(data, from_) != prefix_bytes:
                failures.append(f"check/valid_up_to({data.hex(' ')}, {from_}): expected {error}")
            # (transcoded_length is checked on these paths by the out= test below)
            failures.extend(transcode_disagreements(data, from_, lengths=False))
        if len(failures) >= 20:
            break
    assert not failures, "\n".join(failures[:20])


def mixed_text(count: int) -> str:
    """`count` characters cycling through 2-, 3- and 4-byte UTF-8 ones (one
    unit, one unit and a surrogate pair in UTF-16)."""
    return "".join("\u00e9\u4e8c\U00010302"[i % 3] for i in range(count))


OUT_PREFIXES = {"ascii": lambda count: "a" * count, "mixed": mixed_text}


@pytest.mark.parametrize("prefix", OUT_PREFIXES.values(), ids=OUT_PREFIXES.keys())
@pytest.mark.parametrize("from_, to", FORM_PAIRS, ids=PAIR_IDS)
def test_out_sized_exactly_or_up_to_40_bytes_short_at_every_length(from_, to, prefix):
    """For text of 0..130 characters, then a replaced subsequence and more
    text: out= of the exact size holds CPython's answer; 1..40 bytes short
    raises ValueError, keeps the sentinels after it, and holds a prefix."""
    pieces = ill_formed_pieces(from_)
    failures = []
    for count in range(131):
        source = prefix(count).encode(from_) + pieces[count % len(pieces)] + "b\u4e8c".encode(from_)
        expected = bytes(source).decode(from_, "replace").encode(to)
        if utfkit.transcoded_length(source, from_, to, "replace") != len(expected):
            failures.append(f"transcoded_length({source.hex(' ')}) != {len(expected)}")
        exact = bytearray(len(expected))
        if utfkit.transcode(source, from_, to, "replace", out=exact) != len(expected) or exact != expected:
            failures.append(f"exact out for {source.hex(' ')}: got {bytes(exact).hex(' ')}")
        for short in range(1, min(40, len(expected)) + 1):
            size = len(expected) - short
            storage = bytearray([SENTINEL]) * (size + SENTINEL_LENGTH)
            try:
                utfkit.transcode(source, from_, to, "replace", out=memoryview(storage)[:size])
            except ValueError:
                pass
            else:
                failures.append(f"no ValueError with out {short} bytes short for {source.hex(' ')}")
            if storage[size:] != bytes([SENTINEL]) * SENTINEL_LENGTH:
                failures.append(f"written past the end of out ({short} bytes short) for {source.hex(' ')}")
            if not holds_a_prefix_then_untouched_bytes(bytes(storage[:size]), expected):
                failures.append(f"out ({short} bytes short) is not a prefix of the output for {source.hex(' ')}")
        if len(failures) >= 20:
            break
    assert not failures, "\n".join(failures[:20])
