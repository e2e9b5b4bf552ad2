//! Sum a typed column of a CSV file, stopping at the first bad field with
//! its position: `cargo run --release -p swath-csv --example typed_scan -- FILE`
//! on a file whose first two columns are `id` (integer) and `score` (float,
//! may be empty).

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: typed_scan FILE");
        return ExitCode::FAILURE;
    };
    match sum_scores(&path) {
        Ok((rows, total)) => {
            println!("{rows} rows, scores sum to {total}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{path}: {err}");
            ExitCode::FAILURE
        }
    }
}

fn sum_scores(path: &str) -> swath_csv::Result<(u64, f64)> {
    let mut rdr = swath_csv::ReaderBuilder::new().flexible(true).from_path(path)?;
    let (mut rows, mut total) = (0u64, 0.0f64);
    while let Some(rec) = rdr.next_record()? {
        let (_id, score): (u64, Option<f64>) = rec.scan()?;
        rows += 1;
        total += score.unwrap_or(0.0);
    }
    Ok((rows, total))
}
