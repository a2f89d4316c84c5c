"""Shared fixtures: every test runs once per kernel under test, plus the
external vectors.

DESIGN.md section 4: every kernel must give bit-identical results to the
scalar path, and the test suite runs under each kernel the machine has.
Which kernels a run covers is chosen here:

    pytest                      scalar and the best kernel this CPU runs (the
                                one utfkit picks by default); the C tests of
                                test_c_core.py in quick mode
    pytest --kernels=all        every kernel this CPU runs (the whole matrix),
                                and the C tests in full: what .ci/run runs
    pytest --kernels=sse4,avx2  the named kernels (scalar is always added: it
                                is the reference the others are compared with)

UTFKIT_TEST_KERNELS=all (or a list) in the environment does the same as the
option; the option wins.  Hypothesis tests share one example budget between
the kernels of a run, so adding kernels costs less than it multiplies.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

TESTS_DIR = Path(__file__).resolve().parent

# The helper modules in tests/ (the CPython oracle, the input strategies, the
# vector loader) are imported by name whatever pytest's import mode; their
# asserts get rewritten so a failing comparison shows both sides.
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))
pytest.register_assert_rewrite("utf8_oracle", "utf8_strategies", "vector_files", "utfe8_reference")

import c_build  # noqa: E402  (after the path set-up above)
from utfkit import _kernels  # noqa: E402
from vector_files import VECTORS_DIR  # noqa: E402

# ---- kernels ------------------------------------------------------------------
KERNELS_ENVIRONMENT_VARIABLE = "UTFKIT_TEST_KERNELS"


def pytest_addoption(parser):
    parser.addoption(
        "--kernels",
        default=None,
        metavar="WHICH",
        help=(
            "kernels every test runs under: 'default' (scalar and the best one this CPU "
            "runs; also makes the C tests quick), 'all' (every kernel this CPU runs, and the "
            "C tests in full), or a comma-separated list of names. "
            f"Default: ${KERNELS_ENVIRONMENT_VARIABLE}, else 'default'."
        ),
    )


def _kernels_requested(config) -> str:
    return (
        config.getoption("--kernels")
        or os.environ.get(KERNELS_ENVIRONMENT_VARIABLE)
        or "default"
    ).strip()


def kernels_under_test(config) -> list:
    """The kernels this run covers, slowest first (scalar always first)."""
    available = _kernels.available_backends()
    requested = _kernels_requested(config)
    if requested == "all":
        return available
    if requested == "default":
        return [available[0], available[-1]] if len(available) > 1 else available
    names = [name.strip() for name in requested.split(",") if name.strip()]
    missing = [name for name in names if name not in available]
    if missing:
        raise pytest.UsageError(
            f"--kernels: {', '.join(missing)} cannot run here; "
            f"this CPU runs {', '.join(available)}"
        )
    return [name for name in available if name == "scalar" or name in names]


def full_matrix(config) -> bool:
    """True when the run covers every kernel this CPU has: the C tests then
    run in full (their quick mode rotates kernels instead)."""
    return kernels_under_test(config) == _kernels.available_backends()


def pytest_generate_tests(metafunc):
    # The autouse `kernel` fixture below is parametrised here, from the
    # option, rather than at import (its params= would be fixed before the
    # command line is read).  A test module that defines a `kernel` fixture
    # of its own (the C tests, which visit every kernel themselves) runs once.
    if "kernel" in metafunc.fixturenames and not hasattr(metafunc.module, "kernel"):
        names = kernels_under_test(metafunc.config)
        if metafunc.definition.get_closest_marker("large_memory") and not full_matrix(metafunc.config):
            # Inputs past 4 GiB take seconds per kernel (scalar most): the
            # default run gives them the kernel utfkit picks; --kernels=all
            # runs them under every kernel.
            names = names[-1:]
        metafunc.parametrize("kernel", names, ids=names, indirect=True)


@pytest.fixture(autouse=True)
def kernel(request):
    """Run the test with the named kernel active; restore the previous one after."""
    previous = _kernels.backend()
    _kernels.set_backend(request.param)
    try:
        yield request.param
    finally:
        _kernels.set_backend(previous)


# ---- hypothesis profiles ------------------------------------------------------
# "default" gives each property a budget of examples split between the
# kernels of the run, each kernel seeing at least 50: the whole matrix
# (--kernels=all, what .ci/run runs) 400 in all -- 80 each across the five
# kernels of an x86-64 machine with AVX-512 -- and the default run 200 -- 100
# each under scalar and the best kernel -- so that it stays a few minutes
# long.  "thorough" is for a longer hunt: UTFKIT_HYPOTHESIS_PROFILE=thorough.
# Tests that set max_examples themselves keep it, per kernel.
def _register_hypothesis_profiles(kernel_count: int, whole_matrix: bool) -> None:
    budget = 400 if whole_matrix else 200
    settings.register_profile(
        "default",
        max_examples=max(50, budget // kernel_count),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile(
        "thorough",
        max_examples=5000,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile(os.environ.get("UTFKIT_HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "large_memory: needs several GiB of free RAM (skipped otherwise)",
    )
    config.addinivalue_line(
        "markers",
        "c_program(source): the C test program in csrc/tests/ the test runs (test_c_core.py)",
    )
    _register_hypothesis_profiles(len(kernels_under_test(config)), full_matrix(config))


@pytest.hookimpl(trylast=True)  # after -k / -m have deselected what they will
def pytest_collection_modifyitems(session, config, items):
    """The tests of modules that build C programs (they define
    `start_c_builds`: test_c_core.py, test_fuzz_regressions.py) go last, and
    what the selected ones need starts now, on a thread of its own
    (c_build.py): the compiler works on the machine's second core while the
    Python tests run."""
    selected: dict = {}  # start_c_builds -> the selected tests of its module
    for item in items:
        start = getattr(getattr(item, "module", None), "start_c_builds", None)
        if start is not None:
            selected.setdefault(start, []).append(item)
    if not selected:
        return
    items.sort(key=lambda item: hasattr(getattr(item, "module", None), "start_c_builds"))  # stable
    for start, its_items in selected.items():
        start(config, its_items)


def pytest_sessionfinish(session, exitstatus):
    c_build.shutdown()


def pytest_report_header(config):
    names = kernels_under_test(config)
    mode = "full" if full_matrix(config) else "quick"
    return [f"utfkit kernels under test: {', '.join(names)} (C tests: {mode}; --kernels=all for every kernel)"]


# ---- external vectors -----------------------------------------------------------


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The shared external test vectors (../shared/vectors beside the checkout)."""
    if not VECTORS_DIR.is_dir():
        pytest.skip(f"external test vectors not found at {VECTORS_DIR}")
    return VECTORS_DIR
