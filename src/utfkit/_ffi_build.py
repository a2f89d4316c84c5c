"""The cffi builder for utfkit's C core (out-of-line API mode).

setup.py names this module in ``cffi_modules``; the package build then
compiles csrc/ into the extension ``utfkit._native``.  The cdef is the part
of csrc/utfkit.h between its BEGIN CDEF / END CDEF markers, so the binding
and the C header cannot drift apart.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parents[2]
CSRC = ROOT / "csrc"

SOURCES = [
    "csrc/dispatch.c",
    "csrc/scalar.c",
    "csrc/lengths.c",
    "csrc/utf8.c",
    "csrc/utf16.c",
    "csrc/utf32.c",
    "csrc/transcode.c",
    "csrc/wtf8.c",
    "csrc/cesu8.c",
    "csrc/latin1.c",
    "csrc/partial.c",
    "csrc/utfe8.c",
    "csrc/validate_many.c",
    "csrc/offsets.c",
    "csrc/stream.c",
    "csrc/simd/x86_sse2.c",
    "csrc/simd/x86_sse4.c",
    "csrc/simd/x86_sse4_transcode.c",
    "csrc/simd/x86_avx2.c",
    "csrc/simd/x86_avx2_transcode.c",
    "csrc/simd/x86_avx512.c",
    "csrc/simd/x86_avx512_transcode.c",
    "csrc/simd/x86_latin1.c",
    "csrc/simd/arm_neon.c",
    "csrc/simd/arm_neon_transcode.c",
]


def _cdef_text() -> str:
    header = (CSRC / "utfkit.h").read_text(encoding="utf-8")
    begin = header.index("/* BEGIN CDEF */") + len("/* BEGIN CDEF */")
    end = header.index("/* END CDEF */")
    return header[begin:end]


def _compile_args() -> list[str]:
    if sys.platform == "win32":
        return ["/O2"]
    # -O3 lets the compiler unroll the 16-byte DFA blocks; no -march: the
    # SIMD kernels carry per-function target attributes instead.
    # -falign-functions=64: each function on its own 64-byte line, so that a
    # change to one function cannot move another's hot loop within its line
    # (the Makefile's BENCH_CFLAGS, which the benchmarks use, say the same).
    return ["-O3", "-std=gnu11", "-falign-functions=64", "-fvisibility=hidden"]


ffibuilder = FFI()
ffibuilder.cdef(_cdef_text())
ffibuilder.set_source(
    "utfkit._native",
    '#include "utfkit.h"\n',
    # Relative paths keep setuptools happy; the build runs from the project root.
    sources=[os.path.relpath(ROOT / source) for source in SOURCES],
    include_dirs=[os.path.relpath(CSRC)],
    extra_compile_args=_compile_args(),
)

if __name__ == "__main__":
    ffibuilder.compile(tmpdir=str(ROOT / "build" / "cffi"), verbose=True)
