//! What the SQL tests share: a session of N partitions that cuts every
//! file scan, and rows as text to compare.

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::{SessionConfig, SessionContext};

/// A session of `partitions` partitions that splits every file scan.
pub fn ctx(partitions: usize) -> SessionContext {
    let cfg = SessionConfig::new()
        .with_target_partitions(partitions)
        .with_repartition_file_scans(true)
        .with_repartition_file_min_size(0);
    SessionContext::new_with_config(cfg)
}

/// Every row of `batches` as one line of text, cells by `|`.
pub fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let opts = FormatOptions::default().with_null("NULL");
    let mut out = Vec::new();
    for b in batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            let cells: Vec<String> = fmts.iter().map(|f| f.value(r).to_string()).collect();
            out.push(cells.join("|"));
        }
    }
    out
}

/// The rows of `sql`, sorted when the query does not fix their order.
pub async fn run(ctx: &SessionContext, sql: &str) -> datafusion::error::Result<Vec<String>> {
    let mut r = rows(&ctx.sql(sql).await?.collect().await?);
    if !sql.contains("ORDER BY") {
        r.sort();
    }
    Ok(r)
}
