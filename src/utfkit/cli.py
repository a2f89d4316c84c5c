"""The ``utfkit`` command (DESIGN.md section 3).

    utfkit check [FILE...] [-e ENC] [--json] [-q]
    utfkit convert -f ENC -t ENC [--errors E] [IN [OUT]]
    utfkit fix [IN [OUT]]
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

On a Parquet file (PAR1 at both ends; needs pyarrow, the extra ``arrow``)
``check`` reports every ill-formed value of its string columns (and of the
binary ones named with ``-c``) as

    FILE: column 'NAME', row N: offset K: REASON (bytes XX XX)

and ``fix IN OUT`` writes a copy with those values repaired, the schema and
every other column as they were (utfkit.parquet).

``convert`` and ``fix`` stream IN (standard input when absent or ``-``) to
OUT (standard output when absent or ``-``) in fixed-size chunks through
utfkit.IncrementalTranscoder, so memory stays bounded whatever the size.
OUT is written atomically: into a temporary file beside it, renamed over OUT
only when the whole conversion succeeded.  Exit status as for ``check``; an
ill-formed input (with ``--errors strict``) is reported as ``check`` reports
it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
from dataclasses import asdict, dataclass
from typing import BinaryIO, List, Optional, Sequence

from . import __version__, _kernels
from ._binding import ENCODINGS, UTF8_FAMILY, UTFE8_FORMS, lib, lookup, reason, surrogate_sequence_unit
from ._oneshot import count, first_error, transcode
from .codec import decodable_prefix_length
from .stream import IncrementalTranscoder

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
        if ENCODINGS[encoding].unit_size != 1:
            # Newlines cannot be found byte-wise in UTF-16/32: count them in
            # the UTF-8 form of the same text.  (In the UTF-8-based forms,
            # 0A is a newline wherever it is.)
            buffer = bytearray(transcode(memoryview(buffer)[start:end], encoding, "utf-8"))
            start, end = 0, len(buffer)
        newlines = buffer.count(b"\n", start, end)
        if newlines:
            self.line += newlines
            line_start = buffer.rfind(b"\n", start, end) + 1
            self.column = 1 + count(memoryview(buffer)[line_start:end], encoding)
        else:
            self.column += count(memoryview(buffer)[start:end], encoding)


def _check_stream(
    stream: BinaryIO, name: str, size: Optional[int], show_progress: bool, encoding: str = "utf-8"
) -> Finding:
    """Check one input, in `encoding`, read in chunks of CHUNK_SIZE bytes."""
    buffer = bytearray(_MAX_CARRY + CHUNK_SIZE)
    view = memoryview(buffer)
    carried = 0  # bytes of an unfinished character at the front of buffer
    consumed = 0  # file offset of buffer[0]
    position = _Position()
    marks = ENCODINGS[encoding].marks  # utf-16, utf-32, utf-8-sig: decided by the first bytes
    while True:
        read = stream.readinto(view[carried : carried + CHUNK_SIZE])  # type: ignore[attr-defined]
        at_end = not read
        filled = carried + (read or 0)
        if marks:
            if filled < len(marks[0][0]) and not at_end:
                carried = filled  # too few bytes yet to tell a mark
                continue
            mark, encoding = next(((m, n) for m, n in marks if buffer.startswith(m)), (b"", marks[0][1]))
            marks = ()
            consumed += len(mark)  # (not a character of the first line: columns count the text)
            buffer[: filled - len(mark)] = buffer[len(mark) : filled]
            filled -= len(mark)
        window = view[:filled]
        if encoding in UTF8_FAMILY and not at_end:
            # What ends the chunk may depend on what follows: a lead
            # surrogate sequence (WTF-8: a trail after it is ill-formed) or
            # a cut-off character.  Carry it to the next chunk.
            window = view[: decodable_prefix_length(bytes(window[-_MAX_CARRY:]), encoding)
                          + max(filled - _MAX_CARRY, 0)]
        result = first_error(window, encoding)
        if result.status == lib.UTFKIT_OK:
            checked = len(window)
            position.advance(buffer, 0, checked, encoding)
            consumed += checked
            carried = filled - checked
            buffer[:carried] = buffer[checked:filled]
        elif result.status == lib.UTFKIT_END_OF_DATA and not at_end:
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
            if encoding in UTF8_FAMILY or encoding in UTFE8_FORMS:  # the byte, or the surrogate it starts
                unit = surrogate_sequence_unit(bytes(buffer[start : start + 3]), result.status)
            if show_progress:
                sys.stderr.write("\r\033[K")
            return Finding(
                file=name,
                valid=False,
                offset=consumed + start,
                line=position.line,
                column=position.column,
                reason=reason(result.status, encoding, unit, result.subpart_length),
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
        encoding = lookup(args.encoding, "check").name
    except LookupError as error:
        print(f"utfkit check: {error}", file=sys.stderr)
        return EXIT_ERROR
    findings: List[Finding] = []
    status = EXIT_VALID
    for path in args.files or ["-"]:
        if path != "-" and _is_parquet(path):
            parquet_status = _check_parquet(path, args)
            status = max(status, parquet_status)
            continue
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


def _is_parquet(path: str) -> bool:
    """A Parquet file (PAR1 at both ends), found without importing pyarrow."""
    try:
        with open(path, "rb") as stream:
            if stream.read(4) != b"PAR1":
                return False
            stream.seek(-4, os.SEEK_END)
            return stream.read(4) == b"PAR1"
    except OSError:
        return False


def _check_parquet(path: str, args: argparse.Namespace) -> int:
    """Each ill-formed value of a Parquet file's text columns, by column and row."""
    try:
        from . import parquet

        found = 0
        for bad in parquet.bad_values(path, args.column or ()):
            found += 1
            if not args.quiet:
                print(bad.text(path))
    except ImportError as error:
        print(f"utfkit check: {path}: {error}", file=sys.stderr)
        return EXIT_ERROR
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        print(f"utfkit check: {path}: {error}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_INVALID if found else EXIT_VALID


def _fix_parquet(args: argparse.Namespace) -> int:
    """fix on a Parquet file: a repaired copy to OUT, same schema."""
    if not args.output or args.output == "-":
        print("utfkit fix: a Parquet input needs an OUT file", file=sys.stderr)
        return EXIT_ERROR
    try:
        from . import parquet
    except ImportError as error:
        print(f"utfkit fix: {error}", file=sys.stderr)
        return EXIT_ERROR
    try:
        output = _AtomicOutput(args.output)
    except _UsageError as error:
        print(f"utfkit fix: {error}", file=sys.stderr)
        return EXIT_ERROR
    try:
        repaired = parquet.repair(args.input, output.stream, args.column or ())
        output.commit()
    except (OSError, ValueError) as error:
        output.discard()
        print(f"utfkit fix: {args.input}: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BaseException:
        output.discard()
        raise
    if not args.quiet:
        print(f"utfkit fix: {args.input}: {repaired} value(s) repaired", file=sys.stderr)
    return EXIT_VALID


class _UsageError(Exception):
    """A problem with the command line or a file: exit status 2."""


class _AtomicOutput:
    """OUT written through a temporary file in OUT's directory, renamed
    over OUT by commit(); discard() (or an exception) leaves OUT as it was.
    The file gets OUT's permissions if it exists, else the umask's."""

    def __init__(self, path: str) -> None:
        directory = os.path.dirname(os.path.abspath(path))
        name = os.path.basename(path)
        import tempfile

        try:
            descriptor, self.temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".utfkit-tmp", dir=directory)
        except OSError as error:
            raise _UsageError(f"{path}: cannot write in {directory}: {error.strerror or error}") from None
        self.path = path
        self.stream = os.fdopen(descriptor, "wb")

    def commit(self) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())
        try:
            mode = os.stat(self.path).st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(self.temporary, mode)
        self.stream.close()
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        self.stream.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temporary)


