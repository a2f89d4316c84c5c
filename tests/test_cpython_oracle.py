"""utfkit against CPython's UTF-8 codec: properties over structured random
inputs, and exhaustive loops where the input space is small enough."""

from __future__ import annotations

import codecs
import itertools

import pytest
from hypothesis import example, given

import utfkit
from utf8_oracle import (
    ERROR_HANDLERS,
    assert_agrees_with_cpython,
    assert_no_disagreements,
    cpython_decode_outcome,
    cpython_error,
    utfkit_decode_outcome,
    utfkit_error,
)
from utf8_strategies import utf8_inputs, well_formed_runs

EDGE_EXAMPLES = [
    b"",
    b"\x00",
    b"\x7f\x80",
    b"\xc2",
    b"\xe0\x9f\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf0\x9f\x98",
    "a😀é€".encode() + b"\xff",
]


def with_edge_examples(test):
    for data in EDGE_EXAMPLES:
        test = example(data=data)(test)
    return test


# ---- properties --------------------------------------------------------------------
@given(data=utf8_inputs)
@with_edge_examples
def test_validate_iff_cpython_decodes(data):
    assert utfkit.validate(data) is (cpython_error(data) is None)


@given(data=utf8_inputs)
@with_edge_examples
def test_check_raises_cpythons_error(data):
    assert utfkit_error(data) == cpython_error(data)


@pytest.mark.parametrize("errors", ERROR_HANDLERS)
@given(data=utf8_inputs)
@with_edge_examples
def test_decode_equals_cpython_for_each_error_handler(errors, data):
    outcome = utfkit_decode_outcome(data, errors)
    assert outcome == cpython_decode_outcome(data, errors)
    if outcome[0] == "returned":
        assert type(outcome[1]) is str


@given(data=utf8_inputs)
@with_edge_examples
def test_sanitize_output_is_always_valid(data):
    sanitized = utfkit.sanitize(data)
    assert type(sanitized) is bytes
    assert utfkit.validate(sanitized) is True
    sanitized.decode("utf-8")  # CPython agrees it is well-formed


@given(data=utf8_inputs)
@with_edge_examples
def test_sanitize_is_idempotent(data):
    once = utfkit.sanitize(data)
    assert utfkit.sanitize(once) == once


@given(data=utf8_inputs)
@with_edge_examples
def test_sanitize_equals_cpython_replace_round_trip(data):
    assert utfkit.sanitize(data) == data.decode("utf-8", "replace").encode("utf-8")


@given(data=well_formed_runs)
def test_sanitize_returns_well_formed_bytes_unchanged_and_uncopied(data):
    assert utfkit.sanitize(data) is data


@given(data=utf8_inputs)
@with_edge_examples
def test_valid_up_to_is_the_first_error_start(data):
    error = cpython_error(data)
    prefix = utfkit.valid_up_to(data)
    assert prefix == (len(data) if error is None else error[0])
    assert utfkit.validate(data[:prefix]) is True


@given(data=utf8_inputs)
@with_edge_examples
def test_count_equals_length_of_replace_decoding(data):
    assert utfkit.count(data) == len(data.decode("utf-8", "replace"))


@given(left=utf8_inputs, right=utf8_inputs)
def test_concatenation_of_well_formed_strings_is_well_formed(left, right):
    """D86 partitioning: well-formedness is closed under concatenation."""
    left, right = utfkit.sanitize(left), utfkit.sanitize(right)
    assert utfkit.validate(left + right) is True
    assert utfkit.count(left + right) == utfkit.count(left) + utfkit.count(right)


# ---- exhaustive -----------------------------------------------------------------------
def test_every_single_byte_agrees_with_cpython():
    assert_no_disagreements(bytes([value]) for value in range(256))


def test_every_two_byte_sequence_agrees_with_cpython():
    assert_no_disagreements(bytes([first, second]) for first in range(256) for second in range(256))


# Byte values on either side of every range edge in Table 3-7.
EDGE_BYTES = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xF4, 0xF5, 0xFF]
THREE_AND_FOUR_BYTE_LEADS = [0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7]


def test_every_second_byte_after_each_lead_with_edge_third_bytes_agrees_with_cpython():
    assert_no_disagreements(
        bytes([lead, second, third])
        for lead in THREE_AND_FOUR_BYTE_LEADS
        for second in range(256)
        for third in EDGE_BYTES
    )


def test_four_byte_sequences_of_edge_bytes_agree_with_cpython():
    leads = [0xF0, 0xF1, 0xF3, 0xF4, 0xF5]
    assert_no_disagreements(
        bytes([lead, *rest]) for lead in leads for rest in itertools.product(EDGE_BYTES, repeat=3)
    )


# One character from the low and high end of each Table 3-7 row.
TABLE_3_7_CHARACTERS = [
    chr(cp).encode()
    for cp in (0x00, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xCFFF, 0xD000, 0xD7FF,
               0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0xFFFFF, 0x100000, 0x10FFFF)
]  # fmt: skip


def test_every_byte_value_in_every_position_of_each_table_3_7_row_agrees_with_cpython():
    def mutations():
        for character in TABLE_3_7_CHARACTERS:
            for position in range(len(character)):
                for value in range(256):
                    mutated = bytearray(character)
                    mutated[position] = value
                    yield bytes(mutated)
                    yield b"x" + bytes(mutated) + b"\xc3\xa9"

    assert_no_disagreements(mutations())


def test_every_truncation_of_mixed_text_agrees_with_cpython():
    text = "aé€😀\U0010ffff\u0800\x7f\u07ff".encode() * 3
    assert_no_disagreements(text[:cut] for cut in range(len(text) + 1))
    assert_no_disagreements(text[:cut] + b"z" for cut in range(len(text) + 1))
    assert_no_disagreements(text[cut:] for cut in range(len(text) + 1))


# ---- decode: handlers beyond the standard six ------------------------------------------
def _mark_and_skip_one_byte_past_the_subpart(exc):
    """A handler that resumes elsewhere than the end of the maximal subpart."""
    return ("<%d:%d>" % (exc.start, exc.end), min(exc.end + 1, len(exc.object)))


codecs.register_error("utfkit-test-skip-past", _mark_and_skip_one_byte_past_the_subpart)


@pytest.mark.parametrize("errors", ["utfkit-test-skip-past", "xmlcharrefreplace", "namereplace"])
@given(data=utf8_inputs)
def test_decode_with_other_registered_handlers_equals_cpython(errors, data):
    assert utfkit_decode_outcome(data, errors) == cpython_decode_outcome(data, errors)


def test_decode_with_unknown_handler_fails_only_on_an_error():
    assert utfkit.decode("é€".encode(), errors="no-such-handler") == "é€"
    bad = "é".encode() + b"\xff"
    assert utfkit_decode_outcome(bad, "no-such-handler") == cpython_decode_outcome(bad, "no-such-handler")
    with pytest.raises(LookupError):
        utfkit.decode(bad, errors="no-such-handler")


@pytest.mark.parametrize("errors", ERROR_HANDLERS)
def test_decode_of_mixed_sample_equals_cpython(errors):
    sample = b"".join(
        [b"ascii ", "é€😀".encode(), b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b" x ", b"\x80", b"\xf0\x9f\x98"]
    )
    assert_agrees_with_cpython(sample)
    assert utfkit_decode_outcome(sample, errors) == cpython_decode_outcome(sample, errors)
