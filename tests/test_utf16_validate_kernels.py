"""UTF-16 validation (Unicode 3.9 D91) and same-form sanitizing under every
kernel, against the scalar kernel and CPython's UTF-16 codecs.

The vector kernels test for surrogates once per group of vectors (8 x 64
bytes on avx512) read from an aligned address, after a head checked alone;
the pairs are checked only in a group that holds a surrogate, a lead at the
end of a group carried into the next.  So each kind of ill-formed unit goes
at the start, the end and across the edges of the head, of vectors and of
groups, in text placed at every alignment of its buffer.
"""

from __future__ import annotations

import pytest

import utfkit
from utfkit._native import ffi, lib

FORMS = {"utf-16-le": lib.UTFKIT_UTF16LE, "utf-16-be": lib.UTFKIT_UTF16BE}

# Units that are never surrogates (ASCII, Cyrillic, CJK, the last BMP units
# before and after the surrogates), and a supplementary character: 3000+
# units, several groups of the widest kernel.
TEXT = (
    "Mars is the fourth planet. Марс — четвёртая планета. 火星是太阳系的第四颗行星。"
    "\ud7ff\ue000\uffff end. "
) * 40

UNITS = {
    "lone_lead_surrogate": [0xD800],
    "lone_trail_surrogate": [0xDFFF],
    "reversed_pair": [0xDC00, 0xDBFF],
    "two_leads": [0xD83D, 0xD83D],
    "supplementary_character": [0xDBFF, 0xDFFF],
}

# Unit offsets at and around the edges of 16-, 32- and 64-byte vectors in
# the first 128 bytes (where the head ends), then of every 64-byte vector
# up to the fourth 512-byte group (a unit is 2 bytes).
EDGES = sorted({0, 1, 2, 3} | {
    edge + delta
    for edge in [*range(8, 64 + 1, 8), *range(96, 1024 + 1, 32)]
    for delta in (-1, 0, 1)
})
ALIGNMENTS = [0, 1, 2, 6, 16, 30, 32, 34, 62, 63]


def _units(values: list[int], encoding: str) -> bytes:
    order = "little" if encoding.endswith("le") else "big"
    return b"".join(value.to_bytes(2, order) for value in values)


def _inputs(encoding: str):
    text = TEXT.encode(encoding)
    for offset in EDGES:
        at = 2 * offset
        for name, values in UNITS.items():
            yield f"{name}@{offset}", text[:at] + _units(values, encoding) + text[at:]
        yield f"lead_at_end@{offset}", text[:at] + _units([0xD800], encoding)
        for distance in (257, 513):
            # a lone lead, and a lone trail one or two 256-unit groups
            # later (units without surrogates between: a lead carried
            # past them would pair with it)
            later = at + 2 * distance - 2
            yield (f"lead@{offset}_trail@{offset + distance}",
                   text[:at] + _units([0xD800], encoding) + text[at:later]
                   + _units([0xDC00], encoding) + text[later:])
        yield f"cut@{offset}", text[:at]
        yield f"odd_byte@{offset}", text[: at + 1]


def _placed(data: bytes, alignment: int) -> memoryview:
    """data at `alignment` bytes past a 64-byte boundary of a fresh buffer."""
    holder = ffi.new("uint8_t[]", len(data) + 128)
    start = (-int(ffi.cast("uintptr_t", holder))) % 64 + alignment
    view = memoryview(ffi.buffer(holder))[start : start + len(data)]
    view[:] = data
    # the memoryview keeps ffi.buffer alive, which keeps holder alive
    return view


def _outcomes(data: memoryview, form: int) -> tuple:
    valid = lib.utfkit_validate(ffi.from_buffer(data), len(data), form)
    guard = 24
    outcomes = [valid]
    for errors in (lib.UTFKIT_STRICT, lib.UTFKIT_REPLACE, lib.UTFKIT_IGNORE):
        for cap in (len(data), len(data) + 7):
            buffer = ffi.new("uint8_t[]", b"\xa5" * (cap + guard))
            result = lib.utfkit_transcode(ffi.from_buffer(data), len(data), form, form, errors,
                                          buffer, cap)
            # the whole buffer: what was written, and what was not
            outcomes.append((result.status, result.position, result.subpart_length,
                             result.written, ffi.buffer(buffer)[:]))
    return tuple(outcomes)


def _under_scalar(call, *arguments):
    previous = utfkit.backend()
    utfkit._kernels.set_backend("scalar")
    try:
        return call(*arguments)
    finally:
        utfkit._kernels.set_backend(previous)


@pytest.mark.parametrize("encoding", FORMS)
def test_kernel_validates_and_sanitizes_utf16_at_every_edge_and_alignment_as_scalar_does(
    kernel, encoding
):
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    form = FORMS[encoding]
    for description, data in _inputs(encoding):
        for alignment in ALIGNMENTS:
            placed = _placed(data, alignment)
            got = _outcomes(placed, form)
            want = _under_scalar(_outcomes, placed, form)
            assert got == want, f"{description}, alignment {alignment}"


@pytest.mark.parametrize("encoding", FORMS)
def test_utf16_validation_is_cpythons_d91(kernel, encoding):
    for description, data in _inputs(encoding):
        try:
            data.decode(encoding)
            well_formed = True
        except UnicodeDecodeError:
            well_formed = False
        assert utfkit.validate(data, encoding) is well_formed, description
        expected = data.decode(encoding, "replace").encode(encoding)
        assert utfkit.sanitize(data, encoding) == expected, description
