"""What a run of ``utfkit bench`` measures, taken from the command line or
from a saved run (``--compare BASE.json`` re-runs what BASE measured)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .corpus import DEFAULT_SIZE
from .operations import DEFAULT_OPS, OPERATIONS, SHORT_INPUT_OPERATIONS
from .sizes import DEFAULT_SWEEP_SIZES
from .timing import DEFAULT_REPEAT

__all__ = ["SWEEP_OPS", "Settings", "SettingsError"]

#: The operations a sweep times when ``--ops`` is not given: every one
#: that compares utfkit with CPython per text (the short-input groups have
#: sizes of their own; ``read`` has no utfkit call to compare).
SWEEP_OPS: tuple[str, ...] = tuple(
    op for op in DEFAULT_OPS if op not in SHORT_INPUT_OPERATIONS and op != "read"
)


class SettingsError(ValueError):
    """Options that do not go together, or a saved run's settings that
    cannot be re-run here; the message says which."""


@dataclass(frozen=True)
class Settings:
    """One run's choices.

    ``sizes`` are the sizes each text is cut to (None: whole ``--corpus``
    files); ``sweep`` is True when the run compares sizes (``--sizes``,
    ``--plot``), which changes the report and the defaults: clean texts
    only, no short-input groups.  ``texts`` None means the default texts.
    ``backend`` is the kernel asked for with ``--backend`` (None: the best).
    """

    corpus: str | None
    sizes: tuple[int, ...] | None
    sweep: bool
    texts: tuple[str, ...] | None
    ops: tuple[str, ...]
    repeat: int
    cpu_time: bool
    backend: str | None

    @property
    def clock(self) -> str:
        """``"cpu"`` (``--cpu-time``) or ``"wall"``."""
        return "cpu" if self.cpu_time else "wall"

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        """The settings ``utfkit bench`` options ask for."""
        size: int | None = getattr(args, "size", None)
        sizes: tuple[int, ...] | None = getattr(args, "sizes", None)
        plot = getattr(args, "plot", None)
        if size is not None and sizes is not None:
            raise SettingsError("give --size or --sizes, not both")
        sweep = sizes is not None or plot is not None
        if sizes is None and plot is not None:
            sizes = DEFAULT_SWEEP_SIZES
        if sizes is None and args.corpus is None:
            sizes = (DEFAULT_SIZE if size is None else size,)
        ops: tuple[str, ...] | None = getattr(args, "ops", None)
        if ops is None:
            ops = SWEEP_OPS if sweep else DEFAULT_OPS
        texts: tuple[str, ...] | None = getattr(args, "texts", None)
        return cls(
            corpus=args.corpus,
            sizes=sizes,
            sweep=sweep,
            texts=texts,
            ops=tuple(ops),
            repeat=getattr(args, "repeat", None) or DEFAULT_REPEAT,
            cpu_time=bool(getattr(args, "cpu_time", False)),
            backend=getattr(args, "backend", None),
        )

    def to_json(self, texts: list[str]) -> dict[str, Any]:
        """The ``settings`` object of the JSON document; ``texts`` are the
        names the run actually timed (so that a re-run times the same)."""
        return {
            "corpus": self.corpus,
            "sizes": None if self.sizes is None else list(self.sizes),
            "sweep": self.sweep,
            "texts": texts,
            "ops": list(self.ops),
            "repeat": self.repeat,
            "clock": self.clock,
            "backend": self.backend,
        }

    @classmethod
    def from_json(cls, settings: Mapping[str, Any]) -> Settings:
        """The settings a saved run was made with, to make it again."""
        try:
            sizes = settings["sizes"]
            ops = tuple(settings["ops"])
            unknown = [op for op in ops if op not in OPERATIONS]
            if unknown:
                raise SettingsError(
                    f"operations unknown to this utfkit: {', '.join(unknown)}"
                )
            return cls(
                corpus=settings["corpus"],
                sizes=None if sizes is None else tuple(int(size) for size in sizes),
                sweep=bool(settings["sweep"]),
                texts=tuple(settings["texts"]),
                ops=ops,
                repeat=int(settings["repeat"]),
                cpu_time=settings["clock"] == "cpu",
                backend=settings["backend"],
            )
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, SettingsError):
                raise
            raise SettingsError(f"settings are incomplete or malformed ({error!r})") from None
