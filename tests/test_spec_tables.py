"""The Unicode Standard's own UTF-8 examples, table by table.

Unicode 15, section 3.9: D86, Table 3-6 (bit distribution), Table 3-7
(well-formed byte sequences), the "must not consume" constraint on conversion
processes, and Tables 3-8..3-11 (U+FFFD substitution of maximal subparts);
plus Corrigendum #1 (UTF-8 shortest form).  Expected answers here are written
down from the spec, not computed by CPython; CPython's reason strings are the
ones DESIGN.md requires check() to give.
"""

from __future__ import annotations

import itertools

import pytest

import utfkit
from utf8_oracle import assert_agrees_with_cpython, utfkit_error, walk_maximal_subparts
from utf8_strategies import shortest_length, utf8_bit_pattern

INVALID_START = "invalid start byte"
INVALID_CONTINUATION = "invalid continuation byte"
END_OF_DATA = "unexpected end of data"
FFFD = "\ufffd"

# ---- Table 3-7. Well-Formed UTF-8 Byte Sequences ------------------------------
# (first code point, last code point, inclusive byte range for each position)
TABLE_3_7 = [
    (0x0000, 0x007F, [(0x00, 0x7F)]),
    (0x0080, 0x07FF, [(0xC2, 0xDF), (0x80, 0xBF)]),
    (0x0800, 0x0FFF, [(0xE0, 0xE0), (0xA0, 0xBF), (0x80, 0xBF)]),
    (0x1000, 0xCFFF, [(0xE1, 0xEC), (0x80, 0xBF), (0x80, 0xBF)]),
    (0xD000, 0xD7FF, [(0xED, 0xED), (0x80, 0x9F), (0x80, 0xBF)]),
    (0xE000, 0xFFFF, [(0xEE, 0xEF), (0x80, 0xBF), (0x80, 0xBF)]),
    (0x10000, 0x3FFFF, [(0xF0, 0xF0), (0x90, 0xBF), (0x80, 0xBF), (0x80, 0xBF)]),
    (0x40000, 0xFFFFF, [(0xF1, 0xF3), (0x80, 0xBF), (0x80, 0xBF), (0x80, 0xBF)]),
    (0x100000, 0x10FFFF, [(0xF4, 0xF4), (0x80, 0x8F), (0x80, 0xBF), (0x80, 0xBF)]),
]
TABLE_3_7_IDS = [f"U+{first:04X}..U+{last:04X}" for first, last, _ in TABLE_3_7]
MULTI_BYTE_ROWS = [row for row in TABLE_3_7 if len(row[2]) > 1]
MULTI_BYTE_ROW_IDS = [f"U+{first:04X}..U+{last:04X}" for first, last, _ in MULTI_BYTE_ROWS]


def lowest_sequence(byte_ranges) -> bytes:
    return bytes(low for low, _ in byte_ranges)


def highest_sequence(byte_ranges) -> bytes:
    return bytes(high for _, high in byte_ranges)


def table_3_6_code_point(sequence: bytes) -> int:
    """Undo Table 3-6's bit distribution (no validity checks)."""
    if len(sequence) == 1:
        return sequence[0]
    lead_payload_mask = 0xFF >> (len(sequence) + 1)
    code_point = sequence[0] & lead_payload_mask
    for continuation in sequence[1:]:
        code_point = (code_point << 6) | (continuation & 0x3F)
    return code_point


def assert_well_formed(sequence: bytes, text: str) -> None:
    assert utfkit.validate(sequence) is True
    assert utfkit_error(sequence) is None
    assert utfkit.valid_up_to(sequence) == len(sequence)
    assert utfkit.decode(sequence) == text
    assert utfkit.count(sequence) == len(text)
    assert utfkit.sanitize(sequence) is sequence


@pytest.mark.parametrize("first, last, byte_ranges", TABLE_3_7, ids=TABLE_3_7_IDS)
def test_table_3_7_row_ends_are_the_range_ends(first, last, byte_ranges):
    lowest = lowest_sequence(byte_ranges)
    highest = highest_sequence(byte_ranges)
    assert_well_formed(lowest, chr(first))
    assert_well_formed(highest, chr(last))


