"""Broken records kept aside (``on_bad=``, ``max_bad=``, ``errors_json=``,
``on_error="quarantine"``), as the CLI's ``--on-bad``: the table holds
Python's csv module's reading of the export without them, the quarantine
their bytes in file order, its sidecar where the generator put them; the
same at one thread and two; a ``UserWarning`` says how many."""

import csv
import io
import json
import warnings

import pyarrow.parquet as pq
import pytest

import swath

BROKEN = ["7,short\n", "1,2,3,4\n", '8,a"b,x\n']


def export(every=29, rows=600):
    """The clean text, the text with broken records put in, and each broken
    record's (record, line, byte, bytes)."""
    clean = io.StringIO(newline="")
    w = csv.writer(clean, lineterminator="\n")
    w.writerow(["id", "name", "note"])
    dirty = clean.getvalue()
    placed = []
    record = 1
    for i in range(rows):
        note = [f"a, b {i}", f"two\nlines {i}", f'say "{i}"', "plain"][i % 4]
        one = io.StringIO(newline="")
        csv.writer(one, lineterminator="\n").writerow([i, ["ann", "Zoë"][i % 2], note])
        w.writerow([i, ["ann", "Zoë"][i % 2], note])
        dirty += one.getvalue()
        record += 1
        if i % every == every - 1:
            bad = BROKEN[(i // every) % len(BROKEN)]
            record += 1
            line = dirty.count("\n") + 1
            placed.append((record, line, len(dirty.encode()), bad))
            dirty += bad
    return clean.getvalue(), dirty, placed


def python_rows(text):
    rows = list(csv.reader(io.StringIO(text, newline="")))
    return rows[1:]


@pytest.mark.parametrize("threads", [1, 2])
def test_read_csv_puts_broken_records_aside(tmp_path, threads):
    clean, dirty, placed = export()
    src = tmp_path / "dirty.csv"
    src.write_bytes(dirty.encode())
    q = tmp_path / "bad.csv"
    with pytest.warns(UserWarning, match=f"{len(placed)} records of"):
        t = swath.read_csv(src, threads=threads, schema="id:utf8", on_bad=f"quarantine={q}")
    got = [[str(v) for v in row.values()] for row in t.to_pylist()]
    assert got == python_rows(clean)
    assert q.read_bytes() == "".join(p[3] for p in placed).encode()
    sidecar = list(csv.reader(open(f"{q}.errors.csv", newline="")))
    assert sidecar[0] == ["record", "line", "byte", "reason"]
    assert [tuple(map(int, r[:3])) for r in sidecar[1:]] == [p[:3] for p in placed]


def test_skip_max_bad_and_json_sidecar(tmp_path):
    clean, dirty, placed = export()
    src = tmp_path / "dirty.csv"
    src.write_bytes(dirty.encode())
    with pytest.warns(UserWarning, match="skip"):
        t = swath.read_csv(src, on_bad="skip")
    assert t.num_rows == len(python_rows(clean))
    # Past the limit: an error, and no quarantine left.
    q = tmp_path / "bad.csv"
    with pytest.raises(ValueError, match="more than 3 records"):
        swath.read_csv(src, on_bad=f"quarantine={q}", max_bad=3)
    with pytest.raises(ValueError, match="more than 1%"):
        swath.read_csv(src, on_bad=f"quarantine={q}", max_bad="1%")
    assert list(tmp_path.iterdir()) == [src]
    with pytest.warns(UserWarning):
        swath.read_csv(src, on_bad=f"quarantine={q}", max_bad="5%", errors_json=True)
    docs = [json.loads(l) for l in open(f"{q}.errors.jsonl")]
    assert [(d["record"], d["line"], d["byte"]) for d in docs] == [p[:3] for p in placed]
    # Without on_bad: the error it always was.
    with pytest.raises(swath.CsvError) as e:
        swath.read_csv(src)
    assert e.value.record == placed[0][0]
    with pytest.raises(ValueError, match="on_bad"):
        swath.read_csv(src, max_bad=3)
    with pytest.raises(ValueError, match="on_bad"):
        swath.scan_csv(src, on_bad="skip")


def test_csv_to_parquet_and_fields_that_do_not_fit(tmp_path):
    text = "id,amount\n" + "".join(
        f"{i},n/a\n" if i % 17 == 5 else f"{i},1,2\n" if i % 17 == 9 else f"{i},{i}.5\n"
        for i in range(400)
    )
    src = tmp_path / "a.csv"
    src.write_text(text)
    q = tmp_path / "bad.csv"
    dst = tmp_path / "a.parquet"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        rows = swath.csv_to_parquet(
            src, dst, schema="amount:float64", on_error="quarantine", on_bad=f"quarantine={q}"
        )
    assert any("put aside" in str(w.message) for w in seen)
    want = [l for l in text.splitlines(keepends=True)[1:] if "n/a" in l or l.count(",") == 2]
    assert q.read_text() == "".join(want)
    assert rows == 400 - len(want) == pq.read_table(dst).num_rows
    with pytest.raises(ValueError, match="on_bad"):
        swath.csv_to_parquet(src, dst, schema="amount:float64", on_error="quarantine")


def json_export(every=23, rows=500):
    """JSON lines with broken ones put in (cut short, not an object, a
    value that does not fit the int column, a comma too many): the clean
    text, the dirty text, each broken line's (record, line, byte, text)."""
    broken = ['{"id":1,"name":"cut\n', "[1,2]\n", '{"id":"seven","name":"x"}\n', '{"id":2,}\n']
    clean, dirty, placed = "", "", []
    record = 0
    for i in range(rows):
        line = json.dumps({"id": i, "name": ["ann", "Zoë", 'q"t'][i % 3], "tags": [i, i + 1]}) + "\n"
        clean += line
        dirty += line
        record += 1
        if i % every == every - 1:
            bad = broken[(i // every) % len(broken)]
            record += 1
            placed.append((record, dirty.count("\n") + 1, len(dirty.encode()), bad))
            dirty += bad
    return clean, dirty, placed


@pytest.mark.parametrize("threads", [1, 2])
def test_read_json_puts_broken_records_aside(tmp_path, threads):
    clean, dirty, placed = json_export()
    src = tmp_path / "dirty.jsonl"
    src.write_bytes(dirty.encode())
    q = tmp_path / "bad.jsonl"
    with pytest.warns(UserWarning, match=f"{len(placed)} records of"):
        t = swath.read_json(
            src, threads=threads, schema="id:int64", on_bad=f"quarantine={q}", errors_json=True
        )
    assert t.to_pylist() == [json.loads(line) for line in clean.splitlines()]
    assert q.read_bytes() == "".join(p[3] for p in placed).encode()
    why = [json.loads(line) for line in (tmp_path / "bad.jsonl.errors.jsonl").read_text().splitlines()]
    assert [(w["record"], w["line"], w["byte"]) for w in why] == [p[:3] for p in placed]
    assert any("int64" in w["reason"] for w in why), why
    # skip: the same table, no files. Past max_bad: a ValueError, and no files left.
    with pytest.warns(UserWarning, match="skipped"):
        assert swath.read_json(src, threads=threads, schema="id:int64", on_bad="skip") == t
    q2 = tmp_path / "none.jsonl"
    with pytest.raises(ValueError, match="more than 3 records put aside"):
        swath.read_json(src, threads=threads, schema="id:int64", on_bad=f"quarantine={q2}", max_bad=3)
    assert not list(tmp_path.glob("none.jsonl*"))
    with pytest.raises(swath.JsonError) as e:
        swath.read_json(src, threads=threads, schema="id:int64")
    assert e.value.record == placed[0][0]
