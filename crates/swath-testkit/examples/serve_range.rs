//! Serve one file over HTTP with Range and ETag on 127.0.0.1, for the
//! http:// rows of `bench/run remote`: swath-testkit's range server (the
//! one the tests use; in memory, a thread per connection). Prints the URL,
//! then serves until killed or until `--seconds` pass (600 by default).
//!
//!   cargo run --release -p swath-testkit --example serve_range -- FILE [--seconds 600]

use std::io::Write;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: serve_range FILE [--seconds N]");
        std::process::exit(2);
    };
    let seconds: u64 = match args.iter().position(|a| a == "--seconds") {
        Some(i) => args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(600),
        None => 600,
    };
    let bytes = std::fs::read(file).unwrap_or_else(|e| {
        eprintln!("serve_range: cannot read {file}: {e}");
        std::process::exit(2);
    });
    let server = swath_testkit::RangeServer::start();
    server.put("bench.csv", bytes);
    println!("{}", server.url("bench.csv"));
    let _ = std::io::stdout().flush();
    std::thread::sleep(Duration::from_secs(seconds));
    drop(server);
}
