//! [`ArrowReaderBuilder`]: the CSV dialect, the schema (given or
//! inferred), batch size, projection, null text and error policy; it
//! builds the sequential, parallel and byte-range readers.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_schema::{Field, Schema, SchemaRef};
use swath::Source;
use swath_csv::{ParallelReader, Position, ReaderBuilder};

use crate::date_format::{DateFormat, Dates};
use crate::decode::{OnError, Plan};
use crate::error::{Error, Result};
use crate::infer::Written;
use crate::infer::{ColumnGuess, Guesses, Infer};
use crate::nulls::Nulls;
use crate::numbers::Numbers;
use crate::parallel::ParallelArrowReader;
use crate::range::FileRange;
use crate::reader::{ArrowReader, StreamInput};
use crate::types::{ColumnSpec, ColumnType};

/// Rows per batch unless set: 16Ki. Each batch's columns are fresh
/// memory that the consumer frees; at 64Ki rows (about 3.5 MiB a batch of
/// the bench's six columns) glibc gave it back to the kernel and the next
/// batch faulted it in again: 112,000 page faults for five reads of the
/// 5M-row file against 3,000 at 16Ki, and 5-15% of the time
/// (`bench/run csv_arrow`, `perf stat -e page-faults`).
pub const DEFAULT_BATCH_SIZE: usize = 16 * 1024;

/// How much of a stream (stdin, a pipe, compressed input) is read ahead
/// to infer its schema from; it is then read again from memory.
const STREAM_SAMPLE_BYTES: usize = 4 << 20;

/// Which columns to decode, in output order.
#[derive(Clone, Debug)]
enum Projection {
    Indices(Vec<usize>),
    Names(Vec<String>),
}

/// Builds readers of CSV into Arrow [`RecordBatch`](arrow_array::RecordBatch)es.
///
/// ```
/// use swath_arrow::ArrowReaderBuilder;
///
/// let csv = "id,score,when\n1,9.5,2024-01-02T03:04:05Z\n2,,2024-01-02T04:00:00+01:00\n";
/// let mut rdr = ArrowReaderBuilder::new().from_reader(csv.as_bytes())?;
/// let batch = rdr.next_batch()?.unwrap();
/// assert_eq!(batch.num_rows(), 2);
/// assert_eq!(batch.schema().field(0).data_type(), &arrow_schema::DataType::Int64);
/// assert_eq!(batch.column(1).null_count(), 1);
/// # Ok::<(), swath_arrow::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ArrowReaderBuilder {
    csv: ReaderBuilder,
    schema: Option<SchemaRef>,
    overrides: Vec<ColumnSpec>,
    infer: Infer,
    batch_size: usize,
    projection: Option<Projection>,
    null: Nulls,
    numbers: Numbers,
    dates: Dates,
    on_error: OnError,
    threads: usize,
    chunk_size: u64,
    string_view: bool,
}

impl Default for ArrowReaderBuilder {
    fn default() -> ArrowReaderBuilder {
        ArrowReaderBuilder::new()
    }
}

/// A schema and how it was found: per column, the values that decided it.
#[derive(Clone, Debug)]
pub struct InferredSchema {
    /// One field per CSV column, in file order.
    pub schema: SchemaRef,
    /// One per column, in file order.
    pub columns: Vec<ColumnReport>,
    /// Records looked at (0 when every type was given).
    pub records: u64,
    /// How the records were chosen (`"head 10000 + 64 places"`, `"every record"`, ...).
    pub method: String,
}

/// How sure inference is of one column.
#[derive(Clone, Debug)]
pub struct ColumnReport {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// Whether nulls are allowed.
    pub nullable: bool,
    /// True when the type was given, not inferred.
    pub given: bool,
    /// Values sampled.
    pub values: u64,
    /// Of those, empty ones (the null text) or missing fields.
    pub empty: u64,
    /// Why an inferred column has its type, when there is more to say
    /// ([`ColumnGuess::note_with`]: codes with leading zeros kept as text,
    /// the form of its dates and what decided it).
    pub note: Option<String>,
    /// The strftime form of an inferred date or timestamp column's
    /// values, when not ISO 8601 (kept in the schema's field metadata,
    /// [`FORMAT_KEY`], for the decoder).
    pub format: Option<String>,
}

/// The field metadata key of a column's date form (`%d/%m/%Y`).
pub const FORMAT_KEY: &str = "swath.format";

