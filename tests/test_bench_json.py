"""`utfkit bench --json`: a document that records its schema version and
holds every field the README lists, with the types it gives them; and
`--compare BASE.json`, which re-runs what BASE measured and sets each cell
against BASE's.  Tiny sizes and one round: no timing is asserted."""

from __future__ import annotations

import copy
import json

import pytest

import utfkit
from utfkit.bench import schema
from utfkit.bench.compare import compare, machine_warnings
from utfkit.bench.settings import Settings
from utfkit.cli import main

TINY_SWEEP = ["--sizes", "16,64", "--texts", "ascii,cjk-dirty", "--ops", "validate,count",
              "--repeat", "2"]

NUMBER = (int, float)


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation (timing runs once),
    and restores the kernel a run may have chosen with --backend."""
    previous = utfkit.backend()
    yield None
    utfkit._kernels.set_backend(previous)


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory):
    """One tiny sweep saved with --json, shared by the tests of this module."""
    path = tmp_path_factory.mktemp("bench") / "base.json"
    previous = utfkit.backend()
    try:
        path.write_text(_run_json(TINY_SWEEP), encoding="utf-8")
    finally:
        utfkit._kernels.set_backend(previous)
    return path


def _run_json(argv: list[str]) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["bench", "--json", *argv])
    assert status == 0, out.getvalue()
    return out.getvalue()


def _check_measurement(measurement, rounds):
    assert set(measurement) >= {"call", "loops", "rounds", "best_ns", "median_ns",
                                "per_round_ns", "gbps", "median_gbps", "minor_faults_per_call"}
    assert isinstance(measurement["call"], str)
    assert measurement["rounds"] == rounds == len(measurement["per_round_ns"])
    assert measurement["best_ns"] == min(measurement["per_round_ns"])
    assert isinstance(measurement["loops"], int) and measurement["loops"] >= 1
    assert all(isinstance(measurement[key], NUMBER) for key in ("median_ns", "gbps", "median_gbps"))


def test_the_document_records_its_schema_and_version(saved_run):
    document = json.loads(saved_run.read_text(encoding="utf-8"))
    assert document["schema"] == "utfkit-bench"
    assert document["schema_version"] == schema.SCHEMA_VERSION == 1
    assert set(document) >= {"schema", "schema_version", "created", "machine", "settings",
                             "operations", "texts", "results", "disagreements"}
    assert document["disagreements"] == 0


def test_machine_names_cpu_kernel_python_and_utfkit(saved_run):
    machine = json.loads(saved_run.read_text(encoding="utf-8"))["machine"]
    assert set(machine) >= {"cpu", "cpu_count", "machine", "system", "kernel", "python",
                            "utfkit", "backend", "load_average_1min",
                            "clock"}
    assert machine["backend"] == utfkit.backend()
    assert machine["utfkit"] == utfkit.__version__


def test_settings_say_what_was_run_and_read_back_as_the_same_settings(saved_run):
    settings = json.loads(saved_run.read_text(encoding="utf-8"))["settings"]
    assert settings == {
        "corpus": None, "sizes": [16, 64], "sweep": True, "texts": ["ascii", "cjk-dirty"],
        "ops": ["validate", "count", "valid_up_to"], "repeat": 2, "clock": "wall",
        "backend": None, "round_target_ns": settings["round_target_ns"],
    }
    again = Settings.from_json(settings)
    assert (again.sizes, again.texts, again.ops, again.repeat, again.cpu_time, again.sweep) == (
        (16, 64), ("ascii", "cjk-dirty"), ("validate", "count", "valid_up_to"), 2, False, True
    )


def test_texts_list_each_text_at_each_size(saved_run):
    texts = json.loads(saved_run.read_text(encoding="utf-8"))["texts"]
    assert [(text["name"], text["size"], text["dirty"]) for text in texts] == [
        ("ascii", 16, False), ("cjk-dirty", 16, True), ("ascii", 64, False), ("cjk-dirty", 64, True)
    ]
    assert all(text["path"] is None and isinstance(text["utf8_bytes"], int) for text in texts)


def test_every_result_row_has_every_field(saved_run):
    document = json.loads(saved_run.read_text(encoding="utf-8"))
    rows = document["results"]
    cells = {(row["op"], row["text"], row["size"]) for row in rows}
    assert cells == {
        (op, text, size)
        for size in (16, 64)
        for op, text in [("validate", "ascii"), ("count", "ascii"), ("validate", "cjk-dirty"),
                         ("count", "cjk-dirty"), ("valid_up_to", "cjk-dirty")]
    }
    for row in rows:
        assert set(row) >= {"op", "text", "size", "bytes", "errors", "utfkit", "cpython",
                            "read_baseline", "ratio", "median_ratio", "of_read_baseline",
                            "agrees", "disagreement"}
        _check_measurement(row["utfkit"], 2)
        _check_measurement(row["cpython"], 2)
        assert row["agrees"] is True and row["disagreement"] is None
        same_round = sorted(
            theirs / mine
            for theirs, mine in zip(row["cpython"]["per_round_ns"], row["utfkit"]["per_round_ns"])
        )
        assert row["median_ratio"] == pytest.approx(sum(same_round) / 2)
        assert row["ratio"] == pytest.approx(row["cpython"]["best_ns"] / row["utfkit"]["best_ns"])
        # The read baseline goes with validate on a clean text only.
        has_baseline = row["op"] == "validate" and row["text"] == "ascii"
        assert (row["read_baseline"] is not None) == has_baseline
        if has_baseline:
            _check_measurement(row["read_baseline"], 2)


def test_load_refuses_what_is_not_a_document_of_this_version(saved_run, tmp_path):
    document = json.loads(saved_run.read_text(encoding="utf-8"))
    assert schema.load(str(saved_run)) == document
    cases = {
        "not-json.json": "{",
        "other.json": json.dumps({"results": []}),
        "future.json": json.dumps({**document, "schema_version": 2}),
        "no-results.json": json.dumps({k: v for k, v in document.items() if k != "results"}),
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(schema.SchemaError):
            schema.load(str(tmp_path / name))


def _document(cpu="CPU A", backend="avx2", python="CPython 3.11.7", cells=()):
    return {
        "schema": "utfkit-bench", "schema_version": 1,
        "machine": {"cpu": cpu, "backend": backend, "python": python},
        "settings": {"clock": "wall"},
        "results": [
            {"op": op, "text": text, "size": size, "median_ratio": ratio,
             "utfkit": {"median_ns": mine}, "cpython": {"median_ns": theirs}}
            for op, text, size, mine, theirs, ratio in cells
        ],
    }


def test_compare_gives_each_cells_speedup_against_base():
    base = _document(cells=[("validate", "ascii", 16, 200.0, 100.0, 0.5),
                            ("count", "ascii", 16, 300.0, 300.0, 1.0),
                            ("replace", "ascii", 16, 50.0, 50.0, 1.0)])
    now = _document(cells=[("validate", "ascii", 16, 100.0, 100.0, 1.0),
                           ("count", "ascii", 16, 600.0, 300.0, 0.5),
                           ("decode", "ascii", 16, 10.0, 10.0, 1.0)])
    comparison = compare(base, now)
    assert comparison.warnings == []
    speedups = {change.key: (change.utfkit_speedup, change.cpython_speedup, change.ratio_base,
                             change.ratio_now) for change in comparison.changes}
    assert speedups == {("validate", "ascii", 16): (2.0, 1.0, 0.5, 1.0),
                        ("count", "ascii", 16): (0.5, 1.0, 1.0, 0.5)}
    assert comparison.only_base == [("replace", "ascii", 16)]
    assert comparison.only_now == [("decode", "ascii", 16)]
    assert comparison.geometric_mean("utfkit") == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("changes", "what"),
    [({"cpu": "CPU B"}, "CPU differs"), ({"backend": "avx512"}, "kernel differs"),
     ({"python": "CPython 3.12.1"}, "Python differs")],
)
def test_compare_warns_when_cpu_kernel_or_python_differ(changes, what):
    base = _document()
    now = _document(**changes)
    warnings = machine_warnings(base["machine"], now["machine"])
    assert any(what in warning for warning in warnings), warnings
    assert machine_warnings(base["machine"], copy.deepcopy(base["machine"])) == []


def test_compare_sets_two_saved_runs_cell_by_cell(saved_run, tmp_path):
    second = tmp_path / "second.json"
    second.write_text(_run_json(TINY_SWEEP), encoding="utf-8")
    base, now = schema.load(str(saved_run)), schema.load(str(second))
    comparison = compare(base, now)
    assert comparison.warnings == []  # same machine, kernel, Python, clock
    assert comparison.only_base == [] and comparison.only_now == []
    base_rows = {schema.cell_key(row): row for row in base["results"]}
    assert {change.key for change in comparison.changes} == set(base_rows)
    for change in comparison.changes:
        assert change.base is base_rows[change.key]
        assert change.utfkit_speedup == (
            change.base["utfkit"]["median_ns"] / change.now["utfkit"]["median_ns"]
        )
        assert change.cpython_speedup == (
            change.base["cpython"]["median_ns"] / change.now["cpython"]["median_ns"]
        )


def test_compare_reruns_what_base_measured(saved_run, capsys):
    # Options given here are overridden by BASE's: the same cells come back.
    document = json.loads(_run_json(["--compare", str(saved_run), "--sizes", "4K"]))
    base = json.loads(saved_run.read_text(encoding="utf-8"))
    assert {schema.cell_key(row) for row in document["results"]} == {
        schema.cell_key(row) for row in base["results"]
    }
    comparison = document["comparison"]
    assert comparison["base"] == str(saved_run)
    assert comparison["warnings"] == []
    assert comparison["only_in_base"] == [] and comparison["not_in_base"] == []
    assert len(comparison["cells"]) == len(base["results"])
    for cell in comparison["cells"]:
        assert cell["utfkit_speedup"] == pytest.approx(
            cell["utfkit_base_median_ns"] / cell["utfkit_median_ns"]
        )


def test_compare_prints_a_row_per_cell_and_warns_of_another_machine(saved_run, tmp_path,
                                                                      capsys):
    base = json.loads(saved_run.read_text(encoding="utf-8"))
    base["machine"]["cpu"] = "Some Other CPU 9000"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(base), encoding="utf-8")
    assert main(["bench", "--compare", str(other)]) == 0
    captured = capsys.readouterr()
    assert "warning: CPU differs: BASE ran on 'Some Other CPU 9000'" in captured.err
    lines = captured.out.splitlines()
    header = next(index for index, line in enumerate(lines) if line.startswith("op "))
    assert lines[header].split()[:4] == ["op", "text", "size", "utfkit"]
    rows = lines[header + 2 : header + 2 + len(base["results"])]
    assert sorted((row.split()[0], row.split()[1]) for row in rows) == sorted(
        (cell["op"], cell["text"]) for cell in base["results"]
    )
    assert f"geometric mean speed-up over {len(base['results'])} cells" in captured.out


@pytest.mark.parametrize("content", [None, "{}", "[1, 2]"])
def test_compare_with_an_unusable_base_exits_2(tmp_path, capsys, content):
    path = tmp_path / "base.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["bench", "--compare", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "utfkit bench: error:" in captured.err
