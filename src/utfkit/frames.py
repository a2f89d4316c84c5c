"""pandas and Dask frames: validate and repair text columns partition by
partition (the optional extras ``utfkit[arrow]`` and ``utfkit[dask]``).

A column reaches utfkit.arrow without a copy when pandas already keeps it
in Arrow memory (``string[pyarrow]``, ``pd.ArrowDtype``); an ``object``
column of ``bytes`` (how pandas holds a Parquet ``binary`` column) is
gathered into one Arrow buffer first.  Repaired columns come back as
pandas' Arrow-backed ``string`` dtype, so nothing is decoded into Python
``str`` objects.

With Dask, each function runs on each partition, in whatever worker process
holds it::

    fixed = utfkit.frames.sanitize_columns(ddf, ["text"])   # lazy, like any Dask operation
"""

from __future__ import annotations

from typing import Any, Sequence

from . import arrow

try:
    import pandas as pd
    import pyarrow as pa
except ImportError as error:  # pragma: no cover - exercised only without pandas
    raise ImportError("utfkit.frames needs pandas and pyarrow: pip install 'utfkit[dask]'") from error

__all__ = ["sanitize_columns", "sanitize_frame", "validate_columns", "validate_frame"]

STRING = pd.StringDtype("pyarrow")


def _as_arrow(series: "pd.Series") -> Any:
    """The column's values as an Arrow array: Arrow's own memory when pandas
    keeps them there, else (object columns of bytes or str) one copy."""
    if not isinstance(series, pd.Series):
        raise TypeError(f"expected a pandas Series, not {type(series).__name__!r}")
    values = series.array
    if hasattr(values, "__arrow_array__"):
        data = pa.array(values)
        if isinstance(data, (pa.Array, pa.ChunkedArray)) and (
            pa.types.is_string(data.type) or pa.types.is_large_string(data.type)
            or pa.types.is_binary(data.type) or pa.types.is_large_binary(data.type)
        ):
            return data
    try:
        return pa.array(series.to_numpy(dtype=object), type=pa.large_binary(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise TypeError(
            f"column {series.name!r} must hold bytes, str or None (a text column), not {series.dtype}: {error}"
        ) from None


def _text_columns(frame: "pd.DataFrame", columns: Sequence[str]) -> Sequence[str]:
    if isinstance(columns, str):
        raise TypeError("columns must be a list of column names, not a str")
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise KeyError(f"no column(s) {missing} in the frame (columns: {list(frame.columns)})")
    return columns


def validate_frame(frame: "pd.DataFrame", columns: Sequence[str], encoding: str = "utf-8") -> "pd.DataFrame":
    """A frame with one ``boolean`` column per named column: True where the
    value is well-formed in `encoding`, <NA> where it is null; same index."""
    result = {}
    for name in _text_columns(frame, columns):
        flags = arrow.validate(_as_arrow(frame[name]), encoding)
        result[name] = pd.Series(flags.to_pandas(types_mapper={pa.bool_(): pd.BooleanDtype()}.get),
                                 index=frame.index, dtype="boolean")
    return pd.DataFrame(result, index=frame.index)


def sanitize_frame(frame: "pd.DataFrame", columns: Sequence[str]) -> "pd.DataFrame":
    """`frame` with each named column's UTF-8 values repaired as
    ``utfkit.sanitize`` repairs them, as Arrow-backed ``string`` columns;
    the other columns untouched."""
    repaired = frame.copy(deep=False)
    for name in _text_columns(frame, columns):
        fixed = arrow.sanitize(_as_arrow(frame[name]))
        chunked = fixed if isinstance(fixed, pa.ChunkedArray) else pa.chunked_array([fixed])
        if not pa.types.is_large_string(chunked.type):
            chunked = chunked.cast(pa.large_string())
        repaired[name] = pd.Series(pd.arrays.ArrowStringArray(chunked), index=frame.index, name=name)
    return repaired


def validate_columns(frame: Any, columns: Sequence[str], encoding: str = "utf-8") -> Any:
    """validate_frame on every partition of a Dask DataFrame (lazy)."""
    meta = pd.DataFrame({name: pd.Series([], dtype="boolean") for name in columns})
    return frame.map_partitions(validate_frame, list(columns), encoding, meta=meta)


def sanitize_columns(frame: Any, columns: Sequence[str]) -> Any:
    """sanitize_frame on every partition of a Dask DataFrame (lazy)."""
    repaired = set(columns)
    meta = pd.DataFrame({
        name: pd.Series([], dtype=STRING if name in repaired else dtype)
        for name, dtype in frame.dtypes.items()
    })
    return frame.map_partitions(sanitize_frame, list(columns), meta=meta)
