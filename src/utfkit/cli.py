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
import signal
import sys
from dataclasses import asdict, dataclass
from typing import Any, BinaryIO, Callable, Iterator, List, Optional, Sequence, Tuple

from . import __version__, _kernels
from ._binding import ENCODINGS, UTF8_FAMILY, ffi, lib, lookup, reason
from ._oneshot import count
from ._output import Output, OutputError, open_output
from .stream import IncrementalTranscoder, held_back_length, new_stream

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_ERROR = 2

CHUNK_SIZE = 1 << 20  # bytes read per step; the only buffer check keeps
PROGRESS_MIN_SIZE = 64 << 20  # files at least this big show progress on a terminal

# At most 3 bytes of an unfinished character are carried from one chunk to
# the next: a UTF-8 character is at most 4 bytes (Table 3-7), and what UTF-16
# or UTF-32 can leave unfinished is a lead surrogate and an odd byte, or 3
# bytes of a 4-byte unit.


@dataclass
class Finding:
    """One ill-formed subsequence of one input, or the input's validity."""

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


def _hidden_case(around: bytes) -> Optional[str]:
    """What CPython's UTF-8 reason does not say, from the bytes at an error
    (Unicode 3.9 Table 3-7 and the text before it): an encoded surrogate
    (ED A0..BF), a value above U+10FFFF (F4 90..BF, F5..F7) or an overlong
    form (C0, C1, E0 80..9F, F0 80..8F)."""
    lead = around[0]
    second = around[1] if len(around) > 1 else None
    if lead == 0xED and second is not None and 0xA0 <= second <= 0xBF:
        return "an encoded surrogate (UTF-8 excludes U+D800..U+DFFF)"
    if 0xF5 <= lead <= 0xF7 or (lead == 0xF4 and second is not None and 0x90 <= second <= 0xBF):
        return "a value above U+10FFFF"
    if lead in (0xC0, 0xC1) or (lead == 0xE0 and second is not None and 0x80 <= second <= 0x9F) \
            or (lead == 0xF0 and second is not None and 0x80 <= second <= 0x8F):
        return "an overlong form (a longer sequence than the value needs)"
    return None


class _Lines:
    """Line and column of byte offsets, worked out only where an error is
    reported: newlines are counted from the last position asked for (or the
    last the caller advanced to) up to the next, never over the whole input
    unless an error lies at its end."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.offset = 0  # position of the last answer
        self.line = 1
        self.column = 1  # in characters, at `offset`

    def _newlines_and_last(self, data: bytes) -> Tuple[int, int]:
        """Newlines in `data` (read in self.encoding) and the index of the
        byte after the last one (-1 if none)."""
        if ENCODINGS[self.encoding].unit_size == 1:  # 0A is a newline wherever it is
            return data.count(b"\n"), data.rfind(b"\n") + 1 if b"\n" in data else -1
        unit = ENCODINGS[self.encoding].unit_size
        newline = "\n".encode(self.encoding)
        found, last, at = 0, -1, data.find(newline)
        while at >= 0:
            if at % unit == 0:
                found, last = found + 1, at + unit
            at = data.find(newline, at + 1)
        return found, last

    def advance(self, read: Callable[[int, int], bytes], to: int) -> Tuple[int, int]:
        """Line and column of offset `to` (>= the last one); read(a, b)
        gives the input's bytes a..b."""
        position = self.offset
        line_start = -1
        while position < to:
            block = read(position, min(to, position + max(CHUNK_SIZE, 64)))  # whole code units
            if not block:
                break
            newlines, last = self._newlines_and_last(block)
            if newlines:
                self.line += newlines
                line_start = position + last
            position += len(block)
        if line_start >= 0:
            self.column = 1
            self.offset = line_start
        self.column += self._characters(read, self.offset, to)
        self.offset = to
        return self.line, self.column

    def _characters(self, read: Callable[[int, int], bytes], start: int, end: int) -> int:
        characters = 0
        while start < end:
            block = read(start, min(end, start + max(CHUNK_SIZE, 64)))  # > what is held back
            if not block:
                break
            whole = len(block) if start + len(block) >= end else len(block) - held_back_length(block, self.encoding)
            whole = whole or len(block)
            characters += count(block[:whole], self.encoding)
            start += whole
        return characters


