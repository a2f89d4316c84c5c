"""transcode() into a new bytes object: the C extension utfkit._direct makes
the object (not zero-filled), the core writes the conversion into it, and it
is shrunk to what was written.  The output must be exactly CPython's
``bytes(data).decode(from_, errors).encode(to, errors)`` on every path
(one pass, the kept scratch and a copy, measure then write), at the sizes
around each threshold, for every error handler and input type; an error
must carry CPython's positions; nothing may leak."""

from __future__ import annotations

import array
import contextlib
import gc
import sys
import tracemalloc

import pytest
from concurrently import on_threads

import utfkit
from utfkit import _binding, _direct, _oneshot
from utfkit._native import lib

HANDLERS = ["strict", "replace", "ignore"]

# French text with a few characters above U+00FF (kept out of Latin-1 below)
FRENCH = "Mars est la quatrième planète du Système solaire, « la planète rouge » : ÿ œ € ✓. "

ONE_PASS_ROOM = _oneshot.ONE_PASS_ROOM
SCRATCH_KEPT = _binding.SCRATCH_KEPT


def text_of(length: int, alphabet: str = FRENCH) -> str:
    return (alphabet * (length // len(alphabet) + 1))[:length]


def latin1_text(length: int) -> str:
    return text_of(length, FRENCH.encode("latin-1", "ignore").decode("latin-1"))


def expected(data: bytes, from_: str, to: str, errors: str = "strict") -> bytes:
    return bytes(data).decode(from_, errors).encode(to, errors)


# ---------------------------------------------------------------- thresholds

# (from_, to, bytes of input per unit of room): Latin-1 -> UTF-8 has twice
# the input as room; UTF-8 -> Latin-1 as much room as input (the output fills
# at most all of it, one pass at every size); Latin-1 -> UTF-16 exactly fills
# its room (one pass at every size).
EDGES = (600, 2048, 65536, ONE_PASS_ROOM // 2, ONE_PASS_ROOM, SCRATCH_KEPT // 2)
SIZES_AROUND_THRESHOLDS = sorted({n for edge in EDGES for n in (edge - 1, edge, edge + 1)})


@pytest.mark.parametrize("length", SIZES_AROUND_THRESHOLDS)
@pytest.mark.parametrize("from_, to", [("latin-1", "utf-8"), ("utf-8", "latin-1"), ("latin-1", "utf-16-le"),
                                      ("utf-8", "utf-16-be"), ("utf-16-le", "latin-1")])
def test_transcode_into_new_bytes_equals_cpython_around_every_threshold(length: int, from_: str, to: str) -> None:
    data = latin1_text(length).encode(from_)
    assert utfkit.transcode(data, from_, to) == expected(data, from_, to)
    assert utfkit.transcode(bytearray(data), from_, to) == expected(data, from_, to)


@pytest.mark.parametrize("length", [ONE_PASS_ROOM // 2 + 1, SCRATCH_KEPT // 2 + 1])
@pytest.mark.parametrize("to", ["utf-16", "utf-32", "utf-8-sig"])
def test_byte_order_mark_then_output_around_the_room_thresholds(length: int, to: str) -> None:
    data = latin1_text(length).encode("latin-1")
    assert utfkit.transcode(data, "latin-1", to) == expected(data, "latin-1", to)


# ASCII from UTF-8 or a relative fills its UTF-16/32 room exactly, so it goes
# in one pass above the room threshold too; a byte above 7F at the very end
# sends the same text through the scratch copy.
ASCII_TEXT = "Mars is the fourth planet from the Sun; its surface is red. "


@pytest.mark.parametrize("length", [ONE_PASS_ROOM // 2 + 1, SCRATCH_KEPT // 2 + 1, SCRATCH_KEPT + 7])
@pytest.mark.parametrize("from_", ["utf-8", "wtf-8", "cesu-8", "mutf-8"])
@pytest.mark.parametrize("to", ["utf-16-le", "utf-32-be"])
@pytest.mark.parametrize("tail", ["", "\u00e9", "\U0001f600"])
def test_ascii_from_utf8_family_above_the_room_threshold_equals_cpython(length: int, from_: str, to: str,
                                                                         tail: str) -> None:
    text = text_of(length, ASCII_TEXT) + tail
    data = text.encode("utf-8")
    if from_ in ("cesu-8", "mutf-8") and tail == "\U0001f600":
        data = data[:-4] + bytes.fromhex("eda0bd edb880")  # U+1F600 as D83D DE00, 3 bytes each
    assert utfkit.transcode(data, from_, to) == text.encode(to)


@pytest.mark.parametrize("errors", HANDLERS)
def test_mutf8_ascii_with_a_zero_byte_above_the_room_threshold_agrees_with_out(errors: str) -> None:
    # 00 is ASCII but ill-formed in Modified UTF-8 (it is written C0 80)
    data = text_of(ONE_PASS_ROOM, ASCII_TEXT).encode() + b"\x00" + b"tail"
    out = bytearray(2 * len(data))
    new = outcome(utfkit.transcode, data, "mutf-8", "utf-16-le", errors)
    into = outcome(utfkit.transcode, data, "mutf-8", "utf-16-le", errors, out)
    if isinstance(new, bytes):
        assert into == len(new) and bytes(out[:into]) == new
    else:
        assert new == into


def outcome(call, *args):  # type: ignore[no-untyped-def]
    """What a call returns, or the type and bounds of the UnicodeError it raises."""
    try:
        return call(*args)
    except UnicodeError as error:
        return type(error), error.start, error.end, error.reason  # type: ignore[attr-defined]


@pytest.mark.parametrize("errors", HANDLERS)
@pytest.mark.parametrize("length", [700, 2047, 2048, 70000, ONE_PASS_ROOM // 2 + 3])
def test_every_handler_into_new_bytes_equals_cpython(errors: str, length: int) -> None:
    text = text_of(length)  # characters above U+00FF: unencodable in Latin-1
    utf8 = text.encode()
    damaged = utf8[: length // 2] + b"\xe0\x80" + utf8[length // 2 :] + b"\xf0\x9f"
    for data in [utf8, damaged]:
        for to in ["utf-16-le", "utf-32-be", "latin-1", "ascii", "utf-16"]:
            ours = outcome(utfkit.transcode, data, "utf-8", to, errors)
            assert ours == outcome(expected, data, "utf-8", to, errors), to


# ------------------------------------------------------------------- errors


def error_of(call, *args):  # type: ignore[no-untyped-def]
    with pytest.raises(UnicodeError) as caught:
        call(*args)
    return caught.value


@pytest.mark.parametrize("where", ["start", "middle", "end"])
@pytest.mark.parametrize("length", [3000, 70000, ONE_PASS_ROOM // 2 + 5])
def test_decode_error_positions_equal_cpython(where: str, length: int) -> None:
    body = latin1_text(length).encode()
    bad = b"\xed\xa0\x80"  # a surrogate: ill-formed in UTF-8 (Table 3-7)
    at = {"start": 0, "middle": len(body) // 2, "end": len(body)}[where]
    while at < len(body) and (body[at] & 0xC0) == 0x80:  # on a character boundary
        at += 1
    data = body[:at] + bad + body[at:]
    for to in ["latin-1", "utf-16-le", "utf-8-sig", "utf-32"]:
        ours = error_of(utfkit.transcode, data, "utf-8", to)
        theirs = error_of(data.decode, "utf-8")
        assert type(ours) is UnicodeDecodeError
        assert (ours.start, ours.end, ours.reason) == (theirs.start, theirs.end, theirs.reason), to


@pytest.mark.parametrize("where", ["start", "middle", "end"])
@pytest.mark.parametrize("length", [3000, 70000])
def test_encode_error_positions_equal_cpython(where: str, length: int) -> None:
    body = latin1_text(length)
    at = {"start": 0, "middle": len(body) // 2, "end": len(body)}[where]
    text = body[:at] + "€" + body[at:]
    data = text.encode()
    for data_in in [data, bytearray(data)]:
        ours = error_of(utfkit.transcode, data_in, "utf-8", "latin-1")
        theirs = error_of(text.encode, "latin-1")
        assert type(ours) is UnicodeEncodeError
        assert (ours.start, ours.end, ours.reason) == (theirs.start, theirs.end, theirs.reason)


# -------------------------------------------------------------- input types


def test_every_contiguous_input_type_gives_the_same_output() -> None:
    data = text_of(5000).encode()
    want = expected(data, "utf-8", "utf-16-le")
    padded = b"xx" + data + b"yy"
    for source in [data, bytearray(data), memoryview(data), memoryview(padded)[2:-2],
                   memoryview(bytearray(padded))[2:-2], array.array("B", data)]:
        assert utfkit.transcode(source, "utf-8", "utf-16-le") == want, type(source)
    wide = text_of(5000).encode("utf-16-le")
    assert utfkit.transcode(array.array("H", wide), "utf-16-le", "utf-8") == expected(wide, "utf-16-le", "utf-8")


def test_non_contiguous_input_is_refused() -> None:
    data = text_of(5000).encode()
    strided = memoryview(data)[::2]
    with pytest.raises(BufferError):  # as every call refuses it (input_view)
        utfkit.transcode(strided, "latin-1", "utf-16-le")
    with pytest.raises(TypeError):  # the extension itself: a C-contiguous buffer only
        _direct.transcode_new(strided, lib.UTFKIT_LATIN1 | lib.UTFKIT_UTF16LE << 4, 2 * len(data))
    with pytest.raises(TypeError):
        _direct.transcode_new("text", lib.UTFKIT_LATIN1 | lib.UTFKIT_UTF16LE << 4, 8)


# ------------------------------------------------------- the extension itself

LATIN1_TO_UTF8 = lib.UTFKIT_LATIN1 | lib.UTFKIT_UTF8 << 4


def test_transcode_new_writes_the_prefix_then_the_conversion_shrunk_to_its_size() -> None:
    data = "é" * 100 + "a"
    output = _direct.transcode_new(data.encode("latin-1"), LATIN1_TO_UTF8, 2 * len(data), b"\xef\xbb\xbf")
    assert output == b"\xef\xbb\xbf" + data.encode()
    assert _direct.transcode_new(b"", LATIN1_TO_UTF8, 0) == b""


def test_transcode_new_returns_none_when_the_core_reports_an_error() -> None:
    utf8_to_latin1 = lib.UTFKIT_UTF8 | lib.UTFKIT_LATIN1 << 4
    assert _direct.transcode_new(b"abc\xff", utf8_to_latin1, 4) is None  # ill-formed
    assert _direct.transcode_new("a€".encode(), utf8_to_latin1, 4) is None  # unencodable
    # room too small, even with the ROOM_SLACK bytes given beyond `capacity`
    too_long = ("é" * (_direct.ROOM_SLACK + 1)).encode("latin-1")
    assert _direct.transcode_new(too_long, LATIN1_TO_UTF8, 1) is None


def test_transcode_new_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError):
        _direct.transcode_new(b"a", LATIN1_TO_UTF8)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _direct.transcode_new(b"a", LATIN1_TO_UTF8, 2, "BOM")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        _direct.transcode_new(b"a", LATIN1_TO_UTF8, -1)
    with pytest.raises(ValueError):
        _direct.transcode_new(b"a", -1, 2)
    with pytest.raises(OverflowError):
        _direct.transcode_new(b"a", LATIN1_TO_UTF8, 1 << 64)
    with pytest.raises((OverflowError, MemoryError)):  # no room that large can exist
        _direct.transcode_new(b"a", LATIN1_TO_UTF8, sys.maxsize, b"\xef\xbb\xbf")
    with pytest.raises((OverflowError, MemoryError)):
        _direct.transcode_new(b"a", LATIN1_TO_UTF8, sys.maxsize - 8)


# ----------------------------------------------------------------- threads


def test_concurrent_transcodes_into_new_bytes_give_the_same_results() -> None:
    inputs = [(latin1_text(n).encode("latin-1"), "latin-1", "utf-8") for n in (700, 5000, 70000, 300000)]
    inputs += [(text_of(n).encode(), "utf-8", "utf-16-le") for n in (3000, 100000)]
    wanted = [expected(*case) for case in inputs]
    failures: list = []

    def work() -> None:
        for _ in range(20):
            for case, want in zip(inputs, wanted):
                if utfkit.transcode(*case) != want:
                    failures.append(case[1:])

    on_threads(work)
    assert failures == []


# ------------------------------------------------------------------- leaks


def test_no_reference_is_kept_on_the_input_or_lost_on_any_path() -> None:
    good = latin1_text(70000).encode()
    bad = good + b"\xff"
    unencodable = good + "€".encode()
    for data in [good, bytearray(good), bad, unencodable]:
        before = sys.getrefcount(data)
        for _ in range(50):
            with contextlib.suppress(UnicodeError):
                utfkit.transcode(data, "utf-8", "latin-1")
            _direct.transcode_new(data, lib.UTFKIT_UTF8 | lib.UTFKIT_LATIN1 << 4, len(data))
        assert sys.getrefcount(data) == before
    resizable = bytearray(good)
    utfkit.transcode(resizable, "utf-8", "utf-16-le")
    resizable.extend(b"x")  # the buffer was released: a bytearray can grow again


def test_repeated_calls_do_not_grow_memory() -> None:
    data = latin1_text(3000).encode()
    bad = data + b"\xff"

    def calls() -> None:
        for _ in range(2000):
            utfkit.transcode(data, "utf-8", "utf-16-le")
            _direct.transcode_new(bad, lib.UTFKIT_UTF8 | lib.UTFKIT_LATIN1 << 4, len(bad))

    calls()  # warm: caches, plans, the kept scratch
    gc.collect()
    tracemalloc.start()
    try:
        first = tracemalloc.take_snapshot()
        calls()
        gc.collect()
        grown = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(first, "filename"))
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024  # 4000 leaked outputs would be 24 MB


# ---------------------------------------------------------------- sanitize


@pytest.mark.parametrize("length", [300, 70000, ONE_PASS_ROOM // 4 + 1])
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_sanitize_into_new_bytes_equals_cpython_replace(length: int, encoding: str) -> None:
    unit = 2 if "16" in encoding else 4
    whole = text_of(length).encode(encoding)
    cut = len(whole) // 2 // unit * unit
    lone = ("\ud800".encode("utf-16-le", "surrogatepass") if unit == 2 else b"\x00\xd8\x00\x00")
    if encoding.endswith("be"):
        lone = lone[::-1]
    for data in [lone + whole, whole[:cut] + lone + whole[cut:], whole + lone, whole + b"\x00"]:
        assert utfkit.sanitize(data, encoding) == data.decode(encoding, "replace").encode(encoding)
        assert utfkit.sanitize(bytearray(data), encoding) == data.decode(encoding, "replace").encode(encoding)


@pytest.mark.parametrize("length", [300, ONE_PASS_ROOM // 3 - 1, ONE_PASS_ROOM // 3 + 1])
def test_sanitize_wtf8_without_surrogates_equals_utf8_on_both_sides_of_the_room_threshold(length: int) -> None:
    text = text_of(length).encode()
    damaged = text[: length // 2] + b"\xf0\x80\x80" + text[length // 2 :] + b"\xc3"
    assert utfkit.sanitize(damaged, "wtf-8") == damaged.decode("utf-8", "replace").encode()