impl ArrowReaderBuilder {
    /// The defaults: the default CSV dialect (headers on), a sampled
    /// schema, batches of 16Ki rows, empty text is null, errors stop.
    pub fn new() -> ArrowReaderBuilder {
        ArrowReaderBuilder {
            csv: ReaderBuilder::new(),
            schema: None,
            overrides: Vec::new(),
            infer: Infer::default(),
            batch_size: DEFAULT_BATCH_SIZE,
            projection: None,
            null: Nulls::default(),
            numbers: Numbers::default(),
            dates: Dates::default(),
            on_error: OnError::Fail,
            threads: 0,
            chunk_size: 4 << 20,
            string_view: false,
        }
    }

    /// Text columns as `Utf8View` instead of `Utf8`, inferred and given
    /// ones alike (default: off). The text is decoded as for `Utf8` and
    /// each batch's views are made from its offsets, the text kept as the
    /// views' one buffer; what it costs and gains is in
    /// `docs/perf/arrow.md`.
    pub fn string_view(&mut self, yes: bool) -> &mut Self {
        self.string_view = yes;
        self
    }

    /// The CSV dialect (delimiter, quoting, headers, limits, ...).
    pub fn csv(&mut self, csv: ReaderBuilder) -> &mut Self {
        self.csv = csv;
        self
    }

    /// The CSV dialect.
    pub fn csv_builder(&self) -> &ReaderBuilder {
        &self.csv
    }

    /// The whole schema given with [`schema`](Self::schema), if any.
    pub fn given_schema(&self) -> Option<SchemaRef> {
        self.schema.clone()
    }

    /// The texts read as null (see [`nulls`](Self::nulls)).
    pub fn given_nulls(&self) -> &Nulls {
        &self.null
    }

    /// How numbers are written (see [`numbers`](Self::numbers)).
    pub fn given_numbers(&self) -> Numbers {
        self.numbers
    }

    /// Whether text columns are `Utf8View` (see [`string_view`](Self::string_view)).
    pub fn given_string_view(&self) -> bool {
        self.string_view
    }

    /// What a field that does not fit its type does (see [`on_error`](Self::on_error)).
    pub fn given_on_error(&self) -> OnError {
        self.on_error
    }

    /// The CSV dialect, to change in place.
    pub fn csv_mut(&mut self) -> &mut ReaderBuilder {
        &mut self.csv
    }

    /// The whole schema, one field per CSV column in file order (names
    /// replace the header's); nothing is inferred. Types must be ones
    /// [`ColumnType::from_data_type`] knows.
    pub fn schema(&mut self, schema: SchemaRef) -> &mut Self {
        self.schema = Some(schema);
        self
    }

    /// Give some columns' types by name; the others are inferred.
    pub fn column_types(&mut self, specs: Vec<ColumnSpec>) -> &mut Self {
        self.overrides = specs;
        self
    }

    /// How to infer the types not given (default: sampled).
    pub fn infer(&mut self, infer: Infer) -> &mut Self {
        self.infer = infer;
        self
    }

    /// Rows per batch (at least 1; default 16Ki). Parallel batches may be
    /// shorter at the end of each chunk of the file.
    pub fn batch_size(&mut self, rows: usize) -> &mut Self {
        self.batch_size = rows.max(1);
        self
    }

    /// Decode only these columns (indices in the file), in this order.
    pub fn projection(&mut self, columns: Vec<usize>) -> &mut Self {
        self.projection = Some(Projection::Indices(columns));
        self
    }

    /// Decode only the columns of these names, in this order.
    pub fn project_names(&mut self, names: Vec<String>) -> &mut Self {
        self.projection = Some(Projection::Names(names));
        self
    }

    /// The text of a null (default: the empty field). A missing field of a
    /// short record (flexible) is null too.
    pub fn null_text(&mut self, text: impl Into<Vec<u8>>) -> &mut Self {
        self.null = Nulls::text(text);
        self
    }

    /// The texts of a null: a list, or [`Nulls::common`].
    pub fn nulls(&mut self, nulls: Nulls) -> &mut Self {
        self.null = nulls;
        self
    }

    /// How numbers are written: a decimal comma, a thousands separator
    /// (inference and decoding read `1.299,99` as 1299.99; text columns
    /// keep what was written).
    pub fn numbers(&mut self, numbers: Numbers) -> &mut Self {
        self.numbers = numbers;
        self
    }

