//! The protobuf messages swath's codecs write (prost, no .proto build
//! step), and their conversions from and to swath's types.

use datafusion::arrow::datatypes::Schema;
use datafusion::error::{DataFusionError, Result};
use datafusion_proto::protobuf;
use swath_arrow::OnError;
use swath_csv::{FieldCount, ReaderBuilder, ReaderSettings, Split};

use crate::SwathCsvOptions;

/// A swath scan: DataFusion's file scan, the options, the files' plans.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ScanNode {
    #[prost(message, optional, tag = "1")]
    pub base_conf: Option<protobuf::FileScanExecConf>,
    #[prost(message, optional, tag = "2")]
    pub options: Option<OptionsMsg>,
    #[prost(message, repeated, tag = "3")]
    pub plans: Vec<FilePlanMsg>,
}

/// A swath table: where and how (its schema travels with the plan's).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TableNode {
    #[prost(string, tag = "1")]
    pub path: String,
    #[prost(message, optional, tag = "2")]
    pub options: Option<OptionsMsg>,
}

/// [`SwathCsvOptions`] (its schema travels with the plan's).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct OptionsMsg {
    #[prost(message, optional, tag = "1")]
    pub dialect: Option<DialectMsg>,
    /// The null texts (one, or a list: [`swath_arrow::Nulls`]).
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub null_texts: Vec<Vec<u8>>,
    #[prost(bool, tag = "3")]
    pub on_error_null: bool,
    #[prost(uint64, optional, tag = "4")]
    pub split_bytes: Option<u64>,
    #[prost(string, optional, tag = "5")]
    pub file_extension: Option<String>,
    #[prost(string, optional, tag = "6")]
    pub store_url: Option<String>,
    #[prost(bool, tag = "7")]
    pub string_view: bool,
    /// Numbers with a decimal comma ([`swath_arrow::Numbers`]).
    #[prost(bool, tag = "8")]
    pub decimal_comma: bool,
    /// Their thousands separator, a char.
    #[prost(uint32, optional, tag = "9")]
    pub thousands: Option<u32>,
}

/// [`ReaderSettings`].
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct DialectMsg {
    #[prost(uint32, tag = "1")]
    pub delimiter: u32,
    #[prost(uint32, tag = "2")]
    pub quote: u32,
    #[prost(bool, tag = "3")]
    pub quoting: bool,
    #[prost(bool, tag = "4")]
    pub double_quote: bool,
    #[prost(uint32, optional, tag = "5")]
    pub escape: Option<u32>,
    #[prost(uint32, optional, tag = "6")]
    pub comment: Option<u32>,
    #[prost(bool, tag = "7")]
    pub has_headers: bool,
    /// 0: learn from the first record, 1: `fields_fixed`, 2: any.
    #[prost(uint32, tag = "8")]
    pub fields_kind: u32,
    #[prost(uint64, tag = "9")]
    pub fields_fixed: u64,
    #[prost(bool, tag = "10")]
    pub skip_empty_lines: bool,
    #[prost(bool, tag = "11")]
    pub lenient: bool,
    #[prost(uint64, tag = "12")]
    pub max_record_bytes: u64,
    #[prost(uint64, tag = "13")]
    pub max_fields: u64,
    #[prost(uint64, tag = "14")]
    pub capacity: u64,
}

/// One file's exact split plan, as made where the query was planned.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FilePlanMsg {
    #[prost(string, tag = "1")]
    pub path: String,
    #[prost(uint64, tag = "2")]
    pub len: u64,
    #[prost(message, repeated, tag = "3")]
    pub splits: Vec<SplitMsg>,
}

/// [`Split`].
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SplitMsg {
    #[prost(uint64, tag = "1")]
    pub index: u64,
    #[prost(uint64, tag = "2")]
    pub range_start: u64,
    #[prost(uint64, tag = "3")]
    pub range_end: u64,
    #[prost(uint64, tag = "4")]
    pub start: u64,
    #[prost(uint64, tag = "5")]
    pub end: u64,
    #[prost(uint64, tag = "6")]
    pub record: u64,
    #[prost(uint64, tag = "7")]
    pub line: u64,
    #[prost(uint64, tag = "8")]
    pub records: u64,
}

fn bad(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("swath codec: {what}"))
}

fn byte(v: u32, what: &str) -> Result<u8> {
    u8::try_from(v).map_err(|_| bad(&format!("{what} {v} is not a byte")))
}

