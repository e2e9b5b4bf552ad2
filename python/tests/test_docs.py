"""The examples in the package's docstrings run, and say what they do.

The module docstring's examples read ``big.csv``, ``big.log``,
``events.jsonl`` and ``events.jsonl.gz``: written here, in a directory of
their own, before doctest runs them. An example that stops matching what
the library (or Polars, pyarrow, DuckDB) does fails this test.
"""

import doctest
import gzip
import os

import swath


def write_examples(d):
    (d / "big.csv").write_text("id,name,score\n1,ann,1.5\n2,bob,2\n3,cy,2.5\n")
    (d / "big.log").write_text("".join(f"line {i}\n" for i in range(1000)))
    events = (
        '{"ts":"2024-01-02T03:04:05Z","req":{"status":200,"ms":1.5}}\n'
        '{"ts":"2024-01-02T03:04:06Z","req":{"status":500,"ms":20.25}}\n'
    )
    (d / "events.jsonl").write_text(events)
    (d / "events.jsonl.gz").write_bytes(gzip.compress(events.encode()))


def test_every_docstring_example_runs(tmp_path, monkeypatch):
    write_examples(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = doctest.testmod(swath, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted >= 10, f"the examples were not found: {result}"
    assert result.failed == 0, f"{result.failed} docstring examples failed (see above)"
