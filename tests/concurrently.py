"""Run one piece of work on several threads at once, for the tests that
check that calls sharing utfkit's module state (the kept scratch buffer, the
plan tables, the C entries) give every thread the right answer."""

from __future__ import annotations

import threading
from typing import Callable


def on_threads(work: Callable[[], None], threads: int = 4) -> None:
    """Start `threads` threads running `work` together and wait for all."""
    running = [threading.Thread(target=work) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
