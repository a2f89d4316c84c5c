"""Deterministic benchmark texts: generated UTF-8 in several scripts, clean and dirty.

The texts imitate running prose rather than random code points, because the
speed of a UTF-8 reader depends on how its bytes are laid out: how long the
runs of ASCII are (spaces, punctuation, digits between words) and which
sequence lengths of Table 3-7 follow each other.  Each clean text is built
from a vocabulary of words in one script, weighted by a Zipf law as natural
language is, strung into sentences with capitals, commas, full stops and
paragraph breaks:

=================  =======================================================
``ascii``          English words only: every byte below 0x80
``mostly-ascii``   English with about one non-ASCII character per 100 bytes
                   (names such as Poincaré, typographic dashes and quotes),
                   the mix of English Wikipedia
``latin1``         French/German/Icelandic-like words, many letters taken
                   from the Latin-1 Supplement (2-byte sequences, C3 xx)
``cyrillic``       Russian-like words (2-byte sequences, D0 xx / D1 xx)
``arabic``         Arabic-like words with the article al- (2-byte, D8..D9 xx)
``cjk``            Chinese-like text: ideographs and full-width punctuation
                   with no spaces between words (3-byte sequences)
``emoji``          emoji separated by spaces, with skin-tone modifiers and
                   ZWJ sequences (mostly 4-byte sequences)
=================  =======================================================

Every text also has a ``-dirty`` variant (``"cjk-dirty"``) made by
:func:`dirty`: one ill-formed subsequence per KiB, inserted at character
boundaries and cycling through the kinds listed in
:data:`ILL_FORMED_SUBSEQUENCES`.

For the transcoding benchmarks every text exists in UTF-16 and UTF-32 too
(:meth:`Text.encoded`): the clean text is the UTF-8 one re-encoded by
CPython, and its dirty variant is that re-encoded clean text with one
unpaired surrogate (UTF-16, :data:`ILL_FORMED_UTF16_UNITS`) or invalid code
unit (UTF-32, :data:`ILL_FORMED_UTF32_UNITS`) inserted per KiB, so a dirty
text is ill-formed in the way that form can be.

Generation is pure Python, seeded from a fixed constant and the text's name,
so the same name and size give the same bytes on every run and machine; the
text of a smaller size is a prefix of the text of a larger one.
"""

from __future__ import annotations

import codecs
import functools
import itertools
import os
import random
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "CORPUS_NAMES",
    "DEFAULT_SIZE",
    "DIRTY_NAMES",
    "DIRTY_SUFFIX",
    "ILL_FORMED_SUBSEQUENCES",
    "ILL_FORMED_UTF16_UNITS",
    "ILL_FORMED_UTF32_UNITS",
    "MAX_FILE_SIZE",
    "TRANSCODING_FORMS",
    "Text",
    "all_names",
    "corpus_texts",
    "dirty",
    "generate",
    "generated_text",
    "load_dir",
]

#: Size of a generated text when none is asked for: 1 MiB.
DEFAULT_SIZE: int = 1 << 20

#: Files larger than this are never read by :func:`load_dir`: 256 MiB.
MAX_FILE_SIZE: int = 256 << 20

#: Fixed part of every text's seed; changing it changes every text.
_SEED: int = 0x75746638  # "utf8"

#: Name suffix that selects the :func:`dirty` variant of a text.
DIRTY_SUFFIX: str = "-dirty"

#: The clean texts, in the order benchmarks report them.
CORPUS_NAMES: tuple[str, ...] = (
    "ascii",
    "mostly-ascii",
    "latin1",
    "cyrillic",
    "arabic",
    "cjk",
    "emoji",
)

#: The dirty variants, one per clean text.
DIRTY_NAMES: tuple[str, ...] = tuple(name + DIRTY_SUFFIX for name in CORPUS_NAMES)

