"""WTF-8, CESU-8 and MUTF-8 against an independent reference
(utf8_family_oracle.py) on structured random input: validation, exact error
positions, conversion to every form with every error mode, lengths, counts,
repair, str decoding with every kind of error handler, and caller buffers
that are too small."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import utf8_family_oracle as oracle
import utfkit
from utf8_family_strategies import utf8_family_bytes

FAMILY = ["wtf-8", "cesu-8", "mutf-8"]
ALL_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"] + FAMILY
ERRORS = ["strict", "replace", "ignore"]

STATUS_OF_REASON_START = {
    oracle.INVALID_START: "invalid start byte",
    oracle.INVALID_CONTINUATION: "invalid continuation byte",
    oracle.END_OF_DATA: "unexpected end of data",
}


def assert_error_is(error: UnicodeDecodeError, expected: oracle.Event, form: str, data: bytes) -> None:
    status, start, end, _ = expected
    assert (error.encoding, error.start, error.end) == (form, start, end), (
        f"{data.hex(' ')}: utfkit reports {error.start}..{error.end} ({error.reason}), "
        f"the reference {start}..{end} ({status})"
    )
    assert error.object == data
    if status in STATUS_OF_REASON_START:
        assert error.reason.startswith(STATUS_OF_REASON_START[status])
    else:
        assert "surrogate" in error.reason


@pytest.mark.parametrize("form", FAMILY)
@given(data=utf8_family_bytes)
def test_check_reports_the_first_ill_formed_subsequence_exactly(form, data):
    expected = oracle.first_error(data, form)
    if expected is None:
        utfkit.check(data, form)
        assert utfkit.validate(data, form)
        assert utfkit.valid_up_to(data, form) == len(data)
        return
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.check(data, form)
    assert_error_is(raised.value, expected, form, data)
    assert not utfkit.validate(data, form)
    assert utfkit.valid_up_to(data, form) == expected[1]


@pytest.mark.parametrize("form", FAMILY)
@settings(max_examples=150)
@given(data=utf8_family_bytes, target=st.sampled_from(ALL_FORMS), errors=st.sampled_from(ERRORS))
def test_transcode_equals_the_reference_conversion(form, data, target, errors):
    expected, error = oracle.transcode(data, form, target, errors)
    if error is not None:
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.transcode(data, form, target, errors)
        assert_error_is(raised.value, error, form, data)
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.transcoded_length(data, form, target, errors)
        assert_error_is(raised.value, error, form, data)
        return
    assert utfkit.transcode(data, form, target, errors) == expected
    assert utfkit.transcoded_length(data, form, target, errors) == len(expected)


@pytest.mark.parametrize("form", FAMILY)
@given(data=utf8_family_bytes)
def test_count_is_the_length_of_the_replace_decode(form, data):
    expected = oracle.decode_replace(data, form)
    assert utfkit.decode(data, form, "replace") == expected
    assert utfkit.count(data, form) == len(expected)


@pytest.mark.parametrize("form", FAMILY)
@given(data=utf8_family_bytes)
def test_decode_with_any_error_handler_calls_it_per_ill_formed_subsequence(form, data):
    """ignore and backslashreplace (the second a handler utfkit does not
    apply itself) see exactly the reference's subsequences."""
    pieces_ignore, pieces_backslash = [], []
    for status, start, end, value in oracle.events(data, form):
        if status == oracle.OK:
            pieces_ignore.append(chr(value))
            pieces_backslash.append(chr(value))
        else:
            pieces_backslash.append("".join(f"\\x{byte:02x}" for byte in data[start:end]))
    assert utfkit.decode(data, form, "ignore") == "".join(pieces_ignore)
    assert utfkit.decode(bytearray(data), form, "backslashreplace") == "".join(pieces_backslash)


@pytest.mark.parametrize("form", FAMILY)
@given(data=utf8_family_bytes)
def test_sanitize_output_is_always_valid(form, data):
    repaired = utfkit.sanitize(data, form)
    assert utfkit.validate(repaired, form)
    assert repaired == oracle.transcode(data, form, form, "replace")[0]
    if utfkit.validate(data, form):
        assert repaired is data


@pytest.mark.parametrize("form", FAMILY)
@given(data=utf8_family_bytes)
def test_decode_then_encode_round_trips_well_formed_input(form, data):
    if oracle.first_error(data, form) is not None:
        return
    text = utfkit.decode(data, form)
    assert utfkit.encode(text, form) == data


