"""Differential tests of the SIMD transcoding blocks: every kernel against the
scalar one (DESIGN.md section 4: bit-identical results), with each kind of
ill-formed subsequence at every offset 0..130 of real multilingual text.

For every direction a kernel accelerates (UTF-8 to UTF-16/UTF-32 in both byte
orders, UTF-16/UTF-32 in both byte orders to UTF-8), every errors mode and
output capacities swept around the exact output size, the C core must give
the same status, position, subpart length and byte count under the kernel as
under the scalar kernel, and leave the same bytes in the destination buffer --
including the guard bytes after ``cap``, which must stay untouched.  The
output at the exact capacity is also checked against CPython's
``bytes.decode(...).encode(...)``.

The tests run under the ``kernel`` fixture of conftest.py; under ``scalar``
there is nothing to compare against, so they are skipped there.
"""

from __future__ import annotations

import random
import re

import pytest

import utfkit
from utfkit._native import ffi, lib
from table_3_7 import table_3_7_boundaries

# Real text in many scripts -- 1-, 2-, 3- and 4-byte UTF-8 sequences in the
# mixes that prose has (words, spaces, punctuation) -- long enough that every
# offset 0..130 is followed by several 64-byte blocks.
TEXT = (
    "Mars is the fourth planet from the Sun. "
    "Марс — четвёртая по удалённости от Солнца планета. "
    "Ο Άρης είναι ο τέταρτος πλανήτης. "
    "المريخ هو الكوكب الرابع من حيث البعد عن الشمس. "
    "מאדים הוא כוכב הלכת הרביעי. "
    "मंगल सौरमंडल में सूर्य से चौथा ग्रह है। "
    "火星是太阳系由内往外数的第四颗行星。"
    "火星は太陽系の第4惑星である。"
    "화성은 태양계의 네 번째 행성이다. "
    "Rover 🚀 landed 🪐✨ near Jezero 🔴, ça marche, Straße, naïve café. "
    "𝔐𝔞𝔯𝔰 𝕄𝕒𝕣𝕤 — end."
)

# Unbroken runs of 3-byte characters (no spaces between words), long enough
# for the fixed-stride steps some kernels take there (avx512: 16 characters,
# 48 bytes, at a time) to run before and after every offset 0..130.
CJK_TEXT = (
    "火星是太阳系由内往外数的第四颗行星属于类地行星直径约为地球的一半质量为地球的百分之十一"
    "自转轴倾角自转周期均与地球相近公转一周约为地球公转时间的两倍"
    "火星は太陽系の太陽に近い方から四番目の惑星である地球型惑星に分類され"
    "화성은태양계의네번째행성이다붉은색을띠기때문에동양권에서는불을뜻하는화"
    "\uffff\u0800\ud7ff\ue000\u0fff\u1000\ucfff\ud000"
) * 2

FORMS = {
    "utf-8": lib.UTFKIT_UTF8,
    "utf-16-le": lib.UTFKIT_UTF16LE,
    "utf-16-be": lib.UTFKIT_UTF16BE,
    "utf-32-le": lib.UTFKIT_UTF32LE,
    "utf-32-be": lib.UTFKIT_UTF32BE,
}
ERRORS = {"strict": lib.UTFKIT_STRICT, "replace": lib.UTFKIT_REPLACE, "ignore": lib.UTFKIT_IGNORE}

#: The directions the SIMD kernels accelerate (kernels.h, the transcoding blocks).
DIRECTIONS = [("utf-8", to) for to in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")] + [
    (source, "utf-8") for source in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
] + [  # direct UTF-16 <-> UTF-32: each byte order on each side
    ("utf-16-le", "utf-32-le"), ("utf-16-be", "utf-32-le"), ("utf-16-le", "utf-32-be"),
    ("utf-32-le", "utf-16-le"), ("utf-32-be", "utf-16-le"), ("utf-32-le", "utf-16-be"),
]

OFFSETS = range(131)

