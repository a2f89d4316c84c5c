"""The C core on its own: builds the C test programs of csrc/tests/ with the
utfkit C sources and runs each.

csrc/tests/test_utf8_table_3_7.c proves the Table 3-7 automaton of
csrc/utf8_dfa.h exhaustively (every 1-3 byte sequence, every 4-byte sequence
starting F0..F4) against a transcription of Table 3-7 of its own, and checks
the public UTF-8 C API (validate, check, sanitize, remove_ill_formed, count
and the length functions) under every kernel this CPU runs against a
maximal-subpart (D93b) reference.  --quick checks each short sequence under
one kernel instead of all: about 25 s instead of 90 s.

csrc/tests/test_transcode.c checks utfkit_transcode, utfkit_transcoded_length,
utfkit_well_formed_length, utfkit_check, utfkit_validate and utfkit_count for
every (from, to) pair of the five encoding forms and every errors mode
against a reference decoder/encoder of its own that follows CPython's codecs
(maximal subparts for UTF-8; CPython's cuts for UTF-16 and UTF-32), with
every capacity from 0 up and guard bytes after cap.  --quick runs each
input under one kernel, in rotation, with fewer random texts: about 5 s
instead of 65 s.

csrc/tests/test_kernels_agree.c is a differential test: random structured
text (runs of 1- to 4-byte characters, damaged by overwritten bytes, pieces
of every way Table 3-7 fails, and cuts) must give the scalar kernel's answer
under every other kernel, from every UTF-8 entry point: 200,000 inputs,
--quick 20,000.

csrc/tests/test_utfe8.c checks UTF-E-8 and RFC 2279 UTF-8 (seeds 002, 004):
the seed's examples, a table of error cuts, conversion out of them, and random
text under every kernel at every cap, streams included.

csrc/tests/test_stream.c checks streams (utfkit_stream_feed/_finish) against
the one-shot utfkit_check on every short input at every set of chunk
boundaries (fail-fast included), and utfkit_incomplete_suffix_length;
--quick checks one set of cuts in three of the longest inputs, and fewer
random texts.

A plain `pytest` runs them with --quick (about 30 s in all, on this
project's 2-core machine); `pytest --kernels=all` (conftest.py), which
.ci/run uses, runs them in full (about 2.5 min).  They are built and run in
the background while the Python tests run (c_build.py), and these tests,
at the end of the run, check what they printed.  `make ctest` runs them in
full too; `make ctest-asan` under AddressSanitizer and UBSan.
"""

import sys
from pathlib import Path
from typing import List

import pytest

import c_build
from conftest import full_matrix

