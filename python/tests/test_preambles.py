"""Exports with title lines before the header and a footer after the data:
with ``skip_rows``, ``header_row``, ``skip_until`` and ``skip_last``,
swath's values equal Python's csv module reading the lines between, at one
thread and two; Excel's ``sep=;`` first line names nothing to Python but
is skipped by swath."""

import csv
import io

import pyarrow as pa
import pytest

import swath

PREAMBLE = 'Sales report, all regions\nSource: system "X\n\nGenerated 2023-10-31\n'
FOOTER = "Totals,,1234.5\n(500 rows)\n\n"


def records(delimiter=","):
    out = io.StringIO(newline="")
    w = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    w.writerow(["id", "name", "note"])
    for i in range(500):
        note = [f"a{delimiter} b", f"two\r\nlines {i}", f'say "{i}"', "plain"][i % 4]
        w.writerow([i, ["ann", "Zoë"][i % 2], note])
    return out.getvalue()


def python_rows(text, delimiter=","):
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    return rows[0], rows[1:]


WAYS = [
    {"skip_rows": 4, "skip_last": 2},
    {"header_row": 5, "skip_last": 2},
    {"skip_until": "^id,name,", "skip_last": 2},
]


@pytest.mark.parametrize("way", WAYS, ids=["skip_rows", "header_row", "skip_until"])
def test_the_records_between_equal_pythons_csv(tmp_path, way):
    path = tmp_path / "report.csv"
    path.write_text(PREAMBLE + records() + FOOTER, encoding="utf-8", newline="")
    header, rows = python_rows(records())
    schema = pa.schema([(h, pa.string()) for h in header])
    for threads in (1, 2):
        table = swath.read_csv(path, schema=schema, threads=threads, **way)
        assert table.column_names == header
        assert [list(r.values()) for r in table.to_pylist()] == rows
        assert swath.csv_count(path, threads=threads, **way) == len(rows)


def test_an_excel_sep_line_is_skipped(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("sep=;\r\n" + records(";"), encoding="utf-8", newline="")
    header, rows = python_rows(records(";"), ";")
    table = swath.read_csv(path, delimiter=";", schema=pa.schema([(h, pa.string()) for h in header]))
    assert [list(r.values()) for r in table.to_pylist()] == rows
    # Another delimiter: refused, naming the line.
    with pytest.raises(Exception, match="sep=;"):
        swath.csv_count(path)


def test_a_line_that_is_never_found_and_options_that_disagree(tmp_path):
    path = tmp_path / "report.csv"
    path.write_text(PREAMBLE + records(), encoding="utf-8", newline="")
    with pytest.raises(Exception, match="no line matches"):
        swath.csv_count(path, skip_until="^nothing")
    with pytest.raises(ValueError, match="cannot be used together"):
        swath.csv_count(path, skip_rows=1, header_row=2)
    with pytest.raises(ValueError, match="header_row"):
        swath.csv_count(path, header_row=0)
