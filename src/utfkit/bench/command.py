"""The command line of ``utfkit bench``: its options, and the run they ask for."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence

from utfkit import _kernels

from . import corpus
from .corpus import Text
from .machine import machine_info
from .operations import DEFAULT_OPS, OPERATIONS, SHORT_INPUT_OPERATIONS, parse_ops
from .report import Table, header, print_small_results, result_json
from .runner import run
from .small import run_small
from .timing import DEFAULT_REPEAT, ROUND_TARGET_NS, clock_name, use_cpu_time

__all__ = ["add_arguments", "main", "parse_size", "standalone"]


_SIZE_PATTERN = re.compile(r"\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"65536"``, ``"64K"``, ``"64KiB"``, ``"1M"``, ``"2G"`` -> bytes (powers of 1024)."""
    match = _SIZE_PATTERN.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: give a number of bytes, optionally with K, M or G "
            "(powers of 1024), e.g. 65536, 64K, 1M"
        )
    number, unit = match.groups()
    shift = {None: 0, "k": 10, "m": 20, "g": 30}[unit.lower() if unit else None]
    size = int(number) << shift
    if size <= 0:
        raise argparse.ArgumentTypeError(f"size must be more than 0 bytes, got {text!r}")
    return size


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


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
        "measurement, instead of the table",
    )
    parser.add_argument(
        "--ops",
        metavar="GROUPS",
        dest="ops",
        type=parse_ops,
        default=DEFAULT_OPS,
        help="comma-separated operation groups to time: validate (validate, "
        "valid_up_to), count, replace, decode (to str; E = strict on clean texts, "
        "replace on dirty ones), read (UTF-8), small (validate on 16 B to 1 KiB, "
        "per call), many (validate_many on 10,000 strings), transcode (every direction, "
        "allocating and out=), a single direction such as 'utf8>utf16le' (quote the "
        "'>' in a shell), or all (default: all)",
    )
    parser.add_argument(
        "--size",
        metavar="BYTES",
        dest="size",
        type=parse_size,
        default=corpus.DEFAULT_SIZE,
        help="size of each generated text, e.g. 65536, 64K, 16M (default 1M); "
        "ignored with --corpus",
    )
    parser.add_argument(
        "--repeat",
        metavar="N",
        dest="repeat",
        type=_positive_int,
        default=DEFAULT_REPEAT,
        help=f"timed rounds per contender, best one reported (default {DEFAULT_REPEAT})",
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
        "of the best one for this CPU",
    )


def _load_texts(directory: str | None, size: int) -> tuple[list[Text], str]:
    if directory is None:
        texts = [corpus.generated_text(name, size) for name in corpus.all_names()]
        return texts, f"generated, {size} bytes of UTF-8 each (dirty: one error per KiB)"
    # Each file, then a dirty variant of each; a file already ill-formed is
    # timed as found, as a dirty text.
    texts = corpus.corpus_texts(directory)
    files = len({text.path for text in texts})
    return texts, f"{directory} ({files} files; dirty: one error per KiB)"


def _error(message: str) -> int:
    print(f"utfkit bench: error: {message}", file=sys.stderr)
    return 2


def _select_backend(name: str | None) -> None:
    if name is not None:
        _kernels.set_backend(name)


def main(args: argparse.Namespace) -> int:
    """Runs ``utfkit bench``; returns the exit status: 0, 1 if a utfkit result
    disagreed with CPython's, 2 for a usage or I/O error."""
    try:
        _select_backend(args.backend)
    except ValueError as error:
        return _error(f"--backend {args.backend}: {error}")
    try:
        texts, source = _load_texts(args.corpus, args.size)
    except OSError as error:
        return _error(str(error))
    ops: Sequence[str] = getattr(args, "ops", None) or DEFAULT_OPS
    use_cpu_time(bool(getattr(args, "cpu_time", False)))
    info = machine_info()
    info["clock"] = clock_name()
    out = sys.stdout

    if args.json:
        results = run(texts, args.repeat, ops=ops) + run_small(ops, args.repeat)
        document = {
            "machine": info,
            "settings": {
                "texts": source,
                "corpus": args.corpus,
                "size": None if args.corpus else args.size,
                "ops": list(ops),
                "repeat": args.repeat,
                "round_target_ns": ROUND_TARGET_NS,
                "statistic": "best round; median also given",
                "gbps": "bytes / seconds / 1e9, bytes of the input",
                "ratio": "utfkit GB/s / CPython GB/s",
                "errors": "transcoding: strict on clean texts, replace on dirty ones",
                "out": "transcoding 'out=': one bytearray of the output's length, reused",
            },
            "operations": {
                op: {"utfkit": mine, "cpython": theirs}
                for op, (mine, theirs) in OPERATIONS.items()
                if op in ops
            },
            "texts": {
                text.name: {"utf8_bytes": len(text.utf8), "dirty": text.is_dirty, "path": text.path}
                for text in texts
            },
            "results": [result_json(result) for result in results],
            "disagreements": sum(not result.task.agrees for result in results),
        }
        json.dump(document, out, indent=2)
        out.write("\n")
    else:
        for line in header(info, args.repeat, source, ops):
            print(line, file=out)
        if set(ops) - set(SHORT_INPUT_OPERATIONS):
            table = Table(out, max(len(text.name) for text in texts), max(len(op) for op in ops))
            table.header()
            results = run(texts, args.repeat, on_result=table.row, ops=ops)
        else:
            results = []
        short_results = run_small(ops, args.repeat)
        print_small_results(short_results, out)
        results += short_results

    wrong = [result.task.disagreement for result in results if not result.task.agrees]
    for disagreement in wrong:
        print(f"utfkit bench: WRONG RESULT on {disagreement}", file=sys.stderr)
    return 1 if wrong else 0


def standalone(argv: Sequence[str] | None = None) -> int:
    """``python -m utfkit.bench [OPTIONS]``: the same as ``utfkit bench``."""
    parser = argparse.ArgumentParser(prog="utfkit bench")
    add_arguments(parser)
    return main(parser.parse_args(argv))
