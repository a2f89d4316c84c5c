"""UTF-8 <-> UTF-16 through the Python API against CPython, on large inputs.

    python benchmarks/transcode_vs_cpython.py [--kernel NAME] [--size BYTES]
                                              [--rounds N] [FILE ...]

(default: the Russian, Chinese, Arabic and Emoji lipsum files of
../shared/corpus or ../../shared/corpus, 1 MiB, 21 rounds, the best kernel).  Each text is repeated
to about ``--size`` bytes of UTF-8 (cut on a character boundary); for each
direction it times ``utfkit.transcode(data, A, B)`` -- allocating its
result, as CPython does -- and ``data.decode(A).encode(B)``, one call of
each per round, the two interleaved, on the thread's CPU time clock (a busy
machine slows both alike), and prints the median of each in GB/s
of input and their ratio as a Markdown table.  Both outputs are compared
first.  This measures; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Callable, List

import utfkit
import utfkit._kernels

# ../shared beside the checkout, or beside a worktree's parent folder (as the Makefile looks)
ROOT = Path(__file__).resolve().parents[1]
CORPUS = next((folder for folder in (ROOT.parent / "shared" / "corpus" / "lipsum",
                                     ROOT.parent.parent / "shared" / "corpus" / "lipsum")
               if folder.is_dir()), ROOT.parent / "shared" / "corpus" / "lipsum")
DEFAULT_FILES = [str(CORPUS / f"{name}-Lipsum.utf8.txt") for name in ("Russian", "Chinese", "Arabic", "Emoji")]
DIRECTIONS = [("utf-8", "utf-16-le"), ("utf-16-le", "utf-8")]


def repeated(text: str, size: int) -> str:
    """`text` repeated to at least `size` bytes of UTF-8, cut back to about size."""
    encoded = text.encode("utf-8")
    whole = text * (size // len(encoded) + 1)
    return whole.encode("utf-8")[:size].decode("utf-8", "ignore")


def seconds(call: Callable[[], object]) -> float:
    start = time.thread_time()
    call()
    return time.thread_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="UTF-8 text files")
    parser.add_argument("--kernel", help="scalar, sse2, sse4, avx2 or avx512 (default: the best)")
    parser.add_argument("--size", type=int, default=1 << 20, help="bytes of UTF-8 per text (1 MiB)")
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (default 21)")
    args = parser.parse_args()
    if args.kernel:
        utfkit._kernels.set_backend(args.kernel)
    files = args.files or DEFAULT_FILES
    print(f"kernel {utfkit.backend()}; {args.size} bytes of UTF-8 per text; "
          f"median of {args.rounds} interleaved rounds, GB/s of input\n")
    print("| text | direction | utfkit.transcode | decode().encode() | ratio |")
    print("|---|---|---|---|---|")
    for path in files:
        name = os.path.basename(path).split(".")[0].replace("-Lipsum", "")
        text = repeated(Path(path).read_text(encoding="utf-8"), args.size)
        for source, target in DIRECTIONS:
            data = text.encode(source)
            assert utfkit.transcode(data, source, target) == data.decode(source).encode(target)
            ours: List[float] = []
            theirs: List[float] = []
            for _ in range(args.rounds):
                ours.append(seconds(lambda: utfkit.transcode(data, source, target)))
                theirs.append(seconds(lambda: data.decode(source).encode(target)))
            fast, slow = statistics.median(ours), statistics.median(theirs)
            print(f"| {name} | {source} -> {target} | {len(data) / fast / 1e9:.2f} "
                  f"| {len(data) / slow / 1e9:.2f} | {slow / fast:.2f} |")


if __name__ == "__main__":
    main()
