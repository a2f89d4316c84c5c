"""``utfkit bench --compare BASE.json``: this run against a saved one, cell
by cell (a cell is one operation on one text of one size).

Each cell's change is a speed-up, BASE's median time over this run's
(> 1: faster now), for utfkit and for CPython alike.  CPython's is the
control: when it moves as much as utfkit's, the machine changed, not utfkit.
A comparison across a different CPU, kernel or Python says little about a
change to utfkit, so each such difference is warned about.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from .operations import OPERATIONS
from .schema import CellKey, cell_key
from .sizes import format_size

__all__ = ["Change", "Comparison", "compare", "comparison_json", "machine_warnings", "print_comparison"]

#: Machine facts that make a comparison mean little when they differ.
_MUST_MATCH: tuple[tuple[str, str], ...] = (
    ("cpu", "CPU"),
    ("backend", "kernel"),
    ("validation_backend", "validation kernel"),
    ("python", "Python"),
)


def _median_ns(row: Mapping[str, Any], contender: str) -> float | None:
    measurement = row.get(contender)
    if not isinstance(measurement, Mapping):
        return None
    value = measurement.get("median_ns")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _speedup(base: float | None, now: float | None) -> float | None:
    return None if base is None or now is None else base / now


@dataclass(frozen=True)
class Change:
    """One cell in BASE and in this run."""

    key: CellKey
    base: Mapping[str, Any]
    now: Mapping[str, Any]

    @property
    def utfkit_base_ns(self) -> float | None:
        return _median_ns(self.base, "utfkit")

    @property
    def utfkit_now_ns(self) -> float | None:
        return _median_ns(self.now, "utfkit")

    @property
    def utfkit_speedup(self) -> float | None:
        """BASE's median utfkit time / this run's (> 1: faster now)."""
        return _speedup(self.utfkit_base_ns, self.utfkit_now_ns)

    @property
    def cpython_speedup(self) -> float | None:
        """The same for CPython's call: the control."""
        return _speedup(_median_ns(self.base, "cpython"), _median_ns(self.now, "cpython"))

    @property
    def ratio_base(self) -> float | None:
        value = self.base.get("median_ratio")
        return float(value) if isinstance(value, (int, float)) else None

    @property
    def ratio_now(self) -> float | None:
        value = self.now.get("median_ratio")
        return float(value) if isinstance(value, (int, float)) else None


@dataclass
class Comparison:
    """This run against BASE: the cells both have, those only one has, and
    the machine differences that make the comparison mean little."""

    warnings: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    only_base: list[CellKey] = field(default_factory=list)
    only_now: list[CellKey] = field(default_factory=list)

    def geometric_mean(self, which: str) -> float | None:
        """The geometric mean of the cells' ``utfkit`` or ``cpython`` speed-ups."""
        values = [
            value
            for change in self.changes
            for value in [change.utfkit_speedup if which == "utfkit" else change.cpython_speedup]
            if value is not None and value > 0
        ]
        if not values:
            return None
        return math.exp(sum(map(math.log, values)) / len(values))


