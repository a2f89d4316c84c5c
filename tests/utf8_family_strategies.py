"""Hypothesis strategies for WTF-8, CESU-8 and MUTF-8 input: well-formed
pieces of every kind, surrogate byte sequences alone, paired and cut short,
the 4-byte form, C0 80, overlongs, truncations and any byte at all, so that
random text meets every rule of every form."""

from __future__ import annotations

from hypothesis import strategies as st

import utfkit
from utf8_family_oracle import generalized_utf8

bmp_scalar = st.one_of(
    st.integers(0x00, 0x7F),
    st.integers(0x80, 0x7FF),
    st.integers(0x800, 0xD7FF),
    st.integers(0xE000, 0xFFFF),
)
supplementary = st.integers(0x10000, 0x10FFFF)
lead_surrogate = st.integers(0xD800, 0xDBFF)
trail_surrogate = st.integers(0xDC00, 0xDFFF)
surrogate = st.integers(0xD800, 0xDFFF)


def _pair_bytes(value: int) -> bytes:
    offset = value - 0x10000
    return generalized_utf8(0xD800 + (offset >> 10)) + generalized_utf8(0xDC00 + (offset & 0x3FF))


whole_pieces = st.one_of(
    bmp_scalar.map(generalized_utf8),
    supplementary.map(generalized_utf8),          # the 4-byte form
    supplementary.map(_pair_bytes),               # the 6-byte surrogate pair form
    surrogate.map(generalized_utf8),              # a surrogate byte sequence
    st.tuples(lead_surrogate, trail_surrogate).map(
        lambda pair: generalized_utf8(pair[0]) + generalized_utf8(pair[1])),
    st.just(b"\xc0\x80"),                         # MUTF-8's U+0000
    st.just(b"\x00"),
)

odd_pieces = st.one_of(
    st.integers(0, 255).map(lambda byte: bytes([byte])),
    st.binary(min_size=1, max_size=3),
    # a well-formed piece cut short
    whole_pieces.filter(lambda piece: len(piece) > 1).flatmap(
        lambda piece: st.integers(1, len(piece) - 1).map(lambda n: piece[:n])),
    # overlong and out-of-range leads
    st.tuples(st.sampled_from([0xC0, 0xC1, 0xE0, 0xF0, 0xF4, 0xF5, 0xF8, 0xFF]),
              st.integers(0x80, 0xBF)).map(bytes),
)

utf8_family_bytes = st.lists(
    st.one_of(whole_pieces, whole_pieces, whole_pieces, odd_pieces), max_size=24
).map(b"".join)

# 16-bit code units of any value, surrogates of both kinds over-represented
code_units = st.lists(
    st.one_of(st.integers(0, 0xFFFF), surrogate, lead_surrogate, trail_surrogate,
              st.sampled_from([0x0000, 0x007F, 0x0080, 0x07FF, 0x0800, 0xFFFF])),
    max_size=40,
)


# Ill-formed in every UTF-8-based form: what "ignore" drops (and "replace"
# replaces) between a lead and a trail, which then join in WTF-8 output
# (WTF-8 section 6.1).
DROPPED = [b"\xff", b"\x80", b"\xed", b"\xed\xb0", b"\xc0", b"\xf0\x90"]


@st.composite
def surrogate_laden(draw: st.DrawFn, form: str, max_parts: int = 12) -> bytes:
    """Text in `form` made of lead and trail surrogates -- alone, in pairs
    and with ill-formed bytes between them -- among ASCII, BMP and
    supplementary characters (in the UTF-8 relatives a surrogate is its
    3-byte sequence, WTF-8 section 3.3; in UTF-16 its code unit): the inputs
    where a cut decides whether a pair is joined."""
    parts = []
    for _ in range(draw(st.integers(1, max_parts))):
        kind = draw(st.sampled_from(["lead", "lead", "trail", "trail", "ascii", "bmp", "astral", "dropped"]))
        if kind == "dropped":
            parts.append(draw(st.sampled_from(DROPPED)) * draw(st.integers(1, 3)))
            continue
        code_point = {
            "lead": draw(st.integers(0xD800, 0xDBFF)), "trail": draw(st.integers(0xDC00, 0xDFFF)),
            "ascii": draw(st.integers(0x20, 0x7E)), "bmp": draw(st.sampled_from([0xE9, 0x20AC, 0xFFFD])),
            "astral": draw(st.integers(0x10000, 0x10FFFF)),
        }[kind]
        if form.startswith("utf-16"):
            parts.append(chr(code_point).encode(form, "surrogatepass"))
        elif 0xD800 <= code_point <= 0xDFFF:
            parts.append(chr(code_point).encode("utf-8", "surrogatepass"))
        else:
            parts.append(utfkit.encode(chr(code_point), form))
    return b"".join(parts)
