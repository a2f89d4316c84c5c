"""The JSON document of a run (``utfkit bench --json``), version
:data:`SCHEMA_VERSION`: written here, read back by ``--compare`` and by
other tools.  The README lists every field.

A version changes only when a field is removed or changes meaning; new
fields may appear within a version, so readers ignore what they do not know.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from .corpus import Text
from .operations import OPERATIONS
from .settings import Settings
from .timing import ROUND_TARGET_NS, Measurement, Result, gbps

__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "CellKey",
    "SchemaError",
    "cell_key",
    "document",
    "load",
    "measurement_json",
    "result_json",
]

#: What the document is, in its ``schema`` field.
SCHEMA: str = "utfkit-bench"

#: The version of the document's layout, in its ``schema_version`` field.
SCHEMA_VERSION: int = 1

#: What identifies a cell across runs: (operation, text, size).
CellKey = tuple[str, str, Optional[int]]


class SchemaError(ValueError):
    """A file that is not a ``utfkit bench --json`` document this version reads."""


def measurement_json(measurement: Measurement | None, processed: int) -> dict[str, Any] | None:
    """One contender's figures; None for a contender the task does not have."""
    if measurement is None:
        return None
    return {
        "call": measurement.label,
        "loops": measurement.loops,
        "rounds": len(measurement.per_call_ns),
        "best_ns": measurement.best_ns,
        "median_ns": measurement.median_ns,
        "per_round_ns": list(measurement.per_call_ns),
        "gbps": gbps(processed, measurement.best_ns),
        "median_gbps": gbps(processed, measurement.median_ns),
        "minor_faults_per_call": measurement.minor_faults_per_call,
    }


def result_json(result: Result) -> dict[str, Any]:
    """A row of the report: one operation on one text of one size."""
    return {
        "op": result.task.op,
        "text": result.task.text,
        "size": result.size,
        "bytes": result.task.processed,
        "errors": result.task.errors,
        "utfkit": measurement_json(result.utfkit, result.task.processed),
        "cpython": measurement_json(result.cpython, result.task.processed),
        "read_baseline": measurement_json(result.baseline, result.task.processed),
        "ratio": result.ratio,
        "median_ratio": result.median_ratio,
        "of_read_baseline": result.of_baseline,
        "agrees": result.task.agrees,
        "disagreement": result.task.disagreement or None,
    }


def _text_json(size: int | None, text: Text) -> dict[str, Any]:
    return {
        "name": text.name,
        "size": size,
        "utf8_bytes": len(text.utf8),
        "dirty": text.is_dirty,
        "path": text.path,
    }


def document(
    machine: Mapping[str, Any],
    settings: Settings,
    texts: Sequence[tuple[int | None, Text]],
    results: Sequence[Result],
) -> dict[str, Any]:
    """The whole document of a run."""
    names = list(dict.fromkeys(text.name for _, text in texts))
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": dict(machine),
        "settings": {**settings.to_json(names), "round_target_ns": ROUND_TARGET_NS},
        "operations": {
            op: {"utfkit": mine, "cpython": theirs}
            for op, (mine, theirs) in OPERATIONS.items()
            if op in settings.ops
        },
        "texts": [_text_json(size, text) for size, text in texts],
        "results": [result_json(result) for result in results],
        "disagreements": sum(not result.task.agrees for result in results),
    }


def cell_key(row: Mapping[str, Any]) -> CellKey:
    """The cell a result row measures."""
    return (row["op"], row["text"], row["size"])


def load(path: str) -> dict[str, Any]:
    """A saved document, checked to be one this version reads.  Raises
    OSError when the file cannot be read, SchemaError when it is not such
    a document."""
    with open(path, encoding="utf-8") as file:
        try:
            loaded = json.load(file)
        except json.JSONDecodeError as error:
            raise SchemaError(f"{path} is not JSON: {error}") from None
    if not isinstance(loaded, dict) or loaded.get("schema") != SCHEMA:
        raise SchemaError(f"{path} is not a 'utfkit bench --json' document (no \"schema\": \"{SCHEMA}\")")
    version = loaded.get("schema_version")
    if version != SCHEMA_VERSION:
        raise SchemaError(
            f"{path} has schema_version {version!r}; this utfkit reads version {SCHEMA_VERSION}"
        )
    for field in ("machine", "settings", "results"):
        if field not in loaded:
            raise SchemaError(f"{path} has no {field!r}")
    return loaded
