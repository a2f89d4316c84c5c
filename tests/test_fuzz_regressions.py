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

import pytest

from test_c_core import _c_compiler, _core_sources

REPO = Path(__file__).resolve().parents[1]
FUZZ = REPO / "fuzz"
TARGETS = sorted(path.stem[len("fuzz_") :] for path in FUZZ.glob("fuzz_*.c"))
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: each target visits
    every kernel itself."""
    return None


@pytest.fixture(scope="module")
def core_objects(tmp_path_factory):
    """The core compiled once (with the sanitizers if the compiler has
    them), linked into every target's replay program: (flags, objects)."""
    compiler = _c_compiler()
    if compiler is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("fuzz_core")
    sources = _core_sources()
    for flags in (SANITIZERS, []):
        objects = [out / f"{source.parent.name}_{source.stem}.o" for source in sources]
        commands = [[compiler, "-O0", "-g", "-std=gnu11", *flags, f"-I{REPO / 'csrc'}", "-c", str(source), "-o", str(obj)]
                    for source, obj in zip(sources, objects)]
        # two compilers at a time: the core is about ten files
        results = []
        for first in range(0, len(commands), 2):
            running = [subprocess.Popen(command, stderr=subprocess.DEVNULL) for command in commands[first : first + 2]]
            results += [process.wait() for process in running]
        if all(code == 0 for code in results):
            return compiler, flags, objects
    pytest.fail("the C core does not compile")


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


def _build(target: str, out: Path, core) -> Path:
    compiler, flags, objects = core
    program = out / f"replay_{target}"
    command = [compiler, "-O0", "-g", "-std=gnu11", *flags, f"-I{REPO / 'csrc'}", "-o", str(program),
               str(FUZZ / "replay.c"), str(FUZZ / f"fuzz_{target}.c"), *map(str, objects)]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    return program


@pytest.mark.parametrize("target", TARGETS)
def test_fuzz_target_replays_regressions_and_seeds(target, tmp_path, core_objects, seeds):
    inputs = sorted((FUZZ / "regressions" / target).glob("*")) if (FUZZ / "regressions" / target).is_dir() else []
    inputs = [path for path in inputs if path.is_file()]
    inputs += sorted((seeds / target).glob("*"))[::24]
    assert inputs, f"no regressions or seeds for fuzz_{target}"
    program = _build(target, tmp_path, core_objects)
    replayed = subprocess.run([str(program), *map(str, inputs)], capture_output=True, text=True, timeout=600,
                              env={"ASAN_OPTIONS": "detect_leaks=1", "PATH": "/usr/bin:/bin"})
    assert replayed.returncode == 0, replayed.stderr[-4000:]
    assert f"replayed {len(inputs)} inputs" in replayed.stdout
