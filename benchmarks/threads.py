"""Two threads validating at once: do they scale? (DESIGN.md section 4: the
GIL is released around every C call.)

Validates `--rounds` large buffers of multi-script UTF-8 with
utfkit.validate, and streams them through utfkit.Validator in 1 MiB
chunks, first in one thread, then in two threads at once (each doing the
same work as the single one).  With the GIL released during the C calls,
two threads on two free cores take about as long as one; holding the GIL
they would take twice as long.  Prints the wall times and their ratio
(best of --repeat runs, all in one process, so the ratio is same-run).

    python benchmarks/threads.py [--size-mib 64] [--rounds 8] [--repeat 5]

A measurement, not a test: the machine must have two cores to spare.
"""

from __future__ import annotations

import argparse
import os
import threading
import time

import utfkit
from utfkit import _corpus


def validate_whole(buffer: bytes, rounds: int) -> None:
    for _ in range(rounds):
        assert utfkit.validate(buffer)


def validate_streamed(buffer: bytes, rounds: int) -> None:
    view = memoryview(buffer)
    step = 1 << 20
    for _ in range(rounds):
        validator = utfkit.Validator()
        for start in range(0, len(view), step):
            validator.feed(view[start : start + step])
        validator.finish()


def timed(work, buffer: bytes, rounds: int, threads: int) -> float:
    workers = [threading.Thread(target=work, args=(buffer, rounds)) for _ in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    piece = b"".join(_corpus.generate(name, 1 << 20) for name in _corpus.CORPUS_NAMES)
    buffer = (piece * (arguments.size_mib * (1 << 20) // len(piece) + 1))[: arguments.size_mib << 20]
    buffer = buffer[: utfkit.valid_up_to(buffer)]
    print(f"utfkit backend {utfkit.backend()}, {os.cpu_count()} CPUs, buffer {len(buffer) / 2**20:.0f} MiB "
          f"({sum(b >= 0x80 for b in buffer[:1 << 16]) / (1 << 16):.0%} non-ASCII bytes), "
          f"{arguments.rounds} rounds per thread, best of {arguments.repeat}")
    for label, work in (("validate()", validate_whole), ("Validator.feed() 1 MiB chunks", validate_streamed)):
        one = min(timed(work, buffer, arguments.rounds, 1) for _ in range(arguments.repeat))
        two = min(timed(work, buffer, arguments.rounds, 2) for _ in range(arguments.repeat))
        rate = arguments.rounds * len(buffer) / one / 1e9
        print(f"{label:32s} 1 thread {one:6.3f} s ({rate:.2f} GB/s)   2 threads {two:6.3f} s   "
              f"ratio {two / one:.2f} (1.00 = perfect scaling, 2.00 = serialised)")


if __name__ == "__main__":
    main()
