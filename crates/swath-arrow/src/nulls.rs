//! The texts read as null: the empty field by default, one text
//! (`--null NA`), a list (`--null 'NA,NULL,\N,-'`), or the usual set
//! (`--null common`). A field is null when it is one of them exactly
//! (case and spaces as written); inference counts it as no value, and
//! decoding makes it a null in a nullable column of any type.

/// What `--null common` names: the spellings exports use for a missing
/// value (R, pandas and Excel, databases' dumps, MySQL's `\N`, a dash).
/// Not `NaN`: a float column keeps it as a value.
pub const COMMON: &[&str] = &[
    "", "NA", "N/A", "n/a", "na", "NULL", "null", "Null", "None", "none", "nil", "\\N", "-",
    "#N/A", "<NA>",
];

/// The null texts; see the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nulls(Kind);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// The empty field alone: the default, tested first.
    Empty,
    /// One text, not empty.
    One(Box<[u8]>),
    /// Several, the longest's length first (most fields are longer).
    Many { longest: usize, texts: Vec<Box<[u8]>> },
}

impl Default for Nulls {
    fn default() -> Nulls {
        Nulls(Kind::Empty)
    }
}

impl Nulls {
    /// One text (empty: the default).
    pub fn text(text: impl Into<Vec<u8>>) -> Nulls {
        let text = text.into();
        if text.is_empty() {
            Nulls(Kind::Empty)
        } else {
            Nulls(Kind::One(text.into()))
        }
    }

    /// These texts (the empty one among them when it is null too).
    pub fn list<T: AsRef<[u8]>>(texts: impl IntoIterator<Item = T>) -> Nulls {
        let mut all: Vec<Box<[u8]>> = Vec::new();
        for t in texts {
            let t: Box<[u8]> = t.as_ref().into();
            if !all.contains(&t) {
                all.push(t);
            }
        }
        match all.len() {
            0 => Nulls(Kind::Empty),
            1 => Nulls::text(all.pop().expect("one").into_vec()),
            _ => {
                let longest = all.iter().map(|t| t.len()).max().unwrap_or(0);
                Nulls(Kind::Many { longest, texts: all })
            }
        }
    }

    /// [`COMMON`].
    pub fn common() -> Nulls {
        Nulls::list(COMMON)
    }

    /// The option's text: `common`, or texts separated by commas (an
    /// empty item is the empty field: `NA,` is `NA` and the empty field).
    pub fn parse(spec: &str) -> Nulls {
        if spec == "common" {
            return Nulls::common();
        }
        Nulls::list(spec.split(','))
    }

    /// Whether `f` is null.
    #[inline(always)]
    pub fn is_null(&self, f: &[u8]) -> bool {
        match &self.0 {
            Kind::Empty => f.is_empty(),
            Kind::One(t) => f == &**t,
            Kind::Many { longest, texts } => f.len() <= *longest && texts.iter().any(|t| f == &**t),
        }
    }

    /// Whether only the empty field is null (the default): a field that
    /// parses as a number or a date is then never null, and decoding need
    /// not look for the null text first.
    #[inline]
    pub fn only_empty(&self) -> bool {
        matches!(self.0, Kind::Empty)
    }

    /// The texts, in the order given.
    pub fn texts(&self) -> Vec<&[u8]> {
        match &self.0 {
            Kind::Empty => vec![b""],
            Kind::One(t) => vec![t],
            Kind::Many { texts, .. } => texts.iter().map(|t| &**t).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_null_exactly_as_written() {
        let d = Nulls::default();
        assert!(d.is_null(b"") && !d.is_null(b"NA") && d.only_empty());
        let one = Nulls::parse("NA");
        assert!(one.is_null(b"NA") && !one.is_null(b"") && !one.is_null(b"na"));
        let list = Nulls::parse("NA,NULL,\\N,-");
        for t in ["NA", "NULL", "\\N", "-"] {
            assert!(list.is_null(t.as_bytes()), "{t}");
        }
        for t in ["", "N", "NULLS", "na", " NA", "--"] {
            assert!(!list.is_null(t.as_bytes()), "{t:?}");
        }
        let with_empty = Nulls::parse("NA,");
        assert!(with_empty.is_null(b"") && with_empty.is_null(b"NA"));
        let common = Nulls::parse("common");
        assert!(common.is_null(b"") && common.is_null(b"n/a") && common.is_null(b"\\N"));
        assert!(!common.is_null(b"NaN") && !common.is_null(b"0"));
        assert_eq!(Nulls::parse("NA,NA").texts(), vec![b"NA" as &[u8]]);
        assert_eq!(Nulls::parse(""), Nulls::default());
    }
}
