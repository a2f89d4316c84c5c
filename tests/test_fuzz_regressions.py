"""Replays the fuzz targets' kept inputs (fuzz/regressions/<target>/) and a
sample (one in 24) of their seeds through each target's LLVMFuzzerTestOneInput, built
with the system C compiler and fuzz/replay.c instead of libFuzzer -- with
AddressSanitizer and UBSan when the compiler has them.  A target aborts on
any disagreement between kernels, or between one-shot and chunked
processing, so a replay that exits 0 passed every check of the target.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import c_build

REPO = c_build.REPO
FUZZ = REPO / "fuzz"
TARGETS = sorted(path.stem[len("fuzz_") :] for path in FUZZ.glob("fuzz_*.c"))
REPLAY_ENVIRONMENT = {"ASAN_OPTIONS": "detect_leaks=1", "PATH": "/usr/bin:/bin"}


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: each target visits
    every kernel itself."""
    return None


_flavour: List[str] = []


def flavour() -> str:
    """The core and the targets with AddressSanitizer and UBSan if the
    compiler has them, else plain."""
    if not _flavour:
        _flavour.append("sanitized" if c_build.sanitizers_work() else "plain")
    return _flavour[0]


def _replay_program(target: str):
    return c_build.program(f"replay_{target}", [FUZZ / "replay.c", FUZZ / f"fuzz_{target}.c"], flavour())


def start_c_builds(config, items) -> None:
    """Called by conftest.py once the tests are collected: the replay
    programs of the selected tests (ITEMS) are built in the background
    (c_build.py)."""
    if c_build.c_compiler() is not None:
        for item in items:
            callspec = getattr(item, "callspec", None)
            if callspec is not None and "target" in callspec.params:
                _replay_program(callspec.params["target"])


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> Path:
    """Every target's seeds, written by fuzz/make_seeds.py (which needs only
    the source tree: no built extension)."""
    out = tmp_path_factory.mktemp("seeds")
    made = subprocess.run([sys.executable, str(FUZZ / "make_seeds.py"), str(out)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    return out


def test_every_target_has_seeds(seeds):
    assert TARGETS and all(any((seeds / target).iterdir()) for target in TARGETS)


@pytest.mark.parametrize("target", TARGETS)
def test_fuzz_target_replays_regressions_and_seeds(target, seeds):
    if c_build.c_compiler() is None:
        pytest.skip("no C compiler found (looked for $CC, cc and gcc on PATH)")
    inputs = sorted((FUZZ / "regressions" / target).glob("*")) if (FUZZ / "regressions" / target).is_dir() else []
    inputs = [path for path in inputs if path.is_file()]
    inputs += sorted((seeds / target).glob("*"))[::24]
    assert inputs, f"no regressions or seeds for fuzz_{target}"
    program = _replay_program(target).result()
    replayed = subprocess.run([str(program), *map(str, inputs)], capture_output=True, text=True, timeout=600,
                              env=REPLAY_ENVIRONMENT)
    assert replayed.returncode == 0, replayed.stderr[-4000:]
    assert f"replayed {len(inputs)} inputs" in replayed.stdout
