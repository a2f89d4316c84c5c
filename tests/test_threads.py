"""Threads: the GIL is released around every C call, and the stateful
objects refuse concurrent use (see also tests/test_stream.py).

Timing is not asserted here (benchmarks/threads.py measures two threads
against one); what is checked is the mechanism: the C wrapper cffi
generates for every function of csrc/utfkit.h's CDEF block releases the
GIL (Py_BEGIN_ALLOW_THREADS) around the call.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

# The build script is loaded from this checkout, not from the installed
# package: it reads csrc/utfkit.h beside it, which only the source tree has
# (a non-editable install ships src/utfkit/_ffi_build.py without csrc/).
_BUILD_SCRIPT = Path(__file__).resolve().parents[1] / "src" / "utfkit" / "_ffi_build.py"
_spec = importlib.util.spec_from_file_location("utfkit_ffi_build_from_checkout", _BUILD_SCRIPT)
_ffi_build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ffi_build)
_cdef_text = _ffi_build._cdef_text
ffibuilder = _ffi_build.ffibuilder


@pytest.fixture(autouse=True)
def kernel():
    """Overrides conftest's per-kernel parametrisation: no kernel involved."""
    return None


def test_every_c_function_releases_the_gil(tmp_path):
    source = tmp_path / "native.c"
    ffibuilder.emit_c_code(str(source))
    generated = source.read_text()
    functions = sorted(set(re.findall(r"\b(utfkit_\w+)\s*\(", _cdef_text())))
    assert "utfkit_stream_feed" in functions and "utfkit_transcode" in functions
    for name in functions:
        wrapper = re.search(rf"_cffi_f_{name}\(PyObject.*?\n}}\n", generated, re.S)
        assert wrapper, f"no cffi wrapper for {name}"
        body = wrapper.group(0)
        assert "Py_BEGIN_ALLOW_THREADS" in body and "Py_END_ALLOW_THREADS" in body, name
        # the call itself sits between the two
        inside = body.split("Py_BEGIN_ALLOW_THREADS", 1)[1].split("Py_END_ALLOW_THREADS", 1)[0]
        assert f"{name}(" in inside, name
