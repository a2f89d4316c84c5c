"""UTF-16 and UTF-32 (Unicode 3.9 D90, D91, Table 3-5) read by every query.

validate / check / valid_up_to / sanitize / count / decode for the four
byte-ordered forms, judged against the external UTF-16 vectors in
../shared/vectors and against CPython's decoders on structured random and
exhaustive small inputs.
"""

from __future__ import annotations

import array
import codecs
import itertools
import sys

import pytest

pytest.register_assert_rewrite("transcode_oracle", "utf16_utf32_strategies")

from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import utfkit  # noqa: E402
from transcode_oracle import (  # noqa: E402
    DECODE_ERROR_HANDLERS,
    FORMS,
    assert_agrees_with_cpython,
    assert_no_disagreements,
    code_units,
    cpython_error,
    cpython_transcode_outcome,
    decode_outcome,
    utfkit_error,
    utfkit_transcode_outcome,
)
from utf16_utf32_strategies import inputs_in, well_formed_in  # noqa: E402
from vector_files import vector_params  # noqa: E402

FFFD = "\ufffd"
UTF16_FORMS = ("utf-16-le", "utf-16-be")
UTF32_FORMS = ("utf-32-le", "utf-32-be")
WIDE_FORMS = UTF16_FORMS + UTF32_FORMS

# CPython's reason strings, which check() must repeat.
TRUNCATED_DATA = "truncated data"
UNEXPECTED_END = "unexpected end of data"
ILLEGAL_SURROGATE = "illegal UTF-16 surrogate"
ILLEGAL_ENCODING = "illegal encoding"
UTF32_SURROGATE = "code point in surrogate code point range(0xd800, 0xe000)"
UTF32_TOO_LARGE = "code point not in range(0x110000)"


def short_hex(hex_bytes: str, limit: int = 36) -> str:
    compact = hex_bytes.replace(" ", "") or "empty"
    return compact if len(compact) <= limit else compact[:limit] + "..."


def utf16_vectors(document) -> list:
    """The UTF-16 vectors of a file (test_vectors.py runs the UTF-8 ones)."""
    return [vector for vector in document if vector["codec"] in UTF16_FORMS]


def assert_vector_expectations(data: bytes, codec: str, expected_replace: str, strict_raises: bool) -> None:
    """What the vector's authors wrote down, then everything CPython says."""
    assert utfkit.decode(data, codec, "replace") == expected_replace
    assert utfkit.transcode(data, codec, "utf-8", "replace") == expected_replace.encode("utf-8")
    assert utfkit.sanitize(data, codec) == expected_replace.encode(codec)
    assert utfkit.count(data, codec) == len(expected_replace)
    assert utfkit.validate(data, codec) is not strict_raises
    strict = utfkit_transcode_outcome(data, codec, "utf-8", "strict")
    assert (strict[0] == "UnicodeDecodeError") is strict_raises
    assert strict == cpython_transcode_outcome(data, codec, "utf-8", "strict")
    assert utfkit_error(data, codec) == cpython_error(data, codec)
    assert_agrees_with_cpython(data, codec)


# ---- CPython's test_codecs UTF-16 tables -------------------------------------------------
@pytest.mark.parametrize(
    "vector",
    vector_params(
        "cpython_vectors.json",
        select=utf16_vectors,
        case_id=lambda i, v: f"cpython-{i}-{v['codec']}-{short_hex(v['input_hex'])}",
    ),
)
def test_cpython_utf16_codec_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    assert_vector_expectations(data, vector["codec"], vector["expected_replace"], vector["strict_raises"])


# ---- encoding_rs UTF-16 decoder tests ----------------------------------------------------
def sniffs_bom(vector) -> bool:
    note = vector.get("note", "")
    return "BOM" in note and "sniff" in note.lower()


def encoding_rs_skip_reason(vector) -> str | None:
    if sniffs_bom(vector):
        # WHATWG's UTF-16LE/BE decoders switch byte order on a BOM; CPython's
        # utf-16-le/-be codecs (and utfkit) read it as an ordinary code unit.
        return f"assumes WHATWG BOM sniffing, which CPython's {vector['codec']} codec does not do: {vector['note']}"
    return None


@pytest.mark.parametrize(
    "vector",
    vector_params(
        "encoding_rs_vectors.json",
        select=utf16_vectors,
        case_id=lambda i, v: f"encoding_rs-{i}-{v['codec']}-{short_hex(v['input_hex'])}",
        skip_reason=encoding_rs_skip_reason,
    ),
)
def test_encoding_rs_utf16_decoder_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    # encoding_rs has no strict mode; a U+FFFD in the answer that the input
    # does not spell out itself means something was replaced.
    replaced = FFFD in vector["expected_replace"] and "\ufffd".encode(vector["codec"]) not in data
    assert_vector_expectations(data, vector["codec"], vector["expected_replace"], replaced)


