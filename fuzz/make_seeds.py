"""Seed corpora for the fuzz targets, generated from utfkit's own test inputs.

Writes fuzz/seeds/<target>/<name> for every fuzz/fuzz_<target>.c this script
knows the input layout of (see each target's header comment): the
multi-script texts of utfkit's generated corpus (utfkit._corpus), the same
texts with ill-formed code units sprinkled in (utfkit._corpus.dirty), and
the Table 3-7 edge cases the tests spell out -- every truncation of a
character of each length, overlongs, surrogates, values above U+10FFFF --
in every encoding form.  Deterministic, so the seeds need not be committed:
`make fuzz` runs this first.

    python fuzz/make_seeds.py [OUT_DIR]
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from utfkit import _corpus

FORMS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]

# Table 3-7's boundaries: the first and last character of each row.
EDGE_CHARACTERS = "\x00\x7f\x80\u07ff\u0800\u0fff\u1000\ucfff\ud000\ud7ff\ue000\uffff\U00010000\U0003ffff\U00040000\U000fffff\U00100000\U0010ffff"

# Ill-formed UTF-8 the tests name: lone continuation bytes, C0/C1/F5..FF,
# overlongs, encoded surrogates, values past U+10FFFF, truncated rows.
ILL_FORMED_UTF8 = [
    b"\x80", b"\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf",
    b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x80\x80\xaf", b"\xf0\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xfe", b"\xe1\x80", b"\xf1\x80\x80",
    b"\xc2", b"\xed\xa0", b"\xed\xa0\x80\xed\xb0\x80",
]
# Ill-formed UTF-16 / UTF-32 code units: lone lead and trail surrogates,
# a lead followed by another lead, values past 10FFFF, odd lengths.
ILL_FORMED_UNITS = [0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x110000, 0xFFFFFFFF]


def _units(values: list[int], form: str) -> bytes:
    size = 2 if "16" in form else 4
    order = "little" if form.endswith("le") else "big"
    return b"".join((v & ((1 << (8 * size)) - 1)).to_bytes(size, order) for v in values)


def texts(form: str) -> list[bytes]:
    """Inputs in `form`: corpus texts, dirty texts, edge characters, ill-formed units."""
    found = []
    for name in _corpus.CORPUS_NAMES:
        clean = _corpus.generate(name, 600).decode("utf-8").encode(form)
        found += [clean, _corpus.dirty(clean, every=97, encoding=form)]
    edges = EDGE_CHARACTERS.encode(form, "surrogatepass")
    found.append(edges)
    for character in EDGE_CHARACTERS:
        encoded = character.encode(form)
        found += [encoded[:cut] + b"A" for cut in range(1, len(encoded))]
        found += [b"xy" + encoded[:cut] for cut in range(1, len(encoded))]
    if form == "utf-8":
        found += [b"ok " + bad + b" ok" for bad in ILL_FORMED_UTF8]
        found.append(b"".join(ILL_FORMED_UTF8))
    else:
        found += [b"o\x00k\x00" + _units([bad, 0x41, bad, bad], form) + b"\x00" for bad in ILL_FORMED_UNITS]
    return found


def seeds() -> dict[str, list[bytes]]:
    """Input files per target, laid out as each target's header says."""
    by_target: dict[str, list[bytes]] = {"utf8": texts("utf-8"), "transcode": [], "stream": []}
    for index, form in enumerate(FORMS):
        for number, text in enumerate(texts(form)):
            by_target["transcode"].append(bytes([index, number % 256]) + text)
            by_target["stream"].append(bytes([index, 1 + number % 7, 3, 0, 5]) + text)
    return by_target


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent / "seeds"
    for target, inputs in seeds().items():
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        for data in inputs:
            (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
        print(f"{folder}: {len(inputs)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
