"""`utfkit bench --sizes`: every operation at every size, as median ratios to
CPython measured in the same rounds.  Tiny sizes and one round, so the tests
stay fast; no timing is asserted, only what is measured and how it is shown."""

from __future__ import annotations

import argparse
import re
import statistics

import pytest

import utfkit
from utfkit.bench import corpus
from utfkit.bench.runner import load_texts
from utfkit.bench.settings import SWEEP_OPS, Settings, SettingsError
from utfkit.bench.sizes import DEFAULT_SWEEP_SIZES, format_size, parse_size, parse_sizes
from utfkit.bench.tasks import Contender, Task
from utfkit.bench.timing import Measurement, Result
from utfkit.cli import main


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation (timing runs once),
    and restores the kernel a run may have chosen with --backend."""
    previous = utfkit.backend()
    yield None
    utfkit._kernels.set_backend(previous)


def _settings(**changes: object) -> Settings:
    fields: dict[str, object] = {
        "corpus": None, "sizes": (16, 64), "sweep": True, "texts": ("ascii", "cyrillic"),
        "ops": ("validate",), "repeat": 1, "cpu_time": False, "backend": None,
    }
    fields.update(changes)
    return Settings(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "size"),
    [("16", 16), ("256", 256), ("4K", 4096), ("64KiB", 65536), ("1M", 1 << 20), ("2g", 2 << 30)],
)
def test_sizes_are_powers_of_1024(text, size):
    assert parse_size(text) == size


def test_size_list_is_sorted_and_each_size_once():
    assert parse_sizes("1M,16,4K,256,64K,16") == (16, 256, 4096, 65536, 1 << 20)
    assert parse_sizes("16,256,4K,64K,1M") == DEFAULT_SWEEP_SIZES


@pytest.mark.parametrize("text", ["", "0", "-1", "4X", "1.5K", ","])
def test_a_size_that_is_not_one_is_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse_sizes(text)


@pytest.mark.parametrize(
    ("size", "shown"),
    [(16, "16 B"), (1000, "1000 B"), (4096, "4 KiB"), (6144, "6 KiB"), (65536, "64 KiB"),
     (1 << 20, "1 MiB"), ((1 << 20) + 1024, "1025 KiB")],
)
def test_sizes_are_shown_in_the_largest_whole_unit(size, shown):
    assert format_size(size) == shown


def test_each_generated_text_is_cut_to_each_size():
    sized = load_texts(_settings(sizes=(16, 64, 4096), texts=("ascii", "cjk", "cjk-dirty")))
    assert [size for size, _ in sized] == [16, 64, 4096]
    for size, texts in sized:
        assert [text.name for text in texts] == ["ascii", "cjk", "cjk-dirty"]
        ascii_text, cjk, cjk_dirty = texts
        assert len(ascii_text.utf8) == size
        # A cut never splits a character: up to 2 bytes of a 3-byte one are left off.
        assert size - 2 <= len(cjk.utf8) <= size
        cjk.utf8.decode("utf-8")
        assert cjk_dirty.is_dirty and cjk_dirty.clean_utf8 == cjk.utf8


def test_a_sweep_times_the_clean_texts_unless_told():
    settings = _settings(texts=None, sizes=(16,))
    [(_, texts)] = load_texts(settings)
    assert tuple(text.name for text in texts) == corpus.CORPUS_NAMES


def test_a_corpus_sweep_leaves_out_files_shorter_than_the_size(tmp_path):
    (tmp_path / "short.txt").write_bytes("щ".encode() * 20)  # 40 bytes
    (tmp_path / "long.txt").write_bytes("щ".encode() * 100)  # 200 bytes
    sized = load_texts(_settings(corpus=str(tmp_path), sizes=(32, 100), texts=None))
    names = {size: [text.name for text in texts] for size, texts in sized}
    assert names == {32: ["long", "short", "long-dirty", "short-dirty"],
                     100: ["long", "long-dirty"]}
    long_100 = sized[1][1][0]
    assert long_100.utf8 == "щ".encode() * 50


def test_an_unknown_text_is_a_settings_error():
    with pytest.raises(SettingsError, match="unknown text nosuch"):
        load_texts(_settings(texts=("ascii", "nosuch")))


def test_median_ratio_is_the_median_of_the_same_round_ratios():
    task = Task(text="t", op="validate", processed=100,
                cpython=Contender("cpython", int), utfkit=Contender("utfkit", int), agrees=True)
    # Round by round the machine slows down; each round's ratio is 2, 4, 3.
    mine = Measurement("utfkit", 1, [10.0, 20.0, 40.0])
    theirs = Measurement("cpython", 1, [20.0, 80.0, 120.0])
    result = Result(task, cpython=theirs, utfkit=mine)
    assert result.median_ratio == 3.0
    # Not the ratio of the medians (80 / 20), nor of the best rounds (20 / 10).
    assert result.median_ratio != statistics.median(theirs.per_call_ns) / statistics.median(
        mine.per_call_ns
    )
    assert result.ratio == 2.0


def test_a_sweep_without_ops_times_every_operation_that_has_a_utfkit_call():
    settings = Settings.from_args(
        argparse.Namespace(corpus=None, size=None, sizes=(16,), plot=None, ops=None,
                           texts=None, repeat=None, cpu_time=False, backend=None)
    )
    assert settings.sweep and settings.ops == SWEEP_OPS
    assert "validate" in SWEEP_OPS and "utf8>utf16le out=" in SWEEP_OPS
    assert not {"read", "small", "many"} & set(SWEEP_OPS)


def test_plot_alone_asks_for_the_default_sweep():
    settings = Settings.from_args(
        argparse.Namespace(corpus=None, size=None, sizes=None, plot="x.svg", ops=None,
                           texts=None, repeat=None, cpu_time=False, backend=None)
    )
    assert settings.sweep and settings.sizes == DEFAULT_SWEEP_SIZES


def test_sweep_prints_a_row_per_operation_and_size_and_a_column_per_text(capsys):
    status = main(["bench", "--sizes", "16,64", "--texts", "ascii,cyrillic,cjk-dirty",
                   "--ops", "validate,utf8>utf16le", "--repeat", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    table = out[out.index("\nop ") + 1 :].splitlines()
    assert table[0].split() == ["op", "size", "ascii", "cyrillic", "cjk-dirty"]
    op_width = len(table[1].split()[0])
    rows = []
    op = ""
    for line in table[2:]:
        op = line[:op_width].strip() or op
        size = line[op_width:].split()[:2]
        rows.append((op, " ".join(size), len(re.findall(r"\b\d+\.\d\dx\b", line))))
    # validate on every text (on the dirty one up to its first error),
    # valid_up_to on the dirty one only, and the allocating and out=
    # transcoding on all three: a row per size, in the order of OPERATIONS.
    assert rows == [
        (op, size, cells)
        for op, cells in [("validate", 3), ("valid_up_to", 1), ("utf8>utf16le", 3),
                          ("utf8>utf16le out=", 3)]
        for size in ("16 B", "64 B")
    ]
    assert "16 B" in out and "64 B" in out
    assert "median of 1 interleaved rounds" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--size", "4K", "--sizes", "16"], "give --size or --sizes, not both"),
        (["--sizes", "16", "--texts", "klingon"], "unknown text klingon"),
        (["--sizes", "16", "--backend", "nosuch"], "--backend nosuch"),
    ],
)
def test_a_sweep_that_cannot_run_exits_2_and_says_why(capsys, argv, message):
    assert main(["bench", *argv, "--ops", "validate", "--repeat", "1"]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""