@pytest.mark.parametrize(
    "vector",
    vector_params(
        "encoding_rs_vectors.json",
        select=lambda document: [v for v in document if v["codec"] in UTF16_FORMS and sniffs_bom(v)],
        case_id=lambda i, v: f"encoding_rs-bom-{v['codec']}-{short_hex(v['input_hex'])}",
    ),
)
def test_byte_order_mark_is_an_ordinary_code_unit_not_sniffed(vector):
    """utf-16-le/-be name the byte order: a leading FEFF / FFFE is a character
    (U+FEFF or U+FFFE), not a switch to the other order, as in CPython."""
    data = bytes.fromhex(vector["input_hex"])
    codec = vector["codec"]
    decoded = utfkit.decode(data, codec, "replace")
    assert decoded == data.decode(codec, "replace")
    assert decoded[0] in "\ufeff\ufffe"
    assert decoded != vector["expected_replace"]  # the WHATWG answer needs sniffing
    assert utfkit.transcode(data, codec, "utf-8", "replace") == decoded.encode("utf-8")
    assert_agrees_with_cpython(data, codec)


# ---- web-platform-tests: TextDecoder fatal and the UTF-16 surrogates tests -----------------
def wpt_utf16_single(document) -> list:
    """The UTF-16 single-shot cases, plus each one's big-endian twin (every
    code unit byte-swapped: the same code units in the other byte order)."""
    vectors = []
    for vector in document["single"]:
        if vector["codec"] not in UTF16_FORMS:
            continue
        vectors.append(vector)
        data = bytes.fromhex(vector["input_hex"])
        twin_codec = "utf-16-be" if vector["codec"] == "utf-16-le" else "utf-16-le"
        swapped = b"".join(data[i : i + 2][::-1] for i in range(0, len(data), 2))
        vectors.append(dict(vector, codec=twin_codec, input_hex=swapped.hex(" "), byte_swapped=True))
    return vectors


@pytest.mark.parametrize(
    "vector",
    vector_params(
        "wpt_vectors.json",
        select=wpt_utf16_single,
        case_id=lambda i, v: (
            f"wpt-{i}-{v['codec']}{'-swapped' if v.get('byte_swapped') else ''}-{short_hex(v['input_hex'])}"
        ),
    ),
)
def test_wpt_utf16_textdecoder_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    assert_vector_expectations(data, vector["codec"], vector["expected_replace"], vector["fatal_throws"])


# ---- CPython's reasons, spelled out -----------------------------------------------------------
# (code units, trailing bytes, expected (start, end, reason)) in the units of the form.
UTF16_ERROR_TABLE = [
    ([], b"\x41", (0, 1, TRUNCATED_DATA)),
    ([0x0041], b"\x41", (2, 3, TRUNCATED_DATA)),
    ([0xD800], b"", (0, 2, UNEXPECTED_END)),
    ([0xDBFF], b"\x00", (0, 3, UNEXPECTED_END)),
    ([0x0041, 0xD83D], b"", (2, 4, UNEXPECTED_END)),
    ([0xD800, 0x0041], b"", (0, 2, ILLEGAL_SURROGATE)),
    ([0xD800, 0xD800, 0xDC00], b"", (0, 2, ILLEGAL_SURROGATE)),
    ([0xDC00], b"", (0, 2, ILLEGAL_ENCODING)),
    ([0xDFFF, 0xD800], b"", (0, 2, ILLEGAL_ENCODING)),
    ([0x0041, 0x0042, 0xDC00, 0x0043], b"", (4, 6, ILLEGAL_ENCODING)),
]
UTF32_ERROR_TABLE = [
    ([], b"\x41", (0, 1, TRUNCATED_DATA)),
    ([0x41], b"\x00\x00\x00", (4, 7, TRUNCATED_DATA)),
    ([0xD800], b"", (0, 4, UTF32_SURROGATE)),
    ([0x41, 0xDFFF, 0x42], b"", (4, 8, UTF32_SURROGATE)),
    ([0x110000], b"", (0, 4, UTF32_TOO_LARGE)),
    ([0x10FFFF, 0xFFFFFFFF], b"", (4, 8, UTF32_TOO_LARGE)),
    ([0x80000000], b"\x00", (0, 4, UTF32_TOO_LARGE)),
]


