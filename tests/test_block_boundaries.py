"""Errors and characters placed on every side of the 8/16/32/64-byte blocks.

The scalar kernel skips ASCII 8 bytes at a time, the SIMD kernels 16, 32 or 64;
a kernel that miscounts where a block ends, or forgets a character that
straddles two blocks, reports a wrong position.  Each input below puts the
interesting bytes after 0..129 bytes of well-formed text and compares exact
positions with CPython's.
"""

from __future__ import annotations

import pytest

import utfkit
from utf8_oracle import assert_no_disagreements, cpython_error, utfkit_error

LEADING_TEXT = {"ascii": "a", "2-byte": "é", "3-byte": "€", "4-byte": "😀"}

ILL_FORMED = {
    "lone-continuation-80": b"\x80",
    "never-a-lead-FF": b"\xff",
    "non-shortest-C0-AF": b"\xc0\xaf",
    "non-shortest-E0-80-AF": b"\xe0\x80\xaf",
    "surrogate-ED-A0-80": b"\xed\xa0\x80",
    "beyond-10FFFF-F4-90": b"\xf4\x90\x80\x80",
    "truncated-C3": b"\xc3",
    "truncated-E2-82": b"\xe2\x82",
    "truncated-F0-9F-98": b"\xf0\x9f\x98",
}

TRAILING = [b"", b"z" * 70, "é".encode() * 40, b"\xff" * 3]


def well_formed_text_of_length(unit: str, length: int) -> bytes:
    """Exactly `length` bytes of well-formed text made of `unit` characters."""
    encoded = unit.encode("utf-8")
    return encoded * (length // len(encoded)) + b"a" * (length % len(encoded))


@pytest.mark.parametrize("leading", LEADING_TEXT.values(), ids=LEADING_TEXT.keys())
@pytest.mark.parametrize("ill_formed", ILL_FORMED.values(), ids=ILL_FORMED.keys())
def test_error_after_each_prefix_length_is_found_at_its_exact_offset(leading, ill_formed):
    inputs = []
    for prefix_length in range(130):
        prefix = well_formed_text_of_length(leading, prefix_length)
        for trailing in TRAILING:
            data = prefix + ill_formed + trailing
            error = cpython_error(data)
            assert error is not None and error[0] == prefix_length  # the input is what it claims to be
            assert utfkit.valid_up_to(data) == prefix_length, data.hex(" ")
            assert utfkit_error(data) == error, data.hex(" ")
            inputs.append(data)
    assert_no_disagreements(inputs)


@pytest.mark.parametrize("character", ["\x7f", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff"])
def test_character_straddling_each_block_boundary_is_well_formed(character):
    encoded = character.encode("utf-8")
    for prefix_length in range(130):
        data = b"a" * prefix_length + encoded + b"b" * 70
        assert utfkit.validate(data) is True, prefix_length
        assert utfkit.valid_up_to(data) == len(data), prefix_length
        assert utfkit.count(data) == prefix_length + 1 + 70
        assert utfkit.sanitize(data) is data
        # Cut inside the character: the cut-off lead is reported where it starts.
        for keep in range(1, len(encoded)):
            truncated = b"a" * prefix_length + encoded[:keep]
            assert utfkit_error(truncated) == (prefix_length, prefix_length + keep, "unexpected end of data")
            assert utfkit.valid_up_to(truncated) == prefix_length


def test_ascii_run_with_an_error_at_every_offset():
    run = bytes(range(0x20, 0x7F)) * 4  # 380 bytes
    for offset in range(len(run)):
        for ill_byte in (0x80, 0xFF, 0xC2):
            data = bytearray(run)
            data[offset] = ill_byte
            data = bytes(data)
            assert utfkit.valid_up_to(data) == offset
            assert utfkit.validate(data) is False
            if ill_byte != 0xC2:
                reason = "invalid start byte"
            elif offset + 1 < len(data):
                reason = "invalid continuation byte"  # C2 then ASCII: C2 alone is the subpart
            else:
                reason = "unexpected end of data"
            assert utfkit_error(data) == (offset, offset + 1, reason)
            assert utfkit.count(data) == len(data)
            assert utfkit.sanitize(data) == run[:offset] + b"\xef\xbf\xbd" + run[offset + 1 :]


def test_mixed_run_with_each_byte_overwritten_agrees_with_cpython():
    run = ("The quick brown fox — naïve café, 東京, 😀🎉 " * 8).encode("utf-8")
    assert len(run) > 256

    def overwritten():
        for offset in range(len(run)):
            for value in (0x41, 0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF):
                data = bytearray(run)
                data[offset] = value
                yield bytes(data)

    assert_no_disagreements(overwritten())


def test_mixed_run_cut_at_every_offset_agrees_with_cpython():
    run = ("ab€😀é" * 40).encode("utf-8")
    assert_no_disagreements(run[:cut] for cut in range(len(run) + 1))
    assert_no_disagreements(run[cut:] for cut in range(len(run) + 1))


def test_first_error_is_reported_in_long_input_around_each_64_byte_block():
    length = 5000
    base = b"x" * length
    for block in range(0, length // 64):
        for offset in (64 * block - 1, 64 * block, 64 * block + 1, 64 * block + 31, 64 * block + 32):
            if not 0 <= offset < length - 1:
                continue
            data = bytearray(base)
            data[offset] = 0xE2  # lead of a 3-byte character followed by ASCII
            data[-1] = 0xFF  # a second, later error must not be reported first
            data = bytes(data)
            assert utfkit.valid_up_to(data) == offset
            assert utfkit_error(data) == (offset, offset + 1, "invalid continuation byte")
            assert utfkit.count(data) == length
            assert utfkit.sanitize(data) == base[:offset] + b"\xef\xbf\xbd" + base[offset + 1 : -1] + b"\xef\xbf\xbd"