#: The ill-formed subsequences :func:`dirty` inserts, in turn.  Each is
#: followed in the text by the first byte of a character (or by nothing), so
#: each kind keeps the meaning given here.
ILL_FORMED_SUBSEQUENCES: tuple[bytes, ...] = (
    b"\x80",  # lone continuation byte (Table 3-7: 80..BF never start a sequence)
    b"\xe2\x82",  # 3-byte lead byte and one continuation, truncated (U+20AC cut short)
    b"\xc0\xaf",  # C0 lead byte: overlong 2-byte form of U+002F, never well-formed
    b"\xf5\x80\x80\x80",  # F5 lead byte: would encode a value above U+10FFFF
    b"\xed\xa0\x80",  # encoded surrogate U+D800 (Table 3-7, row ED: second byte 80..9F only)
    b"\xe0\x80\x80",  # overlong 3-byte form of U+0000 (row E0: second byte A0..BF only)
    b"\xbf",  # lone continuation byte at the top of its range
    b"\xf0\x9f\x98",  # 4-byte lead byte and two continuations, truncated (U+1F600 cut short)
    b"\xc1\xbf",  # C1 lead byte: overlong 2-byte form of U+007F
    b"\xff",  # FF: never appears in UTF-8
    b"\xf4\x90\x80\x80",  # above U+10FFFF (row F4: second byte 80..8F only)
    b"\xfe",  # FE: never appears in UTF-8
)

#: The code units :func:`dirty` inserts into UTF-16, in turn.  Each goes at a
#: character boundary, so it stays unpaired: a lead surrogate is followed by
#: a BMP character or another lead (never a trail), and a trail surrogate
#: follows a BMP character or a whole pair (never a lone lead).
ILL_FORMED_UTF16_UNITS: tuple[int, ...] = (
    0xD800,  # lead surrogate without its trail (CPython: "illegal UTF-16 surrogate")
    0xDC00,  # trail surrogate without a lead before it (CPython: "illegal encoding")
    0xDBFF,  # the last lead surrogate, unpaired
    0xDFFF,  # the last trail surrogate, unpaired
)

#: The code units :func:`dirty` inserts into UTF-32, in turn: each is not a
#: Unicode scalar value (D76), so no UTF-32 code unit sequence holds it.
ILL_FORMED_UTF32_UNITS: tuple[int, ...] = (
    0x0000D800,  # a surrogate code point (D71)
    0x00110000,  # one past U+10FFFF, the last code point
    0x0000DFFF,  # the last surrogate code point
    0xFFFFFFFF,  # every bit set, far above U+10FFFF
)

#: The encoding forms a text can be had in (:meth:`Text.encoded`), by the
#: names the codecs module gives them.
TRANSCODING_FORMS: tuple[str, ...] = (
    "utf-8",
    "utf-16-le",
    "utf-16-be",
    "utf-32-le",
    "utf-32-be",
)

# How many distinct sentences a text draws from, and how many sentences one
# draw takes; both are fixed so that the bytes do not depend on the size.
_SENTENCES_PER_TEXT: int = 1500
_SENTENCES_PER_BATCH: int = 1024


def _zipf_weights(count: int) -> list[float]:
    """Word weights by rank, 1 / (rank + 2.7): the Zipf-Mandelbrot law of
    natural language, whose flattened head keeps the commonest word of a
    small vocabulary near the 5-7 % that "the" has in English."""
    return [1.0 / (rank + 2.7) for rank in range(1, count + 1)]


def _letters(*ranges: tuple[int, int]) -> str:
    """The characters of inclusive code point ranges."""
    return "".join(chr(cp) for first, last in ranges for cp in range(first, last + 1))


def _split(items: list[str], lengths: Sequence[int]) -> list[list[str]]:
    """``items`` cut into consecutive runs of the given lengths."""
    runs: list[list[str]] = []
    start = 0
    for length in lengths:
        runs.append(items[start : start + length])
        start += length
    return runs


