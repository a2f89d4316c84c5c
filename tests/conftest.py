"""Shared fixtures: every test runs once per kernel, plus the external vectors.

Each test is parametrised over every kernel this CPU can run (DESIGN.md
section 4: every kernel must give bit-identical results to the scalar path,
and the test suite runs under each kernel the machine has).  Hypothesis tests
share one example budget between the kernels, so the suite's run time grows
less than the number of kernels.
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
pytest.register_assert_rewrite("utf8_oracle", "utf8_strategies", "vector_files")

import utfkit  # noqa: E402  (after the path set-up above)
import utfkit._kernels  # noqa: E402
from vector_files import VECTORS_DIR  # noqa: E402

# ---- kernels ------------------------------------------------------------------
KERNELS = utfkit._kernels.available_backends()


@pytest.fixture(autouse=True, params=KERNELS, ids=KERNELS)
def kernel(request):
    """Run the test with the named kernel active; restore the previous one after."""
    previous = utfkit.backend()
    utfkit._kernels.set_backend(request.param)
    try:
        yield request.param
    finally:
        utfkit._kernels.set_backend(previous)


# ---- hypothesis profiles ------------------------------------------------------
# "default" gives each property about 400 examples in all, split between the
# kernels (each kernel sees at least 50), which keeps the suite within a few
# minutes on two cores; "thorough" is for a longer hunt:
# UTFKIT_HYPOTHESIS_PROFILE=thorough.
settings.register_profile(
    "default",
    max_examples=max(50, 400 // len(KERNELS)),
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


# ---- external vectors -----------------------------------------------------------
def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "large_memory: needs several GiB of free RAM (skipped otherwise)",
    )


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    """The shared external test vectors (../shared/vectors beside the checkout)."""
    if not VECTORS_DIR.is_dir():
        pytest.skip(f"external test vectors not found at {VECTORS_DIR}")
    return VECTORS_DIR
