"""A broken file raises CsvError at the record, line and byte that
`swath csv check` prints."""

import re
import subprocess

import pytest

import swath
from conftest import swath_cli

BROKEN = {
    "bare_quote.csv": 'id,name\n1,ok\n2,"multi\nline"\n3,bad"quote\n4,fine\n',
    "field_count.csv": "a,b,c\n1,2,3\n4,5\n6,7,8\n",
    "unterminated.csv": 'a,b\n1,2\n3,"never closed\n4,5\n',
    "after_quote.csv": 'a,b\n1,"x"y\n',
}

POSITION = re.compile(r"record (\d+) \(line (\d+), byte (\d+)\)")


def cli_check(path):
    p = subprocess.run([swath_cli(), "csv", "check", str(path)], capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr
    return [line for line in p.stdout.splitlines() if POSITION.search(line)]


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_check_lists_the_problems_the_cli_prints(tmp_path, name):
    path = tmp_path / name
    path.write_text(BROKEN[name])
    cli = cli_check(path)
    assert cli, "the CLI found no problem"
    res = swath.csv_check(path)
    assert not res.ok and res.problems == len(cli)
    assert [str(e) for e in res.errors] == cli
    for e, line in zip(res.errors, cli):
        record, line_no, byte = map(int, POSITION.search(line).groups())
        assert (e.record, e.line, e.byte) == (record, line_no, byte)
        assert e.path == str(path)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_reading_raises_at_the_first_problem_the_cli_prints(tmp_path, name):
    path = tmp_path / name
    path.write_text(BROKEN[name])
    first = cli_check(path)[0]
    record, line, byte = map(int, POSITION.search(first).groups())
    for threads in (1, 2):
        with pytest.raises(swath.CsvError) as e:
            swath.read_csv(path, threads=threads, schema="a:utf8" if "a," in BROKEN[name] else None)
        assert (e.value.record, e.value.line, e.value.byte) == (record, line, byte), str(e.value)
        with pytest.raises(swath.CsvError) as e:
            swath.csv_count(path, threads=threads)
        assert (e.value.record, e.value.line, e.value.byte) == (record, line, byte)
        with pytest.raises(swath.CsvError) as e:
            for _ in swath.scan_csv(path, threads=threads):
                pass
        assert (e.value.record, e.value.line, e.value.byte) == (record, line, byte)


def test_a_value_that_does_not_fit_its_type_names_its_column(tmp_path):
    path = tmp_path / "types.csv"
    path.write_text("id,n\n1,10\n2,x20\n")
    with pytest.raises(swath.CsvError) as e:
        swath.read_csv(path, schema={"n": "int64"})
    assert (e.value.record, e.value.line, e.value.byte, e.value.column) == (3, 3, 12, 1)
    assert "cannot parse \"x20\"" in str(e.value)
    t = swath.read_csv(path, schema={"n": "int64"}, on_error="null")
    assert t["n"].to_pylist() == [10, None]


def test_a_record_over_max_record_size_is_an_error(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("a\n" + "x" * 2000 + "\n")
    with pytest.raises(swath.CsvError, match="longer than the limit of 1024 bytes"):
        swath.csv_count(path, max_record_size="1K")
    assert swath.csv_count(path, max_record_size=4096) == 1


def test_a_failed_conversion_leaves_no_parquet_file(tmp_path):
    src = tmp_path / "bad.csv"
    src.write_text(BROKEN["bare_quote.csv"])
    dst = tmp_path / "out.parquet"
    with pytest.raises(swath.CsvError):
        swath.csv_to_parquet(src, dst)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]
