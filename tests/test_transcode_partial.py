"""transcode_partial (DESIGN.md section 2): as much as fits, cut on a character
boundary, and repeated calls on the rest give exactly transcode's output,
whatever the size of `out` (down to the longest single character's output)
and wherever the input is cut.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import utfkit
from utf8_family_strategies import surrogate_laden

FIXED_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "wtf-8", "cesu-8", "mutf-8",
               "latin-1", "ascii"]
CPYTHON_FIXED_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "latin-1", "ascii"]
# The longest output of one character (or of one U+FFFD): a supplementary
# character is 6 bytes of CESU-8 or MUTF-8.
LONGEST_CHARACTER = 6

texts = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0xFF), st.characters(codec="utf-8"),
        st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
    ),
    max_size=60,
)


@st.composite
def inputs(draw: st.DrawFn, form: str) -> bytes:
    """Text in `form`, or in another, damaged now and then; or random bytes."""
    if draw(st.integers(0, 3)) == 0:
        return draw(st.binary(max_size=100))
    text = draw(texts)
    written_in = draw(st.sampled_from([form, form, "utf-8", "utf-16-le"]))
    if written_in in ("wtf-8", "cesu-8", "mutf-8"):
        data = utfkit.encode(text, written_in)
    else:
        data = text.encode(written_in, "replace")
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=3)) + data[at:]
    return data


def converted_in_pieces(data: bytes, from_: str, to: str, size: int, errors: str, cuts: list) -> bytes:
    """A fixed-buffer loop: the input arrives in pieces cut at `cuts`; each
    is passed with what was left unconsumed before, final=False but for the
    last; what each call writes is taken out of the buffer."""
    out = bytearray(size)
    output, pending = [], b""
    bounds = sorted(set(cuts)) + [len(data)]
    start = 0
    for index, end in enumerate(bounds):
        pending += data[start:end]
        start = end
        final = index == len(bounds) - 1
        while True:
            consumed, written = utfkit.transcode_partial(pending, from_, to, out, errors, final)
            output.append(bytes(out[:written]))
            pending = pending[consumed:]
            if consumed == 0 and written == 0:
                break
    assert pending == b"", "the last call, final=True, left input unconsumed"
    return b"".join(output)


@given(data=st.data(), from_=st.sampled_from(FIXED_FORMS), to=st.sampled_from(FIXED_FORMS),
       errors=st.sampled_from(["replace", "ignore"]))
def test_repeated_calls_give_transcodes_output_whatever_the_buffer_and_the_cuts(data, from_, to, errors):
    source = data.draw(inputs(from_))
    size = data.draw(st.integers(LONGEST_CHARACTER, 80))
    cuts = data.draw(st.lists(st.integers(0, len(source)), max_size=4))
    assert converted_in_pieces(source, from_, to, size, errors, cuts) == utfkit.transcode(source, from_, to, errors)


@pytest.mark.parametrize("from_", ["utf-8", "utf-16-le", "utf-32-be", "latin-1", "cesu-8"])
@pytest.mark.parametrize("to", ["utf-8", "utf-16-be", "utf-32-le", "latin-1", "mutf-8"])
def test_every_output_size_and_every_cut(from_, to):
    text = "aé€😀\x00z"
    source = utfkit.encode(text, from_, "replace") if from_ == "cesu-8" else text.encode(from_, "replace")
    expected = utfkit.transcode(source, from_, to, "replace")
    for size in range(LONGEST_CHARACTER, len(expected) + 2):
        for cut in range(len(source) + 1):
            assert converted_in_pieces(source, from_, to, size, "replace", [cut]) == expected


@given(data=st.data(), from_=st.sampled_from(CPYTHON_FIXED_FORMS), to=st.sampled_from(CPYTHON_FIXED_FORMS))
def test_a_strict_error_is_raised_where_transcode_raises_it(data, from_, to):
    source = data.draw(inputs(from_))
    size = data.draw(st.integers(LONGEST_CHARACTER, 40))
    cuts = data.draw(st.lists(st.integers(0, len(source)), max_size=3))
    try:
        expected = utfkit.transcode(source, from_, to)
    except UnicodeDecodeError as error:
        expected_error = (error.start, error.end, error.reason)
    except UnicodeEncodeError:
        return  # (positions in the text; checked below on their own)
    else:
        assert converted_in_pieces(source, from_, to, size, "strict", cuts) == expected
        return
    # Offsets of each call's error, moved by what earlier calls consumed.
    out = bytearray(size)
    pending, offset, start = b"", 0, 0
    bounds = sorted(set(cuts)) + [len(source)]
    with pytest.raises(UnicodeError) as raised:  # noqa: PT012 (a loop of calls)
        for index, end in enumerate(bounds):
            pending += source[start:end]
            start = end
            while True:
                consumed, written = utfkit.transcode_partial(pending, from_, to, out, "strict",
                                                             index == len(bounds) - 1)
                pending, offset = pending[consumed:], offset + consumed
                if consumed == 0 and written == 0:
                    break
    error = raised.value
    if isinstance(error, UnicodeEncodeError):
        # Calls convert in order: a character `to` cannot encode that comes
        # before the ill-formed subsequence is met first (transcode, like
        # CPython's decode().encode(), decodes everything first).
        with pytest.raises(UnicodeEncodeError):
            source[: expected_error[0]].decode(from_).encode(to)
        return
    assert (offset + error.start, offset + error.end, error.reason) == expected_error


UTF8_FAMILY_FORMS = ["wtf-8", "cesu-8", "mutf-8"]


def strict_error_in_pieces(source: bytes, from_: str, to: str, size: int, cuts: list) -> tuple:
    """The fixed-buffer loop of converted_in_pieces with errors="strict":
    the first error raised, its positions counted from the start of the
    whole input."""
    out = bytearray(size)
    pending, offset, start = b"", 0, 0
    bounds = sorted(set(cuts)) + [len(source)]
    try:
        for index, end in enumerate(bounds):
            pending += source[start:end]
            start = end
            while True:
                consumed, written = utfkit.transcode_partial(pending, from_, to, out, "strict",
                                                             index == len(bounds) - 1)
                pending, offset = pending[consumed:], offset + consumed
                if consumed == 0 and written == 0:
                    break
    except UnicodeDecodeError as error:
        return (offset + error.start, offset + error.end, error.reason)
    raise AssertionError("no error raised")


@given(data=st.data(), from_=st.sampled_from(UTF8_FAMILY_FORMS),
       to=st.sampled_from(["utf-8", "utf-16-le", "utf-32-be"]))
def test_a_strict_error_of_the_utf8_family_is_raised_where_transcode_raises_it(data, from_, to):
    # CPython has no codec for these forms: transcode is the oracle.
    source = data.draw(inputs(from_))
    size = data.draw(st.integers(LONGEST_CHARACTER, 40))
    cuts = data.draw(st.lists(st.integers(0, len(source)), max_size=3))
    try:
        expected = utfkit.transcode(source, from_, to)
    except UnicodeDecodeError as error:
        assert strict_error_in_pieces(source, from_, to, size, cuts) == (error.start, error.end, error.reason)
    except UnicodeEncodeError:
        return
    else:
        assert converted_in_pieces(source, from_, to, size, "strict", cuts) == expected


LEAD_SURROGATE = b"\xed\xa0\x80"  # U+D800 as a surrogate byte sequence (WTF-8 section 4.2)
TRAIL_SURROGATE = b"\xed\xb0\x80"  # U+DC00


@pytest.mark.parametrize("before", [b"", b"a" * 61, b"a" * 70])
@pytest.mark.parametrize("after", [b"\xff", b"\x80", b"z\xff"])
@pytest.mark.parametrize("size", [LONGEST_CHARACTER, 8, 64, 200])
def test_a_wtf8_surrogate_pair_before_a_later_error_is_the_error(before, after, size):
    # WTF-8 section 4.3: a pair is one 4-byte sequence, so the trail of a
    # pair written as two is the first error; a call that starts at the
    # trail would read it as a lone surrogate and miss it.
    source = before + LEAD_SURROGATE + TRAIL_SURROGATE + after
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(source, "wtf-8", "utf-16-le")
    expected = (raised.value.start, raised.value.end, raised.value.reason)
    assert expected[0] == len(before) + 3
    assert strict_error_in_pieces(source, "wtf-8", "utf-16-le", size, []) == expected


@pytest.mark.parametrize("to", ["utf-8", "utf-16-le", "utf-32-le"])
def test_a_lone_ed_byte_before_a_character_is_cut_off_at_the_smallest_buffer(to):
    # ED followed by C3 is a maximal subpart alone (Table 3-7): the loop
    # can stop after its U+FFFD when the character after it does not fit.
    source = b"\xff\x61\xff\xed\xc3\xa9"
    size = max(len("\ufffd".encode(to)), len("\xe9".encode(to)))  # the longest single character here
    assert converted_in_pieces(source, "wtf-8", to, size, "replace", []) == utfkit.transcode(
        source, "wtf-8", to, "replace")


def test_final_false_leaves_an_unfinished_character_for_the_next_call():
    out = bytearray(16)
    assert utfkit.transcode_partial("aé".encode()[:2], "utf-8", "utf-16-le", out, final=False) == (1, 2)
    assert utfkit.transcode_partial(b"\xe2\x82", "utf-8", "utf-16-le", out, final=False) == (0, 0)
    assert utfkit.transcode_partial("😀".encode("utf-16-le")[:2], "utf-16-le", "utf-8", out, final=False) == (0, 0)
    assert utfkit.transcode_partial(b"ab\x00", "utf-32-le", "utf-8", out, final=False) == (0, 0)
    assert utfkit.transcode_partial(b"a\xe2\x82", "utf-8", "utf-16-le", out, final=True) == (1, 2)
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode_partial(b"\xe2\x82", "utf-8", "utf-16-le", out, final=True)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (0, 2, "unexpected end of data")


def test_the_text_before_a_strict_error_is_converted_first():
    out = bytearray(16)
    assert utfkit.transcode_partial(b"abc\xffdef", "utf-8", "latin-1", out) == (3, 3)
    assert bytes(out[:3]) == b"abc"
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode_partial(b"\xffdef", "utf-8", "latin-1", out)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (0, 1, "invalid start byte")


def test_a_character_the_destination_cannot_encode_raises_cpythons_encode_error():
    out = bytearray(16)
    assert utfkit.transcode_partial("ab€c".encode(), "utf-8", "latin-1", out) == (2, 2)
    with pytest.raises(UnicodeEncodeError) as raised:
        utfkit.transcode_partial("€€c".encode(), "utf-8", "latin-1", out)
    error = raised.value
    assert (error.encoding, error.object, error.start, error.end, error.reason) == (
        "latin-1", "€€c", 0, 2, "ordinal not in range(256)")


def test_out_too_small_for_the_next_character_consumes_nothing():
    assert utfkit.transcode_partial("😀".encode(), "utf-8", "utf-16-le", bytearray(3)) == (0, 0)
    out = bytearray(5)
    assert utfkit.transcode_partial("a😀".encode(), "utf-8", "utf-16-le", out) == (1, 2)


def test_byte_order_mark_forms_and_bad_buffers_are_refused():
    out = bytearray(8)
    for from_, to in [("utf-16", "utf-8"), ("utf-8", "utf-32"), ("utf-8-sig", "utf-8")]:
        with pytest.raises(ValueError, match="byte-order-mark"):
            utfkit.transcode_partial(b"ab", from_, to, out)
    buffer = bytearray(b"abcdefgh")
    with pytest.raises(ValueError, match="overlaps"):
        utfkit.transcode_partial(memoryview(buffer)[:4], "utf-8", "utf-8", memoryview(buffer)[2:])
    with pytest.raises(TypeError):
        utfkit.transcode_partial(b"ab", "utf-8", "utf-8", 42)
    with pytest.raises(LookupError):
        utfkit.transcode_partial(b"ab", "utf-8", "koi8-r", out)


def every_size_and_cut(source: bytes, from_: str, to: str, errors: str = "replace") -> None:
    """The fixed-buffer loop at every buffer size from the longest single
    character's output up, with no cut and with a cut at every byte."""
    expected = utfkit.transcode(source, from_, to, errors)
    for size in range(LONGEST_CHARACTER, len(expected) + 2):
        assert converted_in_pieces(source, from_, to, size, errors, []) == expected, size
    for cut in range(len(source) + 1):
        assert converted_in_pieces(source, from_, to, LONGEST_CHARACTER, errors, [cut]) == expected, cut


