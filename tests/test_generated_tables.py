"""Generated tables are what their generators write.

Every table in csrc/ made by a script (a `gen_*.py` beside it, such as
csrc/simd/gen_x86_shuffle_tables.py for the PSHUFB tables of the AVX2
transcoding blocks, x86_shuffle_tables.h) must equal, byte for byte, what the
script writes now: a hand edit of the table, or a change to the generator
that was not run, fails here.  Each generator runs from a copy in a
temporary folder, so it writes its files there, never into the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CSRC = Path(__file__).resolve().parents[1] / "csrc"
GENERATORS = sorted(CSRC.rglob("gen_*.py"))


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: no kernel runs here."""
    return None


def test_the_x86_shuffle_tables_have_a_generator():
    assert CSRC / "simd" / "gen_x86_shuffle_tables.py" in GENERATORS


@pytest.mark.parametrize("generator", GENERATORS, ids=[path.name for path in GENERATORS])
def test_generated_table_equals_its_generators_output(generator, tmp_path):
    shutil.copy(generator, tmp_path / generator.name)
    ran = subprocess.run([sys.executable, generator.name], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    written = sorted(path for path in tmp_path.iterdir() if path.name != generator.name)
    assert written, f"{generator.name} wrote nothing"
    for fresh in written:
        checked_in = generator.parent / fresh.name
        assert checked_in.exists(), f"{generator.name} writes {fresh.name}, which is not checked in"
        assert checked_in.read_bytes() == fresh.read_bytes(), (
            f"{checked_in.relative_to(CSRC.parent)} differs from what {generator.name} writes: "
            f"run `python3 {generator.relative_to(CSRC.parent)}` (and fix the generator, "
            "not the table)"
        )
