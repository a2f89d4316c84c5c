"""Seed corpora for every fuzz target, from the source tree alone.

Writes OUT_DIR/<target>/<sha1 of the input> for every fuzz/fuzz_<target>.c,
laid out as each target's header comment says.  Needs nothing but Python:
not the built extension, not utfkit itself (the texts and the encoders of
the UTF-8 relatives are here), so a fresh checkout, CI and
tests/test_fuzz_regressions.py can all run it.  Deterministic: the seeds are
not committed; `make fuzz` runs this first.

What the seeds hold, in every form a target reads:

- multilingual text (1- to 4-byte characters in the mixes prose has) cut to
  lengths 0 to 4 KiB on, just before and just after the multiples of 16,
  32 and 64 where the SIMD kernels' blocks end, so each block and the tail
  after it run from the first execution;
- the same texts with ill-formed code units placed at those block edges;
- Table 3-7's boundaries (Unicode 3.9): the first and last character of
  each row, every truncation of them, and for each row the lowest and
  highest ill-formed second byte on either side of its range;
- lone and reversed surrogates, values above U+10FFFF, odd lengths.

    python fuzz/make_seeds.py [OUT_DIR]      (default: fuzz/seeds)
"""

from __future__ import annotations

import hashlib
import random
import sys
from pathlib import Path
from typing import Callable, Dict, List

FUZZ = Path(__file__).resolve().parent
sys.path.insert(0, str(FUZZ.parent / "tests"))
import table_3_7  # noqa: E402  (tests/table_3_7.py: the source tree, no utfkit needed)

# utfkit.h's form numbers (UTFKIT_UTF8 .. UTFKIT_UTF32BE); the UTF targets
# take the form as `index % 5`.
FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]

# Prose in many scripts: 1-byte (Latin), 2-byte (Cyrillic, Greek, Arabic,
# Hebrew), 3-byte (Devanagari, CJK, kana, Hangul) and 4-byte (emoji,
# mathematical alphanumerics) characters.
SENTENCES = [
    "Mars is the fourth planet from the Sun. ",
    "Марс — четвёртая по удалённости от Солнца планета. ",
    "Ο Άρης είναι ο τέταρτος πλανήτης του ηλιακού συστήματος. ",
    "المريخ هو الكوكب الرابع من حيث البعد عن الشمس. ",
    "מאדים הוא כוכב הלכת הרביעי במרחקו מהשמש. ",
    "मंगल सौरमंडल में सूर्य से चौथा ग्रह है। ",
    "火星是太阳系由内往外数的第四颗行星。",
    "火星は太陽系の第4惑星である。",
    "화성은 태양계의 네 번째 행성이다. ",
    "Rover 🚀 landed 🪐✨ near Jezero 🔴, ça marche, Straße, naïve café. ",
    "𝔐𝔞𝔯𝔰 𝕄𝕒𝕣𝕤 — end. ",
    "{\"id\": 12345, \"name\": \"plain ASCII JSON\", \"ok\": true}\n",
    # A run of ASCII longer than two 64-byte vectors, between non-ASCII text:
    # the validators' ASCII paths inside a text, not only before it.
    "The planet is named after Mars, the Roman god of war. It is a terrestrial planet "
    "with a thin atmosphere, and has a crust primarily composed of elements similar to "
    "Earth's crust, as well as a core made of iron and nickel. Mars has surface features "
    "such as impact craters, valleys, dunes and polar ice caps. It has two small and "
    "irregularly shaped moons, Phobos and Deimos. ",
]

# Words of 2- and 3-byte characters between ASCII spaces, so that every
# 16 bytes mix ASCII with them (sse4's fixed-stride run of blocks takes such
# text from its start: characters cut by every 16-byte edge, at every phase).
MIXED_WORDS = (
    "화성은 태양계의 네 번째 행성이다. Марс и 붉은 색을 띠기 때문에 नमस्ते दुनिया ดาว อังคาร "
    "동양권에서는 불을 뜻하는 화성이라 부른다. Ёж 화성의 두 위성 포보스와 데이모스는 작다. "
)

