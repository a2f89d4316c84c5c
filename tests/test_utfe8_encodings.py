"""UTF-E-8 (seed 002) and the original ISO 10646 / RFC 2279 UTF-8 (seed 004)
as encodings like the others (issue 15): the names ``utf-e-8`` and
``utf-8-rfc2279`` in every byte-level call, conversion to and from UTF-8,
UTF-16 and UTF-32, ``decode`` to ``str``, ``Validator``, ``utfkit check -e``,
and ``utfe8_decode`` / ``utfe8_encode`` with ``limit``.

Oracles: the seeds' tables, Perl 5's extended ``utf8`` (a 64-bit build of
perl writes and reads UTF-E-8), CPython's codecs for the Unicode side, and
the reference of utfe8_reference.py for the error cuts.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from typing import Dict, List

import pytest
from hypothesis import given
from hypothesis import strategies as st
from utfe8_reference import (
    BOUNDARIES,
    MAX,
    RFC2279_MAX,
    code_points,
    is_scalar_value,
    reference_decode,
    reference_encode,
    utfe8_bytes,
)

import utfkit

UTFE8 = "utf-e-8"
RFC2279 = "utf-8-rfc2279"
LIMITS = {UTFE8: MAX, RFC2279: RFC2279_MAX}
UNICODE_FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]

# ---- seed 002 section 4: each example, in both encodings ----------------------------------------

SEED_EXAMPLES = [
    (0x41, "41"),
    (0x10FFFF, "F4 8F BF BF"),
    (0x110000, "F4 90 80 80"),
    (0x7FFFFFFF, "FD BF BF BF BF BF"),
    (0x80000000, "FE 82 80 80 80 80 80"),
    (0xFFFFFFFFF, "FE BF BF BF BF BF BF"),
    (0x1000000000, "FF 80 80 80 80 80 81 80 80 80 80 80 80"),
    (0x7FFFFFFFFFFFFFFF, "FF 80 87 BF BF BF BF BF BF BF BF BF BF"),
]


@pytest.mark.parametrize("code_point, hex_bytes", SEED_EXAMPLES)
@pytest.mark.parametrize("encoding", [UTFE8, RFC2279])
def test_seed_002_examples_as_encodings(encoding, code_point, hex_bytes):
    data = b"x" + bytes.fromhex(hex_bytes) + b"y"
    well_formed = code_point <= LIMITS[encoding]
    assert utfkit.validate(data, encoding) is well_formed
    assert utfkit.valid_up_to(data, encoding) == (len(data) if well_formed else 1)
    if well_formed:
        utfkit.check(data, encoding)
        assert utfkit.count(data, encoding) == 3
        assert utfkit.sanitize(data, encoding) == data
        assert utfkit.transcode(data, encoding, encoding) == data
    else:  # seed 004: "The bytes 0xFE and 0xFF are never used"
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(data, encoding)
        error = raised.value
        assert (error.encoding, error.start, error.end) == (RFC2279, 1, 2)
        assert error.reason == "code point above U+7FFFFFFF"
    # out to a str or a Unicode form: only Unicode scalar values
    if is_scalar_value(code_point):
        assert utfkit.decode(data, encoding) == f"x{chr(code_point)}y"
        assert utfkit.transcode(data, encoding, "utf-32-le") == f"x{chr(code_point)}y".encode("utf-32-le")
    elif well_formed:
        assert utfkit.decode(data, encoding, "replace") == "x\ufffdy"
        assert utfkit.transcode(data, encoding, "utf-16-be", "ignore") == "xy".encode("utf-16-be")


# ---- seed 004: Kuhn's overlong examples ---------------------------------------------------------------

# U+000A in each of its five overlong forms, cut where the shortest-form rule
# decides (the lead byte alone: no byte after it can make it shortest)
KUHN_OVERLONG_LINE_FEEDS = [
    ("C0 8A", "invalid start byte"),
    ("E0 80 8A", "invalid continuation byte"),
    ("F0 80 80 8A", "invalid continuation byte"),
    ("F8 80 80 80 8A", "invalid continuation byte"),
    ("FC 80 80 80 80 8A", "invalid continuation byte"),
]


@pytest.mark.parametrize("hex_bytes, reason", KUHN_OVERLONG_LINE_FEEDS)
@pytest.mark.parametrize("encoding", [UTFE8, RFC2279])
def test_kuhn_overlong_forms_are_ill_formed(encoding, hex_bytes, reason):
    data = bytes.fromhex(hex_bytes)
    assert not utfkit.validate(data, encoding)
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.check(data, encoding)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (0, 1, reason)
    # each byte after the lead is a continuation byte with nothing to continue
    assert utfkit.decode(data, encoding, "replace") == "\ufffd" * len(data)
    assert utfkit.sanitize(data, encoding) == b"\xef\xbf\xbd" * len(data)
    with pytest.raises(UnicodeDecodeError):
        utfkit.utfe8_decode(data, limit=LIMITS[encoding])


# Seed 004's overlong patterns, every byte of the first two given: each is
# ill-formed, whatever follows
@pytest.mark.parametrize("lead, second_bytes", [
    (0xC0, range(0x80, 0xC0)), (0xC1, range(0x80, 0xC0)), (0xE0, range(0x80, 0xA0)),
    (0xF0, range(0x80, 0x90)), (0xF8, range(0x80, 0x88)), (0xFC, range(0x80, 0x84)),
    (0xFE, range(0x80, 0x82)),
])
def test_every_overlong_pattern_is_ill_formed(lead, second_bytes):
    for second in second_bytes:
        data = bytes([lead, second]) + b"\xbf" * 11
        for encoding in (UTFE8, RFC2279):
            with pytest.raises(UnicodeDecodeError) as raised:
                utfkit.check(data, encoding)
            assert (raised.value.start, raised.value.end) == (0, 1)


# ---- the RFC 2279 limit at every length boundary ----------------------------------------------------


@pytest.mark.parametrize("code_point", BOUNDARIES)
def test_rfc2279_limit_at_every_boundary(code_point):
    data = utfkit.utfe8_encode([code_point])
    assert data == reference_encode(code_point)
    within = code_point <= RFC2279_MAX
    assert utfkit.validate(data, RFC2279) is within
    assert utfkit.validate(data, UTFE8)
    if within:
        assert utfkit.utfe8_decode(data, limit=RFC2279_MAX).tolist() == [code_point]
        assert utfkit.utfe8_encode([code_point], limit=RFC2279_MAX) == data
        return
    with pytest.raises(ValueError, match="above 0x7fffffff"):
        utfkit.utfe8_encode([code_point], limit=RFC2279_MAX)
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.utfe8_decode(data, limit=RFC2279_MAX)
    assert (raised.value.encoding, raised.value.start, raised.value.end, raised.value.reason) == (
        RFC2279, 0, 1, "code point above U+7FFFFFFF")


def test_limit_cuts_before_the_deciding_byte():
    # F4 90: every completion is above U+10FFFF (as Table 3-7 cuts F4 90)
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.utfe8_decode(b"A\xf4\x90\x80\x80", limit=0x10FFFF)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (1, 2, "code point above U+10FFFF")
    # FD BF: below the 31-bit limit until the last byte cannot say otherwise
    assert utfkit.utfe8_decode(b"\xfd\xbf\xbf\xbf\xbf\xbf", limit=0x7FFFFFFF).tolist() == [0x7FFFFFFF]
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.utfe8_decode(b"\xfd\xbf\xbf\xbf\xbf\xbf", limit=0x7FFFFFFE)
    assert (raised.value.start, raised.value.end) == (0, 5)
    assert utfkit.utfe8_decode(b"\xf4\x90\x80\x80A", errors="replace", limit=0x10FFFF).tolist() == [
        0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0x41]


def test_limit_argument_is_checked():
    with pytest.raises(ValueError):
        utfkit.utfe8_decode(b"", limit=MAX + 1)
    with pytest.raises(ValueError):
        utfkit.utfe8_encode([], limit=-1)
    with pytest.raises(TypeError):
        utfkit.utfe8_decode(b"", limit="0x7FFFFFFF")
    with pytest.raises(TypeError):
        utfkit.utfe8_encode([], limit=1.0)


@given(data=utfe8_bytes, limit=st.one_of(st.sampled_from([0x10FFFF, 0xFFFF, RFC2279_MAX, MAX]),
                                         st.sampled_from(BOUNDARIES).filter(lambda b: b >= 0x10FFFF),
                                         st.integers(0x10FFFF, MAX)))
def test_decode_with_a_limit_cuts_as_the_reference(data, limit):
    expected = reference_decode(data, limit)
    assert utfkit.utfe8_decode(data, "replace", limit=limit).tolist() == [
        item[0] if isinstance(item[0], int) else 0xFFFD for item in expected]
    errors = [item for item in expected if not isinstance(item[0], int)]
    if not errors:
        assert utfkit.utfe8_encode(utfkit.utfe8_decode(data, limit=limit), limit=limit) == data
        return
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.utfe8_decode(data, limit=limit)
    assert (raised.value.reason, raised.value.start, raised.value.end) == errors[0]


# ---- every byte-level call, against the reference ----------------------------------------------------


@pytest.mark.parametrize("encoding", [UTFE8, RFC2279])
@given(data=utfe8_bytes)
def test_byte_level_calls_follow_the_reference(encoding, data):
    expected = reference_decode(data, LIMITS[encoding])
    errors = [item for item in expected if not isinstance(item[0], int)]
    assert utfkit.validate(data, encoding) is not errors
    assert utfkit.validate(bytearray(data), encoding.upper().replace("-", "_")) is not errors
    assert utfkit.valid_up_to(data, encoding) == (errors[0][1] if errors else len(data))
    assert utfkit.count(data, encoding) == len(expected)
    if errors:
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.check(memoryview(data), encoding)
        assert (raised.value.encoding, raised.value.reason, raised.value.start, raised.value.end) == (
            encoding, *errors[0])
    else:
        utfkit.check(data, encoding)
    # sanitize: each maximal subpart becomes U+FFFD, the rest stays as it was
    assert utfkit.sanitize(data, encoding) == b"".join(
        data[start:end] if isinstance(item, int) else b"\xef\xbf\xbd" for item, start, end in expected)
    assert utfkit.transcoded_length(data, encoding, encoding, "ignore") == sum(
        end - start for item, start, end in expected if isinstance(item, int))


@pytest.mark.skipif(not hasattr(utfkit, "iter_errors"), reason="iter_errors is not in this build yet (issue 12)")
@pytest.mark.parametrize("encoding", [UTFE8, RFC2279])
@given(data=utfe8_bytes)
def test_iter_errors_yields_every_maximal_subpart_of_the_reference(encoding, data):
    expected = [item for item in reference_decode(data, LIMITS[encoding]) if not isinstance(item[0], int)]
    found = [(error.reason, error.start, error.end) for error in utfkit.iter_errors(data, encoding)]
    assert found == expected


def decided_at(data: bytes, limit: int) -> int:
    """The length of the shortest prefix of `data` that no bytes after it can
    make well-formed (len(data) + 1 when only its end decides that)."""
    for length in range(1, len(data) + 1):
        errors = [item for item in reference_decode(data[:length], limit) if not isinstance(item[0], int)]
        if errors and not (errors[0][0] == "unexpected end of data" and errors[0][2] == length):
            return length
    return len(data) + 1


@pytest.mark.parametrize("encoding", [UTFE8, RFC2279])
@given(data=utfe8_bytes, cuts=st.lists(st.integers(0, 200), max_size=6))
def test_validator_fails_fast_where_check_fails(encoding, data, cuts):
    expected = reference_decode(data, LIMITS[encoding])
    errors = [item for item in expected if not isinstance(item[0], int)]
    validator = utfkit.Validator(encoding)
    bounds = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    before = after = 0  # bytes fed before the call and with it (finish: len(data) + 1)
    try:
        for begin, end in zip(bounds, bounds[1:]):
            before, after = begin, end
            validator.feed(data[begin:end])
        before, after = len(data), len(data) + 1
        validator.finish()
    except UnicodeDecodeError as error:
        assert errors and (error.reason, error.start, error.end) == errors[0]
        # fail-fast (RFC 6455 section 8.1): raised by the very call that
        # delivered the byte deciding it (finish, for a sequence cut short)
        assert before < decided_at(data, LIMITS[encoding]) <= after
        assert validator.offset == before
    else:
        assert not errors and validator.offset == len(data)


@pytest.mark.parametrize("source, target", [(UTFE8, "utf-16-le"), (UTFE8, RFC2279), (RFC2279, UTFE8),
                                            (RFC2279, "utf-8")])
@pytest.mark.parametrize("errors", ["strict", "replace", "ignore"])
@given(data=utfe8_bytes, cuts=st.lists(st.integers(0, 200), max_size=6))
def test_incremental_transcoder_equals_one_shot_however_split(source, target, errors, data, cuts):
    try:
        whole = utfkit.transcode(data, source, target, errors)
    except UnicodeDecodeError as error:
        whole = (error.start, error.end, error.reason)
    transcoder = utfkit.IncrementalTranscoder(source, target, errors)
    bounds = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    try:
        pieces = [transcoder.feed(data[begin:end]) for begin, end in zip(bounds, bounds[1:])]
        pieces.append(transcoder.finish())
        split = b"".join(pieces)
    except UnicodeDecodeError as error:
        split = (error.start, error.end, error.reason)
    assert split == whole


# ---- to and from the Unicode forms ---------------------------------------------------------------

unicode_text = st.text(st.characters(blacklist_categories=("Cs",)))


@pytest.mark.parametrize("encoding", [UTFE8, RFC2279])
@pytest.mark.parametrize("form", UNICODE_FORMS)
@given(text=unicode_text)
def test_unicode_text_converts_both_ways_as_utf8(encoding, form, text):
    # seed 002 section 3.2: below U+80000000 UTF-E-8 is the original UTF-8,
    # whose bytes for a scalar value are UTF-8's (Table 3-6)
    utf8 = text.encode("utf-8")
    assert utfkit.transcode(text.encode(form), form, encoding) == utf8
    assert utfkit.transcode(utf8, encoding, form) == text.encode(form)
    assert utfkit.transcoded_length(utf8, encoding, form) == len(text.encode(form))
    assert utfkit.decode(utf8, encoding) == text
    assert utfkit.encode(text, encoding) == utf8


@pytest.mark.parametrize("form", UNICODE_FORMS)
def test_from_a_unicode_form_ill_formed_input_is_cut_as_that_forms_own(form):
    data = {"utf-8": b"a\xed\xa0\x80b", "utf-16-le": b"a\x00\x00\xd8b\x00",
            "utf-16-be": b"\x00a\xd8\x00\x00b", "utf-32-le": b"a\x00\x00\x00\x00\xd8\x00\x00",
            "utf-32-be": b"\x00\x00\x00a\x00\x00\xd8\x00"}[form]
    with pytest.raises(UnicodeDecodeError) as raised:
        utfkit.transcode(data, form, UTFE8)
    with pytest.raises(UnicodeDecodeError) as cpython:
        data.decode(form)
    assert (raised.value.start, raised.value.end, raised.value.reason) == (
        cpython.value.start, cpython.value.end, cpython.value.reason)
    assert utfkit.transcode(data, form, RFC2279, "replace") == data.decode(form, "replace").encode()


@pytest.mark.parametrize("target", UNICODE_FORMS + ["str", "wtf-8", "cesu-8", "mutf-8"])
@given(values=st.lists(code_points, max_size=12))
def test_code_points_a_target_cannot_hold_are_ill_formed_there(target, values):
    """Issue 15: out of UTF-E-8, a surrogate or a code point above U+10FFFF
    is an ill-formed subsequence, the whole sequence: strict raises at it,
    replace writes U+FFFD, ignore drops it."""
    data = utfkit.utfe8_encode(values)
    kept = "".join(chr(v) if is_scalar_value(v) else "\ufffd" for v in values)
    dropped = "".join(chr(v) for v in values if is_scalar_value(v))

    def convert(errors: str):
        if target == "str":
            return utfkit.decode(data, UTFE8, errors)
        return utfkit.transcode(data, UTFE8, target, errors)

    def expected(text: str):
        return text if target == "str" else utfkit.encode(text, target)

    assert convert("replace") == expected(kept)
    assert convert("ignore") == expected(dropped)
    bad = [index for index, value in enumerate(values) if not is_scalar_value(value)]
    if not bad:
        assert convert("strict") == expected(dropped)
        return
    start = len(utfkit.utfe8_encode(values[: bad[0]]))
    end = start + len(reference_encode(values[bad[0]]))
    with pytest.raises(UnicodeDecodeError) as raised:
        convert("strict")
    error = raised.value
    assert (error.encoding, error.start, error.end) == (UTFE8, start, end)
    what = "decoded to str" if target == "str" else f"converted to {target}"
    if values[bad[0]] <= 0xDFFF:
        assert error.reason == f"surrogate code point cannot be {what}"
    else:
        assert error.reason == f"code point above U+10FFFF cannot be {what}"


@pytest.mark.parametrize("target", ["latin-1", "ascii"])
@pytest.mark.parametrize("errors", ["replace", "ignore"])
@given(values=st.lists(st.one_of(code_points, st.integers(0, 0xFF)), max_size=40))
def test_into_latin1_and_ascii_as_decoding_then_encoding(target, errors, values):
    data = utfkit.utfe8_encode(values)
    expected = utfkit.decode(data, UTFE8, errors).encode(target, errors)
    assert utfkit.transcode(data, UTFE8, target, errors) == expected
    if hasattr(utfkit, "transcode_partial"):  # in pieces of whatever fits
        out, pieces, position = bytearray(7), [], 0
        while position < len(data):
            consumed, written = utfkit.transcode_partial(data[position:], UTFE8, target, out, errors)
            assert consumed or written
            pieces.append(bytes(out[:written]))
            position += consumed
        assert b"".join(pieces) == expected


@given(values=st.lists(code_points, max_size=12))
def test_between_utfe8_and_rfc2279(values):
    data = utfkit.utfe8_encode(values)
    # RFC 2279 holds everything up to U+7FFFFFFF, surrogates included
    narrowed = utfkit.transcode(data, UTFE8, RFC2279, "replace")
    assert utfkit.utfe8_decode(narrowed).tolist() == [v if v <= RFC2279_MAX else 0xFFFD for v in values]
    assert utfkit.transcode(data, UTFE8, UTFE8) == data
    if max(values, default=0) <= RFC2279_MAX:
        assert utfkit.transcode(data, RFC2279, UTFE8) == data
        assert utfkit.transcode(data, UTFE8, RFC2279) == data


def test_decode_calls_any_error_handler_with_the_whole_sequence():
    data = b"a\xed\xa0\x80b\xf4\x90\x80\x80c\xff\x81"
    assert utfkit.decode(data, UTFE8, "backslashreplace") == "a\\xed\\xa0\\x80b\\xf4\\x90\\x80\\x80c\\xff\\x81"
    assert utfkit.decode(data, UTFE8, "surrogateescape").encode("utf-8", "surrogateescape") == data
    with pytest.raises(LookupError):
        utfkit.decode(data, UTFE8, "no-such-handler")


def test_encode_sends_surrogates_to_the_handler():
    with pytest.raises(UnicodeEncodeError) as raised:
        utfkit.encode("a\ud800", RFC2279)
    assert (raised.value.encoding, raised.value.start, raised.value.end) == (RFC2279, 1, 2)
    assert utfkit.encode("a\ud800", UTFE8, "replace") == b"a?"


def test_names_are_spelt_as_the_codecs_module_spells_them():
    for spelling in ("utf-e-8", "UTF-E-8", "utf_e_8", "utfe8", "UTF E 8"):
        assert utfkit.validate(b"\xfe\x82\x80\x80\x80\x80\x80", spelling)
    for spelling in ("utf-8-rfc2279", "UTF_8_RFC2279", "utf8rfc2279"):
        assert not utfkit.validate(b"\xfe\x82\x80\x80\x80\x80\x80", spelling)
    with pytest.raises(LookupError):
        utfkit.validate(b"", "utf-e-16")


def test_cli_check_takes_the_names(tmp_path, capsys):
    from utfkit import cli

    path = tmp_path / "extended.txt"
    path.write_bytes(b"ok\n\xfe\x82\x80\x80\x80\x80\x80 \xff\x80\x88")
    assert cli.main(["check", "-e", RFC2279, str(path)]) == cli.EXIT_INVALID
    assert capsys.readouterr().out.strip() == (
        f"{path}:2:1: offset 3: code point above U+7FFFFFFF (bytes FE)")
    assert cli.main(["check", "-e", UTFE8, str(path)]) == cli.EXIT_INVALID
    assert capsys.readouterr().out.strip() == (
        f"{path}:2:3: offset 11: code point above U+7FFFFFFFFFFFFFFF (bytes FF 80)")
    path.write_bytes(b"ok\n\xfe\x82\x80\x80\x80\x80\x80")
    assert cli.main(["check", "-e", UTFE8, str(path)]) == cli.EXIT_VALID


@given(values=st.lists(st.sampled_from([0x41, 0x0A, 0xE9, 0x7FFFFFFF, 0x80000000, 0x1000000000]),
                       max_size=14),
       damage=st.tuples(st.integers(0, 200), st.integers(0, 255)))
def test_cli_check_reads_sequences_cut_by_its_chunks(values, damage, tmp_path_factory):
    """A 13-byte sequence across a chunk boundary is carried whole."""
    import io
    from contextlib import redirect_stdout

    from utfkit import cli

    data = bytearray(utfkit.utfe8_encode(values))
    if data:
        data[damage[0] % len(data)] = damage[1]
    path = tmp_path_factory.mktemp("chunks") / "text.bin"
    path.write_bytes(data)
    for encoding in (UTFE8, RFC2279):
        printed, chunk_size = io.StringIO(), cli.CHUNK_SIZE
        try:
            cli.CHUNK_SIZE = 16
            with redirect_stdout(printed):
                status = cli.main(["check", "-e", encoding, str(path)])
        finally:
            cli.CHUNK_SIZE = chunk_size
        try:
            utfkit.check(data, encoding)
        except UnicodeDecodeError as error:
            assert status == cli.EXIT_INVALID
            assert f": offset {error.start}: {error.reason} (bytes " in printed.getvalue()
        else:
            assert status == cli.EXIT_VALID


def test_validate_uses_no_more_than_utf8_on_utf8_text():
    """issue 15: UTF-8 runs go through the UTF-8 kernel; a result check
    only (speed is measured in benchmarks, not asserted here)."""
    text = ("Grüße, мир, 世界 " * 5000).encode()
    assert utfkit.validate(text, UTFE8) and utfkit.validate(text, RFC2279)
    assert utfkit.count(text, UTFE8) == len(text.decode())


# ---- Perl 5's extended utf8, an oracle no one here wrote ---------------------------------------------

PERL = shutil.which("perl")
needs_perl = pytest.mark.skipif(PERL is None, reason="perl is not installed")

_PERL_ENCODE = r'no warnings; while (<STDIN>) { chomp; my $s = chr(hex($_)); utf8::encode($s); ' \
               r'print unpack("H*", $s), "\n" }'
_PERL_DECODE = r'no warnings; while (<STDIN>) { chomp; my $b = pack("H*", $_); ' \
               r'print utf8::decode($b) ? join(",", map { sprintf "%x", ord } split //, $b) : "ill-formed", "\n" }'


def _perl(script: str, lines: List[str]) -> List[str]:
    assert PERL is not None
    finished = subprocess.run([PERL, "-e", script], input="\n".join(lines) + "\n",
                              capture_output=True, text=True, check=True, timeout=120)
    return finished.stdout.splitlines()


def _values_to_try() -> List[int]:
    """Every length boundary and its neighbours, and random 64-bit values:
    uniform ones (nearly all 13-byte forms) and ones of every bit length."""
    rng = random.Random(15)
    values = {v + d for v in BOUNDARIES for d in (-1, 0, 1) if 0 <= v + d <= MAX}
    values.update(rng.randrange(MAX + 1) for _ in range(300))
    values.update(rng.randrange(1 << bits) for bits in range(1, 64) for _ in range(8))
    return sorted(values)


@pytest.fixture(scope="module")
def perl_encodings() -> Dict[int, bytes]:
    values = _values_to_try()
    return dict(zip(values, map(bytes.fromhex, _perl(_PERL_ENCODE, [f"{v:x}" for v in values]))))


@needs_perl
def test_encoding_agrees_with_perl(perl_encodings):
    values = list(perl_encodings)
    assert utfkit.utfe8_encode(values) == b"".join(perl_encodings.values())
    for value, data in perl_encodings.items():
        assert utfkit.utfe8_encode([value]) == data, hex(value)
        assert utfkit.validate(data, RFC2279) is (value <= RFC2279_MAX), hex(value)


@needs_perl
def test_decoding_agrees_with_perl(perl_encodings):
    texts = [data + b"." for data in perl_encodings.values()]
    answers = _perl(_PERL_DECODE, [text.hex() for text in texts])
    for value, text, answer in zip(perl_encodings, texts, answers):
        assert answer == f"{value:x},2e"
        assert utfkit.utfe8_decode(text).tolist() == [value, 0x2E]
        assert utfkit.count(text, UTFE8) == 2


@needs_perl
def test_well_formedness_agrees_with_perl_on_damaged_sequences(perl_encodings):
    """Truncated, overlong and byte-damaged forms: perl's utf8::decode and
    validate(..., "utf-e-8") accept the same ones."""
    rng = random.Random(2279)
    texts = set()
    for data in list(perl_encodings.values())[::3]:
        texts.add(data[:-1])
        texts.add(bytes([data[0]]) + bytes([rng.randrange(0x80, 0xC0)]) + data[2:])
        if len(data) > 1:
            cut = rng.randrange(1, len(data))
            texts.add(data[:cut] + bytes([rng.randrange(256)]) + data[cut + 1 :])
    for hex_bytes, _ in KUHN_OVERLONG_LINE_FEEDS:
        texts.add(bytes.fromhex(hex_bytes))
    texts.discard(b"")
    ordered = sorted(texts)
    answers = _perl(_PERL_DECODE, [text.hex() for text in ordered])
    for text, answer in zip(ordered, answers):
        if not utfkit.validate(text, UTFE8):
            assert answer == "ill-formed", text.hex()
            continue
        assert answer != "ill-formed", text.hex()
        assert [int(v, 16) for v in answer.split(",")] == utfkit.utfe8_decode(text).tolist()
