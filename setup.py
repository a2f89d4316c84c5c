"""Only what pyproject.toml cannot say: the compiled extensions.

- utfkit._native: the C core, built by cffi (cffi_modules), abi3.
- utfkit._direct: a small CPython extension that calls the core on Python
  objects where cffi's per-call cost would dominate: a new ``bytes`` or
  ``str`` for the core to fill in place, an ``out=`` buffer, and the
  commonest calls of the public functions (src/utfkit/_direct*.c, listed in
  _direct.h).  It only includes
  csrc/utfkit.h; the core itself is linked once, into utfkit._native.  It
  uses _PyBytes_Resize, which is outside the limited API, so it is built for
  each Python version.  It is declared here because setuptools 65.5 (the
  version the team builds with) has no ext-modules table in pyproject.toml.
"""

import sys

from setuptools import Extension, setup

DIRECT = Extension(
    "utfkit._direct",
    sources=["src/utfkit/_direct.c", "src/utfkit/_direct_write.c", "src/utfkit/_direct_checks.c",
             "src/utfkit/_direct_text.c", "src/utfkit/_direct_stream.c"],
    include_dirs=["csrc"],
    depends=["csrc/utfkit.h", "src/utfkit/_direct.h"],
    extra_compile_args=[] if sys.platform == "win32" else ["-O2", "-std=gnu11"],
)

setup(cffi_modules=["src/utfkit/_ffi_build.py:ffibuilder"], ext_modules=[DIRECT])