# Thai and Hindi words between ASCII spaces, between stretches of ASCII
# markup of two blocks or more: the sse4 steps hand such text to the
# fixed-stride run a few blocks after each stretch, and the run hands it
# back at the next one.
HANDED_OVER_WORDS = (
    "<li><a href=\"/wiki/Mars\" title=\"Mars\">"
    "ดาวอังคาร เป็นดาวเคราะห์ ลำดับที่สี่จากดวงอาทิตย์ "
    "</a></li>\n<li><a href=\"/wiki/Mangal\">"
    "मंगल सौरमंडल में सूर्य से चौथा ग्रह है। "
)

# Lengths on, just before and just after the multiples of 16, 32 and 64, up
# to 4 KiB (the widest block is 64 bytes: AVX-512, and UTFKIT_TRANSCODE_BLOCK).
LENGTHS = sorted(
    {n for n in range(0, 20)}
    | {m + d for m in range(16, 257, 16) for d in (-1, 0, 1)}
    | {m + d for m in (384, 512, 768, 1024, 1536, 2048, 3072, 4096) for d in (-1, 0, 1)}
)

def table_3_7_boundaries() -> List[bytes]:
    """For each row's first and last lead byte (Unicode 3.9 Table 3-7): the
    ill-formed second bytes at the edges of its range (tests/table_3_7.py,
    the list the tests use too), and besides the sequence with the lowest
    and the highest well-formed second byte and with 7F, C0, 80 and BF
    second.  Each completed with 80 bytes to the row's length."""
    found = list(table_3_7.table_3_7_boundaries().values())
    for first_lead, last_lead, low, high, length in table_3_7.TABLE_3_7_ROWS:
        tail = b"\x80" * (length - 2)
        for lead in sorted({first_lead, last_lead}):
            found += [bytes([lead, second]) + tail for second in sorted({low, high, 0x7F, 0xC0, 0x80, 0xBF})]
    found += [b"\xc0\x80", b"\xc1\xbf", b"\xf5\x80\x80\x80", b"\xff", b"\xfe", b"\x80", b"\xbf"]
    return list(dict.fromkeys(found))


# Table 3-7's boundaries as characters: the first and last of each row.
EDGE_CHARACTERS = (
    "\x00\x7f\x80\u07ff\u0800\u0fff\u1000\ucfff\ud000\ud7ff\ue000\uffff"
    "\U00010000\U0003ffff\U00040000\U000fffff\U00100000\U0010ffff"
)

# Ill-formed code units: lone lead and trail surrogates, a reversed pair,
# values past 10FFFF (D90, D91).
ILL_FORMED_UNITS = [[0xD800], [0xDBFF], [0xDC00], [0xDFFF], [0xDFFF, 0xDBFF], [0x110000], [0xFFFFFFFF]]


def text(rng: random.Random, characters: int) -> str:
    found = ""
    while len(found) < characters:
        found += rng.choice(SENTENCES)
    return found[:characters]


def long_text(seed: str) -> str:
    """About 5 KiB of UTF-8 worth of mixed prose (more than every length)."""
    rng = random.Random(seed)
    found = ""
    while len(found.encode("utf-8")) < 5000:
        found += rng.choice(SENTENCES)
    return found


def units(values: List[int], form: str) -> bytes:
    size = 2 if "16" in form else 4
    order = "little" if form.endswith("le") else "big"
    return b"".join((v & ((1 << (8 * size)) - 1)).to_bytes(size, order) for v in values)


def ill_formed(form: str) -> List[bytes]:
    if form == "utf-8":
        return table_3_7_boundaries() + [b"\xed\xa0\x80", b"\xe1\x80", b"\xf1\x80\x80", b"\xc2"]
    size = 2 if "16" in form else 4
    return [units(values, form) for values in ILL_FORMED_UNITS if size == 4 or max(values) <= 0xFFFF]


def cut_texts(encode: Callable[[str], bytes], seed: str) -> List[bytes]:
    """The text cut at every length of LENGTHS (cuts inside a character
    included: they end in an unfinished one)."""
    whole = encode(long_text(seed))
    return [whole[:length] for length in LENGTHS]


