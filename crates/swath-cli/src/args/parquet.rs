//! The Parquet output options, flattened into every command that writes
//! Parquet (`csv to-parquet`, `json to-parquet`).

use clap::ValueEnum;
use swath_arrow::{encode_threads_for, ParquetCompression, ParquetOptions};

use super::parse_size;

/// How to write the Parquet file.
#[derive(Debug, Clone, clap::Args)]
pub struct ParquetArgs {
    /// Compression of every column.
    #[arg(long, value_enum, default_value_t = Compression::Zstd)]
    compression: Compression,
    /// Rows per row group at most.
    #[arg(long, default_value_t = 1 << 20)]
    row_group_rows: usize,
    /// Encoded bytes per row group at most (suffixes K, M, G; default
    /// 128M, or an eighth of a cgroup memory limit under 512 MiB).
    #[arg(long, value_parser = parse_size)]
    row_group_size: Option<usize>,
    /// Leave out the per-column statistics (min, max, null count).
    #[arg(long)]
    no_statistics: bool,
    /// Threads that encode and compress the columns (0 = half the -t
    /// threads for a file decoded in parallel, every core for input read
    /// on one thread; 1 = on the writing thread). The values are the same
    /// for any number, and so is the file, except that row groups closed
    /// by --row-group-size may fall elsewhere with 1 than with more.
    #[arg(long, default_value_t = 0)]
    encode_threads: usize,
}

/// Parquet compression, as `--compression` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Compression {
    /// zstd at level 1 (fast, and DuckDB's choice too).
    Zstd,
    /// Snappy.
    Snappy,
    /// None.
    None,
}

impl ParquetArgs {
    /// The writer's options. `decoders`: the threads that decode the input
    /// when a file is decoded in parallel (0: every core), `None` when it
    /// is read on one thread (a pipe, compressed input, `-t 1`); `small`:
    /// the cgroup memory limit when it is small
    /// ([`crate::small_memory::small_limit`]).
    pub fn options(&self, decoders: Option<usize>, small: Option<u64>) -> ParquetOptions {
        ParquetOptions {
            compression: match self.compression {
                Compression::Zstd => ParquetCompression::Zstd,
                Compression::Snappy => ParquetCompression::Snappy,
                Compression::None => ParquetCompression::None,
            },
            row_group_rows: self.row_group_rows,
            row_group_bytes: row_group_bytes(self.row_group_size, small),
            statistics: !self.no_statistics,
            // As given, or the cores the decoding leaves.
            encode_threads: match (self.encode_threads, decoders) {
                (0, Some(threads)) => encode_threads_for(threads),
                (0, None) => encode_threads_for(1),
                (n, _) => n,
            },
        }
    }
}

/// Row groups close at this many encoded bytes unless told otherwise.
const ROW_GROUP_BYTES: usize = 128 << 20;

/// The row group's byte limit: as given; else inside a small cgroup limit
/// (`small`) an eighth of it, at least 1 MiB; else [`ROW_GROUP_BYTES`].
///
/// The open row group is held encoded in memory until it closes (about
/// 15 MiB at 1Mi rows of a typical file), and inside a 64 MiB cgroup the
/// page cache, the binary's code included, gets what the process leaves.
/// `to-parquet -t 2` of 4.3 GiB under 64 MiB with the full binary: 38.7 s
/// (7,568 major faults) as uncapped; 8 MiB row groups and 1 MiB chunks,
/// 22.5 s (2,157). Uncapped the settings only add row groups.
fn row_group_bytes(given: Option<usize>, small: Option<u64>) -> usize {
    match (given, small) {
        (Some(b), _) => b,
        (None, Some(limit)) => usize::try_from(limit / 8).unwrap_or(usize::MAX).max(1 << 20),
        (None, None) => ROW_GROUP_BYTES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_groups_are_an_eighth_of_a_small_limit_unless_given() {
        assert_eq!(row_group_bytes(None, None), 128 << 20);
        assert_eq!(row_group_bytes(None, Some(64 << 20)), 8 << 20);
        assert_eq!(row_group_bytes(None, Some(4 << 20)), 1 << 20);
        assert_eq!(row_group_bytes(Some(3 << 20), Some(64 << 20)), 3 << 20);
        assert_eq!(row_group_bytes(Some(500 << 20), None), 500 << 20);
    }
}
