"""Parquet files: the ill-formed text values of a file, by column and row,
and a repaired copy of it (``utfkit check`` and ``utfkit fix`` on a Parquet
file; needs the optional extra ``utfkit[arrow]``).

A file is read one row group at a time, so memory holds one row group, and
each text column is handed to utfkit.arrow (one C call per column chunk).
The columns looked at are the ``string`` and ``large_string`` ones, plus
any ``binary`` ones named explicitly (a binary column may hold anything).
Parquet's reader does not check that string values are UTF-8, so an
ill-formed value written by another program reaches utfkit as it is.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterator, List, NamedTuple, Optional, Sequence

from . import arrow
from ._binding import reason
from ._oneshot import first_error

try:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
except ImportError as error:  # pragma: no cover - exercised only without pyarrow
    raise ImportError("Parquet files need pyarrow: pip install 'utfkit[arrow]'") from error

__all__ = ["BadValue", "bad_values", "repair", "text_columns"]


class BadValue(NamedTuple):
    """One ill-formed value: its column and row (from 0, across row groups),
    and its first ill-formed subsequence as ``utfkit check`` reports one."""

    column: str
    row: int
    offset: int  # within the value, in bytes
    reason: str
    subpart: bytes

    def text(self, file: str) -> str:
        shown = " ".join(f"{byte:02X}" for byte in self.subpart)
        return f"{file}: column {self.column!r}, row {self.row}: offset {self.offset}: {self.reason} (bytes {shown})"


def text_columns(schema: "pa.Schema", named: Sequence[str] = ()) -> List[str]:
    """The top-level columns to check: every string column, and the named
    ones (which must be string or binary columns)."""
    found = [field.name for field in schema if pa.types.is_string(field.type) or pa.types.is_large_string(field.type)]
    for name in named:
        index = schema.get_field_index(name)
        if index < 0:
            raise ValueError(f"no column {name!r} in the file (columns: {', '.join(schema.names)})")
        kind = schema.field(index).type
        if not (pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
                or pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            raise ValueError(f"column {name!r} is {kind}, not a string or binary column")
        if name not in found:
            found.append(name)
    return found


def bad_values(path: str, columns: Sequence[str] = ()) -> Iterator[BadValue]:
    """Every ill-formed UTF-8 value of the file's text columns, row group by
    row group, in row order within each column of a row group."""
    with pq.ParquetFile(path) as file:
        names = text_columns(file.schema_arrow, columns)
        first_row = 0
        for group in range(file.num_row_groups):
            table = file.read_row_group(group, columns=names)
            for name in names:
                column = table.column(name)
                flags = arrow.validate(column)
                bad = pc.indices_nonzero(pc.invert(pc.fill_null(flags, True))).to_pylist()
                if bad:
                    values = column.cast(pa.large_binary())  # the bytes, whatever they hold
                    for row in bad:
                        yield _bad_value(name, first_row + row, values[row].as_py())
            first_row += table.num_rows


def _bad_value(column: str, row: int, value: bytes) -> BadValue:
    result = first_error(value, "utf-8")
    start, length = int(result.position), int(result.subpart_length)
    return BadValue(column, row, start, reason(result.status), value[start : start + length])


def repair(path: str, sink: BinaryIO, columns: Sequence[str] = ()) -> int:
    """Write to `sink` a copy of the Parquet file at `path` with every
    ill-formed value of its text columns repaired as ``utfkit.sanitize``
    repairs it: the same schema (metadata included), the same row groups,
    each column's compression as in the file, every other column as read.
    Returns the number of values repaired."""
    repaired = 0
    with pq.ParquetFile(path) as file:
        schema = file.schema_arrow
        names = set(text_columns(schema, columns))
        writer = pq.ParquetWriter(sink, schema, compression=_compression(file))
        try:
            for group in range(file.num_row_groups):
                table = file.read_row_group(group)
                for name in names:
                    index = table.schema.get_field_index(name)
                    column = table.column(index)
                    flags = arrow.validate(column)
                    bad = len(column) - column.null_count - pc.sum(flags).as_py() if len(column) else 0
                    if bad:
                        repaired += bad
                        fixed = arrow.sanitize(column)
                        table = table.set_column(index, schema.field(index), fixed.cast(schema.field(index).type))
                writer.write_table(table, row_group_size=max(table.num_rows, 1))
        finally:
            writer.close()
    return repaired


def _compression(file: Any) -> Optional[Any]:
    """Each column's compression codec as the file's first row group has it."""
    if file.num_row_groups == 0:
        return None
    group = file.metadata.row_group(0)
    codecs = {}
    for index in range(group.num_columns):
        chunk = group.column(index)
        codec = str(chunk.compression).lower()
        codecs[chunk.path_in_schema] = "none" if codec == "uncompressed" else codec
    return codecs


