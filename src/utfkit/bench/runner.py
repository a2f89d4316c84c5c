"""A run of ``utfkit bench``: every chosen operation on every text, in order."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .corpus import Text
from .operations import DEFAULT_OPS, OPERATIONS
from .tasks import Task, tasks_for_text, transcode_tasks
from .timing import Result, measure

__all__ = ["ordered", "run"]


def run(
    texts: Sequence[Text],
    repeat: int,
    on_result: Callable[[Result], None] | None = None,
    ops: Sequence[str] = DEFAULT_OPS,
) -> list[Result]:
    """Measures every chosen operation on every text, calling ``on_result``
    after each.  The tasks of one text are made (and checked) just before
    they are timed, so only one text's inputs and outputs are held at once."""
    results: list[Result] = []
    for text in texts:
        tasks = tasks_for_text(text.name, text.utf8, ops) + transcode_tasks(text, ops)
        for task in ordered(tasks):
            result = measure(task, repeat)
            results.append(result)
            if on_result is not None:
                on_result(result)
    return results


def ordered(tasks: Iterable[Task]) -> list[Task]:
    """``tasks`` in the order of :data:`OPERATIONS`, the order rows are printed."""
    order = list(OPERATIONS)
    return sorted(tasks, key=lambda task: order.index(task.op))
