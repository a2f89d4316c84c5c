"""CPython's UTF-8 codec as the oracle utfkit's answers are judged against.

DESIGN.md fixes utfkit's UTF-8 behaviour relative to CPython: check() raises
the same start/end/reason as ``bytes(data).decode("utf-8")``, decode() equals
``bytes(data).decode("utf-8", errors)``, sanitize() equals the "replace"
decode re-encoded, count() is the length of that decode.
"""

from __future__ import annotations

import utfkit

# Every error handler CPython's UTF-8 decoder accepts out of the box.
ERROR_HANDLERS = (
    "strict",
    "replace",
    "ignore",
    "backslashreplace",
    "surrogateescape",
    "surrogatepass",
)


def cpython_error(data: bytes) -> tuple[int, int, str] | None:
    """(start, end, reason) of CPython's first UTF-8 decode error, None if well-formed."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start, exc.end, exc.reason
    return None


def utfkit_error(data) -> tuple[int, int, str] | None:
    """(start, end, reason) of the UnicodeDecodeError utfkit.check raises, None if none."""
    try:
        returned = utfkit.check(data)
    except UnicodeDecodeError as exc:
        assert exc.encoding == "utf-8"
        assert exc.object == bytes(data)
        return exc.start, exc.end, exc.reason
    assert returned is None
    return None


def decode_outcome(decode, data, errors: str):
    """What a decode call produced: its str, or the exception's identifying fields."""
    try:
        return ("returned", decode(data, errors))
    except UnicodeDecodeError as exc:
        return ("UnicodeDecodeError", exc.encoding, bytes(exc.object), exc.start, exc.end, exc.reason)
    except Exception as exc:  # any other exception must match CPython's exactly too
        return (type(exc).__name__, str(exc))


def utfkit_decode_outcome(data, errors: str):
    return decode_outcome(lambda d, e: utfkit.decode(d, "utf-8", e), data, errors)


def cpython_decode_outcome(data, errors: str):
    return decode_outcome(lambda d, e: bytes(d).decode("utf-8", e), data, errors)


def assert_agrees_with_cpython(data) -> None:
    """Every UTF-8 query utfkit answers, checked against CPython on bytes(data)."""
    raw = bytes(data)
    expected_error = cpython_error(raw)
    replaced = raw.decode("utf-8", "replace")
    context = f"input {raw.hex(' ')}"

    assert utfkit_error(data) == expected_error, context
    assert utfkit.validate(data) is (expected_error is None), context
    expected_prefix = len(raw) if expected_error is None else expected_error[0]
    assert utfkit.valid_up_to(data) == expected_prefix, context
    assert utfkit.sanitize(data) == replaced.encode("utf-8"), context
    assert utfkit.decode(data, errors="replace") == replaced, context
    assert utfkit.count(data) == len(replaced), context


def disagreements_with_cpython(data) -> list[str]:
    """Like assert_agrees_with_cpython, but returns the mismatches as text.

    For exhaustive loops over many inputs, so that one failure reports every
    input that fails rather than only the first.
    """
    raw = bytes(data)
    expected_error = cpython_error(raw)
    replaced = raw.decode("utf-8", "replace")
    expected_prefix = len(raw) if expected_error is None else expected_error[0]
    got = {
        "check": utfkit_error(data),
        "validate": utfkit.validate(data),
        "valid_up_to": utfkit.valid_up_to(data),
        "sanitize": utfkit.sanitize(data),
        "decode(replace)": utfkit.decode(data, errors="replace"),
        "count": utfkit.count(data),
    }
    expected = {
        "check": expected_error,
        "validate": expected_error is None,
        "valid_up_to": expected_prefix,
        "sanitize": replaced.encode("utf-8"),
        "decode(replace)": replaced,
        "count": len(replaced),
    }
    return [
        f"{raw.hex(' ')}: {name} expected {expected[name]!r}, got {got[name]!r}"
        for name in expected
        if got[name] != expected[name] or type(got[name]) is not type(expected[name])
    ]


def assert_no_disagreements(inputs) -> None:
    """assert_agrees_with_cpython over many inputs, reporting up to 20 failures."""
    failures: list[str] = []
    for data in inputs:
        failures.extend(disagreements_with_cpython(data))
        if len(failures) >= 20:
            break
    assert not failures, "\n".join(failures)


def walk_maximal_subparts(data) -> list[tuple[bytes, bytes]]:
    """Split data into (well-formed run, maximal subpart) pairs using only utfkit.

    Mirrors Rust's Utf8Chunks: valid_up_to() finds the end of each well-formed
    run, check()'s (start, end) spells out the maximal subpart (D93b) that
    follows; the walk resumes right after that subpart.  Only the last pair can
    have an empty subpart; empty input gives [(b"", b"")].
    """
    raw = bytes(data)
    view = memoryview(raw)
    chunks: list[tuple[bytes, bytes]] = []
    position = 0
    while True:
        rest = view[position:]
        prefix = utfkit.valid_up_to(rest)
        error = utfkit_error(rest)
        if error is None:
            assert prefix == len(rest), f"check() passed but valid_up_to={prefix} of {len(rest)}"
            if len(rest) or not chunks:  # no empty run after a final subpart
                chunks.append((bytes(rest), b""))
            return chunks
        start, end, _reason = error
        assert start == prefix, f"check() start {start} != valid_up_to {prefix}"
        assert end > start, f"empty maximal subpart at {position + start}"
        chunks.append((bytes(rest[:start]), bytes(rest[start:end])))
        position += end
