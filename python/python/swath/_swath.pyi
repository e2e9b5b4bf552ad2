"""Type stubs of swath's native module (the public names are re-exported by
``swath``)."""

from os import PathLike
from typing import Any, Iterator, Literal, Mapping, Optional, Sequence, Union

StrPath = Union[str, "PathLike[str]"]
Columns = Union[Sequence[str], Sequence[int], None]
# A pyarrow.Schema (or anything with __arrow_c_schema__), a dict of column
# name to type name, the CLI's text ("id:int64!,when:timestamptz"), or the
# path of a schema file as `swath csv schema --json` and `swath json schema
# --json` print it (a PathLike, or a str ending in .json or naming a file).
SchemaArg = Union[Any, Mapping[str, str], str, "PathLike[str]", None]

__version__: str

class CsvError(ValueError):
    """A CSV problem at a known place, as ``swath csv check`` prints it."""

    record: Optional[int]
    """1-based record number (the header row is record 1)."""
    line: Optional[int]
    """1-based line number."""
    byte: Optional[int]
    """0-based byte offset of the offending byte."""
    path: Optional[str]
    column: Optional[int]
    """0-based field index, when one field is at fault."""

class JsonError(ValueError):
    """A JSON-lines problem at a known place, as ``swath json check`` prints it."""

    record: Optional[int]
    """1-based record (object) number."""
    line: Optional[int]
    """1-based line number (blank lines counted)."""
    byte: Optional[int]
    """0-based byte offset of the problem."""
    path: Optional[str]
    field: Optional[str]
    """The field's dotted path, when a value does not fit its type."""

class CheckResult:
    """What :func:`csv_check` found."""

    records: int
    problems: int
    errors: list[CsvError]
    @property
    def ok(self) -> bool: ...

class CsvReader:
    """A stream of Arrow record batches; consumed once."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    @property
    def schema(self) -> Any:
        """The schema as a ``pyarrow.Schema``."""
    @property
    def columns(self) -> list[str]: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __next__(self) -> Any:
        """The next ``pyarrow.RecordBatch``."""
    def close(self) -> None: ...
    def __enter__(self) -> "CsvReader": ...
    def __exit__(self, *args: object) -> None: ...
    def _exported_addresses(self) -> list[int]: ...

def count_lines(path: StrPath, threads: int = 0) -> int: ...
def csv_count(
    path: StrPath,
    threads: int = 0,
    *,
    delimiter: str = ",",
    quote: str = '"',
    escape: Optional[str] = None,
    comment: Optional[str] = None,
    no_headers: bool = False,
    flexible: bool = False,
    lenient: bool = False,
    max_record_size: Union[int, str] = "64M",
    encoding: str = "utf-8",
    skip_rows: Optional[int] = None,
    header_row: Optional[int] = None,
    skip_until: Optional[str] = None,
    skip_last: int = 0,
) -> int: ...
def csv_check(
    path: StrPath,
    limit: int = 100,
    threads: int = 0,
    *,
    delimiter: str = ",",
    quote: str = '"',
    escape: Optional[str] = None,
    comment: Optional[str] = None,
    no_headers: bool = False,
    flexible: bool = False,
    lenient: bool = False,
    max_record_size: Union[int, str] = "64M",
    encoding: str = "utf-8",
    skip_rows: Optional[int] = None,
    header_row: Optional[int] = None,
    skip_until: Optional[str] = None,
    skip_last: int = 0,
) -> CheckResult: ...
def scan_csv(
    path: StrPath,
    columns: Columns = None,
    schema: SchemaArg = None,
    threads: int = 0,
    null: Union[str, Sequence[str]] = "",
    on_error: Literal["fail", "null"] = "fail",
    infer: Literal["sample", "full"] = "sample",
    batch_size: int = 16384,
    string_view: bool = False,
    *,
    delimiter: str = ",",
    quote: str = '"',
    escape: Optional[str] = None,
    comment: Optional[str] = None,
    no_headers: bool = False,
    flexible: bool = False,
    lenient: bool = False,
    max_record_size: Union[int, str] = "64M",
    encoding: str = "utf-8",
    skip_rows: Optional[int] = None,
    header_row: Optional[int] = None,
    skip_until: Optional[str] = None,
    skip_last: int = 0,
    decimal_comma: bool = False,
    thousands: Optional[str] = None,
    date_format: Optional[str] = None,
    timestamp_format: Optional[str] = None,
) -> CsvReader: ...
def _read_csv(path: StrPath, **kwargs: Any) -> CsvReader: ...
def csv_to_parquet(
    src: StrPath,
    dst: StrPath,
    columns: Columns = None,
    schema: SchemaArg = None,
    threads: int = 0,
    null: Union[str, Sequence[str]] = "",
    on_error: Literal["fail", "null", "quarantine"] = "fail",
    infer: Literal["sample", "full"] = "sample",
    compression: Literal["zstd", "snappy", "none"] = "zstd",
    row_group_rows: int = 1048576,
    row_group_size: Union[int, str, None] = None,
    no_statistics: bool = False,
    *,
    delimiter: str = ",",
    quote: str = '"',
    escape: Optional[str] = None,
    comment: Optional[str] = None,
    no_headers: bool = False,
    flexible: bool = False,
    lenient: bool = False,
    max_record_size: Union[int, str] = "64M",
    encoding: str = "utf-8",
    skip_rows: Optional[int] = None,
    header_row: Optional[int] = None,
    skip_until: Optional[str] = None,
    skip_last: int = 0,
    decimal_comma: bool = False,
    thousands: Optional[str] = None,
    date_format: Optional[str] = None,
    timestamp_format: Optional[str] = None,
    on_bad: str = "fail",
    max_bad: Union[int, str, None] = None,
    errors_json: bool = False,
) -> int: ...

def scan_json(
    path: StrPath,
    schema: SchemaArg = None,
    threads: int = 0,
    infer: Literal["sample", "full"] = "sample",
    batch_size: int = 16384,
    max_line_size: Union[int, str, None] = None,
    records: str = "auto",
) -> CsvReader:
    """A JSON file (lines, an array, a wrapper) as a stream of Arrow record batches."""

def _read_json(
    path: StrPath,
    schema: SchemaArg = None,
    threads: int = 0,
    infer: Literal["sample", "full"] = "sample",
    batch_size: int = 16384,
    max_line_size: Union[int, str, None] = None,
    records: str = "auto",
    on_bad: Optional[str] = None,
    max_bad: Union[int, str, None] = None,
    errors_json: bool = False,
) -> CsvReader: ...
