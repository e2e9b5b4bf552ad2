"""Values as exports write them. ``null=`` as a list, a comma-separated str
and ``"common"``: every spelling is a null of every column type, and the
types are inferred as if the nulls were not there; the same in
``csv_to_parquet``. ``decimal_comma=`` and ``thousands=``: European
numbers read as numbers."""

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


def test_decimal_commas_and_thousands(tmp_path):
    src = tmp_path / "eu.csv"
    prices = [(i * 7919 - 5000) / 100 for i in range(300)]
    quantities = [i * 1001 for i in range(300)]

    def eu(v, decimals):
        """1234567.5 as 1.234.567,50."""
        text = f"{abs(v):,.{decimals}f}".replace(",", " ").replace(".", ",").replace(" ", ".")
        return ("-" if v < 0 else "") + text

    body = "".join(f"{eu(p, 2)};{eu(q, 0)}\n" for p, q in zip(prices, quantities))
    src.write_text("price;qty\n" + body)
    for threads in (1, 2):
        t = swath.read_csv(src, delimiter=";", decimal_comma=True, thousands=".", threads=threads)
        assert t.column("price").to_pylist() == prices
        assert t.column("qty").to_pylist() == quantities
    with pytest.raises(ValueError, match="decimal mark"):
        swath.read_csv(src, delimiter=";", decimal_comma=True, thousands=",")
    assert str(swath.read_csv(src, delimiter=";").schema.field("price").type) == "string"


def test_dates_in_other_forms(tmp_path):
    import datetime

    src = tmp_path / "d.csv"
    days = [datetime.date(2023, 1, 1) + datetime.timedelta(days=i * 5) for i in range(100)]
    src.write_text(
        "a,b\n" + "".join(f"{d:%d/%m/%Y},{d:%d/%m/%Y} 14:03\n" for d in days)
    )
    t = swath.read_csv(src)
    assert t.column("a").to_pylist() == days
    assert t.column("b").to_pylist() == [datetime.datetime(d.year, d.month, d.day, 14, 3) for d in days]
    # Month-first given: the day-first values do not fit it.
    with pytest.raises(ValueError, match="has a time of day"):
        swath.read_csv(src, date_format="%d/%m/%Y %H:%M")
    t = swath.read_csv(src, date_format="%m/%d/%Y")
    assert str(t.schema.field("a").type) == "string"
