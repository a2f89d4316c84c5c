"""Builds and runs the C test programs on a thread of their own.

test_c_core.py runs the programs of csrc/tests/ linked with the core at -O2;
test_fuzz_regressions.py replays the fuzz targets linked with the core under
AddressSanitizer and UBSan.  Compiling the core twice and building the
programs takes about a minute of CPU, and running the programs half a minute
more: work for a C compiler and a C program, not for Python.  So as soon as the
tests are collected, conftest.py has each such test module ask for all of it
(its `start_c_builds`), to be done one process at a time on a worker thread
-- on the machine's second core while the Python tests run on the first --
and moves the tests that read the results to the end of the run.  A test asks for what it needs (`program`, `run`),
which waits for it, or does it there and then if it was not started.

Every job is done once per test session; a failed compile or link raises
`BuildFailed` with the compiler's output in the test that needed it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
CSRC = REPO / "csrc"

# The core's compile flags, by name.
FLAVOURS: Dict[str, List[str]] = {
    "optimised": ["-O2", "-std=c11", "-Wall", "-Wextra"],
    "sanitized": ["-O0", "-g", "-std=gnu11", "-fsanitize=address,undefined",
                  "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
    "plain": ["-O0", "-g", "-std=gnu11"],
}


class BuildFailed(Exception):
    """A compile or link of the C tests failed; the message holds its output."""


def c_compiler() -> Optional[str]:
    """The system C compiler: $CC if it is one word on PATH, else cc, else gcc."""
    for name in (os.environ.get("CC", ""), "cc", "gcc"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def core_sources() -> List[Path]:
    return sorted(CSRC.glob("*.c")) + sorted((CSRC / "simd").glob("*.c"))


_lock = threading.Lock()
_executor: Optional[ThreadPoolExecutor] = None
_jobs: Dict[Tuple[object, ...], Future] = {}
_running: List[subprocess.Popen] = []  # the process the worker waits for, if any
_directory: Optional[Path] = None


def _submit(key: Tuple[object, ...], job, *arguments) -> Future:
    global _executor, _directory
    with _lock:
        if key not in _jobs:
            if _executor is None:
                # One worker: the jobs run in the order they were asked for, so
                # a job's prerequisites (asked for first) are done when it runs.
                _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="c-tests")
                _directory = Path(tempfile.mkdtemp(prefix="utfkit-c-tests-"))
            _jobs[key] = _executor.submit(job, *arguments)
        return _jobs[key]


def _process(command: Sequence[str], timeout: float, env: Optional[Dict[str, str]] = None) -> Tuple[int, str, str]:
    """Runs one process to the end: (exit status, stdout, stderr)."""
    process = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    _running.append(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        stderr += f"\n(killed after {timeout:.0f} s)"
    finally:
        _running.remove(process)
    return process.returncode, stdout, stderr


def _compile_core(flavour: str) -> List[Path]:
    compiler = c_compiler()
    if compiler is None:
        raise BuildFailed("no C compiler found (looked for $CC, cc and gcc on PATH)")
    assert _directory is not None
    objects = []
    for source in core_sources():
        obj = _directory / f"core-{flavour}-{source.parent.name}_{source.stem}.o"
        code, stdout, stderr = _process([compiler, *FLAVOURS[flavour], "-I", str(CSRC), "-c", str(source), "-o", str(obj)], 300)
        if code != 0:
            raise BuildFailed(f"compiling {source.name} ({flavour}) failed (exit {code}):\n{stdout}{stderr}")
        objects.append(obj)
    return objects


def core_objects(flavour: str) -> Future:
    """The core compiled with FLAVOURS[flavour]: a future list of object files."""
    return _submit(("core", flavour), _compile_core, flavour)


def _link(name: str, sources: Tuple[Path, ...], flavour: str, core: Future) -> Path:
    objects = core.result()  # done: asked for before this job
    assert _directory is not None
    program = _directory / f"{name}-{flavour}"
    code, stdout, stderr = _process(
        [str(c_compiler()), *FLAVOURS[flavour], "-I", str(CSRC), "-o", str(program), *map(str, sources), *map(str, objects)], 300)
    if code != 0:
        raise BuildFailed(f"building {name} ({flavour}) failed (exit {code}):\n{stdout}{stderr}")
    return program


def program(name: str, sources: Sequence[Path], flavour: str) -> Future:
    """SOURCES compiled with FLAVOURS[flavour] and linked with the core so
    compiled: a future path of the program."""
    core = core_objects(flavour)
    return _submit(("program", name, flavour), _link, name, tuple(sources), flavour, core)


def _run(built: Future, arguments: Tuple[str, ...], env: Optional[Dict[str, str]], timeout: float) -> Tuple[int, str, str]:
    return _process([str(built.result()), *arguments], timeout, env)


# How long a C test program may run before it is taken for hung and killed.
# The longest, test_kernels_agree in full (pytest --kernels=all), takes about
# 4 minutes of one core alone (242 s, session 10) and half again beside CI's
# sanitizer job on the other core; a third busy process took it past 600 s.
PROGRAM_TIMEOUT = 1500.0


def run(name: str, sources: Sequence[Path], flavour: str, arguments: Sequence[str] = (),
        env: Optional[Dict[str, str]] = None, timeout: float = PROGRAM_TIMEOUT) -> Future:
    """The program built as `program` does, run with ARGUMENTS: a future
    (exit status, stdout, stderr)."""
    built = program(name, sources, flavour)
    key = ("run", name, flavour, tuple(arguments), tuple(sorted((env or {}).items())))
    return _submit(key, _run, built, tuple(arguments), env, timeout)


def sanitizers_work() -> bool:
    """Whether the compiler builds and links a program with ASan and UBSan."""
    compiler = c_compiler()
    if compiler is None:
        return False
    with tempfile.TemporaryDirectory() as directory:
        probe = Path(directory) / "probe.c"
        probe.write_text("int main(void) { return 0; }\n")
        done = subprocess.run([compiler, *FLAVOURS["sanitized"], str(probe), "-o", str(Path(directory) / "probe")],
                              capture_output=True)
        return done.returncode == 0


def shutdown() -> None:
    """Drops the jobs not started, stops the one running and removes the
    build directory (the end of the test session)."""
    global _executor, _directory
    with _lock:
        executor, directory = _executor, _directory
        _executor, _directory = None, None
        _jobs.clear()
    if executor is None:
        return
    executor.shutdown(wait=False, cancel_futures=True)
    for process in list(_running):
        process.kill()
    executor.shutdown(wait=True)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)
