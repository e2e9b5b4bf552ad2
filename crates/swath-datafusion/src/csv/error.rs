//! swath's errors as DataFusion's, each naming its file and, for a bad
//! record, its record number, line and byte.

use std::path::Path;
use std::sync::Arc;

use datafusion::error::DataFusionError;

/// A swath-arrow error while reading `path`, as a DataFusion error whose
/// message starts with the path (and the record's position, for a CSV
/// error). The swath error stays reachable as the external error's source.
pub(crate) fn from_arrow(e: swath_arrow::Error, path: &Path) -> DataFusionError {
    let e = match e {
        swath_arrow::Error::Csv(c) if c.path().is_none() => {
            swath_arrow::Error::Csv(c.with_path(path))
        }
        swath_arrow::Error::Csv(c) => swath_arrow::Error::Csv(c),
        other => {
            return DataFusionError::External(Box::new(Named { path: path.into(), inner: other }))
        }
    };
    DataFusionError::External(Box::new(e))
}

/// A swath-csv error while reading `path`.
pub(crate) fn from_csv(e: swath_csv::Error, path: &Path) -> DataFusionError {
    from_arrow(swath_arrow::Error::Csv(e), path)
}

/// A shared swath-csv error (a failed plan, kept in the plan cache).
pub(crate) fn from_shared(e: Arc<swath_csv::Error>, path: &Path) -> DataFusionError {
    let e = match Arc::try_unwrap(e) {
        Ok(e) => e,
        Err(shared) => {
            return DataFusionError::External(Box::new(Shared { inner: shared, path: path.into() }))
        }
    };
    from_csv(e, path)
}

/// An error that does not carry its path itself.
#[derive(Debug)]
struct Named {
    path: std::path::PathBuf,
    inner: swath_arrow::Error,
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.inner)
    }
}

impl std::error::Error for Named {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.inner)
    }
}

/// A plan's error, shared by the partitions that needed the plan.
#[derive(Debug)]
struct Shared {
    inner: Arc<swath_csv::Error>,
    path: std::path::PathBuf,
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.inner.path().is_some() {
            write!(f, "{}", self.inner)
        } else {
            write!(f, "{}: {}", self.path.display(), self.inner)
        }
    }
}

impl std::error::Error for Shared {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.inner)
    }
}

/// The swath-csv error inside a DataFusion error, if it came from the CSV
/// (for a caller that wants its position).
pub fn csv_error(e: &DataFusionError) -> Option<&swath_csv::Error> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(c) = err.downcast_ref::<swath_csv::Error>() {
            return Some(c);
        }
        if let Some(a) = err.downcast_ref::<swath_arrow::Error>() {
            if let Some(c) = a.csv() {
                return Some(c);
            }
        }
        cur = err.source();
    }
    None
}