def _syllable_words(
    rng: random.Random,
    count: int,
    onsets: Sequence[str],
    nuclei: Sequence[str],
    codas: Sequence[str],
    syllables: tuple[int, int],
    nucleus_weights: Sequence[float] | None = None,
) -> list[str]:
    """``count`` made-up words of onset + nucleus + coda syllables.

    Every draw for all the words is made at once: per-call overhead of
    ``random.choices`` would otherwise dominate the generation time.
    """
    lengths = rng.choices(range(syllables[0], syllables[1] + 1), k=count)
    total = sum(lengths)
    made = [
        a + b + c
        for a, b, c in zip(
            rng.choices(onsets, k=total),
            rng.choices(nuclei, weights=nucleus_weights, k=total),
            rng.choices(codas, k=total),
        )
    ]
    return ["".join(run) for run in _split(made, lengths)]


class _Style:
    """How one script strings words into sentences."""

    def __init__(
        self,
        vocabulary: list[str],
        *,
        words_per_sentence: tuple[int, int],
        separator: str = " ",
        comma: str = ", ",
        stops: Sequence[str] = (". ",),
        stop_weights: Sequence[float] | None = None,
        paragraph: str = "\n\n",
        comma_rate: float = 0.08,
        paragraph_rate: float = 0.12,
        capitalize: bool = False,
        extras: Sequence[str] = (),
        extras_rate: float = 0.0,
    ) -> None:
        # Tokens outside the vocabulary (accented names, numbers, ASCII in
        # CJK text) share ``extras_rate`` of the draws evenly; the words share
        # the rest by Zipf's law.
        self.tokens = list(vocabulary) + list(extras)
        word_weights = _zipf_weights(len(vocabulary))
        scale = (1.0 - extras_rate) / sum(word_weights)
        weights = [w * scale for w in word_weights]
        if extras:
            weights += [extras_rate / len(extras)] * len(extras)
        self.cum_weights = list(itertools.accumulate(weights))
        self.words_per_sentence = words_per_sentence
        self.separators = (separator, comma)
        self.separator_cum_weights = (1.0 - comma_rate, 1.0)
        self.stops = stops
        self.stop_weights = stop_weights
        self.paragraph = paragraph
        self.paragraph_rate = paragraph_rate
        self.capitalize = capitalize

    def sentences(self, rng: random.Random, count: int) -> list[str]:
        """``count`` sentences, every random draw for them made at once."""
        low, high = self.words_per_sentence
        lengths = rng.choices(range(low, high + 1), k=count)
        total = sum(lengths)
        words = rng.choices(self.tokens, cum_weights=self.cum_weights, k=total)
        separators = rng.choices(
            self.separators, cum_weights=self.separator_cum_weights, k=total
        )
        stops = rng.choices(self.stops, weights=self.stop_weights, k=count)
        paragraph_ends = [rng.random() < self.paragraph_rate for _ in range(count)]
        result: list[str] = []
        start = 0
        for length, stop, paragraph_end in zip(lengths, stops, paragraph_ends):
            end = start + length
            sentence_words = words[start:end]
            # The separator drawn after the last word is replaced by the stop.
            sentence_separators = separators[start : end - 1]
            start = end
            if self.capitalize:
                first = sentence_words[0]
                sentence_words[0] = first[:1].upper() + first[1:]
            if paragraph_end:
                stop = stop.rstrip(" ") + self.paragraph
            sentence_separators.append(stop)
            result.append(
                "".join(itertools.chain.from_iterable(zip(sentence_words, sentence_separators)))
            )
        return result


_ENGLISH_WORDS: tuple[str, ...] = tuple(  # a word list reads best as prose
    """
    the of and to in a is that for it as was with be by on not he this are or his
    from at which but have an they you were had her she there been one all we their
    has would when if so no what can more about also other into its time only new some
    could these two may first then do any like my now over such our man me even most
    made after many before must through back years where much your way well down should
    because each just those people how too little state good very make world still own
    see men work long get here between both life being under never day same another know
    while last might us great old year off come since against go came right used take
    three states himself few house use during without again place american around however
    home small found thought went say part once general high upon school every does got
    united left number course war until always away something fact though water less
    public put think almost hand enough far took head yet government system better set
    told nothing night end why called didn't eyes find going look asked later knew point
    next program city business give group toward young days let room president side
    social given present several order national possible rather second face per among
    form important often things looked early white case john become large big need four
    within felt along children saw best church ever least power development light thing
    seemed family interest want members mind country area others done turned although
    open problem sense service certain kind began different thus help means whole field
    planet surface orbit atmosphere water ice crater volcano mission rover spacecraft
    """.split()  # noqa: SIM905
)

