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

import functools
import random
from collections.abc import Sequence
from typing import Any, TextIO

import utfkit
from utfkit import _corpus
from utfkit._bench import Contender, Result, Task, measure

__all__ = ["SMALL_SIZES", "MANY_COUNT", "small_tasks", "many_task", "print_small_results"]

#: Input sizes of the ``small`` group, in bytes.
SMALL_SIZES: tuple[int, ...] = (16, 64, 1024)

#: Strings in the ``many`` batch, and their length range in bytes.
MANY_COUNT: int = 10_000
MANY_LENGTHS: tuple[int, int] = (16, 200)


def _cut(data: bytes, size: int) -> bytes:
    """The first `size` bytes of `data`, ending at a character boundary and
    topped up with ASCII spaces to exactly `size` bytes."""
    cut = size
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut] + b" " * (size - cut)


def _decode_loop(items: Sequence[bytes]) -> list[bool]:
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
        "ascii": _corpus.generate("ascii", 4096),
        "cyrillic": _corpus.generate("cyrillic", 4096),
    }
    tasks = []
    for size in SMALL_SIZES:
        for kind, text in sources.items():
            data = _cut(text, size)
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
    texts = [_corpus.generate(name, 1 << 16) for name in ("cyrillic", "cjk", "latin1", "arabic")]
    ascii_text = _corpus.generate("ascii", 1 << 16)
    items = []
    for index in range(count):
        text = ascii_text if index % 10 == 0 else rng.choice(texts)
        length = rng.randint(*MANY_LENGTHS)
        start = rng.randrange(len(text) - length - 4)
        while (text[start] & 0xC0) == 0x80:
            start += 1
        items.append(_cut(text[start:], length))
    return items


def many_task() -> Task:
    """validate_many on MANY_COUNT strings against a loop of bytes.decode."""
    items = many_items()
    expected = _decode_loop(items)
    agrees = utfkit.validate_many(items) == expected
    return Task(
        text=f"{len(items)} strings",
        op="many",
        processed=sum(map(len, items)),
        cpython=Contender("cpython", functools.partial(_decode_loop, items)),
        utfkit=Contender("utfkit", functools.partial(utfkit.validate_many, items)),
        agrees=agrees,
        disagreement="" if agrees else "validate_many(items) != [decode loop]",
    )


def run_small(ops: Sequence[str], repeat: int) -> list[Result]:
    """Measures the ``small`` and ``many`` tasks among ``ops``."""
    tasks = (small_tasks() if "small" in ops else []) + ([many_task()] if "many" in ops else [])
    return [measure(task, repeat) for task in tasks]


def _per_item_ns(result: Result, measurement: Any) -> float:
    items = MANY_COUNT if result.task.op == "many" else 1
    return measurement.best_ns / items


def print_small_results(results: Sequence[Result], out: TextIO) -> None:
    """The table of per-call (small) and per-string (many) times."""
    if not results:
        return
    print(file=out)
    print(
        "short inputs: small = utfkit.validate(b) vs b.decode(\"utf-8\"), floor b.isascii(), "
        "ns per call; many = utfkit.validate_many(items) vs a loop of b.decode, ns per string",
        file=out,
    )
    widths = (16, 5, 9, 10, 7, 10)
    print(
        f"{'input':<16}  {'op':<5}  {'utfkit ns':>9}  {'CPython ns':>10}  {'ratio':>7}  {'isascii ns':>10}",
        file=out,
    )
    print("  ".join("-" * width for width in widths), file=out)
    for result in results:
        mine = _per_item_ns(result, result.utfkit)
        theirs = _per_item_ns(result, result.cpython)
        floor = "" if result.baseline is None else f"{_per_item_ns(result, result.baseline):10.1f}"
        line = f"{result.task.text:<16}  {result.task.op:<5}  {mine:9.1f}  {theirs:10.1f}  {theirs / mine:6.2f}x  {floor:>10}"
        if not result.task.agrees:
            line += f"   WRONG RESULT: {result.task.disagreement}"
        print(line.rstrip(), file=out, flush=True)