    /// The strftime forms of date and timestamp columns
    /// (`--date-format %d/%m/%Y`): inference tries them instead of its own
    /// candidates, and columns given as date32 or timestamp are read by
    /// them.
    pub fn date_formats(
        &mut self,
        date: Option<DateFormat>,
        timestamp: Option<DateFormat>,
    ) -> &mut Self {
        self.dates = Dates::given(date, timestamp);
        self
    }

    /// How values are written, for inference.
    fn written(&self) -> Written {
        Written { nulls: self.null.clone(), numbers: self.numbers, dates: self.dates.clone() }
    }

    /// What a field that does not fit its type does (default: an error).
    pub fn on_error(&mut self, policy: OnError) -> &mut Self {
        self.on_error = policy;
        self
    }

    /// Threads for the parallel reader and inference (0: all cores).
    pub fn threads(&mut self, n: usize) -> &mut Self {
        self.threads = n;
        self
    }

    /// Bytes per parallel chunk (default 4 MiB; small ones in tests).
    pub fn chunk_size(&mut self, bytes: u64) -> &mut Self {
        self.chunk_size = bytes.max(1);
        self
    }

    /// The schema of `path` (`-` for stdin, which is then consumed), as
    /// the readers would decode it, with the evidence per column.
    ///
    /// # Errors
    ///
    /// The open error, an error in the header row, the first record
    /// error (with its position) among the head's sampled records, a bad
    /// schema.
    pub fn infer_schema(&self, path: impl AsRef<Path>) -> Result<InferredSchema> {
        let path = path.as_ref();
        let src = self.csv.open_source(path)?;
        if src.ranged_source().is_none() {
            let (buf, eof, _) = read_prefix(src)?;
            return self.infer_prefix(&buf, eof);
        }
        drop(src);
        let mut rdr = self.csv.from_path(path)?;
        let names = header_names(&mut rdr, has_headers(&self.csv))?;
        if self.schema.is_some() || self.all_given(&names) {
            return self.resolve(names, None, 0, "types given".into());
        }
        let written = self.written();
        let (guesses, method) = match self.infer {
            Infer::Full => {
                let mut par = ParallelReader::new(&self.csv, path)
                    .threads(self.threads)
                    .chunk_size(self.chunk_size)
                    .relative_numbers(true);
                let g = par.fold(
                    Guesses::default,
                    |g, rec| {
                        g.see(&rec, &written);
                        Ok(())
                    },
                    |mut a, b| {
                        a.merge(&b);
                        a
                    },
                )?;
                (g, "every record".to_string())
            }
            Infer::Sample { head, points, per_point } => {
                let mut g = Guesses::default();
                let mut head_end = 0u64;
                while (g.records as usize) < head {
                    match rdr.next_record() {
                        Ok(Some(rec)) => {
                            g.see(&rec, &written);
                            head_end = rec.position().byte;
                        }
                        Ok(None) => break,
                        // The decode would meet it again, but `csv schema`
                        // does not decode: a schema from the records
                        // around a broken one would hide a broken file.
                        Err(e) => return Err(e.into()),
                    }
                }
                let used = self.sample_spread(path, head_end, points, per_point, &mut g)?;
                (g, format!("head {head} + {used} places spread over the file"))
            }
        };
        let n = guesses.records;
        self.resolve(names, Some(guesses), n, method)
    }

    /// Read `per_point` records at up to `points` exact record starts past
    /// `head_end`, spread evenly; the number of places read.
    fn sample_spread(
        &self,
        path: &Path,
        head_end: u64,
        points: usize,
        per_point: usize,
        g: &mut Guesses,
    ) -> Result<usize> {
        if points == 0 || per_point == 0 {
            return Ok(0);
        }
        // Each place's start from the bytes there, not a pass over the file
        // (on a remote object, a GET of the whole object before the decode
        // reads it again); its records read right away, from those bytes.
        // A small buffer: `per_point` records are a few KiB, and on a remote
        // object a read past the place's GET is another GET.
        let mut small = self.csv.clone();
        small.capacity(32 << 10);
        let par = ParallelReader::new(&small, path).threads(self.threads);
        let written = self.written();
        let seen = par.sample_with(head_end, points, |_, rdr| {
            let mut g = Guesses::default();
            for _ in 0..per_point {
                match rdr.next_record() {
                    Ok(Some(rec)) => g.see(&rec, &written),
                    Ok(None) => break,
                    Err(e) if e.is_recoverable() => {}
                    Err(_) => break,
                }
            }
            g
        })?;
        let used = seen.len();
        for s in &seen {
            g.merge(s);
        }
        Ok(used)
    }

