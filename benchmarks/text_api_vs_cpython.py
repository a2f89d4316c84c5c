"""decode, encode and the other Python calls that ../shared/tools/pyspeed.py
does not time, against CPython's equivalent, at the sizes users call them with.

    python benchmarks/text_api_vs_cpython.py [--rounds N] [--ms M] [--sizes LIST] [--files]

Each cell is CPython's time / utfkit's time for the same work on the same
input (> 1: utfkit faster), the two timed in interleaved rounds on the
thread's CPU clock (a busy machine slows both alike), median of the rounds.
Texts are those pyspeed uses (ASCII: English Wikipedia with its non-ASCII
removed; Russian and Chinese lipsum), cut to whole characters at each size.
``--files`` prints instead decode and encode for every file of the shared
corpus.  Every pair is checked to give the same result first.  This
measures; it asserts nothing.

The calls (utfkit / CPython):

    decode        utfkit.decode(b)                  b.decode()
    encode        utfkit.encode(s)                  s.encode()
    decode16      utfkit.decode(u, "utf-16-le")     u.decode("utf-16-le")
    encode16      utfkit.encode(s, "utf-16-le")     s.encode("utf-16-le")
    incremental   IncrementalDecoder().decode(b, True)   the same, codecs' utf-8 decoder
    transcoder    IncrementalTranscoder("utf-8", "utf-16-le").feed(b)
                                                    codecs' incremental utf-8 decoder, then
                                                    utf-16-le encoder
    valid_up_to   utfkit.valid_up_to(b)             b.decode() (well-formed text)
    length16      utfkit.transcoded_length(b, "utf-8", "utf-16-le")
                                                    len(b.decode().encode("utf-16-le"))
    validate16    utfkit.validate(u, "utf-16-le")   u.decode("utf-16-le")
    latin1        utfkit.transcode(b, "utf-8", "latin-1", "replace")
                                                    b.decode().encode("latin-1", "replace")
"""

from __future__ import annotations

import argparse
import codecs
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import utfkit

ROOT = Path(__file__).resolve().parents[1]
CORPUS = next((folder for folder in (ROOT.parent / "shared" / "corpus", ROOT.parent.parent / "shared" / "corpus")
               if folder.is_dir()), ROOT.parent / "shared" / "corpus")
SIZES = [16, 64, 256, 1024, 4096, 65536]


def texts() -> Dict[str, bytes]:
    english = (CORPUS / "wikipedia_mars" / "english.utf8.txt").read_bytes()
    return {
        "ascii": bytes(b for b in english if b < 0x80),
        "russian": (CORPUS / "lipsum" / "Russian-Lipsum.utf8.txt").read_bytes(),
        "chinese": (CORPUS / "lipsum" / "Chinese-Lipsum.utf8.txt").read_bytes(),
    }


def cut(text: bytes, size: int) -> bytes:
    """`size` bytes of text (repeated as needed), cut back to a whole character."""
    body = (text * (size // len(text) + 2))[1000: 1000 + size]
    return body.decode("utf-8", "ignore").encode()[:size].decode("utf-8", "ignore").encode()


def timed(call: Callable[[], object], budget: float) -> float:
    """Seconds per call, from a batch lasting about `budget` seconds of CPU."""
    n = 1
    while True:
        start = time.thread_time()
        for _ in range(n):
            call()
        spent = time.thread_time() - start
        if spent >= budget or n >= 1 << 22:
            return spent / n
        n = max(n * 2, int(n * budget / max(spent, 1e-7)))


def race(ours: Callable[[], object], theirs: Callable[[], object], rounds: int, budget: float) -> float:
    if ours() != theirs():
        raise SystemExit("utfkit and CPython disagree")
    ratios = []
    for _ in range(rounds):
        mine = timed(ours, budget)
        ratios.append(timed(theirs, budget) / mine)
    return statistics.median(ratios)


def calls(data: bytes) -> List[Tuple[str, Callable[[], object], Callable[[], object]]]:
    text = data.decode()
    units = text.encode("utf-16-le")
    ours_decoder = utfkit.IncrementalDecoder()
    their_decoder = codecs.getincrementaldecoder("utf-8")()
    ours_transcoder = utfkit.IncrementalTranscoder("utf-8", "utf-16-le")
    their_encoder = codecs.getincrementalencoder("utf-16-le")()
    return [
        ("decode", lambda: utfkit.decode(data), lambda: data.decode()),
        ("encode", lambda: utfkit.encode(text), lambda: text.encode()),
        ("decode16", lambda: utfkit.decode(units, "utf-16-le"), lambda: units.decode("utf-16-le")),
        ("encode16", lambda: utfkit.encode(text, "utf-16-le"), lambda: text.encode("utf-16-le")),
        ("incremental", lambda: ours_decoder.decode(data, True), lambda: their_decoder.decode(data, True)),
        ("transcoder", lambda: ours_transcoder.feed(data), lambda: their_encoder.encode(their_decoder.decode(data))),
        ("valid_up_to", lambda: utfkit.valid_up_to(data) == len(data), lambda: len(data.decode()) >= 0),
        ("length16", lambda: utfkit.transcoded_length(data, "utf-8", "utf-16-le"),
         lambda: len(data.decode().encode("utf-16-le"))),
        ("validate16", lambda: utfkit.validate(units, "utf-16-le"), lambda: len(units.decode("utf-16-le")) >= 0),
        ("latin1", lambda: utfkit.transcode(data, "utf-8", "latin-1", "replace"),
         lambda: data.decode().encode("latin-1", "replace")),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ms", type=float, default=3.0, help="CPU milliseconds per batch (default 3)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--files", action="store_true", help="decode and encode of every corpus file")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    budget = args.ms / 1000
    print(f"utfkit {utfkit.__version__}, backend {utfkit.backend()}; cell = CPython time / utfkit time "
          "(> 1: utfkit faster), median of interleaved rounds")
    if args.files:
        print("| file | " + " | ".join(f"decode {size}" for size in sizes) + " | "
              + " | ".join(f"encode {size}" for size in sizes) + " |")
        print("|---|" + "---:|" * (2 * len(sizes)))
        for path in sorted(CORPUS.glob("*/*.txt")):
            whole = path.read_bytes()
            cells = []
            for operation in ("decode", "encode"):
                for size in sizes:
                    name, ours, theirs = next(c for c in calls(cut(whole, size)) if c[0] == operation)
                    cells.append(f"{race(ours, theirs, args.rounds, budget):.2f}")
            print(f"| {path.parent.name}/{path.name.split('.')[0]} | " + " | ".join(cells) + " |")
        return
    names = [name for name, _, _ in calls(b"x")]
    print("| text | bytes | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for label, whole in texts().items():
        for size in sizes:
            ratios = [race(ours, theirs, args.rounds, budget) for _, ours, theirs in calls(cut(whole, size))]
            print(f"| {label} | {size} | " + " | ".join(f"{ratio:.2f}" for ratio in ratios) + " |")


if __name__ == "__main__":
    main()
