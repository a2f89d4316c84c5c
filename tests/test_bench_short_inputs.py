"""`utfkit bench --ops small,many`: the short-input timings run, check their
results against CPython first, and print a row per input."""

from __future__ import annotations

import pytest

from utfkit.bench import small
from utfkit.bench.tasks import tasks_for_text
from utfkit.bench.timing import measure
from utfkit.cli import main


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: timing runs once."""


def test_small_inputs_are_what_they_claim():
    for task in small.small_tasks():
        size = int(task.text.split()[0])
        assert task.processed == size and task.agrees
    items = small.many_items(count=500)
    assert len(items) == 500
    assert all(16 <= len(item) <= 200 for item in items)
    assert all(item.decode("utf-8") is not None for item in items)


def test_bench_small_and_many_print_a_row_each(capsys):
    status = main(["bench", "--ops", "small,many", "--repeat", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    for size in small.SMALL_SIZES:
        assert f"{size} B ascii" in out and f"{size} B cyrillic" in out
    assert f"{small.MANY_COUNT} strings" in out
    assert "WRONG RESULT" not in out


def test_validate_rows_carry_the_read_baseline_of_the_same_rounds():
    [task] = [task for task in tasks_for_text("t", "abc é".encode() * 100, ["validate"])]
    result = measure(task, repeat=1, target_ns=100_000)
    assert result.baseline is not None and result.of_baseline is not None and result.of_baseline > 0