# Non-ASCII tokens as they occur in English prose: names with diacritics,
# loanwords, typographic punctuation, units and currency.
_ENGLISH_ACCENTED: tuple[str, ...] = (
    "café", "naïve", "résumé", "façade", "déjà", "über", "piñata", "jalapeño",
    "Poincaré", "Gödel", "Dvořák", "Erdős", "Schrödinger", "Ångström", "Brontë",
    "Montréal", "Zürich", "São", "Málaga", "Kraków", "Łódź", "Curaçao", "Düsseldorf",
    "Škoda", "Fermi–Dirac", "1990–2000", "—", "–", "it’s", "don’t", "“Mars”",
    "20 °C", "±3", "5 × 10⁶", "€40", "£12", "½", "©", "résumés", "coöperate",
)

_ENGLISH_NUMBERS: tuple[str, ...] = (
    "1877", "1965", "2004", "2021", "3.7", "687", "24.6", "0.38", "6,779", "(1)",
)


def _english_style(rng: random.Random, accented: bool) -> _Style:
    # The rate of extra tokens for ``mostly-ascii`` is set so that the text
    # has about one non-ASCII character per 100 bytes: tokens with their
    # separators average ~5.5 bytes, and four in five extras are accented.
    del rng  # the vocabulary is fixed, in order of English word frequency
    if accented:
        extras = _ENGLISH_NUMBERS + _ENGLISH_ACCENTED
        rate = 0.048
    else:
        extras = _ENGLISH_NUMBERS
        rate = 0.01
    return _Style(
        list(_ENGLISH_WORDS),
        words_per_sentence=(6, 24),
        stops=(". ", "? ", "! ", "; "),
        stop_weights=(90, 3, 2, 5),
        capitalize=True,
        extras=extras,
        extras_rate=rate,
    )


def _latin1_style(rng: random.Random) -> _Style:
    # Vowels of French, German and Icelandic; every accented letter is in the
    # Latin-1 Supplement (U+00C0..U+00FF) and so encodes as C3 xx.
    nuclei = (
        "a", "e", "i", "o", "u", "é", "è", "ê", "à", "â", "ô", "û", "î", "ë", "ï",
        "ä", "ö", "ü", "á", "í", "ó", "ú", "ý", "æ", "ø", "å", "au", "ei", "ou", "ie",
    )
    nucleus_weights = (
        8, 9, 6, 6, 4, 6, 3, 2, 3, 1, 1, 1, 1, 1, 1, 3, 3, 3, 2, 2, 2, 2, 1, 2, 1, 1,
        2, 2, 2, 2,
    )
    onsets = (
        "", "", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "qu", "r",
        "s", "t", "v", "w", "ch", "sch", "st", "tr", "br", "gr", "fl", "ç", "ð", "þ",
        "hv", "pf",
    )
    codas = ("", "", "", "n", "r", "s", "t", "l", "nt", "ß", "ð", "x", "ck", "ng")
    words = _syllable_words(rng, 1500, onsets, nuclei, codas, (1, 3), nucleus_weights)
    short = ["et", "la", "le", "à", "où", "und", "der", "die", "á", "og", "í", "é", "über"]
    return _Style(
        short + words,
        words_per_sentence=(5, 20),
        stops=(". ", " ? ", " ! ", " : "),
        stop_weights=(90, 3, 2, 5),
        capitalize=True,
        extras=("1871", "2010", "3,7", "«", "»", "n°", "42"),
        extras_rate=0.01,
    )


