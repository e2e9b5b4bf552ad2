"""swath.read_json / scan_json against pyarrow.json and Polars on the same
generated JSON lines: nested objects, arrays, escapes, surrogate pairs,
extreme numbers, nulls, missing and reordered keys; errors with their place."""

import gzip
import json
import random

import polars as pl
import pyarrow as pa
import pyarrow.json as paj
import pytest

import swath

STRINGS = ["plain", "", 'quote " inside', "back\\slash", "tab\tnl\n", "café", "emoji 😀",
           "日本語", "\u0000nul", "comma, colon: {brace}"]
FLOATS = [0.5, -0.0, 1e308, 5e-324, 2.2250738585072014e-308, 123.456, -1.5e-7, 0.1, 100.0]


def generated(n, seed=3):
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        row = {
            "id": i,
            "name": rng.choice(STRINGS),
            "score": rng.choice(FLOATS),
            "big": rng.choice([0, -1, 2**63 - 1, -(2**63), 42]),
            "ok": rng.choice([True, False]),
            "ts": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:"
                  f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z",
            "obj": {"a": rng.randint(0, 999), "b": [rng.choice(STRINGS) for _ in range(rng.randint(0, 3))],
                    "c": None if rng.random() < 0.2 else {"d": rng.choice(FLOATS)}},
            "arr": [None if rng.random() < 0.1 else rng.randint(0, 99) for _ in range(rng.randint(0, 4))],
        }
        for k in list(row):
            if k != "id" and rng.random() < 0.08:
                del row[k]  # missing
            elif k != "id" and rng.random() < 0.08:
                row[k] = None
        items = list(row.items())
        if rng.random() < 0.3:
            rng.shuffle(items)
        # ensure_ascii on some lines: \\u escapes and surrogate pairs.
        lines.append(json.dumps(dict(items), ensure_ascii=rng.random() < 0.5))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory):
    p = tmp_path_factory.mktemp("json") / "g.jsonl"
    p.write_text(generated(20_000), encoding="utf-8")
    return p


def normalized(table):
    return table.to_pylist()


def test_types_are_inferred_as_expected(jsonl):
    t = swath.read_json(jsonl, infer="full")
    s = t.schema
    assert s.field("id").type == pa.int64()
    assert s.field("score").type == pa.float64()
    assert s.field("big").type == pa.int64()
    assert s.field("ok").type == pa.bool_()
    assert s.field("ts").type == pa.timestamp("us", "UTC")
    assert pa.types.is_struct(s.field("obj").type)
    assert s.field("arr").type == pa.list_(pa.int64())
    assert t.num_rows == 20_000


def test_values_equal_pyarrow_json_and_polars(jsonl):
    ours = swath.read_json(jsonl, infer="full")
    theirs = paj.read_json(jsonl, parse_options=paj.ParseOptions(explicit_schema=ours.schema))
    assert normalized(ours) == normalized(theirs)
    # Polars, given swath's types, reads the same values.
    pol = pl.read_ndjson(jsonl, schema=pl.from_arrow(ours.slice(0, 0)).schema)
    assert pl.from_arrow(ours).equals(pol)


def test_streams_equal_the_whole_read_for_every_thread_count_and_gzip(jsonl, tmp_path):
    whole = swath.read_json(jsonl, infer="full")
    for threads in (1, 2, 5):
        r = swath.scan_json(jsonl, schema=whole.schema, threads=threads, batch_size=777)
        assert pa.RecordBatchReader.from_stream(r).read_all().equals(whole)
    gz = tmp_path / "g.jsonl.gz"
    gz.write_bytes(gzip.compress(jsonl.read_bytes()))
    got = pa.table(swath.scan_json(gz, schema=whole.schema))
    assert got.equals(whole)


def test_a_given_type_overrides_inference(jsonl):
    t = swath.read_json(jsonl, schema={"id": "float64", "ts": "utf8"})
    assert t.schema.field("id").type == pa.float64()
    assert t.schema.field("ts").type == pa.string()
    stamps = [v for v in t.column("ts").to_pylist() if v is not None]
    assert len(stamps) > 15_000 and all(v.endswith("Z") for v in stamps)


