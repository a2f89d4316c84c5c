"""The command line of ``utfkit bench``: its options, and the run they ask for.

Four kinds of run, by option: the table of one size (the default: GB/s and
best-round ratios, printed row by row), a size sweep (``--sizes``: a row per
operation and size, a column per text, median ratios), a comparison with a
saved run (``--compare BASE.json``), and the JSON document of any of them
(``--json``); ``--plot FILE`` draws a sweep besides.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from utfkit import _kernels

from . import schema
from .compare import compare, comparison_json, print_comparison
from .corpus import Text
from .machine import machine_info
from .operations import SHORT_INPUT_OPERATIONS, parse_ops
from .plot import FORMATS, PlotUnavailable, plot, require_matplotlib
from .report import Table, header, print_small_results, print_sweep
from .runner import Sized, describe_texts, load_texts, run_sized
from .settings import Settings, SettingsError
from .sizes import format_size, parse_size, parse_sizes
from .small import run_small
from .timing import DEFAULT_REPEAT, Result, clock_name, use_cpu_time

__all__ = ["add_arguments", "main", "standalone"]

EXIT_OK = 0
EXIT_WRONG_RESULT = 1
EXIT_USAGE = 2


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError("no text named; e.g. --texts ascii,cyrillic,cjk")
    return names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``utfkit bench``."""
    parser.description = (
        "Time utfkit's UTF-8 validation, counting and repair, and its transcoding "
        "between UTF-8, UTF-16-LE and UTF-32-LE, against CPython's own codecs "
        "(bytes.decode, str.encode) on the same texts, interleaved, and print GB/s "
        "and ratios."
    )
    parser.add_argument(
        "--corpus",
        metavar="DIR",
        dest="corpus",
        default=None,
        help="time the *.txt files under DIR (recursively, each at most 256 MiB) and a "
        "dirty variant of each, instead of the generated texts",
    )
    parser.add_argument(
        "--json",
        dest="json",
        action="store_true",
        help="print one JSON document with the machine, the settings and every "
        "measurement (schema_version 1, fields in the README), instead of the table",
    )
    parser.add_argument(
        "--ops",
        metavar="GROUPS",
        dest="ops",
        type=parse_ops,
        default=None,
        help="comma-separated operation groups to time: validate (validate, "
        "valid_up_to), count, replace, decode (to str; E = strict on clean texts, "
        "replace on dirty ones), read (UTF-8), small (validate on 16 B to 1 KiB, "
        "per call), many (validate_many on 10,000 strings), transcode (every direction, "
        "allocating and out=), a single direction such as 'utf8>utf16le' (quote the "
        "'>' in a shell), or all (default: all; with --sizes, all but read, small and many)",
    )
    parser.add_argument(
        "--size",
        metavar="BYTES",
        dest="size",
        type=parse_size,
        default=None,
        help="size of each generated text, e.g. 65536, 64K, 16M (default 1M); "
        "ignored with --corpus",
    )
    parser.add_argument(
        "--sizes",
        metavar="LIST",
        dest="sizes",
        type=parse_sizes,
        default=None,
        help="time every operation at each of these sizes (e.g. 16,256,4K,64K,1M; K, M "
        "are powers of 1024) and print the median ratio to CPython per operation and "
        "size, a column per text; the generated texts are cut to each size (with "
        "--corpus: each file at least that long is); default texts: the clean ones",
    )
    parser.add_argument(
        "--texts",
        metavar="NAMES",
        dest="texts",
        type=_names,
        default=None,
        help="comma-separated texts to time, e.g. ascii,cyrillic,cjk,cjk-dirty (generated: "
        "ascii, mostly-ascii, latin1, cyrillic, arabic, cjk, emoji and each with -dirty; "
        "with --corpus: file names as the table shows them)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE",
        dest="plot",
        default=None,
        help="also draw the ratios against input size into FILE (.svg or .png), one chart "
        "per operation, one line per text; implies a sweep (--sizes 16,256,4K,64K,1M "
        "unless given); needs matplotlib: pip install 'utfkit[plot]'",
    )
    parser.add_argument(
        "--compare",
        metavar="BASE.json",
        dest="compare",
        default=None,
        help="re-run what BASE.json (saved with --json) measured and print each cell's "
        "change against it; warns when the CPU, kernel or Python differ",
    )
    parser.add_argument(
        "--repeat",
        metavar="N",
        dest="repeat",
        type=_positive_int,
        default=None,
        help=f"timed rounds per contender (default {DEFAULT_REPEAT}; with --compare, "
        "BASE's); the table reports the best, a sweep the median",
    )
    parser.add_argument(
        "--cpu-time",
        dest="cpu_time",
        action="store_true",
        help="time by the thread's CPU time instead of wall time, so that time spent "
        "descheduled (other processes on the same cores) does not count; page faults "
        "and cache misses still do",
    )
    parser.add_argument(
        "--backend",
        metavar="NAME",
        dest="backend",
        default=None,
        help="run utfkit with this kernel (scalar, sse2, sse4, avx2, avx512, neon) instead "
        "of the best one for this CPU (with --compare: BASE's, if it asked for one)",
    )