CESU8_LEAD_SURROGATE = b"\xed\xa0\xb5"  # U+D835 (UTR #26)


@pytest.mark.parametrize("before", [b"", b"a" * 61, b"a" * 70])
@pytest.mark.parametrize("after", [b"\xed\x00z", b"\xed\xb4 z", b"\xed\xb4", b"\xed"])
def test_cesu8_lead_surrogate_and_an_ed_that_ends_early_are_replaced_as_transcode_replaces_them(before, after):
    # Followed by a byte that ends it, the ED (or ED B0..BF) after a lead is
    # a maximal subpart of its own: two U+FFFD; at the end of the input, the
    # pair cut short is one.  A piece must not end between the two.
    every_size_and_cut(before + CESU8_LEAD_SURROGATE + after + before, "cesu-8", "utf-32-be")


@pytest.mark.parametrize("from_", ["mutf-8", "wtf-8"])
@pytest.mark.parametrize("trail_begun", [b"\xed", b"\xed\xb4"])
@pytest.mark.parametrize("before", [b"", b"a" * 61, b"a" * 70])
def test_a_lead_surrogate_before_a_trail_cut_off_by_the_end_makes_progress_in_the_smallest_buffer(
        from_, trail_begun, before):
    # The lone lead and the trail begun are two U+FFFD (8 bytes of UTF-32):
    # a buffer for one (LONGEST_CHARACTER) must do, one call each.
    every_size_and_cut(before + CESU8_LEAD_SURROGATE + trail_begun, from_, "utf-32-be")


