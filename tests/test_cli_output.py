"""`utfkit convert` and `utfkit fix` never lose or misplace data: a device,
FIFO or other non-regular OUT is written through; a symlinked OUT has its
target replaced; a full disk or any write error exits 2 naming OUT and
leaves OUT as it was with no temporary file; SIGTERM and SIGHUP clean up as
SIGINT does; SIGKILL leaves nothing where O_TMPFILE exists."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from utfkit import _output, cli

TEXT = "héllo wörld 中文 😀\n" * 100
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="mknod and mount need root")


def run(argv, capsys):
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def leftovers(directory):
    return sorted(name for name in os.listdir(directory) if "utfkit-tmp" in name)


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(TEXT.encode())
    return path


@needs_root
def test_a_device_out_is_written_through_not_replaced(tmp_path, source, capsys):
    device = tmp_path / "mynull"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null
    status, _, err = run(["convert", "-f", "utf-8", "-t", "utf-16-le", str(source), str(device)], capsys)
    assert (status, err) == (cli.EXIT_VALID, "")
    assert stat.S_ISCHR(os.stat(device).st_mode)
    assert leftovers(tmp_path) == []


def test_a_fifo_out_receives_the_conversion(tmp_path, source, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    status, _, err = run(["convert", "-f", "utf-8", "-t", "utf-16-le", str(source), str(fifo)], capsys)
    reader.join(10)
    assert (status, err) == (cli.EXIT_VALID, "")
    assert received == [TEXT.encode("utf-16-le")]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_symlinked_out_keeps_the_link_and_replaces_its_target(tmp_path, source, capsys):
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "real.txt"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    status, _, _ = run(["fix", str(source), str(link)], capsys)
    assert status == cli.EXIT_VALID
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == TEXT.encode()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert leftovers(tmp_path) == [] and leftovers(target.parent) == []


def test_a_dangling_symlink_out_creates_its_target(tmp_path, source, capsys):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "made.txt")
    assert run(["fix", str(source), str(link)], capsys)[0] == cli.EXIT_VALID
    assert link.is_symlink() and (tmp_path / "made.txt").read_bytes() == TEXT.encode()


@pytest.fixture
def small_disk(tmp_path):
    if not IS_ROOT:
        pytest.skip("mounting a small tmpfs needs root")
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)], check=True)
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


@pytest.mark.parametrize("with_unnamed_files", [True, False])
def test_a_full_disk_exits_2_naming_out_and_leaves_out_as_it_was(
        small_disk, tmp_path, capsys, monkeypatch, with_unnamed_files):
    if not with_unnamed_files:
        monkeypatch.setattr(_output._Replacement, "_unnamed", staticmethod(lambda directory: None))
    big = tmp_path / "big.txt"
    big.write_bytes(("é" * (1 << 20)).encode())  # 2 MiB of UTF-8, 2 MiB of UTF-16
    out = small_disk / "out.txt"
    out.write_bytes(b"previous")
    status, stdout, err = run(["convert", "-f", "utf-8", "-t", "utf-16-le", str(big), str(out)], capsys)
    assert status == cli.EXIT_ERROR
    assert err == f"utfkit convert: {out}: No space left on device\n"
    assert out.read_bytes() == b"previous"
    assert sorted(os.listdir(small_disk)) == ["out.txt"]


def test_a_write_error_on_standard_output_names_standard_output(source):
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "utfkit", "convert", "-f", "utf-8", "-t", "utf-16-le",
                               str(source)], stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == cli.EXIT_ERROR
    assert done.stderr.decode() == "utfkit convert: <stdout>: No space left on device\n"


# Python catches SIGINT (KeyboardInterrupt) only where it starts with SIGINT
# not ignored; a shell's background job (`cmd &` without job control) starts
# with it ignored, and so does the CLI run from it.
_SIGINT_IGNORED = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
_SIGINT_IF_CAUGHT = () if _SIGINT_IGNORED else (signal.SIGINT,)


def _converting_from_a_fifo(tmp_path):
    """A conversion blocked reading a FIFO, after its first bytes: (process, OUT, writer)."""
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "out.txt"
    out.write_bytes(b"previous")
    process = subprocess.Popen([sys.executable, "-m", "utfkit", "convert", "-f", "utf-8", "-t", "utf-16-le",
                                "--chunk-size", "4", str(fifo), str(out)], stderr=subprocess.PIPE)
    writer = open(fifo, "wb")  # noqa: SIM115 - kept open so that the reader blocks
    writer.write(TEXT.encode())
    writer.flush()
    _wait_until_it_catches(process.pid, (signal.SIGTERM, signal.SIGHUP) + _SIGINT_IF_CAUGHT)
    time.sleep(0.2)  # it has converted what was written, and waits for more
    return process, out, writer


def _wait_until_it_catches(pid, signals, seconds=60.0):
    """Wait until the process has its handlers for `signals` in place
    (Linux: the SigCgt mask of /proc/PID/status), however slowly a loaded
    machine starts it; a fixed sleep is not enough there."""
    wanted = 0
    for signum in signals:
        wanted |= 1 << (signum - 1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                caught = next(int(line.split()[1], 16) for line in status if line.startswith("SigCgt:"))
        except (OSError, StopIteration):
            caught = 0
        if caught & wanted == wanted:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} did not install its signal handlers within {seconds} s")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_sigterm_and_sighup_clean_up_as_sigint_does(tmp_path, signum):
    if signum == signal.SIGINT and _SIGINT_IGNORED:
        pytest.skip("SIGINT is ignored in this process (a background job), so the CLI ignores it too")
    process, out, writer = _converting_from_a_fifo(tmp_path)
    try:
        process.send_signal(signum)
        process.wait(30)
    finally:
        writer.close()
    assert process.returncode == 128 + signum
    assert out.read_bytes() == b"previous"
    assert leftovers(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="no O_TMPFILE: SIGKILL leaves the temporary file")
def test_sigkill_leaves_nothing_behind_where_o_tmpfile_exists(tmp_path):
    process, out, writer = _converting_from_a_fifo(tmp_path)
    try:
        process.kill()
        process.wait(30)
    finally:
        writer.close()
    assert out.read_bytes() == b"previous"
    assert sorted(os.listdir(tmp_path)) == ["in.fifo", "out.txt"]


def test_without_o_tmpfile_a_failed_conversion_removes_its_named_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_output._Replacement, "_unnamed", staticmethod(lambda directory: None))
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok" * 1000 + b"\xff")
    out = tmp_path / "out.txt"
    assert run(["convert", "-f", "utf-8", "-t", "utf-8", "--chunk-size", "16", str(bad), str(out)],
               capsys)[0] == cli.EXIT_INVALID
    assert not out.exists() and leftovers(tmp_path) == []
    assert run(["fix", str(bad), str(out)], capsys)[0] == cli.EXIT_VALID
    assert out.exists() and leftovers(tmp_path) == []
