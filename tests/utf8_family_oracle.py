"""A slow, independent reference for WTF-8, CESU-8 and MUTF-8: each form's
table of well-formed byte sequences read byte by byte, with the error cuts
utfkit documents (csrc/utfkit.h, README "Errors"), and the encoders of
seed 003 section 6.1 / UTR #26 / the JNI specification.

Written from the specifications, sharing nothing with the C core, so that
tests can compare the two on any input.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

OK = "ok"
INVALID_START = "invalid start"
INVALID_CONTINUATION = "invalid continuation"
END_OF_DATA = "end of data"
SURROGATE = "surrogate"

CARRIERS = {"wtf-8", "mutf-8"}  # forms with lone surrogates
TAKE_LONE_SURROGATES = {"wtf-8", "mutf-8", "utf-16-le", "utf-16-be"}


def _second_byte_range(lead: int, form: str) -> Tuple[int, int]:
    """Seed 003 Table 3 (generalized UTF-8): the range of the byte after
    `lead`; MUTF-8's C0 takes only 80 (U+0000)."""
    if lead == 0xC0:
        return 0x80, 0x80
    if lead == 0xE0:
        return 0xA0, 0xBF
    if lead == 0xF0:
        return 0x90, 0xBF
    if lead == 0xF4:
        return 0x80, 0x8F
    return 0x80, 0xBF


def _sequence_length(lead: int, form: str) -> int:
    """Bytes of the sequence `lead` starts in `form`; 0 if it starts none."""
    if lead == 0x00:
        return 0 if form == "mutf-8" else 1
    if lead < 0x80:
        return 1
    if lead == 0xC0 and form == "mutf-8":
        return 2
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4 and form == "wtf-8":
        return 4
    return 0


def read_sequence(data: bytes, at: int, form: str) -> Tuple[str, int, int]:
    """(status, length, code point) of the generalized-UTF-8 sequence at
    `at` in `form`'s table; length is the maximal subpart when ill-formed."""
    lead = data[at]
    length = _sequence_length(lead, form)
    if length == 0:
        return INVALID_START, 1, 0
    if length == 1:
        return OK, 1, lead
    value = lead & (0xFF >> (length + 1))
    for k in range(1, length):
        if at + k == len(data):
            return END_OF_DATA, k, 0
        byte = data[at + k]
        low, high = _second_byte_range(lead, form) if k == 1 else (0x80, 0xBF)
        if not low <= byte <= high:
            return INVALID_CONTINUATION, k, 0
        value = value << 6 | (byte & 0x3F)
    return OK, length, value


Event = Tuple[str, int, int, int]  # (status, start, end, code point)


def events(data: bytes, form: str) -> List[Event]:
    """The input cut into code points and ill-formed subsequences."""
    out: List[Event] = []
    at = 0
    lead_end = -1
    while at < len(data):
        status, length, value = read_sequence(data, at, form)
        if status != OK:
            out.append((status, at, at + length, 0))
            at += length
            continue
        if 0xD800 <= value <= 0xDBFF and form in ("cesu-8", "mutf-8"):
            after = at + 3
            status2, length2, value2 = (read_sequence(data, after, form) if after < len(data)
                                        else (END_OF_DATA, 0, 0))
            if status2 == OK and 0xDC00 <= value2 <= 0xDFFF:
                out.append((OK, at, at + 6, 0x10000 + ((value - 0xD800) << 10) + (value2 - 0xDC00)))
                at += 6
                continue
            if form == "cesu-8":
                rest = data[after:]
                cut_short = rest == b"" or rest == b"\xed" or (
                    len(rest) == 2 and rest[0] == 0xED and 0xB0 <= rest[1] <= 0xBF)
                if cut_short:
                    out.append((END_OF_DATA, at, len(data), 0))
                    at = len(data)
                else:
                    out.append((SURROGATE, at, at + 3, 0))
                    at += 3
                continue
        if 0xDC00 <= value <= 0xDFFF:
            if form == "cesu-8" or (form == "wtf-8" and lead_end == at):
                out.append((SURROGATE, at, at + 3, 0))
                at += 3
                continue
        if 0xD800 <= value <= 0xDBFF:
            lead_end = at + length
        out.append((OK, at, at + length, value))
        at += length
    return out


