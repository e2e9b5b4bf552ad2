//! The CSV dialect options: `swath csv` and `swath sql` take the same.

use swath_csv::ReaderBuilder;

use super::{parse_byte, parse_size};

/// The dialect options.
#[derive(Debug, Clone, clap::Args)]
pub struct DialectArgs {
    /// Field delimiter: one ASCII character, `tab` / `\t`, or `auto` (the
    /// dialect `swath csv sniff` finds: delimiter, quote and escape; with
    /// -v it is printed on stderr).
    #[arg(short = 'd', long, default_value = ",", value_parser = parse_delimiter)]
    pub delimiter: Delimiter,
    /// Quote character.
    #[arg(long, default_value = "\"", value_parser = parse_byte)]
    pub quote: u8,
    /// Escape character inside quoted fields (e.g. `\`); default none, only
    /// doubled quotes.
    #[arg(long, value_parser = parse_byte)]
    pub escape: Option<u8>,
    /// Skip lines that start with this character.
    #[arg(long, value_parser = parse_byte)]
    pub comment: Option<u8>,
    /// The first record is data, not a header row.
    #[arg(long)]
    pub no_headers: bool,
    /// Accept bad quoting the way the Rust `csv` crate does, instead of
    /// reporting it.
    #[arg(long)]
    pub lenient: bool,
    /// Accept records with different numbers of fields.
    #[arg(long)]
    pub flexible: bool,
    /// Longest record accepted, in bytes (suffixes K, M, G allowed). It bounds
    /// memory: count, check, head and select peak at the longest record
    /// read (at most this) plus about 8 MiB.
    #[arg(long, default_value = "64M", value_parser = parse_size)]
    pub max_record_size: usize,
    /// The text's encoding, decoded to UTF-8 as it is read (on every core
    /// for a file): a name (windows-1252, latin-1, utf-16le, gb18030,
    /// shift_jis, euc-kr, big5: any WHATWG label), `auto` (detected from
    /// samples; -v says why), `lossy` (UTF-8, U+FFFD for bytes that are
    /// not, counted on stderr), or NAME:lossy. Default: UTF-8, or what a
    /// byte order mark says. Error positions are bytes of the decoded text
    /// (the decoder's own errors name the file's byte).
    #[arg(long, value_name = "NAME|auto|lossy", value_parser = parse_encoding)]
    pub encoding: Option<swath::text::Decoding>,
    /// Where the records are: lines skipped before them and after them.
    #[command(flatten)]
    pub body: super::body::BodyArgs,
}

/// `--encoding`: a name, `auto`, `lossy`, `NAME:lossy`.
pub fn parse_encoding(s: &str) -> Result<swath::text::Decoding, String> {
    s.parse()
}

/// `-d`: a byte, or `auto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimiter {
    /// Sniff it (`swath csv` resolves it before any command runs).
    Auto,
    /// This byte.
    Byte(u8),
}

impl Delimiter {
    /// The byte (`,` for an unresolved `auto`, which no command sees).
    pub fn byte(self) -> u8 {
        match self {
            Delimiter::Byte(b) => b,
            Delimiter::Auto => b',',
        }
    }
}

/// `auto`, or what [`parse_byte`] takes.
pub fn parse_delimiter(s: &str) -> Result<Delimiter, String> {
    match s {
        "auto" => Ok(Delimiter::Auto),
        _ => parse_byte(s).map(Delimiter::Byte),
    }
}

impl DialectArgs {
    /// A builder with these options; `quoting` false reads quote bytes as
    /// data (a file `-d auto` found never quoted).
    pub fn builder(&self, quoting: bool) -> ReaderBuilder {
        let mut b = ReaderBuilder::new();
        b.delimiter(self.delimiter.byte())
            .quote(self.quote)
            .quoting(quoting)
            .escape(self.escape)
            .comment(self.comment)
            .has_headers(!self.no_headers)
            .lenient(self.lenient)
            .flexible(self.flexible)
            .max_record_bytes(self.max_record_size)
            .encoding(self.decoding())
            .skip(self.body.skip())
            .footer_lines(self.body.skip_last.unwrap_or(0));
        b
    }

    /// How the text is decoded (`--encoding`, or the default).
    pub fn decoding(&self) -> swath::text::Decoding {
        self.encoding.unwrap_or_default()
    }

    /// `-d auto` is left to sniff (only `swath csv` resolves it; `swath
    /// sql`, built with the `sql` feature, asks).
    #[cfg(feature = "sql")]
    pub fn is_auto(&self) -> bool {
        self.delimiter == Delimiter::Auto
    }
}