# Ill-formed subsequences of each form, by kind (Table 3-7 rows for UTF-8;
# D91 / D90 for UTF-16 / UTF-32), plus well-formed characters the blocks
# hand to the scalar reader (supplementary ones).
UTF8_INSERTS = {
    "lone_continuation": b"\x80",
    "invalid_start_ff": b"\xff",
    "overlong_2_byte": b"\xc0\xaf",
    "c1_lead": b"\xc1\xbf",
    "truncated_3_byte": b"\xe2\x82",
    "truncated_4_byte": b"\xf0\x9f\x98",
    "overlong_3_byte": b"\xe0\x80\xaf",
    "surrogate": b"\xed\xa0\x80",
    "overlong_4_byte": b"\xf0\x8f\xbf\xbf",
    "too_large": b"\xf4\x90\x80\x80",
    "f5_lead": b"\xf5\x80\x80\x80",
    "supplementary_character": "😀".encode(),
}
TABLE_3_7_BOUNDARIES = table_3_7_boundaries()
# Where the boundaries go: at, just before and just after the ends of the
# 16-, 32- and 64-byte blocks, and inside the second 64-byte block.
BLOCK_EDGE_OFFSETS = [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100, 127, 128, 129]

UTF16_UNITS = {
    "lone_lead_surrogate": [0xD800],
    "lone_trail_surrogate": [0xDC00],
    "reversed_pair": [0xDFFF, 0xDBFF],
    "two_leads": [0xD83D, 0xD83D],
    "supplementary_character": [0xD83D, 0xDE00],
}
UTF32_UNITS = {
    "surrogate": [0xD800],
    "last_surrogate": [0xDFFF],
    "too_large": [0x110000],
    "all_ones": [0xFFFFFFFF],
    "supplementary_character": [0x1F600],
}


