"""UTF-E-8 and RFC 2279 UTF-8 validation (issue 15): ``validate(data,
"utf-e-8")`` and ``validate(data, "utf-8-rfc2279")`` beside ``validate(data)``
on the same UTF-8 texts, whose UTF-8 runs all go through the UTF-8 kernel
(csrc/utfe8.c); and on text with one 7-byte UTF-E-8 sequence per KiB, where
the scalar reader takes each of those.

    pytest benchmarks/test_bench_utfe8.py --benchmark-group-by=group

Groups: ``utfe8-validate/<text>`` (each text as UTF-8, all three calls) and
``utfe8-validate/<text>+FE`` (the text with the longer sequences mixed in).
"""

from __future__ import annotations

from typing import Any

import pytest

import utfkit

from bench_texts import CLEAN_TEXTS, TextKey
from bench_texts import group as _group
from bench_texts import text as _text_of

U_80000000 = b"\xfe\x82\x80\x80\x80\x80\x80"  # seed 002: the first seven-byte code


def _with_longer_sequences(data: bytes) -> bytes:
    """`data` with U+80000000 after about every KiB, on character boundaries."""
    parts, start = [], 0
    while start < len(data):
        end = min(start + 1024, len(data))
        while end < len(data) and 0x80 <= data[end] < 0xC0:
            end += 1
        parts += [data[start:end], U_80000000]
        start = end
    return b"".join(parts)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-e-8", "utf-8-rfc2279"])
@pytest.mark.parametrize("key", CLEAN_TEXTS)
def test_validate_utf8_text(throughput: Any, utfkit_backend: str, key: TextKey, encoding: str) -> None:
    data = _text_of(key).utf8
    assert throughput(_group("utfe8-validate", key), len(data), utfkit.validate, data, encoding) is True


@pytest.mark.parametrize("encoding", ["utf-e-8", "utf-8-rfc2279"])
@pytest.mark.parametrize("key", CLEAN_TEXTS)
def test_validate_with_seven_byte_sequences(
    throughput: Any, utfkit_backend: str, key: TextKey, encoding: str
) -> None:
    data = _with_longer_sequences(_text_of(key).utf8)
    expected = encoding == "utf-e-8"  # RFC 2279 ends at U+7FFFFFFF
    group = _group("utfe8-validate", key) + "+FE"
    assert throughput(group, len(data), utfkit.validate, data, encoding) is expected