class _Progress:
    """Bytes done so far on stderr, when it is a terminal and the input is
    large (or of unknown size); rewritten in place at most 5 times a second."""

    def __init__(self, name: str, size: Optional[int], enabled: bool) -> None:
        import time

        self._clock = time.monotonic
        self._name, self._size = name, size
        self._enabled = enabled and (size is None or size >= PROGRESS_MIN_SIZE)
        self._last = 0.0

    def update(self, done: int) -> None:
        if not self._enabled or self._clock() - self._last < 0.2:
            return
        self._last = self._clock()
        if self._size:
            sys.stderr.write(f"\r{self._name}: {100 * done // self._size}% of {self._size / 1e9:.2f} GB")
        else:
            sys.stderr.write(f"\r{self._name}: {done / 1e6:.0f} MB")
        sys.stderr.flush()

    def clear(self) -> None:
        if self._enabled and self._last:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _stream_size(stream: BinaryIO) -> Optional[int]:
    try:
        status = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):  # e.g. io.BytesIO in tests
        return None
    import stat

    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _invalid_input_report(
    source: BinaryIO, name: str, encoding: str, error: UnicodeDecodeError, chunk_offset: int
) -> str:
    """check's report for the error; for input that cannot be read again
    (a pipe), the offset, reason and -- when they are all in the chunk that
    failed (error.object, which began at chunk_offset) -- the bytes."""
    try:
        if source.seekable():
            source.seek(0)
            finding = _check_stream(source, name, None, False, encoding)
            if not finding.valid and finding.offset == error.start:
                return finding.text()
    except OSError:
        pass
    report = f"{name}: offset {error.start}: {error.reason}"
    first, last = error.start - chunk_offset, error.end - chunk_offset
    if first >= 0 and last <= len(error.object):
        report += " (bytes " + " ".join(f"{byte:02X}" for byte in error.object[first:last]) + ")"
    return report


