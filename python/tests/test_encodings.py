"""Files in other encodings: swath's values equal Python's csv module
reading the text Python's codecs decode, named or detected; bytes that do
not decode raise an error naming their byte, or become U+FFFD with lossy."""

import csv
import io

import pyarrow as pa
import pytest

import swath

WESTERN = ["José", "Zoë", "Müller", "Ångström", "naïve café", "plain"]
CP1252 = ["“quoted”", "€5", "Œuvre", "José", "plain"]
JAPANESE = ["山田太郎", "たなか", "東京都", "ソフト", "plain"]
CHINESE = ["张伟", "北京市", "上海", "王芳", "plain"]
KOREAN = ["김민준", "서울특별시", "부산", "이서연", "plain"]
EVERY = ["José", "東京", "서울", "😀 smile", "Łódź", "plain"]

# (Python codec, swath's name, the words it can write)
CASES = [
    ("cp1252", "windows-1252", CP1252),
    ("latin-1", "latin-1", WESTERN),
    ("utf-16", "utf-16le", EVERY),
    ("utf-16-le", "utf-16le", EVERY),
    ("utf-16-be", "utf-16be", EVERY),
    ("utf-32", "utf-32le", EVERY),
    ("gb18030", "gb18030", EVERY),
    ("shift_jis", "shift_jis", JAPANESE),
    ("euc-kr", "euc-kr", KOREAN),
    ("big5", "big5", ["張偉", "臺北市", "許功蓋", "plain"]),
]


def text_of(words, n=2000):
    out = io.StringIO(newline="")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "name", "note"])
    for i in range(n):
        word = words[i % len(words)]
        note = [f"{word}, b", f"two\r\nlines {word}", f'say "{word}"', word][i % 4]
        w.writerow([i, word, note])
    return out.getvalue()


def python_rows(path, codec):
    with open(path, encoding=codec, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


@pytest.mark.parametrize("codec,name,words", CASES, ids=[c[0] for c in CASES])
def test_values_equal_pythons_csv_on_pythons_decoding(tmp_path, codec, name, words):
    path = tmp_path / f"{codec}.csv"
    path.write_bytes(text_of(words).encode(codec))
    header, rows = python_rows(path, codec)
    schema = pa.schema([(h, pa.string()) for h in header])
    ways = [name, "auto"] if words is not EVERY or codec.startswith("utf-") else [name]
    for encoding in ways:
        for threads in (1, 2):
            t = swath.read_csv(path, schema=schema, encoding=encoding, threads=threads)
            assert t.column_names == header, (codec, encoding)
            got = [list(r.values()) for r in t.to_pylist()]
            assert got == rows, (codec, encoding, threads)
    assert swath.csv_count(path, encoding=name) == len(rows)


def test_a_bom_is_decoded_without_being_named(tmp_path):
    path = tmp_path / "ps.csv"
    path.write_bytes(text_of(EVERY, 50).encode("utf-16"))
    header, rows = python_rows(path, "utf-16")
    t = swath.read_csv(path, schema=pa.schema([(h, pa.string()) for h in header]))
    assert [list(r.values()) for r in t.to_pylist()] == rows


def test_bytes_that_do_not_decode_are_an_error_at_their_byte(tmp_path):
    path = tmp_path / "bad.csv"
    good = text_of(JAPANESE, 100).encode("shift_jis")
    at = len(good) + 5
    path.write_bytes(good + b"9999,\x81\n")
    with pytest.raises(Exception) as e:
        swath.read_csv(path, encoding="shift_jis")
    assert f"not valid Shift_JIS at byte {at}" in str(e.value)


def test_lossy_replaces_what_does_not_decode(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_bytes(b"id,name\n1,caf\xe9\n2,ok\n")
    t = swath.read_csv(path, encoding="lossy", schema=pa.schema([("id", pa.string()), ("name", pa.string())]))
    assert t.column("name").to_pylist() == ["caf\ufffd", "ok"]
    assert t.column("name").to_pylist()[0] == b"caf\xe9".decode("utf-8", errors="replace")


def test_an_unknown_encoding_is_a_value_error(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("a\n1\n")
    with pytest.raises(ValueError, match="unknown encoding"):
        swath.read_csv(path, encoding="klingon")
