"""The ``utfkit`` command (DESIGN.md section 3).

    utfkit check [FILE...] [-e ENC] [--json] [-q]
    utfkit bench [--corpus DIR] [--json] ...
    utfkit info

``check`` reads each file (standard input when none is given, or for ``-``)
in fixed-size chunks, so memory stays bounded whatever the file size, and
reports the first ill-formed subsequence of each file as

    FILE:LINE:COLUMN: offset N: REASON (bytes XX XX)

LINE and COLUMN count from 1; COLUMN counts characters (code points) from
the start of the line, N is the byte offset from the start of the file, and
the bytes shown are the maximal subpart (Unicode 3.9, D93b) -- for UTF-16
and UTF-32 (-e utf-16-le and so on), the ill-formed code units.  Exit status:
0 when every input is valid, 1 when some input is invalid, 2 on a usage or
I/O error.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from dataclasses import asdict, dataclass
from typing import BinaryIO, List, Optional, Sequence

from . import __version__, _core
from .codec import decodable_prefix_length

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_ERROR = 2

CHUNK_SIZE = 1 << 20  # bytes read per step; the only buffer check keeps
PROGRESS_MIN_SIZE = 64 << 20  # files at least this big show progress on a terminal

# At most 3 bytes of an unfinished character are carried from one chunk to
# the next: a UTF-8 character is at most 4 bytes (Table 3-7), and what UTF-16
# or UTF-32 can leave unfinished is a lead surrogate and an odd byte, or 3
# bytes of a 4-byte unit.
_MAX_CARRY = 6  # a WTF-8 lead surrogate sequence and a cut-off character after it


@dataclass
class Finding:
    """The first ill-formed subsequence of one input, or its absence."""

    file: str
    valid: bool
    offset: Optional[int] = None
    line: Optional[int] = None
    column: Optional[int] = None
    reason: Optional[str] = None
    bytes: Optional[str] = None  # the maximal subpart, as hex pairs

    def text(self) -> str:
        return (
            f"{self.file}:{self.line}:{self.column}: offset {self.offset}: "
            f"{self.reason} (bytes {self.bytes})"
        )


class _Position:
    """Line and column of the next byte, advanced over well-formed text."""

    def __init__(self) -> None:
        self.line = 1
        self.column = 1  # in characters

    def advance(self, buffer: bytearray, start: int, end: int, encoding: str = "utf-8") -> None:
        """Move past buffer[start:end], which is well-formed in `encoding`."""
        if _core._UNIT_SIZE[encoding] != 1:
            # Newlines cannot be found byte-wise in UTF-16/32: count them in
            # the UTF-8 form of the same text.  (In the UTF-8-based forms,
            # 0A is a newline wherever it is.)
            buffer = bytearray(_core.transcode(memoryview(buffer)[start:end], encoding, "utf-8"))
            start, end = 0, len(buffer)
        newlines = buffer.count(b"\n", start, end)
        if newlines:
            self.line += newlines
            line_start = buffer.rfind(b"\n", start, end) + 1
            self.column = 1 + _core.count(memoryview(buffer)[line_start:end], encoding)
        else:
            self.column += _core.count(memoryview(buffer)[start:end], encoding)


def _check_stream(
    stream: BinaryIO, name: str, size: Optional[int], show_progress: bool, encoding: str = "utf-8"
) -> Finding:
    """Check one input, in `encoding`, read in chunks of CHUNK_SIZE bytes."""
    buffer = bytearray(_MAX_CARRY + CHUNK_SIZE)
    view = memoryview(buffer)
    carried = 0  # bytes of an unfinished character at the front of buffer
    consumed = 0  # file offset of buffer[0]
    position = _Position()
    while True:
        read = stream.readinto(view[carried : carried + CHUNK_SIZE])  # type: ignore[attr-defined]
        at_end = not read
        filled = carried + (read or 0)
        window = view[:filled]
        if encoding in _core._UTF8_FAMILY_FORMS and not at_end:
            # What ends the chunk may depend on what follows: a lead
            # surrogate sequence (WTF-8: a trail after it is ill-formed) or
            # a cut-off character.  Carry it to the next chunk.
            window = view[: decodable_prefix_length(bytes(window[-_MAX_CARRY:]), encoding)
                          + max(filled - _MAX_CARRY, 0)]
        result = _core.first_error(window, "check", encoding)
        if result.status == _core.lib.UTFKIT_OK:
            checked = len(window)
            position.advance(buffer, 0, checked, encoding)
            consumed += checked
            carried = filled - checked
            buffer[:carried] = buffer[checked:filled]
        elif result.status == _core.lib.UTFKIT_END_OF_DATA and not at_end:
            # The chunk ends inside a character that is fine so far: carry it.
            start = result.position
            position.advance(buffer, 0, start, encoding)
            carried = filled - start
            buffer[:carried] = buffer[start:filled]
            consumed += start
        else:
            start = result.position
            position.advance(buffer, 0, start, encoding)
            subpart = bytes(buffer[start : start + result.subpart_length])
            unit = int.from_bytes(subpart[:2], "big" if encoding.endswith("be") else "little")
            if encoding in _core._UTF8_FAMILY_FORMS:  # the byte, or the surrogate it starts
                unit = _core._utf8_family_unit(bytes(buffer[start : start + 3]), result.status)
            if show_progress:
                sys.stderr.write("\r\033[K")
            return Finding(
                file=name,
                valid=False,
                offset=consumed + start,
                line=position.line,
                column=position.column,
                reason=_core.reason(result.status, encoding, unit, result.subpart_length),
                bytes=" ".join(f"{byte:02X}" for byte in subpart),
            )
        if at_end:
            break
        if show_progress and size:
            done = consumed + carried
            sys.stderr.write(f"\r{name}: {100 * done // size}% of {size / 1e9:.2f} GB")
            sys.stderr.flush()
    if show_progress:
        sys.stderr.write("\r\033[K")
    return Finding(file=name, valid=True)


def _command_check(args: argparse.Namespace) -> int:
    try:
        encoding = _core._normalize_encoding(args.encoding, "check")
    except LookupError as error:
        print(f"utfkit check: {error}", file=sys.stderr)
        return EXIT_ERROR
    findings: List[Finding] = []
    status = EXIT_VALID
    for path in args.files or ["-"]:
        try:
            if path == "-":
                finding = _check_stream(sys.stdin.buffer, "<stdin>", None, False, encoding)
            else:
                with open(path, "rb") as stream:
                    size = os.fstat(stream.fileno()).st_size
                    progress = (
                        not args.quiet and sys.stderr.isatty() and size >= PROGRESS_MIN_SIZE
                    )
                    finding = _check_stream(stream, path, size, progress, encoding)
        except OSError as error:
            print(f"utfkit check: {path}: {error.strerror or error}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        findings.append(finding)
        if not finding.valid:
            if status == EXIT_VALID:
                status = EXIT_INVALID
            if not args.quiet and not args.json:
                print(finding.text())
    if args.json and not args.quiet:
        print(json.dumps([asdict(finding) for finding in findings], indent=2))
    return status


def _command_info(args: argparse.Namespace) -> int:
    import cffi

    facts = {
        "utfkit": __version__,
        "backend": _core.backend(),
        "available backends": ", ".join(_core.available_backends()),
        "cpu": _cpu_model(),
        "cpu features": _core.cpu_features(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cffi": cffi.__version__,
        "encodings": ", ".join(_core.SUPPORTED_ENCODINGS),
    }
    if args.json:
        print(json.dumps(facts, indent=2))
    else:
        width = max(len(key) for key in facts)
        for key, value in facts.items():
            print(f"{key + ':':<{width + 1}} {value}")
    return EXIT_VALID


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _command_bench(args: argparse.Namespace) -> int:
    from . import _bench

    return _bench.main(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="utfkit",
        description="Validate and repair Unicode text at C speed, spec-exact.",
    )
    parser.add_argument("--version", action="version", version=f"utfkit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    check = commands.add_parser(
        "check",
        help="report the first ill-formed subsequence of each file",
        description=(
            "Report the first ill-formed subsequence of each FILE (standard input "
            "when none is given) as FILE:LINE:COLUMN: offset N: REASON (bytes XX ..). "
            "Exit 0 if all are valid, 1 if some are not, 2 on usage or I/O errors."
        ),
    )
    check.add_argument("files", nargs="*", metavar="FILE", help="files to check; - is stdin")
    check.add_argument(
        "-e", "--encoding", default="utf-8", metavar="ENC", help="encoding (default utf-8)"
    )
    check.add_argument("--json", action="store_true", help="print the findings as JSON")
    check.add_argument("-q", "--quiet", action="store_true", help="print nothing; exit status only")
    check.set_defaults(run=_command_check)

    bench = commands.add_parser(
        "bench",
        help="measure utfkit against CPython's codecs",
        description="Measure utfkit against CPython's codecs on a generated corpus or on DIR.",
    )
    from . import _bench

    _bench.add_arguments(bench)
    bench.set_defaults(run=_command_bench)

    info = commands.add_parser("info", help="version, backend and CPU features")
    info.add_argument("--json", action="store_true", help="print as JSON")
    info.set_defaults(run=_command_info)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `utfkit check ... | head`).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