def damaged(encode: Callable[[str], bytes], seed: str, bad: List[bytes]) -> List[bytes]:
    """The text with an ill-formed sequence at a block edge (15..17, 31..33,
    63..65, 127..129 bytes in), and the same near the end of a long text."""
    whole = encode(long_text(seed))
    rng = random.Random(seed + "/damage")
    found = []
    for index, sequence in enumerate(bad):
        edge = [16, 32, 64, 128, 1024][index % 5] + (index % 3) - 1
        length = rng.choice([edge + 80, edge + 200, 1100, edge + 2600])
        found.append(whole[:edge] + sequence + whole[edge:length])
    return found


def texts(form: str) -> List[bytes]:
    """Inputs in a UTF form: cut texts, damaged texts, edge characters."""
    encode: Callable[[str], bytes] = lambda s: s.encode(form)
    found = cut_texts(encode, form) + damaged(encode, form, ill_formed(form))
    mixed = encode(MIXED_WORDS * 30)
    found += [mixed[:length] for length in LENGTHS[::2]]
    found += [mixed[:edge] + bad + mixed[edge:edge + 300]
              for index, bad in enumerate(ill_formed(form)) for edge in (64 + index % 48, 200 + index)]
    handed_over = encode(HANDED_OVER_WORDS * 12)
    found += [handed_over[:length] for length in LENGTHS[1::2]]
    found += [handed_over[:edge] + bad + handed_over[edge:edge + 500]
              for index, bad in enumerate(ill_formed(form)) for edge in (40 + 3 * index % 160, 400 + 5 * index)]
    found.append(EDGE_CHARACTERS.encode(form))
    for character in EDGE_CHARACTERS:
        encoded = character.encode(form)
        found += [encoded[:cut] + b"A" for cut in range(1, len(encoded))]
        found += [b"xy" + encoded[:cut] for cut in range(1, len(encoded))]
    found += [b"ok" + bad + b"ok" for bad in ill_formed(form)]
    return found


# ---- the UTF-8 relatives, encoded here (not by utfkit) ------------------------
def utf16_units(s: str) -> List[int]:
    data = s.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def three_bytes(unit: int) -> bytes:
    """A 16-bit unit as a 3-byte sequence (CESU-8 / MUTF-8 / WTF-8 surrogates)."""
    return bytes([0xE0 | unit >> 12, 0x80 | (unit >> 6) & 0x3F, 0x80 | unit & 0x3F])


def cesu8(s: str, modified: bool = False) -> bytes:
    """CESU-8 (UTR #26): each UTF-16 code unit on its own, so a supplementary
    character is two 3-byte sequences; Modified UTF-8 also writes U+0000 as
    C0 80 (the Java Virtual Machine Specification, section 4.4.7)."""
    out = bytearray()
    for unit in utf16_units(s):
        if unit == 0 and modified:
            out += b"\xc0\x80"
        elif 0xD800 <= unit <= 0xDFFF:
            out += three_bytes(unit)
        else:
            out += chr(unit).encode("utf-8")
    return bytes(out)


def wtf8(s: str) -> bytes:
    """WTF-8 (seed 003): UTF-8, with lone surrogates as 3-byte sequences."""
    return s.encode("utf-8", "surrogatepass")


def utfe8_encode(value: int) -> bytes:
    """One UTF-E-8 sequence (seed 002), shortest form: the 1-6 byte forms of
    RFC 2279, FE + 6 continuation bytes, FF + 12."""
    if value < 0x80:
        return bytes([value])
    for length, lead, limit in ((2, 0xC0, 1 << 11), (3, 0xE0, 1 << 16), (4, 0xF0, 1 << 21),
                                (5, 0xF8, 1 << 26), (6, 0xFC, 1 << 31), (7, 0xFE, 1 << 36),
                                (13, 0xFF, 1 << 72)):
        if value < limit:
            tail = [0x80 | (value >> (6 * k)) & 0x3F for k in reversed(range(length - 1))]
            payload = value >> (6 * (length - 1))
            return bytes([lead | payload if length < 7 else lead] + tail)
    raise ValueError(value)


UTFE8_VALUES = [0x110000, 0x1FFFFF, 0x200000, 0x3FFFFFF, 0x4000000, 0x7FFFFFFF, 0x80000000,
                0xFFFFFFFFF, 0x1000000000, 0x7FFFFFFFFFFFFFFF, 0xD800, 0xDFFF]