def test_a_broken_line_raises_json_error_with_its_place(tmp_path):
    text = generated(5000)
    lines = text.splitlines(keepends=True)
    lines.insert(4000, '{"id": 1, "name": "x" "oops": 2}\n')
    p = tmp_path / "bad.jsonl"
    p.write_text("".join(lines), encoding="utf-8")
    byte = len("".join(lines[:4000]).encode("utf-8")) + len('{"id": 1, "name": "x" ')
    for threads in (1, 2):
        with pytest.raises(swath.JsonError) as e:
            swath.read_json(p, threads=threads, schema={"id": "int64"})
        err = e.value
        assert (err.record, err.line, err.byte) == (4001, 4001, byte)
        assert err.path == str(p)
        assert "expected ',' or '}' after a member" in str(err)
    bad_type = tmp_path / "t.jsonl"
    bad_type.write_text('{"n": 1}\n{"n": "x"}\n')
    with pytest.raises(swath.JsonError) as e:
        swath.read_json(bad_type, schema={"n": "int64"})
    assert e.value.field == "n" and e.value.line == 2
    with pytest.raises(FileNotFoundError):
        swath.read_json(tmp_path / "missing.jsonl")


def test_the_clis_schema_file_reads_back_nested(jsonl, tmp_path):
    """`swath json schema --json` writes the schema file; `schema=` takes
    its path (a str or a Path) and gives the same table as inference."""
    import subprocess
    from pathlib import Path

    from conftest import swath_cli

    out = subprocess.run([swath_cli(), "json", "schema", "--json", "--infer", "full", str(jsonl)],
                         capture_output=True, check=True)
    path = tmp_path / "s.json"
    path.write_bytes(out.stdout)
    assert "fields" in json.loads(out.stdout)
    whole = swath.read_json(jsonl, infer="full")
    for given in (str(path), Path(path)):
        assert swath.read_json(jsonl, schema=given).equals(whole)
    with pytest.raises(OSError, match="schema file"):
        swath.read_json(jsonl, schema=str(tmp_path / "nope.json"))


def test_documents_read_as_their_records_written_as_lines(jsonl, tmp_path):
    """A top-level array (compact and pretty), CloudTrail's wrapper, a
    nested wrapper and pretty objects one after another: the same table as
    the records written as JSON lines, at every thread count, and as
    pyarrow.json reads those lines."""
    whole = swath.read_json(jsonl, infer="full")
    records = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    forms = {
        "array.json": (json.dumps(records), "auto"),
        "pretty.json": (json.dumps(records, indent=2), "auto"),
        "cloudtrail.json": (json.dumps({"Records": records}), "auto"),
        "wrapped.json": (json.dumps({"meta": {"n": [1]}, "data": {"items": records}}), "data.items"),
        "values.json": ("\n".join(json.dumps(r, indent=1) for r in records), "auto"),
    }
    for name, (text, asked) in forms.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        for threads in (1, 2, 3):
            got = swath.read_json(p, schema=whole.schema, threads=threads, records=asked)
            assert got.equals(whole), (name, threads)
        inferred = swath.read_json(p, infer="full", records=asked)
        assert inferred.schema == whole.schema, name
    theirs = paj.read_json(jsonl, parse_options=paj.ParseOptions(explicit_schema=whole.schema))
    assert normalized(whole) == normalized(theirs)


def test_a_broken_document_raises_json_error_with_its_place(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('[\n  {"a": 1},\n  {"a": 2},\n]\n')
    for threads in (1, 2):
        with pytest.raises(swath.JsonError) as e:
            swath.read_json(p, threads=threads)
        err = e.value
        assert (err.record, err.line, err.byte) == (3, 4, 26)
        assert "trailing comma" in str(err)
    with pytest.raises(ValueError):
        swath.read_json(p, records="a..b")