@pytest.mark.parametrize("encoding", WIDE_FORMS)
def test_check_gives_cpythons_start_end_and_reason_for_each_kind_of_error(encoding):
    table = UTF16_ERROR_TABLE if encoding in UTF16_FORMS else UTF32_ERROR_TABLE
    for units, tail, expected in table:
        data = code_units(units, encoding) + tail
        assert cpython_error(data, encoding) == expected, f"the table is wrong for {data.hex(' ')}"
        assert utfkit_error(data, encoding) == expected, data.hex(" ")
        assert utfkit.valid_up_to(data, encoding) == expected[0]
        assert utfkit.validate(data, encoding) is False
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.transcode(data, encoding, "utf-8")
        assert (raised.value.encoding, raised.value.start, raised.value.end, raised.value.reason) == (
            encoding,
            *expected,
        )


@pytest.mark.parametrize("encoding", UTF16_FORMS)
def test_d91_isolated_surrogate_code_units_are_ill_formed(encoding):
    for unit in (0xD800, 0xDA00, 0xDBFF, 0xDC00, 0xDE00, 0xDFFF):
        data = code_units([0x61, unit, 0x62], encoding)
        assert utfkit.validate(data, encoding) is False
        assert utfkit.valid_up_to(data, encoding) == 2
        assert utfkit.decode(data, encoding, "replace") == "a\ufffdb"
        assert utfkit.count(data, encoding) == 3


@pytest.mark.parametrize("encoding", UTF32_FORMS)
def test_d90_surrogates_and_units_past_10ffff_are_ill_formed(encoding):
    for unit in (0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x110000, 0x1FFFFF, 0x7FFFFFFF, 0xFFFFFFFF):
        data = code_units([0x61, unit, 0x62], encoding)
        assert utfkit.validate(data, encoding) is False
        assert utfkit.valid_up_to(data, encoding) == 4
        assert utfkit.decode(data, encoding, "replace") == "a\ufffdb"
        assert utfkit.count(data, encoding) == 3
        assert utfkit.sanitize(data, encoding) == code_units([0x61, 0xFFFD, 0x62], encoding)
    for unit in (0x0000, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF):
        data = code_units([unit], encoding)
        assert utfkit.validate(data, encoding) is True
        assert utfkit.decode(data, encoding) == chr(unit)


# ---- CPython as the oracle: properties ---------------------------------------------------------
@pytest.mark.parametrize("encoding", WIDE_FORMS)
@given(data=st.data())
def test_every_query_agrees_with_cpython(encoding, data):
    """check/validate/valid_up_to/sanitize/count/decode and every conversion
    out of `encoding`, plus the invariants that tie them together."""
    raw = data.draw(inputs_in(encoding), label="input")
    assert_agrees_with_cpython(raw, encoding)
    for errors in DECODE_ERROR_HANDLERS:
        expected = decode_outcome(lambda d, e, h: bytes(d).decode(e, h), raw, encoding, errors)
        assert decode_outcome(utfkit.decode, bytearray(raw), encoding, errors) == expected

    # sanitize's output is well-formed (CPython agrees) and a fixed point.
    sanitized = utfkit.sanitize(raw, encoding)
    assert utfkit.validate(sanitized, encoding) is True
    sanitized.decode(encoding)
    assert utfkit.sanitize(sanitized, encoding) is sanitized

    # The well-formed prefix decodes to the start of the replace decoding.
    prefix = utfkit.valid_up_to(raw, encoding)
    assert utfkit.validate(raw[:prefix], encoding) is True
    assert raw.decode(encoding, "replace").startswith(raw[:prefix].decode(encoding))


@pytest.mark.parametrize("encoding", WIDE_FORMS)
@given(data=st.data())
def test_sanitize_and_transcode_return_well_formed_bytes_unchanged_and_uncopied(encoding, data):
    well_formed = data.draw(well_formed_in(encoding), label="input")
    assert utfkit.sanitize(well_formed, encoding) is well_formed
    assert utfkit.transcode(well_formed, encoding, encoding) is well_formed
    assert utfkit.valid_up_to(well_formed, encoding) == len(well_formed)
    assert utfkit.check(well_formed, encoding) is None
    as_bytearray = bytearray(well_formed)
    for result in (utfkit.sanitize(as_bytearray, encoding), utfkit.transcode(as_bytearray, encoding, encoding)):
        assert type(result) is bytes and result == well_formed


# ---- exhaustive over small inputs ---------------------------------------------------------------
UTF16_EDGE_UNITS = [0x0000, 0x0041, 0x00E9, 0x7F7F, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF]
UTF32_EDGE_UNITS = [
    0x00000000, 0x00000041, 0x0000D7FF, 0x0000D800, 0x0000DFFF, 0x0000E000,
    0x0000FFFF, 0x00010000, 0x0010FFFF, 0x00110000, 0x00D80000, 0x7FFFFFFF,
    0x80000000, 0xFFFFFFFF,
]  # fmt: skip


