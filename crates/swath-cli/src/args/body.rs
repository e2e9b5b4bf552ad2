//! Where a CSV file's records are: the lines before them (a preamble)
//! and after them (a footer) that every csv command, `swath sql` and
//! `csv sniff` leave out.

/// `--skip-rows`, `--header-row`, `--skip-until`, `--skip-last`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BodyArgs {
    /// Skip the first N lines of the file (a title, notes) before the
    /// header row. Lines as an editor numbers them; positions in errors
    /// stay the file's. An Excel `sep=X` first line is always skipped (and
    /// names the delimiter when -d is not given).
    #[arg(long, value_name = "N", conflicts_with_all = ["header_row", "skip_until"])]
    pub skip_rows: Option<u64>,
    /// The header row is line N of the file (1 is the first line): the
    /// lines before it are skipped.
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "skip_until",
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub header_row: Option<u64>,
    /// Skip every line before the first that matches REGEX (searched in
    /// the line, e.g. `^Date,`): that line is the header row.
    #[arg(long, value_name = "REGEX", value_parser = parse_line_match)]
    pub skip_until: Option<swath_csv::preamble::LineMatch>,
    /// Leave out the last N lines (a footer such as "Totals"); empty lines
    /// at the very end do not count. Exact on every thread count.
    #[arg(long, value_name = "N")]
    pub skip_last: Option<u64>,
}

/// `--skip-until`: a regular expression, matched against each line's
/// bytes (without its line end).
pub fn parse_line_match(s: &str) -> Result<swath_csv::preamble::LineMatch, String> {
    let re = regex::bytes::Regex::new(s).map_err(|e| e.to_string())?;
    Ok(swath_csv::preamble::LineMatch::new(s, move |line: &[u8]| re.is_match(line)))
}

impl BodyArgs {
    /// The lines skipped before the records (`--skip-rows`, `--header-row`,
    /// `--skip-until`).
    pub fn skip(&self) -> swath_csv::preamble::Skip {
        use swath_csv::preamble::Skip;
        match (self.skip_rows, self.header_row, &self.skip_until) {
            (Some(n), _, _) => Skip::Lines(n),
            (_, Some(n), _) => Skip::Lines(n - 1),
            (_, _, Some(m)) => Skip::Until(m.clone()),
            _ => Skip::Nothing,
        }
    }

    /// Whether any line is to be left out (an Excel `sep=` line aside).
    pub fn is_given(&self) -> bool {
        self.skip_rows.is_some()
            || self.header_row.is_some()
            || self.skip_until.is_some()
            || self.skip_last.is_some()
    }
}
