"""``utfkit bench``: utfkit against CPython's own codecs, on the same texts.

For each text (the generated corpus of :mod:`utfkit.bench.corpus` by default, or
the ``*.txt`` files under ``--corpus DIR`` and a dirty variant of each), every
operation chosen with ``--ops`` is timed against its CPython counterpart in
the same run.  The UTF-8 operations:

==============  ============================  ====================================
operation       utfkit                        CPython
==============  ============================  ====================================
``validate``    ``utfkit.validate(b)``        ``b.decode("utf-8")``
``count``       ``utfkit.count(b)``           ``len(b.decode("utf-8", "replace"))``
``replace``     ``utfkit.sanitize(b)``        ``b.decode("utf-8", "replace")``
``valid_up_to`` ``utfkit.valid_up_to(b)``     ``b.decode("utf-8")`` raising;
                                              ``UnicodeDecodeError.start``
``read``        --                            ``b.find(byte)`` of a byte absent
                                              from ``b``: memchr, the speed of
                                              reading the text at all
==============  ============================  ====================================

``validate`` and ``valid_up_to`` on a dirty text stop at its first
ill-formed subsequence, so their throughput is counted over the bytes up to
the end of it (the ``bytes`` column), not the whole text.  ``valid_up_to``
is timed on dirty texts only: on clean ones it is ``validate``.

The transcoding operations, one pair per direction of :data:`DIRECTIONS`
(UTF-8, UTF-16-LE and UTF-32-LE to each other), named ``A>B`` from the
short names of :data:`FORMS` (``utf8>utf16le``):

=================  ======================================  ==========================
operation          utfkit                                  CPython
=================  ======================================  ==========================
``A>B``            ``utfkit.transcode(b, A, B, E)``        ``b.decode(A, E).encode(B)``
``A>B out=``       ``utfkit.transcode(b, A, B, E,          ``b.decode(A, E).encode(B)``
                   out=buf)``
=================  ======================================  ==========================

``E`` is ``"strict"`` on clean texts and ``"replace"`` on dirty ones.  ``b``
is the text in form ``A``: the UTF-8 text itself, or the clean text
re-encoded by CPython, with (for a dirty text) one unpaired surrogate or
invalid UTF-32 unit inserted per KiB (:meth:`utfkit.bench.corpus.Text.encoded`).
GB/s count the INPUT bytes, ``len(b)``.  ``A>B`` returns a new ``bytes``, so
it pays for its output's memory, as CPython's decode + encode pays for a
``str`` and a ``bytes``; memory the allocator takes fresh from the kernel
page-faults on first touch, a large part of the cost for outputs of 128 KiB
and more when it happens.  ``A>B out=`` writes into ``buf``, one
``bytearray`` of exactly the output's length made once and reused by every
call, which shows the conversion alone.  ``--json`` gives, per contender,
the minor page faults per call during the timed rounds.

Timing is built for a noisy machine: each contender runs a calibrated number
of calls per round (enough for a few milliseconds), the contenders take turns
round by round and swap which goes first on every round, so that drift in the
machine's speed (frequency scaling, neighbours) falls on both alike; the
table shows the best round, the JSON document also the median.  Before any
timing, each utfkit result is compared with CPython's; a disagreement is
reported, and makes the exit status 1.

GB/s = bytes / seconds / 1e9; ratio = utfkit GB/s / CPython GB/s, so a ratio
above 1 means utfkit is faster.

The package, one job per module:

================  ==========================================================
``corpus``        the texts: generated prose in seven scripts, clean and dirty,
                  or the files of ``--corpus DIR``
``operations``    what each operation compares; the groups ``--ops`` selects
``tasks``         an operation on a text, both calls checked against each other
``timing``        interleaved rounds, calibrated loops, the clock
``small``         the short-input groups (``small``, ``many``)
``runner``        every operation on every text, in order
``machine``       what the figures were measured on (``utfkit info`` uses it)
``report``        the table, the header and legend, the JSON form of a row
``command``       the options of ``utfkit bench`` and the run they ask for
================  ==========================================================

``python -m utfkit.bench [OPTIONS]`` is ``utfkit bench [OPTIONS]``.
"""

from __future__ import annotations

from .command import add_arguments, main

__all__ = ["add_arguments", "main"]
