"""`utfkit convert` and `utfkit fix`: output equal to one-shot transcode and
sanitize at every chunk boundary, atomic OUT, exit codes and reports as
`utfkit check`'s."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

import utfkit
from utfkit import cli

ENCODINGS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]
TEXT = "héllo\nwörld 中文 😀 x\n"


def run(argv, capsys):
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def leftovers(directory):
    return sorted(name for name in os.listdir(directory) if name.endswith(".utfkit-tmp"))


@pytest.mark.parametrize("from_", ENCODINGS)
def test_convert_equals_one_shot_transcode_at_every_chunk_size(from_, tmp_path, capsys):
    source = tmp_path / "in"
    dirty = TEXT.encode(from_)[:-3] + TEXT.encode(from_)  # an unfinished character mid-file
    for data in (TEXT.encode(from_), dirty):
        source.write_bytes(data)
        for chunk_size in range(1, len(data) + 2):
            # every chunk size, each with one destination and errors mode in rotation
            to = ENCODINGS[chunk_size % len(ENCODINGS)]
            errors = ("replace", "ignore")[chunk_size % 2]
            target = tmp_path / "out"
            status, out, err = run(["convert", "-f", from_, "-t", to, "--errors", errors,
                                    "--chunk-size", str(chunk_size), str(source), str(target)], capsys)
            assert (status, out, err) == (cli.EXIT_VALID, "", "")
            assert target.read_bytes() == utfkit.transcode(data, from_, to, errors), (to, errors, chunk_size)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("from_", ["wtf-8", "mutf-8"])
def test_convert_to_wtf8_joins_a_lead_and_a_trail_that_ignore_made_adjacent_at_every_chunk_size(
        from_, tmp_path, capsys):
    # WTF-8 section 6.1: the lead and the trail become one 4-byte sequence,
    # however the reads cut the file (the C stream holds the lead back).
    data = b"a\xed\xa0\x80\xff\xff\xed\xb0\x80b\xed\xa0\xbd\xc0\xed\xba\x80\xed\xa0\x80"
    assert utfkit.transcode(data, from_, "wtf-8", "ignore") == b"a\xf0\x90\x80\x80b\xf0\x9f\x9a\x80\xed\xa0\x80"
    source = tmp_path / "in"
    source.write_bytes(data)
    for chunk_size in range(1, len(data) + 2):
        status, _, _ = run(["convert", "-f", from_, "-t", "wtf-8", "--errors", "ignore", "--chunk-size",
                            str(chunk_size), str(source), str(tmp_path / "out")], capsys)
        assert status == cli.EXIT_VALID
        assert (tmp_path / "out").read_bytes() == utfkit.transcode(data, from_, "wtf-8", "ignore"), chunk_size


def test_fix_equals_sanitize_at_every_chunk_size(tmp_path, capsys):
    data = b"ok \xe2\x82 \xf0\x9f\x98\x80 \xed\xa0\x80 \xc0\xaf end \xf4\x90"
    source = tmp_path / "in"
    source.write_bytes(data)
    for chunk_size in range(1, len(data) + 2):
        status, _, _ = run(["fix", "--chunk-size", str(chunk_size), str(source), str(tmp_path / "fixed")], capsys)
        assert status == cli.EXIT_VALID
        assert (tmp_path / "fixed").read_bytes() == utfkit.sanitize(data)


def test_convert_invalid_input_exits_1_reports_as_check_and_leaves_out_alone(tmp_path, capsys):
    source = tmp_path / "bad.txt"
    data = "héllo\nwörld".encode() + b"\xe0\x80y\n" + b"more " * 1000
    source.write_bytes(data)
    target = tmp_path / "out.txt"
    target.write_bytes(b"previous contents")
    check_status, check_out, _ = run(["check", str(source)], capsys)
    assert check_status == cli.EXIT_INVALID
    for chunk_size in (1, 2, 7, 64, 1 << 20):
        status, out, err = run(["convert", "-f", "utf-8", "-t", "utf-16-le", "--chunk-size", str(chunk_size),
                                str(source), str(target)], capsys)
        assert status == cli.EXIT_INVALID
        assert out == ""
        assert err == check_out  # FILE:LINE:COLUMN: offset N: REASON (bytes ..)
        assert target.read_bytes() == b"previous contents"
    assert leftovers(tmp_path) == []
    missing = tmp_path / "never-made"
    assert run(["convert", "-f", "utf-8", "-t", "utf-8", str(source), str(missing)], capsys)[0] == cli.EXIT_INVALID
    assert not missing.exists()


def test_convert_reads_stdin_and_writes_stdout(monkeypatch, capsysbinary):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode("utf-16-be"))))
    status = cli.main(["convert", "-f", "UTF-16BE", "-t", "utf_8", "--chunk-size", "3"])
    captured = capsysbinary.readouterr()
    assert status == cli.EXIT_VALID
    assert captured.out == TEXT.encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"ab\xe2\x82\xac\xff")))
    status = cli.main(["convert", "-f", "utf-8", "-t", "utf-32-le", "-", "-"])
    captured = capsysbinary.readouterr()
    assert status == cli.EXIT_INVALID
    assert captured.err == b"<stdin>:1:4: offset 5: invalid start byte (bytes FF)\n"


def test_convert_from_a_pipe_reports_offset_reason_and_bytes(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "utfkit", "convert", "-f", "utf-8", "-t", "utf-16-le"],
        input=b"abc\xf0\x9f\x98A", capture_output=True,
    )
    assert completed.returncode == cli.EXIT_INVALID
    assert completed.stderr == b"<stdin>: offset 3: invalid continuation byte (bytes F0 9F 98)\n"
    completed = subprocess.run(
        [sys.executable, "-m", "utfkit", "fix"], input=b"a\xffb", capture_output=True,
    )
    assert (completed.returncode, completed.stdout) == (0, "a\ufffdb".encode())


@pytest.mark.parametrize(
    "argv, message",
    [
        (["convert", "-f", "utf-8", "-t", "koi8-r"], "does not handle the encoding"),
        (["convert", "-f", "nope", "-t", "utf-8"], "unknown encoding"),
        (["convert", "-f", "utf-8", "-t", "utf-8", "{missing}"], "No such file"),
        (["convert", "-f", "utf-8", "-t", "utf-8", "{input}", "{nodir}/out"], "cannot write"),
        (["convert", "-f", "utf-8", "-t", "utf-8", "{input}", "{input}"], "also the input"),
        (["fix", "{missing}", "{out}"], "No such file"),
    ],
)
def test_convert_usage_and_io_errors_exit_2(argv, message, tmp_path, capsys):
    (tmp_path / "input").write_bytes(b"fine")
    names = {"missing": tmp_path / "missing", "input": tmp_path / "input", "nodir": tmp_path / "no" / "dir",
             "out": tmp_path / "out"}
    status, out, err = run([part.format(**names) for part in argv], capsys)
    assert status == cli.EXIT_ERROR
    assert message in err
    assert (tmp_path / "input").read_bytes() == b"fine"
    assert not (tmp_path / "out").exists()
    assert leftovers(tmp_path) == []


def test_convert_keeps_the_permissions_of_an_existing_out(tmp_path, capsys):
    (tmp_path / "in").write_bytes(b"text")
    target = tmp_path / "out"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    assert run(["convert", "-f", "utf-8", "-t", "utf-16-le", str(tmp_path / "in"), str(target)], capsys)[0] == 0
    assert target.read_bytes() == "text".encode("utf-16-le")
    assert os.stat(target).st_mode & 0o777 == 0o640