def _file_reader(stream: BinaryIO) -> Optional[Callable[[int, int], bytes]]:
    """read(a, b) for a seekable file (positioned reads, the scan goes on
    undisturbed), or None."""
    try:
        descriptor = stream.fileno()
        if not stream.seekable():
            return None
    except (OSError, ValueError, AttributeError):
        return None
    return lambda start, end: os.pread(descriptor, end - start, start)


def _ill_formed(
    stream: BinaryIO, name: str, encoding: str, every: bool, progress: Optional[int],
) -> Iterator[Finding]:
    """The ill-formed subsequences of one input (the first, or with `every`
    all of them), read in chunks of CHUNK_SIZE through the C stream
    (utfkit_stream_feed): after an error a new stream starts right after
    its maximal subpart, where CPython's decoder resumes after an error
    handler."""
    marks = ENCODINGS[encoding].marks  # utf-16, utf-32, utf-8-sig: decided by the first bytes
    first = b""
    mark = b""
    if marks:
        longest = len(marks[0][0])
        while len(first) < longest:
            more = stream.read(longest - len(first))
            if not more:
                break
            first += more
        mark, encoding = next(((m, n) for m, n in marks if first.startswith(m)), (b"", marks[0][1]))
        first = first[len(mark):]
    form = ENCODINGS[encoding].form
    state = new_stream(None, form)
    base = len(mark)  # input offset of the C stream's offset 0
    lines = _Lines(encoding)
    lines.offset = len(mark)  # (not a character of the first line: columns count the text)
    reader = _file_reader(stream)
    window: List[Tuple[int, bytes]] = []  # (offset, bytes) still needed for lines, when not seekable

    def read_window(start: int, end: int) -> bytes:
        parts = [data[max(start - at, 0): max(end - at, 0)] for at, data in window
                 if at < end and at + len(data) > start]
        return b"".join(parts)

    read = reader or read_window

    def finding(start: int, end: int, status: int, unit: int, subpart: bytes, around: bytes) -> Finding:
        line, column = lines.advance(read, start)
        why = reason(status, encoding, unit, end - start)
        if encoding == "utf-8" or encoding in UTF8_FAMILY:
            hidden = _hidden_case(around)
            if hidden and status != lib.UTFKIT_SURROGATE:
                why = f"{why}: {hidden}"
        return Finding(file=name, valid=False, offset=start, line=line, column=column, reason=why,
                       bytes=" ".join(f"{byte:02X}" for byte in subpart))

    buffer = bytearray(CHUNK_SIZE)
    view = memoryview(buffer)
    done = 0
    while True:
        if first:  # the bytes read after a mark
            read_length = len(first)
            buffer[:read_length] = first
            first = b""
        else:
            read_length = stream.readinto(buffer)  # type: ignore[attr-defined]
        pieces: List[Any] = [view[:read_length]] if read_length else []
        if reader is None and read_length:
            settled = base + int(state.offset) - int(state.pending_length)
            held = ffi.buffer(state.pending, state.pending_length)[:]
            if window:
                lines.advance(read_window, settled)
            window = [(settled, held), (base + int(state.offset), bytes(view[:read_length]))]
        elif reader is None and not window:
            window = [(base, b"")]
        while pieces:
            piece = pieces.pop(0)
            piece_offset = base + int(state.offset)
            held = ffi.buffer(state.pending, state.pending_length)[:]
            source = ffi.from_buffer("uint8_t[]", piece)
            result = lib.utfkit_stream_feed(state, source, len(piece))
            ffi.release(source)
            if result.status == lib.UTFKIT_OK:
                continue
            start = base + int(state.error_position)
            end = start + int(state.error_length)
            known_at = piece_offset - len(held)
            if start >= piece_offset:
                around = bytes(piece[start - piece_offset: end - piece_offset + 3])
            else:  # it begins in the bytes held back from before this piece
                around = held[start - known_at:] + bytes(piece[: max(end - piece_offset, 0) + 3])
            yield finding(start, end, int(state.status), int(state.error_unit), around[: end - start], around)
            if not every:
                return
            rest: List[Any] = []
            if end < piece_offset:
                rest.append(held[end - known_at:])
            rest.append(piece[max(end - piece_offset, 0):])
            pieces = rest + pieces
            state = new_stream(None, form)
            base = end
        if not read_length:
            break
        done += read_length
        if progress:
            sys.stderr.write(f"\r{name}: {100 * done // progress}% of {progress / 1e9:.2f} GB")
            sys.stderr.flush()
    held = ffi.buffer(state.pending, state.pending_length)[:]
    if lib.utfkit_stream_finish(state).status != lib.UTFKIT_OK:
        start = base + int(state.error_position)
        around = held[start - (base + int(state.offset) - len(held)):]
        yield finding(start, start + int(state.error_length), int(state.status), int(state.error_unit),
                      around[: int(state.error_length)], around)