CSRC = c_build.CSRC
TABLE_3_7_PROGRAM_SOURCE = CSRC / "tests" / "test_utf8_table_3_7.c"
TRANSCODE_PROGRAM_SOURCE = CSRC / "tests" / "test_transcode.c"
KERNELS_AGREE_PROGRAM_SOURCE = CSRC / "tests" / "test_kernels_agree.c"
STREAM_PROGRAM_SOURCE = CSRC / "tests" / "test_stream.c"
OFFSETS_PROGRAM_SOURCE = CSRC / "tests" / "test_offsets.c"
UTFE8_PROGRAM_SOURCE = CSRC / "tests" / "test_utfe8.c"
LATIN1_PARTIAL_PROGRAM_SOURCE = CSRC / "tests" / "test_latin1_partial.c"


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: the C programs select
    every kernel the CPU has by themselves, so each runs once."""
    return None


def _arguments(config) -> List[str]:
    """The programs' arguments: none for a run of the whole kernel matrix
    (every input under every kernel), else --quick (kernels in rotation)."""
    return [] if full_matrix(config) else ["--quick"]


def _runs(source: Path, config):
    return c_build.run(source.stem, [source], "optimised", _arguments(config))


def start_c_builds(config, items) -> None:
    """Called by conftest.py once the tests are collected: the programs of
    the selected tests (ITEMS, each marked with its program) are built and
    run in the background (c_build.py)."""
    if c_build.c_compiler() is not None:
        for item in items:
            marker = item.get_closest_marker("c_program")
            if marker is not None and marker.args[0].exists():
                _runs(marker.args[0], config)


@pytest.fixture
def mode(request) -> List[str]:
    return _arguments(request.config)


@pytest.fixture
def run_program(request):
    """run_program() -> the stdout of the test's program (its `c_program`
    mark: a source in csrc/tests/) built at -O2 (warnings on) with the core
    and run with `mode`'s arguments, after asserting that it exited 0 and
    reached its summary."""
    if c_build.c_compiler() is None:
        pytest.skip("no C compiler found (looked for $CC, cc and gcc on PATH)")
    source = request.node.get_closest_marker("c_program").args[0]

    def run_program() -> str:
        if not source.exists():
            pytest.skip(f"{source} is not part of this checkout")
        code, stdout, stderr = _runs(source, request.config).result()
        report = (f"{source.name} {' '.join(_arguments(request.config))}: exit {code}\n"
                  f"--- stdout ---\n{stdout}--- stderr ---\n{stderr}")
        assert code == 0, report
        # The program must have reached its summary.
        assert "all passed" in stdout, report
        return stdout

    return run_program


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(TABLE_3_7_PROGRAM_SOURCE)
def test_c_core_equals_table_3_7_under_every_backend(run_program):
    stdout = run_program()
    for number in range(1, 9):
        assert f"\n{number}. " in stdout, f"pass {number} did not run:\n{stdout}"


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(TRANSCODE_PROGRAM_SOURCE)
def test_c_transcoding_equals_cpython_rules_for_every_form_pair_and_errors_mode(run_program):
    stdout = run_program()
    # Every section ran (0 checks the reference itself on known answers)...
    for number in range(0, 7):
        assert f"\n{number}. " in stdout, f"section {number} did not run:\n{stdout}"
    # ... and did check inputs: "<n> inputs, <m> library calls under <k> backend(s)".
    summary = stdout.strip().splitlines()[-1]
    inputs, calls = int(summary.split()[0]), int(summary.split()[2])
    assert inputs > 50_000 and calls > 1_000_000, summary


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(KERNELS_AGREE_PROGRAM_SOURCE)
def test_c_every_kernel_agrees_with_scalar_on_random_text(run_program, mode):
    stdout = run_program()
    expected = "20000 inputs" if mode else "200000 inputs"
    assert stdout.strip().splitlines()[-1].startswith(expected), stdout


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(STREAM_PROGRAM_SOURCE)
def test_c_streams_equal_one_shot_check_at_every_cut(run_program):
    stdout = run_program()
    assert stdout.startswith("1. ") and "\n2. " in stdout, stdout
    checked = int(stdout.strip().splitlines()[-2].split()[0])
    assert checked > 2_000_000, stdout


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(OFFSETS_PROGRAM_SOURCE)
def test_c_columns_equal_item_by_item_calls_and_refuse_bad_offsets(run_program):
    stdout = run_program()
    checked = int(stdout.strip().splitlines()[-1].split()[1])
    assert checked > 300_000, stdout


@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(UTFE8_PROGRAM_SOURCE)
def test_c_utfe8_and_rfc2279_forms_match_their_tables_under_every_kernel(run_program):
    stdout = run_program()
    checked = int(stdout.strip().splitlines()[-1].split()[0])
    assert checked > 100_000, stdout



@pytest.mark.skipif(sys.platform == "win32", reason="the C test is built with a Unix cc/gcc")
@pytest.mark.c_program(LATIN1_PARTIAL_PROGRAM_SOURCE)
def test_c_latin1_ascii_and_bounded_conversion_equal_their_references_under_every_kernel(run_program):
    stdout = run_program()
    for number in range(1, 4):
        assert f"\n{number}. " in stdout, f"section {number} did not run:\n{stdout}"
    checked = int(stdout.strip().splitlines()[-1].split()[0])
    assert checked > 1_000_000, stdout
