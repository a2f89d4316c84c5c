"""The UTF-8 length of UTF-32 code units (utfkit_well_formed_length, the
kernels' utf32_utf8_length), under every kernel (DESIGN.md section 4:
bit-identical results): for any 32-bit units, the sum csrc/lengths.c (the
scalar kernel) defines, and for well-formed text the length of CPython's
encoding.

Table 3-6: a code point takes 1 byte below U+0080, 2 below U+0800, 3 below
U+10000 and 4 from there; csrc/lengths.c counts any unit so, compared as a
signed 32-bit number (a unit from 80000000 up counts 1).  The vector kernels narrow pairs of vectors of
units to 16-bit lanes (each unit shifted right by 2 and saturated) before
comparing, so the units that matter are those next to each threshold, next
to where the narrowing saturates (a quarter of 7FFF / -8000), and the
extremes of a signed 32-bit unit.  They are placed at
every lane of a vector, at every byte offset of the buffer from a 64-byte
boundary, with other units before and after, in either byte order.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from utfkit._native import ffi, lib

FORMS = {"utf-32-le": lib.UTFKIT_UTF32LE, "utf-32-be": lib.UTFKIT_UTF32BE}

THRESHOLDS = (0x80, 0x800, 0x10000)
#: where a unit shifted right by 2 leaves the int16 range
SATURATION = (4 * 0x7FFF, -4 * 0x8000)
EDGES = sorted(
    {(edge + delta) % 2**32 for edge in THRESHOLDS + SATURATION for delta in range(-5, 5)}
    | {0, 0xD800, 0xDFFF, 0xFFFF, 0x10FFFF, 0x110000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF}
)

units = st.lists(st.one_of(st.sampled_from(EDGES), st.integers(0, 2**32 - 1)), max_size=80)


def _encoded(values: list[int], form: str) -> bytes:
    order = "little" if form.endswith("le") else "big"
    return b"".join(value.to_bytes(4, order) for value in values)


def _length(data: bytes, form: str, offset: int) -> int:
    """utfkit_well_formed_length(UTF-32 -> UTF-8) of data placed `offset`
    bytes past a 64-byte boundary."""
    block = ffi.new("uint8_t[]", len(data) + 128)
    src = block + (-int(ffi.cast("uintptr_t", block))) % 64 + offset
    ffi.memmove(src, data, len(data))
    return lib.utfkit_well_formed_length(src, len(data), FORMS[form], lib.UTFKIT_UTF8)


def _counted(values: list[int]) -> int:
    """The sum csrc/lengths.c counts: 4 per unit, less 1 for each threshold
    the unit, as a signed 32-bit number, is below."""
    signed = [value - 2**32 if value >= 2**31 else value for value in values]
    return sum(4 - sum(unit < threshold for threshold in THRESHOLDS) for unit in signed)


def test_utf8_length_of_each_edge_unit_at_every_lane_is_the_counted_sum():
    filler = [0x41, 0x4E2D, 0x1F600, 0x430] * 20  # 80 units: several vectors either side
    for form in FORMS:
        for edge in EDGES:
            for lane in range(0, 33):
                values = filler[:lane] + [edge] + filler[lane:]
                data, want = _encoded(values, form), _counted(values)
                for offset in (0, 4, 20, 1):
                    assert _length(data, form, offset) == want, (form, hex(edge), lane, offset)


@given(values=units, form=st.sampled_from(sorted(FORMS)), offset=st.integers(0, 63))
def test_utf8_length_of_any_utf32_units_is_the_counted_sum(values, form, offset):
    assert _length(_encoded(values, form), form, offset) == _counted(values)


scalar_values = st.one_of(
    st.sampled_from([value for value in EDGES if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF]),
    st.integers(0, 0xD7FF),
    st.integers(0xE000, 0x10FFFF),
)


@given(values=st.lists(scalar_values, max_size=80), form=st.sampled_from(sorted(FORMS)),
       offset=st.integers(0, 63).map(lambda n: n & ~3))
def test_utf8_length_of_well_formed_utf32_is_the_length_of_its_utf8(values, form, offset):
    text = "".join(map(chr, values))
    assert _length(text.encode(form), form, offset) == len(text.encode("utf-8"))
