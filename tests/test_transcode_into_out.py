"""transcode(..., out=buffer): the C extension utfkit._direct takes both
buffers and has the core write into `out` (transcode_into); anything it does
not finish (a buffer it refuses, too little room, an overlap, an error to
raise) goes back to the cffi path, which runs the call again.

Whichever path writes, the contract is the one stated in transcode's
docstring: the number of bytes written equals CPython's
``bytes(data).decode(from_, errors).encode(to, errors)``, those bytes are at
the start of `out`, nothing is written past the end of `out`, and every
error is the one the cffi path raises."""

from __future__ import annotations

import array
import mmap
import sys

import pytest
from concurrently import on_threads
from hypothesis import given, settings
from hypothesis import strategies as st

import utfkit
from utfkit import _direct
from utfkit._binding import OutputBufferError
from utfkit._native import lib

HANDLERS = ["strict", "replace", "ignore"]
PAIRS = [("utf-8", "utf-16-le"), ("utf-8", "utf-32-be"), ("utf-16-le", "utf-8"), ("utf-32-le", "utf-16-be"),
         ("utf-8", "latin-1"), ("latin-1", "utf-8"), ("utf-8", "utf-8"), ("utf-16-be", "utf-16-le")]
TEXT = "Mars, « la planète rouge » — 火星 🪐 Марс. "
GUARD = 0xA5


def expected(data: bytes, from_: str, to: str, errors: str = "strict") -> bytes:
    return bytes(data).decode(from_, errors).encode(to, errors)