def _cyrillic_style(rng: random.Random) -> _Style:
    consonants = list("бвгджзклмнпрстфхцчшщ")
    onsets = consonants + ["", "", "ст", "пр", "тр", "сл", "кр", "вз"]
    nuclei = list("аеёиоуыэюя")
    nucleus_weights = (12, 12, 1, 10, 14, 4, 3, 1, 1, 3)
    codas = ["", "", "", "й", "н", "т", "с", "ль", "р", "ть", "х", "м", "ъ"]
    words = _syllable_words(rng, 1500, onsets, nuclei, codas, (1, 3), nucleus_weights)
    short = ["и", "в", "не", "на", "что", "с", "по", "к", "он", "это", "как", "из"]
    return _Style(
        short + words,
        words_per_sentence=(5, 18),
        stops=(". ", "? ", "! ", " — "),
        stop_weights=(90, 3, 2, 5),
        capitalize=True,
        extras=("1877", "2021", "3,7", "«Марс»", "°C", "км"),
        extras_rate=0.01,
    )


def _arabic_style(rng: random.Random) -> _Style:
    # U+0621..U+064A without the tatweel (U+0640) and the unassigned U+063B..U+063F.
    letters = _letters((0x0621, 0x063A), (0x0641, 0x064A))
    onsets = list(letters) + ["", ""]
    nuclei = ["ا", "و", "ي", "", "", ""]
    codas = list(letters) + ["", "ة"]
    words = _syllable_words(rng, 1500, onsets, nuclei, codas, (1, 3))
    with_article = [rng.random() < 0.3 for _ in words]
    words = ["ال" + word if article else word for word, article in zip(words, with_article)]
    short = ["في", "من", "على", "إلى", "أن", "و", "عن", "مع", "هذا", "التي"]
    return _Style(
        short + words,
        words_per_sentence=(5, 20),
        comma="، ",
        stops=(". ", "؟ ", "؛ ", "! "),
        stop_weights=(88, 4, 5, 3),
        extras=("2021", "1877", "(1)", "كم", "3.7"),
        extras_rate=0.01,
    )


def _cjk_style(rng: random.Random) -> _Style:
    # 3000 ideographs of the CJK Unified Ideographs block, their frequency
    # falling off as in Chinese text; words of 1..4 characters written
    # without spaces, separated only by full-width punctuation.
    ideographs = [chr(cp) for cp in rng.sample(range(0x4E00, 0x9FA6), 3000)]
    cum_weights = list(itertools.accumulate(_zipf_weights(len(ideographs))))
    lengths = rng.choices((1, 2, 3, 4), weights=(35, 50, 10, 5), k=4000)
    characters = rng.choices(ideographs, cum_weights=cum_weights, k=sum(lengths))
    words = ["".join(run) for run in _split(characters, lengths)]
    return _Style(
        words,
        words_per_sentence=(6, 24),
        separator="",
        comma="，",
        stops=("。", "？", "！", "；"),
        stop_weights=(90, 3, 2, 5),
        paragraph="\n",
        comma_rate=0.12,
        extras=("、", "「", "」", "2021年", "NASA", "3.7", "（", "）", "《", "》"),
        extras_rate=0.03,
    )


def _emoji_style(rng: random.Random) -> _Style:
    # Emoticons, pictographs and transport symbols (all 4-byte, F0 9F xx xx),
    # sometimes with a skin-tone modifier (4-byte) or joined by ZWJ (U+200D)
    # and ended by VS16 (U+FE0F), both 3-byte.
    pictographs = _letters((0x1F300, 0x1F5FF), (0x1F600, 0x1F64F), (0x1F680, 0x1F6C5))
    skin_tones = _letters((0x1F3FB, 0x1F3FF))
    count = 3000
    lengths = rng.choices((1, 2, 3, 4, 5, 6), weights=(20, 25, 20, 15, 10, 10), k=count)
    runs = _split(rng.choices(pictographs, k=sum(lengths)), lengths)
    rolls = [rng.random() for _ in range(count)]
    tones = rng.choices(skin_tones, k=count)
    words: list[str] = []
    for emoji, roll, tone in zip(runs, rolls, tones):
        if roll < 0.1:
            emoji[0] += tone
        elif roll < 0.15 and len(emoji) > 1:
            emoji = ["\u200d".join(emoji) + "\ufe0f"]
        words.append("".join(emoji))
    return _Style(
        words,
        words_per_sentence=(3, 10),
        comma=" ",
        stops=("\n", " ", "! "),
        stop_weights=(50, 40, 10),
        paragraph="\n",
        comma_rate=0.0,
        paragraph_rate=0.0,
    )