def test_a_custom_error_handler_gets_the_positions_and_may_resume_anywhere():
    seen = []

    def handler(error):
        seen.append((error.encoding, error.start, error.end, error.reason))
        return "<%d>" % error.start, error.end + 1  # skip one byte more

    codecs.register_error("utfkit-test-skip-one-more", handler)
    data = b"a\xffbc\xed\xa0\x80d"
    assert utfkit.decode(data, "cesu-8", "utfkit-test-skip-one-more") == "a<1>c<4>"
    assert seen == [
        ("cesu-8", 1, 2, "invalid start byte"),
        ("cesu-8", 4, 7, "unpaired lead surrogate byte sequence"),
    ]


def test_an_unknown_error_handler_is_looked_up_only_when_an_error_is_met():
    assert utfkit.decode(b"abc", "wtf-8", "no-such-handler") == "abc"
    with pytest.raises(LookupError):
        utfkit.decode(b"a\xff", "wtf-8", "no-such-handler")


# ---- out=: too small, exact, guard bytes ------------------------------------------------

SENTINEL = 0xFF  # never a byte of UTF-8, WTF-8, CESU-8 or MUTF-8 output
GUARD = 16


@pytest.mark.parametrize("form", FAMILY)
@settings(max_examples=25)
@given(data=utf8_family_bytes, target=st.sampled_from(ALL_FORMS), errors=st.sampled_from(["replace", "ignore"]))
def test_out_of_every_capacity_never_writes_past_its_end(form, data, target, errors):
    expected = utfkit.transcode(data, form, target, errors)
    eight_bit = target in FAMILY or target == "utf-8"
    for capacity in range(len(expected) + 2):
        buffer = bytearray([SENTINEL]) * (capacity + GUARD)
        out = memoryview(buffer)[:capacity]
        if capacity < len(expected):
            with pytest.raises(ValueError, match=str(len(expected))):
                utfkit.transcode(data, form, target, errors, out=out)
            out.release()
            assert buffer[capacity:] == bytes([SENTINEL]) * GUARD, "wrote past the end of out"
            if eight_bit:  # a prefix of whole characters, then untouched bytes
                written = len(bytes(buffer[:capacity]).rstrip(bytes([SENTINEL])))
                assert buffer[:written] == expected[:written]
                assert written == len(expected) or not 0x80 <= expected[written] <= 0xBF
        else:
            assert utfkit.transcode(data, form, target, errors, out=out) == len(expected)
            out.release()
            assert buffer[: len(expected)] == expected
            assert buffer[capacity:] == bytes([SENTINEL]) * GUARD


@pytest.mark.parametrize("form", FAMILY)
def test_names_are_read_as_the_codecs_module_reads_them(form):
    data = "a\u00e9".encode()
    for spelling in (form.upper(), form.replace("-", "_"), form.replace("-", " "), form.replace("-", "")):
        assert utfkit.validate(data, spelling)
        assert utfkit.transcode(data, spelling, "utf-8") == data


def test_wrong_types_and_unknown_names_raise_the_standard_errors():
    with pytest.raises(TypeError, match="str"):
        utfkit.validate("text", "wtf-8")
    with pytest.raises(TypeError):
        utfkit.encode(b"bytes", "cesu-8")
    with pytest.raises(LookupError):
        utfkit.validate(b"", "wtf-16")


def test_cli_check_finds_a_wtf8_pair_split_by_its_read_chunks(tmp_path):
    """`utfkit check -e wtf-8` reads 1 MiB chunks: a lead surrogate ending
    one chunk is carried, so the trail starting the next is reported."""
    import subprocess
    import sys

    from utfkit.cli import CHUNK_SIZE

    path = tmp_path / "names.wtf8"
    head = b"line1\n" + b"x" * (CHUNK_SIZE - 9)
    path.write_bytes(head + b"\xed\xa0\xbd\xed\xb2\xa9\n")
    result = subprocess.run([sys.executable, "-m", "utfkit", "check", "-e", "wtf-8", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    offset = len(head) + 3
    column = (CHUNK_SIZE - 9) + 1 + 1  # the x's and the lead are characters before it
    assert f":2:{column}: offset {offset}: surrogate pair byte sequence" in result.stdout
    for form in ("mutf-8", "cesu-8"):  # the pair joins there
        result = subprocess.run([sys.executable, "-m", "utfkit", "check", "-e", form, str(path)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
