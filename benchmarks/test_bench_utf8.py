"""UTF-8 throughput: utfkit against CPython's own codec, with pytest-benchmark.

Not part of the plain ``pytest`` run (pyproject's ``testpaths`` is ``tests``);
run from the repository root:

    pytest benchmarks --benchmark-group-by=group
    pytest benchmarks --benchmark-group-by=group -q --benchmark-min-rounds=3 \\
        --benchmark-max-time=0.2                      # quicker, less precise
    UTFKIT_BENCH_BACKENDS=scalar,avx2 pytest benchmarks --benchmark-group-by=group
    UTFKIT_CORPUS_DIR=../shared/corpus pytest benchmarks --benchmark-group-by=group \\
        -k corpus                                     # real text only
    pytest benchmarks --benchmark-group-by=group --benchmark-json=bench.json

Each group is one operation on one text, named ``operation/text``:

``validate/<text>``     ``utfkit.validate`` vs ``bytes.decode("utf-8")`` (clean texts)
``count/<text>``        ``utfkit.count`` vs ``len(bytes.decode("utf-8", "replace"))``
``replace/<text>``      ``utfkit.sanitize`` vs ``bytes.decode("utf-8", "replace")``
``first-error/<text>``  ``utfkit.valid_up_to`` and ``utfkit.validate`` vs a strict
                        ``bytes.decode`` that raises (dirty texts; each call
                        reads only up to the first ill-formed subsequence)

and every group also holds ``test_read_baseline``: ``bytes.find`` of a byte
absent from the text, i.e. memchr over the same bytes, the speed of merely
reading them.  The texts are the generated corpus of ``utfkit.bench.corpus``
(1 MiB each, clean and ``-dirty``), plus, when ``UTFKIT_CORPUS_DIR`` names a
directory, its ``*.txt`` files (``corpus:`` in the test ids) and a dirty
variant of each; without it those tests are skipped (see bench_texts.py).
Every utfkit result is checked against CPython's.  After the run, a table of
GB/s per group is printed (see conftest.py).  Transcoding is in
test_bench_transcode.py.
"""

from __future__ import annotations

from typing import Any

import pytest

import utfkit
from utfkit.bench.tasks import absent_byte

from bench_texts import CLEAN_TEXTS, DIRTY_TEXTS, TextKey
from bench_texts import group as _group
from bench_texts import text as _text_of


def _text(key: TextKey) -> bytes:
    """The text as timed, in UTF-8."""
    return _text_of(key).utf8


def _first_error(data: bytes) -> UnicodeDecodeError:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error
    raise AssertionError("a dirty text decodes without error")


def _cpython_valid_up_to(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return len(data)


def _cpython_count(data: bytes) -> int:
    return len(data.decode("utf-8", "replace"))


# ---------------------------------------------------------------- validate


@pytest.mark.parametrize("key", CLEAN_TEXTS)
def test_validate_utfkit(throughput: Any, utfkit_backend: str, key: TextKey) -> None:
    data = _text(key)
    assert throughput(_group("validate", key), len(data), utfkit.validate, data) is True


@pytest.mark.parametrize("key", CLEAN_TEXTS)
def test_validate_cpython_decode_strict(throughput: Any, key: TextKey) -> None:
    data = _text(key)
    text = throughput(_group("validate", key), len(data), data.decode, "utf-8")
    assert len(text) > 0


# ---------------------------------------------------------------- count


@pytest.mark.parametrize("key", CLEAN_TEXTS + DIRTY_TEXTS)
def test_count_utfkit(throughput: Any, utfkit_backend: str, key: TextKey) -> None:
    data = _text(key)
    expected = _cpython_count(data)
    assert throughput(_group("count", key), len(data), utfkit.count, data) == expected


@pytest.mark.parametrize("key", CLEAN_TEXTS + DIRTY_TEXTS)
def test_count_cpython_len_decode_replace(throughput: Any, key: TextKey) -> None:
    data = _text(key)
    assert throughput(_group("count", key), len(data), _cpython_count, data) > 0


# ---------------------------------------------------------------- replace


@pytest.mark.parametrize("key", CLEAN_TEXTS + DIRTY_TEXTS)
def test_replace_utfkit_sanitize(throughput: Any, utfkit_backend: str, key: TextKey) -> None:
    data = _text(key)
    expected = data.decode("utf-8", "replace").encode("utf-8")
    assert throughput(_group("replace", key), len(data), utfkit.sanitize, data) == expected


@pytest.mark.parametrize("key", CLEAN_TEXTS + DIRTY_TEXTS)
def test_replace_cpython_decode_replace(throughput: Any, key: TextKey) -> None:
    data = _text(key)
    text = throughput(_group("replace", key), len(data), data.decode, "utf-8", "replace")
    assert len(text) > 0


# ---------------------------------------------------------------- first error


@pytest.mark.parametrize("key", DIRTY_TEXTS)
def test_first_error_utfkit_valid_up_to(
    throughput: Any, utfkit_backend: str, key: TextKey
) -> None:
    data = _text(key)
    error = _first_error(data)
    got = throughput(_group("first-error", key), error.end, utfkit.valid_up_to, data)
    assert got == error.start


@pytest.mark.parametrize("key", DIRTY_TEXTS)
def test_first_error_utfkit_validate(throughput: Any, utfkit_backend: str, key: TextKey) -> None:
    data = _text(key)
    error = _first_error(data)
    assert throughput(_group("first-error", key), error.end, utfkit.validate, data) is False


@pytest.mark.parametrize("key", DIRTY_TEXTS)
def test_first_error_cpython_decode_strict_raises(throughput: Any, key: TextKey) -> None:
    data = _text(key)
    error = _first_error(data)
    got = throughput(_group("first-error", key), error.end, _cpython_valid_up_to, data)
    assert got == error.start


# ---------------------------------------------------------------- read baseline


_BASELINE_CASES = [
    pytest.param(operation, text.values[0], id=f"{operation}-{text.id}", marks=text.marks)
    for operation, texts in (
        ("validate", CLEAN_TEXTS),
        ("count", CLEAN_TEXTS + DIRTY_TEXTS),
        ("replace", CLEAN_TEXTS + DIRTY_TEXTS),
        ("first-error", DIRTY_TEXTS),
    )
    for text in texts
]


@pytest.mark.parametrize(("operation", "key"), _BASELINE_CASES)
def test_read_baseline(throughput: Any, operation: str, key: TextKey) -> None:
    """memchr over the bytes the group's operation reads: the whole text, or
    for first-error the prefix up to the end of the first error."""
    data = _text(key)
    if operation == "first-error":
        data = data[: _first_error(data).end]
    absent = absent_byte(data)
    if absent is None:
        pytest.skip("every byte value occurs in this text: no absent byte to search for")
    assert throughput(_group(operation, key), len(data), data.find, absent) == -1