    /// Infer from the first bytes of a stream (`eof`: they are all of it).
    fn infer_prefix(&self, buf: &[u8], eof: bool) -> Result<InferredSchema> {
        let mut rdr = self.csv.from_reader(buf)?;
        let names = header_names(&mut rdr, has_headers(&self.csv))?;
        if self.schema.is_some() || self.all_given(&names) {
            return self.resolve(names, None, 0, "types given".into());
        }
        let mut g = Guesses::default();
        let written = self.written();
        let (limit, full) = match self.infer {
            Infer::Sample { head, .. } => (head as u64, false),
            Infer::Full => (u64::MAX, true),
        };
        // The last record of a cut prefix may be cut too: leave it out.
        let mut last: Option<swath_csv::OwnedRecord> = None;
        while g.records < limit {
            match rdr.next_record() {
                Ok(Some(rec)) => {
                    if let Some(prev) = last.take() {
                        g.see(&prev.as_record(), &written);
                    }
                    last = Some(rec.to_owned_record());
                }
                Ok(None) => break,
                Err(e) if e.is_recoverable() => {}
                Err(_) => break,
            }
        }
        if eof {
            if let Some(prev) = last {
                g.see(&prev.as_record(), &written);
            }
        }
        let method = if full && eof { "every record" } else { "the head of a stream" };
        let n = g.records;
        // Only a stream read to its end can promise non-null columns.
        let mut s = self.clone();
        if !eof {
            s.infer = Infer::default();
        }
        s.resolve(names, Some(g), n, method.into())
    }

    /// True when every column's type is given: nothing to sample. Without
    /// a header row the columns are known only by sampling.
    fn all_given(&self, names: &[String]) -> bool {
        !names.is_empty() && names.iter().all(|n| self.overrides.iter().any(|o| &o.name == n))
    }

