"""The texts the benchmark suites run on, as pytest parameters.

A parameter is a key, ``("generated", name)`` for a text of the generated
corpus of :mod:`utfkit.bench.corpus` (1 MiB of UTF-8 each, clean and ``-dirty``),
or ``("corpus", name)`` for a ``*.txt`` file under the directory named by
the environment variable ``UTFKIT_CORPUS_DIR`` (e.g. ``../shared/corpus``)
or the ``-dirty`` variant of one.  Without that variable, or when it names
no usable directory, one skipped parameter per list says why.

:func:`text` turns a key into a :class:`utfkit.bench.corpus.Text`, which gives
the text in UTF-8 as timed (``.utf8``) and in UTF-16/UTF-32
(``.encoded("utf-16-le")``; dirty there means one unpaired surrogate or
invalid code unit per KiB).
"""

from __future__ import annotations

import functools
import os
from typing import Any, Tuple

import pytest

from utfkit.bench import corpus

CORPUS_DIR_ENV = "UTFKIT_CORPUS_DIR"

#: A parameter: ("generated", name) or ("corpus", name).
TextKey = Tuple[str, str]


@functools.lru_cache(maxsize=1)
def real_corpus(directory: str) -> dict[str, corpus.Text]:
    """The files under ``directory`` and a ``-dirty`` variant of each, by
    name; files already ill-formed appear once, as they are."""
    return {text.name: text for text in corpus.corpus_texts(directory)}


def text(key: TextKey) -> corpus.Text:
    source, name = key
    if source == "generated":
        return corpus.generated_text(name)
    return real_corpus(os.environ[CORPUS_DIR_ENV])[name]


def _corpus_unusable(directory: str) -> str:
    """Why ``directory`` gives no texts, or "" when it does."""
    if not directory:
        return (
            f"set {CORPUS_DIR_ENV} to a directory of *.txt files (e.g. ../shared/corpus) "
            "to benchmark real text"
        )
    try:
        real_corpus(directory)
    except OSError as error:
        return f"{CORPUS_DIR_ENV}={directory!r}: {error}"
    return ""


def text_params(clean: bool) -> list[Any]:
    """The clean (or the dirty) texts: the generated ones, then those of
    ``UTFKIT_CORPUS_DIR`` (ids ``corpus:<name>``)."""
    names = corpus.CORPUS_NAMES if clean else corpus.DIRTY_NAMES
    params = [pytest.param(("generated", name), id=name) for name in names]
    directory = os.environ.get(CORPUS_DIR_ENV, "")
    reason = _corpus_unusable(directory)
    if not reason:
        params += [
            pytest.param(("corpus", name), id=f"corpus:{name}")
            for name, found in real_corpus(directory).items()
            if found.is_dirty != clean
        ]
        return params
    skipped_id = "corpus-clean" if clean else "corpus-dirty"
    params.append(pytest.param(("corpus", ""), id=skipped_id, marks=pytest.mark.skip(reason=reason)))
    return params


def group(operation: str, key: TextKey) -> str:
    """``operation/text``: the pytest-benchmark group of one operation on one text."""
    source, name = key
    return f"{operation}/{name}" if source == "generated" else f"{operation}/corpus:{name}"


CLEAN_TEXTS = text_params(clean=True)
DIRTY_TEXTS = text_params(clean=False)
