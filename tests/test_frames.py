"""utfkit.frames: text columns of pandas frames, and of Dask DataFrames on
a real distributed.LocalCluster with worker processes (the README recipe,
"Columns and clusters"): each value validated and repaired as bytes.decode
(strict, errors="replace") says, nulls kept, other columns untouched."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas", reason="utfkit.frames needs pandas (pip install 'utfkit[dask]')")
pa = pytest.importorskip("pyarrow", reason="utfkit.frames needs pyarrow (pip install 'utfkit[arrow]')")
import pyarrow.parquet as pq  # noqa: E402

import utfkit.frames  # noqa: E402

VALUES = [b"ok", b"\xff bad", None, "\u00e9".encode(), b"\xe2\x82", b""]


def replaced(value):
    return None if value is None else value.decode("utf-8", "replace")


def strict_ok(value):
    if value is None:
        return None
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def string_column(values):
    """A pyarrow string column holding ill-formed values, as a Parquet file
    written by another program gives one (Parquet's reader does not check)."""
    binary = pa.array(values, pa.binary())
    return pa.Array.from_buffers(pa.string(), len(binary), binary.buffers(), binary.null_count)


def test_object_bytes_and_arrow_string_columns():
    frame = pd.DataFrame({
        "id": range(len(VALUES)),
        "raw": pd.Series(VALUES, dtype=object),
        "text": pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array([string_column(VALUES).cast(pa.large_string())]))),
    })
    flags = utfkit.frames.validate_frame(frame, ["raw", "text"])
    assert [None if v is pd.NA else v for v in flags["raw"]] == [strict_ok(v) for v in VALUES]
    assert [None if v is pd.NA else v for v in flags["text"]] == [strict_ok(v) for v in VALUES]
    fixed = utfkit.frames.sanitize_frame(frame, ["raw", "text"])
    for name in ("raw", "text"):
        assert fixed[name].dtype == pd.StringDtype("pyarrow")
        assert [None if v is pd.NA else v for v in fixed[name]] == [replaced(v) for v in VALUES]
    assert fixed["id"].tolist() == list(range(len(VALUES)))
    assert frame["raw"].tolist() == VALUES  # the input frame is left as it was


def test_wrong_columns():
    frame = pd.DataFrame({"n": [1, 2]})
    with pytest.raises(KeyError, match="nope"):
        utfkit.frames.sanitize_frame(frame, ["nope"])
    with pytest.raises(TypeError, match="text column"):
        utfkit.frames.sanitize_frame(frame, ["n"])
    with pytest.raises(TypeError, match="list of column names"):
        utfkit.frames.sanitize_frame(frame, "n")


@pytest.fixture(scope="module")
def cluster():
    """A real LocalCluster: 2 worker processes of 1 thread."""
    distributed = pytest.importorskip("distributed", reason="the Dask recipe needs dask[distributed]")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
    ) as local, distributed.Client(local) as client:
        yield client


@pytest.fixture
def kernel():
    """The cluster's worker processes use their own default kernel: run once."""
    return None


def test_dask_recipe_validates_and_repairs_a_parquet_column_on_worker_processes(cluster, tmp_path):
    dd = pytest.importorskip("dask.dataframe", reason="the Dask recipe needs dask[dataframe]")
    source, target = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    for part in range(4):
        values = [None if v is None else v + str(part).encode() for v in VALUES] * 50
        pq.write_table(pa.table({"id": range(len(values)), "text": string_column(values)}),
                       source / f"part{part}.parquet")
    expected = pd.concat([pq.read_table(source / f"part{part}.parquet").column("text").cast(pa.large_binary())
                          .to_pandas() for part in range(4)]).tolist()

    frame = dd.read_parquet(str(source))
    flags = utfkit.frames.validate_columns(frame, ["text"]).compute()
    assert [None if v is pd.NA else v for v in flags["text"]] == [strict_ok(v) for v in expected]
    utfkit.frames.sanitize_columns(frame, ["text"]).to_parquet(str(target))
    repaired = pq.read_table(str(target)).column("text").to_pylist()
    assert repaired == [replaced(v) for v in expected]
    workers = cluster.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2  # two processes did the work


def test_dask_convert_string_workaround_for_bytes_columns(cluster):
    """Dask's default dataframe.convert-string turns object columns into
    strings and raises UnicodeDecodeError on a bytes column with bad UTF-8;
    turned off, the bytes reach utfkit.frames as they are."""
    dask = pytest.importorskip("dask", reason="the Dask recipe needs dask[dataframe]")
    dd = pytest.importorskip("dask.dataframe", reason="the Dask recipe needs dask[dataframe]")
    frame = pd.DataFrame({"raw": pd.Series(VALUES * 4, dtype=object)})
    with dask.config.set({"dataframe.convert-string": False}):
        distributed_frame = dd.from_pandas(frame, npartitions=2)
        fixed = utfkit.frames.sanitize_columns(distributed_frame, ["raw"]).compute()
    assert [None if v is pd.NA else v for v in fixed["raw"]] == [replaced(v) for v in VALUES * 4]
