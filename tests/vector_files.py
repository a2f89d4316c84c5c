"""Where the external test vectors live and how to turn them into test cases.

They sit beside the checkout in ../shared/vectors (CI places them there) and
are read in place; when the folder is absent every vector test is skipped,
saying why, instead of failing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

VECTORS_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "vectors"


def missing_reason(filename: str) -> str:
    return f"external test vector file {VECTORS_DIR / filename} not found (expected ../shared/vectors beside the repo)"


def load_json(filename: str):
    """The parsed file, or None when it is absent."""
    path = VECTORS_DIR / filename
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def vector_params(filename: str, select=lambda document: document, case_id=None, skip_reason=None) -> list:
    """pytest.param per vector; one skipped param when the file is absent.

    select picks the list of vectors out of the parsed document; case_id(i, v)
    names each; skip_reason(v) returns a reason to skip that vector, or None.
    """
    document = load_json(filename)
    if document is None:
        return [pytest.param(None, id=f"{filename}-absent", marks=pytest.mark.skip(reason=missing_reason(filename)))]
    params = []
    for index, vector in enumerate(select(document)):
        name = case_id(index, vector) if case_id else str(index)
        reason = skip_reason(vector) if skip_reason else None
        marks = [pytest.mark.skip(reason=reason)] if reason else []
        params.append(pytest.param(vector, id=name, marks=marks))
    return params
