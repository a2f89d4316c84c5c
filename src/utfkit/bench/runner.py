"""A run of ``utfkit bench``: the texts its settings ask for, and every
chosen operation timed on each, size by size."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Optional

from . import corpus
from .corpus import Text
from .operations import DEFAULT_OPS, OPERATIONS
from .settings import Settings, SettingsError
from .sizes import format_size
from .tasks import Task, tasks_for_text, transcode_tasks
from .timing import Result, measure

__all__ = ["Sized", "describe_texts", "load_texts", "ordered", "run", "run_sized"]

#: Texts cut to one size (None: whole files), as a run times them.
Sized = tuple[Optional[int], list[Text]]


def _default_names(settings: Settings) -> tuple[str, ...] | None:
    """The generated texts a run times unless ``--texts`` says: every one,
    or in a sweep only the clean ones (one line per script on a chart)."""
    if settings.texts is not None:
        return settings.texts
    if settings.corpus is not None:
        return None  # every file, and its dirty variant
    return corpus.CORPUS_NAMES if settings.sweep else corpus.all_names()


def load_texts(settings: Settings) -> list[Sized]:
    """The texts of a run, size by size.  Raises SettingsError for an
    unknown text name and OSError for an unreadable corpus."""
    names = _default_names(settings)
    sizes: Sequence[int | None] = settings.sizes if settings.sizes is not None else (None,)
    if settings.corpus is None:
        known = corpus.all_names()
        unknown = [name for name in names or () if name not in known]
        if unknown:
            raise SettingsError(
                f"unknown text {', '.join(unknown)}; the generated texts are {', '.join(known)}"
            )
        return [
            (size, [corpus.generated_text(name, size or corpus.DEFAULT_SIZE) for name in names or ()])
            for size in sizes
        ]
    sized: list[Sized] = []
    for size in sizes:
        texts = corpus.corpus_texts(settings.corpus, size=size)
        if names is not None:
            texts = [text for text in texts if text.name in names]
        sized.append((size, texts))
    if not any(texts for _, texts in sized):
        raise SettingsError(
            f"no text to time under {settings.corpus!r}"
            + ("" if names is None else f" named {', '.join(names)}")
            + ("" if settings.sizes is None else " of the sizes asked for")
        )
    return sized


def describe_texts(settings: Settings, sized: Sequence[Sized]) -> str:
    """What the texts are, for the report's header."""
    paths = {text.path for _, texts in sized for text in texts}
    if not settings.sweep:
        if settings.corpus is None:
            size = sized[0][0] if sized else None
            return f"generated, {size} bytes of UTF-8 each (dirty: one error per KiB)"
        return f"{settings.corpus} ({len(paths)} files; dirty: one error per KiB)"
    names = sorted({text.name for _, texts in sized for text in texts})
    where = "generated" if settings.corpus is None else f"{len(paths)} files of {settings.corpus}"
    shown = ", ".join(format_size(size) for size in settings.sizes or ())
    dirty = any(text.is_dirty for _, texts in sized for text in texts)
    return (
        f"{where} ({', '.join(names)}), cut to {shown} of UTF-8"
        + ("; dirty: one error per KiB" if dirty else "")
    )


def run(
    texts: Sequence[Text],
    repeat: int,
    on_result: Callable[[Result], None] | None = None,
    ops: Sequence[str] = DEFAULT_OPS,
    size: int | None = None,
) -> list[Result]:
    """Measures every chosen operation on every text, calling ``on_result``
    after each; each result records ``size``.  The tasks of one text are
    made (and checked) just before they are timed, so only one text's inputs
    and outputs are held at once."""
    results: list[Result] = []
    for text in texts:
        tasks = tasks_for_text(text.name, text.utf8, ops) + transcode_tasks(text, ops)
        for task in ordered(tasks):
            result = dataclasses.replace(measure(task, repeat), size=size)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def run_sized(
    sized: Sequence[Sized],
    repeat: int,
    ops: Sequence[str],
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """:func:`run` on the texts of each size in turn."""
    results: list[Result] = []
    for size, texts in sized:
        results += run(texts, repeat, on_result, ops, size)
    return results


def ordered(tasks: Iterable[Task]) -> list[Task]:
    """``tasks`` in the order of :data:`OPERATIONS`, the order rows are printed."""
    order = list(OPERATIONS)
    return sorted(tasks, key=lambda task: order.index(task.op))