def first_error(data: bytes, form: str) -> Optional[Event]:
    for event in events(data, form):
        if event[0] != OK:
            return event
    return None


def is_surrogate(code_point: int) -> bool:
    return 0xD800 <= code_point <= 0xDFFF


# ---- encoders of code point sequences ------------------------------------------


def generalized_utf8(code_point: int) -> bytes:
    """Seed 003 Table 2, written out from the bit distribution."""
    if code_point < 0x80:
        return bytes([code_point])
    if code_point < 0x800:
        return bytes([0xC0 | code_point >> 6, 0x80 | code_point & 0x3F])
    if code_point < 0x10000:
        return bytes([0xE0 | code_point >> 12, 0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F])
    return bytes([0xF0 | code_point >> 18, 0x80 | code_point >> 12 & 0x3F,
                  0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F])


def utf16_units(code_point: int) -> List[int]:
    """Seed 003 section 4.1 for one code point."""
    if code_point >= 0x10000:
        offset = code_point - 0x10000
        return [0xD800 + (offset >> 10), 0xDC00 + (offset & 0x3FF)]
    return [code_point]


def encode(code_points: List[int], form: str) -> bytes:
    """Encode code points (lone surrogates allowed where the form has them)."""
    if form == "wtf-8":  # seed 003 section 6.1: a lead + trail pair joins
        out = bytearray()
        k = 0
        while k < len(code_points):
            value = code_points[k]
            if (0xD800 <= value <= 0xDBFF and k + 1 < len(code_points)
                    and 0xDC00 <= code_points[k + 1] <= 0xDFFF):
                value = 0x10000 + ((value - 0xD800) << 10) + (code_points[k + 1] - 0xDC00)
                k += 1
            out += generalized_utf8(value)
            k += 1
        return bytes(out)
    if form in ("cesu-8", "mutf-8"):
        out = bytearray()
        for value in code_points:
            if value == 0 and form == "mutf-8":
                out += b"\xc0\x80"
                continue
            for unit in utf16_units(value):
                out += generalized_utf8(unit)
        return bytes(out)
    if form == "utf-8":
        return b"".join(generalized_utf8(value) for value in code_points)
    if form.startswith("utf-16"):
        order = "little" if form.endswith("le") else "big"
        return b"".join(unit.to_bytes(2, order) for value in code_points for unit in utf16_units(value))
    order = "little" if form.endswith("le") else "big"
    return b"".join(value.to_bytes(4, order) for value in code_points)


def wtf16_code_points(units: List[int]) -> List[int]:
    """Seed 003 section 4.2: decoding potentially ill-formed UTF-16."""
    out = []
    k = 0
    while k < len(units):
        unit = units[k]
        if 0xD800 <= unit <= 0xDBFF and k + 1 < len(units) and 0xDC00 <= units[k + 1] <= 0xDFFF:
            out.append(0x10000 + ((unit - 0xD800) << 10) + (units[k + 1] - 0xDC00))
            k += 2
        else:
            out.append(unit)
            k += 1
    return out


def transcode(data: bytes, source: str, target: str, errors: str) -> Tuple[Optional[bytes], Optional[Event]]:
    """(output, None), or (None, first error) with errors="strict", for a
    UTF-8-based source form."""
    code_points: List[int] = []
    for event in events(data, source):
        status, start, end, value = event
        if status == OK and is_surrogate(value) and target not in TAKE_LONE_SURROGATES:
            event = (SURROGATE, start, end, 0)
            status = SURROGATE
        if status == OK:
            code_points.append(value)
        elif errors == "strict":
            return None, event
        elif errors == "replace":
            code_points.append(0xFFFD)
    return encode(code_points, target), None


def decode_replace(data: bytes, form: str) -> str:
    """What decode(data, form, "replace") yields: lone surrogates as they
    are, U+FFFD per ill-formed subsequence."""
    return "".join(chr(value) if status == OK else "\ufffd"
                   for status, _, _, value in events(data, form))