@pytest.mark.parametrize("first, last, byte_ranges", TABLE_3_7, ids=TABLE_3_7_IDS)
def test_table_3_7_every_combination_of_range_ends_is_well_formed(first, last, byte_ranges):
    for sequence in itertools.product(*byte_ranges):
        sequence = bytes(sequence)
        code_point = table_3_6_code_point(sequence)
        assert first <= code_point <= last, sequence.hex(" ")
        assert_well_formed(sequence, chr(code_point))
        # Well-formed between other characters too: no context changes the answer.
        framed = b"a" + sequence + "é".encode() + sequence
        assert_well_formed(framed, "a" + chr(code_point) + "é" + chr(code_point))


@pytest.mark.parametrize("first, last, byte_ranges", MULTI_BYTE_ROWS, ids=MULTI_BYTE_ROW_IDS)
def test_table_3_7_one_past_each_continuation_range_is_ill_formed(first, last, byte_ranges):
    """One below / one above each trailing-byte range: the lead and the bytes
    accepted so far form the maximal subpart; the wrong byte is not part of it."""
    for position in range(1, len(byte_ranges)):
        low, high = byte_ranges[position]
        for outside in (low - 1, high + 1):
            for template in (lowest_sequence(byte_ranges), highest_sequence(byte_ranges)):
                sequence = bytearray(template)
                sequence[position] = outside
                sequence = bytes(sequence)
                assert utfkit.validate(sequence) is False, sequence.hex(" ")
                assert utfkit.valid_up_to(sequence) == 0, sequence.hex(" ")
                assert utfkit_error(sequence) == (0, position, INVALID_CONTINUATION), sequence.hex(" ")
                assert walk_maximal_subparts(sequence)[0] == (b"", sequence[:position])
                assert_agrees_with_cpython(sequence)


def test_table_3_7_bytes_outside_every_first_byte_range_are_invalid_start_bytes():
    lead_bytes = {
        value for _, _, byte_ranges in TABLE_3_7 for value in range(byte_ranges[0][0], byte_ranges[0][1] + 1)
    }
    never_first = sorted(set(range(256)) - lead_bytes)
    # C1 is one below the C2..DF row, F5 one past the F4 row, 80 one past 00..7F.
    assert never_first == [*range(0x80, 0xC2), *range(0xF5, 0x100)]
    for value in never_first:
        for tail in (b"", b"\x80", b"\x80\x80", b"\xbf\xbf\xbf", b"A"):
            sequence = bytes([value]) + tail
            assert utfkit.validate(sequence) is False, sequence.hex(" ")
            assert utfkit_error(sequence) == (0, 1, INVALID_START), sequence.hex(" ")
            assert utfkit.valid_up_to(sequence) == 0
            assert walk_maximal_subparts(sequence)[0] == (b"", bytes([value]))


# Each named edge from the brief: (bytes, well-formed?, check() triple, decode(replace))
TABLE_3_7_EDGES = [
    ("7f", True, None, "\x7f"),
    ("80", False, (0, 1, INVALID_START), FFFD),
    ("c1 bf", False, (0, 1, INVALID_START), FFFD * 2),
    ("c2 80", True, None, "\x80"),
    ("df bf", True, None, "\u07ff"),
    ("e0 9f 80", False, (0, 1, INVALID_CONTINUATION), FFFD * 3),
    ("e0 a0 80", True, None, "\u0800"),
    ("ec bf bf", True, None, "\ucfff"),
    ("ed 80 80", True, None, "\ud000"),
    ("ed 9f bf", True, None, "\ud7ff"),
    ("ed a0 80", False, (0, 1, INVALID_CONTINUATION), FFFD * 3),
    ("ee 80 80", True, None, "\ue000"),
    ("ef bf bf", True, None, "\uffff"),
    ("f0 8f bf bf", False, (0, 1, INVALID_CONTINUATION), FFFD * 4),
    ("f0 90 80 80", True, None, "\U00010000"),
    ("f3 bf bf bf", True, None, "\U000fffff"),
    ("f4 8f bf bf", True, None, "\U0010ffff"),
    ("f4 90 80 80", False, (0, 1, INVALID_CONTINUATION), FFFD * 4),
    ("f5", False, (0, 1, INVALID_START), FFFD),
    ("f5 80 80 80", False, (0, 1, INVALID_START), FFFD * 4),
    ("ff", False, (0, 1, INVALID_START), FFFD),
]


