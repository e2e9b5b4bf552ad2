//! CSV and JSON tables are one scan: on a compressed file both read the
//! whole file in the range that holds its byte 0 and nothing in any other
//! range, so any cover of the file reads each record once; as tables both
//! give the plain file's answer on any number of partitions.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{Array, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileGroup, FileScanConfigBuilder};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use swath_datafusion::{
    SwathCsvExt, SwathCsvFormat, SwathCsvOptions, SwathJsonExt, SwathJsonFormat, SwathJsonOptions,
};

use crate::common::ctx;

const ROWS: i64 = 5_000;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
    ]))
}

/// The same rows as CSV (a quoted newline in every tenth) and as JSON
/// lines, each plain and gzipped.
fn write_files(dir: &Path) {
    let (mut csv, mut json) = (String::from("id,name\n"), String::new());
    for id in 0..ROWS {
        let name = if id % 10 == 0 { format!("two\nlines {id}") } else { format!("n{id}") };
        csv.push_str(&format!("{id},\"{name}\"\n"));
        json.push_str(&format!("{{\"id\":{id},\"name\":{name:?}}}\n"));
    }
    for (name, text) in [("t.csv", csv), ("t.jsonl", json)] {
        std::fs::write(dir.join(name), &text).unwrap();
        let gz = std::fs::File::create(dir.join(format!("{name}.gz"))).unwrap();
        let mut enc = flate2::write::GzEncoder::new(gz, flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        enc.finish().unwrap();
    }
}

/// The file sources of both formats, with the schema given.
fn formats() -> Vec<(&'static str, Arc<dyn FileFormat>)> {
    vec![
        // Splits of 4 KiB: a range of the plain file then starts at a
        // split boundary inside it, not at the one split of a small file.
        (
            "t.csv",
            Arc::new(SwathCsvFormat::new(
                SwathCsvOptions::new().schema(schema()).split_bytes(4096),
            )),
        ),
        ("t.jsonl", Arc::new(SwathJsonFormat::new(SwathJsonOptions::new().schema(schema())))),
    ]
}

/// The rows a scan of the file in these byte ranges reads, one range a
/// partition, all partitions read. (DataFusion lets a partition take the
/// files of another that has not started, so the rows of one range are
/// read by a scan of that range alone.)
async fn rows_of_scan(format: &Arc<dyn FileFormat>, path: &Path, ranges: &[(u64, u64)]) -> i64 {
    let size = std::fs::metadata(path).unwrap().len();
    let source = format.file_source(TableSchema::from(schema()));
    let groups = ranges
        .iter()
        .map(|&(a, b)| {
            let f =
                PartitionedFile::new(path.to_str().unwrap(), size).with_range(a as i64, b as i64);
            FileGroup::new(vec![f])
        })
        .collect();
    let conf = FileScanConfigBuilder::new(ObjectStoreUrl::local_filesystem(), source)
        .with_file_groups(groups)
        .build();
    let exec = DataSourceExec::from_data_source(conf);
    let ctx = SessionContext::new();
    let mut n = 0;
    for p in 0..ranges.len() {
        let mut stream = exec.execute(p, ctx.task_ctx()).unwrap();
        while let Some(batch) = stream.next().await {
            n += batch.unwrap().num_rows() as i64;
        }
    }
    n
}

/// The rows each range reads, each scanned alone.
async fn rows_by_range(
    format: &Arc<dyn FileFormat>,
    path: &Path,
    ranges: &[(u64, u64)],
) -> Vec<i64> {
    let mut out = Vec::new();
    for &r in ranges {
        out.push(rows_of_scan(format, path, &[r]).await);
    }
    out
}

#[tokio::test]
async fn a_compressed_file_is_read_once_by_the_range_that_holds_its_first_byte() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path());
    for (name, format) in formats() {
        let gz = dir.path().join(format!("{name}.gz"));
        let len = std::fs::metadata(&gz).unwrap().len();
        let half = len / 2;
        let cover = [(0, half), (half, len)];
        assert_eq!(rows_by_range(&format, &gz, &cover).await, vec![ROWS, 0], "{name}.gz by range");
        assert_eq!(rows_of_scan(&format, &gz, &cover).await, ROWS, "{name}.gz in two ranges");
        // The plain twin, cut at the same places: each range reads the
        // records that start in it, together all of them.
        let plain = dir.path().join(name);
        let plen = std::fs::metadata(&plain).unwrap().len();
        let cover = [(0, plen / 3), (plen / 3, plen / 2), (plen / 2, plen)];
        let parts = rows_by_range(&format, &plain, &cover).await;
        assert_eq!(parts.iter().sum::<i64>(), ROWS, "{name} by range: {parts:?}");
        assert!(parts.iter().all(|&n| n > 0), "{name}: every range reads records: {parts:?}");
        assert_eq!(rows_of_scan(&format, &plain, &cover).await, ROWS, "{name} in three ranges");
    }
}

#[tokio::test]
async fn csv_and_json_tables_of_a_compressed_file_give_the_plain_files_answer() {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path());
    let sql = "SELECT count(*), sum(id), count(DISTINCT name) FROM t";
    for partitions in [1, 4] {
        let mut answers = Vec::new();
        for file in ["t.csv", "t.csv.gz", "t.jsonl", "t.jsonl.gz"] {
            let ctx = ctx(partitions);
            let path = dir.path().join(file);
            let path = path.to_str().unwrap();
            if file.starts_with("t.csv") {
                ctx.register_swath_csv("t", path, SwathCsvOptions::new()).await.unwrap();
            } else {
                ctx.register_swath_json("t", path, SwathJsonOptions::new()).await.unwrap();
            }
            let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
            let b = &batches[0];
            let ints: Vec<i64> = (0..3)
                .map(|c| {
                    let col = b.column(c);
                    datafusion::arrow::compute::cast(col, &DataType::Int64).unwrap()
                })
                .map(|a| a.as_any().downcast_ref::<Int64Array>().unwrap().value(0))
                .collect();
            answers.push((file, ints));
        }
        let want = vec![ROWS, ROWS * (ROWS - 1) / 2, ROWS];
        for (file, got) in &answers {
            assert_eq!(got, &want, "{file} on {partitions} partitions");
        }
    }
}
