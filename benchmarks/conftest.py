"""pytest-benchmark plumbing for utfkit's benchmarks (test_bench_utf8.py,
test_bench_transcode.py; the texts they share are in bench_texts.py).

- ``utfkit_backend``: the kernel utfkit runs with.  With the environment
  variable ``UTFKIT_BENCH_BACKENDS`` set to a comma-separated list (e.g.
  ``scalar,avx2``), every test that asks for it runs once per backend, which is
  made active for the test and restored after it; a backend this CPU cannot
  run is skipped with the reason.  Without it, tests run with the default
  backend and are not parametrised.
- ``throughput``: runs a benchmark inside a group, records the bytes read per
  call in ``extra_info`` (with the GB/s of the best and the median round, so
  they reach ``--benchmark-json``), and collects them for a GB/s table printed
  at the end of the session, since pytest-benchmark itself shows times only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import utfkit
from utfkit import _kernels

BACKENDS_ENV = "UTFKIT_BENCH_BACKENDS"


@dataclass(frozen=True)
class ThroughputRow:
    group: str
    name: str
    processed: int
    best_gbps: float
    median_gbps: float


_ROWS = pytest.StashKey[list[ThroughputRow]]()


def requested_backends() -> list[str] | None:
    """The backends named in ``UTFKIT_BENCH_BACKENDS``, or None when unset."""
    value = os.environ.get(BACKENDS_ENV, "")
    names = [name.strip() for name in value.split(",") if name.strip()]
    return names or None


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_ROWS] = []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "utfkit_backend" not in metafunc.fixturenames:
        return
    names = requested_backends()
    if names is not None:
        metafunc.parametrize("utfkit_backend", names, indirect=True, ids=names)


@pytest.fixture
def utfkit_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The name of the backend active for this test."""
    name: str | None = getattr(request, "param", None)
    if name is None:
        yield utfkit.backend()
        return
    previous = utfkit.backend()
    try:
        _kernels.set_backend(name)
    except ValueError as error:
        pytest.skip(f"{BACKENDS_ENV} names backend {name!r}, which cannot run here: {error}")
    try:
        yield utfkit.backend()
    finally:
        _kernels.set_backend(previous)


Throughput = Callable[..., Any]


@pytest.fixture
def throughput(benchmark: Any, pytestconfig: pytest.Config) -> Throughput:
    """``throughput(group, processed, function, *args)`` benchmarks
    ``function(*args)`` in ``group``, counting ``processed`` bytes per call,
    and returns the function's result."""

    def run(group: str, processed: int, function: Callable[..., Any], *args: Any) -> Any:
        benchmark.group = group
        benchmark.extra_info["bytes"] = processed
        benchmark.extra_info["backend"] = utfkit.backend()
        result = benchmark(function, *args)
        metadata = getattr(benchmark, "stats", None)
        stats = getattr(metadata, "stats", None)
        if stats is not None and stats.min > 0:
            # GB/s = bytes / seconds / 1e9; the stats are in seconds.
            best = processed / stats.min / 1e9
            median = processed / stats.median / 1e9
            benchmark.extra_info["gbps"] = round(best, 4)
            benchmark.extra_info["median_gbps"] = round(median, 4)
            pytestconfig.stash[_ROWS].append(
                ThroughputRow(group, benchmark.name, processed, best, median)
            )
        return result

    return run


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    rows = config.stash.get(_ROWS, [])
    if not rows:
        return
    terminalreporter.section("utfkit throughput: GB/s = bytes / seconds / 1e9")
    name_width = max(len(row.name) for row in rows)
    for group in sorted({row.group for row in rows}):
        members = sorted(
            (row for row in rows if row.group == group), key=lambda row: -row.best_gbps
        )
        terminalreporter.write_line(f"{group} ({members[0].processed} bytes per call)")
        for row in members:
            terminalreporter.write_line(
                f"  {row.name:<{name_width}}  best {row.best_gbps:8.3f}"
                f"  median {row.median_gbps:8.3f}"
            )
