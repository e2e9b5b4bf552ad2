//! The arguments more than one command takes, declared once: sizes and
//! single bytes, the CSV dialect (`swath csv`, `swath sql`), and the
//! Parquet output options (every command that writes Parquet).

pub mod body;
pub mod dialect;
pub mod on_bad;
pub mod parquet;
pub mod schema_file;

pub use dialect::DialectArgs;
pub use parquet::ParquetArgs;

/// A positive byte count with an optional K, M, G suffix (the lab's parser).
pub fn parse_size(s: &str) -> std::result::Result<usize, String> {
    swath_lab::units::parse_size(s)
        .ok()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{s:?} is not a positive size (like 4096, 512K, 64M)"))
}

/// One ASCII character; `tab` and `\t` for a TAB.
pub fn parse_byte(s: &str) -> std::result::Result<u8, String> {
    match s {
        "tab" | "\\t" => return Ok(b'\t'),
        _ => {}
    }
    match s.as_bytes() {
        [b] if b.is_ascii() => Ok(*b),
        _ => Err(format!(
            "{s:?} is not one ASCII character (multi-byte delimiters are not supported)"
        )),
    }
}

/// `--threads N` (0: every core). It is also the number of threads that
/// decode a compressed input's spans (`swath::decompress`), set here, as
/// the flag is read, so that every command taking `--threads` decodes on
/// as many threads as it reads with, without each command saying so.
pub fn parse_threads(s: &str) -> std::result::Result<usize, String> {
    let n: usize = s.parse().map_err(|_| format!("{s:?} is not a number of threads"))?;
    swath::decompress::set_decode_threads(n);
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_sizes_parse() {
        assert_eq!(parse_byte("tab"), Ok(b'\t'));
        assert_eq!(parse_byte(";"), Ok(b';'));
        assert!(parse_byte("£").is_err());
        assert!(parse_byte("ab").is_err());
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("x").is_err());
    }
}
