"""Columns: utfkit.arrow against pyarrow's own cast, in one process.

    python benchmarks/columns.py [--corpus DIR] [--items N] [--rounds R] [--seed S]

Builds N (default 1,000,000) binary strings of 10-200 bytes cut at character
boundaries from the corpus (default: ../shared/corpus, every *.txt under
it), and a copy in which 1 % of the strings have one byte replaced by a byte
that cannot appear in UTF-8 (0xFF) or, where a character starts, by a
continuation byte (0x80).
Then, alternating the contestants round by round (median of R rounds, so a
busy machine slows each alike), times:

  cast        pc.cast(clean, pa.string())        pyarrow's UTF-8 check (the baseline)
  validate    utfkit.arrow.validate(clean)       a BooleanArray, per row
  sanitize    utfkit.arrow.sanitize(damaged)     the repaired StringArray
  count       utfkit.arrow.count(clean)          code points per row
  utf8_length pc.utf8_length(clean as string)    pyarrow's code-point count

and prints each median with its ratio to `cast`.  Before timing it checks
every result item by item against bytes.decode (strict for validate,
"replace" for sanitize and count); a mismatch exits 1.  The Required
figures (issue 13): validate <= 0.25 x cast, sanitize <= 0.5 x cast.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

import pyarrow as pa
import pyarrow.compute as pc

import utfkit
import utfkit.arrow

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"  # ../shared beside the checkout


def corpus_text(directory: Path) -> str:
    files = sorted(directory.rglob("*.txt"))
    if not files:
        sys.exit(f"no *.txt files under {directory}")
    return "".join(path.read_text(encoding="utf-8") for path in files)


def cut_strings(text: str, items: int, rng: random.Random) -> List[bytes]:
    """items UTF-8 strings of 10-200 bytes, each a slice of the text cut at
    character boundaries (slices of the str, encoded)."""
    strings = []
    encoded_limit = len(text) - 300
    while len(strings) < items:
        size = rng.randint(10, 200)
        start = rng.randrange(encoded_limit)
        piece = text[start : start + size].encode("utf-8")
        while len(piece) > 200:  # wide characters: drop from the end until it fits
            piece = piece[: 200].decode("utf-8", "ignore").encode("utf-8")
        if len(piece) >= 10:
            strings.append(piece)
    return strings


def damage(strings: List[bytes], share: float, rng: random.Random) -> List[bytes]:
    damaged = list(strings)
    for index in rng.sample(range(len(strings)), int(len(strings) * share)):
        value = bytearray(damaged[index])
        at = rng.randrange(len(value))
        # 0x80 is ill-formed where a character starts; 0xFF anywhere
        value[at] = 0x80 if value[at] < 0x80 or value[at] >= 0xC0 else 0xFF
        damaged[index] = bytes(value)
    return damaged


def check(clean: List[bytes], damaged: List[bytes], clean_arr: pa.Array, damaged_arr: pa.Array) -> None:
    """Every result equals bytes.decode's, item by item."""
    def strict_ok(value: bytes) -> bool:
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True

    failures = 0
    for name, arr, values in (("clean", clean_arr, clean), ("damaged", damaged_arr, damaged)):
        flags = utfkit.arrow.validate(arr).to_pylist()
        repaired = utfkit.arrow.sanitize(arr).to_pylist()
        counts = utfkit.arrow.count(arr).to_pylist()
        for index, value in enumerate(values):
            replaced = value.decode("utf-8", "replace")
            if flags[index] != strict_ok(value) or repaired[index] != replaced or counts[index] != len(replaced):
                failures += 1
                if failures < 5:
                    print(f"MISMATCH {name}[{index}]: {value!r}", file=sys.stderr)
    if failures:
        sys.exit(f"{failures} items differ from bytes.decode")
    bad = sum(1 for flag in utfkit.arrow.validate(damaged_arr).to_pylist() if not flag)
    print(f"checked {len(clean) + len(damaged):,} items against bytes.decode: all equal "
          f"({bad:,} damaged items found and repaired)")


def measure(contestants: Dict[str, Callable[[], object]], rounds: int) -> Dict[str, float]:
    times: Dict[str, List[float]] = {name: [] for name in contestants}
    for _ in range(rounds):
        for name, run in contestants.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    clean = cut_strings(corpus_text(args.corpus), args.items, rng)
    damaged = damage(clean, 0.01, rng)
    clean_arr = pa.array(clean, pa.binary())
    damaged_arr = pa.array(damaged, pa.binary())
    clean_string = clean_arr.cast(pa.string())
    size = clean_arr.buffers()[2].size
    print(f"{len(clean):,} strings of 10-200 bytes, {size / 1e6:.1f} MB; utfkit {utfkit.__version__} "
          f"(kernel {utfkit.backend()}), pyarrow {pa.__version__}")
    check(clean, damaged, clean_arr, damaged_arr)
    try:
        pc.cast(damaged_arr, pa.string())
    except pa.ArrowInvalid as error:
        print(f"pc.cast on the damaged column raises: {str(error)[:60]}...")

    medians = measure(
        {
            "cast": lambda: pc.cast(clean_arr, pa.string()),
            "validate": lambda: utfkit.arrow.validate(clean_arr),
            "sanitize": lambda: utfkit.arrow.sanitize(damaged_arr),
            "sanitize (clean)": lambda: utfkit.arrow.sanitize(clean_arr),
            "count": lambda: utfkit.arrow.count(clean_arr),
            "utf8_length": lambda: pc.utf8_length(clean_string),
        },
        args.rounds,
    )
    base = medians["cast"]
    print(f"\nmedian of {args.rounds} interleaved rounds")
    print(f"{'what':<18}{'ms':>9}{'x cast':>9}{'GB/s':>8}")
    for name, seconds in medians.items():
        print(f"{name:<18}{seconds * 1e3:9.2f}{seconds / base:9.3f}{size / seconds / 1e9:8.2f}")
    validate_ratio, sanitize_ratio = medians["validate"] / base, medians["sanitize"] / base
    print(f"\nvalidate / cast = {validate_ratio:.3f} (required <= 0.25): "
          f"{'met' if validate_ratio <= 0.25 else 'NOT met'}")
    print(f"sanitize(damaged) / cast(clean) = {sanitize_ratio:.3f} (required <= 0.5): "
          f"{'met' if sanitize_ratio <= 0.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
