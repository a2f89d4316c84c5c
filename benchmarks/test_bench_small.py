"""Short inputs: the cost of one validate call, and of validate_many.

Run from the repository root (not part of the plain ``pytest`` run):

    pytest benchmarks/testsmall.py --benchmark-group-by=group

Groups (pytest-benchmark shows time per call; compare within a group):

``small/<size> <kind>``  ``utfkit.validate(b)`` vs ``b.decode("utf-8")`` vs
                         ``b.isascii()`` (the floor: no call that looks at
                         every byte costs less from Python), on 16 B, 64 B
                         and 1 KiB of ASCII and of Cyrillic text
``many``                 ``utfkit.validate_many(items)`` vs a Python loop of
                         ``b.decode("utf-8")`` over 10,000 strings of 16 to
                         200 bytes (utfkit.bench.small.many_items)

``utfkit bench --ops small,many`` times the same pairs interleaved and
prints the ratios.
"""

from __future__ import annotations

from typing import Any

import pytest

import utfkit
from utfkit.bench import corpus, small

SOURCES = {"ascii": corpus.generate("ascii", 4096), "cyrillic": corpus.generate("cyrillic", 4096)}
CASES = [(size, kind) for size in small.SMALL_SIZES for kind in SOURCES]
IDS = [f"{size}B-{kind}" for size, kind in CASES]


def _input(size: int, kind: str) -> bytes:
    return small.cut(SOURCES[kind], size)


@pytest.mark.parametrize("size, kind", CASES, ids=IDS)
def test_small_validate_utfkit(benchmark: Any, utfkit_backend: str, size: int, kind: str) -> None:
    data = _input(size, kind)
    benchmark.group = f"small/{size} B {kind}"
    assert benchmark(utfkit.validate, data) is True


@pytest.mark.parametrize("size, kind", CASES, ids=IDS)
def test_small_decode_cpython(benchmark: Any, size: int, kind: str) -> None:
    data = _input(size, kind)
    benchmark.group = f"small/{size} B {kind}"
    assert benchmark(data.decode, "utf-8") is not None


@pytest.mark.parametrize("size, kind", CASES, ids=IDS)
def test_small_isascii_floor(benchmark: Any, size: int, kind: str) -> None:
    data = _input(size, kind)
    benchmark.group = f"small/{size} B {kind}"
    assert benchmark(data.isascii) is (kind == "ascii")


ITEMS = small.many_items()


def test_many_validate_many_utfkit(benchmark: Any, utfkit_backend: str) -> None:
    benchmark.group = "many"
    assert benchmark(utfkit.validate_many, ITEMS) == [True] * len(ITEMS)


def test_many_decode_loop_cpython(benchmark: Any) -> None:
    benchmark.group = "many"
    assert benchmark(small.decode_loop, ITEMS) == [True] * len(ITEMS)
