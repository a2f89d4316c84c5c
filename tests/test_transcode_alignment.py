"""Differential tests of the UTF-32 and UTF-16 -> UTF-32 blocks at every
placement of their buffers: every kernel against the scalar one (DESIGN.md
section 4: bit-identical results).

Some blocks first take a partial step up to a 64-byte boundary of the input
(UTF-32 -> UTF-8, UTF-32 -> UTF-16, the UTF-32 lengths) or of the output
(UTF-16 -> UTF-32), and UTF-32 -> UTF-16 stores whole aligned lines of
output joined from two steps.  So the input is placed at every byte offset
0..63 of a line (odd ones included, where no unit boundary is a line
boundary) and the output at many, and each conversion must give the scalar
kernel's status, position, byte count and buffer, guard bytes after the
capacity and before the output included (nothing may be written outside
dst[0..cap); after a strict error, what lies between the output and cap is
unspecified).  The texts are of the BMP with ASCII (runs of one length and
mixes), of supplementary characters only (pairs that fill 32-bit lanes
exactly, and shifted by one unit), and the same with an ill-formed unit
(D90: a surrogate or a unit above 10FFFF in UTF-32; D91: an unpaired
surrogate in UTF-16) inside the first line and further on.
"""

from __future__ import annotations

import pytest

import utfkit
from utfkit._native import ffi, lib

TEXTS = {
    "mixed": "Mars, Марс, المريخ, 火星是太阳系由内往外数的第四颗行星, मंगल ग्रह, 🚀 Jezero 🔴 ça. " * 3,
    "cjk": "火星是太阳系由内往外数的第四颗行星属于类地行星直径约为地球的一半質量" * 5,
    "ascii_then_2_byte": "Mars is the fourth planet " * 4 + "Марс четвёртая планета " * 6,
    "emoji": "🚀🪐🌍🔴😀" * 30,
    "emoji_after_one_unit": "a" + "🚀🪐🌍🔴😀" * 30,
}

SOURCES = {"utf-32-le": lib.UTFKIT_UTF32LE, "utf-32-be": lib.UTFKIT_UTF32BE,
           "utf-16-le": lib.UTFKIT_UTF16LE, "utf-16-be": lib.UTFKIT_UTF16BE}
TARGETS = {"utf-8": lib.UTFKIT_UTF8, "utf-16-le": lib.UTFKIT_UTF16LE,
           "utf-16-be": lib.UTFKIT_UTF16BE, "utf-32-le": lib.UTFKIT_UTF32LE,
           "utf-32-be": lib.UTFKIT_UTF32BE}
#: the directions whose blocks align (kernels.h): UTF-32 into the others,
#: UTF-16 into UTF-32
DIRECTIONS = [(source, target) for source in SOURCES for target in TARGETS
              if source != target and (source.startswith("utf-32") or target.startswith("utf-32"))]

INPUT_OFFSETS = range(64)
OUTPUT_OFFSETS = (0, 1, 2, 6, 16, 32, 48, 62)
GUARD = 16
FILL = 0xA5


def _ill_formed(source: str, data: bytes, at: int) -> bytes:
    """data with its code unit at byte `at` replaced by an ill-formed one."""
    order = "little" if source.endswith("le") else "big"
    if source.startswith("utf-32"):
        bad = (0xDC00 if at % 8 else 0x110000).to_bytes(4, order)
        return data[:at] + bad + data[at + 4:]
    return data[:at] + (0xDC00).to_bytes(2, order) + data[at + 2:]


def _inputs(source: str) -> list[tuple[str, bytes]]:
    inputs = []
    for name, text in TEXTS.items():
        data = text.encode(source)
        inputs.append((name, data))
        for at in (40, 300):  # inside the first line, and further on
            inputs.append((f"{name}, ill-formed at {at}", _ill_formed(source, data, at)))
    return inputs


def _placed(size: int, offset: int):
    """A new buffer (kept alive by the first value) and a pointer into it
    `offset` bytes past a 64-byte boundary, with `size` bytes from there."""
    block = ffi.new("uint8_t[]", size + 128)
    return block, block + (-int(ffi.cast("uintptr_t", block))) % 64 + offset


def _outcomes(data: bytes, source: int, target: int) -> list[tuple]:
    """For each placement of the input: the UTF-8 length of UTF-32, then for
    each placement of the output the result and the bytes around it."""
    needed = lib.utfkit_transcoded_length(data, len(data), source, target, lib.UTFKIT_REPLACE).written
    outcomes: list[tuple] = []
    for input_offset in INPUT_OFFSETS:
        keep, src = _placed(len(data), input_offset)
        ffi.memmove(src, data, len(data))
        if source in (lib.UTFKIT_UTF32LE, lib.UTFKIT_UTF32BE):
            outcomes.append(("length", input_offset,
                             lib.utfkit_well_formed_length(src, len(data), source, lib.UTFKIT_UTF8)))
        for output_offset in OUTPUT_OFFSETS:
            # GUARD bytes before the output and after its capacity
            out_keep, guarded = _placed(needed + 2 * GUARD, (output_offset - GUARD) % 64)
            for errors in (lib.UTFKIT_STRICT, lib.UTFKIT_REPLACE):
                ffi.memmove(guarded, bytes([FILL]) * (needed + 2 * GUARD), needed + 2 * GUARD)
                result = lib.utfkit_transcode(src, len(data), source, target, errors,
                                              guarded + GUARD, needed)
                # what lies between the output and cap is unspecified after an error
                buffer = ffi.buffer(guarded, needed + 2 * GUARD)[:]
                outcomes.append((input_offset, output_offset, errors, result.status, result.position,
                                 result.written, buffer[:GUARD + result.written],
                                 buffer[GUARD + needed:]))
            del out_keep
        del keep
    return outcomes


def _under(kernel: str, call, *arguments):
    previous = utfkit.backend()
    utfkit._kernels.set_backend(kernel)
    try:
        return call(*arguments)
    finally:
        utfkit._kernels.set_backend(previous)


@pytest.mark.parametrize("source, target", DIRECTIONS, ids=[f"{s}>{t}" for s, t in DIRECTIONS])
def test_kernel_converts_at_every_placement_of_its_buffers_as_the_scalar_kernel_does(
    kernel, source, target
):
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    for description, data in _inputs(source):
        reference = _under("scalar", _outcomes, data, SOURCES[source], TARGETS[target])
        got = _outcomes(data, SOURCES[source], TARGETS[target])
        for want, have in zip(reference, got):
            assert have == want, f"{description}: {want[:6]} differs from scalar"
        assert len(got) == len(reference)


def test_the_texts_reach_every_path_they_are_meant_for():
    """The texts hold what the docstring says: runs of 3-byte characters,
    of supplementary characters on even and odd units, ASCII then 2-byte."""
    assert all(0x800 <= ord(c) < 0x10000 for c in TEXTS["cjk"])
    assert all(ord(c) >= 0x10000 for c in TEXTS["emoji"])
    assert TEXTS["emoji_after_one_unit"][1:] == TEXTS["emoji"]
    assert max(map(ord, TEXTS["ascii_then_2_byte"])) < 0x800
    assert len(TEXTS["emoji"].encode("utf-32-le")) > 4 * 64
