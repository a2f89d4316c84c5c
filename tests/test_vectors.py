"""External UTF-8 test vectors (../shared/vectors), each checked case by case.

Every vector goes through the full CPython comparison (validate, check's
start/end/reason, valid_up_to, sanitize, decode(replace), count) and through
the expectations its authors wrote down.  UTF-16 vectors are skipped until
utfkit grows UTF-16.
"""

from __future__ import annotations

import mmap

import pytest

import utfkit
from utf8_oracle import (
    assert_agrees_with_cpython,
    assert_no_disagreements,
    cpython_decode_outcome,
    utfkit_decode_outcome,
    utfkit_error,
    walk_maximal_subparts,
)
from vector_files import vector_params

FFFD = "\ufffd"


def only_utf8(vector) -> str | None:
    if vector["codec"] != "utf-8":
        return f"{vector['codec']} vectors are tested in test_utf16_utf32.py"
    return None


def short_hex(hex_bytes: str, limit: int = 36) -> str:
    compact = hex_bytes.replace(" ", "") or "empty"
    return compact if len(compact) <= limit else compact[:limit] + "..."


def assert_replace_decoding(data: bytes, expected_replace: str) -> None:
    """The vector's own expectation for U+FFFD substitution."""
    assert utfkit.decode(data, errors="replace") == expected_replace
    sanitized = utfkit.sanitize(data)
    assert sanitized == expected_replace.encode("utf-8")
    assert sanitized.decode("utf-8") == expected_replace
    assert utfkit.count(data) == len(expected_replace)


# ---- Markus Kuhn's UTF-8 decoder capability and stress test -------------------
@pytest.mark.parametrize(
    "vector",
    vector_params("kuhn_vectors.json", case_id=lambda i, v: f"kuhn-{v['id']}"),
)
def test_kuhn_stress_test_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    assert utfkit.validate(data) is vector["valid_utf8"]
    assert (utfkit_error(data) is None) is vector["valid_utf8"]
    assert_replace_decoding(data, vector["expected_replace"])
    assert utfkit.decode(data, errors="replace").count(FFFD) == vector["n_fffd"]
    assert_agrees_with_cpython(data)


def test_kuhn_stress_test_file(vectors_dir):
    """The raw UTF-8-test.txt, whole and line by line, as bytes and as an mmap."""
    path = vectors_dir / "UTF-8-test.txt"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    raw = path.read_bytes()
    replaced = raw.decode("utf-8", "replace")
    assert utfkit.sanitize(raw) == replaced.encode("utf-8")
    assert utfkit.count(raw) == len(replaced)
    assert_agrees_with_cpython(raw)
    assert_no_disagreements(raw.splitlines(keepends=True))

    # The subpart walk re-assembles exactly CPython's "replace" decoding.
    reassembled = "".join(run.decode("utf-8") + (FFFD if subpart else "") for run, subpart in walk_maximal_subparts(raw))
    assert reassembled == replaced

    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert utfkit.valid_up_to(mapped) == utfkit.valid_up_to(raw)
        assert utfkit.sanitize(mapped) == replaced.encode("utf-8")
        assert utfkit.count(mapped) == len(replaced)


# ---- CPython's own test tables -----------------------------------------------------
@pytest.mark.parametrize(
    "vector",
    vector_params(
        "cpython_vectors.json",
        case_id=lambda i, v: f"cpython-{i}-{v['codec']}-{short_hex(v['input_hex'])}",
        skip_reason=only_utf8,
    ),
)
def test_cpython_codec_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    assert utfkit.validate(data) is not vector["strict_raises"]
    assert_replace_decoding(data, vector["expected_replace"])
    strict = utfkit_decode_outcome(data, "strict")
    assert (strict[0] == "UnicodeDecodeError") is vector["strict_raises"]
    assert strict == cpython_decode_outcome(data, "strict")
    assert_agrees_with_cpython(data)


# ---- encoding_rs ---------------------------------------------------------------------
def encoding_rs_skip_reason(vector) -> str | None:
    reason = only_utf8(vector)
    if reason:
        return reason
    note = vector.get("note", "")
    if "BOM" in note and "sniff" in note.lower():
        # WHATWG decoders drop a leading BOM; CPython's "utf-8" codec keeps it as U+FEFF.
        return f"assumes WHATWG BOM sniffing, which CPython's utf-8 codec does not do: {note}"
    return None


@pytest.mark.parametrize(
    "vector",
    vector_params(
        "encoding_rs_vectors.json",
        case_id=lambda i, v: f"encoding_rs-{i}-{v['codec']}-{short_hex(v['input_hex'])}",
        skip_reason=encoding_rs_skip_reason,
    ),
)
def test_encoding_rs_decoder_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    assert_replace_decoding(data, vector["expected_replace"])
    if FFFD not in vector["expected_replace"]:  # nothing replaced: well-formed
        assert utfkit.validate(data) is True
        assert utfkit.decode(data) == vector["expected_replace"]
    assert_agrees_with_cpython(data)


# ---- web-platform-tests TextDecoder -------------------------------------------------
@pytest.mark.parametrize(
    "vector",
    vector_params(
        "wpt_vectors.json",
        select=lambda document: document["single"],
        case_id=lambda i, v: f"wpt-{i}-{v['codec']}-{short_hex(v['input_hex'])}",
        skip_reason=only_utf8,
    ),
)
def test_wpt_textdecoder_single_shot_vectors(vector):
    data = bytes.fromhex(vector["input_hex"])
    # {fatal: true} throws exactly when the input is not well-formed.
    assert utfkit.validate(data) is not vector["fatal_throws"]
    assert (utfkit_error(data) is not None) is vector["fatal_throws"]
    assert_replace_decoding(data, vector["expected_replace"])
    assert_agrees_with_cpython(data)


# ---- Rust's Utf8Chunks ---------------------------------------------------------------
@pytest.mark.parametrize(
    "vector",
    vector_params("utf8_chunks_vectors.json", case_id=lambda i, v: f"utf8_chunks-{i}-{short_hex(v['input_hex'])}"),
)
def test_utf8_chunks_vectors_walk_each_maximal_subpart(vector):
    data = bytes.fromhex(vector["input_hex"])
    expected = [(chunk["valid"].encode("utf-8"), bytes.fromhex(chunk["invalid_hex"])) for chunk in vector["chunks"]]
    # valid_up_to() finds each run, check()'s end - start each subpart's length.
    assert walk_maximal_subparts(data) == expected
    position = 0
    for valid, invalid in expected:
        rest = memoryview(data)[position:]
        assert utfkit.valid_up_to(rest) == len(valid)
        error = utfkit_error(rest)
        if invalid:
            assert error[:2] == (len(valid), len(valid) + len(invalid))
        else:
            assert error is None
        position += len(valid) + len(invalid)
    assert position == len(data)
    assert_replace_decoding(data, vector["expected_replace"])
    assert_agrees_with_cpython(data)


# ---- Autobahn WebSocket test suite, case 6 ----------------------------------------------
@pytest.mark.parametrize(
    "vector",
    vector_params("autobahn_case6_vectors.json", case_id=lambda i, v: f"autobahn-{v['case']}"),
)
def test_autobahn_case_6_payloads(vector):
    data = bytes.fromhex(vector["payload_hex"])
    assert utfkit.validate(data) is vector["valid"]
    assert (utfkit_error(data) is None) is vector["valid"]
    if vector["valid"]:
        assert utfkit.valid_up_to(data) == len(data)
        assert utfkit.sanitize(data) is data
    assert_agrees_with_cpython(data)
