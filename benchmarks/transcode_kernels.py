"""Transcoding kernels against CPython, and the cost of errors, per text.

    python benchmarks/transcode_kernels.py [--kernel NAME] [--rounds N] [FILE ...]

(default: the lipsum files of ../shared/corpus, the best kernel).  For each
text and each direction the SIMD kernels accelerate (UTF-8 to UTF-16-LE/BE
and UTF-32-LE, UTF-16-LE and UTF-32-LE to UTF-8) it times, in interleaved
rounds, the best single call of:

``strict``   ``utfkit.transcode(clean, A, B, "strict", out=buffer)``
``replace``  the same with ``errors="replace"`` (clean text: no errors met)
``dirty``    ``utfkit.transcode(dirty, A, B, "replace", out=buffer)``, where
             ``dirty`` is the text with one ill-formed subsequence per KiB
             (``utfkit.bench.corpus.dirty``)
``CPython``  ``clean.decode(A).encode(B)``

and prints GB/s of input, the ratio strict / CPython and the ratio of the
dirty to the clean replace speed, as a Markdown table.  ``out=`` is one
buffer reused by every call, so the figures are the conversion itself (an
allocating call also pays for fresh pages).  Every output is checked against
CPython's first.
"""

from __future__ import annotations

import argparse
import glob
import os
import time
from pathlib import Path
from typing import Callable

import utfkit
import utfkit._kernels
from utfkit.bench import corpus

DIRECTIONS = [
    ("utf-8", "utf-16-le"),
    ("utf-8", "utf-16-be"),
    ("utf-8", "utf-32-le"),
    ("utf-16-le", "utf-8"),
    ("utf-32-le", "utf-8"),
]
DEFAULT_FILES = str(Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "lipsum" / "*.txt")


def best_call(call: Callable[[], object], calls: int = 15) -> float:
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="UTF-8 text files (default: the lipsum corpus)")
    parser.add_argument("--kernel", help="scalar, sse2, avx2 or avx512 (default: the best)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    args = parser.parse_args()
    if args.kernel:
        utfkit._kernels.set_backend(args.kernel)
    files = args.files or sorted(glob.glob(DEFAULT_FILES))
    print(f"kernel {utfkit.backend()}; GB/s of input, best call of {args.rounds} interleaved rounds\n")
    print("| text | direction | strict | replace | dirty | CPython | strict / CPython | dirty / clean |")
    print("|---|---|---|---|---|---|---|---|")
    for path in files:
        name = os.path.basename(path).split(".")[0]
        text = Path(path).read_bytes()
        for source, target in DIRECTIONS:
            clean = text.decode("utf-8").encode(source)
            dirty = corpus.dirty(clean, encoding=source)
            out = bytearray(4 * max(len(clean), len(dirty)) + 64)
            expected = clean.decode(source).encode(target)
            assert bytes(out[: utfkit.transcode(clean, source, target, out=out)]) == expected
            dirty_expected = dirty.decode(source, "replace").encode(target)
            assert bytes(out[: utfkit.transcode(dirty, source, target, "replace", out=out)]) == dirty_expected
            calls = {
                "strict": lambda: utfkit.transcode(clean, source, target, "strict", out=out),
                "replace": lambda: utfkit.transcode(clean, source, target, "replace", out=out),
                "dirty": lambda: utfkit.transcode(dirty, source, target, "replace", out=out),
                "cpython": lambda: clean.decode(source).encode(target),
            }
            seconds = {key: float("inf") for key in calls}
            for _ in range(args.rounds):
                for key, call in calls.items():
                    seconds[key] = min(seconds[key], best_call(call))
            rate = {key: (len(dirty) if key == "dirty" else len(clean)) / value / 1e9
                    for key, value in seconds.items()}
            print(f"| {name} | {source}>{target} | {rate['strict']:.2f} | {rate['replace']:.2f} | "
                  f"{rate['dirty']:.2f} | {rate['cpython']:.2f} | {rate['strict'] / rate['cpython']:.1f}x | "
                  f"{rate['dirty'] / rate['replace']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