def _check_stream(
    stream: BinaryIO, name: str, size: Optional[int], show_progress: bool, encoding: str = "utf-8",
    every: bool = False,
) -> List[Finding]:
    """The findings for one input: its ill-formed subsequences, or one
    Finding(valid=True)."""
    try:
        found = list(_ill_formed(stream, name, encoding, every, size if show_progress else None))
    finally:
        if show_progress:
            sys.stderr.write("\r\033[K")
    return found or [Finding(file=name, valid=True)]


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
                found = _check_stream(sys.stdin.buffer, "<stdin>", None, False, encoding, args.all)
            else:
                with open(path, "rb") as stream:
                    size = os.fstat(stream.fileno()).st_size
                    progress = (
                        not args.quiet and not args.list and sys.stderr.isatty() and size >= PROGRESS_MIN_SIZE
                    )
                    found = _check_stream(stream, path, size, progress, encoding, args.all)
        except OSError as error:
            print(f"utfkit check: {path}: {error.strerror or error}", file=sys.stderr)
            status = EXIT_ERROR
            continue
        findings.extend(found)
        if not found[0].valid:
            if status == EXIT_VALID:
                status = EXIT_INVALID
            if args.quiet or args.json:
                continue
            if args.list:
                print(found[0].file)
            else:
                for finding in found:
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
        output = open_output(args.output)
    except OutputError as error:
        print(f"utfkit fix: {error}", file=sys.stderr)
        return EXIT_ERROR
    try:
        with output.file() as stream:
            repaired = parquet.repair(args.input, stream, args.column or ())
        output.commit()
    except OutputError as error:
        output.discard()
        print(f"utfkit fix: {error}", file=sys.stderr)
        return EXIT_ERROR
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


class _Terminated(Exception):
    """SIGTERM or SIGHUP arrived: unwind (discarding a half-written OUT) and
    exit 128 + the signal's number, as SIGINT does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _terminate_by_unwinding() -> Iterator[None]:
    """SIGTERM and SIGHUP raise _Terminated in the main thread while a
    conversion runs, so that its cleanup runs as for SIGINT."""
    def unwind(signum: int, frame: object) -> None:
        raise _Terminated(signum)

    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    try:
        previous = {signum: signal.signal(signum, unwind) for signum in wanted}
    except ValueError:  # not the main thread: leave the handlers alone
        yield
        return
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


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
            finding = _check_stream(source, name, None, False, encoding)[0]
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
    source: BinaryIO, name: str, target: Output, transcoder: IncrementalTranscoder,
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
    output: Optional[Output] = None
    source: Optional[BinaryIO] = None
    try:
        with _terminate_by_unwinding():
            # closed in the finally below (it may be standard input, which stays open)
            source = open(in_path, "rb") if in_path else sys.stdin.buffer  # noqa: SIM115
            if out_path is not None and in_path is not None and os.path.exists(out_path) \
                    and os.path.samefile(in_path, out_path):
                raise _UsageError(f"{out_path}: is also the input; write to another file")
            if out_path is None:
                sys.stdout.flush()
            output = open_output(out_path)
            progress = _Progress(name, _stream_size(source), sys.stderr.isatty() and not args.quiet)
            try:
                _convert(source, name, output, transcoder, args.chunk_size, progress)
            finally:
                progress.clear()
            output.commit()
            output = None
        return EXIT_VALID
    except UnicodeDecodeError as error:
        if not args.quiet:
            report = _invalid_input_report(source, name, from_, error, transcoder.offset)  # type: ignore[arg-type]
            print(report, file=sys.stderr)
        return EXIT_INVALID
    except (_UsageError, OutputError) as error:
        print(f"utfkit {command}: {error}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as error:  # reading IN (writes raise OutputError)
        where = error.filename or name
        print(f"utfkit {command}: {where}: {error.strerror or error}", file=sys.stderr)
        return EXIT_ERROR
    except _Terminated as terminated:
        return 128 + terminated.signum
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
    check.add_argument("--all", action="store_true",
                       help="report every ill-formed subsequence, not only the first of each file")
    check.add_argument("-l", "--list", action="store_true",
                       help="print only the names of the invalid files, one a line")
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