@pytest.mark.parametrize("before", [b"", b"a" * 61, b"a" * 70])
def test_a_wtf8_lead_and_trail_sequence_into_utf32_make_progress_in_the_smallest_buffer(before):
    # WTF-8 section 4.3: a pair written as two 3-byte sequences is ill-formed;
    # UTF-32 takes no lone surrogate either: two U+FFFD, in two calls.
    every_size_and_cut(before + b"\xed\xa0\xbd\xed\xba\x80z" + before, "wtf-8", "utf-32-le")


def test_an_rfc2279_lead_byte_its_next_byte_does_not_continue_makes_progress_in_the_smallest_buffer():
    # F0 8F is overlong (seed 004): F0, then each continuation byte, is a
    # U+FFFD of its own (16 bytes of UTF-32 for the four).
    every_size_and_cut(b"ok\xf0\x8f\x80\x80ok", "utf-8-rfc2279", "utf-32-le")


def text_before_strict_error_in_pieces(source: bytes, from_: str, to: str, size: int) -> bytes:
    """The output of the fixed-buffer loop with errors="strict", final=True,
    up to the error it raises."""
    out = bytearray(size)
    output, pending = [], source
    with pytest.raises(UnicodeDecodeError):
        while True:
            consumed, written = utfkit.transcode_partial(pending, from_, to, out, "strict", True)
            output.append(bytes(out[:written]))
            pending = pending[consumed:]
            assert consumed or written, "no progress and no error"
    return b"".join(output)