def text_of(length: int) -> str:
    return (TEXT * (length // len(TEXT) + 1))[:length]


def guarded(room: int, guard: int = 16) -> tuple[bytearray, memoryview]:
    """A bytearray with `guard` bytes of GUARD either side of a `room`-byte
    window, and that window as a writable memoryview."""
    whole = bytearray([GUARD]) * (room + 2 * guard)
    return whole, memoryview(whole)[guard:guard + room]


def untouched_guards(whole: bytearray, guard: int = 16) -> bool:
    return whole[:guard] == bytearray([GUARD]) * guard and whole[-guard:] == bytearray([GUARD]) * guard


# --------------------------------------------------- equal to CPython, exactly


@pytest.mark.parametrize("length", [0, 1, 15, 16, 17, 63, 64, 65, 1000, 2047, 2048, 2049, 70000])
@pytest.mark.parametrize("from_, to", PAIRS)
def test_out_holds_cpythons_output_and_nothing_past_its_end(length: int, from_: str, to: str) -> None:
    text = text_of(length)
    if from_ == "latin-1" or to == "latin-1":
        text = text.encode("latin-1", "ignore").decode("latin-1")
    data = text.encode(from_)
    want = expected(data, from_, to)
    for room in (len(want), len(want) + 7, 4 * len(data) + 200):
        whole, out = guarded(room)
        assert utfkit.transcode(data, from_, to, out=out) == len(want)
        assert bytes(out[:len(want)]) == want
        assert untouched_guards(whole)  # past the end of out: never written (room to spare in out may be)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(HANDLERS), st.sampled_from(PAIRS), st.integers(0, 8))
def test_random_bytes_into_out_equal_cpython_or_raise_as_it_does(data: bytes, errors: str,
                                                                 pair: tuple[str, str], slack: int) -> None:
    from_, to = pair
    try:
        want = expected(data, from_, to, errors)
    except UnicodeError as cpython_error:
        whole, out = guarded(4 * len(data) + 8)
        with pytest.raises(type(cpython_error)) as raised:
            utfkit.transcode(data, from_, to, errors, out=out)
        if isinstance(cpython_error, UnicodeDecodeError):
            assert isinstance(raised.value, UnicodeDecodeError)
            assert (raised.value.start, raised.value.end, raised.value.reason) == (
                cpython_error.start, cpython_error.end, cpython_error.reason)
        assert untouched_guards(whole)
        return
    whole, out = guarded(len(want) + slack)
    assert utfkit.transcode(data, from_, to, errors, out=out) == len(want)
    assert bytes(out[:len(want)]) == want
    assert untouched_guards(whole)


# ------------------------------------------------- what goes back to cffi


@pytest.mark.parametrize("room_short_by", [1, 2, 5])
def test_too_small_out_raises_value_error_naming_both_sizes_and_writes_nothing_past_it(room_short_by: int) -> None:
    data = text_of(300).encode()
    need = len(expected(data, "utf-8", "utf-16-le"))
    whole, out = guarded(need - room_short_by)
    with pytest.raises(ValueError, match=f"room for {need - room_short_by} bytes; the output needs {need}"):
        utfkit.transcode(data, "utf-8", "utf-16-le", out=out)
    assert untouched_guards(whole)


def test_out_overlapping_the_input_raises_value_error() -> None:
    buffer = bytearray(text_of(100).encode() + bytes(400))
    view = memoryview(buffer)
    with pytest.raises(ValueError, match="overlaps"):
        utfkit.transcode(view[:100], "utf-8", "utf-16-le", out=view[50:])


def test_read_only_and_non_contiguous_out_raise_output_buffer_error() -> None:
    data = b"abc"
    with pytest.raises(OutputBufferError):
        utfkit.transcode(data, "utf-8", "utf-16-le", out=bytes(10))
    with pytest.raises(OutputBufferError):
        utfkit.transcode(data, "utf-8", "utf-16-le", out=memoryview(bytearray(40))[::2])


@pytest.mark.parametrize("not_a_buffer", ["text", 12, None.__class__, [1, 2]])
def test_out_that_is_not_a_buffer_raises_type_error(not_a_buffer: object) -> None:
    with pytest.raises(TypeError, match="argument 'out'"):
        utfkit.transcode(b"abc", "utf-8", "utf-16-le", out=not_a_buffer)  # type: ignore[call-overload]


def test_data_that_is_not_a_buffer_raises_type_error_with_out_given() -> None:
    with pytest.raises(TypeError, match="encode the text first"):
        utfkit.transcode("abc", "utf-8", "utf-16-le", out=bytearray(10))  # type: ignore[call-overload]
    with pytest.raises(BufferError):
        utfkit.transcode(memoryview(b"abcdef")[::2], "utf-8", "utf-16-le", out=bytearray(10))


def test_strict_error_with_out_carries_cpythons_positions() -> None:
    data = "héllo".encode() + b"\xe2\x82" + b" world"
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(data, "utf-8", "utf-16-le", out=bytearray(100))
    cpython = pytest.raises(UnicodeDecodeError, data.decode)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (
        cpython.value.start, cpython.value.end, cpython.value.reason)


# ------------------------------------------------------ buffers of every kind


def test_every_kind_of_buffer_as_data_and_as_out() -> None:
    text = text_of(500)
    wide = text.encode("utf-16-le")
    want = text.encode()
    for data in [wide, bytearray(wide), memoryview(wide), array.array("H", wide)]:
        for out in [bytearray(2000), memoryview(bytearray(2000)), array.array("I", bytes(2000))]:
            assert utfkit.transcode(data, "utf-16-le", "utf-8", out=out) == len(want)
            assert bytes(memoryview(out).cast("B")[:len(want)]) == want
    with mmap.mmap(-1, 4096) as mapped:
        assert utfkit.transcode(wide, "utf-16-le", "utf-8", out=mapped) == len(want)
        assert mapped[:len(want)] == want


def test_out_buffer_is_released_after_the_call() -> None:
    out = bytearray(100)
    utfkit.transcode(b"abc", "utf-8", "utf-16-le", out=out)
    out.extend(b"x")  # BufferError if the call still exported it
    source = bytearray(b"abc")
    utfkit.transcode(source, "utf-8", "utf-16-le", out=bytearray(100))
    source.extend(b"x")


def test_references_are_not_leaked() -> None:
    data, out = text_of(50).encode(), bytearray(400)
    before = sys.getrefcount(data), sys.getrefcount(out)
    for _ in range(1000):
        utfkit.transcode(data, "utf-8", "utf-16-le", out=out)
    assert (sys.getrefcount(data), sys.getrefcount(out)) == before


def test_threads_writing_into_their_own_out_buffers() -> None:
    data = text_of(30000).encode()  # above the size where the GIL is released
    want = expected(data, "utf-8", "utf-32-le")
    failures: list[str] = []

    def work() -> None:
        out = bytearray(len(want))
        for _ in range(20):
            if utfkit.transcode(data, "utf-8", "utf-32-le", out=out) != len(want) or out != want:
                failures.append("wrong output")

    on_threads(work)
    assert failures == []


# ---------------------------------------------------- the extension itself

UTF8_TO_UTF16LE = lib.UTFKIT_UTF8 | lib.UTFKIT_UTF16LE << 4


def test_transcode_into_returns_the_length_or_none_for_the_binding_to_handle() -> None:
    out = bytearray(10)
    assert _direct.transcode_into(b"ab", UTF8_TO_UTF16LE, out) == 4
    assert out[:4] == "ab".encode("utf-16-le")
    assert _direct.transcode_into(b"abcdefgh", UTF8_TO_UTF16LE, bytearray(10)) is None  # too small
    assert _direct.transcode_into(b"\xff", UTF8_TO_UTF16LE, bytearray(10)) is None  # ill-formed
    assert _direct.transcode_into("text", UTF8_TO_UTF16LE, bytearray(10)) is None  # not a buffer
    assert _direct.transcode_into(b"ab", UTF8_TO_UTF16LE, b"read-only") is None


def test_transcode_into_checks_its_own_arguments() -> None:
    with pytest.raises(TypeError):
        _direct.transcode_into(b"ab", UTF8_TO_UTF16LE)  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        _direct.transcode_into(b"ab", -1, bytearray(4))
    with pytest.raises(TypeError):
        _direct.transcode_into(b"ab", "how", bytearray(4))  # type: ignore[arg-type]
