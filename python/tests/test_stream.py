"""The reader streams (peak RSS stays flat over a ~200 MB file: it grows
no more than for a small one) and
pyarrow, Polars and DuckDB take its batches without a copy."""

import duckdb
import polars as pl
import pyarrow as pa

import swath
from conftest import MEMORY_HELPERS, run_python


def small_numbers(tmp_path, n=100_000):
    p = tmp_path / "n.csv"
    p.write_text("id,v\n" + "".join(f"{i},{i * 0.5}\n" for i in range(n)))
    return p


def test_pyarrow_takes_the_batches_without_a_copy(tmp_path):
    p = small_numbers(tmp_path)
    r = swath.scan_csv(p, batch_size=30_000)
    before = pa.total_allocated_bytes()
    t = pa.RecordBatchReader.from_stream(r).read_all()
    # A copy would come from pyarrow's pool: 800 KB per column here.
    assert pa.total_allocated_bytes() - before < 64 * 1024
    seen = [c.buffers()[-1].address for name in t.column_names for c in t[name].chunks]
    assert sorted(seen) == sorted(r._exported_addresses())
    assert t["id"].to_pylist() == list(range(100_000))


def test_read_csv_hands_its_own_buffers_to_pyarrow(tmp_path):
    p = small_numbers(tmp_path)
    r = swath._read_csv(p)
    before = pa.total_allocated_bytes()
    t = pa.table(r)
    assert pa.total_allocated_bytes() - before < 64 * 1024
    assert {c.buffers()[-1].address for c in t["v"].chunks} <= set(r._exported_addresses())


def test_polars_takes_the_batches_without_a_copy(tmp_path):
    p = small_numbers(tmp_path)
    r = swath.scan_csv(p, batch_size=30_000)
    df = pl.DataFrame(r)
    exported = r._exported_addresses()
    assert df["id"].n_chunks() == 4
    ids = [c.to_arrow().buffers()[1].address for c in df["id"].get_chunks()]
    vs = [c.to_arrow().buffers()[1].address for c in df["v"].get_chunks()]
    assert ids == exported[0::2] and vs == exported[1::2]
    assert df["id"].to_list() == list(range(100_000))
    # pl.from_arrow of a C stream gives a struct Series (Polars' choice).
    s = pl.from_arrow(swath.scan_csv(p), rechunk=False)
    assert s.struct.unnest().equals(df)


def test_duckdb_scans_the_reader(tmp_path):
    p = small_numbers(tmp_path)
    r = swath.scan_csv(p, batch_size=30_000)
    got = duckdb.sql("select sum(id), count(*), max(v) from r").fetchall()[0]
    assert got == (sum(range(100_000)), 100_000, 99_999 * 0.5)


def test_a_reader_is_consumed_once(tmp_path):
    r = swath.scan_csv(small_numbers(tmp_path, 10))
    pa.table(r)
    try:
        pa.table(r)
    except ValueError as e:
        assert "consumed" in str(e)
    else:
        raise AssertionError("a second export should fail")


STREAM_PEAK = MEMORY_HELPERS + '''
import sys, swath, pyarrow, polars, duckdb
path, how = sys.argv[1], sys.argv[2]
size = __import__("os").path.getsize(path)
reset_peak()
base = status("VmRSS")
rows = 0
if how == "iterate":
    for b in swath.scan_csv(path, threads=2):
        rows += b.num_rows
elif how == "pyarrow":
    for b in pyarrow.RecordBatchReader.from_stream(swath.scan_csv(path, threads=2)):
        rows += b.num_rows
elif how == "duckdb":
    duckdb.sql("set enable_progress_bar = false")
    r = swath.scan_csv(path, threads=2)
    rows = duckdb.sql("select count(*) from r").fetchall()[0][0]
elif how == "polars":
    rows = polars.DataFrame(swath.scan_csv(path, columns=["id"], threads=2)).height
print(rows, status("VmHWM") - base, size)
'''


def stream_peak(path, how):
    code = STREAM_PEAK.replace("sys.argv[1], sys.argv[2]", f"{str(path)!r}, {how!r}")
    # The last line: DuckDB may print a progress bar before it.
    rows, growth, size = map(int, run_python(code).strip().splitlines()[-1].split())
    return rows, growth, size


def test_iterating_a_large_file_keeps_memory_flat(big_csv):
    path, rows, small, small_rows = big_csv
    for how in ("iterate", "pyarrow", "duckdb"):
        got, growth, size = stream_peak(path, how)
        assert got == rows, how
        # What reading a small file costs (DuckDB alone sets up ~45 MiB).
        got, fixed, _ = stream_peak(small, how)
        assert got == small_rows, how
        # Decoded whole, the file would add about its size; streamed, the
        # batches in flight are there for the small file already.
        assert growth - fixed < size / 8, (
            f"{how}: peak grew {growth >> 20} MiB for a {size >> 20} MiB file, "
            f"{fixed >> 20} MiB for a small one"
        )


def test_polars_holds_one_copy_of_a_column(big_csv):
    path, rows, small, small_rows = big_csv
    got, growth, size = stream_peak(path, "polars")
    assert got == rows
    got, fixed, _ = stream_peak(small, "polars")
    assert got == small_rows
    column = rows * 8
    # Polars keeps the id column's buffers as swath filled them: one
    # column's worth (~50 MiB here), not two (a copy, or a rechunk).
    assert growth - fixed < column * 1.5, (
        f"peak grew {growth >> 20} MiB ({fixed >> 20} MiB for a small file), "
        f"column {column >> 20} MiB"
    )