@pytest.mark.parametrize("encoding", UTF16_FORMS)
def test_every_utf16_sequence_of_up_to_three_edge_units_agrees_with_cpython(encoding):
    inputs = []
    for length in range(4):
        for units in itertools.product(UTF16_EDGE_UNITS, repeat=length):
            data = code_units(units, encoding)
            inputs.append(data)
            if length < 3:  # and with a final odd byte
                inputs.extend([data + b"\x00", data + b"\xdc"])
    assert_no_disagreements(inputs, encoding)


@pytest.mark.parametrize("encoding", UTF32_FORMS)
def test_every_utf32_sequence_of_up_to_two_edge_units_agrees_with_cpython(encoding):
    inputs = []
    for length in range(3):
        for units in itertools.product(UTF32_EDGE_UNITS, repeat=length):
            data = code_units(units, encoding)
            inputs.extend([data] + [data + b"\x00\xd8\x00"[:cut] for cut in (1, 2, 3)])
    assert_no_disagreements(inputs, encoding)


@pytest.mark.parametrize("encoding", WIDE_FORMS)
def test_every_cut_of_a_well_formed_string_agrees_with_cpython(encoding):
    """Cutting anywhere -- inside a unit, between the halves of a pair -- is
    the odd-length and truncated-pair case at every position."""
    whole = "M\u0430\u4e8c\U00010302a\U0010ffff\ufffd".encode(encoding)
    assert_no_disagreements([whole[:cut] for cut in range(len(whole) + 1)], encoding)
    assert_no_disagreements([whole[cut:] for cut in range(len(whole) + 1)], encoding)


# ---- names and buffers ----------------------------------------------------------------------------
ALIASES = {
    "utf-16-le": ["UTF-16LE", "utf_16_le", "utf-16le", "UTF 16 LE", "utf_16le"],
    "utf-16-be": ["UTF-16BE", "utf_16_be", "utf-16be", "Utf_16_Be"],
    "utf-32-le": ["UTF-32LE", "utf_32_le", "utf-32le", "UTF_32LE"],
    "utf-32-be": ["UTF-32BE", "utf_32_be", "utf-32be", "utf 32 be"],
}


@pytest.mark.parametrize("canonical", WIDE_FORMS)
def test_cpython_aliases_of_each_form_are_accepted(canonical):
    data = "a\U00010302b".encode(canonical)[:-1]  # ends on a partial unit
    expected = cpython_error(data, canonical)
    for alias in ALIASES[canonical]:
        assert codecs.lookup(alias).name == canonical  # CPython agrees it is an alias
        assert utfkit.validate(data, alias) is False
        assert utfkit.valid_up_to(data, alias) == expected[0]
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(data, alias)
        assert raised.value.encoding == canonical
        assert (raised.value.start, raised.value.end, raised.value.reason) == expected
        assert utfkit.count(data, alias) == len(data.decode(canonical, "replace"))
        assert utfkit.sanitize(data, alias) == data.decode(canonical, "replace").encode(canonical)
        assert utfkit.transcode(data, alias, "utf-8", "replace") == data.decode(canonical, "replace").encode()


@pytest.mark.parametrize("encoding", UTF16_FORMS)
def test_utf16_positions_are_bytes_for_any_buffer_item_size(encoding):
    """An array('H') or a uint16 NumPy array holds two bytes per item;
    positions are still byte offsets of the code units' bytes."""
    units = [0x0061, 0x0062, 0xDC00, 0x0063]
    raw = code_units(units, encoding)
    buffers = [array.array("H", raw), memoryview(bytearray(raw)), memoryview(raw).cast("H")]
    try:
        import numpy
    except ImportError:
        pass
    else:
        buffers.append(numpy.frombuffer(raw, dtype=numpy.uint16))
    for data in buffers:
        assert utfkit.valid_up_to(data, encoding) == 4
        assert utfkit_error(data, encoding) == (4, 6, ILLEGAL_ENCODING)
        assert utfkit.count(data, encoding) == 4
        assert utfkit.transcode(data, encoding, "utf-8", "replace") == b"ab\xef\xbf\xbdc"


def test_native_array_of_code_units_reads_as_the_machines_byte_order():
    native = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"
    units = array.array("H", [0x004D, 0x0430, 0x4E8C, 0xD800, 0xDF02])
    assert utfkit.decode(units, native) == "M\u0430\u4e8c\U00010302"
    wide = array.array("I" if array.array("I").itemsize == 4 else "L", [0x4D, 0x430, 0x4E8C, 0x10302])
    assert wide.itemsize == 4
    assert utfkit.transcode(wide, native.replace("16", "32"), "utf-8") == "M\u0430\u4e8c\U00010302".encode()


@example(text="")
@given(text=st.text())
def test_count_of_well_formed_text_is_its_length_in_every_form(text):
    for encoding in FORMS:
        assert utfkit.count(text.encode(encoding), encoding) == len(text)