@pytest.mark.parametrize("before", [b"ab", b"a" * 61, b"a" * 70])
def test_a_mutf8_lead_surrogate_before_a_strict_error_at_a_trail_cut_off_is_converted_first(before):
    # The lone lead (UTF-16 takes it) is text before the error at the trail
    # begun, which the end of the input cuts off.
    source = before + CESU8_LEAD_SURROGATE + b"\xed\xba"
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(source, "mutf-8", "utf-16-be")
    assert raised.value.start == len(before) + 3
    expected = utfkit.transcode(source[: raised.value.start], "mutf-8", "utf-16-be")
    for size in range(LONGEST_CHARACTER, len(expected) + 2):
        assert text_before_strict_error_in_pieces(source, "mutf-8", "utf-16-be", size) == expected, size


# ---- surrogates that pairs join or split (WTF-8 sections 4.3 and 6.1, UTR #26)

SURROGATE_SOURCES = ["wtf-8", "mutf-8", "cesu-8", "utf-16-le", "utf-16-be"]
@given(data=st.data(), from_=st.sampled_from(SURROGATE_SOURCES), to=st.sampled_from(FIXED_FORMS),
       errors=st.sampled_from(["replace", "ignore"]))
def test_repeated_calls_join_and_split_surrogates_as_transcode_does(data, from_, to, errors):
    # WTF-8 section 6.1: the one-shot writer joins a lone lead and a trail
    # that only dropped bytes separate; no cut and no buffer size may undo it.
    source = data.draw(surrogate_laden(from_))
    size = data.draw(st.integers(LONGEST_CHARACTER, 12))
    cuts = data.draw(st.lists(st.integers(0, len(source)), max_size=4))
    assert converted_in_pieces(source, from_, to, size, errors, cuts) == utfkit.transcode(source, from_, to, errors)


