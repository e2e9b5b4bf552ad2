"""swath: read very large CSV and JSON-lines files fast and exactly, with flat memory.

Typed CSV goes out as Arrow data through the Arrow PyCapsule interface
(``__arrow_c_stream__``), which pyarrow, Polars, pandas (through pyarrow)
and DuckDB take without a copy. The examples run as they are (the Python
tests run them, on a three-record ``big.csv`` with columns ``id``,
``name`` and ``score``, a ``big.log`` of 1,000 lines and an
``events.jsonl`` of two objects, with a gzip copy)::

    >>> import swath, polars as pl, duckdb
    >>> table = swath.read_csv("big.csv")              # a pyarrow.Table
    >>> table.num_rows
    3
    >>> df = pl.DataFrame(swath.scan_csv("big.csv"))   # a Polars DataFrame, streamed in
    >>> df.shape
    (3, 3)
    >>> r = swath.scan_csv("big.csv", columns=["id", "score"])
    >>> duckdb.sql("select avg(score) from r").fetchall()    # DuckDB scans the stream
    [(2.0,)]
    >>> swath.count_lines("big.log")                   # like `swath count`
    1000
    >>> swath.csv_count("big.csv")                     # records, exact
    3
    >>> swath.csv_check("big.csv").errors              # one CsvError per problem
    []
    >>> events = swath.read_json("events.jsonl")       # JSON lines: nested fields as
    >>> events.column_names                            # structs and lists
    ['ts', 'req']
    >>> swath.read_json("events.jsonl.gz").num_rows    # gzip and zstd too
    2

``pl.DataFrame(stream)`` is the way into Polars: with Polars 2,
``pl.from_arrow`` of a stream gives a Series of structs, not a DataFrame.

The CSV options are keyword arguments named as the CLI's: ``delimiter``,
``quote``, ``escape``, ``comment``, ``no_headers``, ``flexible``,
``lenient``, ``max_record_size``, ``encoding`` (a name such as
``"windows-1252"`` or ``"utf-16le"``, ``"auto"``, ``"lossy"``, or
``"NAME:lossy"``; default UTF-8, or what a byte order mark says),
``skip_rows`` (lines before the header row), ``header_row`` (its line
number, from 1), ``skip_until`` (a regular expression: the header row is
the first line that matches) and ``skip_last`` (footer lines; Excel's
``sep=;`` first line is always skipped). Every
function releases the GIL while
it works, and Ctrl-C interrupts it. A CSV problem raises
:class:`CsvError`, whose ``.record``, ``.line``, ``.byte`` and ``.path``
say where, as ``swath csv check`` prints it.
"""

from ._swath import (  # noqa: F401
    CheckResult,
    CsvError,
    CsvReader,
    JsonError,
    __version__,
    _read_csv,
    _read_json,
    count_lines,
    csv_check,
    csv_count,
    csv_to_parquet,
    scan_csv,
    scan_json,
)

__all__ = [
    "CheckResult",
    "CsvError",
    "CsvReader",
    "count_lines",
    "csv_check",
    "csv_count",
    "csv_to_parquet",
    "JsonError",
    "read_csv",
    "read_json",
    "scan_csv",
    "scan_json",
]