def machine_warnings(base: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """One line per fact of :data:`_MUST_MATCH` that differs between the runs."""
    return [
        f"{label} differs: BASE ran on {base.get(key)!r}, this run on {now.get(key)!r}; "
        "the change is not utfkit's alone"
        for key, label in _MUST_MATCH
        if base.get(key) != now.get(key)
    ]


def _in_report_order(rows: Sequence[Mapping[str, Any]]) -> dict[CellKey, Mapping[str, Any]]:
    """Rows by cell, operation by operation, then text by text, then size."""
    order = list(OPERATIONS) + [row["op"] for row in rows]
    ops = {op: index for index, op in reversed(list(enumerate(order)))}
    texts = {text: index for index, text in enumerate(dict.fromkeys(row["text"] for row in rows))}
    ordered = sorted(
        rows, key=lambda row: (ops[row["op"]], texts[row["text"]], row["size"] or 0)
    )
    return {cell_key(row): row for row in ordered}


def compare(base: Mapping[str, Any], now: Mapping[str, Any]) -> Comparison:
    """Cell by cell, operation by operation; BASE's cells this run lacks,
    and the reverse, are listed apart."""
    base_rows = {cell_key(row): row for row in base["results"]}
    now_rows = _in_report_order(now["results"])
    comparison = Comparison(warnings=machine_warnings(base["machine"], now["machine"]))
    if base["settings"].get("clock") != now["settings"].get("clock"):
        comparison.warnings.append(
            f"clock differs: BASE timed {base['settings'].get('clock')} time, "
            f"this run {now['settings'].get('clock')} time"
        )
    for key, row in now_rows.items():
        if key in base_rows:
            comparison.changes.append(Change(key, base_rows[key], row))
        else:
            comparison.only_now.append(key)
    comparison.only_base = [key for key in base_rows if key not in now_rows]
    return comparison


def _time(ns: float | None) -> str:
    if ns is None:
        return "-"
    for scale, unit in ((1e6, "ms"), (1e3, "us")):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _factor(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _size(size: int | None) -> str:
    return "whole" if size is None else format_size(size)


def print_comparison(comparison: Comparison, base_path: str, base: Mapping[str, Any],
                     out: TextIO) -> None:
    """The comparison as a table, a row per cell."""
    machine = base["machine"]
    print(
        f"compared with {base_path}: utfkit {machine.get('utfkit')}, kernel "
        f"{machine.get('backend')}, CPU {machine.get('cpu')}, {machine.get('python')}"
        + (f", made {base['created']}" if base.get("created") else ""),
        file=out,
    )
    print(
        "speed-up = BASE's median time / this run's (> 1: faster now); CPython's is the "
        "control: if it moved as much, the machine changed, not utfkit; "
        "ratio = CPython time / utfkit time, median of the same-round ratios",
        file=out,
    )
    rows = [
        (
            change.key[0],
            change.key[1],
            _size(change.key[2]),
            _time(change.utfkit_base_ns),
            _time(change.utfkit_now_ns),
            _factor(change.utfkit_speedup),
            _factor(change.cpython_speedup),
            _factor(change.ratio_base),
            _factor(change.ratio_now),
        )
        for change in comparison.changes
    ]
    titles = ("op", "text", "size", "utfkit BASE", "utfkit now", "speed-up",
              "CPython speed-up", "ratio BASE", "ratio now")
    widths = [max([len(title), *(len(row[i]) for row in rows)]) for i, title in enumerate(titles)]
    aligns = ("<", "<", ">", ">", ">", ">", ">", ">", ">")

    def line(cells: Sequence[str]) -> str:
        return "  ".join(f"{cell:{align}{width}}" for cell, align, width in zip(cells, aligns, widths)).rstrip()

    print(line(titles), file=out)
    print(line(["-" * width for width in widths]), file=out)
    for row in rows:
        print(line(row), file=out)
    mine, theirs = comparison.geometric_mean("utfkit"), comparison.geometric_mean("cpython")
    print(
        f"geometric mean speed-up over {len(comparison.changes)} cells: utfkit {_factor(mine)}, "
        f"CPython {_factor(theirs)}",
        file=out,
    )
    for label, keys in (("only in BASE", comparison.only_base), ("not in BASE", comparison.only_now)):
        if keys:
            shown = ", ".join(f"{op} {text} {_size(size)}" for op, text, size in keys)
            print(f"{label} ({len(keys)}): {shown}", file=out)


def comparison_json(comparison: Comparison, base_path: str) -> dict[str, Any]:
    """The ``comparison`` object of a ``--compare --json`` document."""
    return {
        "base": base_path,
        "warnings": list(comparison.warnings),
        "cells": [
            {
                "op": change.key[0],
                "text": change.key[1],
                "size": change.key[2],
                "utfkit_base_median_ns": change.utfkit_base_ns,
                "utfkit_median_ns": change.utfkit_now_ns,
                "utfkit_speedup": change.utfkit_speedup,
                "cpython_speedup": change.cpython_speedup,
                "median_ratio_base": change.ratio_base,
                "median_ratio": change.ratio_now,
            }
            for change in comparison.changes
        ],
        "only_in_base": [list(key) for key in comparison.only_base],
        "not_in_base": [list(key) for key in comparison.only_now],
        "utfkit_geometric_mean_speedup": comparison.geometric_mean("utfkit"),
        "cpython_geometric_mean_speedup": comparison.geometric_mean("cpython"),
    }