def utfe8_texts() -> List[bytes]:
    """UTF-8 text (UTF-E-8's common case: the UTF-8 kernel reads it) with the
    longer sequences mixed in, cut at every length; each value alone, its
    truncations and the overlong forms of the longer lead bytes."""
    plain = long_text("utf-e-8").encode("utf-8")
    found = [plain[:length] for length in LENGTHS]
    rng = random.Random("utf-e-8/mixed")
    for index, value in enumerate(UTFE8_VALUES * 2):
        edge = [16, 32, 64, 128][index % 4] + (index % 3) - 1
        found.append(plain[:edge] + utfe8_encode(value) + plain[edge : edge + rng.choice([100, 300, 1200])])
    for value in UTFE8_VALUES:
        encoded = utfe8_encode(value)
        found.append(encoded)
        found += [b"ab" + encoded[:cut] for cut in range(1, len(encoded))]
    found += [b"\xf8\x87\xbf\xbf\xbf", b"\xfc\x83\xbf\xbf\xbf\xbf", b"\xfe\x81\xbf\xbf\xbf\xbf\xbf",
              b"\xff\x80\x80" + b"\x80" * 10, b"\xff\x80\x88" + b"\x80" * 10]
    return found


def family_texts(encode: Callable[[str], bytes], seed: str, bad: List[bytes]) -> List[bytes]:
    found = cut_texts(encode, seed) + damaged(encode, seed, bad)
    found.append(encode(EDGE_CHARACTERS))
    found += [b"ok" + sequence + b"ok" for sequence in bad]
    return found


LONE_SURROGATES = "\ud800 \udbff\udc00 \udfff"  # lone lead, trail-after-lead, lone trail

# ---- the targets ------------------------------------------------------------------
def seeds() -> Dict[str, List[bytes]]:
    """Input files per target, laid out as each target's header says."""
    utf8_bad = ill_formed("utf-8")
    by_target: Dict[str, List[bytes]] = {"utf8": texts("utf-8"), "transcode": [], "stream": []}
    # fuzz_transcode: form, cap; fuzz_stream: form, four chunk lengths
    # (fuzz_length: 00..3F themselves; 0x40 + 3 s + k around 64 + 16 s or
    # 128 (s - 31)).
    chunk_sets = [b"\x03\x01\x05\x05", b"\x10\x20\x40\x3f", bytes([0x40 + 1, 0x40 + 3 * 4 + 1, 0x40 + 3 * 12, 0x21]),
                  bytes([0x40 + 3 * 40 + 2, 0x00, 0x40 + 3 * 32 + 1, 0x11]), bytes([0x40 + 3 * 63 + 1] * 4)]
    for index, form in enumerate(FORMS):
        for number, data in enumerate(texts(form)):
            by_target["transcode"].append(bytes([index, number % 256]) + data)
            by_target["stream"].append(bytes([index]) + chunk_sets[number % len(chunk_sets)] + data)
    # fuzz_cesu8: byte 0 even = CESU-8, odd = MUTF-8; byte 1 the cap.
    cesu8_bad = utf8_bad + [three_bytes(0xD800), three_bytes(0xDC00) + three_bytes(0xD800),
                            b"\xf0\x9f\x98\x80", b"\x00", b"\xc0\x80"]
    by_target["cesu8"] = [bytes([0, number % 256]) + data for number, data in
                          enumerate(family_texts(cesu8, "cesu-8", cesu8_bad))]
    by_target["cesu8"] += [bytes([1, number % 256]) + data for number, data in
                           enumerate(family_texts(lambda s: cesu8(s, modified=True), "mutf-8", cesu8_bad))]
    by_target["cesu8"] += [bytes([k, 7]) + cesu8(LONE_SURROGATES + "\x00x\U0001f600", k == 1) for k in (0, 1)]
    # fuzz_wtf8: byte 0 the cap.
    wtf8_bad = utf8_bad + [three_bytes(0xD800) + three_bytes(0xDC00), three_bytes(0xDBFF)[:2]]
    by_target["wtf8"] = [bytes([number % 256]) + data for number, data in
                         enumerate(family_texts(wtf8, "wtf-8", wtf8_bad))]
    by_target["wtf8"].append(b"\x05" + wtf8(LONE_SURROGATES + "x\U0001f600"))
    # fuzz_offsets: form, offset width (even 4, odd 8), destination form; the
    # rest is the column's data (its own bytes cut it into items).
    by_target["offsets"] = [bytes([index, number % 2, (index + number) % 5]) + data
                            for index, form in enumerate(FORMS)
                            for number, data in enumerate(texts(form)[::3])]
    # fuzz_utfe8: byte 0 the cap.
    by_target["utfe8"] = [bytes([number % 256]) + data for number, data in enumerate(utfe8_texts())]
    by_target["partial"] = partial_seeds(cesu8_bad, wtf8_bad)
    return by_target


