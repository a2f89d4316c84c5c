"""A reference for UTF-E-8 (seed 002) and the original ISO 10646 / RFC 2279
UTF-8 (seed 004), written from the seeds' layout alone -- it knows the value
range each sequence length encodes and D93b's definition of a maximal
subpart, nothing of csrc/utfe8.c -- and the hypothesis strategies the
UTF-E-8 tests share."""

from __future__ import annotations

from typing import List, Tuple, Union

from hypothesis import strategies as st

MAX = 0x7FFFFFFFFFFFFFFF  # U+7FFFFFFFFFFFFFFF, the last code point of UCS-E (seed 002)
RFC2279_MAX = 0x7FFFFFFF  # ISO 10646's 31 bits (seed 004)

# (first code point, lead marker, continuation bytes): seed 002 sections 3.2-3.4
LAYOUT = [
    (0x0, None, 0),
    (0x80, 0xC0, 1),
    (0x800, 0xE0, 2),
    (0x10000, 0xF0, 3),
    (0x200000, 0xF8, 4),
    (0x4000000, 0xFC, 5),
    (0x80000000, 0xFE, 6),
    (0x1000000000, 0xFF, 12),
]

# the lowest and highest code point of each sequence length
RANGES = {1: (0, 0x7F), 2: (0x80, 0x7FF), 3: (0x800, 0xFFFF), 4: (0x10000, 0x1FFFFF),
          5: (0x200000, 0x3FFFFFF), 6: (0x4000000, 0x7FFFFFFF), 7: (0x80000000, 0xFFFFFFFFF),
          13: (0x1000000000, MAX)}

# every first and last code point of a length
BOUNDARIES = sorted({value for pair in RANGES.values() for value in pair})


def reference_encode(code_point: int, continuation: int = -1) -> bytes:
    """`code_point` in the form with `continuation` continuation bytes (its
    shortest form by default, or a longer, overlong one)."""
    if continuation < 0:
        continuation = [count for first, _, count in LAYOUT if code_point >= first][-1]
    if continuation == 0:
        return bytes([code_point])
    marker = dict((count, lead) for _, lead, count in LAYOUT)[continuation]
    tail = bytes(0x80 | (code_point >> (6 * k)) & 0x3F for k in reversed(range(continuation)))
    return bytes([marker | (code_point >> (6 * continuation) if continuation <= 5 else 0)]) + tail


def announced_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if lead < 0xC0:
        return 0
    if lead == 0xFE:
        return 7
    if lead == 0xFF:
        return 13
    return 8 - (lead ^ 0xFF).bit_length()  # the number of leading one bits


def value_bounds(sequence: bytes) -> Tuple[int, int]:
    """(lowest, highest) value the sequence's completions can encode."""
    length = announced_length(sequence[0])
    payload = sequence[0] if length == 1 else sequence[0] & (0x7F >> length) if length <= 6 else 0
    for byte in sequence[1:]:
        payload = payload << 6 | (byte & 0x3F)
    remaining = 6 * (length - len(sequence))
    return payload << remaining, (payload << remaining) | ((1 << remaining) - 1)


def starts_a_well_formed_sequence(sequence: bytes, limit: int = MAX) -> bool:
    """D93b's test: is `sequence` an initial part of some shortest form of a
    code point up to `limit`?"""
    length = announced_length(sequence[0])
    if length == 0 or len(sequence) > length:
        return False
    if any(not 0x80 <= byte <= 0xBF for byte in sequence[1:]):
        return False
    lowest, highest = value_bounds(sequence)
    first, last = RANGES[length]
    return max(lowest, first) <= min(highest, last, limit)


Item = Tuple[Union[int, str], int, int]


def reference_decode(data: bytes, limit: int = MAX) -> List[Item]:
    """(code point, start, end) for each sequence and (reason, start, end)
    for each maximal subpart of an ill-formed subsequence, in order.  A
    subsequence is above the limit when the byte after it leaves only code
    points above `limit` (the lead byte itself, if its every form is)."""
    above = f"code point above U+{limit:X}"
    at, out = 0, []
    while at < len(data):
        if not starts_a_well_formed_sequence(data[at : at + 1], limit):
            length = announced_length(data[at])
            # C0, C1: every completion overlong; else every one above the limit
            overlong = length == 0 or value_bounds(data[at : at + 1])[1] < RANGES[length][0]
            out.append(("invalid start byte" if overlong else above, at, at + 1))
            at += 1
            continue
        length = announced_length(data[at])
        k = 1
        while k < length and at + k < len(data) and starts_a_well_formed_sequence(data[at : at + k + 1], limit):
            k += 1
        if k == length:
            out.append((value_bounds(data[at : at + k])[0], at, at + k))
        elif at + k == len(data):
            out.append(("unexpected end of data", at, at + k))
        else:
            byte = data[at + k]
            too_large = 0x80 <= byte <= 0xBF and value_bounds(data[at : at + k + 1])[0] > min(
                RANGES[length][1], limit)
            out.append((above if too_large else "invalid continuation byte", at, at + k))
        at += k
    return out


def is_scalar_value(code_point: int) -> bool:
    return code_point <= 0x10FFFF and not 0xD800 <= code_point <= 0xDFFF


code_points = st.one_of(
    st.integers(0, MAX),
    st.sampled_from(BOUNDARIES),
    st.integers(0, 0x10FFFF),
    st.integers(0xD800, 0xDFFF),
)

utfe8_bytes = st.lists(
    st.one_of(
        code_points.map(reference_encode),
        code_points.map(reference_encode).flatmap(
            lambda b: st.integers(1, len(b)).map(lambda n: b[:n])),
        st.binary(min_size=1, max_size=2),
        st.tuples(st.sampled_from([0xC0, 0xE0, 0xF0, 0xF8, 0xFC, 0xFE, 0xFF]),
                  st.lists(st.integers(0x80, 0x90), max_size=7)).map(lambda t: bytes([t[0], *t[1]])),
    ),
    max_size=12,
).map(b"".join)