def read_csv(
    path,
    columns=None,
    schema=None,
    threads=0,
    null="",
    on_error="fail",
    infer="sample",
    batch_size=16384,
    string_view=False,
    **dialect,
):
    """Read a whole CSV file into a ``pyarrow.Table`` (needs pyarrow).

    Decoded on every core (``threads=0``), exact with newlines inside
    quotes; the table's buffers are the ones swath filled (no copy).

    ``columns``: names or 0-based indices to keep, in that order.
    ``schema``: a ``pyarrow.Schema`` for the whole file, a dict of column
    name to type name (``int64``, ``float64``, ``bool``, ``date32``,
    ``timestamp``, ``timestamptz``, ``utf8``; the others inferred), or the
    CLI's text (``"id:int64!,when:timestamptz"``, ``!`` = not null).
    Otherwise types are inferred from records spread over the whole file.
    ``null``: the text of a null (default: the empty field), texts
    separated by commas as the CLI's ``--null`` (``"NA,NULL,\\N,-"``; an
    empty item is the empty field), ``"common"`` (the empty field, NA, N/A,
    n/a, na, NULL, null, Null, None, none, nil, \\N, -, #N/A, <NA>), or a
    list of texts taken exactly. A column is typed as if its nulls were
    not there.
    ``on_error``: ``"fail"`` raises CsvError at a field that does not fit
    its type; ``"null"`` makes it null. ``string_view``: text columns as
    ``pyarrow.string_view()`` (Arrow's Utf8View) instead of
    ``pyarrow.string()``. ``**dialect``: delimiter, quote,
    escape, comment, no_headers, flexible, lenient, max_record_size,
    encoding, skip_rows, header_row, skip_until, skip_last. Numbers as
    exports write them: ``decimal_comma=True`` (``3,5``) and ``thousands``
    (``"."`` in ``1.299,99``, ``","`` in ``1,299.99``), as the CLI's
    ``--decimal-comma`` and ``--thousands``. Dates: day-first and
    month-first (``31/10/2023``, told apart by a value over 12),
    ``31-OCT-2023``, ``31.10.2023`` and ``2023-10-31 14:03`` are found by
    inference; ``date_format`` and ``timestamp_format`` (strftime, as the
    CLI's ``--date-format``) give the form.

    Broken records (a field too few or too many, a quoting error), as the
    CLI's ``--on-bad``: ``on_bad="fail"`` (the default) raises CsvError;
    ``on_bad="skip"`` leaves them out; ``on_bad="quarantine=PATH"`` copies
    them byte for byte to PATH, their record, line, byte and reason to
    ``PATH.errors.csv`` (``errors_json=True``: ``PATH.errors.jsonl``). A
    ``UserWarning`` says how many were left out. ``max_bad``: an int, or a
    str such as ``"0.5%"``: more are an error, and no file is left.
    ``on_error="quarantine"`` puts a record whose field does not fit its
    type aside with them.

    Raises CsvError (with ``.record``, ``.line``, ``.byte``, ``.path``) at
    the first problem, OSError when the file cannot be read.
    """
    import pyarrow

    rdr = _read_csv(
        path,
        columns=columns,
        schema=schema,
        threads=threads,
        null=null,
        on_error=on_error,
        infer=infer,
        batch_size=batch_size,
        string_view=string_view,
        **dialect,
    )
    return pyarrow.RecordBatchReader.from_stream(rdr).read_all()


def read_json(
    path,
    schema=None,
    threads=0,
    infer="sample",
    batch_size=16384,
    max_line_size=None,
    records="auto",
    on_bad="fail",
    max_bad=None,
    errors_json=False,
):
    """Read a whole JSON file into a ``pyarrow.Table`` (needs pyarrow).

    JSON lines, a top-level array of objects, a wrapper object such as
    CloudTrail's ``{"Records": [...]}``, or objects one after another
    (pretty-printed or not); gzip and zstd are recognised. ``records``
    says where the records are: ``"auto"`` (decided from the first bytes),
    ``"lines"``, ``"values"``, ``"$"`` (a top-level array), or a path of
    keys to an array (``"Records"``, ``"features"``, ``"data.items"``). Decoded on every core
    for a regular file (``threads=0``); the table's buffers are the ones
    swath filled (no copy). Nested objects are struct columns, arrays list
    columns; a field holding values of kinds that do not join is a string
    column (strings as their text, the rest as their JSON text). A missing
    key is a null.

    ``schema``: a ``pyarrow.Schema`` for every field (nothing inferred), a
    dict of top-level field name to type name (``int64``, ``float64``,
    ``bool``, ``date32``, ``timestamp``, ``timestamptz``, ``utf8``; the rest
    inferred), or the CLI's text (``"id:int64,ts:utf8"``). Otherwise types
    are inferred from the head and lines spread over the file, or from
    every line with ``infer="full"``. ``max_line_size``: the longest line
    (an int, or a str with K, M or G; default 64M).

    Broken records (not one JSON object, a key given twice, a value that
    does not fit its field's type), as the CLI's ``--on-bad`` and as
    ``read_csv``'s: ``on_bad="fail"`` (the default) raises JsonError;
    ``"skip"`` leaves them out; ``"quarantine=PATH"`` copies them byte for
    byte to PATH and their record, line, byte and reason to
    ``PATH.errors.csv`` (``errors_json=True``: ``PATH.errors.jsonl``), with
    a ``UserWarning``. ``max_bad``: an int or a str such as ``"0.5%"``.

    Raises JsonError (with ``.record``, ``.line``, ``.byte``, ``.path``,
    ``.field``) at the first problem, OSError when the file cannot be read.
    """
    import pyarrow

    rdr = _read_json(
        path,
        schema=schema,
        threads=threads,
        infer=infer,
        batch_size=batch_size,
        max_line_size=max_line_size,
        records=records,
        on_bad=on_bad,
        max_bad=max_bad,
        errors_json=errors_json,
    )
    return pyarrow.RecordBatchReader.from_stream(rdr).read_all()
