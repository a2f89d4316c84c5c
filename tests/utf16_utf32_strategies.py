"""Hypothesis strategies for UTF-16 and UTF-32 byte strings, well-formed and ill-formed.

Random bytes are almost never a surrogate pair, and random 32-bit values are
almost never scalar values, so the inputs are built from the units D90 and
D91 tell apart -- scalar values of every plane, lead and trail surrogates
alone, pairs, reversed pairs, units past 10FFFF -- and then serialised in the
byte order under test, with the odd or partial final unit CPython reports as
"truncated data" or "unexpected end of data" added now and then.
"""

from __future__ import annotations

from hypothesis import strategies as st

from transcode_oracle import UNIT_SIZE, code_units
from utf8_strategies import utf8_inputs

# ---- UTF-16 code units (D91, Table 3-5) ------------------------------------------
lead_surrogates = st.integers(0xD800, 0xDBFF)
trail_surrogates = st.integers(0xDC00, 0xDFFF)
surrogate_edges = st.sampled_from([0xD800, 0xDBFF, 0xDC00, 0xDFFF])
ascii_units = st.integers(0x00, 0x7F)
bmp_scalar_units = st.one_of(
    st.integers(0x80, 0xD7FF),
    st.integers(0xE000, 0xFFFF),
    st.sampled_from([0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF]),
)


def _surrogate_pair(code_point: int) -> list[int]:
    offset = code_point - 0x10000
    return [0xD800 | (offset >> 10), 0xDC00 | (offset & 0x3FF)]


utf16_unit_pieces = st.one_of(
    ascii_units.map(lambda unit: [unit]),
    bmp_scalar_units.map(lambda unit: [unit]),
    st.integers(0x10000, 0x10FFFF).map(_surrogate_pair),  # well-formed pairs
    lead_surrogates.map(lambda unit: [unit]),  # a lone lead
    trail_surrogates.map(lambda unit: [unit]),  # a lone trail
    st.tuples(trail_surrogates, lead_surrogates).map(list),  # a pair the wrong way round
    st.tuples(lead_surrogates, lead_surrogates).map(list),
    surrogate_edges.map(lambda unit: [unit]),
    st.lists(ascii_units, min_size=4, max_size=20),  # runs for the ASCII block path
)
utf16_unit_sequences = st.lists(utf16_unit_pieces, max_size=20).map(
    lambda pieces: [unit for piece in pieces for unit in piece]
)


@st.composite
def utf16_ends(draw, encoding: str) -> bytes:
    """How a UTF-16 string may end: cleanly, on an odd byte, or inside a pair."""
    kind = draw(st.sampled_from(["clean", "odd-byte", "lead-at-end", "lead-and-odd-byte", "pair-cut-in-trail"]))
    if kind == "clean":
        return b""
    if kind == "odd-byte":
        return bytes([draw(st.integers(0, 0xFF))])
    lead = code_units([draw(lead_surrogates)], encoding)
    if kind == "lead-at-end":
        return lead
    if kind == "lead-and-odd-byte":
        return lead + bytes([draw(st.integers(0, 0xFF))])
    return lead + code_units([draw(trail_surrogates)], encoding)[:1]


# ---- UTF-32 code units (D90) -------------------------------------------------------
scalar_values = st.one_of(
    st.integers(0x00, 0x7F),
    st.integers(0x80, 0xD7FF),
    st.integers(0xE000, 0xFFFF),
    st.integers(0x10000, 0x10FFFF),
)
utf32_ill_formed_units = st.one_of(
    st.integers(0xD800, 0xDFFF),
    st.integers(0x110000, 0xFFFFFFFF),
    st.sampled_from([0xD800, 0xDFFF, 0x110000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x0010FFFF + 1]),
)
utf32_units = st.one_of(
    scalar_values,
    utf32_ill_formed_units,
    st.sampled_from([0x0000, 0xD7FF, 0xE000, 0xFEFF, 0xFFFE, 0x10FFFF]),
    st.integers(0, 0xFFFFFFFF),
)
utf32_unit_sequences = st.lists(utf32_units, max_size=24)


def utf32_ends() -> st.SearchStrategy[bytes]:
    """A partial final code unit (1..3 bytes) or none."""
    return st.one_of(st.just(b""), st.binary(min_size=1, max_size=3))


# ---- any form ------------------------------------------------------------------------------
def well_formed_in(encoding: str) -> st.SearchStrategy[bytes]:
    """Text of every plane (st.text draws astral characters too), encoded."""
    return st.text(max_size=40).map(lambda text: text.encode(encoding))


@st.composite
def one_byte_overwritten(draw, base) -> bytes:
    """A string with one byte, anywhere, replaced by any of the 256 values."""
    data = bytearray(draw(base))
    if not data:
        return bytes([draw(st.integers(0x00, 0xFF))])
    data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0x00, 0xFF))
    return bytes(data)


@st.composite
def behind_a_well_formed_prefix(draw, base, encoding: str) -> bytes:
    """`base` after 0..140 characters of ASCII, BMP or astral text, so that
    errors fall on either side of the blocks the kernels skip ahead by."""
    filler = draw(st.sampled_from(["a", "\u0430", "\u4e8c", "\U00010302"]))
    return (filler * draw(st.integers(0, 140))).encode(encoding) + draw(base)


def _utf16_mixtures(encoding: str) -> st.SearchStrategy[bytes]:
    return st.builds(
        lambda units, end: code_units(units, encoding) + end,
        utf16_unit_sequences,
        utf16_ends(encoding),
    )


def _utf32_mixtures(encoding: str) -> st.SearchStrategy[bytes]:
    return st.builds(lambda units, end: code_units(units, encoding) + end, utf32_unit_sequences, utf32_ends())


def inputs_in(encoding: str) -> st.SearchStrategy[bytes]:
    """Structured inputs, mostly ill-formed, for a source encoding form."""
    if UNIT_SIZE[encoding] == 1:
        return utf8_inputs
    mixtures = _utf16_mixtures(encoding) if UNIT_SIZE[encoding] == 2 else _utf32_mixtures(encoding)
    return st.one_of(
        mixtures,
        well_formed_in(encoding),
        one_byte_overwritten(st.one_of(well_formed_in(encoding), mixtures)),
        behind_a_well_formed_prefix(mixtures, encoding),
        st.binary(max_size=64),
    )
