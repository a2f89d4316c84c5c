"""Streams of every form against the UTF-8 stream, on surrogate-free text.

    python benchmarks/stream_forms.py [--mib N] [--rounds N]

Validates (``utfkit.Validator``) and converts to UTF-16-LE
(``utfkit.IncrementalTranscoder``) the same text -- the lipsum corpus
(../shared/corpus/lipsum, or --corpus DIR) repeated to N MiB, every character below U+10000 except
the emoji file's -- in each UTF-8-based form, fed in 1 MiB chunks, and
prints each form's speed as a ratio to the UTF-8 stream's, measured in
interleaved rounds (best round of each), so the ratios hold on a busy
machine.  Issue 12 asks for >= 0.8 for WTF-8, CESU-8 and MUTF-8.
"""

from __future__ import annotations

import argparse
import pathlib
import time

import utfkit

CORPUS = pathlib.Path("../shared/corpus/lipsum")  # from the checkout's root, as the other benchmarks
FORMS = ["utf-8", "wtf-8", "cesu-8", "mutf-8"]
CHUNK = 1 << 20


def text(mib: int, corpus: pathlib.Path) -> bytes:
    sample = b"".join(path.read_bytes() for path in sorted(corpus.glob("*.txt")))
    if not sample:
        raise SystemExit(f"no *.txt in {corpus} (use --corpus DIR)")
    # surrogate-free in every form: no NUL (MUTF-8 writes it as C0 80, which is fine, but keep
    # the bytes identical), nothing above U+FFFF (CESU-8 and MUTF-8 write those as pairs)
    sample = "".join(ch for ch in sample.decode("utf-8") if 0 < ord(ch) < 0x10000).encode()
    return (sample * (1 + (mib << 20) // len(sample)))[: mib << 20].decode("utf-8", "ignore").encode()


def validate_stream(data: bytes, encoding: str) -> None:
    validator = utfkit.Validator(encoding)
    view = memoryview(data)
    for at in range(0, len(data), CHUNK):
        validator.feed(view[at : at + CHUNK])
    validator.finish()


def convert_stream(data: bytes, encoding: str) -> None:
    transcoder = utfkit.IncrementalTranscoder(encoding, "utf-16-le")
    view = memoryview(data)
    for at in range(0, len(data), CHUNK):
        transcoder.feed(view[at : at + CHUNK])
    transcoder.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--corpus", type=pathlib.Path, default=CORPUS)
    args = parser.parse_args()
    utf8 = text(args.mib, args.corpus)
    inputs = {form: utfkit.transcode(utf8, "utf-8", form) for form in FORMS}
    assert all(inputs[form] == utf8 for form in FORMS), "the text is the same bytes in every form"
    for name, operation in (("validate", validate_stream), ("convert to utf-16-le", convert_stream)):
        best = {form: float("inf") for form in FORMS}
        for _ in range(args.rounds):
            for form in FORMS:
                start = time.perf_counter()
                operation(inputs[form], form)
                best[form] = min(best[form], time.perf_counter() - start)
        print(f"{name}, {args.mib} MiB in 1 MiB chunks, kernel {utfkit.backend()}:")
        for form in FORMS:
            speed = len(utf8) / best[form] / 1e9
            print(f"  {form:7} {speed:6.2f} GB/s  {best['utf-8'] / best[form]:5.2f}x the utf-8 stream")


if __name__ == "__main__":
    main()
