"""swath: read very large CSV files fast and exactly, with flat memory.

Typed CSV goes out as Arrow data through the Arrow PyCapsule interface
(``__arrow_c_stream__``), which pyarrow, Polars, pandas (through pyarrow)
and DuckDB take without a copy::

    import swath, polars as pl, pyarrow as pa, duckdb

    table = swath.read_csv("big.csv")                  # pyarrow.Table
    df = pl.from_arrow(swath.scan_csv("big.csv"))      # Polars, streamed in
    r = swath.scan_csv("big.csv", columns=["id", "score"])
    duckdb.sql("select avg(score) from r")             # DuckDB scans the stream

    swath.count_lines("big.log")                       # like `swath count`
    swath.csv_count("big.csv")                         # records, exact
    swath.csv_check("big.csv").errors                  # CsvError per problem

The CSV options are keyword arguments named as the CLI's: ``delimiter``,
``quote``, ``escape``, ``comment``, ``no_headers``, ``flexible``,
``lenient``, ``max_record_size``. Every function releases the GIL while
it works, and Ctrl-C interrupts it. A CSV problem raises
:class:`CsvError`, whose ``.record``, ``.line``, ``.byte`` and ``.path``
say where, as ``swath csv check`` prints it.
"""

from ._swath import (  # noqa: F401
    CheckResult,
    CsvError,
    __version__,
    count_lines,
    csv_check,
    csv_count,
)

__all__ = [
    "CheckResult",
    "CsvError",
    "count_lines",
    "csv_check",
    "csv_count",
]