@pytest.mark.parametrize("hex_bytes, well_formed, error, replaced", TABLE_3_7_EDGES, ids=[e[0] for e in TABLE_3_7_EDGES])
def test_table_3_7_edges(hex_bytes, well_formed, error, replaced):
    sequence = bytes.fromhex(hex_bytes)
    assert utfkit.validate(sequence) is well_formed
    assert utfkit_error(sequence) == error
    assert utfkit.valid_up_to(sequence) == (len(sequence) if well_formed else error[0])
    assert utfkit.decode(sequence, errors="replace") == replaced
    assert utfkit.sanitize(sequence) == replaced.encode("utf-8")
    assert utfkit.count(sequence) == len(replaced)


@pytest.mark.parametrize("first, last, byte_ranges", MULTI_BYTE_ROWS, ids=MULTI_BYTE_ROW_IDS)
def test_table_3_7_truncated_sequences_are_one_maximal_subpart(first, last, byte_ranges):
    """D93b(a): an initial subsequence of a well-formed sequence is one subpart."""
    for template in (lowest_sequence(byte_ranges), highest_sequence(byte_ranges)):
        for keep in range(1, len(template)):
            truncated = template[:keep]
            assert utfkit_error(truncated) == (0, keep, END_OF_DATA)
            assert utfkit.valid_up_to(truncated) == 0
            assert utfkit.sanitize(truncated) == FFFD.encode()
            assert utfkit.count(truncated) == 1

            after_text = b"ab" + truncated
            assert utfkit_error(after_text) == (2, 2 + keep, END_OF_DATA)
            assert utfkit.valid_up_to(after_text) == 2
            assert utfkit.decode(after_text, errors="replace") == "ab" + FFFD

            before_ascii = truncated + b"A"
            assert utfkit_error(before_ascii) == (0, keep, INVALID_CONTINUATION)
            assert utfkit.sanitize(before_ascii) == (FFFD + "A").encode()
            assert utfkit.count(before_ascii) == 2


# ---- Table 3-6. UTF-8 Bit Distribution ----------------------------------------
TABLE_3_6_SAMPLE = sorted(
    {cp for first, last, _ in TABLE_3_7 for cp in (first, first + 1, last - 1, last)}
    | set(range(0, 0xD800, 0x0FB3))
    | set(range(0xE000, 0x110000, 0x1F3D))
)


def test_table_3_6_shortest_forms_decode_to_their_scalar_value():
    for code_point in TABLE_3_6_SAMPLE:
        sequence = utf8_bit_pattern(code_point, shortest_length(code_point))
        assert_well_formed(sequence, chr(code_point))


def test_table_3_6_longer_forms_are_ill_formed_byte_by_byte():
    """Every byte of a non-shortest form is its own maximal subpart (Table 3-8)."""
    for code_point in TABLE_3_6_SAMPLE:
        for length in range(shortest_length(code_point) + 1, 7):
            if length == 1:
                continue
            sequence = utf8_bit_pattern(code_point, length)
            assert utfkit.validate(sequence) is False, sequence.hex(" ")
            assert utfkit.count(sequence) == len(sequence), sequence.hex(" ")
            assert utfkit.sanitize(sequence) == (FFFD * len(sequence)).encode(), sequence.hex(" ")
            start, end, _ = utfkit_error(sequence)
            assert (start, end) == (0, 1), sequence.hex(" ")


def test_table_3_6_surrogate_code_points_are_ill_formed_byte_by_byte():
    """D92: byte sequences that would map to U+D800..U+DFFF are ill-formed (Table 3-9)."""
    for code_point in range(0xD800, 0xE000, 0x3F):
        sequence = utf8_bit_pattern(code_point, 3)
        assert utfkit_error(sequence) == (0, 1, INVALID_CONTINUATION), sequence.hex(" ")
        assert utfkit.sanitize(sequence) == (FFFD * 3).encode()
        assert utfkit.count(sequence) == 3


def test_table_3_6_values_beyond_u10ffff_are_ill_formed_byte_by_byte():
    for code_point in [0x110000, 0x110001, 0x13FFFF, 0x140000, 0x1FFFFF]:
        sequence = utf8_bit_pattern(code_point, 4)
        reason = INVALID_CONTINUATION if sequence[0] == 0xF4 else INVALID_START
        assert utfkit_error(sequence) == (0, 1, reason), sequence.hex(" ")
        assert utfkit.sanitize(sequence) == (FFFD * 4).encode()
        assert utfkit.count(sequence) == 4


