"""swath's values equal pyarrow.csv's and Polars' readings of the same
generated files: nulls, quoted newlines, Unicode, timestamps, dates."""

import datetime as dt

import polars as pl
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import swath
from conftest import generated_rows, write_csv


def pyarrow_reading(path, **parse):
    return pacsv.read_csv(
        path,
        parse_options=pacsv.ParseOptions(newlines_in_values=True, **parse),
        convert_options=pacsv.ConvertOptions(
            null_values=[""], strings_can_be_null=True,
            true_values=["true"], false_values=["false"],
            timestamp_parsers=["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%SZ"],
        ),
    )


def test_types_are_inferred_as_expected(mixed_csv):
    t = swath.read_csv(mixed_csv)
    assert t.schema == pa.schema([
        ("id", pa.int64()), ("n", pa.int64()), ("x", pa.float64()), ("text", pa.string()),
        ("flag", pa.bool_()), ("ts", pa.timestamp("us")), ("tsz", pa.timestamp("us", "UTC")),
        ("day", pa.date32()),
    ])
    assert t.num_rows == 3000


def test_values_equal_pyarrow_csv(mixed_csv):
    ours = swath.read_csv(mixed_csv)
    theirs = pyarrow_reading(mixed_csv)
    assert theirs.num_rows == ours.num_rows
    for name in ours.column_names:
        a = ours[name]
        b = theirs[name]
        if pa.types.is_timestamp(a.type):
            # pyarrow infers seconds (and tz-naive for "Z"): same instants.
            b = b.cast(pa.timestamp("us")).cast(a.type) if a.type.tz else b.cast(a.type)
        elif a.type == pa.date32() and b.type != a.type:
            b = b.cast(a.type)
        assert a.to_pylist() == b.to_pylist(), name


def test_values_equal_polars(mixed_csv):
    ours = swath.read_csv(mixed_csv)
    theirs = pl.read_csv(mixed_csv, try_parse_dates=True)
    assert theirs.height == ours.num_rows
    for name in ours.column_names:
        got = ours[name].to_pylist()
        want = theirs[name].to_list()
        if name == "tsz":
            got = [v.replace(tzinfo=None) if v else v for v in got]
            want = [v.replace(tzinfo=None) if isinstance(v, dt.datetime) else v for v in want]
        assert got == want, name


def test_scan_batches_equal_read_csv_at_any_thread_count(mixed_csv):
    whole = swath.read_csv(mixed_csv, threads=1)
    for threads in (1, 2, 3):
        r = swath.scan_csv(mixed_csv, threads=threads, batch_size=100)
        batches = list(r)
        assert len(batches) >= 30
        assert pa.Table.from_batches(batches).equals(whole)


def test_string_views_hold_the_same_text(mixed_csv):
    plain = swath.read_csv(mixed_csv)
    for threads in (1, 2):
        views = swath.read_csv(mixed_csv, string_view=True, threads=threads, batch_size=100)
        assert views.schema.field("text").type == pa.string_view()
        assert views.cast(plain.schema).equals(plain)
        # Polars takes Arrow's string views as they are.
        assert pl.from_arrow(views)["text"].to_list() == plain["text"].to_pylist()
    scanned = pa.Table.from_batches(list(swath.scan_csv(mixed_csv, string_view=True)))
    assert scanned.schema.field("text").type == pa.string_view()
    assert scanned.cast(plain.schema).equals(plain)


def test_columns_and_schema_options(mixed_csv):
    t = swath.read_csv(mixed_csv, columns=["text", "id"])
    assert t.column_names == ["text", "id"]
    assert t.equals(swath.read_csv(mixed_csv, columns=[3, 0]))
    t = swath.read_csv(mixed_csv, schema={"id": "utf8"}, columns=["id"])
    assert t["id"].to_pylist()[:3] == ["0", "1", "2"]
    t = swath.read_csv(mixed_csv, schema="n:float64")
    assert t.schema.field("n").type == pa.float64()
    full = swath.read_csv(mixed_csv)
    given = swath.read_csv(mixed_csv, schema=full.schema)
    assert given.equals(full)


def test_dialect_options_as_the_cli_names_them(tmp_path):
    header, rows = generated_rows(200)
    p = write_csv(tmp_path / "t.tsv", header, rows, delimiter="\t")
    tab = swath.read_csv(p, delimiter="tab")
    assert tab.num_rows == 200
    assert tab.equals(swath.read_csv(p, delimiter="\t"))
    q = tmp_path / "q.csv"
    q.write_text("# comment\n1;'a;b'\n2;'c'\n")
    t = swath.read_csv(q, delimiter=";", quote="'", comment="#", no_headers=True)
    assert t.num_rows == 2 and t.column(1).to_pylist() == ["a;b", "c"]
    assert swath.csv_count(q, delimiter=";", quote="'", comment="#", no_headers=True) == 2
    with pytest.raises(TypeError, match="unexpected keyword argument .delim."):
        swath.read_csv(q, delim=";")
    with pytest.raises(ValueError, match="one ASCII character"):
        swath.csv_count(q, delimiter="ab")


def test_counts(mixed_csv, tmp_path):
    assert swath.csv_count(mixed_csv) == 3000
    assert swath.csv_count(mixed_csv, no_headers=True) == 3001
    with open(mixed_csv, "rb") as f:
        assert swath.count_lines(mixed_csv) == f.read().count(b"\n")
    p = tmp_path / "nolf.txt"
    p.write_bytes(b"a\nb")
    assert swath.count_lines(p) == 2
    check = swath.csv_check(mixed_csv)
    assert check.ok and check.records == 3000 and check.errors == []


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        swath.read_csv(tmp_path / "nope.csv")
    with pytest.raises(FileNotFoundError):
        swath.count_lines(tmp_path / "nope.csv")


def test_parquet_round_trip(mixed_csv, tmp_path):
    import pyarrow.parquet as pq

    dst = tmp_path / "out.parquet"
    assert swath.csv_to_parquet(mixed_csv, dst) == 3000
    assert pq.read_table(dst).equals(swath.read_csv(mixed_csv))
    assert [p.name for p in tmp_path.iterdir()] == ["out.parquet"]


def test_schema_files_as_the_cli_writes_them(mixed_csv, tmp_path):
    """`schema=` takes the path of a schema file, the one form both formats
    share; the old CSV form still reads, with a DeprecationWarning."""
    import json
    from pathlib import Path

    new = tmp_path / "s.json"
    new.write_text(json.dumps({"fields": [{"name": "id", "type": "utf8"}]}))
    t = swath.read_csv(mixed_csv, schema=Path(new))
    assert t.schema.field("id").type == pa.string()
    assert t.equals(swath.read_csv(mixed_csv, schema=str(new)))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"columns": [{"name": "id", "type": "utf8"}]}))
    with pytest.warns(DeprecationWarning, match="old form"):
        assert swath.read_csv(mixed_csv, schema=old).equals(t)
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps(
        {"fields": [{"name": "id", "type": "list", "item": {"type": "int64"}}]}))
    with pytest.raises(ValueError, match="CSV columns are flat"):
        swath.read_csv(mixed_csv, schema=nested)
