"""Where ``utfkit convert`` and ``utfkit fix`` write: OUT replaced only by a
whole, successful conversion, and never lost or misplaced.

* A regular OUT (or one that does not exist yet) is written into a new file
  in OUT's directory and put in OUT's place by one rename, only after the
  whole conversion succeeded and reached the disk (fsync).  Where Linux
  offers ``O_TMPFILE``, that file has no name until then, so even SIGKILL
  or a power cut during the conversion leaves nothing behind; elsewhere it
  is a ``.OUT.*.utfkit-tmp`` file, removed on every error and on SIGINT,
  SIGTERM and SIGHUP (not after SIGKILL, which no process can catch).
* A symlink OUT: its target is replaced that way; the link stays a link.
* A device, FIFO, socket or other non-regular OUT is written through: it
  is opened and written, not replaced.
* Standard output is written through.

Every write error -- a full disk, a quota, EIO -- is an ``OutputError``
naming OUT, raised after the new file is discarded: OUT is as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from typing import BinaryIO, Optional

__all__ = ["Output", "OutputError", "open_output"]


class OutputError(Exception):
    """Writing OUT failed; the message names OUT."""


def _describe(error: OSError) -> str:
    return error.strerror or str(error)


class Output:
    """A destination written with raw writes (no buffer to flush on close,
    so that discarding after an error cannot raise the same error again)."""

    def __init__(self, name: str, descriptor: int) -> None:
        self.name = name
        self._descriptor: Optional[int] = descriptor

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd(), view)
            except InterruptedError:  # pragma: no cover - PEP 475 retries already
                continue
            except OSError as error:
                raise OutputError(f"{self.name}: {_describe(error)}") from None
            view = view[written:]

    def file(self) -> BinaryIO:
        """A binary file object writing to this destination, for writers that
        want one (close it before commit())."""
        return os.fdopen(os.dup(self._fd()), "wb")

    def _fd(self) -> int:
        if self._descriptor is None:
            raise OutputError(f"{self.name}: already closed")
        return self._descriptor

    def commit(self) -> None:
        """The conversion is complete: make it OUT."""
        self._close()

    def discard(self) -> None:
        """The conversion failed: leave OUT as it was (idempotent, never raises)."""
        with contextlib.suppress(OSError, OutputError):
            self._close()

    def _close(self) -> None:
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            try:
                os.close(descriptor)
            except OSError as error:
                raise OutputError(f"{self.name}: {_describe(error)}") from None


class _StandardOutput(Output):
    """Standard output, written through its binary stream (and left open)."""

    def __init__(self) -> None:
        super().__init__("<stdout>", -1)
        self._stream = sys.stdout.buffer

    def write(self, data: bytes) -> None:
        try:
            self._stream.write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(f"{self.name}: {_describe(error)}") from None

    def _close(self) -> None:
        if self._descriptor is None:
            return
        self._descriptor = None
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OutputError(f"{self.name}: {_describe(error)}") from None

    def discard(self) -> None:
        self._descriptor = None
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()


class _Replacement(Output):
    """A new file that replaces `path` on commit (see the module docstring)."""

    def __init__(self, name: str, path: str) -> None:
        self._path = path
        directory = os.path.dirname(path) or "."
        self._directory = directory
        self._temporary: Optional[str] = None
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        self._mode = mode
        try:
            descriptor = self._unnamed(directory)
            if descriptor is None:
                descriptor, self._temporary = tempfile.mkstemp(
                    prefix=f".{os.path.basename(path)}.", suffix=".utfkit-tmp", dir=directory)
        except OSError as error:
            raise OutputError(f"{name}: cannot write in {directory}: {_describe(error)}") from None
        super().__init__(name, descriptor)

    @staticmethod
    def _unnamed(directory: str) -> Optional[int]:
        """An O_TMPFILE descriptor in `directory`, or None where the OS or
        the file system has none."""
        flag = getattr(os, "O_TMPFILE", None)
        if flag is None:
            return None
        try:
            return os.open(directory, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as error:
            if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                return None  # no O_TMPFILE here: fall back to a named file
            raise

    def commit(self) -> None:
        descriptor = self._fd()
        try:
            os.fchmod(descriptor, self._mode)
            os.fsync(descriptor)
            if self._temporary is None:  # give the unnamed file a name, then OUT's
                self._temporary = self._link_unnamed(descriptor)
            os.replace(self._temporary, self._path)
            self._temporary = None
        except OSError as error:
            self.discard()
            raise OutputError(f"{self.name}: {_describe(error)}") from None
        self._close()

    def _link_unnamed(self, descriptor: int) -> str:
        # linkat(AT_SYMLINK_FOLLOW) on /proc/self/fd/N, as open(2) describes
        # for O_TMPFILE; os.link uses linkat only when given a dir_fd (else
        # link(2), which does not follow the /proc link).
        directory = os.open(self._directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            for _ in range(100):
                candidate = f".{os.path.basename(self._path)}.{os.urandom(4).hex()}.utfkit-tmp"
                try:
                    os.link(f"/proc/self/fd/{descriptor}", candidate, src_dir_fd=directory,
                            dst_dir_fd=directory, follow_symlinks=True)
                    return os.path.join(self._directory, candidate)
                except FileExistsError:
                    continue
        finally:
            os.close(directory)
        raise FileExistsError(errno.EEXIST, "no free temporary name")

    def discard(self) -> None:
        super().discard()
        if self._temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._temporary)
            self._temporary = None


def open_output(path: Optional[str]) -> Output:
    """The destination for OUT (`path`, or standard output for None)."""
    if path is None:
        return _StandardOutput()
    try:
        status: Optional[os.stat_result] = os.stat(path)  # through a symlink
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise OutputError(f"{path}: {_describe(error)}") from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise OutputError(f"{path}: is a directory")
    if status is not None and not stat.S_ISREG(status.st_mode):
        try:  # a device, FIFO or socket: written through, never replaced
            descriptor = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError as error:
            raise OutputError(f"{path}: {_describe(error)}") from None
        return Output(path, descriptor)
    # a regular file, a new one, or a symlink's target (made where the link points)
    return _Replacement(path, os.path.realpath(path))
