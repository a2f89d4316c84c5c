"""Hypothesis strategies for UTF-8 byte strings, well-formed and ill-formed.

Plain ``st.binary()`` almost never produces a well-formed multi-byte character,
let alone a surrogate or a 4-byte sequence just past U+10FFFF, so the inputs
here are built from the pieces Table 3-7 tells apart and then joined at random.
"""

from __future__ import annotations

from hypothesis import strategies as st

# Table 3-6: the lead byte's marker bits for an n-byte sequence; 5- and 6-byte
# forms are ISO/IEC 10646 Annex D's, which Corrigendum #1 declares illegal.
LEAD_MARKER = {2: 0xC0, 3: 0xE0, 4: 0xF0, 5: 0xF8, 6: 0xFC}


def utf8_bit_pattern(code_point: int, length: int) -> bytes:
    """Lay code_point out in `length` bytes with Table 3-6's bit distribution.

    Does not check shortest form, surrogates or the U+10FFFF limit: that is the
    point, it spells the ill-formed sequences too.
    """
    if length == 1:
        if code_point > 0x7F:
            raise ValueError(f"U+{code_point:04X} does not fit one byte")
        return bytes([code_point])
    payload_bits = (7 - length) + 6 * (length - 1)
    if code_point >= 1 << payload_bits:
        raise ValueError(f"U+{code_point:04X} does not fit {length} bytes")
    continuation = []
    for _ in range(length - 1):
        continuation.append(0x80 | (code_point & 0x3F))
        code_point >>= 6
    return bytes([LEAD_MARKER[length] | code_point]) + bytes(reversed(continuation))


def shortest_length(code_point: int) -> int:
    """Table 3-6: how many bytes the shortest form of code_point takes."""
    if code_point <= 0x7F:
        return 1
    if code_point <= 0x7FF:
        return 2
    if code_point <= 0xFFFF:
        return 3
    return 4


def single_byte(value: int) -> bytes:
    return bytes([value])


# ---- well-formed pieces (Table 3-7) ----------------------------------------
# One strategy per sequence length so short and long characters are drawn
# equally often, and the scalar-value ranges skip the surrogates (D76).
one_byte_characters = st.integers(0x00, 0x7F).map(single_byte)
two_byte_characters = st.integers(0x80, 0x7FF).map(lambda cp: chr(cp).encode())
three_byte_characters = st.one_of(
    st.integers(0x800, 0xD7FF), st.integers(0xE000, 0xFFFF)
).map(lambda cp: chr(cp).encode())
four_byte_characters = st.integers(0x10000, 0x10FFFF).map(lambda cp: chr(cp).encode())
multi_byte_characters = st.one_of(two_byte_characters, three_byte_characters, four_byte_characters)
well_formed_characters = st.one_of(one_byte_characters, multi_byte_characters)
well_formed_text = st.text(max_size=48).map(lambda text: text.encode("utf-8"))
well_formed_runs = st.one_of(
    well_formed_text,
    st.lists(well_formed_characters, max_size=24).map(b"".join),
)

# ---- ill-formed pieces ------------------------------------------------------
# A multi-byte character cut short: an initial subsequence of a well-formed
# sequence, which D93b makes a single maximal subpart.
truncated_characters = multi_byte_characters.flatmap(
    lambda encoded: st.integers(1, len(encoded) - 1).map(lambda keep: encoded[:keep])
)
# Non-shortest forms (Table 3-8, Corrigendum #1), including 5- and 6-byte ones.
non_shortest_forms = st.one_of(
    st.integers(0, 0x7F).map(lambda cp: utf8_bit_pattern(cp, 2)),
    st.integers(0, 0x7FF).map(lambda cp: utf8_bit_pattern(cp, 3)),
    st.integers(0, 0xFFFF).map(lambda cp: utf8_bit_pattern(cp, 4)),
    st.integers(0, 0x1FFFFF).map(lambda cp: utf8_bit_pattern(cp, 5)),
    st.integers(0, 0x3FFFFFF).map(lambda cp: utf8_bit_pattern(cp, 6)),
)
# Surrogate code points laid out as 3-byte sequences: ED A0..BF 80..BF (Table 3-9).
encoded_surrogates = st.integers(0xD800, 0xDFFF).map(lambda cp: utf8_bit_pattern(cp, 3))
# Values above U+10FFFF: F4 90.., F5..F7 leads, 5/6-byte forms, and F5..FF alone (Table 3-10).
beyond_u10ffff = st.one_of(
    st.integers(0x110000, 0x1FFFFF).map(lambda cp: utf8_bit_pattern(cp, 4)),
    st.integers(0x200000, 0x3FFFFFF).map(lambda cp: utf8_bit_pattern(cp, 5)),
    st.integers(0x4000000, 0x7FFFFFFF).map(lambda cp: utf8_bit_pattern(cp, 6)),
    st.integers(0xF5, 0xFF).map(single_byte),
)
lone_continuation_bytes = st.integers(0x80, 0xBF).map(single_byte)
any_byte = st.integers(0x00, 0xFF).map(single_byte)

ill_formed_pieces = st.one_of(
    truncated_characters,
    non_shortest_forms,
    encoded_surrogates,
    beyond_u10ffff,
    lone_continuation_bytes,
    any_byte,
    st.binary(min_size=1, max_size=4),
)

# ---- mixtures -----------------------------------------------------------------
utf8_mixtures = st.lists(
    st.one_of(well_formed_runs, well_formed_characters, ill_formed_pieces),
    max_size=16,
).map(b"".join)


@st.composite
def byte_overwritten(draw, base=st.one_of(well_formed_runs, utf8_mixtures)):
    """A string with one byte, anywhere, replaced by any of the 256 values."""
    data = bytearray(draw(base))
    if not data:
        return bytes([draw(st.integers(0x00, 0xFF))])
    data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0x00, 0xFF))
    return bytes(data)


@st.composite
def past_a_block_boundary(draw):
    """A mixture behind 0..140 bytes of well-formed text, so that errors fall on
    either side of the 8/16/32/64-byte blocks the kernels skip ahead by."""
    filler = draw(st.sampled_from([b"a", "é".encode(), "€".encode(), "😀".encode()]))
    repeat = draw(st.integers(0, 140 // len(filler)))
    return filler * repeat + draw(utf8_mixtures)


utf8_inputs = st.one_of(
    utf8_mixtures,
    byte_overwritten(),
    past_a_block_boundary(),
    st.binary(max_size=80),
)
