"""The `utfkit` command: check's report format, exit codes, chunked reading, info."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from utfkit import cli


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def expected_report(name: str, data: bytes) -> str:
    """The report line derived independently from CPython's decoder."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8")
        line = prefix.count("\n") + 1
        column = len(prefix) - (prefix.rfind("\n") + 1) + 1
        subpart = " ".join(f"{byte:02X}" for byte in data[error.start : error.end])
        return f"{name}:{line}:{column}: offset {error.start}: {error.reason} (bytes {subpart})"
    raise AssertionError("data is valid")


def test_check_reports_first_error_with_line_column_offset(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    data = "héllo\nwörld 中文 x".encode() + b"\xe0\x80y\n\xff"
    path.write_bytes(data)
    status, out, _ = run(["check", str(path)], capsys)
    assert status == cli.EXIT_INVALID
    assert out.strip() == expected_report(str(path), data)
    assert out.strip().endswith("offset 22: invalid continuation byte (bytes E0)")


def test_check_valid_file_prints_nothing_and_exits_0(tmp_path, capsys):
    path = tmp_path / "good.txt"
    path.write_bytes("¡Hola! 你好 👋\n".encode() * 100)
    status, out, err = run(["check", str(path)], capsys)
    assert (status, out, err) == (cli.EXIT_VALID, "", "")


def test_check_empty_file_is_valid(tmp_path, capsys):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    assert run(["check", str(path)], capsys)[0] == cli.EXIT_VALID


def test_check_missing_file_exits_2_and_still_checks_the_others(tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.write_bytes(b"ok\x80")
    status, out, err = run(["check", str(tmp_path / "missing"), str(bad)], capsys)
    assert status == cli.EXIT_ERROR
    assert "missing" in err
    assert f"{bad}:1:3: offset 2: invalid start byte (bytes 80)" in out


def test_check_truncated_character_at_end_of_file(tmp_path, capsys):
    path = tmp_path / "truncated"
    data = b"abc\xf0\x9f\x98"
    path.write_bytes(data)
    status, out, _ = run(["check", str(path)], capsys)
    assert status == cli.EXIT_INVALID
    assert out.strip() == f"{path}:1:4: offset 3: unexpected end of data (bytes F0 9F 98)"


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 5, 7, 16, 64])
def test_check_is_exact_across_chunk_boundaries(tmp_path, capsys, monkeypatch, chunk_size):
    """Reading in chunks of any size gives the report one whole read gives."""
    monkeypatch.setattr(cli, "CHUNK_SIZE", chunk_size)
    cases = [
        "aé中😀\nline two 中文\n".encode() * 3 + b"\xed\xa0\x80",
        "x😀😀".encode() + b"\xf0\x9f\x98" + b"A",
        "ab\n中".encode() + b"\xe4\xb8",
        "中文".encode() * 5 + b"\xc3",
        b"\xf4\x90\x80\x80",
    ]
    for index, data in enumerate(cases):
        path = tmp_path / f"case{index}"
        path.write_bytes(data)
        status, out, _ = run(["check", str(path)], capsys)
        assert status == cli.EXIT_INVALID
        assert out.strip() == expected_report(str(path), data)
    valid = tmp_path / "valid"
    valid.write_bytes("aé中😀\n".encode() * 50)
    assert run(["check", str(valid)], capsys)[0] == cli.EXIT_VALID


def test_check_json_lists_every_file(tmp_path, capsys):
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.write_bytes(b"fine\n")
    bad.write_bytes(b"\n\nab\xc0\xaf")
    status, out, _ = run(["check", "--json", str(good), str(bad)], capsys)
    assert status == cli.EXIT_INVALID
    assert json.loads(out) == [
        {"file": str(good), "valid": True, "offset": None, "line": None,
         "column": None, "reason": None, "bytes": None},
        {"file": str(bad), "valid": False, "offset": 4, "line": 3, "column": 3,
         "reason": "invalid start byte", "bytes": "C0"},
    ]