fn size(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

impl DialectMsg {
    fn from_settings(s: &ReaderSettings) -> Result<DialectMsg> {
        let (fields_kind, fields_fixed) = match s.field_count {
            FieldCount::Learn => (0, 0),
            FieldCount::Fixed(n) => (1, n as u64),
            FieldCount::Any => (2, 0),
            other => return Err(bad(&format!("field count {other:?} has no encoding"))),
        };
        Ok(DialectMsg {
            delimiter: s.delimiter.into(),
            quote: s.quote.into(),
            quoting: s.quoting,
            double_quote: s.double_quote,
            escape: s.escape.map(u32::from),
            comment: s.comment.map(u32::from),
            has_headers: s.has_headers,
            fields_kind,
            fields_fixed,
            skip_empty_lines: s.skip_empty_lines,
            lenient: s.lenient,
            max_record_bytes: s.max_record_bytes as u64,
            max_fields: s.max_fields as u64,
            capacity: s.capacity as u64,
        })
    }

    fn to_settings(&self) -> Result<ReaderSettings> {
        Ok(ReaderSettings {
            delimiter: byte(self.delimiter, "delimiter")?,
            quote: byte(self.quote, "quote")?,
            quoting: self.quoting,
            double_quote: self.double_quote,
            escape: self.escape.map(|b| byte(b, "escape")).transpose()?,
            comment: self.comment.map(|b| byte(b, "comment")).transpose()?,
            has_headers: self.has_headers,
            field_count: match self.fields_kind {
                0 => FieldCount::Learn,
                1 => FieldCount::Fixed(size(self.fields_fixed)),
                2 => FieldCount::Any,
                k => return Err(bad(&format!("unknown field count kind {k}"))),
            },
            skip_empty_lines: self.skip_empty_lines,
            lenient: self.lenient,
            max_record_bytes: size(self.max_record_bytes),
            max_fields: size(self.max_fields),
            capacity: size(self.capacity),
        })
    }
}

impl OptionsMsg {
    pub(crate) fn from_options(o: &SwathCsvOptions) -> Result<OptionsMsg> {
        if o.put_aside.is_some() {
            // The executors could not hand them back to the process that
            // writes the quarantine.
            return Err(bad("a table that puts broken records aside is read in one process, not shipped to a cluster"));
        }
        Ok(OptionsMsg {
            dialect: Some(DialectMsg::from_settings(&o.csv_builder().settings())?),
            null_texts: o.arrow.given_nulls().texts().iter().map(|t| t.to_vec()).collect(),
            on_error_null: o.arrow.given_on_error() == OnError::Null,
            split_bytes: o.split_bytes,
            file_extension: o.file_extension.clone(),
            store_url: o.store_url.clone(),
            string_view: o.arrow.given_string_view(),
            decimal_comma: o.arrow.given_numbers().decimal() == ',',
            thousands: o.arrow.given_numbers().thousands().map(u32::from),
        })
    }

    /// The options, with `schema` as the table's (nothing inferred).
    pub(crate) fn to_options(&self, schema: Option<&Schema>) -> Result<SwathCsvOptions> {
        let dialect = self.dialect.as_ref().ok_or_else(|| bad("options without a dialect"))?;
        let mut arrow = swath_arrow::ArrowReaderBuilder::new();
        arrow
            .csv(ReaderBuilder::from_settings(&dialect.to_settings()?))
            .nulls(swath_arrow::Nulls::list(&self.null_texts))
            .numbers(
                swath_arrow::Numbers::new(
                    self.decimal_comma,
                    self.thousands.and_then(char::from_u32),
                )
                .map_err(|e| bad(&e))?,
            )
            .on_error(if self.on_error_null { OnError::Null } else { OnError::Fail })
            .string_view(self.string_view);
        if let Some(schema) = schema {
            arrow.schema(std::sync::Arc::new(schema.clone()));
        }
        Ok(SwathCsvOptions {
            arrow,
            split_bytes: self.split_bytes,
            file_extension: self.file_extension.clone(),
            store_url: self.store_url.clone(),
            put_aside: None,
        })
    }
}

impl SplitMsg {
    pub(crate) fn from_split(s: &Split) -> SplitMsg {
        SplitMsg {
            index: s.index as u64,
            range_start: s.range.start,
            range_end: s.range.end,
            start: s.start,
            end: s.end,
            record: s.record,
            line: s.line,
            records: s.records,
        }
    }

    pub(crate) fn to_split(&self) -> Split {
        Split {
            index: size(self.index),
            range: self.range_start..self.range_end,
            start: self.start,
            end: self.end,
            record: self.record,
            line: self.line,
            records: self.records,
        }
    }
}
