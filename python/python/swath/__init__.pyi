from typing import Any, Literal, Optional, Sequence, Union

from ._swath import (
    CheckResult as CheckResult,
    Columns,
    CsvError as CsvError,
    CsvReader as CsvReader,
    JsonError as JsonError,
    SchemaArg,
    StrPath,
    __version__ as __version__,
    count_lines as count_lines,
    csv_check as csv_check,
    csv_count as csv_count,
    csv_to_parquet as csv_to_parquet,
    scan_csv as scan_csv,
    scan_json as scan_json,
)

def read_csv(
    path: StrPath,
    columns: Columns = None,
    schema: SchemaArg = None,
    threads: int = 0,
    null: Union[str, Sequence[str]] = "",
    on_error: Literal["fail", "null", "quarantine"] = "fail",
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
    on_bad: str = "fail",
    max_bad: Union[int, str, None] = None,
    errors_json: bool = False,
) -> Any:
    """A ``pyarrow.Table``."""

def read_json(
    path: StrPath,
    schema: SchemaArg = None,
    threads: int = 0,
    infer: Literal["sample", "full"] = "sample",
    batch_size: int = 16384,
    max_line_size: Union[int, str, None] = None,
    records: str = "auto",
    on_bad: str = "fail",
    max_bad: Union[int, str, None] = None,
    errors_json: bool = False,
) -> Any:
    """A ``pyarrow.Table`` of a JSON file (lines, an array, a wrapper)."""
