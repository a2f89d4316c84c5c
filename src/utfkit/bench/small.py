"""Short inputs for ``utfkit bench``: the cost of one call, and of a batch.

A server validates many short strings, where the cost of calling into C
matters more than the bytes per second.  Two operation groups:

``small``
    ``utfkit.validate(b)`` against ``b.decode("utf-8")`` and
    ``b.isascii()`` on ``b`` of 16 bytes, 64 bytes and 1 KiB, ASCII and
    not (the generated "ascii" and "cyrillic" texts, cut at a character
    boundary), all three timed in the same interleaved rounds;
    nanoseconds per call.

``many``
    ``utfkit.validate_many(items)`` against a Python loop calling
    ``b.decode("utf-8")`` on each (catching UnicodeDecodeError), on 10,000
    strings of 16 to 200 bytes drawn from the generated texts (mostly
    non-ASCII, a few ASCII); nanoseconds per string.

Rows print ``utfkit ns``, ``CPython ns`` and their ratio (CPython time /
utfkit time, > 1: utfkit faster), with ``b.isascii()`` as the floor for
``small``: no call that looks at every byte can cost less from Python.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Sequence

import utfkit

from . import corpus
from .tasks import Contender, Task
from .timing import Result, measure

__all__ = [
    "MANY_COUNT",
    "MANY_LENGTHS",
    "SMALL_SIZES",
    "cut",
    "decode_loop",
    "many_items",
    "many_task",
    "run_small",
    "small_tasks",
]

#: Input sizes of the ``small`` group, in bytes.
SMALL_SIZES: tuple[int, ...] = (16, 64, 1024)

#: Strings in the ``many`` batch, and their length range in bytes.
MANY_COUNT: int = 10_000
MANY_LENGTHS: tuple[int, int] = (16, 200)


def cut(data: bytes, size: int) -> bytes:
    """The first `size` bytes of `data`, ending at a character boundary and
    topped up with ASCII spaces to exactly `size` bytes."""
    end = size
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end] + b" " * (size - end)


def decode_loop(items: Sequence[bytes]) -> list[bool]:
    """The Python loop validate_many replaces."""
    valid = []
    for item in items:
        try:
            item.decode("utf-8")
            valid.append(True)
        except UnicodeDecodeError:
            valid.append(False)
    return valid


def small_tasks() -> list[Task]:
    """validate on 16 B, 64 B and 1 KiB of ASCII and of Cyrillic text."""
    sources = {
        "ascii": corpus.generate("ascii", 4096),
        "cyrillic": corpus.generate("cyrillic", 4096),
    }
    tasks = []
    for size in SMALL_SIZES:
        for kind, text in sources.items():
            data = cut(text, size)
            agrees = utfkit.validate(data) is True and data.decode("utf-8") is not None
            tasks.append(
                Task(
                    text=f"{size} B {kind}",
                    op="small",
                    processed=size,
                    cpython=Contender("cpython", functools.partial(data.decode, "utf-8")),
                    utfkit=Contender("utfkit", functools.partial(utfkit.validate, data)),
                    agrees=agrees,
                    disagreement="" if agrees else f"validate({data!r}) is not True",
                    baseline=Contender("isascii", data.isascii),
                )
            )
    return tasks


def many_items(count: int = MANY_COUNT, seed: int = 5) -> list[bytes]:
    """`count` strings of 16..200 bytes from the generated texts, cut at
    character boundaries (so all well-formed), one in ten ASCII."""
    rng = random.Random(seed)
    texts = [corpus.generate(name, 1 << 16) for name in ("cyrillic", "cjk", "latin1", "arabic")]
    ascii_text = corpus.generate("ascii", 1 << 16)
    items = []
    for index in range(count):
        text = ascii_text if index % 10 == 0 else rng.choice(texts)
        length = rng.randint(*MANY_LENGTHS)
        start = rng.randrange(len(text) - length - 4)
        while (text[start] & 0xC0) == 0x80:
            start += 1
        items.append(cut(text[start:], length))
    return items


def many_task() -> Task:
    """validate_many on MANY_COUNT strings against a loop of bytes.decode."""
    items = many_items()
    expected = decode_loop(items)
    agrees = utfkit.validate_many(items) == expected
    return Task(
        text=f"{len(items)} strings",
        op="many",
        processed=sum(map(len, items)),
        cpython=Contender("cpython", functools.partial(decode_loop, items)),
        utfkit=Contender("utfkit", functools.partial(utfkit.validate_many, items)),
        agrees=agrees,
        disagreement="" if agrees else "validate_many(items) != [decode loop]",
    )


def run_small(ops: Sequence[str], repeat: int) -> list[Result]:
    """Measures the ``small`` and ``many`` tasks among ``ops``; a ``small``
    result's size is its input's length (``many`` has no one size)."""
    tasks = (small_tasks() if "small" in ops else []) + ([many_task()] if "many" in ops else [])
    return [
        dataclasses.replace(
            measure(task, repeat), size=task.processed if task.op == "small" else None
        )
        for task in tasks
    ]