    /// The schema from the header names, the given types and the guesses.
    fn resolve(
        &self,
        mut names: Vec<String>,
        guesses: Option<Guesses>,
        records: u64,
        method: String,
    ) -> Result<InferredSchema> {
        if names.is_empty() {
            let n = guesses.as_ref().map_or(0, |g| g.columns.len());
            names = (1..=n).map(|i| format!("column_{i}")).collect();
        }
        let null_all = self.on_error == OnError::Null;
        if let Some(s) = &self.schema {
            let columns = s
                .fields()
                .iter()
                .map(|f| {
                    let ty = ColumnType::from_data_type(f.data_type()).ok_or_else(|| {
                        Error::Schema(format!(
                            "column {:?}: type {} is not one swath decodes",
                            f.name(),
                            f.data_type()
                        ))
                    })?;
                    Ok(ColumnReport {
                        name: f.name().clone(),
                        ty,
                        nullable: f.is_nullable() || null_all,
                        given: true,
                        values: 0,
                        empty: 0,
                        note: None,
                        // A schema inferred before keeps its date forms.
                        format: f.metadata().get(FORMAT_KEY).cloned(),
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(self.finish_schema(columns, records, method));
        }
        for o in &self.overrides {
            if !names.contains(&o.name) {
                return Err(Error::Schema(format!(
                    "column {:?} is not in the file (columns: {})",
                    o.name,
                    names.join(", ")
                )));
            }
        }
        let full = self.infer == Infer::Full;
        let written = self.written();
        let mut columns = Vec::with_capacity(names.len());
        for (i, name) in names.into_iter().enumerate() {
            // A header column past every record seen is missing from all
            // of them: null in each, so nullable even when inferred in full.
            let g = guesses.as_ref().map_or_else(ColumnGuess::default, |g| {
                g.columns.get(i).copied().unwrap_or_else(|| ColumnGuess::missing_in(g.records))
            });
            let col = match self.overrides.iter().find(|o| o.name == name) {
                Some(o) => ColumnReport {
                    name,
                    ty: o.ty,
                    nullable: o.nullable || null_all,
                    given: true,
                    values: g.values,
                    empty: g.empty,
                    note: None,
                    format: None,
                },
                None => {
                    let (ty, format) = g.typed(&written.dates);
                    ColumnReport {
                        name,
                        ty,
                        nullable: !full || g.empty > 0 || null_all,
                        given: false,
                        values: g.values,
                        empty: g.empty,
                        note: g.note_with(&written.dates),
                        format: format.map(|f| f.text().to_string()),
                    }
                }
            };
            columns.push(col);
        }
        Ok(self.finish_schema(columns, records, method))
    }

    fn finish_schema(
        &self,
        mut columns: Vec<ColumnReport>,
        records: u64,
        method: String,
    ) -> InferredSchema {
        if self.string_view {
            for c in columns.iter_mut().filter(|c| c.ty == ColumnType::Utf8) {
                c.ty = ColumnType::Utf8View;
            }
        }
        let fields: Vec<Field> = columns
            .iter()
            .map(|c| {
                let f = Field::new(&c.name, c.ty.data_type(), c.nullable);
                match &c.format {
                    Some(form) => f.with_metadata([(FORMAT_KEY.to_string(), form.clone())].into()),
                    None => f,
                }
            })
            .collect();
        InferredSchema { schema: Arc::new(Schema::new(fields)), columns, records, method }
    }

    /// The decoding plan for a file schema: projection applied.
    pub(crate) fn plan(&self, file_schema: &SchemaRef) -> Result<Plan> {
        let idx: Vec<usize> = match &self.projection {
            None => (0..file_schema.fields().len()).collect(),
            Some(Projection::Indices(v)) => {
                for &i in v {
                    if i >= file_schema.fields().len() {
                        return Err(Error::Schema(format!(
                            "column index {i} is past the last column ({} columns)",
                            file_schema.fields().len()
                        )));
                    }
                }
                v.clone()
            }
            Some(Projection::Names(names)) => names
                .iter()
                .map(|n| {
                    file_schema
                        .index_of(n)
                        .map_err(|_| Error::Schema(format!("no column named {n:?} in the file")))
                })
                .collect::<Result<_>>()?,
        };
        let mut columns = Vec::with_capacity(idx.len());
        let mut formats = Vec::with_capacity(idx.len());
        let mut fields = Vec::with_capacity(idx.len());
        for &i in &idx {
            let f = file_schema.field(i);
            let ty = ColumnType::from_data_type(f.data_type()).ok_or_else(|| {
                Error::Schema(format!(
                    "column {:?}: type {} is not one swath decodes",
                    f.name(),
                    f.data_type()
                ))
            })?;
            let nullable = f.is_nullable() || self.on_error == OnError::Null;
            fields.push(Field::new(f.name(), ty.data_type(), nullable));
            columns.push((i, ty));
            // The form inference found (in the field's metadata), or the
            // one given for the type.
            let form = match f.metadata().get(FORMAT_KEY) {
                Some(text) => Some(DateFormat::parse(text).map_err(Error::Schema)?),
                None => match ty {
                    ColumnType::Date32 => self.dates.given_for(false).cloned(),
                    ColumnType::Timestamp => self.dates.given_for(true).cloned(),
                    _ => None,
                },
            };
            formats.push(form.map(Arc::new));
        }
        Ok(Plan {
            schema: Arc::new(Schema::new(fields)),
            columns,
            formats,
            null: self.null.clone(),
            numbers: self.numbers,
            on_error: self.on_error,
            batch_size: self.batch_size,
        })
    }

    /// A sequential reader of `path` (`-` for stdin; compressed input is
    /// decoded), the schema inferred unless given.
    ///
    /// # Errors
    ///
    /// As [`infer_schema`](Self::infer_schema).
    pub fn from_path(&self, path: impl AsRef<Path>) -> Result<ArrowReader<StreamInput<Source>>> {
        let path = path.as_ref();
        let src = self.csv.open_source(path)?;
        if src.ranged_source().is_none() {
            return self.from_reader(src);
        }
        let schema = self.infer_schema(path)?.schema;
        let rdr = self.csv.from_reader(io::Cursor::new(Vec::new()).chain(src))?;
        ArrowReader::new(rdr, self.plan(&schema)?, None)
    }

    /// A sequential reader of any `io::Read`; without a given schema, the
    /// first 4 MiB are read ahead to infer it from.
    ///
    /// # Errors
    ///
    /// Reading the first bytes, an error in the header row, a bad schema.
    pub fn from_reader<R: Read>(&self, mut rdr: R) -> Result<ArrowReader<StreamInput<R>>> {
        let (buf, eof, schema) = if let Some(s) = &self.schema {
            (Vec::new(), false, s.clone())
        } else {
            let (buf, eof, r) = read_prefix(rdr)?;
            rdr = r;
            let s = self.infer_prefix(&buf, eof)?.schema;
            (buf, eof, s)
        };
        let _ = eof;
        let csv = self.csv.from_reader(io::Cursor::new(buf).chain(rdr))?;
        ArrowReader::new(csv, self.plan(&schema)?, None)
    }

    /// A reader of one byte range of `file`: it starts at `start` (a known
    /// record start: byte, line and record number, from a split plan or
    /// [`ParallelReader::record_starts`]) and stops after the last record
    /// whose first byte is before `end` (it reads past `end` to finish that
    /// record). `start.byte == 0` reads the header row when headers are on.
    /// The schema must be given ([`schema`](Self::schema)): a range cannot
    /// see the header row.
    ///
    /// # Errors
    ///
    /// [`Error::Schema`] without a schema; a bad configuration.
    pub fn from_range(
        &self,
        file: Arc<File>,
        start: Position,
        end: u64,
    ) -> Result<ArrowReader<FileRange>> {
        let len = file.metadata()?.len();
        self.from_ranged(file, len, start, end)
    }

    /// As [`from_range`](Self::from_range), over any ranged source of
    /// length `len` (a remote object).
    ///
    /// # Errors
    ///
    /// As [`from_range`](Self::from_range).
    pub fn from_ranged(
        &self,
        file: Arc<dyn swath::ReadAt>,
        len: u64,
        start: Position,
        end: u64,
    ) -> Result<ArrowReader<FileRange>> {
        let schema = self
            .schema
            .clone()
            .ok_or_else(|| Error::Schema("reading a byte range needs a given schema".into()))?;
        let src = FileRange::new(file, start.byte, len);
        let rdr = if start.byte == 0 {
            self.csv.from_reader(src)?
        } else {
            self.csv.from_reader_at(src, start)?
        };
        ArrowReader::new(rdr, self.plan(&schema)?, Some(end))
    }

    /// A parallel reader of the regular file at `path`: batches in file
    /// order, decoded on every core, a bounded number in flight. Pipes,
    /// stdin and compressed input are decoded on one thread.
    ///
    /// # Errors
    ///
    /// As [`infer_schema`](Self::infer_schema).
    pub fn build_parallel(&self, path: impl AsRef<Path>) -> Result<ParallelArrowReader> {
        let path: PathBuf = path.as_ref().to_path_buf();
        let schema = match &self.schema {
            Some(s) => s.clone(),
            None => self.infer_schema(&path)?.schema,
        };
        let plan = self.plan(&schema)?;
        Ok(ParallelArrowReader::new(self.csv.clone(), path, plan, self.threads, self.chunk_size))
    }
}

/// Whether `csv` reads a header row.
fn has_headers(csv: &ReaderBuilder) -> bool {
    {
        // The builder does not say; a probe reader over nothing does not
        // either. Read it from a one-line input: with headers on, the
        // line is the header row and no record follows.
        let mut r = match csv.from_reader(&b"x\n"[..]) {
            Ok(r) => r,
            Err(_) => return true,
        };
        matches!(r.next_record(), Ok(None))
    }
}

/// The column names: the header row (empty names become `column_N`,
/// repeated ones get `_N`), or `column_1..` from the first record.
fn header_names<R: Read>(rdr: &mut swath_csv::Reader<R>, has_headers: bool) -> Result<Vec<String>> {
    let raw: Vec<String> = if has_headers {
        match rdr.headers()? {
            Some(h) => h.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect(),
            None => Vec::new(),
        }
    } else {
        // Named `column_N` from the widest record sampled (`resolve`).
        Vec::new()
    };
    let mut names: Vec<String> = Vec::with_capacity(raw.len());
    for (i, n) in raw.into_iter().enumerate() {
        let mut n = if n.is_empty() { format!("column_{}", i + 1) } else { n };
        if names.contains(&n) {
            n = format!("{n}_{}", i + 1);
        }
        names.push(n);
    }
    Ok(names)
}

/// Read up to [`STREAM_SAMPLE_BYTES`] of `rdr`: the bytes, whether that
/// was all, and the reader to go on from.
fn read_prefix<R: Read>(mut rdr: R) -> Result<(Vec<u8>, bool, R)> {
    let mut buf = Vec::with_capacity(64 << 10);
    let n = (&mut rdr).take(STREAM_SAMPLE_BYTES as u64).read_to_end(&mut buf)?;
    Ok((buf, n < STREAM_SAMPLE_BYTES, rdr))
}
