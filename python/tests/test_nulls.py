"""``null=`` as a list, a comma-separated str and ``"common"``: every
spelling is a null of every column type, and the types are inferred as if
the nulls were not there; the same in ``csv_to_parquet``."""

import pyarrow.parquet as pq
import pytest

import swath

SPELLINGS = ["NA", "NULL", "\\N", "-"]


def export(spellings, rows=400):
    """The text, and its rows as Python values (None for a null)."""
    lines = ["id,amount,flag,name"]
    want = []
    k = 0
    for i in range(rows):
        row = [i - 20, i / 4, i % 3 == 0, ["ann", "Zoë", "n/a x"][i % 3]]
        text = [str(i - 20), str(i / 4), "true" if i % 3 == 0 else "false", row[3]]
        for c in range(4):
            if (i * 7 + c * 3) % 5 == 0:
                row[c] = None
                text[c] = spellings[k % len(spellings)]
                k += 1
        lines.append(",".join(text))
        want.append(dict(zip(["id", "amount", "flag", "name"], row)))
    return "\n".join(lines) + "\n", want


@pytest.mark.parametrize(
    "null, spellings",
    [
        (SPELLINGS, SPELLINGS),
        (",".join(SPELLINGS), SPELLINGS),
        ("common", ["", "NA", "n/a", "NULL", "\\N", "-", "None", "#N/A"]),
    ],
)
def test_every_spelling_is_a_null_of_every_type(tmp_path, null, spellings):
    text, want = export(spellings)
    src = tmp_path / "e.csv"
    src.write_text(text)
    for threads in (1, 2):
        t = swath.read_csv(src, null=null, threads=threads)
        assert [str(f.type) for f in t.schema] == ["int64", "double", "bool", "string"]
        assert t.to_pylist() == want
    out = tmp_path / "e.parquet"
    swath.csv_to_parquet(src, out, null=null)
    assert pq.read_table(out).to_pylist() == want


def test_without_the_list_the_spellings_are_text(tmp_path):
    text, _ = export(["NA"])
    src = tmp_path / "e.csv"
    src.write_text(text)
    assert str(swath.read_csv(src).schema.field("id").type) == "string"