def _error(message: str) -> int:
    print(f"utfkit bench: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _warn(message: str) -> None:
    print(f"utfkit bench: warning: {message}", file=sys.stderr)


def _settings(args: argparse.Namespace) -> tuple[Settings, dict[str, Any] | None]:
    """The run asked for, and the BASE document of --compare (or None).
    With --compare, BASE's settings, less what the command line overrides."""
    if getattr(args, "compare", None) is None:
        return Settings.from_args(args), None
    base = schema.load(args.compare)
    settings = Settings.from_json(base["settings"])
    overrides: dict[str, Any] = {}
    if getattr(args, "repeat", None) is not None:
        overrides["repeat"] = args.repeat
    if getattr(args, "backend", None) is not None:
        overrides["backend"] = args.backend
    if getattr(args, "cpu_time", False):
        overrides["cpu_time"] = True
    return dataclasses.replace(settings, **overrides), base


class _Progress:
    """One line on a terminal's stderr while a sweep or a comparison runs,
    whose table is printed only at the end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.count = 0
        self.enabled = stream.isatty()

    def __call__(self, result: Result) -> None:
        self.count += 1
        if self.enabled:
            size = "" if result.size is None else f" {format_size(result.size)}"
            line = f"measured {self.count}: {result.task.op} on {result.task.text}{size}"
            self.stream.write(f"\r{line[:79]:<79}")
            self.stream.flush()

    def done(self) -> None:
        if self.enabled and self.count:
            self.stream.write("\r" + " " * 79 + "\r")
            self.stream.flush()


def _prepare(args: argparse.Namespace) -> tuple[Settings, dict[str, Any] | None, list[Sized]]:
    """Everything that can fail before measuring, checked before measuring:
    the settings (and BASE), --plot's format and matplotlib, the kernel, the
    texts.  Raises _UsageError with what to print."""
    try:
        settings, base = _settings(args)
    except OSError as error:
        raise _UsageError(f"--compare {args.compare}: {error.strerror or error}") from None
    except (schema.SchemaError, SettingsError) as error:
        raise _UsageError(str(error)) from None
    plot_path: str | None = getattr(args, "plot", None)
    if plot_path is not None:
        if not plot_path.lower().endswith(FORMATS):
            raise _UsageError(f"--plot {plot_path}: the file name must end in {' or '.join(FORMATS)}")
        try:
            require_matplotlib()
        except PlotUnavailable as error:
            raise _UsageError(str(error)) from None
    if settings.backend is not None:
        try:
            _kernels.set_backend(settings.backend)
        except ValueError as error:
            raise _UsageError(f"--backend {settings.backend}: {error}") from None
    try:
        return settings, base, load_texts(settings)
    except (SettingsError, OSError) as error:
        raise _UsageError(str(error)) from None


class _UsageError(Exception):
    """A run that cannot start; the message says why."""


def main(args: argparse.Namespace) -> int:
    """Runs ``utfkit bench``; returns the exit status: 0, 1 if a utfkit result
    disagreed with CPython's, 2 for a usage or I/O error."""
    try:
        settings, base, sized = _prepare(args)
    except _UsageError as error:
        return _error(str(error))
    use_cpu_time(settings.cpu_time)
    info = machine_info()
    info["clock"] = clock_name()
    source = describe_texts(settings, sized)
    out = sys.stdout
    per_text_ops = [op for op in settings.ops if op not in SHORT_INPUT_OPERATIONS]
    tables = not args.json and base is None  # a comparison prints only at the end

    if tables:
        for line in header(info, settings.repeat, source, settings.ops, settings.sweep):
            print(line, file=out)
    if tables and not settings.sweep:
        # The table of one size: rows printed as they are measured.
        results = []
        if per_text_ops:
            names = [text.name for _, texts in sized for text in texts]
            table = Table(out, max(map(len, names)), max(map(len, settings.ops)))
            table.header()
            results = run_sized(sized, settings.repeat, per_text_ops, table.row)
    else:
        progress = _Progress(sys.stderr)
        results = run_sized(sized, settings.repeat, per_text_ops, progress) if per_text_ops else []
        progress.done()
        if tables:
            print_sweep(results, out)
    short_results = run_small(settings.ops, settings.repeat)
    if tables:
        print_small_results(short_results, out)
    results += short_results

    document = schema.document(info, settings, _texts_of(sized), results)
    if base is not None:
        comparison = compare(base, document)
        for warning in comparison.warnings:
            _warn(warning)
        document["comparison"] = comparison_json(comparison, args.compare)
        if not args.json:
            print_comparison(comparison, args.compare, base, out)
    if args.json:
        json.dump(document, out, indent=2)
        out.write("\n")
    plot_path: str | None = getattr(args, "plot", None)
    if plot_path is not None:
        try:
            plot(document, plot_path)
        except ValueError as error:
            return _error(str(error))
        except OSError as error:
            return _error(f"--plot {plot_path}: {error.strerror or error}")
        if not args.json:
            print(f"chart written to {plot_path}", file=out)

    wrong = [result.task.disagreement for result in results if not result.task.agrees]
    for disagreement in wrong:
        print(f"utfkit bench: WRONG RESULT on {disagreement}", file=sys.stderr)
    return EXIT_WRONG_RESULT if wrong else EXIT_OK


def _texts_of(sized: Sequence[Sized]) -> list[tuple[int | None, Text]]:
    return [(size, text) for size, texts in sized for text in texts]


def standalone(argv: Sequence[str] | None = None) -> int:
    """``python -m utfkit.bench [OPTIONS]``: the same as ``utfkit bench``."""
    parser = argparse.ArgumentParser(prog="utfkit bench")
    add_arguments(parser)
    return main(parser.parse_args(argv))
