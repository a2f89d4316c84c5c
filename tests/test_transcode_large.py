"""UTF-16 and UTF-32 input past 4 GiB: positions, counts and output lengths
must not wrap at 32 bits.

An anonymous mmap starts as zeros, and zero bytes are well-formed in every
form: U+0000 code units.  One lone trail surrogate, DC00, is written past
2**32 bytes; in UTF-16-LE it is the unit 00 DC, and read as UTF-32-LE the same
bytes 00 DC 00 00 are the surrogate code unit 0000DC00.  Nothing here builds a
UnicodeDecodeError (its `object` would be a 4 GiB copy) or a multi-GiB output:
positions come from valid_up_to and the C core's check result, lengths from
transcoded_length and from the ValueError of a small out= buffer.

A kernel may give the mapping real pages as it is read (up to 4 GiB), so the
module only runs with ~6 GiB of RAM available.
"""

from __future__ import annotations

import mmap

import pytest

import utfkit
import utfkit._oneshot

GiB = 1 << 30
SIZE = 4 * GiB + 4096
ILL_FORMED_OFFSET = 4 * GiB + 100  # a multiple of 4, past 2**32: a 32-bit offset would wrap to 100
REQUIRED_AVAILABLE = 6 * GiB
SENTINEL = 0xAA


def available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _enough_memory() -> tuple[bool, str]:
    available = available_memory()
    if available is None:
        return False, "cannot read MemAvailable from /proc/meminfo"
    if available < REQUIRED_AVAILABLE:
        return False, f"needs ~6 GiB of available RAM, {available / GiB:.1f} GiB available"
    return True, ""


_ENOUGH, _WHY_NOT = _enough_memory()

pytestmark = [
    pytest.mark.large_memory,
    pytest.mark.skipif(not _ENOUGH, reason=_WHY_NOT),
]


@pytest.fixture(scope="module")
def zeros_with_one_lone_trail_surrogate():
    mapped = mmap.mmap(-1, SIZE)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        # Reads then fault in 2 MiB at a time (the huge zero page where the
        # kernel has one): the first pass takes a fraction of the time.
        try:
            mapped.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass
    mapped[ILL_FORMED_OFFSET : ILL_FORMED_OFFSET + 2] = (0xDC00).to_bytes(2, "little")
    yield mapped
    mapped.close()


def test_utf16_position_and_count_past_4_gib(zeros_with_one_lone_trail_surrogate):
    data = zeros_with_one_lone_trail_surrogate
    assert utfkit.valid_up_to(data, "utf-16-le") == ILL_FORMED_OFFSET

    first_error = utfkit._oneshot.first_error
    if first_error is not None:  # check()'s position, without the 4 GiB UnicodeDecodeError.object
        result = first_error(data, "utf-16-le")
        assert result.status == utfkit._binding.lib.UTFKIT_SURROGATE
        assert (result.position, result.subpart_length) == (ILL_FORMED_OFFSET, 2)

    # Every unit is one code point; the lone trail surrogate is one U+FFFD.
    assert utfkit.count(data, "utf-16-le") == SIZE // 2


def test_utf32_to_utf16_length_past_4_gib(zeros_with_one_lone_trail_surrogate):
    """Each UTF-32 unit is one 2-byte UTF-16 unit: U+0000, or U+FFFD for the
    surrogate (replace), or nothing (ignore)."""
    data = zeros_with_one_lone_trail_surrogate
    units = SIZE // 4
    assert utfkit.transcoded_length(data, "utf-32-le", "utf-16-le", "replace") == 2 * units


def test_transcode_past_4_gib_into_a_small_out_raises_value_error(zeros_with_one_lone_trail_surrogate):
    data = zeros_with_one_lone_trail_surrogate
    units = SIZE // 4
    storage = bytearray([SENTINEL]) * 8192
    with pytest.raises(ValueError) as raised:
        utfkit.transcode(data, "utf-32-le", "utf-16-le", "ignore", out=memoryview(storage)[:4096])
    message = str(raised.value)
    del raised  # its traceback may hold a view of the mapping
    assert str(2 * (units - 1)) in message  # the exact length needed: every unit but the surrogate
    assert storage[4096:] == bytes([SENTINEL]) * 4096
    # Inside out: a prefix of the output (zero bytes: U+0000 units), then untouched bytes.
    head = bytes(storage[:4096])
    written = len(head) - len(head.lstrip(b"\x00"))
    assert head[written:] == bytes([SENTINEL]) * (4096 - written)
