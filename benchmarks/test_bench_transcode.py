"""Transcoding throughput: utfkit.transcode against CPython's decode + encode.

Not part of the plain ``pytest`` run (pyproject's ``testpaths`` is ``tests``);
run from the repository root:

    pytest benchmarks/test_bench_transcode.py --benchmark-group-by=group
    pytest benchmarks/test_bench_transcode.py --benchmark-group-by=group -q \\
        --benchmark-min-rounds=3 --benchmark-max-time=0.2    # quicker, less precise
    pytest benchmarks/test_bench_transcode.py --benchmark-group-by=group \\
        -k "utf8>utf16le"                                     # one direction
    UTFKIT_CORPUS_DIR=../shared/corpus pytest benchmarks/test_bench_transcode.py \\
        --benchmark-group-by=group -k corpus                  # real text only
    UTFKIT_BENCH_BACKENDS=scalar,avx512 pytest benchmarks/test_bench_transcode.py \\
        --benchmark-group-by=group

Each group is one direction on one text, named ``A>B/<text>`` (as the
operations of ``utfkit bench``: ``utf8>utf16le/cjk``), for the six
directions between UTF-8, UTF-16-LE and UTF-32-LE, and holds three
contenders:

``test_transcode_utfkit``              ``utfkit.transcode(b, A, B, E)``: a new
                                       ``bytes``
``test_transcode_utfkit_out``          ``utfkit.transcode(b, A, B, E, out=buf)``
                                       into one ``bytearray`` of the output's
                                       length, reused by every call
``test_transcode_cpython_decode_encode``  ``b.decode(A, E).encode(B)``

``E`` is ``strict`` on clean texts and ``replace`` on ``-dirty`` ones.  ``b``
is the text in form ``A``: the UTF-8 text itself, or the clean text
re-encoded by CPython with, for a dirty text, one unpaired surrogate or
invalid UTF-32 unit inserted per KiB (``utfkit.bench.corpus.Text.encoded``).
Throughput counts the INPUT bytes.  Outputs of 128 KiB or more from fresh
allocations page-fault on first touch, which the allocating call pays and
the ``out=`` call does not; CPython's decode + encode pays for two.

The texts are the generated corpus (1 MiB of UTF-8 each, clean and
``-dirty``) and, with ``UTFKIT_CORPUS_DIR``, the files of that directory and
a dirty variant of each (see bench_texts.py).  Every utfkit result is
checked against CPython's before it is timed, and again after.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import pytest

import utfkit
from utfkit.bench.operations import DIRECTIONS, FORMS

from bench_texts import CLEAN_TEXTS, DIRTY_TEXTS, TextKey, group, text

ALL_TEXTS = CLEAN_TEXTS + DIRTY_TEXTS

DIRECTIONS = [
    pytest.param((source, target), id=f"{source}>{target}")
    for source, target in DIRECTIONS
]


class Case(NamedTuple):
    """One direction on one text, with CPython's answer."""

    group: str
    data: bytes
    source: str
    target: str
    errors: str
    expected: bytes


def _cpython_transcode(data: bytes, source: str, target: str, errors: str) -> bytes:
    return data.decode(source, errors).encode(target)


def _case(direction: tuple[str, str], key: TextKey) -> Case:
    found = text(key)
    source, target = (FORMS[form] for form in direction)
    errors = "replace" if found.is_dirty else "strict"
    data = found.encoded(source)
    expected = _cpython_transcode(data, source, target, errors)
    return Case(group(">".join(direction), key), data, source, target, errors, expected)


def _first_difference(got: bytes, expected: bytes) -> str:
    at = next(
        (i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
        min(len(got), len(expected)),
    )
    return (
        f"utfkit gives {len(got)} bytes, CPython {len(expected)}; first difference at "
        f"byte {at}: utfkit {got[at:at + 8].hex(' ')!r}, CPython {expected[at:at + 8].hex(' ')!r}"
    )


@pytest.mark.parametrize("key", ALL_TEXTS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_transcode_utfkit(
    throughput: Any, utfkit_backend: str, direction: tuple[str, str], key: TextKey
) -> None:
    case = _case(direction, key)
    arguments = (case.data, case.source, case.target, case.errors)
    before = utfkit.transcode(*arguments)
    assert type(before) is bytes
    assert before == case.expected, _first_difference(before, case.expected)
    got = throughput(case.group, len(case.data), utfkit.transcode, *arguments)
    assert got == case.expected, _first_difference(got, case.expected)


@pytest.mark.parametrize("key", ALL_TEXTS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_transcode_utfkit_out(
    throughput: Any, utfkit_backend: str, direction: tuple[str, str], key: TextKey
) -> None:
    case = _case(direction, key)
    arguments = (case.data, case.source, case.target, case.errors)
    assert utfkit.transcoded_length(*arguments) == len(case.expected)
    # A byte that no output is made of alone, so that bytes left unwritten show.
    buffer = bytearray(b"\xa5") * len(case.expected)
    assert utfkit.transcode(*arguments, out=buffer) == len(case.expected)
    assert buffer == case.expected, _first_difference(bytes(buffer), case.expected)
    into_buffer = functools.partial(utfkit.transcode, out=buffer)
    written = throughput(case.group, len(case.data), into_buffer, *arguments)
    assert written == len(case.expected)
    assert buffer == case.expected, _first_difference(bytes(buffer), case.expected)


@pytest.mark.parametrize("key", ALL_TEXTS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_transcode_cpython_decode_encode(
    throughput: Any, direction: tuple[str, str], key: TextKey
) -> None:
    case = _case(direction, key)
    arguments = (case.data, case.source, case.target, case.errors)
    got = throughput(case.group, len(case.data), _cpython_transcode, *arguments)
    assert len(got) > 0