# ---- Tables 3-8 .. 3-11: U+FFFD substitution of maximal subparts ---------------
def check_substitution_table(partition, output_code_points, first_error):
    """partition: the table's bytes split into ("subpart", hex) / ("character", hex)
    tokens; output_code_points: the table's Output row."""
    data = bytes.fromhex(" ".join(hex_bytes for _, hex_bytes in partition))
    expected_text = "".join(chr(cp) for cp in output_code_points)

    assert utfkit.validate(data) is False
    assert utfkit_error(data) == first_error
    assert utfkit.valid_up_to(data) == first_error[0]
    assert utfkit.decode(data, errors="replace") == expected_text
    assert utfkit.sanitize(data) == expected_text.encode("utf-8")
    assert utfkit.count(data) == len(expected_text)

    expected_walk, run = [], b""
    for kind, hex_bytes in partition:
        if kind == "subpart":
            expected_walk.append((run, bytes.fromhex(hex_bytes)))
            run = b""
        else:
            run += bytes.fromhex(hex_bytes)
    if run:
        expected_walk.append((run, b""))
    assert walk_maximal_subparts(data) == expected_walk


def test_table_3_8_non_shortest_forms():
    partition = [
        ("subpart", "c0"), ("subpart", "af"),
        ("subpart", "e0"), ("subpart", "80"), ("subpart", "bf"),
        ("subpart", "f0"), ("subpart", "81"), ("subpart", "82"),
        ("character", "41"),
    ]  # fmt: skip
    output = [0xFFFD] * 8 + [0x0041]
    check_substitution_table(partition, output, (0, 1, INVALID_START))


def test_table_3_9_surrogates():
    partition = [
        ("subpart", "ed"), ("subpart", "a0"), ("subpart", "80"),
        ("subpart", "ed"), ("subpart", "bf"), ("subpart", "bf"),
        ("subpart", "ed"), ("subpart", "af"),
        ("character", "41"),
    ]  # fmt: skip
    output = [0xFFFD] * 8 + [0x0041]
    check_substitution_table(partition, output, (0, 1, INVALID_CONTINUATION))


def test_table_3_10_other_ill_formed_sequences():
    partition = [
        ("subpart", "f4"), ("subpart", "91"), ("subpart", "92"), ("subpart", "93"),
        ("subpart", "ff"),
        ("character", "41"),
        ("subpart", "80"), ("subpart", "bf"),
        ("character", "42"),
    ]  # fmt: skip
    output = [0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x0041, 0xFFFD, 0xFFFD, 0x0042]
    check_substitution_table(partition, output, (0, 1, INVALID_CONTINUATION))


def test_table_3_11_truncated_sequences():
    partition = [
        ("subpart", "e1 80"), ("subpart", "e2"), ("subpart", "f0 91 92"), ("subpart", "f1 bf"),
        ("character", "41"),
    ]  # fmt: skip
    output = [0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x0041]
    check_substitution_table(partition, output, (0, 2, INVALID_CONTINUATION))


# ---- D86, D89 and the constraints on conversion processes -----------------------
def test_d86_well_formed_example():
    data = bytes.fromhex("41 c3 b1 42")
    assert_well_formed(data, "A\u00f1B")
    assert walk_maximal_subparts(data) == [(data, b"")]


def test_d86_ill_formed_example():
    """<41 C2 C3 B1 42>: only <C2> is ill-formed; <C3 B1> is not consumed with it."""
    data = bytes.fromhex("41 c2 c3 b1 42")
    assert utfkit.validate(data) is False
    assert utfkit_error(data) == (1, 2, INVALID_CONTINUATION)
    assert utfkit.valid_up_to(data) == 1
    assert utfkit.decode(data, errors="replace") == "A" + FFFD + "\u00f1B"
    assert utfkit.sanitize(data) == b"A\xef\xbf\xbd\xc3\xb1B"
    assert utfkit.count(data) == 4
    assert walk_maximal_subparts(data) == [(b"A", b"\xc2"), (b"\xc3\xb1B", b"")]


def test_d89_ill_formed_example():
    """<C0 80 61 F3> is a Unicode 8-bit string but not well-formed UTF-8."""
    data = bytes.fromhex("c0 80 61 f3")
    assert utfkit.validate(data) is False
    assert utfkit_error(data) == (0, 1, INVALID_START)
    assert utfkit.decode(data, errors="replace") == FFFD + FFFD + "a" + FFFD
    assert walk_maximal_subparts(data) == [(b"", b"\xc0"), (b"", b"\x80"), (b"a", b"\xf3")]
    tail = data[2:]
    assert utfkit_error(tail) == (1, 2, END_OF_DATA)


