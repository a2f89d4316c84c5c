"""The Python layer's own promises (the binding and the byte API above it):
out= that overlaps the input is refused, the per-call caches never change an
answer, and the short-input paths agree with the C paths."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import utfkit
import utfkit._binding

UNICODE_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]
ALL_FORMS = UNICODE_FORMS + ["wtf-8", "cesu-8", "mutf-8"]
TEXT = "abcdefghijklmnopqrstuvwxyz0123456789"


def test_out_overlapping_the_input_is_refused_and_nothing_is_written():
    """The issue's example: converting a bytearray into itself."""
    d = TEXT.encode("utf-16-le")
    b = bytearray(2 * len(d))
    b[: len(d)] = d
    before = bytes(b)
    with pytest.raises(ValueError, match="overlaps"):
        utfkit.transcode(memoryview(b)[: len(d)], "utf-16-le", "utf-32-le", out=b)
    assert bytes(b) == before


@pytest.mark.parametrize("source", ALL_FORMS)
@pytest.mark.parametrize("target", ALL_FORMS)
@pytest.mark.parametrize("shift", [-8, -1, 0, 1, 8])
def test_every_overlap_is_refused(source, target, shift):
    data = utfkit.encode("\u00e9" + TEXT * 20, source)
    room = 4 * len(data) + 16
    memory = bytearray(room + len(data) + 16)
    start = 16 + max(shift, 0)
    memory[start : start + len(data)] = data
    before = bytes(memory)
    out_start = start + shift
    view = memoryview(memory)
    with pytest.raises(ValueError, match="overlaps"):
        utfkit.transcode(view[start : start + len(data)], source, target, out=view[out_start : out_start + room])
    assert bytes(memory) == before


@pytest.mark.parametrize("source", UNICODE_FORMS)
def test_adjacent_buffers_are_not_an_overlap(source):
    data = TEXT.encode(source)
    memory = bytearray(len(data) + 4 * len(data))
    memory[: len(data)] = data
    view = memoryview(memory)
    written = utfkit.transcode(view[: len(data)], source, "utf-32-le", out=view[len(data) :])
    assert bytes(view[len(data) : len(data) + written]) == TEXT.encode("utf-32-le")


@pytest.mark.parametrize("errors", ["strict", "replace", "ignore"])
@given(data=st.binary(max_size=3000))
def test_short_and_long_paths_agree_with_cpython(errors, data):
    """Below the crossovers utfkit asks CPython's codec; above them C runs.
    Both must give CPython's answer, for bytes and for other buffers."""
    for target in ("utf-16-le", "utf-32-be", "utf-8"):
        try:
            expected = data.decode("utf-8", errors).encode(target)
        except UnicodeDecodeError as error:
            for given_data in (data, bytearray(data)):
                with pytest.raises(UnicodeDecodeError) as raised:
                    utfkit.transcode(given_data, "utf-8", target, errors)
                assert (raised.value.start, raised.value.end, raised.value.reason) == (
                    error.start, error.end, error.reason)
            continue
        assert utfkit.transcode(data, "utf-8", target, errors) == expected
        assert utfkit.transcode(bytearray(data), "utf-8", target, errors) == expected
        out = bytearray(len(expected) + 3)
        assert utfkit.transcode(data, "utf-8", target, errors, out=out) == len(expected)
        assert bytes(out[: len(expected)]) == expected


@given(data=st.binary(max_size=300))
def test_byte_api_short_paths_agree_with_the_memoryview_paths(data):
    """bytes take the short paths; a memoryview of the same bytes goes to C."""
    view = memoryview(data)
    assert utfkit.validate(data) == utfkit.validate(view)
    assert utfkit.count(data) == utfkit.count(view) == len(data.decode("utf-8", "replace"))
    assert utfkit.sanitize(data) == utfkit.sanitize(view) == data.decode("utf-8", "replace").encode()
    assert utfkit.valid_up_to(data) == utfkit.valid_up_to(view)


def test_the_plan_cache_never_hides_a_wrong_argument():
    utfkit.transcode(b"abc", "utf-8", "utf-16-le")  # cached now
    with pytest.raises(TypeError):
        utfkit.transcode(b"abc", b"utf-8", "utf-16-le")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        utfkit.transcode(b"abc", "utf-8", ["utf-16-le"])  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        utfkit.transcode(b"abc", "utf-8", "utf-17")
    with pytest.raises(ValueError):
        utfkit.transcode(b"abc", "utf-8", "utf-16-le", "surrogateescape")
    with pytest.raises(TypeError):
        utfkit.transcode("abc", "utf-8", "utf-16-le")  # type: ignore[arg-type]
    assert utfkit.transcode(b"abc", "UTF8", "utf_16_le") == "abc".encode("utf-16-le")


def test_a_large_fresh_output_is_measured_and_written_in_place():
    """Past the kept scratch size the output is measured first."""
    text = "\u0436" * (utfkit._binding.SCRATCH_KEPT // 2 + 7)
    data = text.encode("utf-8")
    assert utfkit.transcode(data, "utf-8", "utf-32-le") == text.encode("utf-32-le")
    broken = data[:-1]
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(broken, "utf-8", "utf-32-le")
    assert raised.value.start == len(broken) - 1


@given(pieces=st.lists(st.binary(max_size=12), max_size=8), resets=st.integers(1, 3))
def test_validator_reused_across_messages_equals_check(pieces, resets):
    """Chunks that validate whole skip the C state; chunks that end inside
    a character set it up; either way feed/finish report what check reports."""
    validator = utfkit.Validator()
    whole = b"".join(pieces)
    for _ in range(resets):
        validator.reset()
        try:
            for piece in pieces:
                validator.feed(piece)
            validator.finish()
        except UnicodeDecodeError as error:
            with pytest.raises(UnicodeDecodeError) as expected:
                whole.decode("utf-8")
            assert (error.start, error.end, error.reason) == (
                expected.value.start, expected.value.end, expected.value.reason)
        else:
            whole.decode("utf-8")
            assert validator.offset == len(whole)


@pytest.mark.parametrize("out", [b"x" * 64, memoryview(bytearray(128))[::2]], ids=["read-only", "strided"])
def test_an_out_that_cannot_be_written_is_a_value_error_and_a_buffer_error(out):
    for expected in (ValueError, BufferError):
        with pytest.raises(expected, match="'out'"):
            utfkit.transcode(b"abc" * 100, "utf-8", "utf-16-le", out=out)
