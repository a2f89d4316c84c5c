"""`utfkit check` on a Parquet file reports each ill-formed value's column
and row (DESIGN.md section 3); `utfkit fix` writes a repaired copy with the
same schema and every other column untouched."""

from __future__ import annotations

import pytest

pa = pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (pip install 'utfkit[arrow]')")
import pyarrow.parquet as pq  # noqa: E402

from utfkit import cli  # noqa: E402

TEXT = [b"ok", b"\xff bad", None, "\u00e9".encode(), b"a\xe2\x82", b"fine"]


def string_column(values, kind=pa.string()):
    """Strings as another program may write them: Parquet's reader does not check UTF-8."""
    binary = pa.array(values, pa.large_binary() if kind == pa.large_string() else pa.binary())
    return pa.Array.from_buffers(kind, len(binary), binary.buffers(), binary.null_count)


@pytest.fixture
def kernel():
    return None


@pytest.fixture
def damaged(tmp_path):
    path = tmp_path / "damaged.parquet"
    table = pa.table({
        "id": pa.array(range(len(TEXT)), pa.int64()),
        "text": string_column(TEXT),
        "large": string_column(list(reversed(TEXT)), pa.large_string()),
        "payload": pa.array(TEXT, pa.binary()),
    }, metadata={b"origin": b"test"})
    pq.write_table(table, path, row_group_size=4, compression="zstd")  # rows 4.. in a second row group
    return path


def test_check_reports_each_bad_value_by_column_and_row(damaged, capsys):
    assert cli.main(["check", str(damaged)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{damaged}: column 'text', row 1: offset 0: invalid start byte (bytes FF)",
        f"{damaged}: column 'large', row 1: offset 1: unexpected end of data (bytes E2 82)",
        f"{damaged}: column 'text', row 4: offset 1: unexpected end of data (bytes E2 82)",
        f"{damaged}: column 'large', row 4: offset 0: invalid start byte (bytes FF)",
    ]  # row group by row group; within one, column by column


def test_check_includes_binary_columns_only_when_named(damaged, capsys):
    assert cli.main(["check", "-q", "-c", "payload", str(damaged)]) == 1
    assert capsys.readouterr().out == ""
    assert cli.main(["check", "-c", "payload", str(damaged)]) == 1
    assert sum("column 'payload'" in line for line in capsys.readouterr().out.splitlines()) == 2
    assert cli.main(["check", "-c", "missing", str(damaged)]) == 2
    assert "no column 'missing'" in capsys.readouterr().err


def test_fix_repairs_text_and_keeps_everything_else(damaged, tmp_path, capsys):
    fixed = tmp_path / "fixed.parquet"
    assert cli.main(["fix", str(damaged), str(fixed)]) == 0
    assert "4 value(s) repaired" in capsys.readouterr().err
    before, after = pq.read_table(damaged), pq.read_table(fixed)
    assert after.schema == before.schema and after.schema.metadata == before.schema.metadata
    assert after.column("text").to_pylist() == [None if v is None else v.decode("utf-8", "replace") for v in TEXT]
    assert after.column("id").equals(before.column("id"))
    assert after.column("payload").equals(before.column("payload"))  # not named: untouched
    metadata = pq.ParquetFile(fixed).metadata
    assert metadata.num_row_groups == 2 and metadata.row_group(0).column(1).compression == "ZSTD"
    assert cli.main(["check", str(fixed)]) == 0


def test_fix_of_a_parquet_file_needs_an_output_file(damaged, capsys):
    assert cli.main(["fix", str(damaged)]) == 2
    assert "needs an OUT file" in capsys.readouterr().err
