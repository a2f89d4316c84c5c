"""Inputs past 4 GiB: positions and counts must not wrap at 32 bits.

An anonymous mmap is zero-filled lazily -- untouched pages all map the one
shared zero page -- so a 4 GiB + 4 KiB input costs a few MiB of page tables,
not 4 GiB of RAM.  The test still needs head-room in case an implementation
copies its input (which it must not), so it only runs with ~6 GiB available.
Nothing here builds a UnicodeDecodeError: that would copy the whole object
into a bytes; check()'s position is read from the C core's result instead.
"""

from __future__ import annotations

import importlib
import mmap

import pytest

import utfkit
import utfkit._oneshot

GiB = 1 << 30
SIZE = 4 * GiB + 4096
ILL_FORMED_OFFSET = 4 * GiB + 100  # past 2**32: a 32-bit position would wrap to 100
REQUIRED_AVAILABLE = 6 * GiB


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


def _core_check():
    """The C core's utfkit_utf8_check through the cffi module, if utfkit exposes it.

    Returns a function data -> (status, position, subpart_length), or None.
    """
    first_error = utfkit._oneshot.first_error
    if first_error is not None:

        def core_check(data):
            result = first_error(data, "utf-8")
            return result.status, result.position, result.subpart_length

        return core_check
    candidates = [utfkit._oneshot]
    for module_name in ("utfkit._native", "utfkit._utfkit_cffi", "utfkit._cffi"):
        try:
            candidates.append(importlib.import_module(module_name))
        except ImportError:
            continue
    for module in candidates:
        for lib_name, ffi_name in (("lib", "ffi"), ("_lib", "_ffi")):
            lib, ffi = getattr(module, lib_name, None), getattr(module, ffi_name, None)
            if lib is not None and ffi is not None and hasattr(lib, "utfkit_utf8_check"):

                def core_check(data, lib=lib, ffi=ffi):
                    with ffi.from_buffer(data) as view:
                        result = lib.utfkit_utf8_check(view, len(data))
                    return result.status, result.position, result.subpart_length

                return core_check
    return None


@pytest.fixture(scope="module")
def four_gib_with_one_ill_formed_byte():
    mapped = mmap.mmap(-1, SIZE)
    mapped[ILL_FORMED_OFFSET] = 0x80  # a lone continuation byte; every other byte is U+0000
    yield mapped
    mapped.close()


def test_positions_past_4_gib_do_not_wrap(four_gib_with_one_ill_formed_byte):
    data = four_gib_with_one_ill_formed_byte

    assert utfkit.validate(data) is False
    assert utfkit.valid_up_to(data) == ILL_FORMED_OFFSET
    # Every zero byte is one code point and the lone 80 is one U+FFFD.
    assert utfkit.count(data) == SIZE

    core_check = _core_check()
    if core_check is not None:
        status, position, subpart_length = core_check(data)
        assert status != 0
        assert (position, subpart_length) == (ILL_FORMED_OFFSET, 1)


def test_well_formed_prefix_past_4_gib(four_gib_with_one_ill_formed_byte):
    """A view ending right before the ill-formed byte is well-formed and 4 GiB long."""
    view = memoryview(four_gib_with_one_ill_formed_byte)[:ILL_FORMED_OFFSET]
    try:
        assert utfkit.validate(view) is True
    finally:
        view.release()
