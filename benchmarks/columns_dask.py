"""The Dask recipe (README, "Columns and clusters") on 1 and on 2 worker
processes of a distributed.LocalCluster: wall-clock time and speed-up.

    python benchmarks/columns_dask.py [--corpus DIR] [--partitions 8] [--items 125000] [--rounds 9]

Writes PARTITIONS Parquet files of ITEMS strings of 10-200 bytes each, cut
from the corpus (as benchmarks/columns.py cuts them), 1 % of them damaged,
in a `string` column beside an int64 column.  Then, for 1 and for 2 worker
processes of one thread each (the cluster started beforehand, not timed),
times the recipe end to end: read_parquet -> utfkit.frames.validate_columns
(count of bad values) and utfkit.frames.sanitize_columns -> to_parquet.
Median of ROUNDS runs for each, alternating.  The Required figure (issue
13): 2 workers at >= 1.4 x the speed of 1.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import List

import dask
import dask.dataframe as dd
import distributed
import pyarrow as pa
import pyarrow.parquet as pq

import utfkit.frames

sys.path.insert(0, str(Path(__file__).resolve().parent))
from columns import DEFAULT_CORPUS, corpus_text, cut_strings, damage  # noqa: E402


def write_partitions(directory: Path, corpus: Path, partitions: int, items: int, seed: int) -> int:
    rng = random.Random(seed)
    text = corpus_text(corpus)
    size = 0
    for part in range(partitions):
        values = damage(cut_strings(text, items, rng), 0.01, rng)
        binary = pa.array(values, pa.binary())
        column = pa.Array.from_buffers(pa.string(), len(binary), binary.buffers())  # as another writer leaves it
        pq.write_table(pa.table({"id": pa.array(range(items), pa.int64()), "text": column}),
                       directory / f"part{part:02}.parquet")
        size += binary.buffers()[2].size
    return size


def recipe(source: Path, target: Path) -> int:
    """One graph: each partition is read once, counted and repaired."""
    frame = dd.read_parquet(str(source))
    bad = (~utfkit.frames.validate_columns(frame, ["text"])["text"].fillna(True)).sum()
    written = utfkit.frames.sanitize_columns(frame, ["text"]).to_parquet(str(target), overwrite=True, compute=False)
    counted, _ = dask.compute(bad, written)
    return int(counted)


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--items", type=int, default=125_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="utfkit-dask-"))
    try:
        source = work / "in"
        source.mkdir()
        size = write_partitions(source, args.corpus, args.partitions, args.items, args.seed)
        print(f"{args.partitions} partitions x {args.items:,} strings, {size / 1e6:.0f} MB of text")
        clusters = {
            workers: distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            )
            for workers in (1, 2)
        }
        times = {workers: [] for workers in clusters}
        try:
            for _ in range(args.rounds):
                for workers, cluster in clusters.items():
                    with distributed.Client(cluster):
                        start = time.perf_counter()
                        bad = recipe(source, work / f"out{workers}")
                        times[workers].append(time.perf_counter() - start)
                    assert bad == int(args.partitions * args.items * 0.01), bad
        finally:
            for cluster in clusters.values():
                cluster.close()
        one, two = statistics.median(times[1]), statistics.median(times[2])
        print(f"1 worker process:  {one:.2f} s  ({size / one / 1e6:.0f} MB/s)")
        print(f"2 worker processes: {two:.2f} s  ({size / two / 1e6:.0f} MB/s)")
        print(f"speed-up {one / two:.2f} x (required >= 1.4): {'met' if one / two >= 1.4 else 'NOT met'}")
        print(f"(median of {args.rounds} alternating runs; {bad:,} bad values found and repaired per run)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