@given(data=st.data(), from_=st.sampled_from(SURROGATE_SOURCES),
       to=st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "wtf-8", "mutf-8", "cesu-8"]))
def test_a_strict_error_among_surrogates_is_raised_where_transcode_raises_it(data, from_, to):
    # WTF-8 section 4.3: a pair written as two 3-byte sequences is ill-formed
    # at its trail, which a call starting at the trail would read as lone.
    source = data.draw(surrogate_laden(from_))
    size = data.draw(st.integers(LONGEST_CHARACTER, 12))
    cuts = data.draw(st.lists(st.integers(0, len(source)), max_size=4))
    try:
        expected = utfkit.transcode(source, from_, to)
    except UnicodeDecodeError as error:
        assert strict_error_in_pieces(source, from_, to, size, cuts) == (error.start, error.end, error.reason)
    else:
        assert converted_in_pieces(source, from_, to, size, "strict", cuts) == expected


@pytest.mark.parametrize("from_", ["wtf-8", "mutf-8"])
@pytest.mark.parametrize("dropped", [b"\xff", b"\xff" * 70, b"\xed\xb0", b"\xc0" * 3])
def test_a_lead_and_a_trail_that_dropped_bytes_separate_are_joined_at_every_size_and_cut(from_, dropped):
    # The session-5 stream defect, in transcode_partial: a cut after the
    # dropped bytes wrote ED A0 80 ED B0 80, which is not WTF-8.
    source = b"ab" + LEAD_SURROGATE + dropped + TRAIL_SURROGATE + b"cd"
    assert utfkit.transcode(source, from_, "wtf-8", "ignore") == b"ab\xf0\x90\x80\x80cd"
    every_size_and_cut(source, from_, "wtf-8", "ignore")


def test_with_final_false_a_lead_before_dropped_bytes_waits_for_what_follows():
    out = bytearray(16)
    source = b"a" + LEAD_SURROGATE + b"\xff\xff"
    assert utfkit.transcode_partial(source, "wtf-8", "wtf-8", out, "ignore", final=False) == (1, 1)
    assert utfkit.transcode_partial(source[1:], "wtf-8", "wtf-8", out, "ignore", final=False) == (0, 0)
    consumed, written = utfkit.transcode_partial(source[1:] + TRAIL_SURROGATE, "wtf-8", "wtf-8", out, "ignore")
    assert (consumed, bytes(out[:written])) == (8, b"\xf0\x90\x80\x80")