def test_check_quiet_prints_nothing(tmp_path, capsys):
    path = tmp_path / "bad"
    path.write_bytes(b"\xff")
    assert run(["check", "-q", str(path)], capsys) == (cli.EXIT_INVALID, "", "")


def test_check_unknown_encoding_exits_2(tmp_path, capsys):
    path = tmp_path / "f"
    path.write_bytes(b"x")
    status, _, err = run(["check", "-e", "no-such-encoding", str(path)], capsys)
    assert status == cli.EXIT_ERROR
    assert "no-such-encoding" in err


def test_check_accepts_utf8_aliases(tmp_path, capsys):
    path = tmp_path / "f"
    path.write_bytes(b"x")
    assert run(["check", "-e", "UTF8", str(path)], capsys)[0] == cli.EXIT_VALID


def test_check_reads_stdin_when_no_file_is_given():
    data = "ok\n".encode() * 1000 + b"\x80"
    completed = subprocess.run(
        [sys.executable, "-m", "utfkit", "check"], input=data, capture_output=True
    )
    assert completed.returncode == cli.EXIT_INVALID
    assert completed.stdout.decode().strip() == expected_report("<stdin>", data)


def test_usage_error_exits_2():
    completed = subprocess.run(
        [sys.executable, "-m", "utfkit", "no-such-command"], capture_output=True
    )
    assert completed.returncode == 2


def test_info_names_the_backend_and_features(capsys):
    import utfkit

    status, out, _ = run(["info", "--json"], capsys)
    assert status == 0
    facts = json.loads(out)
    assert facts["backend"] == utfkit.backend()
    assert facts["utfkit"] == utfkit.__version__
    assert "scalar" in facts["available backends"]


def test_check_memory_stays_bounded_for_a_large_file(tmp_path):
    """A 64 MiB file is checked with far less than 64 MiB of extra memory."""
    path = tmp_path / "large"
    block = "añ中😀 text\n".encode() * 4096
    with open(path, "wb") as stream:
        for _ in range((64 << 20) // len(block)):
            stream.write(block)
        stream.write(b"\xff")
    script = (
        "import resource, sys\n"
        "from utfkit import cli\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        f"status = cli.main(['check', '-q', {str(path)!r}])\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(status, after - before)\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    status, grown_kib = map(int, completed.stdout.split())
    assert status == cli.EXIT_INVALID
    assert grown_kib < 16 * 1024, f"peak RSS grew by {grown_kib} KiB"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("chunk_size", [1, 3, 4, 7, 1 << 20])
def test_check_utf16_utf32_reports_cpythons_error(tmp_path, capsys, monkeypatch, encoding, chunk_size):
    monkeypatch.setattr(cli, "CHUNK_SIZE", chunk_size)
    text = "añ中😀\nzweite Zeile 中文\n"
    lone = {"utf-16-le": b"\x00\xdc", "utf-16-be": b"\xdc\x00",
            "utf-32-le": b"\x00\x00\x11\x00", "utf-32-be": b"\x00\x11\x00\x00"}[encoding]
    for data in [text.encode(encoding) + lone + b"x" * 4, text.encode(encoding) + b"\x41"]:
        path = tmp_path / "f"
        path.write_bytes(data)
        status, out, _ = run(["check", "-e", encoding, str(path)], capsys)
        assert status == cli.EXIT_INVALID
        try:
            data.decode(encoding)
        except UnicodeDecodeError as error:
            prefix = data[: error.start].decode(encoding)
            line = prefix.count("\n") + 1
            column = len(prefix) - (prefix.rfind("\n") + 1) + 1
            subpart = " ".join(f"{byte:02X}" for byte in data[error.start : error.end])
            assert out.strip() == (
                f"{path}:{line}:{column}: offset {error.start}: {error.reason} (bytes {subpart})"
            )
    valid = tmp_path / "valid"
    valid.write_bytes(text.encode(encoding) * 20)
    assert run(["check", "-e", encoding, str(valid)], capsys)[0] == cli.EXIT_VALID
