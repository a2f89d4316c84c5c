"""Unicode 3.9 Table 3-7 (well-formed UTF-8 byte sequences) as data, and the
ill-formed sequences at the edges of its rows: one list for the tests
(test_transcode_kernels.py) and the fuzz seeds (fuzz/make_seeds.py, which
imports this file from the source tree, with no utfkit installed).
"""

from __future__ import annotations

from typing import Dict, List, Tuple

# Each row: (first lead, last lead, lowest second byte, highest second
# byte, sequence length).  Further bytes are always 80..BF.
TABLE_3_7_ROWS: List[Tuple[int, int, int, int, int]] = [
    (0xC2, 0xDF, 0x80, 0xBF, 2),
    (0xE0, 0xE0, 0xA0, 0xBF, 3),
    (0xE1, 0xEC, 0x80, 0xBF, 3),
    (0xED, 0xED, 0x80, 0x9F, 3),
    (0xEE, 0xEF, 0x80, 0xBF, 3),
    (0xF0, 0xF0, 0x90, 0xBF, 4),
    (0xF1, 0xF3, 0x80, 0xBF, 4),
    (0xF4, 0xF4, 0x80, 0x8F, 4),
]


def table_3_7_boundaries() -> Dict[str, bytes]:
    """For the first and last lead byte of every Table 3-7 row, each
    ill-formed second byte at the edge of the row's range: the highest one
    below it and the lowest one above it (7F and C0 for rows taking 80..BF;
    E0 9F, ED A0, F0 8F, F4 90 for the narrow rows), and for the narrow rows
    the continuation bytes at the far ends too (E0 80, ED BF, F0 80, F4 BF).
    The rest of the sequence is continuation bytes, as a truncated or
    damaged character would leave them.  Named "E0_9F" etc."""
    cases = {}
    for first_lead, last_lead, low, high, length in TABLE_3_7_ROWS:
        for lead in sorted({first_lead, last_lead}):
            seconds = {low - 1, high + 1}
            if low > 0x80:
                seconds.add(0x80)
            if high < 0xBF:
                seconds.add(0xBF)
            for second in sorted(seconds):
                cases[f"{lead:02X}_{second:02X}"] = bytes([lead, second]) + b"\x80" * (length - 2)
    return cases
