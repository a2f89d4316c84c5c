"""Two threads validating at once: do they scale? (DESIGN.md section 4: the
GIL is released around every C call.)

Validates `--rounds` large buffers of multi-script UTF-8 with
utfkit.validate, and streams them through utfkit.Validator in 1 MiB
chunks, first in one thread, then in two threads at once (each doing the
same work as the single one).  With the GIL released during the C calls,
two threads on two free cores take about as long as one; holding the GIL
they would take twice as long.  Prints the wall times and their ratio
(best of --repeat runs, all in one process, so the ratio is same-run), and
the CPU time the two worker threads used per second of wall time: above 1.0
only if they ran at the same time, which a held GIL would forbid -- a figure
that holds even on a busy machine, where the wall-time ratio suffers; and
the share of the two-thread run during which both threads were inside a
utfkit call at once, which a held GIL would make 0%.

    python benchmarks/threads.py [--size-mib 64] [--rounds 8] [--repeat 5]

A measurement, not a test: the machine must have two cores to spare.
"""

from __future__ import annotations

import argparse
import os
import threading
import time

import utfkit
from utfkit.bench import corpus


def validate_whole(buffer: bytes, rounds: int, calls: list) -> None:
    for _ in range(rounds):
        start = time.perf_counter()
        assert utfkit.validate(buffer)
        calls.append((start, time.perf_counter()))


def validate_streamed(buffer: bytes, rounds: int, calls: list) -> None:
    view = memoryview(buffer)
    step = 1 << 20
    for _ in range(rounds):
        validator = utfkit.Validator()
        for offset in range(0, len(view), step):
            start = time.perf_counter()
            validator.feed(view[offset : offset + step])
            calls.append((start, time.perf_counter()))
        validator.finish()


def overlap(first: list, second: list) -> float:
    """Seconds during which both threads were inside a utfkit call (the
    calls of one thread do not overlap each other).  A held GIL would make
    this 0: a thread could not start a call while the other was in one."""
    total, j = 0.0, 0
    for start, end in first:
        while j < len(second) and second[j][1] <= start:
            j += 1
        k = j
        while k < len(second) and second[k][0] < end:
            total += max(0.0, min(end, second[k][1]) - max(start, second[k][0]))
            k += 1
    return total


def timed(work, buffer: bytes, rounds: int, threads: int) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds the worker threads used between them,
    seconds both were inside a utfkit call at once)."""
    used = []
    calls: list = [[] for _ in range(threads)]

    def worker(index: int) -> None:
        start = time.thread_time()
        work(buffer, rounds, calls[index])
        used.append(time.thread_time() - start)

    workers = [threading.Thread(target=worker, args=(index,)) for index in range(threads)]
    start = time.perf_counter()
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    both = overlap(calls[0], calls[1]) if threads == 2 else 0.0
    return time.perf_counter() - start, sum(used), both


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    piece = b"".join(corpus.generate(name, 1 << 20) for name in corpus.CORPUS_NAMES)
    buffer = (piece * (arguments.size_mib * (1 << 20) // len(piece) + 1))[: arguments.size_mib << 20]
    buffer = buffer[: utfkit.valid_up_to(buffer)]
    characters = utfkit.count(buffer)
    print(f"utfkit backend {utfkit.backend()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, "
          f"buffer {len(buffer) / 2**20:.0f} MiB ({len(buffer) / characters:.2f} bytes per character), "
          f"{arguments.rounds} rounds per thread, best of {arguments.repeat}")
    for label, work in (("validate()", validate_whole), ("Validator.feed() 1 MiB chunks", validate_streamed)):
        one = min(timed(work, buffer, arguments.rounds, 1) for _ in range(arguments.repeat))
        two = min(timed(work, buffer, arguments.rounds, 2) for _ in range(arguments.repeat))
        rate = arguments.rounds * len(buffer) / one[0] / 1e9
        print(f"{label:30s} 1 thread {one[0]:6.3f} s ({rate:.2f} GB/s)  2 threads {two[0]:6.3f} s  "
              f"ratio {two[0] / one[0]:.2f} (1.00 = perfect scaling, 2.00 = serialised)  "
              f"2-thread CPU/wall {two[1] / two[0]:.2f} (at most 1.00 if the GIL were held)  "
              f"both in C {two[2] / two[0]:.0%} of the time (0% if the GIL were held)")


if __name__ == "__main__":
    main()
