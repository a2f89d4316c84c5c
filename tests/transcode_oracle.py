"""CPython's codecs as the oracle for every encoding form utfkit converts between.

The transcoding contract (DESIGN.md section 2) is stated relative to CPython:
``transcode(b, from_, to, errors)`` equals ``bytes(b).decode(from_,
errors).encode(to)``, a strict failure raises CPython's UnicodeDecodeError
(same encoding name, object, start, end and reason), ``transcoded_length``
is the length of that output, and check / validate / valid_up_to / sanitize /
count / decode answer for UTF-16 and UTF-32 what CPython's decoders answer.
"""

from __future__ import annotations

import utfkit

# The five encoding forms of Unicode 3.9 (D90-D92) with an explicit byte order,
# spelled as codecs.lookup() names them (and as UnicodeDecodeError.encoding says).
FORMS = ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
FORM_PAIRS = [(from_, to) for from_ in FORMS for to in FORMS]

# The modes transcode accelerates; every other handler belongs to decode/encode.
TRANSCODE_ERRORS = ("strict", "replace", "ignore")

# Every error handler CPython's decoders accept out of the box.
DECODE_ERROR_HANDLERS = (
    "strict",
    "replace",
    "ignore",
    "backslashreplace",
    "surrogateescape",
    "surrogatepass",
)

# Byte order per form, for building code unit sequences.
UNIT_SIZE = {"utf-8": 1, "utf-16-le": 2, "utf-16-be": 2, "utf-32-le": 4, "utf-32-be": 4}
BYTE_ORDER = {"utf-16-le": "little", "utf-16-be": "big", "utf-32-le": "little", "utf-32-be": "big"}


def code_units(units, encoding: str) -> bytes:
    """Serialise code unit values (any value that fits the unit, surrogates
    and values past 10FFFF included) in the form's unit size and byte order."""
    size = UNIT_SIZE[encoding]
    if size == 1:
        return bytes(units)
    order = BYTE_ORDER[encoding]
    return b"".join(unit.to_bytes(size, order) for unit in units)


def decode_error_fields(exc: UnicodeDecodeError) -> tuple:
    return ("UnicodeDecodeError", exc.encoding, bytes(exc.object), exc.start, exc.end, exc.reason)


# ---- outcomes: what a call produced, comparable with == -----------------------------
def cpython_transcode_outcome(data, from_: str, to: str, errors: str):
    try:
        return ("returned", bytes(data).decode(from_, errors).encode(to))
    except UnicodeDecodeError as exc:
        return decode_error_fields(exc)


def utfkit_transcode_outcome(data, from_: str, to: str, errors: str):
    try:
        result = utfkit.transcode(data, from_, to, errors)
    except UnicodeDecodeError as exc:
        return decode_error_fields(exc)
    assert type(result) is bytes, f"transcode returned {type(result).__name__}, not bytes"
    return ("returned", result)


def utfkit_transcoded_length_outcome(data, from_: str, to: str, errors: str):
    try:
        length = utfkit.transcoded_length(data, from_, to, errors)
    except UnicodeDecodeError as exc:
        return decode_error_fields(exc)
    assert type(length) is int
    return ("returned", length)


def cpython_error(data, encoding: str) -> tuple[int, int, str] | None:
    """(start, end, reason) of CPython's first decode error, None if well-formed."""
    try:
        bytes(data).decode(encoding)
    except UnicodeDecodeError as exc:
        assert exc.encoding == encoding  # the oracle's own spelling of the name
        return exc.start, exc.end, exc.reason
    return None


def utfkit_error(data, encoding: str) -> tuple[int, int, str] | None:
    """(start, end, reason) of the UnicodeDecodeError utfkit.check raises, None if none."""
    try:
        returned = utfkit.check(data, encoding)
    except UnicodeDecodeError as exc:
        assert exc.encoding == encoding, f"check() names the encoding {exc.encoding!r}"
        assert exc.object == bytes(data)
        return exc.start, exc.end, exc.reason
    assert returned is None
    return None


def decode_outcome(decode, data, encoding: str, errors: str):
    try:
        return ("returned", decode(data, encoding, errors))
    except UnicodeDecodeError as exc:
        return decode_error_fields(exc)
    except Exception as exc:  # any other exception must match CPython's too
        return (type(exc).__name__, str(exc))


def encode_outcome(encode, text: str, encoding: str, errors: str):
    try:
        return ("returned", encode(text, encoding, errors))
    except UnicodeEncodeError as exc:
        return ("UnicodeEncodeError", exc.encoding, exc.object, exc.start, exc.end, exc.reason)
    except Exception as exc:
        return (type(exc).__name__, str(exc))


# ---- the full comparison ------------------------------------------------------------
def form_disagreements(data, encoding: str) -> list[str]:
    """Mismatches between utfkit's queries on `data` in `encoding` and CPython's."""
    raw = bytes(data)
    expected_error = cpython_error(raw, encoding)
    replaced = raw.decode(encoding, "replace")
    expected = {
        "check": expected_error,
        "validate": expected_error is None,
        "valid_up_to": len(raw) if expected_error is None else expected_error[0],
        "sanitize": replaced.encode(encoding),
        "decode(replace)": replaced,
        "count": len(replaced),
    }
    got = {
        "check": utfkit_error(data, encoding),
        "validate": utfkit.validate(data, encoding),
        "valid_up_to": utfkit.valid_up_to(data, encoding),
        "sanitize": utfkit.sanitize(data, encoding),
        "decode(replace)": utfkit.decode(data, encoding, "replace"),
        "count": utfkit.count(data, encoding),
    }
    return [
        f"{encoding} {raw.hex(' ')}: {name} expected {expected[name]!r}, got {got[name]!r}"
        for name in expected
        if got[name] != expected[name] or type(got[name]) is not type(expected[name])
    ]


def transcode_disagreements(data, from_: str, targets=FORMS, modes=TRANSCODE_ERRORS, lengths: bool = True) -> list[str]:
    """Mismatches of transcode (and, with `lengths`, transcoded_length)
    against decode-then-encode."""
    raw = bytes(data)
    failures = []
    for to in targets:
        for errors in modes:
            expected = cpython_transcode_outcome(raw, from_, to, errors)
            got = utfkit_transcode_outcome(data, from_, to, errors)
            if got != expected:
                failures.append(
                    f"transcode({raw.hex(' ')}, {from_}, {to}, {errors}): expected {expected!r}, got {got!r}"
                )
            if not lengths:
                continue
            expected_length = ("returned", len(expected[1])) if expected[0] == "returned" else expected
            got_length = utfkit_transcoded_length_outcome(data, from_, to, errors)
            if got_length != expected_length:
                failures.append(
                    f"transcoded_length({raw.hex(' ')}, {from_}, {to}, {errors}): "
                    f"expected {expected_length!r}, got {got_length!r}"
                )
    return failures


def all_disagreements(data, from_: str) -> list[str]:
    return form_disagreements(data, from_) + transcode_disagreements(data, from_)


def assert_agrees_with_cpython(data, from_: str) -> None:
    """Every query and every conversion of `data` read as `from_`, against CPython."""
    failures = all_disagreements(data, from_)
    assert not failures, "\n".join(failures)


def assert_no_disagreements(inputs, from_: str, limit: int = 20) -> None:
    """assert_agrees_with_cpython over many inputs, reporting up to `limit` failures."""
    failures: list[str] = []
    for data in inputs:
        failures.extend(all_disagreements(data, from_))
        if len(failures) >= limit:
            break
    assert not failures, "\n".join(failures)
