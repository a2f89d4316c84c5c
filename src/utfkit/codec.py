"""Registration of utfkit's ``wtf-8``, ``cesu-8`` and ``mutf-8`` codecs with
the :mod:`codecs` module.

Nothing is registered at import: call :func:`register_codecs` once, and
then ``"…".encode("wtf-8")``, ``b.decode("mutf-8")``,
``open(path, encoding="cesu-8")``, ``codecs.getincrementaldecoder("cesu-8")``
and the stream readers and writers work.

Chunked decoding gives what one-shot decoding gives however the input is
split: a sequence cut by a chunk boundary waits for its end, and so does a
lead surrogate byte sequence at the end of a chunk, since what follows
decides what it is -- the first half of a pair (CESU-8, MUTF-8), the lead
of an ill-formed surrogate pair byte sequence (WTF-8), or a lone surrogate.

Chunked WTF-8 encoding likewise holds a lead surrogate at the end of a
chunk back until the next chunk (or ``final=True``) shows whether a trail
surrogate follows, to join the two into one 4-byte sequence (seed 003
section 6.1).  Note that :class:`io.TextIOWrapper` -- what ``open()``
returns -- never calls its encoder with ``final=True``: text written to a
``wtf-8`` file whose very last character is a lone lead surrogate loses
that character.  Write such text with :func:`utfkit.encode` and a binary
file instead.
"""

from __future__ import annotations

import codecs
import functools
from typing import Any, Optional, Tuple

from . import _text
from ._binding import UTF8_FAMILY
from .stream import IncrementalDecoder as StreamDecoder
from .stream import held_back_length

__all__ = ["register_codecs"]

_registered = False


def register_codecs() -> None:
    """Register the ``wtf-8``, ``cesu-8`` and ``mutf-8`` codecs (also spelt
    ``wtf8``, ``cesu_8``, ``MUTF-8`` …) with :mod:`codecs`.

    Explicit by design, never done at import; calling it again does
    nothing.  CPython's own codecs are untouched.
    """
    global _registered
    if not _registered:
        codecs.register(_search)
        _registered = True


def _search(name: str) -> Optional[codecs.CodecInfo]:
    folded = name.strip().lower().replace("_", "").replace("-", "").replace(" ", "")
    canonical = _FAMILY_BY_FOLDED_NAME.get(folded)
    return None if canonical is None else _codec_info(canonical)


_FAMILY_BY_FOLDED_NAME = {name.replace("-", ""): name for name in UTF8_FAMILY}


# ------------------------------------------------------ where chunks are cut


def _decode_chunk(data: Any, name: str, errors: str, final: bool) -> Tuple[str, int]:
    """Decode what a chunk settles; the rest waits for the next chunk (the
    C stream's hold-back rule, utfkit.stream.held_back_length)."""
    data = bytes(data)
    length = len(data) if final else len(data) - held_back_length(data, name)
    return _text.decode(data[:length], name, errors), length


# ------------------------------------------------------------------ codecs


@functools.lru_cache(maxsize=None)
def _codec_info(name: str) -> codecs.CodecInfo:
    def encode(text: str, errors: str = "strict") -> Tuple[bytes, int]:
        return _text.encode(text, name, errors), len(text)

    def decode(data: Any, errors: str = "strict") -> Tuple[str, int]:
        return _text.decode(data, name, errors), memoryview(data).nbytes

    class IncrementalEncoder(codecs.IncrementalEncoder):
        """Chunked encoding; WTF-8 holds a final lead surrogate back (see
        the module docstring)."""

        def __init__(self, errors: str = "strict") -> None:
            super().__init__(errors)
            self.pending = ""  # a lead surrogate awaiting its possible trail

        def encode(self, input: str, final: bool = False) -> bytes:
            text = self.pending + input
            self.pending = ""
            if name == "wtf-8" and not final and text and "\ud800" <= text[-1] <= "\udbff":
                self.pending, text = text[-1], text[:-1]
            return _text.encode(text, name, self.errors)

        def reset(self) -> None:
            self.pending = ""

        def getstate(self) -> int:
            return ord(self.pending) if self.pending else 0

        def setstate(self, state: int) -> None:  # type: ignore[override]
            self.pending = chr(state) if state else ""

    class IncrementalDecoder(StreamDecoder):
        """Chunked decoding, identical to one-shot decoding however split
        (utfkit.IncrementalDecoder for this encoding)."""

        def __init__(self, errors: str = "strict") -> None:
            super().__init__(name, errors)

    class StreamWriter(codecs.StreamWriter):
        """Writes through an IncrementalEncoder, so that a surrogate pair
        split across write() calls still joins; reset() and close() write
        a held-back lead surrogate."""

        def __init__(self, stream: Any, errors: str = "strict") -> None:
            super().__init__(stream, errors)
            self._encoder = IncrementalEncoder(errors)

        def encode(self, input: str, errors: str = "strict") -> Tuple[bytes, int]:
            return _text.encode(input, name, errors), len(input)

        def write(self, object: str) -> None:
            self._encoder.errors = self.errors
            self.stream.write(self._encoder.encode(object))

        def writelines(self, list: Any) -> None:
            self.write("".join(list))

        def reset(self) -> None:
            rest = self._encoder.encode("", final=True)
            if rest:
                self.stream.write(rest)

        def close(self) -> None:
            self.reset()
            self.stream.close()

        def __exit__(self, *exc_info: Any) -> None:
            self.close()

    class StreamReader(codecs.StreamReader):
        """codecs.StreamReader keeps what decode() leaves over for the next
        call and, at the end of the stream, calls decode() once more with
        those bytes alone: then they are decoded as final, so a trailing
        lone surrogate is kept and a truncated sequence is reported, not
        dropped."""

        def decode(self, input: Any, errors: str = "strict") -> Tuple[str, int]:
            at_end = len(input) > 0 and input == self.bytebuffer  # no new bytes came
            return _decode_chunk(input, name, errors, at_end)

    return codecs.CodecInfo(
        name=name,
        encode=encode,
        decode=decode,
        incrementalencoder=IncrementalEncoder,
        incrementaldecoder=IncrementalDecoder,
        streamreader=StreamReader,
        streamwriter=StreamWriter,
    )