def _convert(
    source: BinaryIO, name: str, target: BinaryIO, transcoder: IncrementalTranscoder,
    chunk_size: int, progress: _Progress,
) -> None:
    """Read source in chunks of chunk_size bytes into one reused buffer,
    write each chunk's conversion to target."""
    buffer = bytearray(chunk_size)
    view = memoryview(buffer)
    done = 0
    while True:
        read = source.readinto(buffer)  # type: ignore[attr-defined]
        if not read:
            break
        target.write(transcoder.feed(view[:read]))
        done += read
        progress.update(done)
    target.write(transcoder.finish())


def _command_convert(args: argparse.Namespace) -> int:
    command = args.command
    if command == "fix" and args.input and args.input != "-" and _is_parquet(args.input):
        return _fix_parquet(args)
    try:
        from_ = lookup(args.from_encoding, command, "from").name
        to = lookup(args.to_encoding, command, "to").name
        transcoder = IncrementalTranscoder(from_, to, args.errors)
        if args.chunk_size < 1:
            raise ValueError("--chunk-size must be at least 1")
    except (LookupError, ValueError, TypeError) as error:
        print(f"utfkit {command}: {error}", file=sys.stderr)
        return EXIT_ERROR
    in_path = args.input if args.input not in (None, "-") else None
    out_path = args.output if args.output not in (None, "-") else None
    name = in_path or "<stdin>"
    output: Optional[_AtomicOutput] = None
    source: Optional[BinaryIO] = None
    try:
        # closed in the finally below (it may be standard input, which stays open)
        source = open(in_path, "rb") if in_path else sys.stdin.buffer  # noqa: SIM115
        if out_path is not None and in_path is not None and os.path.exists(out_path) \
                and os.path.samefile(in_path, out_path):
            raise _UsageError(f"{out_path}: is also the input; write to another file")
        output = _AtomicOutput(out_path) if out_path is not None else None
        target = output.stream if output else sys.stdout.buffer
        progress = _Progress(name, _stream_size(source), sys.stderr.isatty() and not args.quiet)
        try:
            _convert(source, name, target, transcoder, args.chunk_size, progress)
        finally:
            progress.clear()
        if output:
            output.commit()
            output = None
        else:
            target.flush()
        return EXIT_VALID
    except UnicodeDecodeError as error:
        if not args.quiet:
            report = _invalid_input_report(source, name, from_, error, transcoder.offset)  # type: ignore[arg-type]
            print(report, file=sys.stderr)
        return EXIT_INVALID
    except _UsageError as error:
        print(f"utfkit {command}: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:
        where = error.filename or name
        print(f"utfkit {command}: {where}: {error.strerror or error}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        if output is not None:
            output.discard()
        if source is not None and in_path:
            source.close()


def _command_info(args: argparse.Namespace) -> int:
    import cffi

    from .bench.machine import cpu_model

    facts = {
        "utfkit": __version__,
        "backend": _kernels.backend(),
        "validation backend": _kernels.backend_of("validate"),
        "available backends": ", ".join(_kernels.available_backends()),
        "cpu": cpu_model(),
        "cpu features": _kernels.cpu_features(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "cffi": cffi.__version__,
        "encodings": ", ".join(ENCODINGS),
    }
    if args.json:
        print(json.dumps(facts, indent=2))
    else:
        width = max(len(key) for key in facts)
        for key, value in facts.items():
            print(f"{key + ':':<{width + 1}} {value}")
    return EXIT_VALID


def _command_bench(args: argparse.Namespace) -> int:
    from . import bench

    return bench.main(args)


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
    _add_column_argument(check)
    check.set_defaults(run=_command_check)

    convert = commands.add_parser(
        "convert",
        help="convert a file from one encoding to another, in bounded memory",
        description=(
            "Convert IN (standard input when absent or -) from ENC to ENC and write it to OUT "
            "(standard output when absent or -), streaming in fixed-size chunks. OUT is replaced "
            "only when the whole conversion succeeds. Exit 0 on success, 1 if the input is "
            "ill-formed (with --errors strict), 2 on usage or I/O errors."
        ),
    )
    convert.add_argument("-f", "--from", dest="from_encoding", required=True, metavar="ENC",
                         help="encoding of IN: utf-8, utf-16-le, utf-16-be, utf-32-le, utf-32-be")
    convert.add_argument("-t", "--to", dest="to_encoding", required=True, metavar="ENC",
                         help="encoding of OUT (same choices)")
    convert.add_argument("--errors", default="strict", choices=["strict", "replace", "ignore"],
                         help="ill-formed input: stop with exit 1 (strict, the default), write "
                              "U+FFFD (replace) or leave it out (ignore)")
    _add_stream_arguments(convert)
    convert.set_defaults(run=_command_convert)

    fix = commands.add_parser(
        "fix",
        help="repair UTF-8: each ill-formed subsequence becomes U+FFFD",
        description=(
            "Copy IN to OUT (standard input/output when absent or -) replacing each maximal "
            "subpart of ill-formed UTF-8 by U+FFFD (EF BF BD), as bytes.decode(errors='replace') "
            "does; streaming, OUT replaced only on success. Exit 0, or 2 on usage or I/O errors."
        ),
    )
    _add_stream_arguments(fix)
    _add_column_argument(fix)
    fix.set_defaults(run=_command_convert, from_encoding="utf-8", to_encoding="utf-8", errors="replace")

    bench = commands.add_parser(
        "bench",
        help="measure utfkit against CPython's codecs",
        description="Measure utfkit against CPython's codecs on a generated corpus or on DIR.",
    )
    from .bench import add_arguments as add_bench_arguments

    add_bench_arguments(bench)
    bench.set_defaults(run=_command_bench)

    info = commands.add_parser("info", help="version, backend and CPU features")
    info.add_argument("--json", action="store_true", help="print as JSON")
    info.set_defaults(run=_command_info)
    return parser


def _add_column_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c", "--column", action="append", metavar="NAME",
        help="Parquet input: also this binary column (repeatable); every string column is always "
             "included. Each ill-formed value is reported as FILE: column NAME, row N: offset K: ...",
    )


def _add_stream_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", metavar="IN", help="input file; - or absent: standard input")
    parser.add_argument("output", nargs="?", metavar="OUT", help="output file; - or absent: standard output")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress and no error report")
    # Bytes read per step; for tests (every chunk boundary), not for users.
    parser.add_argument("--chunk-size", type=int, default=CHUNK_SIZE, help=argparse.SUPPRESS)


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