def _unit_size(form: str) -> int:
    return {"utf-8": 1, "utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4}[form]


def _units(values: list[int], form: str) -> bytes:
    size = _unit_size(form)
    order = "little" if form.endswith("le") else "big"
    return b"".join(value.to_bytes(size, order) for value in values)


def _inputs(form: str, text_: str = TEXT) -> list[tuple[str, bytes]]:
    """(description, bytes): each kind of error at every offset, and the
    text cut at every offset (and cut mid-unit for UTF-16 / UTF-32)."""
    text = text_.encode(form)
    size = _unit_size(form)
    inputs = []
    if form == "utf-8":
        kinds = UTF8_INSERTS
    else:
        kinds = {
            name: _units(values, form)
            for name, values in (UTF16_UNITS if size == 2 else UTF32_UNITS).items()
        }
    for offset in OFFSETS:
        at = offset * size  # byte offset for UTF-8, unit offset otherwise
        for name, insert in kinds.items():
            inputs.append((f"{name}@{offset}", text[:at] + insert + text[at:]))
        inputs.append((f"cut@{offset}", text[: at + size * 64 + (offset % size or 0)]))
        if size > 1:
            inputs.append((f"cut_mid_unit@{offset}", text[: at + size * 70 + 1 + offset % (size - 1)]))
        if size == 2:
            inputs.append((f"lead_at_end@{offset}", text[: at + 140] + _units([0xD800], form)))
    return inputs


def _capacities(needed: int) -> list[int]:
    around = {0, 1, needed // 2, needed - 5, needed - 4, needed - 3, needed - 2, needed - 1,
              needed, needed + 1, needed + 9}
    return sorted(cap for cap in around if cap >= 0)


GUARD = 24
FILL = 0xA5


def _run(data: bytes, source: int, target: int, errors: int) -> list[tuple]:
    """Every observable outcome of the C core for this conversion: the
    measured length, then for each capacity the result and the whole buffer
    (guard bytes after cap included)."""
    length = lib.utfkit_transcoded_length(data, len(data), source, target, errors)
    outcomes: list[tuple] = [("length", length.status, length.position, length.subpart_length,
                              length.written)]
    needed = length.written
    for cap in _capacities(needed):
        buffer = ffi.new("uint8_t[]", bytes([FILL]) * (cap + GUARD))
        result = lib.utfkit_transcode(data, len(data), source, target, errors, buffer, cap)
        outcomes.append((cap, result.status, result.position, result.subpart_length,
                         result.written, ffi.buffer(buffer)[:]))
    return outcomes


def _under(kernel: str, call, *arguments):
    previous = utfkit.backend()
    utfkit._kernels.set_backend(kernel)
    try:
        return call(*arguments)
    finally:
        utfkit._kernels.set_backend(previous)


def _check_against_cpython(data: bytes, source: str, target: str, errors: str) -> None:
    try:
        expected = data.decode(source, errors).encode(target)
    except UnicodeDecodeError as error:
        with pytest.raises(UnicodeDecodeError) as raised:
            utfkit.transcode(data, source, target, errors)
        assert (raised.value.start, raised.value.end, raised.value.reason) == (
            error.start, error.end, error.reason)
        return
    assert utfkit.transcode(data, source, target, errors) == expected


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("source, target", DIRECTIONS, ids=[f"{s}>{t}" for s, t in DIRECTIONS])
def test_kernel_transcodes_every_error_at_every_offset_as_the_scalar_kernel_does(
    kernel, source, target, errors
):
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    source_form, target_form, mode = FORMS[source], FORMS[target], ERRORS[errors]
    for description, data in _inputs(source):
        reference = _under("scalar", _run, data, source_form, target_form, mode)
        got = _run(data, source_form, target_form, mode)
        if got != reference:
            for want, have in zip(reference, got):
                assert have[:5] == want[:5], f"{description}: result differs from scalar"
                assert have == want, f"{description}, cap {want[0]}: buffer differs from scalar"
        if description.endswith("@0") or description.endswith("@127"):
            _check_against_cpython(data, source, target, errors)


def test_table_3_7_boundaries_cover_every_row_on_both_sides():
    assert len(TABLE_3_7_BOUNDARIES) == 28
    assert {"E0_9F", "E0_80", "E0_C0", "ED_A0", "ED_BF", "ED_7F", "F0_8F", "F0_80", "F4_90",
            "F4_BF", "C2_7F", "C2_C0", "DF_7F", "DF_C0", "F3_7F", "F3_C0"} <= set(TABLE_3_7_BOUNDARIES)
    for sequence in TABLE_3_7_BOUNDARIES.values():
        with pytest.raises(UnicodeDecodeError):
            sequence.decode("utf-8")


UTF8_TARGETS = [target for source, target in DIRECTIONS if source == "utf-8"]


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("target", UTF8_TARGETS)
def test_kernel_transcodes_every_table_3_7_boundary_at_block_edges_as_the_scalar_kernel_does(
    kernel, target, errors
):
    """Each row's ill-formed second bytes at the edges of its range (Unicode
    3.9 Table 3-7; e.g. E0 9F, the highest overlong one), at and around the
    ends of the kernels' 16-, 32- and 64-byte blocks."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    text = TEXT.encode("utf-8")
    target_form, mode = FORMS[target], ERRORS[errors]
    for name, sequence in TABLE_3_7_BOUNDARIES.items():
        for offset in BLOCK_EDGE_OFFSETS:
            data = text[:offset] + sequence + text[offset:]
            reference = _under("scalar", _run, data, lib.UTFKIT_UTF8, target_form, mode)
            got = _run(data, lib.UTFKIT_UTF8, target_form, mode)
            assert got == reference, f"{name}@{offset}: differs from scalar"
        _check_against_cpython(text[:64] + sequence + text[64:], "utf-8", target, errors)


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("source, target", DIRECTIONS, ids=[f"{s}>{t}" for s, t in DIRECTIONS])
def test_kernel_transcodes_randomly_damaged_text_as_the_scalar_kernel_does(
    kernel, source, target, errors
):
    """Fixed-seed random damage -- bytes replaced, deleted or inserted, one
    error per ~KiB up to one every few bytes -- in long text, so that blocks
    of every kind follow each other."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    rng = random.Random(f"{source}>{target}/{errors}")
    text = (TEXT * 12).encode(source)
    source_form, target_form, mode = FORMS[source], FORMS[target], ERRORS[errors]
    for _ in range(60):
        data = bytearray(text[: rng.randrange(len(text))])
        for _ in range(rng.choice([0, 1, 2, 5, 40])):
            if not data:
                break
            at = rng.randrange(len(data))
            action = rng.randrange(3)
            if action == 0:
                data[at] = rng.randrange(256)
            elif action == 1:
                del data[at]
            else:
                data.insert(at, rng.randrange(256))
        data = bytes(data)
        reference = _under("scalar", _run, data, source_form, target_form, mode)
        assert _run(data, source_form, target_form, mode) == reference, data.hex()


UTF8_DIRECTIONS = [(source, target) for source, target in DIRECTIONS if source == "utf-8"]
# and UTF-16 to UTF-8, whose avx512 block writes runs of 3-byte characters
# at a fixed stride too
CJK_DIRECTIONS = UTF8_DIRECTIONS + [("utf-16-le", "utf-8"), ("utf-16-be", "utf-8")]


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("source, target", CJK_DIRECTIONS, ids=[f"{s}>{t}" for s, t in CJK_DIRECTIONS])
def test_kernel_transcodes_every_error_inside_runs_of_3_byte_characters_as_the_scalar_kernel_does(
    kernel, source, target, errors
):
    """Table 3-7's failures of a 3-byte sequence (E0 80..9F overlong, ED
    A0..BF surrogate, a lead cut short) and the others -- for UTF-16 input
    D91's (unpaired surrogates, a cut-off unit) -- at every offset of
    unbroken CJK text: the fixed-stride steps must refuse exactly what the
    scalar reader refuses, and convert the rest alike."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    source_form, target_form, mode = FORMS[source], FORMS[target], ERRORS[errors]
    for description, data in _inputs(source, CJK_TEXT):
        reference = _under("scalar", _run, data, source_form, target_form, mode)
        got = _run(data, source_form, target_form, mode)
        assert got == reference, f"{description}: differs from scalar"
        if description.endswith("@0") or description.endswith("@100"):
            _check_against_cpython(data, source, target, errors)


# Words of 3-byte characters between ASCII spaces and punctuation (Korean,
# Hindi, Thai), with 2-byte words (Cyrillic) and a stretch of ASCII among
# them: every one of its first 64 bytes' 16-byte blocks mixes ASCII and
# 3-byte characters, which sends sse4 into its fixed-stride run of blocks
# (characters carried across the 16-byte edges at every phase, a run ended
# by ASCII, by an error or by the end of the text, and entered again after
# the scalar reader's stretch).
MIXED_TEXT = (
    "화성은 태양계의 네 번째 행성이다. Марс и 붉은 색을 띠기 때문에 नमस्ते दुनिया "
    "ดาวอังคาร เป็น 동양권에서는 Mars is the fourth planet from the Sun, 불을 뜻하는 "
    "화성이라 부른다. Ёж 화성의 두 위성 포보스와 데이모스는 작고 불규칙한 모양이다. "
) * 2


def test_mixed_text_mixes_ascii_and_3_byte_characters_in_every_block_it_begins_with():
    data = MIXED_TEXT.encode("utf-8")
    for start in range(0, 64, 16):
        block = data[start:start + 16]
        assert any(byte < 0x80 for byte in block) and any(0xE0 <= byte < 0xF0 for byte in block)
    assert {len(character.encode("utf-8")) for character in MIXED_TEXT} == {1, 2, 3}


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("target", UTF8_TARGETS)
def test_kernel_transcodes_every_error_inside_mixed_runs_as_the_scalar_kernel_does(kernel, target, errors):
    """Each ill-formed subsequence kind at every byte offset 0..130 of text
    that mixes words of 3-byte characters with ASCII spaces, and the text cut
    at every length: blocks at a fixed stride must refuse exactly what the
    scalar reader refuses -- a character cut at a 16-byte edge, an error in
    any position of a block -- and convert the rest alike."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    target_form, mode = FORMS[target], ERRORS[errors]
    for description, data in _inputs("utf-8", MIXED_TEXT):
        reference = _under("scalar", _run, data, lib.UTFKIT_UTF8, target_form, mode)
        assert _run(data, lib.UTFKIT_UTF8, target_form, mode) == reference, f"{description}: differs from scalar"
        if description.endswith("@0") or description.endswith("@100"):
            _check_against_cpython(data, "utf-8", target, errors)
    text = MIXED_TEXT.encode("utf-8")
    for name, sequence in TABLE_3_7_BOUNDARIES.items():
        for offset in range(64, 64 + 48):
            data = text[:offset] + sequence + text[offset:]
            reference = _under("scalar", _run, data, lib.UTFKIT_UTF8, target_form, mode)
            assert _run(data, lib.UTFKIT_UTF8, target_form, mode) == reference, f"{name}@{offset}"


# Unbroken runs of characters of one length, as the steps some kernels take
# for blocks of one kind expect them (sse4: 1- and 2-byte, five 3-byte or
# four 4-byte characters per 16 bytes), 4-byte characters from several
# planes (F0, F1..F3 and F4 leads).
RUNS_OF_ONE_LENGTH = {
    "2-byte": "ДжЖиМарсЁёΩωשא",
    "3-byte": "火星是太阳系ア\u0800\ud7ff\ue000\uffff",
    "4-byte": "😀🚀𝔐🪐\U00010000\U0003ffff\U00040000\U0010ffff\U00100000",
}


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("target", UTF8_TARGETS)
@pytest.mark.parametrize("run", RUNS_OF_ONE_LENGTH)
def test_kernel_transcodes_table_3_7_boundaries_inside_runs_of_one_length_as_the_scalar_kernel_does(
    kernel, run, target, errors
):
    """Each Table 3-7 boundary case (an ill-formed second byte at the edge
    of a row's range) and each other ill-formed subsequence, at every
    character boundary of the first 64 bytes of an unbroken run of 2-, 3- or
    4-byte characters: where the sequence has the shape of a character of
    the run's length, only the range checks can refuse it."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    text = (RUNS_OF_ONE_LENGTH[run] * 12).encode("utf-8")
    width = int(run[0])
    target_form, mode = FORMS[target], ERRORS[errors]
    sequences = {**TABLE_3_7_BOUNDARIES, **UTF8_INSERTS}
    for name, sequence in sequences.items():
        for offset in range(0, 64, width):
            data = text[:offset] + sequence + text[offset:]
            reference = _under("scalar", _run, data, lib.UTFKIT_UTF8, target_form, mode)
            assert _run(data, lib.UTFKIT_UTF8, target_form, mode) == reference, f"{name}@{offset}"
        _check_against_cpython(text[:48] + sequence + text[48:], "utf-8", target, errors)


def test_runs_of_one_length_hold_characters_of_that_length_only():
    for run, text in RUNS_OF_ONE_LENGTH.items():
        assert {len(character.encode("utf-8")) for character in text} == {int(run[0])}


# UTF-16 texts made of the kinds of block the UTF-16 -> UTF-8 steps take
# whole (avx512: 16 surrogate pairs in a row; ASCII 64 units at a time once
# 128 bytes of it are ahead; 32 units below 0800; 32 units of the BMP of any
# lengths), one kind running into the next, so that with the errors and
# cuts of _inputs at every offset each step starts, ends and is refused at
# every unit of a block, in and out of a pair's alignment.
UTF16_STEP_TEXTS = {
    "pairs": RUNS_OF_ONE_LENGTH["4-byte"] * 16,
    "ascii_into_pairs": "Mars" * 40 + RUNS_OF_ONE_LENGTH["4-byte"] * 8 + "Jezero" * 30,
    "ascii_into_2_byte": "Mars " * 30 + RUNS_OF_ONE_LENGTH["2-byte"] * 10 + " rover" * 30,
    "2_byte_into_mixed": RUNS_OF_ONE_LENGTH["2-byte"] * 8 + "Марс火星 Ω ア😀 " * 12,
}


@pytest.mark.parametrize("errors", ERRORS)
@pytest.mark.parametrize("source", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", UTF16_STEP_TEXTS)
def test_kernel_transcodes_utf16_runs_of_each_block_kind_as_the_scalar_kernel_does(
    kernel, text, source, errors
):
    """D91's failures (unpaired surrogates, a cut-off unit) and well-formed
    pairs at every offset of UTF-16 text whose runs change kind: the steps
    for one kind must take exactly what the scalar reader takes, and write
    it alike."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    source_form, mode = FORMS[source], ERRORS[errors]
    for description, data in _inputs(source, UTF16_STEP_TEXTS[text]):
        reference = _under("scalar", _run, data, source_form, lib.UTFKIT_UTF8, mode)
        assert _run(data, source_form, lib.UTFKIT_UTF8, mode) == reference, f"{description}: differs from scalar"
        if description.endswith("@0") or description.endswith("@77"):
            _check_against_cpython(data, source, "utf-8", errors)


def test_utf16_step_texts_hold_the_runs_they_are_named_for():
    pairs = UTF16_STEP_TEXTS["pairs"].encode("utf-16-le")
    assert all(0xD800 <= int.from_bytes(pairs[k:k + 2], "little") <= 0xDFFF
               for k in range(0, len(pairs), 2))
    for name in ("ascii_into_pairs", "ascii_into_2_byte"):
        assert UTF16_STEP_TEXTS[name][:128].isascii()
    assert max(map(ord, UTF16_STEP_TEXTS["ascii_into_2_byte"])) < 0x800
    assert {len(c.encode("utf-8")) for c in UTF16_STEP_TEXTS["2_byte_into_mixed"]} == {1, 2, 3, 4}


# Thai and Hindi words between ASCII spaces, after and between stretches of
# ASCII markup longer than 32 bytes: the sse4 steps take the text after each
# ASCII stretch, then hand it to the fixed-stride run once a few blocks of
# 3-byte characters follow, and the run hands it back at the next ASCII
# stretch -- so each hand-over (steps -> run -> steps) falls at some offset
# of it, and an error or a cut at every offset lands before, at and after
# each of them.
HANDED_OVER_TEXT = (
    "<p class=\"mw-empty-elt\">Mars (Thai): "
    "ดาวอังคาร เป็นดาวเคราะห์ ลำดับที่สี่จากดวงอาทิตย์ และเป็นดาวเคราะห์ที่เล็กเป็นอันดับสอง "
    "</a></p><p><b>Mars</b> (Hindi, <i>mangal</i>): "
    "मंगल सौरमंडल में सूर्य से चौथा ग्रह है। पृथ्वी से इसकी आभा रक्तिम दिखती है "
    "<sup id=\"cite_ref-1\">[1]</sup> "
)


def _transcoded(data: bytes, target: int, errors: int) -> tuple:
    """The C core's result and output for `data`, with room for all of it
    (the kernels may use the room past the output as scratch; the guard
    bytes after it stay untouched)."""
    length = lib.utfkit_transcoded_length(data, len(data), lib.UTFKIT_UTF8, target, errors)
    room = 4 * len(data)
    buffer = ffi.new("uint8_t[]", bytes([FILL]) * (room + GUARD))
    result = lib.utfkit_transcode(data, len(data), lib.UTFKIT_UTF8, target, errors, buffer, room)
    output = ffi.buffer(buffer)[:]
    return (length.status, length.position, length.written, result.status, result.position,
            result.subpart_length, result.written, output[:result.written], output[room:])


def test_handed_over_text_has_ascii_stretches_between_runs_of_3_byte_characters():
    data = HANDED_OVER_TEXT.encode("utf-8")
    ascii_stretches = [len(stretch) for stretch in re.findall(rb"[\x00-\x7f]+", data)]
    long_stretches = [stretch for stretch in ascii_stretches if stretch >= 16]
    assert ascii_stretches[0] >= 32 and len(long_stretches) == 3 and min(long_stretches) >= 25
    assert len(data) > 300
    assert {len(character.encode("utf-8")) for character in HANDED_OVER_TEXT} == {1, 3}


@pytest.mark.parametrize("errors", ["strict", "replace"])
@pytest.mark.parametrize("target", ["utf-16-le", "utf-32-be"])
def test_kernel_transcodes_every_error_around_each_hand_over_as_the_scalar_kernel_does(kernel, target, errors):
    """Each kind of ill-formed subsequence (Table 3-7) inserted at every
    offset of text where the steps and the fixed-stride run hand over to
    each other, and the text cut at every length: the same status, position,
    subpart and bytes as the scalar kernel, whatever side of a hand-over the
    error or the end falls on."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    text = HANDED_OVER_TEXT.encode("utf-8")
    target_form, mode = FORMS[target], ERRORS[errors]
    inputs = [(f"cut@{cut}", text[:cut]) for cut in range(len(text) + 1)]
    inputs += [(f"{name}@{offset}", text[:offset] + insert + text[offset:])
               for offset in range(len(text) + 1) for name, insert in UTF8_INSERTS.items()]
    for description, data in inputs:
        reference = _under("scalar", _transcoded, data, target_form, mode)
        assert _transcoded(data, target_form, mode) == reference, f"{description}: differs from scalar"
    _check_against_cpython(text[:200] + b"\xe0\x80" + text[200:], "utf-8", target, errors)


@pytest.mark.parametrize("target", ["utf-16-be", "utf-32-le"])
def test_kernel_transcodes_errors_around_each_hand_over_at_every_block_phase_as_the_scalar_kernel_does(
    kernel, target
):
    """The same text behind 0..15 more bytes of ASCII, so that each hand-over
    falls at every phase of the 16-byte blocks, with a lone continuation
    byte, a surrogate's encoding and a supplementary character (which the
    run refuses, and the steps take) at every offset."""
    if kernel == "scalar":
        pytest.skip("the scalar kernel is the reference")
    target_form = FORMS[target]
    inserts = {name: UTF8_INSERTS[name] for name in ("lone_continuation", "surrogate", "supplementary_character")}
    for phase in range(16):
        text = b"-" * phase + HANDED_OVER_TEXT.encode("utf-8")
        inputs = [(f"cut@{cut}", text[:cut]) for cut in range(0, len(text) + 1, 3)]
        inputs += [(f"{name}@{offset}", text[:offset] + insert + text[offset:])
                   for offset in range(len(text) + 1) for name, insert in inserts.items()]
        for description, data in inputs:
            reference = _under("scalar", _transcoded, data, target_form, lib.UTFKIT_REPLACE)
            assert _transcoded(data, target_form, lib.UTFKIT_REPLACE) == reference, (
                f"phase {phase}, {description}: differs from scalar")
