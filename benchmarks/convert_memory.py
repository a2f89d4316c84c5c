"""Peak memory of `utfkit convert` / `utfkit fix` on a large file.

Writes a --size-mib file of multi-script UTF-8 (and a copy with ill-formed
bytes sprinkled in), runs the commands on it as child processes, and prints
each one's wall time and maximum resident set size (the children's
ru_maxrss).  The commands stream in 1 MiB chunks, so the peak should not
grow with the file.

    python benchmarks/convert_memory.py [--size-mib 512] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def write_input(path: str, size: int, dirty: bool) -> None:
    from utfkit.bench import corpus

    piece = b"".join(corpus.generate(name, 1 << 20) for name in corpus.CORPUS_NAMES)
    if dirty:
        piece = corpus.dirty(piece, every=4096)
    with open(path, "wb") as out:
        written = 0
        while written < size:
            out.write(piece[: size - written])
            written += min(len(piece), size - written)


def peak_of(command: list[str]) -> tuple[float, float]:
    """(seconds, max RSS in MB) of one child process, from its own rusage."""
    start = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    return elapsed, usage.ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    if sys.argv[1:2] == ["--write"]:
        write_input(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "True")
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    arguments = parser.parse_args()
    size = arguments.size_mib << 20
    clean = os.path.join(arguments.dir, "utfkit-memory-clean.txt")
    dirty = os.path.join(arguments.dir, "utfkit-memory-dirty.txt")
    out = os.path.join(arguments.dir, "utfkit-memory-out")
    # The inputs are written by a child, so that this process stays small:
    # a child's ru_maxrss starts from the size of the process it was forked from.
    for path, is_dirty in ((clean, False), (dirty, True)):
        subprocess.run([sys.executable, __file__, "--write", path, str(size), str(is_dirty)], check=True)
    utfkit = [sys.executable, "-m", "utfkit"]
    runs = [
        ["convert", "-f", "utf-8", "-t", "utf-16-le", "--errors", "replace", clean, out],
        ["fix", dirty, out],
    ]
    for run in runs:
        seconds, peak = peak_of(utfkit + run)
        print(f"utfkit {' '.join(run[:-2])} {arguments.size_mib} MiB: {seconds:.1f} s, max RSS {peak:.0f} MB")
    for path in (clean, dirty, out):
        os.unlink(path)


if __name__ == "__main__":
    main()
