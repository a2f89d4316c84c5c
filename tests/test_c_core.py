"""The C core on its own: builds csrc/tests/test_utf8_table_3_7.c with the
utfkit C sources and runs it.

That program proves the Table 3-7 automaton of csrc/utf8_dfa.h exhaustively
(every 1-3 byte sequence, every 4-byte sequence starting F0..F4) against a
transcription of Table 3-7 of its own, and checks the public C API
(validate, check, sanitize, remove_ill_formed, count and the length
functions) under every kernel this CPU runs against a maximal-subpart
(D93b) reference.  Here it runs with --quick (each short sequence under one
kernel instead of all) to stay within about 30 s; `make ctest` runs it in
full.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CSRC = REPO / "csrc"
TEST_PROGRAM_SOURCE = CSRC / "tests" / "test_utf8_table_3_7.c"


def _c_compiler():
    """The system C compiler: $CC if it is one word on PATH, else cc, else gcc."""
    candidates = [os.environ.get("CC", ""), "cc", "gcc"]
    for name in candidates:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: the C program selects
    every kernel the CPU has by itself, so it runs once."""
    return None


def _core_sources():
    return sorted(CSRC.glob("*.c")) + sorted((CSRC / "simd").glob("*.c"))


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
def test_c_core_equals_table_3_7_under_every_backend(tmp_path):
    compiler = _c_compiler()
    if compiler is None:
        pytest.skip("no C compiler found (looked for $CC, cc and gcc on PATH)")
    if not TEST_PROGRAM_SOURCE.exists():
        pytest.skip(f"{TEST_PROGRAM_SOURCE} is not part of this checkout")

    program = tmp_path / "test_utf8_table_3_7"
    build = subprocess.run(
        [
            compiler, "-O2", "-std=c11", "-Wall", "-Wextra",
            "-I", str(CSRC),
            "-o", str(program),
            str(TEST_PROGRAM_SOURCE),
            *map(str, _core_sources()),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, (
        f"building the C test failed (exit {build.returncode}):\n{build.stdout}{build.stderr}"
    )

    run = subprocess.run(
        [str(program), "--quick"], capture_output=True, text=True, timeout=600
    )
    report = f"exit {run.returncode}\n--- stdout ---\n{run.stdout}--- stderr ---\n{run.stderr}"
    assert run.returncode == 0, report
    # The program must have reached its summary, with every pass run.
    assert "all passed" in run.stdout, report
    for number in range(1, 9):
        assert f"\n{number}. " in run.stdout, report