_STYLES: dict[str, Callable[[random.Random], _Style]] = {
    "ascii": lambda rng: _english_style(rng, accented=False),
    "mostly-ascii": lambda rng: _english_style(rng, accented=True),
    "latin1": _latin1_style,
    "cyrillic": _cyrillic_style,
    "arabic": _arabic_style,
    "cjk": _cjk_style,
    "emoji": _emoji_style,
}


def all_names() -> tuple[str, ...]:
    """Every name :func:`generate` accepts: the clean texts, then the dirty ones."""
    return CORPUS_NAMES + DIRTY_NAMES


def _trim_to_character_boundary(data: bytes, size: int) -> bytes:
    """``data[:size]`` shortened so that it does not end inside a character."""
    if size >= len(data):
        return data
    end = size
    # data[end] is the first byte cut off; while it is a continuation byte
    # (10xxxxxx) the cut falls inside a character, so move it back.
    while end > 0 and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end]


@functools.lru_cache(maxsize=32)
def _generate_clean(name: str, size: int) -> bytes:
    rng = random.Random(_SEED ^ zlib.crc32(name.encode("ascii")))
    style = _STYLES[name](rng)
    sentences = [text.encode("utf-8") for text in style.sentences(rng, _SENTENCES_PER_TEXT)]
    chunks: list[bytes] = []
    length = 0
    while length <= size:
        batch = b"".join(rng.choices(sentences, k=_SENTENCES_PER_BATCH))
        chunks.append(batch)
        length += len(batch)
    return _trim_to_character_boundary(b"".join(chunks), size)


def generate(name: str, size: int = DEFAULT_SIZE) -> bytes:
    """The generated text ``name`` (see :func:`all_names`), at most ``size`` bytes.

    Clean texts are well-formed UTF-8 of exactly ``size`` bytes, less the
    0..3 bytes needed to end on a character boundary.  A ``-dirty`` name gives
    :func:`dirty` applied to the clean text of that size, so it is slightly
    longer than ``size``.  Results are cached; the bytes returned are shared.
    """
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"size must be an int, not {type(size).__name__}")
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    if name.endswith(DIRTY_SUFFIX) and name[: -len(DIRTY_SUFFIX)] in _STYLES:
        return _dirty_cached(name[: -len(DIRTY_SUFFIX)], size)
    if name not in _STYLES:
        raise ValueError(
            f"unknown corpus text {name!r}; expected one of {', '.join(all_names())}"
        )
    return _generate_clean(name, size)


@functools.lru_cache(maxsize=32)
def _dirty_cached(clean_name: str, size: int) -> bytes:
    return dirty(_generate_clean(clean_name, size))


