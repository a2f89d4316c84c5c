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


HIDDEN = {
    "surrogate": "an encoded surrogate (UTF-8 excludes U+D800..U+DFFF)",
    "too large": "a value above U+10FFFF",
    "overlong": "an overlong form (a longer sequence than the value needs)",
}


def hidden_case(data: bytes) -> str | None:
    """What the bytes at an error would encode if the lead byte's bit
    pattern were read regardless of Table 3-7 (Unicode 3.9 Table 3-6): the
    value's range, from its lowest and highest completions."""
    lead = data[0]
    length = 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if 0xF0 <= lead < 0xF8 else 0
    if not length:
        return None
    known = [byte for byte in data[1:length] if 0x80 <= byte <= 0xBF]
    known = known[: next((i for i, b in enumerate(data[1:length]) if not 0x80 <= b <= 0xBF), len(known))]

    def value(fill: int) -> int:
        rest = known + [fill] * (length - 1 - len(known))
        bits = lead & (0x7F >> length)
        for byte in rest:
            bits = bits << 6 | (byte & 0x3F)
        return bits

    low, high = value(0x80), value(0xBF)
    shortest = {2: 0x80, 3: 0x800, 4: 0x10000}[length]
    if high < shortest:
        return HIDDEN["overlong"]
    if 0xD800 <= low and high <= 0xDFFF:
        return HIDDEN["surrogate"]
    if low > 0x10FFFF:
        return HIDDEN["too large"]
    return None


def expected_report(name: str, data: bytes) -> str:
    """The report line derived independently from CPython's decoder (and
    the case its reason does not name)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8")
        line = prefix.count("\n") + 1
        column = len(prefix) - (prefix.rfind("\n") + 1) + 1
        subpart = " ".join(f"{byte:02X}" for byte in data[error.start : error.end])
        hidden = hidden_case(data[error.start :])
        why = f"{error.reason}: {hidden}" if hidden else error.reason
        return f"{name}:{line}:{column}: offset {error.start}: {why} (bytes {subpart})"
    raise AssertionError("data is valid")


def test_check_reports_first_error_with_line_column_offset(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    data = "héllo\nwörld 中文 x".encode() + b"\xe0\x80y\n\xff"
    path.write_bytes(data)
    status, out, _ = run(["check", str(path)], capsys)
    assert status == cli.EXIT_INVALID
    assert out.strip() == expected_report(str(path), data)
    assert out.strip().endswith("offset 22: invalid continuation byte: an overlong form "
                                "(a longer sequence than the value needs) (bytes E0)")


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
         "reason": f"invalid start byte: {HIDDEN['overlong']}", "bytes": "C0"},
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


# ---- check --all, -l, and the cases CPython's reason hides ---------------------------
def every_report(name: str, data: bytes, encoding: str = "utf-8") -> list[str]:
    """One line per error a recording handler sees, lines and columns
    counted in the decoded text (each error one character)."""
    lines, seen = [], []

    def record(error):
        seen.append((error.start, error.end, error.reason))  # CPython reuses the exception object
        return ("\ufffd", error.end)

    import codecs
    codecs.register_error("test-cli-record", record)
    data.decode(encoding, "test-cli-record")
    for start, end, reason in seen:
        prefix = data[:start].decode(encoding, "replace")
        line = prefix.count("\n") + 1
        column = len(prefix) - (prefix.rfind("\n") + 1) + 1
        subpart = " ".join(f"{byte:02X}" for byte in data[start:end])
        hidden = hidden_case(data[start:]) if encoding == "utf-8" else None
        why = f"{reason}: {hidden}" if hidden else reason
        lines.append(f"{name}:{line}:{column}: offset {start}: {why} (bytes {subpart})")
    return lines


ALL_ERRORS = ("ok\n".encode() + b"\xed\xa0\x80 \xf4\x90\x80\x80\n" + "wörld".encode() + b"\xc0\xaf x\xe2\x82"
              + "\n中".encode() + b"\xff\xfe end\xf0\x9f")


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 1 << 20])
def test_check_all_lists_every_error_as_cpythons_handler_sees_it(tmp_path, capsys, monkeypatch, chunk_size):
    monkeypatch.setattr(cli, "CHUNK_SIZE", chunk_size)
    path = tmp_path / "many"
    path.write_bytes(ALL_ERRORS)
    status, out, _ = run(["check", "--all", str(path)], capsys)
    assert status == cli.EXIT_INVALID
    assert out.splitlines() == every_report(str(path), ALL_ERRORS)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-32-be"])
def test_check_all_in_utf16_and_utf32(tmp_path, capsys, encoding):
    data = "añ\n中😀".encode(encoding) + b"\x00\xdc\x00\x00" + "x\ny".encode(encoding) + b"\x00\xd8\x41"
    path = tmp_path / "f"
    path.write_bytes(data)
    status, out, _ = run(["check", "--all", "-e", encoding, str(path)], capsys)
    assert status == cli.EXIT_INVALID
    assert out.splitlines() == every_report(str(path), data, encoding)


def test_check_all_from_a_pipe_counts_lines_as_it_reads(tmp_path):
    completed = subprocess.run([sys.executable, "-m", "utfkit", "check", "--all"], input=ALL_ERRORS,
                               capture_output=True)
    assert completed.returncode == cli.EXIT_INVALID
    assert completed.stdout.decode().splitlines() == every_report("<stdin>", ALL_ERRORS)


def test_check_l_prints_only_the_names_of_invalid_files(tmp_path, capsys):
    good, bad, worse = tmp_path / "good", tmp_path / "bad", tmp_path / "worse"
    good.write_bytes("fine".encode())
    bad.write_bytes(b"\xff")
    worse.write_bytes(b"\xff\xfe\xfd")
    status, out, _ = run(["check", "-l", str(good), str(bad), str(worse)], capsys)
    assert status == cli.EXIT_INVALID
    assert out.splitlines() == [str(bad), str(worse)]


@pytest.mark.parametrize("data, hidden", [
    (b"a\xed\xa0\x80", "surrogate"), (b"a\xed\xbf\xbf", "surrogate"),
    (b"a\xf4\x90\x80\x80", "too large"), (b"a\xf5\x80", "too large"),
    (b"a\xc0\x80", "overlong"), (b"a\xc1\xbf", "overlong"), (b"a\xe0\x9f\xbf", "overlong"),
    (b"a\xf0\x8f\xbf\xbf", "overlong"),
])
def test_check_names_the_case_cpythons_reason_hides(tmp_path, capsys, data, hidden):
    path = tmp_path / "f"
    path.write_bytes(data)
    _, out, _ = run(["check", str(path)], capsys)
    assert HIDDEN[hidden] in out
    assert out.strip() == expected_report(str(path), data)


@pytest.mark.parametrize("encoding", ["wtf-8", "cesu-8", "mutf-8"])
def test_check_and_convert_take_the_utf8_relatives(tmp_path, capsys, encoding):
    text = "a😀\u0000b"
    data = utfkit_transcode(text.encode("utf-8"), "utf-8", encoding)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert run(["check", "-e", encoding, str(path)], capsys)[0] == cli.EXIT_VALID
    target = tmp_path / "out"
    status, _, err = run(["convert", "-f", encoding, "-t", "utf-16-le", "--chunk-size", "1", str(path),
                          str(target)], capsys)
    assert (status, err) == (cli.EXIT_VALID, "")
    assert target.read_bytes() == text.encode("utf-16-le")


def utfkit_transcode(data, from_, to):
    import utfkit
    return utfkit.transcode(data, from_, to)