@pytest.mark.parametrize(
    "hex_bytes, replaced, walk",
    [
        ("c2 41 42", FFFD + "AB", [(b"", b"\xc2"), (b"AB", b"")]),
        ("f0 80 80 41", FFFD * 3 + "A", [(b"", b"\xf0"), (b"", b"\x80"), (b"", b"\x80"), (b"A", b"")]),
        ("e1 80 c3 b1", FFFD + "\u00f1", [(b"", b"\xe1\x80"), (b"\xc3\xb1", b"")]),
        ("f1 80 80 e2 82 ac", FFFD + "\u20ac", [(b"", b"\xf1\x80\x80"), (b"\xe2\x82\xac", b"")]),
        ("f4 8f bf 41", FFFD + "A", [(b"", b"\xf4\x8f\xbf"), (b"A", b"")]),
    ],
    ids=["C2 41 42", "F0 80 80 41", "E1 80 C3 B1", "F1 80 80 E2 82 AC", "F4 8F BF 41"],
)
def test_conversion_must_not_consume_well_formed_successor_bytes(hex_bytes, replaced, walk):
    data = bytes.fromhex(hex_bytes)
    start, end, reason = utfkit_error(data)
    assert (start, reason) == (0, INVALID_CONTINUATION)
    assert end == len(walk[0][1])
    assert utfkit.decode(data, errors="replace") == replaced
    assert utfkit.sanitize(data) == replaced.encode("utf-8")
    assert utfkit.count(data) == len(replaced)
    assert walk_maximal_subparts(data) == walk


# ---- Corrigendum #1: UTF-8 shortest form ---------------------------------------------
CORRIGENDUM_1_ILLEGAL = [
    # two-byte overlongs: C0 and C1 never begin a sequence
    ("c0 80", INVALID_START),
    ("c0 af", INVALID_START),
    ("c1 bf", INVALID_START),
    # three-byte overlongs: E0 needs A0..BF next
    ("e0 80 80", INVALID_CONTINUATION),
    ("e0 80 af", INVALID_CONTINUATION),
    ("e0 9f bf", INVALID_CONTINUATION),
    ("e0 9f 80", INVALID_CONTINUATION),
    # four-byte overlongs: F0 needs 90..BF next
    ("f0 80 80 80", INVALID_CONTINUATION),
    ("f0 80 80 af", INVALID_CONTINUATION),
    ("f0 8f bf bf", INVALID_CONTINUATION),
    # ISO/IEC 10646 five- and six-byte forms are illegal in UTF-8
    ("f8 88 80 80 80", INVALID_START),
    ("f8 80 80 80 af", INVALID_START),
    ("f8 87 bf bf bf", INVALID_START),
    ("fb bf bf bf bf", INVALID_START),
    ("fc 84 80 80 80 80", INVALID_START),
    ("fc 80 80 80 80 af", INVALID_START),
    ("fc 83 bf bf bf bf", INVALID_START),
    ("fd bf bf bf bf bf", INVALID_START),
    # "irregular" six-byte surrogate pair (D36c): illegal since Unicode 3.2
    ("ed a0 80 ed b0 80", INVALID_CONTINUATION),
]


@pytest.mark.parametrize("hex_bytes, reason", CORRIGENDUM_1_ILLEGAL, ids=[c[0] for c in CORRIGENDUM_1_ILLEGAL])
def test_corrigendum_1_non_shortest_and_long_forms_are_illegal(hex_bytes, reason):
    sequence = bytes.fromhex(hex_bytes)
    assert utfkit.validate(sequence) is False
    assert utfkit_error(sequence) == (0, 1, reason)
    assert utfkit.valid_up_to(sequence) == 0
    # No byte of these begins a well-formed sequence that goes on: one U+FFFD each.
    assert utfkit.count(sequence) == len(sequence)
    assert utfkit.sanitize(sequence) == (FFFD * len(sequence)).encode()
    framed = b"/" + sequence + b"/"
    assert utfkit_error(framed) == (1, 2, reason)
    assert utfkit.decode(framed, errors="replace") == "/" + FFFD * len(sequence) + "/"
    assert_agrees_with_cpython(framed)


def test_corrigendum_1_legal_example():
    """Table 3.1B: <F4 80 83 92> is legal (last row)."""
    data = bytes.fromhex("f4 80 83 92")
    assert_well_formed(data, "\U001000d2")