# utfkit.h's twelve form numbers, as fuzz_partial reads byte 0 and byte 1.
ALL_FORMS = FORMS + ["wtf-8", "cesu-8", "mutf-8", "latin-1", "ascii", "utf-e-8", "utf-8-rfc2279"]


def narrow_texts(form: str) -> List[bytes]:
    """Latin-1 or ASCII input: prose with what the form cannot encode as '?',
    cut at every length; every byte value; ASCII with bytes 80..FF in it."""
    whole = long_text(form).encode(form, "replace")
    found = [whole[:length] for length in LENGTHS]
    found.append(bytes(range(256)))
    found += [whole[:edge] + bytes([byte]) + whole[edge : edge + 300]
              for edge, byte in ((15, 0x80), (31, 0xE9), (63, 0xFF), (64, 0xA0), (127, 0xC3))]
    return found


def partial_seeds(cesu8_bad: List[bytes], wtf8_bad: List[bytes]) -> List[bytes]:
    """fuzz_partial: source form, destination form, the buffer's size (byte
    2, fuzz_length of it beyond the longest character), the first call's
    buffer (byte 3: below 80 possibly too small), three cuts (fuzz_length
    of bytes 4..6); the rest is text in the source form.  Every source form
    is paired with every destination, Latin-1 and ASCII both ways."""
    sources: Dict[int, List[bytes]] = {index: texts(form) for index, form in enumerate(FORMS)}
    sources[5] = family_texts(wtf8, "wtf-8", wtf8_bad)
    sources[6] = family_texts(cesu8, "cesu-8", cesu8_bad)
    sources[7] = family_texts(lambda s: cesu8(s, modified=True), "mutf-8", cesu8_bad)
    sources[8] = narrow_texts("latin-1")
    sources[9] = narrow_texts("ascii")
    sources[10] = utfe8_texts()
    sources[11] = [data for data in utfe8_texts() if not data or data[0] < 0xFE]
    # (buffer, first buffer, cuts): the longest character exactly, a few
    # bytes more, around a 64-byte block, a whole 4 KiB text; no cut, cuts
    # inside the first block, around the blocks' ends, near the end.
    shapes = [bytes([0x00, 0x05, 0x00, 0x00, 0x00]), bytes([0x03, 0x90, 0x07, 0x21, 0x41]),
              bytes([0x41, 0x00, 0x40 + 1, 0x40 + 3 * 4, 0x40 + 3 * 12 + 2]),
              bytes([0x40 + 3 * 8, 0x02, 0x3F, 0x40, 0x40 + 3 * 40]),
              bytes([0x40 + 3 * 63 + 1, 0xFF, 0x40 + 3 * 33, 0x40 + 3 * 45, 0x40 + 3 * 60])]
    found = []
    for source, inputs in sources.items():
        for number, data in enumerate(inputs[::4]):
            destination = (source + number) % len(ALL_FORMS)
            found.append(bytes([source, destination]) + shapes[number % len(shapes)] + data)
    return found


def main(argv: List[str]) -> int:
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(f"usage: {argv[0]} [OUT_DIR]   (default {FUZZ / 'seeds'})\n\n{__doc__}", file=sys.stderr)
        return 0 if argv[1:] in (["-h"], ["--help"]) else 2
    out = Path(argv[1]) if len(argv) > 1 else FUZZ / "seeds"
    made = seeds()
    targets = sorted(path.stem[len("fuzz_"):] for path in FUZZ.glob("fuzz_*.c"))
    missing = [target for target in targets if target not in made]
    if missing:
        print(f"make_seeds.py: no seeds for fuzz_{', fuzz_'.join(missing)}: "
              "describe their input layout here", file=sys.stderr)
        return 1
    for target, inputs in made.items():
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        for data in inputs:
            (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
        print(f"{folder}: {len(inputs)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