def _form(encoding: str) -> str:
    """The codecs module's name of ``encoding``, one of TRANSCODING_FORMS."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        raise LookupError(f"unknown encoding {encoding!r}") from None
    if name not in TRANSCODING_FORMS:
        raise ValueError(
            f"benchmark texts exist in {', '.join(TRANSCODING_FORMS)} only, not {encoding!r}"
            + (" (name the byte order: -le or -be)" if name in ("utf-16", "utf-32") else "")
        )
    return name


def dirty(data: bytes, every: int = 1024, encoding: str = "utf-8") -> bytes:
    """``data`` with one ill-formed subsequence inserted per ``every`` bytes.

    The insertions go at the first character boundary at or after offsets
    ``every // 2``, ``every // 2 + every``, ... of ``data`` (in a text of at
    most ``every // 2`` bytes, after its middle), so each is followed by the
    start of a character (or by the end of the text) and the kinds do not
    merge.  What is inserted depends on ``encoding``:

    - UTF-8: the byte sequences of :data:`ILL_FORMED_SUBSEQUENCES`, in turn;
      a boundary is any byte that is not a continuation byte (80..BF).
    - UTF-16-LE/BE: the unpaired surrogates of :data:`ILL_FORMED_UTF16_UNITS`,
      in turn; a boundary is an even offset whose code unit is not a trail
      surrogate (DC00..DFFF).
    - UTF-32-LE/BE: the invalid code units of :data:`ILL_FORMED_UTF32_UNITS`,
      in turn; every offset that is a multiple of 4 is a boundary.

    If ``data`` is itself ill-formed, the insertions may interact with what
    is already there.
    """
    if every <= 0:
        raise ValueError(f"every must be > 0, got {every}")
    form = _form(encoding)
    if form != "utf-8":
        return _dirty_code_units(data, every, form)
    view = memoryview(data).cast("B")
    length = len(view)
    pieces: list[bytes] = []
    kinds = itertools.cycle(ILL_FORMED_SUBSEQUENCES)
    previous = 0
    # Half a period in, or in the middle of a text shorter than that, so that
    # every non-empty text gets at least one.
    first = every // 2 if length > every // 2 else length // 2
    for offset in range(first, length, every):
        boundary = max(offset, previous)
        while boundary < length and view[boundary] & 0xC0 == 0x80:
            boundary += 1
        pieces.append(view[previous:boundary].tobytes())
        pieces.append(next(kinds))
        previous = boundary
    pieces.append(view[previous:].tobytes())
    return b"".join(pieces)


def _dirty_code_units(data: bytes, every: int, form: str) -> bytes:
    """:func:`dirty` for UTF-16 and UTF-32 (``form`` is e.g. ``"utf-16-le"``)."""
    unit_size = 2 if form.startswith("utf-16") else 4
    byteorder: Literal["little", "big"] = "little" if form.endswith("-le") else "big"
    units = ILL_FORMED_UTF16_UNITS if unit_size == 2 else ILL_FORMED_UTF32_UNITS
    kinds = itertools.cycle([unit.to_bytes(unit_size, byteorder) for unit in units])
    # The byte of a UTF-16 code unit that holds its top bits: a trail
    # surrogate DC00..DFFF has DC..DF there.
    high = 1 if byteorder == "little" else 0
    view = memoryview(data).cast("B")
    whole = len(view) - len(view) % unit_size  # a partial final unit is never a boundary
    pieces: list[bytes] = []
    previous = 0
    first = every // 2 if len(view) > every // 2 else len(view) // 2
    for offset in range(first, len(view), every):
        boundary = max(offset, previous)
        boundary += -boundary % unit_size  # round up to a code unit
        while unit_size == 2 and boundary < whole and view[boundary + high] & 0xFC == 0xDC:
            boundary += 2  # a trail surrogate: the pair began one unit back
        boundary = min(boundary, len(view))
        pieces.append(view[previous:boundary].tobytes())
        pieces.append(next(kinds))
        previous = boundary
    pieces.append(view[previous:].tobytes())
    return b"".join(pieces)


@dataclass(frozen=True)
class Text:
    """A benchmark text, to be had in every encoding form.

    ``utf8`` is the text as timed in UTF-8 (ill-formed when ``is_dirty``);
    ``clean_utf8`` is the well-formed UTF-8 it was made from: ``utf8`` itself
    for a clean text, the clean text for a :func:`dirty` variant, and the
    ``replace``-repaired bytes of a file that was ill-formed as found.
    ``path`` is the file it comes from (None for a generated text).
    """

    name: str
    utf8: bytes
    clean_utf8: bytes
    is_dirty: bool
    path: str | None = None

    def encoded(self, encoding: str) -> bytes:
        """The text in ``encoding`` (UTF-8, UTF-16-LE/BE or UTF-32-LE/BE).

        UTF-8 gives :attr:`utf8`.  Otherwise the clean text is re-encoded by
        CPython, and a dirty text gets :func:`dirty` in that form: one
        unpaired surrogate or invalid code unit per KiB.  Not cached: the
        caller keeps what it needs.
        """
        form = _form(encoding)
        if form == "utf-8":
            return self.utf8
        clean = self.clean_utf8.decode("utf-8").encode(form)
        return dirty(clean, encoding=form) if self.is_dirty else clean


def generated_text(name: str, size: int = DEFAULT_SIZE) -> Text:
    """The generated text ``name`` (see :func:`all_names`) as a :class:`Text`."""
    utf8 = generate(name, size)
    if name.endswith(DIRTY_SUFFIX) and name[: -len(DIRTY_SUFFIX)] in _STYLES:
        return Text(name, utf8, _generate_clean(name[: -len(DIRTY_SUFFIX)], size), True)
    return Text(name, utf8, utf8, False)


def corpus_texts(
    path: str | os.PathLike[str], max_size: int = MAX_FILE_SIZE, size: int | None = None
) -> list[Text]:
    """The ``*.txt`` files under ``path`` (see :func:`load_dir`) as texts:
    each well-formed file, then a ``-dirty`` variant of each; a file that is
    ill-formed UTF-8 as found is listed once, among the dirty ones, under its
    own name.  Raises FileNotFoundError when there are no such files.

    With ``size``, each file is cut to its first ``size`` bytes (less the
    0..3 that end it on a character boundary) before the dirty variant is
    made, as :func:`generate` cuts a generated text; files shorter than
    ``size`` are left out, so that every text is of the size asked for."""
    files = _corpus_files(path, max_size)
    if not files:
        limit = f"{max_size >> 20} MiB" if max_size % (1 << 20) == 0 else f"{max_size} bytes"
        raise FileNotFoundError(f"no *.txt files of at most {limit} under {str(path)!r}")
    clean: list[Text] = []
    dirty_texts: list[Text] = []
    for name, file in files.items():
        if size is not None and file.stat().st_size < size:
            continue
        data = file.read_bytes()
        if size is not None:
            data = _trim_to_character_boundary(data, size)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            repaired = data.decode("utf-8", "replace").encode("utf-8")
            dirty_texts.append(Text(name, data, repaired, True, str(file)))
        else:
            clean.append(Text(name, data, data, False, str(file)))
            dirty_texts.append(Text(name + DIRTY_SUFFIX, dirty(data), data, True, str(file)))
    return clean + dirty_texts


def _corpus_name(relative: Path) -> str:
    """``lipsum/Arabic-Lipsum.utf8.txt`` -> ``lipsum/Arabic-Lipsum``.

    The ``.txt`` suffix goes, and so does an encoding tag before it
    (``.utf8``, ``.utf-8``), which names the encoding rather than the text.
    """
    stem = relative.with_suffix("")
    if stem.suffix.lower() in (".utf8", ".utf-8", ".utf_8"):
        stem = stem.with_suffix("")
    return stem.as_posix()


def _corpus_files(path: str | os.PathLike[str], max_size: int) -> dict[str, Path]:
    """The ``*.txt`` files under ``path`` that :func:`load_dir` reads, by name."""
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"corpus directory {str(root)!r} does not exist")
    if not root.is_dir():
        raise NotADirectoryError(f"corpus path {str(root)!r} is not a directory")
    files: dict[str, Path] = {}
    for file in sorted(root.rglob("*.txt")):
        if not file.is_file():
            continue
        file_size = file.stat().st_size
        if file_size > max_size:
            warnings.warn(
                f"skipping {file}: {file_size} bytes is more than the "
                f"{max_size} bytes a benchmark text may have",
                stacklevel=3,
            )
            continue
        files[_corpus_name(file.relative_to(root))] = file
    return files


def load_dir(
    path: str | os.PathLike[str], max_size: int = MAX_FILE_SIZE
) -> dict[str, bytes]:
    """The ``*.txt`` files under ``path`` (recursively), by name.

    The name of a file is its path relative to ``path``, with ``/`` as the
    separator and without its suffix (see :func:`_corpus_name`).  Files larger
    than ``max_size`` bytes (256 MiB by default) are not read: a warning names
    each one.  Raises ``FileNotFoundError`` or ``NotADirectoryError`` when
    ``path`` is not a directory.
    """
    return {name: file.read_bytes() for name, file in _corpus_files(path, max_size).items()}
