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
from utf8_oracle import assert_no_disagreements, cpython_error, disagreements_with_cpython, utfkit_error

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


# ---- every kind of Table 3-7 failure at every offset 0..130 of real text -----------------------
# Multilingual prose (the scripts of the benchmark corpus), so that each error
# meets ASCII, 2-, 3- and 4-byte characters on either side of every vector
# boundary of every kernel (16, 32 and 64 bytes, and pairs of them).
REAL_TEXT = (
    "Mars is the fourth planet from the Sun. Марс — четвёртая планета от Солнца. "
    "المريخ هو الكوكب الرابع من حيث البعد عن الشمس. מאדים הוא כוכב הלכת הרביעי. "
    "मंगल सूर्य से चौथा ग्रह है। 火星は太陽系の太陽に近い方から4番目の惑星である。"
    "화성은 태양계의 네 번째 행성이다. 火星是太阳系中的第四颗行星。 🚀🔭🪐✨ "
).encode("utf-8")

# Each way Table 3-7 can fail (the row and column that reject), truncations,
# surrogates, overlongs and values above U+10FFFF.
TABLE_3_7_FAILURES = {
    "continuation-80-without-lead": b"\x80",
    "continuation-BF-without-lead": b"\xbf",
    "continuation-after-complete-2-byte": b"\xc3\xa9\xa9",
    "continuation-after-complete-4-byte": b"\xf0\x9f\x98\x80\x80",
    "C0-never-a-lead": b"\xc0\x80",
    "C1-never-a-lead": b"\xc1\xbf",
    "F5-never-a-lead": b"\xf5\x80\x80\x80",
    "FF-never-a-lead": b"\xff",
    "FE-never-a-lead": b"\xfe\xbf",
    "overlong-E0-80": b"\xe0\x80\x80",
    "overlong-E0-9F": b"\xe0\x9f\xbf",
    "overlong-F0-80": b"\xf0\x80\x80\x80",
    "overlong-F0-8F": b"\xf0\x8f\xbf\xbf",
    "surrogate-ED-A0": b"\xed\xa0\x80",
    "surrogate-ED-BF": b"\xed\xbf\xbf",
    "above-10FFFF-F4-90": b"\xf4\x90\x80\x80",
    "above-10FFFF-F4-BF": b"\xf4\xbf\xbf\xbf",
    "2-byte-lead-then-ASCII": b"\xc3A",
    "2-byte-lead-then-lead": b"\xc3\xc3\xa9",
    "3-byte-lead-then-ASCII": b"\xe2A",
    "3-byte-second-then-ASCII": b"\xe2\x82A",
    "3-byte-second-then-lead": b"\xe2\x82\xe2\x82\xac",
    "4-byte-lead-then-ASCII": b"\xf0A",
    "4-byte-third-then-ASCII": b"\xf0\x9f\x98A",
    "4-byte-third-then-lead": b"\xf0\x9f\x98\xf0\x9f\x98\x80",
    "ED-then-ASCII": b"\xedA",
    "F4-then-lead": b"\xf4\xc3\xa9",
}

TRUNCATIONS = {
    "truncated-2-byte": b"\xc3",
    "truncated-3-byte-after-1": b"\xe2",
    "truncated-3-byte-after-2": b"\xe2\x82",
    "truncated-4-byte-after-1": b"\xf0",
    "truncated-4-byte-after-2": b"\xf0\x9f",
    "truncated-4-byte-after-3": b"\xf0\x9f\x98",
    "truncated-E0-A0": b"\xe0\xa0",
    "truncated-ED-9F": b"\xed\x9f",
    "truncated-F4-8F-BF": b"\xf4\x8f\xbf",
}


def real_text_prefix(length: int) -> bytes:
    """`length` bytes of REAL_TEXT cut at a character boundary, topped up with ASCII."""
    cut = length
    while cut > 0 and (REAL_TEXT[cut] & 0xC0) == 0x80:
        cut -= 1
    return REAL_TEXT[:cut] + b"x" * (length - cut)


def utf16_outcome(data, errors: str):
    """transcode(data, utf-8 -> utf-16-le) as a value: the bytes, or the error's fields."""
    try:
        return utfkit.transcode(data, "utf-8", "utf-16-le", errors)
    except UnicodeDecodeError as error:
        return (error.start, error.end, error.reason)


def cpython_utf16_outcome(data: bytes, errors: str):
    try:
        return data.decode("utf-8", errors).encode("utf-16-le", "surrogatepass")
    except UnicodeDecodeError as error:
        return (error.start, error.end, error.reason)


def inputs_with(ill_formed: bytes, at_end: bool):
    """(offset, input): `ill_formed` after `offset` = 0..130 bytes of real text,
    followed by the text (and once also by the same error again 70 bytes on,
    so that every API must carry on past the first), or ending the input."""
    for offset in range(131):
        prefix = real_text_prefix(offset)
        if at_end:
            yield offset, prefix + ill_formed
        else:
            yield offset, prefix + ill_formed + REAL_TEXT
            yield offset, prefix + ill_formed + real_text_prefix(70) + ill_formed + REAL_TEXT


def assert_every_utf8_reader_agrees(inputs) -> None:
    failures = []
    for data in inputs:
        failures.extend(disagreements_with_cpython(data))
        for errors in ("strict", "replace", "ignore"):
            expected = cpython_utf16_outcome(data, errors)
            got = utf16_outcome(data, errors)
            if got != expected:
                failures.append(f"{data.hex(' ')}: transcode to utf-16-le ({errors}) expected {expected!r}, got {got!r}")
        if len(failures) >= 20:
            break
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("ill_formed", TABLE_3_7_FAILURES.values(), ids=TABLE_3_7_FAILURES.keys())
def test_each_table_3_7_failure_at_every_offset_of_real_text(ill_formed):
    inputs = list(inputs_with(ill_formed, at_end=False))
    for offset, data in inputs:
        # the input is what it claims to be: the first error is the one placed
        assert cpython_error(data)[0] == offset + cpython_error(ill_formed)[0]
    assert_every_utf8_reader_agrees(data for _, data in inputs)


@pytest.mark.parametrize("truncation", TRUNCATIONS.values(), ids=TRUNCATIONS.keys())
def test_each_truncation_at_every_offset_of_real_text(truncation):
    inputs = list(inputs_with(truncation, at_end=True))
    for offset, data in inputs:
        assert cpython_error(data) == (offset, len(data), "unexpected end of data")
    # inside the text, a truncated character is followed by more text
    inputs += list(inputs_with(truncation, at_end=False))
    assert_every_utf8_reader_agrees(data for _, data in inputs)
