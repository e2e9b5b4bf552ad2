//! Sizes as people type and read them: `4K`, `512M`, `1G`, `1.5 GiB`.

/// Parse a size: a number with an optional binary unit, `K`, `M`, `G` or
/// `T` (powers of 1024; `KiB`, `KB`, `k` are accepted and mean the same, as
/// the lab's sizes are always binary). A fraction is allowed with a unit
/// (`1.5G`); the result is rounded down to a whole byte.
///
/// # Errors
///
/// A message naming the input when it is empty, not a number, has an
/// unknown unit, or overflows `u64`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let s = text.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return Err(format!("unknown unit in size {text:?} (use K, M, G or T)")),
    };
    let bad = || format!("invalid size {text:?} (examples: 4096, 4K, 512M, 1.5G)");
    if num.is_empty() {
        return Err(bad());
    }
    let value = if let Some((whole, frac)) = num.split_once('.') {
        let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| bad())? };
        if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let scale = 10u128.pow(frac.len() as u32);
        let frac: u128 = frac.parse().map_err(|_| bad())?;
        let total = ((u128::from(whole) * scale + frac) << shift) / scale;
        u64::try_from(total).map_err(|_| bad())?
    } else {
        let whole: u64 = num.parse().map_err(|_| bad())?;
        whole.checked_mul(1u64 << shift).ok_or_else(bad)?
    };
    Ok(value)
}

/// A byte count for people: `512 MiB`, `4.0 KiB`, `17 B`.
pub fn format_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units_and_fractions() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size(" 2 GB "), Ok(2 << 30));
        assert_eq!(parse_size("0"), Ok(0));
    }

    #[test]
    fn refuses_nonsense_with_the_input_named() {
        for bad in ["", "M", "12X", "1.2.3K", "-1", "99999999999T", "1.K", "0x10"] {
            let err = parse_size(bad).unwrap_err();
            assert!(err.contains(&format!("{bad:?}")), "{bad}: {err}");
        }
    }

    #[test]
    fn formats_for_people() {
        assert_eq!(format_bytes(17), "17 B");
        assert_eq!(format_bytes(4096), "4 KiB");
        assert_eq!(format_bytes(512 << 20), "512 MiB");
        assert_eq!(format_bytes(1536), "1.5 KiB");
    }
}
